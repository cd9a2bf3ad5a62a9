"""What another agent sees of resin over MCP: the tool's description and a compact result.

Light on purpose (no graph, no models): `resin.agent.server` imports it while the server starts.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel
from typing_extensions import TypedDict

if TYPE_CHECKING:
    from resin.agent.state import OutputState

# The one place these words live; langgraph.json's "description" of graph `resin` carries the
# same text (a unit test holds them together).
DESCRIPTION = (
    "Answers a multi-hop question over the user's indexed documents, hop by hop: it splits the "
    "question into one-hop questions and feeds each hop's answer into the next. Returns JSON "
    "with a short answer (a could-not-find sentence when the documents do not hold it), the "
    "source sentences it rests on (title, sentence), each hop's question, answer and status, "
    "and notes. Input: one self-contained question in plain words."
)

# Limits, in characters, of the text fields a brief carries, and how many notes it keeps.
SENTENCE_CHARS = 240
TITLE_CHARS = 100
HOP_CHARS = 160
NOTE_CHARS = 160
MAX_NOTES = 5


class BriefSource(TypedDict):
    """One sentence the answer rests on, with its label in the chat message ([1], [2], ...)."""

    label: int
    title: str
    sentence: str


class BriefHop(TypedDict):
    """One hop: the question it asked (placeholders filled in), its answer and status."""

    id: int
    question: str
    answer: str
    status: str


class Brief(TypedDict):
    """The compact result: the question answered, the answer, its sources, the hops, notes."""

    question: str
    answer: str
    sources: list[BriefSource]
    hops: list[BriefHop]
    notes: list[str]


def brief(output: OutputState | Mapping[str, Any]) -> Brief:
    """The graph's output cut to what a calling agent acts on, as JSON-able plain values.

    The full output state (plan fields, evidence, chains, usage, messages) runs to thousands of
    characters; a caller needs the answer, the sentences that support it and how each hop went.
    `answer` is kept exactly as the graph gives it (its could-not-find sentence included). What is
    trimmed: source sentences past `SENTENCE_CHARS`, titles past `TITLE_CHARS`, hop questions and
    answers past `HOP_CHARS` and notes past `NOTE_CHARS` are cut at a word and end in "…"; notes
    past the first `MAX_NOTES` become one "(+N more notes)". A hop the run never reached has
    status "not run".

    Takes the output in-process (pydantic `Hop`/`HopResult` models, int hop ids) or as it
    arrives over HTTP (plain dicts, hop ids as string keys).
    """
    plan = [_plain(h) for h in output.get("plan") or []]
    results = {str(k): _plain(v) for k, v in (output.get("results") or {}).items()}
    hops: list[BriefHop] = []
    for hop in plan:
        result = results.get(str(hop.get("id")), {})
        hops.append(
            {
                "id": int(hop.get("id", 0)),
                "question": _clip(result.get("query") or hop.get("question", ""), HOP_CHARS),
                "answer": _clip(result.get("answer", ""), HOP_CHARS),
                "status": str(result.get("status", "not run")),
            }
        )
    sources: list[BriefSource] = [
        {
            "label": int(s.get("label", 0)),
            "title": _clip(s.get("title", ""), TITLE_CHARS),
            "sentence": _clip(s.get("sentence", ""), SENTENCE_CHARS),
        }
        for s in (_plain(s) for s in output.get("sources") or [])
    ]
    notes = [_clip(str(n), NOTE_CHARS) for n in output.get("notes") or []]
    if len(notes) > MAX_NOTES:
        notes = [*notes[:MAX_NOTES], f"(+{len(notes) - MAX_NOTES} more notes)"]
    return {
        "question": str(output.get("question", "")),
        "answer": str(output.get("answer", "")),
        "sources": sources,
        "hops": hops,
        "notes": notes,
    }


def _plain(value: Any) -> Mapping[str, Any]:
    """A model as its JSON dict; a dict (or TypedDict) as it is."""
    if isinstance(value, BaseModel):
        dumped: dict[str, Any] = value.model_dump(mode="json")
        return dumped
    return value if isinstance(value, Mapping) else {}


def _clip(text: Any, limit: int) -> str:
    """`text` whole when it fits in `limit` characters, else cut at a word and ended by "…"."""
    flat = " ".join(str(text).split())
    if len(flat) <= limit:
        return flat
    cut = flat[: limit - 1]
    if " " in cut[limit // 2 :]:
        cut = cut.rsplit(" ", 1)[0]
    return cut.rstrip(" ,;:") + "…"
