"""Readable traces of a run, and pictures of the reasoning chains it used."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from resin.indexes.index import Index
from resin.tools.retrieval import Chain


def to_jsonable(state: dict[str, Any]) -> dict[str, Any]:
    """The output state with pydantic models and messages turned into plain JSON."""

    def convert(value: Any) -> Any:
        if hasattr(value, "model_dump"):
            return value.model_dump()
        if isinstance(value, dict):
            return {str(k): convert(v) for k, v in value.items()}
        if isinstance(value, list):
            return [convert(v) for v in value]
        if hasattr(value, "content") and hasattr(value, "type"):
            return {"type": value.type, "content": value.content}
        return value

    return {k: convert(v) for k, v in state.items()}


# The stage each graph node's time counts toward (dispatch is the hops' join point).
STAGE_OF = {"plan": "plan", "dispatch": "hops", "resolve_hop": "hops", "compose": "compose"}


class StageClock:
    """Wall seconds per stage of one streamed run, time to the first answer token, and in all.

    Fed the stream's parts (modes "updates" and "messages"): a node's update arrives when the node
    ends, so the time since the previous update is its stage's; parallel hops count once, as wall
    time, which is what a person waits for.
    """

    def __init__(self) -> None:
        self.start = self.last = time.perf_counter()
        self.stages: dict[str, float] = {}
        self.first_token: float | None = None

    def part(self, mode: str, payload: Any) -> None:
        """Account for one streamed part."""
        now = time.perf_counter()
        if mode == "updates" and isinstance(payload, dict):
            for node in payload:
                stage = STAGE_OF.get(str(node), str(node))
                self.stages[stage] = self.stages.get(stage, 0.0) + now - self.last
            self.last = now
        elif mode == "messages" and self.first_token is None:
            chunk, meta = payload
            if meta.get("langgraph_node") == "compose" and chunk.content:
                self.first_token = now - self.start

    def seconds(self) -> dict[str, float | None]:
        """Seconds per stage, then `first_token` and `total` (rounded to milliseconds)."""
        out: dict[str, float | None] = {k: round(v, 3) for k, v in self.stages.items()}
        out["first_token"] = None if self.first_token is None else round(self.first_token, 3)
        out["total"] = round(time.perf_counter() - self.start, 3)
        return out


def render_timings(timings: dict[str, float | None]) -> str:
    """One line: seconds per stage, to the first answer token, and in all."""
    parts = [
        f"{name.replace('_', ' ')} {value:.2f} s"
        for name, value in timings.items()
        if value is not None
    ]
    return "  " + " · ".join(parts)


def rewritten(values: dict[str, Any]) -> bool:
    """Whether an output state's (or `plan` event's) question is a follow-up made standalone."""
    return values.get("asked", "") not in ("", values.get("question"))


def render_trace(state: dict[str, Any], index: Index) -> str:
    """The question and plan (with why), each hop's evidence, chains, sources, notes, time."""
    lines = ["", "── question", f"  {state.get('question', '')}"]
    if rewritten(state):
        lines.append(f"  (follow-up as typed: {state['asked']})")
    lines.append("── plan")
    if state.get("plan_reason"):
        lines.append(f"  {state['plan_reason']}")
    for hop in state.get("plan") or []:
        deps = f" (after {', '.join(map(str, hop.depends_on))})" if hop.depends_on else ""
        lines.append(f"  hop {hop.id}{deps}: {hop.question}")
    by_hop: dict[int, list[Any]] = {}
    for item in state.get("evidence") or []:
        by_hop.setdefault(item.hop, []).append(item)
    titles = {
        p.id: p.title for p in index.passages({e.passage_id for e in state.get("evidence") or []})
    }
    for hop_id in sorted(by_hop):
        lines.append(f"── hop {hop_id} evidence")
        for item in by_hop[hop_id]:
            source = f"{titles.get(item.passage_id, '?')} {', '.join(item.sentence_ids)}"
            lines.append(f"  [{item.route} {item.score:.2f}] {item.quote}")
            lines.append(f"      ↳ {source}")
    chains = state.get("chains") or []
    if chains:
        lines.append("── chains")
        lines.extend(f"  {c.text}  ({c.score:.2f})" for c in chains)
    lines.append("── sources")
    for source in state.get("sources") or []:
        lines.append(f"  [{source['label']}] {source['title']} {source['sentence_id']}")
    if not state.get("sources"):
        lines.append("  (none)")
    if state.get("notes"):
        lines.append("── notes")
        lines.extend(f"  {note}" for note in state["notes"])
    if state.get("timings"):
        lines += ["── time", render_timings(state["timings"])]
    return "\n".join(lines)


def mermaid(chains: list[Chain]) -> str:
    """The chains as a Mermaid flowchart, each node and edge once (chains share their links)."""
    ids: dict[str, str] = {}
    out = ["flowchart LR"]
    for chain in chains:
        for link in chain.links:
            for name in (link.head, link.tail):
                if name not in ids:
                    ids[name] = f"n{len(ids)}"
                    out.append(f'    {ids[name]}["{name.replace(chr(34), chr(39))}"]')
            edge = f"    {ids[link.head]} -->|{link.relation.replace('|', '/')}| {ids[link.tail]}"
            if edge not in out:
                out.append(edge)
    return "\n".join(out) + "\n"


PICTURE_SUFFIXES = (".png", ".svg", ".pdf")


def pyplot() -> Any:
    """Matplotlib's pyplot, drawing off-screen; a ValueError naming the ``plot`` extra without it."""
    try:
        import matplotlib
    except ImportError:
        raise ValueError(
            "pictures need matplotlib: pip install 'resin-agent[plot]' "
            "(or write the chains as Mermaid text: --chains chains.mmd)"
        ) from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def write_chains(chains: list[Chain], path: Path) -> None:
    """Write the chains as Mermaid text (.mmd, .md) or a picture (.png, .svg)."""
    if path.suffix.lower() in PICTURE_SUFFIXES:
        import networkx as nx

        plt = pyplot()

        g = nx.DiGraph()
        for chain in chains:
            for link in chain.links:
                g.add_edge(link.head, link.tail, label=link.relation)
        fig, ax = plt.subplots(figsize=(10, 6))
        if g.number_of_nodes():
            pos = nx.spring_layout(g, seed=7)
            nx.draw_networkx(
                g, pos, ax=ax, node_color="#cfe3f7", node_size=1800, font_size=8, arrowsize=16
            )
            nx.draw_networkx_edge_labels(
                g, pos, nx.get_edge_attributes(g, "label"), ax=ax, font_size=7
            )
        else:
            ax.text(0.5, 0.5, "no chains were found for this question", ha="center")
        ax.set_axis_off()
        fig.tight_layout()
        fig.savefig(path)
        plt.close(fig)
    else:
        path.write_text(mermaid(chains), encoding="utf-8")


def dumps(state: dict[str, Any]) -> str:
    """JSON text of the output state."""
    return json.dumps(to_jsonable(state), indent=2, ensure_ascii=False)
