"""`compose`: the short answer, its supporting sentences and sources, from the buffer's passages."""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from langchain_core.messages import BaseMessage
from langgraph.config import get_stream_writer
from langgraph.runtime import Runtime

from resin.agent import chat_trace
from resin.agent.answering.answer import NOT_FOUND, Answer, answer_from_passages, resolve_mode
from resin.agent.answering.candidates import AnswerEvidence
from resin.agent.answering.hop_compute import answer_from_hops
from resin.agent.context import Context
from resin.agent.language.questions import Question, names_written
from resin.agent.language.relations import relation_words
from resin.agent.llm import make_chat_model
from resin.agent.nodes.common import usage_row
from resin.agent.planning import single_hop
from resin.agent.resources import context_of, get_index
from resin.agent.state import Evidence, State
from resin.indexes.documents import Passage
from resin.indexes.index import Index
from resin.indexes.lexical import stems
from resin.indexes.units import entity_key, normalize
from resin.tools.retrieval import Chain, PassageHit, search_passages, units_by_id

# Without the compose model's tokenizer at hand, ~4 characters per token is the usual estimate.
CHARS_PER_TOKEN = 4


def buffer_order(evidence: list[Evidence]) -> dict[str, tuple[bool, bool, int, int, int]]:
    """Each buffered passage's rank key: every hop's answer first, then the rest, hop by hop.

    The passages that write the hops' answers lead, one hop's answer passage at a time: each
    hop's best answer in hop order, then their alternatives. Then what the hops found, then what
    answered hops only read (route "read"). Where some hop answered, the hops take turns in both,
    each giving its next passage in its own order: a wrong answer's reading does not push the
    next hops' passages out of the first few. Without answers (a structural plan) the passages
    keep hop order.
    """
    order: dict[str, tuple[bool, bool, int, int, int]] = {}
    answers: Counter[int] = Counter()  # answer passages seen per hop
    for rank, item in enumerate(evidence):
        if item.route == "answer" and item.passage_id not in order:
            order[item.passage_id] = (False, False, answers[item.hop], item.hop, rank)
            answers[item.hop] += 1
    turns: Counter[int] = Counter()  # the other passages seen per hop
    for rank, item in enumerate(evidence):
        if item.passage_id in order:
            continue
        turn = turns[item.hop] if answers else len(evidence)
        order[item.passage_id] = (True, item.route == "read", turn, item.hop, rank)
        turns[item.hop] += 1
    return order


def select_passages(
    evidence: list[Evidence], passages: list[Passage], budget_tokens: int
) -> list[Passage]:
    """Passages behind the buffer in hop order (each hop's best first), within the token budget.

    Hop order keeps the question's own passages ahead of the bridge passages they led to; at
    least one passage is always kept, however long.
    """
    order = buffer_order(evidence)
    ranked = sorted(passages, key=lambda p: order.get(p.id, (True, True, 10**6, 0, 0)))
    chosen: list[Passage] = []
    used = 0
    for passage in ranked:
        cost = len(passage.text) // CHARS_PER_TOKEN + 8
        if chosen and used + cost > budget_tokens:
            continue
        chosen.append(passage)
        used += cost
    return chosen


def _story(index: Index, chain: Chain) -> list[str]:
    """The sentence ids of a chain's links, cause first (each link's first supporting unit)."""
    first = chain.first_units
    units = {u.id: u for u in units_by_id(index, first)}
    return list(dict.fromkeys(s for u in first if u in units for s in units[u].sentence_ids))


# Passages a BM25 search for a missing name reads to find one that writes it.
NAME_SCAN = 20


def _spaced(passages: Iterable[Passage | PassageHit]) -> list[str]:
    return [f" {normalize(p.title)} {normalize(p.text)} " for p in passages]


def unwritten(question: Question, held: list[Passage], index: Index) -> list[str]:
    """The names the question is about that no document writes (title or text).

    The passages the hops found are read first; a name they miss is looked up by BM25 over the
    whole index, since a hop's search may have missed a passage that does write it.
    """
    texts = _spaced(held)
    missing = [n for n in question.names if not names_written(n, texts)]
    return [
        n
        for n in missing
        if not names_written(n, _spaced(search_passages(index, n, NAME_SCAN, "lexical")))
    ]


def supported(question: Question, held: list[Passage]) -> tuple[str, list[Passage]] | None:
    """For a one-name question: why it has no answer ('' if it may have), and what to read.

    "Who founded the Greywell Mine?" is answered by a sentence that names the Greywell Mine (or
    is on its own page) and writes the relation ("founded") together; one that writes only the
    relation ("since the founding of the Brannock Mill") answers another question. The passages
    come back cut to such sentences; with none, the reason says so. None for any other question.
    """
    hop = single_hop(question.text)
    key = entity_key(hop.subject) if hop else ""
    if hop is None or not key:
        return None
    words = relation_words(hop.relation)
    cut = []
    for passage in held:
        own = entity_key(passage.title) == key
        kept = tuple(
            s
            for s in passage.sentences
            if (own or f" {key} " in f" {normalize(s.text)} ") and words & stems(s.text)
        )
        if kept:
            cut.append(replace(passage, text=" ".join(s.text for s in kept), sentences=kept))
    gap = "" if cut else f"no sentence writes {hop.subject!r} and {hop.relation!r} together"
    return gap, cut


def call_figures(reply: BaseMessage | None) -> dict[str, Any]:
    """The answering call's seconds in llama.cpp and prompt tokens read from its prompt cache.

    None where the backend does not say (a server, a test double).
    """
    meta = reply.response_metadata if reply is not None else {}
    details = (getattr(reply, "usage_metadata", None) or {}).get("input_token_details") or {}
    seconds = (meta["prompt_ms"] + meta["generation_ms"]) / 1000 if "prompt_ms" in meta else None
    return {
        "model_seconds": None if seconds is None else round(seconds, 3),
        "cached_tokens": details.get("cache_read"),
    }


def compose(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
    """Answer once every hop is resolved, from source passages only; never from hop answers."""
    answer_id = state["answer_id"]
    problem = state.get("input_problem")
    if problem:  # nothing to search for: say why, in the chat
        message = chat_trace.stream_answer(answer_id, problem)
        return {"answer": "", "citations": [], "sources": [], "messages": [message]}
    started = time.perf_counter()
    ctx = context_of(runtime.context)
    index = get_index(ctx)
    evidence = state.get("evidence") or []
    found = state.get("chains") or []
    told = [c for c in found if c.about and c.links]  # causal chains, best first
    writer = get_stream_writer()
    writer({"event": "composing", "evidence": len(evidence)})
    # the chat shows the cause → effect chain the answer follows, when the question has one
    shown = next(iter(told), None)
    chat_trace.composing(answer_id, shown)
    held = index.passages(list(dict.fromkeys(e.passage_id for e in evidence)))
    passages = select_passages(evidence, held, ctx.evidence_budget)
    unit_ids = [e.id for e in evidence if e.route in ("units", "chain")]
    units = units_by_id(index, unit_ids)
    names = [n for u in units for n in (u.subject, u.object) if n]
    chains = "\n".join(c.text for c in found[: ctx.top_chains])
    effects = [c.links[-1].tail for c in told]
    # a "why" question's chains end at the effect it asks about: its answer is a cause
    causes = [c.links[-1].head for c in told] if state["read"].why else []
    story = _story(index, told[0]) if told else []
    mode = resolve_mode(ctx.answer_mode, ctx.compose_model)
    results = state.get("results") or {}
    bridges = [r.bridge for r in results.values() if r.bridge]
    source = state.get("plan_source", "structural")
    answer = None
    unnamed = unwritten(state["read"], held, index)
    # a question asking one thing of one name is answered from what writes the two together
    one = supported(state["read"], held) if source == "structural" else None
    if unnamed:  # the documents are about other things: nothing to answer from
        note = f"no document names {' or '.join(repr(n) for n in unnamed)}"
        answer = Answer(NOT_FOUND, False, mode=mode, notes=[note])
    elif one and one[0]:
        answer = Answer(NOT_FOUND, False, mode=mode, notes=[one[0]])
    elif source == "parsed" or source == "model" and mode == "ranked":
        # every hop asked its own question: the last hop's answer, its sentences cited in order
        answer = answer_from_hops(state.get("plan") or [], results, held)
        if not answer.found and (mode == "free" or any(r.answer for r in results.values())):
            # A model that writes its own answer still reads the passages; so does the ranking
            # where some hop was answered: the passages that hop led to may write the rest.
            answer = None
    stream = chat_trace.AnswerStream(answer_id)
    if answer is None:
        answer = answer_from_passages(
            make_chat_model(ctx.compose_model),
            mode,
            state["read"],
            evidence=AnswerEvidence(
                one[1] if one else passages,
                names=names,
                bridges=bridges,
                effects=[] if causes else effects,
                causes=causes,
                story=story,
                chains=chains,
                units=units,
                supporting=one is not None,
            ),
            on_text=stream.told,
        )
    writer(
        {
            "event": "answer",
            "answer": answer.text,
            "found": answer.found,
            "mode": answer.mode,
            "candidates": answer.candidates,
            "notes": answer.notes,
            "seconds": round(time.perf_counter() - started, 3),
            **call_figures(answer.reply),
        }
    )
    chat_trace.answered(
        answer_id,
        answer,
        plan=state.get("plan") or [],
        results=results,
        structural=source == "structural",
        chain=shown,
        notes=[*(state.get("notes") or []), *answer.notes],
        base_url=ctx.public_url,
    )
    update: dict[str, Any] = {
        "answer": answer.text,
        "citations": answer.citations,
        "sources": answer.sources,
        "notes": answer.notes,
        # Text only: tool calls a model was talked into must never reach a parent graph's tools.
        # Under a server, each citation links to its passage (the chat renders markdown).
        "messages": [
            stream.done(answer.message(chat_trace.source_links(ctx.public_url, answer.sources)))
        ],
    }
    if answer.reply is not None:
        update["usage"] = [usage_row("compose", answer.reply)]
    return update
