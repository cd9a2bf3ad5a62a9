"""The systems compared: retrieve → prompt → one model call, over the same index, embedder and model.

Every system answers a question with an `Outcome`: the answer, the passages it ranked (for
recall@k), the context it handed to the reader (for context recall), its token usage, per-stage
seconds and a trace. evals/README.md says exactly what each system and ablation does.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from langchain_core.language_models import BaseChatModel

from agent.answering import NOT_FOUND_CHOICE, answer_from_passages, free_answer, resolve_mode
from agent.context import Context
from agent.llm import register_chat_model
from agent.llm.scripted import ScriptedChatModel
from agent.nodes.compose import CHARS_PER_TOKEN, select_passages
from agent.state import Evidence
from agent.trace import StageClock
from evals.data import Question
from evals.prompts import CLOSED_BOOK_SYSTEM, GRAPH_DUMP_SYSTEM
from indexes.documents import Passage
from indexes.index import Index
from indexes.units import ReasoningUnit, normalize
from prompts.structured import fence, token_usage
from tools.retrieval import (
    Chain,
    Direction,
    fetch_passages,
    search_passages,
    search_units,
    traverse_chains,
    units_by_id,
)

# Passages ranked per query for recall@k, whatever k the reader gets.
RANK_DEPTH = 10
# A plan model that always proposes nothing: the agent then plans structurally (one hop).
NO_PLAN_MODEL = "evals-no-plan"


@dataclass
class Env:
    """What every system shares in one run: the index, the agent's context and the reader model."""

    index: Index
    context: Context
    model: BaseChatModel
    k: int
    cache: dict[str, Any] = field(default_factory=dict)


@dataclass
class Outcome:
    """One system's answer to one question, and everything measured about it."""

    answer: str
    ranked: list[str] = field(default_factory=list)
    context_passages: list[str] = field(default_factory=list)
    context_sentences: list[str] = field(default_factory=list)
    prompt_tokens: int = 0
    completion_tokens: int = 0
    stages: dict[str, float] = field(default_factory=dict)
    trace: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class System:
    """A named way to answer: `run(env, question)`; what it retrieves and whether it reads units."""

    name: str
    description: str
    run: Callable[[Env, Question], Outcome]
    retrieves: bool = True
    uses_units: bool = False


@contextmanager
def _stage(stages: dict[str, float], name: str) -> Iterator[None]:
    start = time.perf_counter()
    try:
        yield
    finally:
        stages[name] = stages.get(name, 0.0) + time.perf_counter() - start


def _passage_trace(passages: list[Passage], scores: dict[str, float] | None = None) -> list[dict]:
    return [
        {"passage_id": p.id, "title": p.title, "score": (scores or {}).get(p.id)} for p in passages
    ]


def _forget_calls(env: Env) -> None:
    if isinstance(env.model, ScriptedChatModel):
        env.model.calls.clear()  # a long run must not keep every prompt in memory


def compose_answer(
    env: Env,
    question: str,
    passages: list[Passage],
    out: Outcome,
    names: list[str] | None = None,
    chains: str = "",
) -> None:
    """The agent's own answer step over these passages (in this order, within its token budget)."""
    chosen = select_passages([], passages, env.context.evidence_budget)
    mode = resolve_mode(env.context.answer_mode, env.context.compose_model)
    with _stage(out.stages, "answer"):
        answer = answer_from_passages(env.model, mode, question, chosen, names or [], chains)
    _forget_calls(env)
    out.answer = answer.text if answer.found else ""
    out.prompt_tokens, out.completion_tokens = answer.prompt_tokens, answer.completion_tokens
    out.context_passages = [p.id for p in chosen]
    out.trace.update(
        citations=answer.citations,
        candidates=answer.candidates,
        notes=answer.notes,
        message=answer.message(),
    )


def _free(env: Env, question: str, context: str, system: str, out: Outcome) -> None:
    """A short answer the model writes without passages (closed book, graph dump)."""
    with _stage(out.stages, "answer"):
        text, looped, reply = free_answer(env.model, question, context, system)
    _forget_calls(env)
    out.answer = "" if normalize(text) == NOT_FOUND_CHOICE else text
    out.prompt_tokens, out.completion_tokens = token_usage(reply)
    out.trace["notes"] = ["the model's answer repeated itself and was cut"] if looped else []
    out.trace["message"] = out.answer  # no passages, so nothing supports it: the answer alone


# --- baselines ----------------------------------------------------------------------------------
def run_none(env: Env, q: Question) -> Outcome:
    """Closed book: the question alone."""
    out = Outcome(answer="")
    out.trace = {"plan": [], "hops": [], "evidence": [], "chains": []}
    _free(env, q.asked, "", CLOSED_BOOK_SYSTEM, out)
    return out


def _rag(mode: str) -> Callable[[Env, Question], Outcome]:
    def run(env: Env, q: Question) -> Outcome:
        out = Outcome(answer="")
        with _stage(out.stages, "retrieve"):
            hits = search_passages(
                env.index,
                q.asked,
                max(env.k, RANK_DEPTH),
                mode=mode,  # type: ignore[arg-type]
            )
            passages = fetch_passages(env.index, [h.passage_id for h in hits])
        out.ranked = [p.id for p in passages]
        scores = {h.passage_id: h.score for h in hits}
        out.trace = {
            "plan": [],
            "hops": [{"hop": 1, "query": q.asked, "route": mode, "passages": len(hits)}],
            "evidence": _passage_trace(passages[: env.k], scores),
            "chains": [],
        }
        compose_answer(env, q.asked, passages[: env.k], out)
        return out

    return run


# --- SARG and its full-graph ablation -----------------------------------------------------------
def _chain_units(env: Env, chains: list[Chain], per_link: int) -> list[ReasoningUnit]:
    """The units behind the chains' links, in chain order (up to `per_link` per link)."""
    wanted = [u for c in chains for link in c.links for u in link.unit_ids[:per_link]]
    wanted = list(dict.fromkeys(wanted))
    found = {u.id: u for u in units_by_id(env.index, wanted)}
    return [found[u] for u in wanted if u in found]


def _chains_and_units(
    env: Env, q: Question, direction: Direction, per_link: int
) -> tuple[list[Chain], list[ReasoningUnit]]:
    """The question's top chains under the run's settings, and the units behind their links."""
    ctx = env.context
    chains = traverse_chains(
        env.index, q.asked, direction, ctx.chain_depth, ctx.tau, ctx.top_chains
    )
    return chains, _chain_units(env, chains, per_link=per_link)


def _chain_trace(q: Question, chains: list[Chain], units: list[ReasoningUnit]) -> dict[str, Any]:
    """The per-question trace of a chain-only system: one hop, its chains and their units."""
    return {
        "plan": [],
        "hops": [{"hop": 1, "query": q.asked, "route": "chain", "chains": len(chains)}],
        "evidence": [
            {"unit_id": u.id, "passage_id": u.passage_id, "quote": u.evidence} for u in units
        ],
        "chains": [{"text": c.text, "score": c.score} for c in chains],
    }


def run_sarg(env: Env, q: Question) -> Outcome:
    """SARG: bidirectional chains from the question's matched nodes, then the passages behind them.

    The answer step also takes the chains' entity names as candidates.
    """
    out = Outcome(answer="")
    with _stage(out.stages, "retrieve"):
        chains, units = _chains_and_units(env, q, "bidirectional", per_link=2)
        passages = fetch_passages(env.index, list(dict.fromkeys(u.passage_id for u in units)))
    for unit in units:
        out.context_sentences.extend(unit.sentence_ids)
    out.ranked = [p.id for p in passages]
    out.trace = _chain_trace(q, chains, units)
    names = [n for c in chains for link in c.links for n in (link.head, link.tail)]
    compose_answer(env, q.asked, passages, out, names, "\n".join(c.text for c in chains))
    return out


def graph_dump(env: Env) -> str:
    """Every graph edge, most-supported first, as `A -[rel]-> B` lines within the token budget."""
    if "graph_dump" not in env.cache:
        g = env.index.graph
        edges = sorted(g.edges(), key=lambda e: (-int(e[2].get("weight", 0)), str(e[0]), str(e[1])))
        lines, used = [], 0
        for head, tail, attrs in edges:
            rel = " / ".join(attrs.get("relations", [])[:2]) or "related to"
            line = f"{g.names(head)[0]} -[{rel}]-> {g.names(tail)[0]}"
            cost = len(line) // CHARS_PER_TOKEN + 1
            if used + cost > env.context.evidence_budget:
                break
            lines.append(line)
            used += cost
        env.cache["graph_dump"] = ("\n".join(lines), len(lines), g.edge_count())
    return str(env.cache["graph_dump"][0])


def run_graph_dump(env: Env, q: Question) -> Outcome:
    """The SARG ablation: the whole graph (as many edges as fit) instead of retrieved chains."""
    out = Outcome(answer="")
    with _stage(out.stages, "retrieve"):
        dump = graph_dump(env)
    _, shown, total = env.cache["graph_dump"]
    out.trace = {
        "plan": [],
        "hops": [],
        "evidence": [],
        "chains": [{"text": f"(graph dump: {shown} of {total} edges)", "score": None}],
    }
    _free(env, q.asked, f"<chains>\n{fence(dump)}\n</chains>", GRAPH_DUMP_SYSTEM, out)
    return out


# --- the agent and its ablations ----------------------------------------------------------------


def _hop_order(evidence: list[Evidence]) -> list[str]:
    """Buffer passages in hop order, each hop's evidence in buffer order (as compose ranks them)."""
    order: dict[str, tuple[int, int]] = {}
    for rank, item in enumerate(evidence):
        order.setdefault(item.passage_id, (item.hop, rank))
    return sorted(order, key=lambda pid: order[pid])


def _dump(value: Any) -> Any:
    return value.model_dump() if hasattr(value, "model_dump") else value


def run_agent_with(context: Context, skip_steps: tuple[str, ...] = ()) -> Callable[..., Outcome]:
    """Run the LangGraph agent with `context`; usage rows of `skip_steps` are not counted."""

    def run(env: Env, q: Question) -> Outcome:
        from agent.graph import graph

        out = Outcome(answer="")
        final: dict[str, Any] = {}
        candidates: list[str] = []
        clock = StageClock()
        for mode, payload in graph.stream(
            {"question": q.asked}, context=context, stream_mode=["updates", "values", "custom"]
        ):
            clock.part(mode, payload)
            if mode == "values" and isinstance(payload, dict):
                final = payload
            elif (
                mode == "custom" and isinstance(payload, dict) and payload.get("event") == "answer"
            ):
                candidates = list(payload.get("candidates") or [])
        out.stages = clock.stages
        evidence: list[Evidence] = list(final.get("evidence") or [])
        out.answer = (
            " ".join(str(final.get("answer") or "").split()) if final.get("sources") else ""
        )
        out.ranked = _hop_order(evidence)
        held = fetch_passages(env.index, out.ranked)
        out.context_passages = [
            p.id for p in select_passages(evidence, held, context.evidence_budget)
        ]
        for row in final.get("usage") or []:
            if str(row.get("step")) in skip_steps:
                continue
            out.prompt_tokens += int(row.get("prompt_tokens", 0))
            out.completion_tokens += int(row.get("completion_tokens", 0))
        results = final.get("results") or {}
        out.trace = {
            "plan_source": final.get("plan_source"),
            "plan_reason": final.get("plan_reason"),
            "plan": [_dump(h) for h in final.get("plan") or []],
            "hops": [_dump(results[k]) for k in sorted(results)],
            "evidence": [_dump(e) for e in evidence],
            "chains": [{"text": c.text, "score": c.score} for c in final.get("chains") or []],
            "citations": list(final.get("citations") or []),
            "candidates": candidates,
            "notes": list(final.get("notes") or []),
            "message": _last_message(final),
            "usage": list(final.get("usage") or []),
        }
        return out

    return run


def _last_message(state: dict[str, Any]) -> str:
    messages = state.get("messages") or []
    return str(messages[-1].content) if messages else ""


def run_agent(env: Env, q: Question) -> Outcome:
    """The resin agent as shipped (planner, hops, bridge hops, compose)."""
    return run_agent_with(env.context)(env, q)


def run_agent_single_hop(env: Env, q: Question) -> Outcome:
    """No hop decomposition: the plan is the question itself as one hop, and no bridge hops."""
    register_chat_model(NO_PLAN_MODEL, ScriptedChatModel(responder=lambda m, k: '{"hops": []}'))
    context = dataclasses.replace(env.context, plan_model=NO_PLAN_MODEL, bridge_hops=0)
    return run_agent_with(context, skip_steps=("plan",))(env, q)


def run_units_only(env: Env, q: Question) -> Outcome:
    """One hop, typed-unit search only: the passages behind the top-k units, composed."""
    out = Outcome(answer="")
    with _stage(out.stages, "retrieve"):
        hits = search_units(env.index, q.asked, None, env.k)
        pids = list(dict.fromkeys(h.unit.passage_id for h in hits))
        passages = fetch_passages(env.index, pids)
    out.ranked = [p.id for p in passages]
    out.trace = {
        "plan": [],
        "hops": [{"hop": 1, "query": q.asked, "route": "units", "units": len(hits)}],
        "evidence": [
            {
                "unit_id": h.unit.id,
                "passage_id": h.unit.passage_id,
                "quote": h.unit.evidence,
                "score": round(h.score, 4),
            }
            for h in hits
        ],
        "chains": [],
    }
    compose_answer(env, q.asked, passages, out)
    return out


def run_chains_only(env: Env, q: Question) -> Outcome:
    """One hop, chain traversal only (the agent's forward hop settings); passages behind the links."""
    out = Outcome(answer="")
    with _stage(out.stages, "retrieve"):
        chains, units = _chains_and_units(env, q, "forward", per_link=1)
        passages = fetch_passages(env.index, list(dict.fromkeys(u.passage_id for u in units)))
    out.ranked = [p.id for p in passages]
    out.trace = _chain_trace(q, chains, units)
    compose_answer(env, q.asked, passages, out, chains="\n".join(c.text for c in chains))
    return out


SYSTEMS: dict[str, System] = {
    s.name: s
    for s in (
        System("none", "no retrieval: the question alone (closed book)", run_none, False),
        System("bm25", "BM25 over passages, top-k, compose prompt", _rag("lexical")),
        System("dense", "MiniLM dense search over passages, top-k, compose prompt", _rag("dense")),
        System(
            "sarg",
            "SARG: top chains (bidirectional) + their source sentences, SARG prompt",
            run_sarg,
            uses_units=True,
        ),
        System(
            "graph_dump",
            "SARG ablation: the whole graph (edges that fit the budget), SARG prompt",
            run_graph_dump,
            retrieves=False,
            uses_units=True,
        ),
        System(
            "agent", "resin agent: plan, hops, bridge hops, compose", run_agent, uses_units=True
        ),
        System(
            "agent_single_hop",
            "ablation: no hop decomposition (one hop, no bridge hops)",
            run_agent_single_hop,
            uses_units=True,
        ),
        System(
            "agent_units_only",
            "ablation: one hop, typed units only, compose prompt",
            run_units_only,
            uses_units=True,
        ),
        System(
            "agent_chains_only",
            "ablation: one hop, graph chains only, compose prompt",
            run_chains_only,
            uses_units=True,
        ),
    )
}


def parse_systems(spec: str) -> list[str]:
    """'all' or a comma-separated list of system names, validated, in the canonical order."""
    if spec.strip() == "all":
        return list(SYSTEMS)
    names = [s.strip() for s in spec.split(",") if s.strip()]
    unknown = [n for n in names if n not in SYSTEMS]
    if unknown or not names:
        raise ValueError(
            f"unknown system(s) {', '.join(unknown) or '(none given)'}; choose from "
            f"{', '.join(SYSTEMS)} or 'all'"
        )
    return [n for n in SYSTEMS if n in names]
