"""The systems compared: retrieve → prompt → one model call, over the same index, embedder and model.

Every system answers a question with an `Outcome`: the answer, the passages it ranked (for
recall@k), the context it handed to the reader (for context recall), its token usage, per-stage
seconds and a trace. evals/README.md says exactly what each system and ablation does.

This package's face is the registry (`SYSTEMS`, `parse_systems`) and the types the runner needs
(`Env`, `Outcome`, `System`); the shared answer step is in `answer`, the systems that do not run
the agent's graph in `baselines`, the agent and its single-hop ablation in `graph_agent`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from resin.evals.data import Question
from resin.evals.systems.answer import Env, Outcome
from resin.evals.systems.baselines import (
    rag,
    run_chains_only,
    run_graph_dump,
    run_none,
    run_sarg,
    run_units_only,
)
from resin.evals.systems.graph_agent import run_agent, run_agent_gold_plan, run_agent_single_hop

__all__ = ["SYSTEMS", "Env", "Outcome", "System", "parse_systems"]


@dataclass(frozen=True)
class System:
    """A named way to answer: `run(env, question)`; what it retrieves and whether it reads units."""

    name: str
    description: str
    run: Callable[[Env, Question], Outcome]
    retrieves: bool = True
    uses_units: bool = False


SYSTEMS: dict[str, System] = {
    s.name: s
    for s in (
        System("none", "no retrieval: the question alone (closed book)", run_none, False),
        System("bm25", "BM25 over passages, top-k, compose prompt", rag("lexical")),
        System("dense", "MiniLM dense search over passages, top-k, compose prompt", rag("dense")),
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
            "agent_gold_plan",
            "the agent's executor on the gold decomposition (2Wiki, MuSiQue): a strong planner",
            run_agent_gold_plan,
            uses_units=True,
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
