/**
 * resin's live trace, rendered by agent-chat-ui inside the answer message.
 *
 * The graph pushes one UI message per run (`resin.agent.chat_trace`) and merges new props into
 * it as the run goes: the plan with every hop pending, each hop reading and then resolved, the
 * chain while composing, then the sources and notes. The server bundles this file (langgraph.json
 * "ui"); React comes from the chat client, so the file imports nothing else.
 */
import type { CSSProperties } from "react";

type HopStatus = "pending" | "reading" | "answered" | "resolved" | "not_found" | "skipped";

interface TraceHop {
  id: number;
  question: string;
  status: HopStatus;
  answer: string;
}

interface TraceLink {
  head: string;
  relation: string;
  tail: string;
}

interface TraceSource {
  label: number;
  title: string;
  sentence: string;
  url: string;
}

export interface TraceProps {
  stage: "reading" | "composing" | "done";
  question: string;
  asked: string;
  plan: { source: string; reason: string };
  notes: string[];
  chain: TraceLink[];
  sources: TraceSource[];
  answer: string;
  found?: boolean;
  [hop: `hop_${number}`]: TraceHop;
}

const STATUS_WORDS: Record<HopStatus, string> = {
  pending: "waiting",
  reading: "reading…",
  answered: "answered",
  resolved: "read",
  not_found: "not found",
  skipped: "not run",
};

const STATUS_COLORS: Record<HopStatus, string> = {
  pending: "#9ca3af",
  reading: "#2563eb",
  answered: "#16a34a",
  resolved: "#0d9488",
  not_found: "#dc2626",
  skipped: "#9ca3af",
};

const STAGE_WORDS: Record<TraceProps["stage"], string> = {
  reading: "reading the documents hop by hop",
  composing: "writing the answer",
  done: "done",
};

const box: CSSProperties = {
  border: "1px solid #e5e7eb",
  borderRadius: 8,
  padding: "8px 12px",
  margin: "4px 0",
  font: "14px/1.5 system-ui, sans-serif",
  color: "#111827",
  background: "#fafafa",
};
const muted: CSSProperties = { color: "#6b7280", fontSize: 12 };
const list: CSSProperties = { margin: "4px 0", paddingLeft: 20 };

/** The hops in id order: each has a props key of its own, so parallel hops never collide. */
function hopsOf(props: TraceProps): TraceHop[] {
  return Object.keys(props)
    .filter((key): key is `hop_${number}` => /^hop_\d+$/.test(key))
    .map((key) => props[key])
    .sort((a, b) => a.id - b.id);
}

/** "#1" in a hop's question stands for hop 1's answer until the hop is resolved. */
function readable(question: string): string {
  return question.replace(/#(\d+)/g, "(hop $1's answer)");
}

function Hop({ hop }: { hop: TraceHop }) {
  return (
    <li data-testid="resin-hop" data-hop={hop.id} data-status={hop.status}>
      <span>{readable(hop.question)}</span>{" "}
      <span style={{ color: STATUS_COLORS[hop.status], fontSize: 12 }}>
        {STATUS_WORDS[hop.status]}
      </span>
      {hop.answer ? (
        <div>
          → <strong data-testid="resin-hop-answer">{hop.answer}</strong>
        </div>
      ) : null}
    </li>
  );
}

function ResinTrace(props: TraceProps) {
  const hops = hopsOf(props);
  const chain = props.chain ?? [];
  const notes = props.notes ?? [];
  const sources = props.sources ?? [];
  return (
    <section data-testid="resin-trace" data-stage={props.stage} style={box}>
      <div style={muted}>
        {hops.length} hop{hops.length === 1 ? "" : "s"} · {STAGE_WORDS[props.stage]}
      </div>
      <ol style={list}>
        {hops.map((hop) => (
          <Hop key={hop.id} hop={hop} />
        ))}
      </ol>
      {chain.length > 0 ? (
        <div data-testid="resin-chain">
          <span style={muted}>chain: </span>
          {chain[0].head}
          {chain.map((link, i) => (
            <span key={i}>
              {" "}
              <span style={muted}>→ {link.relation} →</span> {link.tail}
            </span>
          ))}
        </div>
      ) : null}
      {notes.map((note, i) => (
        <div key={i} data-testid="resin-note" style={muted}>
          {note}
        </div>
      ))}
      {sources.length > 0 ? (
        <ol style={list}>
          {sources.map((source) => (
            <li key={source.label} value={source.label}>
              <a data-testid="resin-source" href={source.url} target="_blank" rel="noopener noreferrer">
                {source.title}
              </a>
              : “{source.sentence}”
            </li>
          ))}
        </ol>
      ) : null}
    </section>
  );
}

export default { resin_trace: ResinTrace };
