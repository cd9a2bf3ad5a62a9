"""Short grounded answers from source passages, in the shape a person expects of a QA agent.

One function, `answer_from_passages`, answers for the compose node and for every eval system that
answers from passages, so systems are compared through the same code. The answer is:

1. a **short answer** — picked by the model from grounded candidates (`choices` mode: an enum in
   the JSON-schema grammar, for small local models) or written freely as a short JSON answer
   (`free` mode, for strong hosted models) — or `NOT_FOUND` when the passages do not support one.
   In choices mode code decides "not found" (no sentence shares the question's words, no
   candidate): offered "not found" as a choice, the 135M model took it for every sample question;
2. one to three **supporting sentences** copied from the passages (never generated), each with
   its citation label;
3. a **Sources** list: label, document title, the cited sentence.

Free text a model writes (free mode, closed-book baselines) passes `cut_repetition`, which cuts a
reply at the point where it starts repeating itself.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from langchain_core.language_models import BaseChatModel, LanguageModelInput
from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from langchain_core.runnables import Runnable
from langgraph.constants import TAG_NOSTREAM
from pydantic import BaseModel
from typing_extensions import TypedDict

from resin.agent.answering.candidates import YES_NO, AnswerEvidence, candidates
from resin.agent.answering.options import listed
from resin.agent.answering.repetition import cut_repetition
from resin.agent.answering.streaming import TextSink, written
from resin.agent.language.questions import Question
from resin.agent.language.spans import Candidate
from resin.agent.llm.spec import AnswerMode, ModelSpec
from resin.indexes.documents import Passage, Sentence
from resin.indexes.lexical import stems
from resin.indexes.units import normalize
from resin.prompts import (
    ANSWER_CHOICE_SYSTEM,
    ANSWER_CHOICE_USER,
    ANSWER_FREE_SYSTEM,
    ANSWER_FREE_USER,
)
from resin.prompts.structured import fence, json_schema_format, token_usage

NOT_FOUND = "I could not find this in the documents."
# The choice (and free answer) a model gives when the evidence does not say.
NOT_FOUND_CHOICE = "not found"
MAX_SUPPORT = 3
# Candidates whose own sentences are their support: the sentence whose polarity answered a
# yes/no question, the chain behind a cause, the facts about what a question asked about.
TOLD = frozenset({"YESNO", "CAUSE", "ABOUT"})
# Evidence sentences shown with the choices: the candidates' own and the question's best matches.
CHOICE_SENTENCES = 8
# Enough for the longest candidate in JSON; a free answer gets room for one short sentence.
CHOICE_MAX_TOKENS = 40
FREE_MAX_TOKENS = 64
FREE_LIMITS = {"items": 1, "chars": 200}
# Penalties that keep free text from looping (llama.cpp and OpenAI-compatible servers take both).
FREE_PENALTIES = {"frequency_penalty": 0.5, "presence_penalty": 0.3}


class ShortAnswer(BaseModel):
    """The model's short answer (in choices mode, one of the candidates)."""

    answer: str = ""


class Source(TypedDict):
    """One cited sentence: its label in the message, where it is, and its text."""

    label: int
    passage_id: str
    title: str
    sentence_id: str
    sentence: str


@dataclass
class Answer:
    """A short answer, the sentences it rests on, and how it was reached."""

    text: str
    found: bool
    sources: list[Source] = field(default_factory=list)
    mode: str = "choices"
    candidates: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    prompt_tokens: int = 0
    completion_tokens: int = 0
    reply: BaseMessage | None = None

    @property
    def citations(self) -> list[str]:
        """Passage ids of the cited sentences, in label order."""
        return list(dict.fromkeys(s["passage_id"] for s in self.sources))

    def message(self, links: Mapping[int, str] | None = None) -> str:
        """What a chat shows: the short answer, its supporting sentences, then the sources.

        With `links` (label → URL), each `[n]` is a markdown link a chat client renders, so a
        reader opens the cited passage from the text; without, the text stays plain for a terminal.
        """
        if not self.found:
            return self.text
        links = links or {}

        def cite(label: int) -> str:
            return f"[[{label}]]({links[label]})" if label in links else f"[{label}]"

        # Markdown list items: a chat client renders each on its own line, a terminal reads them.
        lines = [self.text, ""]
        lines += [f"- {s['sentence']} {cite(s['label'])}" for s in self.sources]
        lines += ["", "Sources:"]
        lines += [f'- {cite(s["label"])} {s["title"]}: "{s["sentence"]}"' for s in self.sources]
        return "\n".join(lines)


def resolve_mode(mode: str, spec: str) -> AnswerMode:
    """`mode` for the model `spec` (`auto` as `ModelSpec.auto_answer_mode` resolves it)."""
    return ModelSpec.parse(spec).answer_mode(mode)


def structured_call(
    model: BaseChatModel, schema: dict[str, Any], max_tokens: int, **extra: Any
) -> Runnable[LanguageModelInput, BaseMessage]:
    """A schema-constrained call that does not stream tokens to the user."""
    return model.bind(response_format=schema, max_tokens=max_tokens, **extra).with_config(
        tags=[TAG_NOSTREAM]
    )


def choice_format(choices: Sequence[str]) -> dict[str, Any]:
    """ShortAnswer's schema with its answer bound to the choices (an enum the grammar enforces)."""
    fmt = json_schema_format(ShortAnswer)
    fmt["json_schema"]["schema"]["properties"]["answer"] = {"type": "string", "enum": list(choices)}
    fmt["json_schema"]["schema"]["required"] = ["answer"]
    return fmt


def parse_short(reply: BaseMessage) -> str:
    """The answer field of a reply; '' when the reply is not that JSON."""
    try:
        return ShortAnswer.model_validate(json.loads(str(reply.content), strict=False)).answer
    except (json.JSONDecodeError, ValueError):
        return ""


def render_passages(passages: Sequence[Passage]) -> str:
    """Passages fenced as data, each under a short label (tags in the text escaped)."""
    return "\n".join(
        f'<passage label="[{i}]" title="{fence(p.title, attribute=True)}">{fence(p.text)}</passage>'
        for i, p in enumerate(passages, 1)
    )


def _sentences(passages: Sequence[Passage]) -> list[tuple[Passage, Sentence]]:
    return [(p, s) for p in passages for s in p.sentences]


def _with_ids(passages: Sequence[Passage], ids: Sequence[str]) -> list[tuple[Passage, Sentence]]:
    """The passages' sentences with these ids, in the order of the ids."""
    return sorted(
        (item for item in _sentences(passages) if item[1].id in ids),
        key=lambda item: ids.index(item[1].id),
    )


def _writes(sentence: str, answer: str) -> bool:
    key = normalize(answer)
    return bool(key) and f" {key} " in f" {normalize(sentence)} "


def supporting(
    answer: str, question: Question, passages: Sequence[Passage]
) -> list[tuple[Passage, Sentence]]:
    """One to three source sentences behind an answer, the one that writes it first.

    The first sentence writes the answer (for yes/no: best matches the question); the others are
    the best matches of the question in other passages, preferring those that link to the first
    (a sentence naming its document, or a document it names): the earlier hop of the chain.
    """
    asked = question.words
    main, described = question.parts
    pool = _sentences(passages)
    if not pool:
        return []

    def match(item: tuple[Passage, Sentence]) -> float:
        words = stems(item[1].text)
        return len(main & words) + 0.25 * len(described & words)

    yes_no = normalize(answer) in YES_NO and question.yes_no
    if yes_no:
        holding = pool
    else:
        holding = [item for item in pool if _writes(item[1].text, answer)]
        if not holding:  # a free answer in other words: the sentences sharing most of its words
            said = stems(answer) - asked or stems(answer)
            best = max((len(said & stems(s.text)) for _, s in pool), default=0)
            if not said or best * 2 < len(said):
                return []
            holding = [item for item in pool if len(said & stems(item[1].text)) == best]
    first = max(holding, key=match)
    chosen = [first]
    ftitle, ftext = normalize(first[0].title), normalize(first[1].text)

    def linked(item: tuple[Passage, Sentence]) -> float:
        text = normalize(item[1].text)
        link = bool(ftitle) and ftitle in text or normalize(item[0].title) in ftext
        return len(asked & stems(item[1].text)) + (1.5 if link else 0.0)

    others = [item for item in pool if item[0].id != first[0].id and linked(item) >= 1.5]
    for item in sorted(others, key=linked, reverse=True):
        if len(chosen) >= (MAX_SUPPORT if yes_no else 2) or any(
            c[0].id == item[0].id for c in chosen
        ):
            continue
        chosen.append(item)
    return chosen


def _sources(chosen: Iterable[tuple[Passage, Sentence]]) -> list[Source]:
    return [
        Source(label=i, passage_id=p.id, title=p.title, sentence_id=s.id, sentence=s.text)
        for i, (p, s) in enumerate(chosen, 1)
    ]


def _choice_evidence(
    cands: Sequence[Candidate], question: Question, passages: Sequence[Passage]
) -> str:
    """The few sentences the choices rest on: each candidate's own, then the question's best."""
    by_id = {s.id: s.text for _, s in _sentences(passages)}
    ids = [c.sentences[0] for c in cands if c.sentences]
    asked = question.words
    ranked = sorted(by_id, key=lambda sid: -len(asked & stems(by_id[sid])))
    picked = list(dict.fromkeys([*ids, *ranked]))[:CHOICE_SENTENCES]
    return "\n".join(f"- {fence(by_id[sid])}" for sid in picked if sid in by_id)


def _pick(
    model: BaseChatModel,
    question: Question,
    cands: Sequence[Candidate],
    passages: Sequence[Passage],
    on_text: TextSink | None = None,
) -> tuple[str, BaseMessage]:
    choices = [c.text for c in cands]
    messages = [
        SystemMessage(ANSWER_CHOICE_SYSTEM),
        HumanMessage(
            ANSWER_CHOICE_USER.format(
                evidence=_choice_evidence(cands, question, passages),
                question=fence(question.stem),
                choices=fence(" | ".join(choices)),
            )
        ),
    ]
    # No repeat penalty here: the grammar already bounds the reply, and a penalty would push the
    # model away from the very names the evidence repeats.
    call = structured_call(model, choice_format(choices), CHOICE_MAX_TOKENS, frequency_penalty=0.0)
    # only a prefix of a choice is shown: a reply that is no choice is never the answer
    reply = written(call, messages, on_text, lambda text: any(c.startswith(text) for c in choices))
    picked = parse_short(reply).strip()
    return (picked if picked in choices else ""), reply


def _may_be_not_found(text: str) -> bool:
    """Whether a free answer cut short could still be the model's "not found" (never shown)."""
    return normalize(NOT_FOUND_CHOICE).startswith(normalize(text))


def free_answer(
    model: BaseChatModel,
    question: str,
    context: str,
    system: str = ANSWER_FREE_SYSTEM,
    on_text: TextSink | None = None,
) -> tuple[str, bool, BaseMessage]:
    """A short answer the model writes itself (JSON), cut where it loops; and whether it did."""
    messages: list[BaseMessage] = [
        SystemMessage(system),
        HumanMessage(ANSWER_FREE_USER.format(context=context, question=fence(question))),
    ]
    call = structured_call(
        model, json_schema_format(ShortAnswer, FREE_LIMITS), FREE_MAX_TOKENS, **FREE_PENALTIES
    )
    reply = written(call, messages, on_text, lambda text: not _may_be_not_found(text))
    text, looped = cut_repetition(" ".join(parse_short(reply).split()))
    return text, looped, reply


def answer_from_passages(
    model: BaseChatModel,
    mode: AnswerMode,
    question: Question,
    *,
    evidence: AnswerEvidence,
    on_text: TextSink | None = None,
) -> Answer:
    """The short answer to `question` from the evidence's passages, with its supporting sentences.

    Nothing in the passages → `NOT_FOUND` without a model call; a pick or free answer that no
    sentence supports → `NOT_FOUND` too: an answer is never the model's own claim. An answer
    inside the best chain's last effect cites the chain's sentences (`evidence.story`).
    `on_text` is told the short answer as the model writes it (never when no model writes it).
    """
    passages = evidence.passages
    if not passages:
        return Answer(NOT_FOUND, False, mode=mode, notes=["no passages to answer from"])
    out = Answer(NOT_FOUND, False, mode=mode)
    cands: list[Candidate] = []
    if mode != "free":
        # "Tell me about X" asks nothing but X: "tell" is written in no sentence about it
        asked = frozenset(stems(question.about)) if question.about else question.words
        shared = max((len(asked & stems(s.text)) for _, s in _sentences(passages)), default=0)
        if not evidence.supporting and shared < min(2, len(asked)):
            out.notes.append("no passage sentence shares the question's words")
            return out
        cands = listed(question, passages) if question.options else candidates(question, evidence)
        out.candidates = [c.text for c in cands]
        if not cands:
            out.notes.append("no candidate answer is written in the passages")
            return out
        if cands[0].label == "COMPARED":  # the passages' years settle it: no model guess
            picked, reply = cands[0].text, None
            out.notes.append("compared the years the passages give for each option")
        elif mode == "ranked":
            picked, reply = cands[0].text, None
        else:
            picked, reply = _pick(model, question, cands, passages, on_text)
            if not picked:
                out.notes.append("the model's pick was not one of the choices")
    else:
        context = render_passages(passages)
        if evidence.chains:
            context += f"\n<chains>\n{fence(evidence.chains)}\n</chains>"
        picked, looped, reply = free_answer(model, question.text, context, on_text=on_text)
        if looped:
            out.notes.append("the model's answer repeated itself and was cut")
    out.reply = reply
    if reply is not None:
        out.prompt_tokens, out.completion_tokens = token_usage(reply)
    if not picked or normalize(picked) in ("", normalize(NOT_FOUND_CHOICE)):
        out.notes.append("the model found no answer in the passages")
        return out
    told = next((c for c in cands if c.text == picked and c.label in TOLD), None)
    if cands and cands[0].label == "COMPARED":  # the sentences whose years were compared
        chosen = _with_ids(passages, [c.sentences[0] for c in cands])
    elif told is not None and told.sentences:  # the sentences that decided it, in their order
        chosen = _with_ids(passages, told.sentences)
    else:
        chosen = supporting(picked, question, passages)
    if evidence.story and evidence.effects and _writes(evidence.effects[0], picked):
        chosen = _with_ids(passages, evidence.story) or chosen
    if not chosen and question.options:  # a listed option: the sentence that best supports it
        chosen = _with_ids(passages, next((c.sentences[:1] for c in cands if c.text == picked), []))
    if not chosen:
        out.notes.append(f"no passage sentence supports the model's answer {picked!r}")
        return out
    if question.pair:  # cite each option's best sentence: the comparison rests on both
        chosen = _with_options(chosen, question, passages)
    out.text, out.found, out.sources = picked, True, _sources(chosen)
    return out


def _with_options(
    chosen: list[tuple[Passage, Sentence]], question: Question, passages: Sequence[Passage]
) -> list[tuple[Passage, Sentence]]:
    asked = question.words
    for option in question.pair:
        if any(_writes(s.text, option) for _, s in chosen):
            continue
        naming = [item for item in _sentences(passages) if _writes(item[1].text, option)]
        if naming and len(chosen) < MAX_SUPPORT:
            chosen.append(max(naming, key=lambda item: len(asked & stems(item[1].text))))
    return chosen
