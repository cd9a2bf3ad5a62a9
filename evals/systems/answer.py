"""What every system shares: the run's `Env`, the `Outcome` it returns, and the answer step.

Retrieval differs from system to system; the reader does not: `compose_answer` is the agent's
own answer step over passages, `compose_free` a short answer without them (closed book, graph
dump). Keeping them here lets baselines and the agent be compared on retrieval alone.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from langchain_core.language_models import BaseChatModel

from resin.agent.answering.answer import (
    NOT_FOUND_CHOICE,
    answer_from_passages,
    free_answer,
    resolve_mode,
)
from resin.agent.answering.candidates import AnswerEvidence
from resin.agent.context import Context
from resin.agent.language.questions import Question
from resin.agent.nodes.compose import select_passages
from resin.indexes.documents import Passage
from resin.indexes.index import Index
from resin.indexes.units import normalize
from resin.prompts.structured import token_usage


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


@contextmanager
def timed_stage(stages: dict[str, float], name: str) -> Iterator[None]:
    """Add the seconds spent in the block to `stages[name]`."""
    start = time.perf_counter()
    try:
        yield
    finally:
        stages[name] = stages.get(name, 0.0) + time.perf_counter() - start


def passage_trace(passages: list[Passage], scores: dict[str, float] | None = None) -> list[dict]:
    """The passages as trace rows: id, title and score (None where not scored)."""
    return [
        {"passage_id": p.id, "title": p.title, "score": (scores or {}).get(p.id)} for p in passages
    ]


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
    with timed_stage(out.stages, "answer"):
        answer = answer_from_passages(
            env.model,
            mode,
            Question.read(question),
            evidence=AnswerEvidence(chosen, names=names or [], chains=chains),
        )
    out.answer = answer.text if answer.found else ""
    out.prompt_tokens, out.completion_tokens = answer.prompt_tokens, answer.completion_tokens
    out.context_passages = [p.id for p in chosen]
    out.trace.update(
        citations=answer.citations,
        candidates=answer.candidates,
        notes=answer.notes,
        message=answer.message(),
    )


def compose_free(env: Env, question: str, context: str, system: str, out: Outcome) -> None:
    """A short answer the model writes without passages (closed book, graph dump)."""
    with timed_stage(out.stages, "answer"):
        text, looped, reply = free_answer(env.model, question, context, system)
    out.answer = "" if normalize(text) == NOT_FOUND_CHOICE else text
    out.prompt_tokens, out.completion_tokens = token_usage(reply)
    out.trace["notes"] = ["the model's answer repeated itself and was cut"] if looped else []
    out.trace["message"] = out.answer  # no passages, so nothing supports it: the answer alone
