"""Input, internal and output schemas of the resin graph, and the evidence buffer's reducer."""

from __future__ import annotations

import operator
from functools import cache
from typing import Annotated, Any, Literal, Self

from langchain_core.messages import AnyMessage
from langgraph.channels.binop import BinaryOperatorAggregate
from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer
from langgraph.graph.message import add_messages
from langgraph.graph.ui import AnyUIMessage, ui_message_reducer
from pydantic import BaseModel, Field, TypeAdapter
from typing_extensions import TypedDict

from resin.agent.answering.answer import Source
from resin.agent.language.questions import Question
from resin.agent.language.relations import AnswerType
from resin.indexes.base import Direction
from resin.indexes.units import UnitKind
from resin.prompts import MAX_HOPS
from resin.tools.retrieval import Chain, ChainLink

# "answer": a passage that writes a hop's answer or an alternative (each hop's answer ranks first);
# "read": a passage an answered hop read that does not write its answer (ranked after every answer)
Route = Literal["units", "chain", "dense", "lexical", "fused", "entity", "answer", "read"]
PlanSource = Literal["model", "parsed", "structural"]
# What a computed hop does with the answers of the hops it depends on (no retrieval): pick the
# option whose date is earliest or latest, who lived longest, or whose number is the most or the
# least; say whether all share a value; name what the options have in common; say whether every
# yes/no hop said yes.
Compute = Literal[
    "", "earliest", "latest", "longest", "most", "least", "same", "common", "all", "chosen"
]
# A comparison of two options whose each side takes two hops (the director, then the date),
# plus the computed comparison: the parsed planner's largest plan.
MAX_PARSED_HOPS = 2 * MAX_HOPS - 1


class Hop(BaseModel):
    """One one-hop need: a focused question that may hold `#k` placeholders for earlier bridges."""

    id: int = Field(ge=1, description="1-based hop number")
    question: str = Field(description="the one-hop question; '#1' stands for hop 1's answer")
    depends_on: list[int] = Field(default_factory=list, description="hops whose answers this needs")
    direction: Direction = Field(default="forward", description="cause→effect traversal direction")
    kinds: list[UnitKind] = Field(default_factory=list, description="preferred unit kinds")
    entity: str = Field(default="", description="the bridge entity a structural hop is about")
    subject: str = Field(default="", description="the entity the hop asks about, or '#k'")
    relation: str = Field(default="", description="the relation phrase asked ('director of')")
    answer_type: AnswerType = Field(default="other", description="what kind of thing answers it")
    compute: Compute = Field(default="", description="a computed hop: how it combines answers")
    options: list[str] = Field(
        default_factory=list, description="a computed hop's options, one per dependency group"
    )


class Plan(BaseModel):
    """The planner's structured output."""

    hops: list[Hop] = Field(default_factory=list)


class Evidence(BaseModel):
    """One support in the buffer: a unit or passage, the sentences it rests on, who found it how."""

    id: str = Field(description="unit id or passage id")
    passage_id: str
    sentence_ids: list[str]
    quote: str
    score: float
    hop: int
    route: Route
    alternatives: list[str] = Field(
        default_factory=list, description="other hop:route pairs that found the same support"
    )


class HopResult(BaseModel):
    """What a hop produced: its own answer (and alternatives) where it asks a one-hop question.

    A structural hop has no answer of its own: the composer reads its `bridge` to rank answers.
    """

    hop: int
    query: str
    status: Literal["resolved", "unresolved"]
    subject: str = Field(default="", description="the entity the hop asked about, filled in")
    bridge: str = ""
    units: int = 0
    passages: int = 0
    answer: str = ""
    alternatives: list[str] = Field(default_factory=list)
    alternative_sentences: list[tuple[str, str]] = Field(
        default_factory=list, description="(passage id, sentence id) writing each alternative"
    )
    sentence_id: str = Field(default="", description="the sentence that writes the answer")
    passage_id: str = ""
    via: str = Field(default="", description="how the answer was found: unit, sentence, computed")


def merge_evidence(left: list[Evidence], right: list[Evidence]) -> list[Evidence]:
    """Deduplicate by id, keeping the best-scored copy and every other hop:route that found it."""
    merged = {e.id: e for e in left}
    for item in right:
        have = merged.get(item.id)
        if have is None:
            merged[item.id] = item
            continue
        best, other = (item, have) if item.score > have.score else (have, item)
        own = f"{best.hop}:{best.route}"
        tags = [*have.alternatives, *item.alternatives, f"{other.hop}:{other.route}"]
        merged[item.id] = best.model_copy(
            update={"alternatives": [t for t in dict.fromkeys(tags) if t != own]}
        )
    return list(merged.values())


def merge_results(left: dict[int, HopResult], right: dict[int, HopResult]) -> dict[int, HopResult]:
    """Hop results by hop id."""
    return {**left, **right}


def extend_plan(left: list[Hop], right: list[Hop]) -> list[Hop]:
    """Append hops not yet in the plan (structural bridge hops arrive while the graph runs)."""
    ids = {h.id for h in left}
    return left + [h for h in right if h.id not in ids]


def merge_chains(left: list[Chain], right: list[Chain]) -> list[Chain]:
    """Keep each distinct chain once, best score first."""
    best: dict[str, Chain] = {}
    for chain in left + right:
        if chain.text not in best or chain.score > best[chain.text].score:
            best[chain.text] = chain
    return sorted(best.values(), key=lambda c: -c.score)


@cache
def _adapter(typ: Any) -> TypeAdapter[Any]:
    return TypeAdapter(typ)


class JsonAggregate(BinaryOperatorAggregate[Any]):
    """A reducer channel whose checkpoint is plain JSON, turned back into its models on load.

    The checkpointer is the server's (`langgraph dev`, a deployed LangGraph server), and its
    serializer knows nothing of resin's types: stored as models, a thread's second turn loads
    them through msgpack's deprecated "unregistered type" path (blocked under
    LANGGRAPH_STRICT_MSGPACK). Stored as JSON they need no allowlist on any server, and the
    nodes still read and write the models.
    """

    def checkpoint(self) -> Any:
        """The value as JSON (lists, dicts, strings, numbers)."""
        value = super().checkpoint()
        return (
            value if not self.is_available() else _adapter(self.typ).dump_python(value, mode="json")
        )

    def from_checkpoint(self, checkpoint: Any) -> Self:
        """The channel holding the models the JSON stands for."""
        channel = super().from_checkpoint(checkpoint)
        if channel.is_available():
            channel.value = _adapter(self.typ).validate_python(channel.value)
        return channel


class InputState(TypedDict, total=False):
    """A question, or chat messages whose last human turn is the question."""

    question: str
    messages: Annotated[list[AnyMessage], add_messages]


class OutputState(TypedDict, total=False):
    """The short answer, its sources, the trace behind it and the tokens each model call spent.

    `question` is the question answered: a follow-up made standalone from the thread's previous
    turn; `asked` is the message as typed (the same as `question` when nothing was rewritten).
    `answer` is the short answer alone ("" when the question could not be read); the chat
    message in `messages` adds the supporting sentences and a Sources list. `notes` says what was
    skipped, cut, rewritten or fallen back on in this run; `plan_source` whether the plan
    model's plan was used and `plan_reason` which planner ran and why. `results` holds each
    hop's own answer (or why it has none), by hop id. `ui` holds each run's live trace for chat
    clients (`resin.agent.chat_trace`): one generative-UI message per answer, kept with it.
    """

    question: str
    asked: str
    answer: str
    citations: list[str]
    sources: list[Source]
    notes: Annotated[list[str], operator.add]
    plan: list[Hop]
    plan_source: PlanSource
    plan_reason: str
    results: dict[int, HopResult]
    evidence: list[Evidence]
    chains: list[Chain]
    usage: list[dict[str, int | str]]
    messages: Annotated[list[AnyMessage], add_messages]
    ui: Annotated[list[AnyUIMessage], ui_message_reducer]


class State(InputState, OutputState, total=False):
    """Everything the graph carries between nodes; `read` is the question as `rewrite` read it.

    `answer_id` is the id of this run's answer message, fixed by `plan`: the chat shows the
    message (empty until `compose` fills it) and its trace from the plan on.
    """

    read: Annotated[Question, JsonAggregate(Question, lambda _, new: new)]
    plan: Annotated[list[Hop], JsonAggregate(list[Hop], extend_plan)]
    results: Annotated[dict[int, HopResult], JsonAggregate(dict[int, HopResult], merge_results)]
    evidence: Annotated[list[Evidence], JsonAggregate(list[Evidence], merge_evidence)]
    chains: Annotated[list[Chain], JsonAggregate(list[Chain], merge_chains)]
    input_problem: str
    answer_id: str
    usage: Annotated[list[dict[str, int | str]], lambda a, b: a + b]


class HopTask(TypedDict):
    """What `dispatch` sends to one `resolve_hop`."""

    hop: Hop
    question: str
    plan_source: PlanSource
    results: dict[int, HopResult]
    evidence_ids: list[str]
    has_dependents: bool
    answer_id: str


def checkpoint_serializer() -> JsonPlusSerializer:
    """A checkpoint serializer that knows resin's state types (and refuses unknown ones)."""
    return JsonPlusSerializer(allowed_msgpack_modules=[Hop, Evidence, HopResult, Chain, ChainLink])
