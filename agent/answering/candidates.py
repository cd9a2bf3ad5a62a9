"""Grounded answer candidates: the spans a short answer may be, drawn from the passages themselves.

A 135M model cannot write a faithful answer, but it can pick one from a short list. The list is
built by code from what the composed passages actually say — named entities, dates and numbers,
noun phrases, document titles, names the buffer's units carry — and ranked by how well each fits
the question: its expected answer type (who → a person, when → a date, how many → a number) and how
many of the question's words its sentence shares. Yes/no, why and "tell me about" questions are
answered by `resin.agent.answering.kinds`; "A or B" questions get their options. Candidates the
question itself names are dropped: an answer is new information. What the question asks for is read
by `resin.agent.language.questions`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from resin.agent.answering.kinds import cause, facts, polarity
from resin.agent.answering.options import compared, described
from resin.agent.language.forms import (
    ACTIONS,
    MAX_WORDS,
    NUMBERS,
    PEOPLE,
    PLACES,
    TIME_WORDS,
    TIMES,
)
from resin.agent.language.questions import Question
from resin.agent.language.spans import (
    YEAR,
    Candidate,
    around,
    clean,
    describes_name,
    sentence_spans,
)
from resin.agent.reading.yes_no import page_subject
from resin.indexes.documents import Passage
from resin.indexes.lexical import stems
from resin.indexes.nlp_extraction import load_pipeline
from resin.indexes.units import ReasoningUnit, entity_key, normalize

YES_NO = ("yes", "no")
# Spans whose entity type the parser did not give: noun phrases, proper nouns, titles, unit names.
_UNTYPED = frozenset({"NP", "PROPN", "TITLE", "NAME"})
# Candidates shown to the model: enough to hold the answer, few enough for a short prompt.
MAX_CANDIDATES = 10
_VAGUE_TIME = 5.0
# A verb phrase that is the last effect of a cause → effect chain found for the question's cause
# and thing affected outranks any phrase that merely shares the question's words (the cause's
# own sentence shares most of them); the more of the effect it holds, the better.
_CHAIN_EFFECT = 50.0
# A candidate that a typed unit gives as the other side of the question's own verb ("Hessa Varn |
# born in | port of Caldmere" for "Where was Hessa Varn born?") is as sure a sign as the noun the
# question asks for written beside it.
_FACT = 5.0


@dataclass(frozen=True)
class AnswerEvidence:
    """What the answer step reads: the passages and what the hops and chains found in them.

    `names` are entity names the evidence's units carry (subjects and objects), `bridges` the
    entities the hops resolved (the answer is written about them), `effects` the last effects of
    the chains from the question's cause to the thing it asks about, `causes` the immediate
    causes on the chains that end at the effect a "why" question asks about, `story` the
    sentence ids of the best such chain's links (cause first), `chains` those chains as text for
    a model, and `units` the evidence's typed units. `supporting`: every passage sentence is
    known to write the question's subject and relation together (a sentence on the subject's
    own page may write it as "he"), so none need share more of the question's words.
    """

    passages: Sequence[Passage]
    names: Sequence[str] = ()
    bridges: Sequence[str] = ()
    effects: Sequence[str] = ()
    causes: Sequence[str] = ()
    story: Sequence[str] = ()
    chains: str = ""
    units: Sequence[ReasoningUnit] = ()
    supporting: bool = False


@dataclass
class _Seen:
    labels: list[str] = field(default_factory=list)
    sentences: list[str] = field(default_factory=list)
    best: float = 0.0  # the best sentence's fit: its features must meet in one sentence
    rank: int = 0


@dataclass
class _Frame:
    """What the evidence adds to the question's own reading, worked out once per answer."""

    names: list[str]
    finals: list[str]  # chains' last effects, normalized with spaces around
    hopped: set[str]  # what the agent's hops resolved
    bridges: set[str]  # hopped, and what the question's description resolves to
    answered: list[str]  # the other side of units about an entity the question names
    referents: dict[str, set[str]]  # sentence id → stems of the subject a unit resolved for it
    # stems of the subject whose own argument the question asks, when a passage is its page
    subject: frozenset[str]

    @classmethod
    def of(cls, question: Question, evidence: AnswerEvidence) -> _Frame:
        hopped = {normalize(b) for b in evidence.bridges} - {""}
        facts = _fact_answers(question, evidence.units, hopped)
        referents: dict[str, set[str]] = {}  # "She died in 1937", read as the unit does
        for _, unit in facts:
            if unit.resolved:
                for sid in unit.sentence_ids:
                    referents.setdefault(sid, set()).update(stems(unit.subject))
        return cls(
            names=[n for n in evidence.names if n],
            finals=[f" {normalize(e)} " for e in evidence.effects]
            if question.expected == ACTIONS
            else [],
            hopped=hopped,
            bridges=_bridges(question, evidence.passages) | hopped,
            answered=[answer for answer, _ in facts],
            referents=referents,
            subject=frozenset(stems(page_subject(question.stem, evidence.passages)))
            if question.main_argument
            else frozenset(),
        )


def candidates(question: Question, evidence: AnswerEvidence) -> list[Candidate]:
    """Ranked answer candidates for the question, every one written in a passage sentence.

    A candidate's score adds: how well its entity type fits the question word, how many question
    words its best sentence shares, whether the noun the question asks for stands next to it
    ("which port" → "the port of Caldmere"), and how often the passages write it. For "what
    happens" questions a verb phrase inside a chain's last effect ("cancels the festival") is
    the answer even though it repeats the question's words. A unit whose predicate is the
    question's verb and whose one side the question names answers with its other side, and its
    sentence is read with the referent the unit resolved for a pronoun ("She died in 1937" is
    about Hessa Varn). "Who was X?" and "What is X?" are answered by X's entity-type units alone
    ("Hessa Varn | is a | civil engineer"), when there are any.
    """
    passages = evidence.passages
    if question.pair:
        return compared(question, passages) or described(question, passages)
    if question.yes_no:
        return polarity(question, passages)
    if question.why:
        return cause(evidence.causes, evidence.story)
    if question.about:
        return facts(question, passages, evidence.units)
    defined = entity_key(question.defined)
    kinds: dict[str, ReasoningUnit] = {}  # each type once, the best-ranked unit first
    for unit in evidence.units:
        if _defines(unit, defined):
            kinds.setdefault(normalize(unit.object), unit)
    if kinds:  # "Who was Hessa Varn?" asks what she was: her entity-type units say it
        return [
            Candidate(u.object, "TYPE", float(len(kinds) - i), list(u.sentence_ids))
            for i, u in enumerate(kinds.values())
        ]
    frame = _Frame.of(question, evidence)
    seen, texts = _collect(question, passages, frame)
    return _score(question, seen, texts, frame)


def _collect(
    question: Question, passages: Sequence[Passage], frame: _Frame
) -> tuple[dict[str, _Seen], dict[str, str]]:
    """Every span the passages write that may answer, with its best sentence's fit."""
    main, described = question.parts
    seen: dict[str, _Seen] = {}
    texts: dict[str, str] = {}
    asks_year = "year" in question.wh.split()
    for rank, passage in enumerate(passages):
        extra = [(passage.title, "TITLE")] + [(n, "NAME") for n in frame.names]
        for sentence in passage.sentences:
            norm = f" {normalize(sentence.text)} "
            words = stems(sentence.text) | frame.referents.get(sentence.id, set())
            overlap = len(main & words) + 0.25 * len(described & words)
            spans = list(sentence_spans(sentence.text))
            spans += [s for s in extra if f" {normalize(s[0])} " in norm]
            if asks_year:  # "April 20, 1945" answers "what year" as 1945, and only so
                spans = [s for s in spans if s[1] != "DATE"] + [
                    (y, "DATE") for sp, lab in spans if lab == "DATE" for y in YEAR.findall(sp)
                ]
            for span, label in spans:
                text = clean(span)
                effect = _effect(normalize(text), label, frame)
                if not _kept(question, text, label, effect, frame):
                    continue
                key = normalize(text)
                item = seen.setdefault(key, _Seen(rank=rank))
                texts.setdefault(key, text)
                item.labels.append(label)
                item.sentences.append(sentence.id)
                beside = around(sentence.text, text)
                own = stems(text)
                near = bool(question.head) and (question.head in own or question.head in beside)
                if frame.subject:  # "When was X born?", X's page retrieved: X's sentences
                    linked = frame.subject <= words or stems(passage.title) == frame.subject
                else:
                    linked = normalize(passage.title) in frame.hopped or any(
                        f" {b} " in norm for b in frame.bridges if b != key and b not in key
                    )
                close = min(len((main - own) & beside), 2) + (question.verb in beside)
                item.best = max(
                    item.best,
                    2.0 * overlap
                    + 5.0 * near
                    + 2.0 * close
                    + 3.0 * linked
                    + _CHAIN_EFFECT * effect,
                )
    return seen, texts


def _effect(key: str, label: str, frame: _Frame) -> float:
    """How much of a chain's last effect a verb phrase holds (0 for anything else)."""
    if label != "VP":
        return 0.0
    return max(
        (len(key.split()) / len(f.split()) for f in frame.finals if f" {key} " in f), default=0.0
    )


def _kept(question: Question, text: str, label: str, effect: float, frame: _Frame) -> bool:
    """Whether a span may answer: short, new information, of a kind the question can take."""
    if label == "VP" and question.expected != ACTIONS:
        return False
    if label in TIMES and not question.expected and question.head not in TIME_WORDS | {""}:
        return False  # "What sport …?" is never "11 May 1974"; "What era …?" may be a time
    if label in TIMES | NUMBERS and question.expected & (PEOPLE | PLACES):
        return False  # who or where is never a date or a count
    key = normalize(text)
    if not key or len(key.split()) > MAX_WORDS or f" {key} " in question.normalized:
        return False
    if '"' in text or "\\" in text:  # a grammar's enum cannot hold them safely
        return False
    if label in ("NP", "PROPN") and describes_name(text) and key not in frame.answered:
        return False  # "singer-songwriter Jonghyun": the name is a candidate of its own
    own = stems(text)
    repeated = own & question.words - {question.head}  # "Kestrel Pass" answers "which pass"
    # mostly words the question already uses: not new information, unless a unit's side
    # ("Aldous Brannock" built the mill) or a date or number
    return bool(
        effect
        or key in frame.answered
        or not own
        or not (2 * len(repeated) >= len(own) or own <= question.words)
        or label in (TIMES | NUMBERS)
    )


def _score(
    question: Question, seen: dict[str, _Seen], texts: dict[str, str], frame: _Frame
) -> list[Candidate]:
    """The collected spans ranked: type fit, best sentence, repetition, rank, unit support."""
    wanted = question.expected
    ranked = []
    for key, item in seen.items():
        typed = [lab for lab in item.labels if lab not in _UNTYPED]
        # the commonest type, ties to the first written (a set's order would vary run to run)
        label = max(typed, key=typed.count) if typed else item.labels[0]
        score = _fit(label, wanted) + item.best - 3.0 * (key in frame.bridges)
        if label == "NP" and " " not in key:  # "town", "place", "way": too vague to answer
            score -= 1.5
        if wanted == TIMES and not any(c.isdigit() for c in key):  # "his second season"
            score -= _VAGUE_TIME
        score += 0.3 * math.log(len(set(item.sentences))) - 0.1 * item.rank
        # the unit's whole side, or a name or number inside it ("Caldmere" in "port of Caldmere",
        # "1968" in "April 1968"), not a common word of it ("port" of "port town")
        named = not texts[key][:1].islower()
        score += _FACT * any(key == a or named and f" {key} " in f" {a} " for a in frame.answered)
        ranked.append(Candidate(texts[key], label, score, list(dict.fromkeys(item.sentences))))
    return sorted(ranked, key=lambda c: -c.score)[:MAX_CANDIDATES]


def _defines(unit: ReasoningUnit, subject: str) -> bool:
    """Is the unit an entity-type of the entity the question asks to define ("X | is a | Y")?"""
    return bool(subject) and unit.kind == "entity-type" and entity_key(unit.subject) == subject


@lru_cache(maxsize=4096)
def _lemmas(predicate: str) -> frozenset[str]:
    """A predicate's word lemmas cut to five letters: "died in" meets "die", "born in" "bear"."""
    return frozenset(t.lemma_.lower()[:5] for t in load_pipeline()(predicate) if t.is_alpha)


def _fact_answers(
    question: Question, units: Iterable[ReasoningUnit], hopped: set[str]
) -> list[tuple[str, ReasoningUnit]]:
    """The other side of each unit about an entity the question names (or a hop resolved)."""
    if not question.main_argument:
        return []
    asked, verb, main = question.normalized, question.verb, question.parts[0]
    found: list[tuple[str, ReasoningUnit]] = []
    for unit in units:
        subject, predicate, obj = unit.subject, unit.predicate, unit.object
        if not (stems(predicate) & main or verb and verb in _lemmas(predicate)):
            continue
        sides = [(normalize(subject), subject), (normalize(obj), obj)]
        for (mine, written), (other, _) in (sides, sides[::-1]):
            if not (mine and other and written[:1].isupper()):
                continue  # "the song", "the magazine": a kind of thing, not the one asked about
            if (f" {mine} " in asked or mine in hopped) and f" {other} " not in asked:
                found.append((other, unit))
    return found


def _bridges(question: Question, passages: Sequence[Passage]) -> set[str]:
    """What the question's description resolves to: names in the sentences that best match it.

    "the fish celebrated by the Lantern Run festival" → "The Lantern Run celebrates the
    silverfin" → silverfin. The answer is said about the bridge, and is not the bridge itself.
    """
    described = question.parts[1]
    scored = [(len(described & stems(s.text)), s.text) for p in passages for s in p.sentences]
    best = max((n for n, _ in scored), default=0)
    found: set[str] = set()
    for n, text in scored:
        if best >= 2 and n == best:
            for span, label in sentence_spans(text):
                key = normalize(clean(span))
                if key and label != "VP" and f" {key} " not in question.normalized:
                    found.add(key)
    return found


def _fit(label: str, wanted: frozenset[str]) -> float:
    """How well a span's kind fits the expected answer type."""
    if wanted:
        if label in wanted:
            return 4.0
        if label in _UNTYPED and label != "NP" and wanted & (PEOPLE | PLACES):
            return 2.0
        return -1.0 if label in _UNTYPED else -2.0
    return {"NP": 1.0, "TITLE": 1.5, "NAME": 1.5, "PROPN": 1.5}.get(label, 1.0)
