"""`rewrite`: a follow-up in a conversation becomes a standalone question before planning.

After "Who designed the Orrin Dam?" → "Hessa Varn", the follow-up "Where was she born?" is
searched as "Where was Hessa Varn born?". Code finds the pronouns (spaCy's tags) and the names the
previous turn wrote (its question, the first line of the reply: resin's short answer, and in a
checkpointed thread the answers its hops found on the way); the model only picks which name a
pronoun stands for, from an enum, or "unsure", which keeps the question as typed. A 135M model
cannot rewrite a question faithfully, but it can pick a name. A question whose only subject is a
pronoun nobody could resolve is not searched: any sentence would match it, so `plan` asks for
the name instead.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AnyMessage, HumanMessage, SystemMessage
from langgraph.runtime import Runtime
from langgraph.types import Overwrite
from pydantic import BaseModel, Field
from spacy.tokens import Doc, Token

from resin.agent.answering.answer import NOT_FOUND, structured_call
from resin.agent.context import Context
from resin.agent.language.forms import expected_labels
from resin.agent.language.questions import Question
from resin.agent.language.relations import TYPE_LABELS
from resin.agent.llm import make_chat_model
from resin.agent.nodes.common import first_line, message_text, question_of, usage_row
from resin.agent.resources import check_run, context_of
from resin.agent.state import Hop, HopResult, State
from resin.indexes.nlp_extraction import load_pipeline
from resin.indexes.units import normalize
from resin.prompts import REFERENT_SYSTEM, REFERENT_USER
from resin.prompts.structured import fence, json_schema_format, parse_reply

UNSURE = "unsure"
# Pronouns that point back at a name; "I", "you", "we" are the speakers, "this" and "that" too
# vague to replace.
_PERSON = frozenset("he she him her his hers".split())
_THING = frozenset("it its".split())
_GROUP = frozenset("they them their theirs".split())
# Labels of spans that are no name a pronoun could stand for.
_NOT_NAMES = frozenset({"ORDINAL", "CARDINAL", "DATE", "TIME", "PERCENT", "MONEY", "QUANTITY"})
_WH_TAGS = frozenset({"WDT", "WP", "WP$"})
# The label of a common noun phrase ("the mouth"): never what he or she stands for.
COMMON = "NP"
MAX_NAMES = 4
# A reply line longer than this is no short answer: its names are taken instead of the line.
_ANSWER_WORDS = 6


class Referent(BaseModel):
    """The name from the previous turn that a follow-up's pronoun stands for."""

    name: str = Field(description="one of the choices, or 'unsure'")


def previous_turn(messages: list[AnyMessage]) -> tuple[str, str]:
    """The human turn before the newest one, and the first line of the reply to it ('' if none)."""
    earlier = messages[:-1] if messages and isinstance(messages[-1], HumanMessage) else messages
    for i in range(len(earlier) - 1, -1, -1):
        if isinstance(earlier[i], HumanMessage):
            reply = next((m for m in earlier[i + 1 :] if isinstance(m, AIMessage)), None)
            answer = "" if reply is None else first_line(reply.content)
            return message_text(earlier[i].content)[0], answer
    return "", ""


def names(text: str) -> list[tuple[str, str]]:
    """(name, label) pairs a text writes: entities, proper names ('') and common nouns (COMMON)."""
    doc = load_pipeline()(text)
    found = [(e.text, e.label_) for e in doc.ents if e.label_ not in _NOT_NAMES]
    found += [
        (c.text, "" if c.root.pos_ == "PROPN" else COMMON)
        for c in doc.noun_chunks
        if all(t.pos_ != "PRON" and t.tag_ not in _WH_TAGS for t in c)
    ]
    return found


def hop_names(plan: list[Hop], results: dict[int, HopResult]) -> list[tuple[str, str]]:
    """(answer, label) of the previous turn's looked-up hops, the last hop first.

    "Which port was the designer of the Orrin Dam born in?" answers Caldmere; the designer,
    Hessa Varn, is only a hop's answer, and "When was she born?" means her. A hop's label is the
    type its question asked for; dates, numbers and computed answers (yes, no, a picked option
    already named) are no referents.
    """
    found = []
    for hop in sorted(plan, key=lambda h: -h.id):
        result = results.get(hop.id)
        if hop.compute or result is None or result.status != "resolved" or not result.answer:
            continue
        labels = TYPE_LABELS[hop.answer_type]
        if labels and labels <= _NOT_NAMES:
            continue
        found.append((result.answer, "PERSON" if "PERSON" in labels else min(labels, default="")))
    return found


def known_names(
    question: str, answer: str, hops: list[tuple[str, str]] | None = None
) -> list[tuple[str, str]]:
    """Names of the previous turn: its answer, then its hops' answers, then its question's names.

    A short answer takes the type its question asked for (who → a person, which port → a place)
    over the parser's guess: it has never seen most names of a user's documents, and tags a bare
    "Orrin Dam" as a person.
    """
    spans: list[tuple[str, str]] = []
    if answer and answer != NOT_FOUND:
        if len(answer.split()) > _ANSWER_WORDS:
            spans = names(answer)
        else:
            asked = expected_labels(question)
            parsed = [
                label
                for text, label in names(answer)
                if label not in ("", COMMON) and normalize(text) == normalize(answer)
            ]
            label = "PERSON" if "PERSON" in asked else min(asked, default="")
            label = label or (parsed[0] if parsed else "")
            spans = [] if label in _NOT_NAMES else [(answer.rstrip("."), label)]
    seen: set[str] = set()
    ordered = []
    for text, label in [*spans, *(hops or []), *names(question)]:
        if normalize(text) and normalize(text) not in seen:
            seen.add(normalize(text))
            ordered.append((text, label))
    return ordered


def choices_for(word: str, known: list[tuple[str, str]]) -> list[str]:
    """The names a pronoun can stand for, in the order known.

    He and she: people (proper names of no known type when no person is known); it: anything
    but a person; they: anything.
    """
    if word in _THING:
        return [name for name, label in known if label != "PERSON"][:MAX_NAMES]
    if word in _PERSON:
        people = [name for name, label in known if label == "PERSON"]
        return (people or [name for name, label in known if not label])[:MAX_NAMES]
    return [name for name, _ in known][:MAX_NAMES]


def _pick(
    model: BaseChatModel, question: str, turn: tuple[str, str], word: str, choices: list[str]
) -> tuple[str, Any]:
    """The model's choice among the names (UNSURE when it picks nothing usable), and its reply."""
    fmt = json_schema_format(Referent)
    fmt["json_schema"]["schema"]["properties"]["name"] = {
        "type": "string",
        "enum": [*choices, UNSURE],
    }
    reply = structured_call(model, fmt, max_tokens=24).invoke(
        [
            SystemMessage(REFERENT_SYSTEM),
            HumanMessage(
                REFERENT_USER.format(
                    previous_question=fence(turn[0]),
                    previous_answer=fence(turn[1]),
                    question=fence(question),
                    word=fence(word),
                    choices=fence(" | ".join([*choices, UNSURE])),
                )
            ),
        ]
    )
    try:
        picked = parse_reply(reply, Referent).name
    except ValueError:
        picked = UNSURE
    return (picked if picked in choices else UNSURE), reply


class Standalone(NamedTuple):
    """A question made standalone, the model calls that made it, and what nothing could resolve.

    `unresolved` holds the pronouns no earlier name stood for, when the question names nothing
    else: "When was she born?" with no "she" in the previous turn.
    """

    question: str
    usage: list[dict[str, int | str]]
    unresolved: list[str]


def standalone(
    question: str,
    turn: tuple[str, str],
    model: BaseChatModel,
    hops: list[tuple[str, str]] | None = None,
) -> Standalone:
    """The question with each pronoun the model resolved replaced by its name.

    `hops` are the previous turn's hop answers (`hop_names`), offered after its short answer.
    """
    if not question:
        return Standalone(question, [], [])
    doc = load_pipeline()(question)
    pronouns = [
        t for t in doc if t.tag_ in ("PRP", "PRP$") and t.lower_ in _PERSON | _THING | _GROUP
    ]
    known = known_names(*turn, hops) if pronouns and turn[0] else []
    usage: list[dict[str, int | str]] = []
    edits: list[tuple[int, int, str]] = []
    unresolved = []
    for word in dict.fromkeys(t.lower_ for t in pronouns):
        choices = choices_for(word, known)
        name = UNSURE
        if choices:
            name, reply = _pick(model, question, turn, word, choices)
            usage.append(usage_row("rewrite", reply))
        if name == UNSURE:
            unresolved.append(word)
            continue
        for token in (t for t in pronouns if t.lower_ == word):
            text = name + ("'s" if token.morph.get("Poss") == ["Yes"] else "")
            edits.append(
                (
                    token.idx,
                    token.idx + len(token),
                    text[0].upper() + text[1:] if token.idx == 0 else text,
                )
            )
    for start, end, text in sorted(edits, reverse=True):
        question = question[:start] + text + question[end:]
    if unresolved and anchored(load_pipeline()(question), unresolved):
        unresolved = []
    return Standalone(question, usage, unresolved)


def anchored(doc: Doc, unresolved: list[str]) -> bool:
    """Whether the question names something of its own a pronoun may stand for.

    Any noun does ("What parents abandon their eggs?"), save one the pronoun owns ("her father",
    "the capital of it": no anchor when nobody knows who she or it is) and the noun the question
    asks for, unless the pronoun is its possessive: in "What river is it on?" "it" is no river.
    """
    pronouns = [t for t in doc if t.lower_ in unresolved]
    possessive = all(t.tag_ == "PRP$" for t in pronouns)

    def anchors(noun: Token) -> bool:
        if noun.pos_ not in ("NOUN", "PROPN"):
            return False
        if any(c.tag_ in _WH_TAGS for c in noun.children) and not possessive:
            return False
        of = [c for c in noun.children if c.dep_ == "prep" and c.lower_ == "of"]
        owners = [c for c in noun.children if c.dep_ == "poss"]
        owners += [c for prep in of for c in prep.children if c.dep_ == "pobj"]
        return not any(c.lower_ in unresolved for c in owners)

    return any(anchors(t) for t in doc)


def rewrite(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
    """The first node: check the run's index and models, then make the question standalone."""
    ctx = context_of(runtime.context)
    check_run(ctx)
    typed, skipped = question_of(state)
    messages = state.get("messages") or []
    turn = previous_turn(messages)
    hops: list[tuple[str, str]] = []
    if turn[0] and state.get("question") and isinstance(messages[-1], HumanMessage):
        # A checkpointed thread still holds the previous turn's standalone question and hop
        # answers: a follow-up of a follow-up finds the names its typed text had replaced by
        # pronouns, and a follow-up may mean a name found on the way.
        turn = (state["question"], turn[1])
        hops = hop_names(state.get("plan") or [], state.get("results") or {})
    made = standalone(typed, turn, make_chat_model(ctx.compose_model), hops)
    return {
        "question": made.question,
        "asked": typed,
        "read": Question.read(made.question, skipped, made.unresolved),
        "usage": Overwrite(made.usage),
    }
