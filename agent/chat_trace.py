"""The live trace a chat client shows inside the answer: props of the `resin_trace` component.

A run pushes one generative-UI message (`langgraph.graph.ui.push_ui_message`), tied to its
answer message and updated in place (`merge=True`) as the run goes: the plan with every hop
pending, each hop reading and then resolved, the chain while composing, then the sources and
notes. agent-chat-ui renders it with `ui/trace.tsx`; a client that ignores UI messages still gets
the answer as a message, and a custom stream event per step as before.

Props merge shallowly, key by key: each hop has a key of its own (`hop_1`, `hop_2`, …), so two
hops resolving in parallel never overwrite each other's entry.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Literal
from urllib.parse import quote

from langchain_core.messages import AIMessage, AIMessageChunk
from langgraph.graph.message import push_message
from langgraph.graph.ui import push_ui_message

from resin.agent.answering.answer import Answer, Source
from resin.agent.reading.typed_hop import fill_placeholders
from resin.agent.state import Hop, HopResult, PlanSource
from resin.tools.retrieval import Chain

COMPONENT = "resin_trace"
# The passage route of the server (`resin.agent.chat_routes`): /sources/<passage id>?sentence=N
SOURCES_PATH = "/sources"

HopStatus = Literal["pending", "reading", "answered", "resolved", "not_found", "skipped"]


def hop_key(hop_id: int) -> str:
    """The props key of one hop's entry."""
    return f"hop_{hop_id}"


def hop_status(result: HopResult | None, structural: bool) -> HopStatus:
    """How a hop went, for the user.

    A hop that asks its own question (a parsed or model plan) is answered or not found; a
    structural hop has no answer of its own: it is resolved when it found passages to read.
    """
    if result is None:
        return "pending"
    if result.status == "unresolved":
        return "not_found"
    if result.answer:
        return "answered"
    return "resolved" if structural else "not_found"


def hop_entry(hop: Hop | HopResult, status: HopStatus) -> dict[str, Any]:
    """One hop as the component shows it: its question (placeholders filled once resolved)."""
    if isinstance(hop, HopResult):
        return {"id": hop.hop, "question": hop.query, "status": status, "answer": hop.answer}
    return {"id": hop.id, "question": hop.question, "status": status, "answer": ""}


def source_url(base: str, passage_id: str, sentence_id: str) -> str:
    """The link to a cited passage with its sentence marked (relative when `base` is empty)."""
    url = f"{base.rstrip('/')}{SOURCES_PATH}/{quote(passage_id, safe='')}"
    head, _, position = sentence_id.rpartition(":")
    return f"{url}?sentence={position}" if head == passage_id and position.isdigit() else url


def source_links(base: str, sources: Iterable[Source]) -> dict[int, str]:
    """Each citation label's link to its passage; none without a base (no server to link to)."""
    if not base:
        return {}
    return {s["label"]: source_url(base, s["passage_id"], s["sentence_id"]) for s in sources}


def chain_links(chain: Chain | None) -> list[dict[str, str]]:
    """A chain's links, cause first, as the component draws them."""
    return [
        {"head": link.head, "relation": link.relation, "tail": link.tail}
        for link in (chain.links if chain else [])
    ]


def push(answer_id: str, props: Mapping[str, Any], keep: bool = True) -> None:
    """Merge `props` into this run's trace, shown with the answer message `answer_id`.

    Without `keep` the props go to the stream only, not to the state: a node writes its trace
    to the state once, or the node's entry in the `updates` stream becomes a list of writes.
    """
    push_ui_message(
        COMPONENT,
        dict(props),
        id=f"trace-{answer_id}",
        message=AIMessage(content="", id=answer_id),
        merge=True,
        state_key="ui" if keep else None,
    )


def planned(
    answer_id: str,
    *,
    question: str,
    asked: str,
    hops: list[Hop],
    source: PlanSource,
    reason: str,
    notes: list[str],
) -> None:
    """The first push, as soon as the plan is made: every hop pending."""
    push(
        answer_id,
        {
            "stage": "reading",
            "question": question,
            "asked": asked,
            "plan": {"source": source, "reason": reason},
            "notes": list(notes),
            "chain": [],
            "sources": [],
            "answer": "",
            **{hop_key(h.id): hop_entry(h, "pending") for h in hops},
        },
    )


def reading(answer_id: str, hop: Hop, results: dict[int, HopResult]) -> None:
    """A hop has started, its placeholders filled (shown live; the state keeps its result)."""
    entry = hop_entry(hop, "reading")
    entry["question"] = fill_placeholders(hop.question, results, {})
    push(answer_id, {hop_key(hop.id): entry}, keep=False)


def resolved(answer_id: str, update: Mapping[str, Any], structural: bool) -> None:
    """A hop's update: its result (and any earlier hop's it revised), and hops it added."""
    results: dict[int, HopResult] = update.get("results") or {}
    added: list[Hop] = update.get("plan") or []
    push(
        answer_id,
        {
            **{hop_key(h.id): hop_entry(h, "pending") for h in added},
            **{hop_key(k): hop_entry(r, hop_status(r, structural)) for k, r in results.items()},
        },
    )


def composing(answer_id: str, chain: Chain | None) -> None:
    """Every hop is resolved; the answer is being drawn from the passages along `chain`.

    Shown live; `answered` keeps the chain in the state with everything else.
    """
    push(answer_id, {"stage": "composing", "chain": chain_links(chain)}, keep=False)


def final_hops(
    plan: Iterable[Hop], results: Mapping[int, HopResult], structural: bool
) -> tuple[dict[str, Any], list[str]]:
    """Every hop's final entry (a hop the run never reached is skipped), and a note per miss."""
    entries: dict[str, Any] = {}
    notes = []
    for hop in plan:
        result = results.get(hop.id)
        status = hop_status(result, structural) if result else "skipped"
        entries[hop_key(hop.id)] = hop_entry(result or hop, status)
        if status == "not_found":
            notes.append(f"hop {hop.id} found no answer")
        elif status == "skipped":
            notes.append(f"hop {hop.id} was not run")
    return entries, notes


def answered(
    answer_id: str,
    answer: Answer,
    *,
    plan: Iterable[Hop],
    results: Mapping[int, HopResult],
    structural: bool,
    chain: Chain | None,
    notes: list[str],
    base_url: str,
) -> None:
    """The last push: every hop's final state, the chain, the sources with their links, notes."""
    hops, missed = final_hops(plan, results, structural)
    push(
        answer_id,
        {
            **hops,
            "stage": "done",
            "chain": chain_links(chain),
            "answer": answer.text,
            "found": answer.found,
            "notes": [*notes, *missed],
            "sources": [
                {
                    "label": s["label"],
                    "title": s["title"],
                    "sentence": s["sentence"],
                    "url": source_url(base_url, s["passage_id"], s["sentence_id"]),
                }
                for s in answer.sources
            ],
        },
    )


def placeholder(answer_id: str) -> AIMessage:
    """The answer message, empty, as the plan makes it: the chat shows the trace in it."""
    return AIMessage(content="", id=answer_id)


class AnswerStream:
    """The answer message's text on the `messages` stream, as chunks of that message (its id).

    The answer replaces the placeholder the stream has already seen, so the stream never sends
    it again whole: without chunks, a client reading that stream keeps the empty placeholder.
    A model writing the short answer is `told` it as it grows (each chunk the new part); `done`
    sends the rest of the message. Chunks add up to the thread's message, unless compose set
    aside what the model wrote (no sentence supports it, or it looped): then the last chunk
    starts a paragraph of its own with the message kept, which the thread holds alone.
    """

    def __init__(self, answer_id: str) -> None:
        """Nothing sent yet."""
        self.answer_id = answer_id
        self.sent = ""

    def _send(self, text: str) -> None:
        push_message(AIMessageChunk(content=text, id=self.answer_id), state_key=None)
        self.sent += text

    def told(self, answer: str) -> None:
        """The short answer written so far (spaces as the answer keeps them); its new part sent."""
        shown = " ".join(answer.split())
        if len(shown) > len(self.sent) and shown.startswith(self.sent):
            self._send(shown[len(self.sent) :])

    def done(self, text: str) -> AIMessage:
        """The answer message: its text, less what was sent, goes to the stream."""
        rest = text[len(self.sent) :] if text.startswith(self.sent) else f"\n\n{text}"
        if rest or not self.sent:
            self._send(rest)
        return AIMessage(content=text, id=self.answer_id)


def stream_answer(answer_id: str, text: str) -> AIMessage:
    """A reply no model wrote, as the answer message: its text goes to the stream as one chunk."""
    return AnswerStream(answer_id).done(text)
