"""`plan`: split the question into one-hop needs, or fall back to a structural plan."""

from __future__ import annotations

import re
from typing import Any

import networkx as nx
from langchain_core.messages import HumanMessage, SystemMessage
from langgraph.config import get_stream_writer
from langgraph.runtime import Runtime
from langgraph.types import Overwrite

from agent.context import Context
from agent.models import make_chat_model
from agent.nodes.common import parse_reply, question_of, structured, usage_row
from agent.resources import context_of
from agent.state import MAX_HOPS, Hop, Plan, State
from indexes.extraction import fence
from indexes.lexical import tokenize
from indexes.units import normalize
from prompts import PLAN_SYSTEM, PLAN_USER

_PLACEHOLDER = re.compile(r"#(\d+)")
# A one-hop question is a sentence, not a label such as "most_famous_statute".
MIN_HOP_WORDS = 3


class PlanError(ValueError):
    """A plan that cannot be executed as written."""


def validate_plan(plan: Plan) -> list[Hop]:
    """Check ids, dependencies, placeholders and size; raise `PlanError` naming the problem."""
    hops = plan.hops
    if not hops:
        raise PlanError("the plan has no hops")
    if len(hops) > MAX_HOPS:
        raise PlanError(f"the plan has {len(hops)} hops, more than {MAX_HOPS}")
    ids = [h.id for h in hops]
    if len(set(ids)) != len(ids):
        raise PlanError("hop ids repeat")
    graph = nx.DiGraph()
    graph.add_nodes_from(ids)
    for hop in hops:
        for dep in hop.depends_on:
            if dep not in ids or dep == hop.id:
                raise PlanError(f"hop {hop.id} depends on unknown hop {dep}")
            graph.add_edge(dep, hop.id)
        for ref in map(int, _PLACEHOLDER.findall(hop.question)):
            if ref not in hop.depends_on:
                raise PlanError(f"hop {hop.id} uses #{ref} without depending on hop {ref}")
    if not nx.is_directed_acyclic_graph(graph):
        raise PlanError("hop dependencies form a cycle")
    for hop in hops:
        if sum(any(c.isalpha() for c in w) for w in hop.question.split()) < MIN_HOP_WORDS:
            raise PlanError(f"hop {hop.id}'s question {hop.question!r} is not a question")
    questions = [normalize(h.question) for h in hops]
    if len(set(questions)) != len(questions):
        raise PlanError("two hops ask the same question")
    return hops


# Longer questions are refused rather than cut: a cut question is a different question.
MAX_QUESTION_CHARS = 2000
_LOCAL_MODELS = ("embedded", "smollm2")
# Words of a message that asks nothing ("hi", "ok thanks"): answered with a hint, not a search.
_SMALL_TALK = frozenset(
    "hi hello hey thanks thank you ok okay bye goodbye yes no sure cool great please".split()
)


def planner(ctx: Context) -> tuple[str | None, str]:
    """The model spec to plan with (None: plan structurally), and why.

    `auto` plans structurally when the answering model is a small local GGUF: the embedded 135M
    model writes a usable plan for few questions (README, "Plans"), after seconds of work.
    """
    if ctx.plan_model != "auto":
        return ctx.plan_model, f"plan_model {ctx.plan_model}"
    spec = ctx.compose_model.strip()
    if spec in _LOCAL_MODELS or spec.startswith("gguf:") or spec.endswith(".gguf"):
        return None, f"plan_model auto: {spec} is a small local model; structural plan"
    return spec, f"plan_model auto: planning with {spec}"


def input_problem(question: str, skipped: list[str]) -> str:
    """Why a message cannot be answered (said to the user in the chat), or ''."""
    if not question and skipped:
        return (
            f"Your message has no text, only {', '.join(dict.fromkeys(skipped))}: I answer "
            "questions written as text about your documents."
        )
    if not set(tokenize(question)) - _SMALL_TALK:
        return "Ask me a question about your documents, for example who, what, where or when."
    if len(question) > MAX_QUESTION_CHARS:
        return (
            f"Your question is {len(question):,} characters long; I take up to "
            f"{MAX_QUESTION_CHARS:,}. Please ask it in fewer words."
        )
    return ""


def plan(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
    """Ask the plan model for hops; an invalid, empty or unparseable plan becomes structural."""
    ctx = context_of(runtime.context)
    _, skipped = question_of(state)
    question = state.get("question", "")  # standalone: `rewrite` resolved a follow-up's pronouns
    asked = state.get("asked", "")
    notes = [f"skipped a non-text part of the message ({kind})" for kind in skipped]
    if asked:
        notes.append(f"read the follow-up {asked!r} as {question!r}")
    writer = get_stream_writer()
    fresh = {  # each run starts a fresh buffer: a thread's earlier turns must not leak into it
        "question": question,
        "results": Overwrite({}),
        "evidence": Overwrite([]),
        "chains": Overwrite([]),
        "notes": Overwrite(notes),
    }
    problem = input_problem(question, skipped)
    if problem:
        writer({"event": "plan", "source": "none", "hops": [], "reason": problem})
        return {**fresh, "plan": Overwrite([]), "input_problem": problem}
    usage = []
    hops: list[Hop] | None = None
    spec, reason = planner(ctx)
    if spec is not None:
        try:
            reply = structured(make_chat_model(spec), Plan, max_tokens=300).invoke(
                [
                    SystemMessage(PLAN_SYSTEM),
                    HumanMessage(PLAN_USER.format(question=fence(question))),
                ]
            )
        except Exception as exc:  # noqa: BLE001 - a failing plan model: plan structurally, and say so
            reason = str(exc)[:200]
            # The user chose this planner: its failure is said, not only kept in the trace.
            warning = f"plan model {spec} failed ({reason}); planned structurally"
            writer({"event": "warning", "message": warning})
            notes.append(warning)
        else:
            usage.append(usage_row("plan", reply))
            try:  # a plan that does not parse or validate: structural, the reason in the trace
                hops = validate_plan(parse_reply(reply, Plan))
            except ValueError as exc:
                reason = str(exc)[:200]
    source = "model" if hops else "structural"
    hops = hops or [Hop(id=1, question=question)]
    writer(
        {
            "event": "plan",
            "source": source,
            "question": question,
            "asked": asked,
            "hops": [h.model_dump() for h in hops],
            "reason": reason,
        }
    )
    return {
        **fresh,
        "plan": Overwrite(hops),
        "plan_source": source,
        "input_problem": "",
        "usage": usage,
    }
