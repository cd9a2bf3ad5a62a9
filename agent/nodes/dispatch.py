"""`dispatch` and its router: send every ready hop in parallel; compose only when none is pending."""

from __future__ import annotations

from typing import Any, Literal

from langgraph.types import Send

from resin.agent.state import State


def dispatch(state: State) -> dict[str, Any]:
    """A join point: parallel hops finish here before the router looks at the plan again."""
    return {}


def route_hops(state: State) -> list[Send] | Literal["compose"]:
    """One `resolve_hop` per pending hop whose dependencies are all resolved; else `compose`."""
    results = state.get("results") or {}
    pending = [h for h in state.get("plan") or [] if h.id not in results]
    if not pending:
        return "compose"
    ready = [h for h in pending if all(d in results for d in h.depends_on)]
    if (
        not ready
    ):  # a validated plan is acyclic, so this means a bug, never a reason to compose early
        raise RuntimeError(
            f"hops {[h.id for h in pending]} wait on dependencies that never resolve"
        )
    evidence_ids = [e.id for e in state.get("evidence") or []]
    needed = {d for h in state.get("plan") or [] for d in h.depends_on}
    return [
        Send(
            "resolve_hop",
            {
                "hop": hop,
                "question": state.get("question", ""),
                "plan_source": state.get("plan_source", "structural"),
                "results": results,
                "evidence_ids": evidence_ids,
                "has_dependents": hop.id in needed,
                "answer_id": state.get("answer_id", ""),
            },
        )
        for hop in ready
    ]
