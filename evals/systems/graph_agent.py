"""The resin agent as a system: its LangGraph run measured, and its single-hop ablation.

The graph is streamed so its stage clock, evidence buffer and token ledger become the
`Outcome` every other system returns.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from typing import Any

from resin.agent.context import Context
from resin.agent.llm import registered_chat_model
from resin.agent.nodes.compose import buffer_order, select_passages
from resin.agent.state import Evidence
from resin.agent.trace import StageClock
from resin.evals.data import Question
from resin.evals.gold_plans import gold_plan
from resin.evals.systems.answer import Env, Outcome
from resin.testing import chat
from resin.tools.retrieval import fetch_passages

# A plan model that proposes the question's gold decomposition.
GOLD_PLAN_MODEL = "evals-gold-plan"


def _dump(value: Any) -> Any:
    return value.model_dump() if hasattr(value, "model_dump") else value


def run_agent_with(context: Context, skip_steps: tuple[str, ...] = ()) -> Callable[..., Outcome]:
    """Run the LangGraph agent with `context`; usage rows of `skip_steps` are not counted."""

    def run(env: Env, q: Question) -> Outcome:
        from resin.agent.graph import graph

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
        order = buffer_order(evidence)  # as compose ranks them
        out.ranked = sorted(order, key=lambda pid: order[pid])
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


def run_agent_gold_plan(env: Env, q: Question) -> Outcome:
    """The agent's executor on the gold decomposition: what a strong planning model gives it.

    A question without one (or whose gold plan is no valid plan) runs as the agent does.
    """
    hops = gold_plan(q.asked, q.chain)
    if not hops:
        return run_agent(env, q)
    plan = json.dumps({"hops": [h.model_dump() for h in hops]})
    # A name per question: rows run concurrently, and each must plan with its own gold plan.
    name = f"{GOLD_PLAN_MODEL}:{q.id}"
    with registered_chat_model(name, chat.ScriptedChatModel(responder=lambda m, k: plan)):
        context = dataclasses.replace(env.context, plan_model=name)
        return run_agent_with(context, skip_steps=("plan",))(env, q)


def run_agent_single_hop(env: Env, q: Question) -> Outcome:
    """No hop decomposition: the plan is the question itself as one hop, and no bridge hops."""
    context = dataclasses.replace(env.context, plan_model="none", bridge_hops=0)
    return run_agent_with(context, skip_steps=("plan",))(env, q)
