"""The systems that are not the agent's graph: closed book, BM25 and dense RAG, SARG, ablations.

Each retrieves with the same tools the agent uses (or none), then hands its passages to the
shared answer step (`resin.evals.systems.answer`), so only the retrieval differs.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from resin.agent.nodes.compose import CHARS_PER_TOKEN
from resin.evals.data import Question
from resin.evals.prompts import CLOSED_BOOK_SYSTEM, GRAPH_DUMP_SYSTEM
from resin.evals.systems.answer import (
    Env,
    Outcome,
    compose_answer,
    compose_free,
    passage_trace,
    timed_stage,
)
from resin.indexes.base import Direction
from resin.indexes.units import ReasoningUnit
from resin.prompts.structured import fence
from resin.tools.retrieval import (
    Chain,
    fetch_passages,
    search_passages,
    search_units,
    traverse_chains,
    units_by_id,
)

# Passages ranked per query for recall@k, whatever k the reader gets.
RANK_DEPTH = 10


# --- baselines ----------------------------------------------------------------------------------
def run_none(env: Env, q: Question) -> Outcome:
    """Closed book: the question alone."""
    out = Outcome(answer="")
    out.trace = {"plan": [], "hops": [], "evidence": [], "chains": []}
    compose_free(env, q.asked, "", CLOSED_BOOK_SYSTEM, out)
    return out


def rag(mode: str) -> Callable[[Env, Question], Outcome]:
    """RAG with one search `mode` of the passages: top-k, then the compose prompt."""

    def run(env: Env, q: Question) -> Outcome:
        out = Outcome(answer="")
        with timed_stage(out.stages, "retrieve"):
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
            "evidence": passage_trace(passages[: env.k], scores),
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
    with timed_stage(out.stages, "retrieve"):
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
        index = env.index
        links = sorted(index.links(), key=lambda e: (-e.weight, e.head, e.tail))
        lines, used = [], 0
        for link in links:
            rel = " / ".join(link.relations[:2]) or "related to"
            line = f"{index.entity(link.head).name} -[{rel}]-> {index.entity(link.tail).name}"
            cost = len(line) // CHARS_PER_TOKEN + 1
            if used + cost > env.context.evidence_budget:
                break
            lines.append(line)
            used += cost
        env.cache["graph_dump"] = ("\n".join(lines), len(lines), index.link_count())
    return str(env.cache["graph_dump"][0])


def run_graph_dump(env: Env, q: Question) -> Outcome:
    """The SARG ablation: the whole graph (as many edges as fit) instead of retrieved chains."""
    out = Outcome(answer="")
    with timed_stage(out.stages, "retrieve"):
        dump = graph_dump(env)
    _, shown, total = env.cache["graph_dump"]
    out.trace = {
        "plan": [],
        "hops": [],
        "evidence": [],
        "chains": [{"text": f"(graph dump: {shown} of {total} edges)", "score": None}],
    }
    compose_free(env, q.asked, f"<chains>\n{fence(dump)}\n</chains>", GRAPH_DUMP_SYSTEM, out)
    return out


# --- one-tool ablations of the agent (no graph run) ----------------------------------------------
def run_units_only(env: Env, q: Question) -> Outcome:
    """One hop, typed-unit search only: the passages behind the top-k units, composed."""
    out = Outcome(answer="")
    with timed_stage(out.stages, "retrieve"):
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
    with timed_stage(out.stages, "retrieve"):
        chains, units = _chains_and_units(env, q, "forward", per_link=1)
        passages = fetch_passages(env.index, list(dict.fromkeys(u.passage_id for u in units)))
    out.ranked = [p.id for p in passages]
    out.trace = _chain_trace(q, chains, units)
    compose_answer(env, q.asked, passages, out, chains="\n".join(c.text for c in chains))
    return out
