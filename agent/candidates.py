"""Grounded answer candidates: the spans a short answer may be, drawn from the passages themselves.

A 135M model cannot write a faithful answer, but it can pick one from a short list. The list is
built by code from what the composed passages actually say — named entities, dates and numbers,
noun phrases, document titles, names the buffer's units carry — and ranked by how well each fits
the question: its expected answer type (who → a person, when → a date, how many → a number) and
how many of the question's words its sentence shares. Yes/no questions get yes and no; "A or B"
questions get their options. Candidates the question itself names are dropped: an answer is new
information. What the question asks for is read by `agent.questions`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from agent.questions import (
    ACTIONS,
    MAX_WORDS,
    NUMBERS,
    PEOPLE,
    PLACES,
    TIMES,
    answer_head,
    asks_main_argument,
    defined_subject,
    expected_labels,
    is_yes_no,
    question_options,
    question_parts,
    question_verb,
    wh_phrase,
)
from indexes.documents import Passage
from indexes.lexical import stems
from indexes.nlp_extraction import load_pipeline
from indexes.units import ReasoningUnit, entity_key, normalize

YES_NO = ("yes", "no")
# Spans whose entity type the parser did not give: noun phrases, proper nouns, titles, unit names.
_UNTYPED = frozenset({"NP", "PROPN", "TITLE", "NAME"})
# Candidates shown to the model: enough to hold the answer, few enough for a short prompt.
MAX_CANDIDATES = 10
_VAGUE_TIME = 5.0
_MAX_VERB_WORDS = 6
# A verb phrase that is the last effect of a cause → effect chain found for the question's cause
# and thing affected outranks any phrase that merely shares the question's words (the cause's
# own sentence shares most of them); the more of the effect it holds, the better.
_CHAIN_EFFECT = 50.0
# A candidate that a typed unit gives as the other side of the question's own verb ("Hessa Varn |
# born in | port of Caldmere" for "Where was Hessa Varn born?") is as sure a sign as the noun the
# question asks for written beside it.
_FACT = 5.0
_YEAR = re.compile(r"\b(?:1\d{3}|20\d{2})\b")
# Date comparisons the passages' years can settle.
_EARLIER = re.compile(r" (?:older|oldest|first|earlier|earliest|sooner|predates?|before) ")
_LATER = re.compile(
    r" (?:younger|youngest|later|latest|newer|newest|more recent|most recent|last) "
)
_LONGER = re.compile(r" lived (?:longer|the longest) ")


@dataclass
class Candidate:
    """One possible short answer, where it is written and how well it fits the question."""

    text: str
    label: str
    score: float = 0.0
    sentences: list[str] = field(default_factory=list)  # ids of the sentences that write it


@lru_cache(maxsize=4096)
def sentence_spans(text: str) -> tuple[tuple[str, str], ...]:
    """(span, label) pairs of one sentence: named entities, noun phrases, verb phrases."""
    doc = load_pipeline()(text)
    found = [(e.text, e.label_) for e in doc.ents]
    for verb in doc:
        if verb.pos_ != "VERB" or verb.dep_ not in ("ROOT", "conj", "relcl", "advcl", "xcomp"):
            continue
        end = verb.i  # the verb with its particle, object or complement: "stops spawning"
        for child in verb.rights:
            if child.dep_ in ("prt", "dobj", "xcomp", "acomp", "attr", "oprd", "prep", "dative"):
                last = max(t.i for t in child.subtree)
                if last - verb.i >= _MAX_VERB_WORDS:
                    break
                end = last
                if child.dep_ != "prt":
                    break
        found.append((doc[verb.i : end + 1].text, "VP"))
    for chunk in doc.noun_chunks:
        words = [t for t in chunk if t.pos_ not in ("DET", "PRON") and not t.is_punct]
        if words and any(t.pos_ in ("NOUN", "PROPN") for t in words):
            label = "PROPN" if chunk.root.pos_ == "PROPN" else "NP"
            found.append((doc[words[0].i : words[-1].i + 1].text, label))
    return tuple(found)


def _clean(span: str) -> str:
    span = re.sub(r"^(?:the|a|an)\s+", "", span.strip(" ,.;:'\"()[]"), flags=re.I)
    return span.strip(" ,.;:'\"()[]")


def _around(sentence: str, span: str, window: int = 4) -> set[str]:
    """The words (cut to five letters) written within `window` words of the span."""
    words = [w[:5] for w in normalize(sentence).split()]
    target = [w[:5] for w in normalize(span).split()]
    found: set[str] = set()
    for i in range(len(words) - len(target) + 1):
        if target == words[i : i + len(target)]:
            found.update(words[max(0, i - window) : i])
            found.update(words[i + len(target) : i + len(target) + window])
    return found


@dataclass
class _Seen:
    labels: list[str] = field(default_factory=list)
    sentences: list[str] = field(default_factory=list)
    best: float = 0.0  # the best sentence's fit: its features must meet in one sentence
    rank: int = 0


def candidates(
    question: str,
    passages: Sequence[Passage],
    names: Iterable[str] = (),
    bridges: Iterable[str] = (),
    effects: Iterable[str] = (),
    units: Sequence[ReasoningUnit] = (),
) -> list[Candidate]:
    """Ranked answer candidates for the question, every one written in a passage sentence.

    A candidate's score adds: how well its entity type fits the question word, how many question
    words its best sentence shares, whether the noun the question asks for stands next to it
    ("which port" → "the port of Caldmere"), and how often the passages write it. `names` are
    entity names the evidence carries (unit subjects and objects). `effects` are the last
    effects of chains from the question's cause to the thing it asks about: for "what happens"
    questions, a verb phrase inside one ("cancels the festival") is the answer even though it
    repeats the question's words. `units` are the evidence's typed units:
    one whose predicate is the question's verb and whose one side the question names answers
    with its other side, and its sentence is read with the referent the unit resolved for a
    pronoun ("She died in 1937" is about Hessa Varn). "Who was X?" and "What is X?" are answered
    by X's entity-type units alone ("Hessa Varn | is a | civil engineer"), when there are any.
    """
    options = question_options(question)
    if options:
        return compared(question, options, passages) or _mentioned(options, passages, "OPTION")
    if is_yes_no(question):
        return [Candidate(text, "YESNO") for text in YES_NO]
    defined = entity_key(defined_subject(question))
    kinds: dict[str, ReasoningUnit] = {}  # each type once, the best-ranked unit first
    for unit in units:
        if _defines(unit, defined):
            kinds.setdefault(normalize(unit.object), unit)
    if kinds:  # "Who was Hessa Varn?" asks what she was: her entity-type units say it
        return [
            Candidate(u.object, "TYPE", float(len(kinds) - i), list(u.sentence_ids))
            for i, u in enumerate(kinds.values())
        ]
    asked = stems(question)
    asked_norm = f" {normalize(question)} "
    wanted, head = expected_labels(question), answer_head(question)
    names = [n for n in names if n]
    main, described = question_parts(question)
    verb = question_verb(question)
    asks_year = "year" in wh_phrase(question).split()
    finals = [f" {normalize(e)} " for e in effects] if wanted == ACTIONS else []
    hopped = {normalize(b) for b in bridges} - {""}  # what the agent's hops resolved
    bridges = _bridges(described, asked_norm, passages) | hopped
    facts = _fact_answers(question, units, hopped, main)
    answered = [answer for answer, _ in facts]
    referents: dict[str, set[str]] = {}  # "She died in 1937", read as the answering unit does
    for _, unit in facts:
        if unit.resolved:
            for sid in unit.sentence_ids:
                referents.setdefault(sid, set()).update(stems(unit.subject))
    seen: dict[str, _Seen] = {}
    texts: dict[str, str] = {}
    for rank, passage in enumerate(passages):
        extra = [(passage.title, "TITLE")] + [(n, "NAME") for n in names]
        for sentence in passage.sentences:
            norm = f" {normalize(sentence.text)} "
            words = stems(sentence.text) | referents.get(sentence.id, set())
            overlap = len(main & words) + 0.25 * len(described & words)
            spans = list(sentence_spans(sentence.text))
            spans += [s for s in extra if f" {normalize(s[0])} " in norm]
            if asks_year:  # "April 20, 1945" answers "what year" as 1945, and only so
                spans = [s for s in spans if s[1] != "DATE"] + [
                    (y, "DATE") for sp, lab in spans if lab == "DATE" for y in _YEAR.findall(sp)
                ]
            for span, label in spans:
                if label == "VP" and wanted != ACTIONS:
                    continue
                text = _clean(span)
                key = normalize(text)
                if not key or len(key.split()) > MAX_WORDS or f" {key} " in asked_norm:
                    continue
                if '"' in text or "\\" in text:  # a grammar's enum cannot hold them safely
                    continue
                own = stems(text)
                repeated = own & asked - {head}  # "Kestrel Pass" answers "which pass"
                effect = max(
                    (len(key.split()) / len(f.split()) for f in finals if f" {key} " in f),
                    default=0.0,
                )
                effect = effect if label == "VP" else 0.0
                if (
                    not effect
                    and key not in answered  # a unit's side: "Aldous Brannock" built the mill
                    and own
                    and (2 * len(repeated) >= len(own) or own <= asked)
                    and label not in (TIMES | NUMBERS)
                ):
                    continue  # mostly words the question already uses: not new information
                item = seen.setdefault(key, _Seen(rank=rank))
                texts.setdefault(key, text)
                item.labels.append(label)
                item.sentences.append(sentence.id)
                around = _around(sentence.text, text)
                near = bool(head) and (head in own or head in around)
                linked = normalize(passage.title) in hopped or any(
                    f" {b} " in norm for b in bridges if b != key and b not in key
                )
                close = min(len((main - own) & around), 2) + (verb in around)
                item.best = max(
                    item.best,
                    2.0 * overlap
                    + 5.0 * near
                    + 2.0 * close
                    + 3.0 * linked
                    + _CHAIN_EFFECT * effect,
                )
    ranked = []
    for key, item in seen.items():
        typed = [lab for lab in item.labels if lab not in _UNTYPED]
        # the commonest type, ties to the first written (a set's order would vary run to run)
        label = max(typed, key=typed.count) if typed else item.labels[0]
        score = _fit(label, wanted) + item.best - 3.0 * (key in bridges)
        if label == "NP" and " " not in key:  # "town", "place", "way": too vague to answer
            score -= 1.5
        if wanted == TIMES and not any(c.isdigit() for c in key):  # "his second season"
            score -= _VAGUE_TIME
        score += 0.3 * math.log(len(set(item.sentences))) - 0.1 * item.rank
        # the unit's whole side, or a name or number inside it ("Caldmere" in "port of Caldmere",
        # "1968" in "April 1968"), not a common word of it ("port" of "port town")
        named = not texts[key][:1].islower()
        score += _FACT * any(key == a or named and f" {key} " in f" {a} " for a in answered)
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
    question: str, units: Iterable[ReasoningUnit], hopped: set[str], main: frozenset[str]
) -> list[tuple[str, ReasoningUnit]]:
    """The other side of each unit about an entity the question names (or a hop resolved)."""
    if not asks_main_argument(question):
        return []
    asked, verb = f" {normalize(question)} ", question_verb(question)  # lru-cached
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


def _bridges(described: frozenset[str], asked_norm: str, passages: Sequence[Passage]) -> set[str]:
    """What the question's description resolves to: names in the sentences that best match it.

    "the fish celebrated by the Lantern Run festival" → "The Lantern Run celebrates the
    silverfin" → silverfin. The answer is said about the bridge, and is not the bridge itself.
    """
    scored = [(len(described & stems(s.text)), s.text) for p in passages for s in p.sentences]
    best = max((n for n, _ in scored), default=0)
    found: set[str] = set()
    for n, text in scored:
        if best >= 2 and n == best:
            for span, label in sentence_spans(text):
                key = normalize(_clean(span))
                if key and label != "VP" and f" {key} " not in asked_norm:
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


def _option_years(
    option: str, main: frozenset[str], passages: Sequence[Passage]
) -> tuple[list[int], str]:
    """The years of the first sentence naming an option, and that sentence's id.

    "Who was born first, A or B?": A's page writes "A (born 12 May 1950) …"; "Which was founded
    first …": "B was founded in 1818 …". The year written nearest a question word ("born",
    "founded") leads; the option's own page (its title) is read before others.
    """
    key = normalize(_clean(option))
    pages = sorted(passages, key=lambda p: normalize(p.title) != key)
    for passage in pages:
        own = normalize(passage.title) == key
        for sentence in passage.sentences:
            if not own and f" {key} " not in f" {normalize(sentence.text)} ":
                continue
            years = [int(y) for y in _YEAR.findall(sentence.text)]
            if years:
                near = [y for y in years if main & _around(sentence.text, str(y), 6)]
                return near[:1] + [y for y in years if y not in near[:1]], sentence.id
    return [], ""


def compared(question: str, options: Sequence[str], passages: Sequence[Passage]) -> list[Candidate]:
    """The option a date comparison picks ("born first", "younger", "lived longer"), first.

    Labelled COMPARED: computed from the years the passages write, not guessed. Empty when the
    passages lack either option's years or the question compares something else.
    """
    words = f" {normalize(question)} "
    if _LONGER.search(words):
        measure = "span"
    elif _EARLIER.search(words):
        measure = "first"
    elif _LATER.search(words):
        measure = "last"
    else:
        return []
    main = question_parts(question)[0]
    found = [_option_years(o, main, passages) for o in options]
    years = [y for y, _ in found]
    if measure == "span":  # "(9 April 1948 – 15 April 1989)"
        years = [sorted(y[:2]) for y in years]
        values = [y[1] - y[0] if len(y) > 1 else None for y in years]
    else:
        values = [y[0] if y else None for y in years]
    known = [v for v in values if v is not None]
    if len(known) < len(values) or len(set(known)) < len(known):
        return []
    pick = known.index((max if measure in ("span", "last") else min)(known))
    ranked = _mentioned(options, passages, "OPTION")
    for candidate, (_, sentence_id) in zip(ranked, found, strict=True):
        candidate.sentences = [sentence_id]  # the sentence whose year was compared
    ranked[pick].label, ranked[pick].score = "COMPARED", float("inf")
    return sorted(ranked, key=lambda c: c.label != "COMPARED")


def listed(question: str, options: Sequence[str], passages: Sequence[Passage]) -> list[Candidate]:
    """A multiple-choice question's options, best supported first.

    An option's support is the share of its words a sentence writes, weighted by how many of the
    question's words that sentence shares: options are rarely written word for word.
    """
    asked = stems(question)
    pool = [(s.id, stems(s.text)) for p in passages for s in p.sentences]
    out = []
    for text in options:
        own = stems(text) or {normalize(text)}
        support = [(len(own & w) / len(own) * (1 + len(asked & w)), sid) for sid, w in pool]
        ids = [sid for score, sid in sorted(support, reverse=True) if score > 0]
        out.append(Candidate(text, "OPTION", max((s for s, _ in support), default=0.0), ids))
    return sorted(out, key=lambda c: -c.score)


def _mentioned(texts: Sequence[str], passages: Sequence[Passage], label: str) -> list[Candidate]:
    """Fixed candidates (a question's options), with the sentences that name them."""
    out = []
    for text in texts:
        key = normalize(_clean(text))
        ids = [s.id for p in passages for s in p.sentences if key and key in normalize(s.text)]
        out.append(Candidate(_clean(text), label, float(len(ids)), ids))
    return out
