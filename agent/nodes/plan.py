"""`plan`: split the question into one-hop needs, or fall back to a structural plan."""

from __future__ import annotations

import re
import time
from collections.abc import Sequence
from typing import Any
from uuid import uuid4

import networkx as nx
from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from langgraph.config import get_stream_writer
from langgraph.runtime import Runtime
from langgraph.types import Overwrite

from resin.agent import chat_trace
from resin.agent.context import Context
from resin.agent.language.forms import MAX_QUESTION_CHARS
from resin.agent.llm import ModelSpec, make_chat_model
from resin.agent.nodes.common import structured, usage_row
from resin.agent.planning import decompose
from resin.agent.resources import context_of
from resin.agent.state import Hop, Plan, PlanSource, State
from resin.indexes.lexical import tokenize
from resin.indexes.units import normalize
from resin.prompts import MAX_HOPS, PLAN_SYSTEM, PLAN_USER
from resin.prompts.structured import fence, parse_reply

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


# Words of a message that asks nothing ("hi", "ok thanks"): answered with a hint, not a search.
_SMALL_TALK = frozenset(
    "hi hello hey thanks thank you ok okay bye goodbye yes no sure cool great please".split()
)


# The embedded model's valid-plan rate, measured by evals/bench_plan.py (50 questions per set, seed
# 0): the evidence behind `auto` planning structurally for it (docs/answering.md).
EMBEDDED_VALID_PLANS = {"HotpotQA": 14, "QASC": 10}


def planner(ctx: Context) -> tuple[str | None, str]:
    """The model spec to plan with (None: plan structurally), and why, as the trace says it.

    `auto` asks no model when the plan model would be a local GGUF: the embedded 135M model
    writes a valid plan for few questions (`EMBEDDED_VALID_PLANS`), after seconds of work, and no
    other GGUF has been measured as a planner. Without a model plan, `auto` and `parsed` read the
    question's parse (`resin.agent.planning`), and plan structurally where it gives no hops. `none`
    never plans (a small model on a server); a named `plan_model` always does.
    """
    if ctx.plan_model in ("none", "parsed"):
        return None, f"structural: plan_model is {ctx.plan_model}"
    if ctx.plan_model != "auto":
        return ctx.plan_model, f"model: plan_model is {ctx.plan_model}"
    spec = ModelSpec.parse(ctx.compose_model)
    if spec.kind == "embedded":
        rates = " and ".join(f"{v}% of {k}" for k, v in EMBEDDED_VALID_PLANS.items())
        return None, (
            f"structural: the plan model would be the embedded 135M model, whose plans were valid "
            f"for {rates} questions (evals/bench_plan.py)"
        )
    if not spec.can_plan:
        return None, f"structural: {spec.text} is a local GGUF not measured as a planner"
    return spec.text, f"model: plan_model auto plans with {spec.text}"


def ask_planner(spec: str, question: str) -> BaseMessage:
    """The plan model's reply for `question` (the call `plan` and evals/bench_plan.py make)."""
    return structured(make_chat_model(spec), Plan, max_tokens=300).invoke(
        [SystemMessage(PLAN_SYSTEM), HumanMessage(PLAN_USER.format(question=fence(question)))]
    )


# Function words of English, and of languages a question is often asked in instead: a question
# with none of the first and some of the second is not English (the parse is English's).
_ENGLISH = frozenset(
    "the a an of in on at to for is are was were be been who whom whose what where when which why "
    "how did does do has have had and or not this that with from by it its".split()
)
_OTHER_LANGUAGES = frozenset(
    "der das und ist wer wo wann wie nicht eine einer von zu mit hat wurde den dem des "
    "le la les et est qui où quand comment une du au aux sont "
    "el los las es quién dónde cuándo cómo qué y fue son del "
    "il che di è chi dove quando come gli della "
    "de het een wie waar wanneer hoe niet van".split()
)
ENGLISH_ONLY = (
    "I understand questions in English only: the language pipeline configured for this index "
    "is English. Please ask in English."
)


def is_english(question: str) -> bool:
    """False for a question written in another language (no English function word, some other's)."""
    words = question.lower().replace("?", " ").split()
    if words and not any(c.isascii() and c.isalpha() for c in question):
        return False  # no Latin letters at all
    return any(w in _ENGLISH for w in words) or not any(w in _OTHER_LANGUAGES for w in words)


def input_problem(question: str, skipped: list[str], unresolved: Sequence[str] = ()) -> str:
    """Why a message cannot be answered (said to the user in the chat), or ''."""
    if not question and skipped:
        return (
            f"Your message has no text, only {', '.join(dict.fromkeys(skipped))}: I answer "
            "questions written as text about your documents."
        )
    if not set(tokenize(question)) - _SMALL_TALK:
        return "Ask me a question about your documents, for example who, what, where or when."
    if not is_english(question):
        return ENGLISH_ONLY
    if len(question) > MAX_QUESTION_CHARS:
        return (
            f"Your question is {len(question):,} characters long; I take up to "
            f"{MAX_QUESTION_CHARS:,}. Please ask it in fewer words."
        )
    if unresolved:
        words = " or ".join(f"“{w}”" for w in unresolved)
        return (
            f"I could not tell who or what {words} stands for: nothing earlier in our "
            "conversation names it. Please ask again with the name."
        )
    return ""


def plan(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
    """Ask the plan model for hops; an invalid, empty or unparseable plan becomes structural."""
    ctx = context_of(runtime.context)
    read = state["read"]  # standalone: `rewrite` resolved a follow-up's pronouns
    question, skipped = read.text, read.skipped
    asked = state.get("asked", "")
    notes = [f"skipped a non-text part of the message ({kind})" for kind in skipped]
    if asked and asked != question:
        notes.append(f"read the follow-up {asked!r} as {question!r}")
    writer = get_stream_writer()
    answer_id = str(uuid4())
    fresh = {  # each run starts a fresh buffer: a thread's earlier turns must not leak into it
        "question": question,
        "results": Overwrite({}),
        "evidence": Overwrite([]),
        "chains": Overwrite([]),
        "notes": Overwrite(notes),
        "answer_id": answer_id,
        "messages": [chat_trace.placeholder(answer_id)],
    }
    problem = input_problem(question, skipped, read.unresolved)
    if problem:
        writer({"event": "plan", "source": "none", "hops": [], "reason": problem, "seconds": 0.0})
        return {
            **fresh,
            "plan": Overwrite([]),
            "plan_reason": problem,
            "input_problem": problem,
            "usage": Overwrite([]),
        }
    started = time.perf_counter()
    usage = []
    hops: list[Hop] | None = None
    spec, reason = planner(ctx)
    if spec is not None:
        try:
            reply = ask_planner(spec, question)
        except Exception as exc:  # noqa: BLE001 - a failing plan model: plan structurally, and say so
            failure = str(exc)[:200]
            # The user chose this planner: its failure is said, not only kept in the trace.
            warning = f"plan model {spec} failed ({failure}); planned structurally"
            writer({"event": "warning", "message": warning})
            notes.append(warning)
            reason = f"structural: the plan from {spec} failed ({failure})"
        else:
            usage.append(usage_row("plan", reply))
            try:  # a plan that does not parse or validate: structural, the reason in the trace
                hops = validate_plan(parse_reply(reply, Plan))
            except ValueError as exc:
                reason = f"structural: the plan from {spec} was not valid ({str(exc)[:200]})"
    source: PlanSource = "model" if hops else "structural"
    if not hops and ctx.plan_model in ("parsed", "auto"):  # no model plan: read the parse
        parsed = decompose(question)
        if parsed:
            hops, source = parsed, "parsed"
            lookups = sum(not h.compute for h in parsed)
            computed = " and a computed step" if lookups < len(parsed) else ""
            why = reason.removeprefix("structural: ")
            reason = f"parsed: the question's parse gives {lookups} hop(s){computed} ({why})"
    hops = hops or [Hop(id=1, question=question)]
    writer(
        {
            "event": "plan",
            "source": source,
            "question": question,
            "asked": asked,
            "planner": spec or "",
            "hops": [h.model_dump() for h in hops],
            "reason": reason,
            "seconds": round(time.perf_counter() - started, 3),
        }
    )
    chat_trace.planned(
        answer_id,
        question=question,
        asked=asked,
        hops=hops,
        source=source,
        reason=reason,
        notes=notes,
    )
    return {
        **fresh,
        "plan": Overwrite(hops),
        "plan_source": source,
        "plan_reason": reason,
        "input_problem": "",
        "usage": usage,
    }
