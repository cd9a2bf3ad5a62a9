"""One answer per hop: the span of its expected type that the hop's sentences write beside its relation.

A hop asks one thing about one subject ("What is the place of birth of Mario Bonnard?"). Its
answer is read in two steps, as RESIN reads a one-hop need:

1. units: a unit about the subject whose predicate writes the relation ("Mario Bonnard | born
   in | Rome") offers its other side;
2. sentences: every span of the expected type in the subject's own passages and in the passages
   the hop's search found.

Both meet in one ranking: each candidate's features (below) are weighed by a conditional logit
fit on the shared dev sets' hops (`evals/fit_ranking.py`, weights in `agent/reading/hop_ranking.json`).
The features read words and the parse, and the embedder's reading of which sentence asks what
the hop asks (its cosine with the question); the weights were fit with the default embedder
(MiniLM), whose cosines another embedder's only approximate.
A person hop never answers with a nationality, a date hop never with a name: spans of another
type are never candidates. Below the fitted threshold, the hop has no answer (nothing is invented).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from resin.agent.language.forms import answer_head
from resin.agent.language.relations import (
    TYPE_LABELS,
    AnswerType,
    kin_frame,
    relation_head,
    relation_words,
    role_words,
)
from resin.agent.language.spans import describes_name, parse, sentence_spans
from resin.indexes.documents import Passage
from resin.indexes.lexical import stems
from resin.indexes.units import ReasoningUnit, entity_key, normalize

WEIGHTS_FILE = Path(__file__).with_name("hop_ranking.json")
# The features of a candidate, in the order of the fitted weights.
FEATURES = (
    "typed",  # its span carries an entity label of the expected type
    "loose",  # an untyped name accepted for a type the parser often misses (person, work, org)
    "own",  # written in the subject's own passage
    "names_subject",  # its sentence names the subject (or is in the subject's own passage)
    "relation_near",  # relation words within four words of it (up to 2)
    "relation_before",  # a relation word among the three words before it ("son of X", "born in X")
    "relation_sentence",  # a relation word anywhere in its sentence
    "overlap",  # share of the hop question's words its sentence writes
    "unit",  # a unit about the subject with the relation gives it as its other side
    "first_sentence",  # written in its passage's first sentence
    "first_of_type",  # the first span of its type in its sentence
    "frequency",  # log of the number of sentences that write it
    "rank",  # 1 / (1 + rank of its passage)
    "slot",  # a date or place in the slot the relation names: "(1868, Graz – 1937, Paris)"
    "after_by",  # written after "by" ("directed by X", "recorded by country music artist X")
    "linked",  # at most two parse arcs from a relation word ("X composed", "born in X")
    "is_title",  # it is its passage's own title (the page is about it, not its answer)
    "in_question",  # it shares words with the hop question
    "head",  # it holds the noun the hop asks for ("which pass" → "Kestrel Pass")
    "kin",  # written in its kin relation's frame ("son of A and his wife X" for a mother)
    "proper",  # a name: an entity label or a capital letter, not a common noun phrase
    "nested",  # a longer candidate of its sentence holds it ("Saxony" in "Saxony-Anhalt")
    "narrower",  # a place a wider one follows ("Tucson, Arizona") where no country is asked
    "broadest",  # the last place of a chain ("…, Arizona, United States") where a country is asked
    "broadest_unasked",  # the last place of a chain where a narrower place is asked
    "holds_asked",  # a longer name holding the subject or an earlier hop's name ("X Président")
    "most_similar",  # its sentence is, of the hop's sentences, the nearest the question by meaning
    "similar_gap",  # its sentence's cosine with the question less the nearest sentence's
    "country",  # a country's name where a country or nationality is asked
    "country_unasked",  # a country's name where a narrower place is asked ("which county")
    "country_not_place",  # a country's name where no place is asked
)
_WINDOW = 4
MONTHS = tuple(
    "january february march april may june july august september october november december".split()
)
_MONTH = rf"(?:{'|'.join(m.capitalize() for m in MONTHS)})"
# Dates as biographies write them: "4 May 1974", "May 4, 1974", "May 1974", "1974".
_DATES = re.compile(
    rf"\b(?:\d{{1,2}} {_MONTH},? \d{{3,4}}|{_MONTH} \d{{1,2}},? \d{{3,4}}|{_MONTH} \d{{3,4}}|"
    r"(?<![\d.,])\d{3,4}(?![\d.,]))\b"
)
# A span naming a point in the calendar ("1714", "the 1970s", "May 1974", "start of the 20th
# century"): a date, never a count ("5 years" is one).
_CALENDAR = re.compile(
    rf"(?<!\d)(?:1\d{{3}}|20\d{{2}})(?!\d)|\b\d{{1,2}}(?:st|nd|rd|th)[- ]centur|\b{_MONTH}\b", re.I
)
# A count made a modifier ("a three-act opera", "a 2-year term"): no count of its own
# ("twenty-two" is one).
_MODIFIER = re.compile(r"\S+-(?!(?:one|two|three|four|five|six|seven|eight|nine)\b)[a-z]+", re.I)
_MONTH_WORDS = frozenset(MONTHS)
_DATE_RANGE = re.compile(r"\(([^()]*\d{3,4}[^()]*?)\s*[–—-]+\s*([^()]*\d{3,4}[^()]*)\)")
_TIME_LABELS = frozenset({"DATE", "TIME"})
# Relation words that let an untyped hop answer with a time ("the era of X", "the year of X").
_TIME_WORDS = frozenset(
    w[:5]
    for w in "era period age time times reign season term duration when year date decade "
    "century day".split()
)
_NATIONALITY = frozenset({"nationality", "citizenship", "country of citizenship", "country"})
_ASKS_COUNTRY = re.compile(r"\b(?:country|countries|nation|nationality|citizenship)\b", re.I)
_PLACE_LABELS = frozenset({"GPE", "LOC"})
# Types the small parser often leaves untyped: a capitalized span may still answer them.
_LOOSE: dict[str, frozenset[str]] = {
    "person": frozenset({"PROPN", "ORG", "TITLE", "NAME"}),
    "work": frozenset({"PROPN", "PERSON", "TITLE", "NAME"}),
    "organization": frozenset({"PROPN", "TITLE", "NAME", "PERSON", "GPE"}),
    "place": frozenset({"PROPN", "TITLE", "NAME", "ORG"}),
}


@dataclass
class HopAnswer:
    """One candidate answer of a hop, where it is written and how sure the ranking is."""

    text: str
    passage_id: str
    sentence_id: str
    score: float
    via: str = "sentence"
    features: dict[str, float] = field(default_factory=dict)


@dataclass(frozen=True)
class Ranking:
    """The fitted conditional logit: a weight per feature and the answer threshold.

    The weights order one hop's candidates (`evals/fit_ranking.py` fits them per hop); the
    threshold, chosen on the folds' best candidates, is where a hop is left without an answer.
    """

    weights: tuple[float, ...]
    threshold: float

    def score(self, features: dict[str, float]) -> float:
        """The logit squashed to (0, 1): a candidate's standing, comparable to the threshold."""
        z = sum(w * features.get(f, 0.0) for f, w in zip(FEATURES, self.weights, strict=True))
        return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))


@cache
def ranking() -> Ranking:
    """The shipped weights (`evals/fit_ranking.py` writes them)."""
    data = json.loads(WEIGHTS_FILE.read_text(encoding="utf-8"))
    if list(data["features"]) != list(FEATURES):
        raise ValueError(f"{WEIGHTS_FILE} was fit on other features: refit it")
    return Ranking(tuple(data["weights"]), float(data["threshold"]))


def labels_for(answer_type: AnswerType, relation: str) -> frozenset[str]:
    """Entity labels an answer may carry: a country or nationality may be an adjective."""
    if relation_head(relation) in _NATIONALITY:
        return frozenset({"NORP", "GPE"})
    if answer_type == "other" and relation_words(relation) & _TIME_WORDS:
        return _TIME_LABELS
    return TYPE_LABELS[answer_type]


def _fits(label: str, text: str, answer_type: AnswerType, allowed: frozenset[str]) -> str:
    """'typed', 'loose' or '' (not a candidate) for a span of this label.

    Any span but a verb phrase may answer an untyped hop, except a time where the relation asks
    for none: "What is the religion of X?" is never "26 February 1906". `allowed` then holds the
    time labels where it does ("What was the era …"), and is empty where it does not.
    """
    if answer_type == "other":
        timed = label in _TIME_LABELS or bool(_CALENDAR.search(text))  # "26 February" too
        return "" if label == "VP" or timed and not allowed else "typed"
    if label in allowed:
        if answer_type == "date" and not any(c.isdigit() for c in text):
            return ""
        if answer_type == "number" and (
            label == "DATE" and _CALENDAR.search(text) or _MODIFIER.fullmatch(text)
        ):
            return ""  # "how many times" is no year ("the plague struck in 1714") nor "three-act"
        return "typed"
    if label in _LOOSE.get(answer_type, frozenset()):
        return "loose" if text[:1].isupper() else ""
    return ""


def _near(sentence: str, span: str, words: frozenset[str]) -> int:
    """How many relation words are written within a few words of the span."""
    tokens = normalize(sentence).split()
    target = normalize(span).split()
    found = 0
    for i in range(len(tokens) - len(target) + 1):
        if tokens[i : i + len(target)] == target:
            around = (
                tokens[max(0, i - _WINDOW) : i]
                + tokens[i + len(target) : i + len(target) + _WINDOW]
            )
            found = max(found, len({w[:5] for w in around} & words))
    return min(found, 2)


def _before(sentence: str, span: str, words: frozenset[str]) -> bool:
    """Is a relation word among the three words written just before the span?"""
    tokens = normalize(sentence).split()
    target = normalize(span).split()
    for i in range(len(tokens) - len(target) + 1):
        if (
            tokens[i : i + len(target)] == target
            and {w[:5] for w in tokens[max(0, i - 3) : i]} & words
        ):
            return True
    return False


# A rank a name carries as part of itself: "Charles, Duke of Vendôme", "Thomas FitzGerald, 7th
# Earl of Desmond". Alone, the rank word is no name.
_RANKS = (
    "Duke|Duchess|Count|Countess|Earl|Baron|Baroness|Viscount|Viscountess|Marquess|Marquis|"
    "Marchioness|Prince|Princess|King|Queen|Lord|Lady|Emperor|Empress|Margrave|Landgrave|Elector|"
    "Electress|Grand Duke|Grand Duchess|Archduke|Archduchess|Bishop|Archbishop|Sultan|Khan"
)
_RANK_ALONE = re.compile(rf"^(?:\d+(?:st|nd|rd|th)\s+)?(?:{_RANKS})$", re.I)
_STYLED = re.compile(
    rf"^,\s+(?:the\s+)?(?:\d+(?:st|nd|rd|th)\s+)?(?:{_RANKS})\s+of\s+"
    r"[A-Z][\w'’-]*(?:(?:\s+|-)(?:of\s+|the\s+)?[A-Z][\w'’-]*)*"
)


def _styled(text: str, spans: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """Names with the rank written after them ("Albert III, Count of Namur") as one span.

    A rank makes the name a person's, whatever label the parser gave it.
    """
    out = []
    for span, label in spans:
        if _RANK_ALONE.match(span):
            continue
        if label in ("PERSON", "PROPN", "ORG") and (at := text.find(span)) >= 0:
            styled = _STYLED.match(text[at + len(span) :])
            if styled:
                span, label = span + styled.group(0), "PERSON"
        out.append((span, label))
    return out


def spans_of(text: str) -> list[tuple[str, str]]:
    """A sentence's spans and labels: the parser's, with every written date as a DATE.

    A noun chunk the parser also read as an entity of another label keeps that label only; a
    name keeps the rank written after it.
    """
    parsed = _styled(text, list(sentence_spans(text)))
    labelled = {normalize(s): lab for s, lab in parsed if lab not in ("NP", "PROPN", "VP")}
    out = [
        (s, lab) for s, lab in parsed if lab not in ("NP", "PROPN") or normalize(s) not in labelled
    ]
    out = [(s, lab) for s, lab in out if normalize(s) not in _MONTH_WORDS]
    out += [(m.group(0), "DATE") for m in _DATES.finditer(text)]
    return out


# A number written as a catalogue or serial number: after an abbreviation in capitals ("RV 728",
# "BWV 831") or after "No."/"Op." ("Op. 3").
_CATALOGUE = r"(?:\b[A-Z]{1,5}\.?|\b(?:No|Nos|Op|Nr)\.)\s+"


# A unit written with a number: the number measures something ("a 4080 ft peak", "1.83 km").
_UNIT = (
    r"(?:ft|feet|foot|m|metres?|meters?|km|kilometres?|kilometers?|mi|miles?|acres?|hectares?|"
    r"ha|sq|square|kg|kilograms?|lb|lbs|pounds?|tons?|tonnes?|%|percent|per cent|mph)"
)
# Relation words that ask for a measure, where a unit belongs to the answer.
_MEASURES = frozenset(
    w[:5]
    for w in "height tall long length distance far area size elevation altitude depth deep wide "
    "width weight heavy speed capacity volume prominence percent percentage share rate "
    "proportion".split()
)


def _measured(sentence: str, span: str) -> bool:
    """Is the number written with a unit ("4080 ft", "1.83 km")? Then it counts nothing."""
    if not span[:1].isdigit():
        return False
    if re.search(rf"\d\s*{_UNIT}$", span, flags=re.I):
        return True
    at = sentence.find(span)
    return at >= 0 and bool(
        re.match(rf"\s*(?:\(\S+\)\s*)?{_UNIT}\b", sentence[at + len(span) :], re.I)
    )


def _catalogued(sentence: str, span: str) -> bool:
    """Is every place the sentence writes the number one that catalogues rather than counts?"""
    if not span[:1].isdigit():
        return False
    at = [m.start() for m in re.finditer(rf"(?<![\w.]){re.escape(span)}(?!\w)", sentence)]
    return bool(at) and all(re.search(_CATALOGUE + "$", sentence[:i]) for i in at)


def _slot(sentence: str, span: str, relation: str) -> bool:
    """Is the date or place in the parenthetical slot its relation names?

    Biographies write birth first and death second ("(1868 – 1937)", "(6 June 1906, Graz –
    2 November 1994, Paris)"), or "(born … in Place)".
    """
    words = relation_words(relation)
    match = _DATE_RANGE.search(sentence)
    key = normalize(span)
    if match:
        first, second = normalize(match.group(1)), normalize(match.group(2))
        if words & {"born", "birth"}:
            return key in first
        if words & {"died", "death", "die"}:
            return key in second
    if words & {"born", "birth"}:
        return bool(re.search(r"\(\s*born\b[^()]*" + re.escape(span), sentence))
    return False


# A hop as the planner writes it: "What is the busiest airport in #1?", "What is the record
# label that #1 belongs to?". The noun before the preposition or clause is what it asks for.
_HOP_HEAD = re.compile(
    r"^(?:what|which) (?:is|was|are|were) the (?:[a-z]+ )*?([a-z]+) "
    r"(?:of|in|on|at|for|from|by|to|that|which|who|whom|where|whose)\b"
)


def hop_head(question: str) -> str:
    """The noun a hop asks for, cut to five letters: "which pass", "the busiest *airport* in"."""
    found = _HOP_HEAD.match(normalize(question))
    return answer_head(question) or (found.group(1)[:5] if found else "")


def _linked(sentence: str, span: str, words: frozenset[str]) -> bool:
    """Is the span at most two parse arcs from a relation word ("X composed", "composed by X")?

    Reads the sentence's grammar where `relation_near` reads its word order: "Vivaldi, who was
    born in Venice in 1678, composed …" links Vivaldi to "composed" however far apart.
    """
    doc = parse(sentence)
    at = sentence.find(span)
    inside = doc.char_span(at, at + len(span), alignment_mode="expand") if at >= 0 else None
    if inside is None or not words:
        return False
    reached = {t.i for t in inside}
    frontier = list(inside)
    for _ in range(2):  # two arcs out from the span, up to heads and down to children
        frontier = [n for t in frontier for n in (t.head, *t.children) if n.i not in reached]
        reached.update(n.i for n in frontier)
        if any(t.lower_[:5] in words or t.lemma_.lower()[:5] in words for t in frontier):
            return True
    return False


def _after_by(sentence: str, span: str) -> bool:
    """Is the span written after "by", at most four words between ("by American singer X")?"""
    words, target = normalize(sentence).split(), normalize(span).split()
    return any(
        words[at + gap : at + gap + len(target)] == target
        for at, word in enumerate(words, start=1)
        if word == "by"
        for gap in range(5)
    )


def unit_answers(
    units: Sequence[ReasoningUnit], subject: str, relation: str
) -> dict[str, ReasoningUnit]:
    """The other side of each unit about the subject whose predicate writes the relation."""
    key, words = entity_key(subject), relation_words(relation)
    found: dict[str, ReasoningUnit] = {}
    if not key or not words:
        return found
    for unit in units:
        if unit.kind not in ("relation", "entity-fact") or not stems(unit.predicate) & words:
            continue
        for mine, other in ((unit.subject, unit.object), (unit.object, unit.subject)):
            if mine and other and entity_key(mine) == key:
                found.setdefault(normalize(other), unit)
    return found


def read_hop(
    question: str,
    subject: str,
    relation: str,
    answer_type: AnswerType,
    passages: Sequence[Passage],
    own: set[str],
    units: Sequence[ReasoningUnit] = (),
    not_answers: Sequence[str] = (),
    similarity: Mapping[str, float] | None = None,
) -> list[HopAnswer]:
    """The hop's candidate answers, best first, each with the features it was ranked by.

    `passages` are in retrieval order; `own` holds the ids of the subject's own passages;
    `not_answers` are names this hop may not answer with (what the hops before it asked about);
    `similarity` is each sentence's cosine with the question, by sentence id
    (`IndexReads.sentence_similarity`), the embedder's reading of which sentence answers.
    """
    allowed = labels_for(answer_type, relation)
    rel_words = relation_words(relation)
    role = role_words(relation) if answer_type == "person" else frozenset()
    asked = stems(question)
    asked_norm = f" {normalize(question)} "
    head = hop_head(question)
    subject_key = entity_key(subject)
    mentions_country = bool(
        _ASKS_COUNTRY.search(question) or relation_head(relation) in _NATIONALITY
    )
    asks_country = answer_type == "place" and mentions_country
    countries = country_names()
    excluded = {entity_key(n) for n in not_answers} - {""}
    held_names = excluded | ({subject_key} - {""})
    by_unit = unit_answers(units, subject, relation)
    similarity = similarity or {}
    nearest = max(similarity.values(), default=0.0)
    best: dict[str, HopAnswer] = {}
    sentences_of: dict[str, set[str]] = {}
    for rank, passage in enumerate(passages):
        is_own = passage.id in own
        title_key = entity_key(passage.title)
        for position, sentence in enumerate(passage.sentences):
            norm = f" {normalize(sentence.text)} "
            words = stems(sentence.text)
            names_subject = is_own or bool(subject_key) and f" {subject_key} " in norm
            overlap = len(asked & words) / max(1, len(asked))
            cosine = similarity.get(sentence.id, nearest)
            seen_types: set[str] = set()
            spans = spans_of(sentence.text)
            places = (
                [s for s, lab in spans if lab in _PLACE_LABELS] if answer_type == "place" else []
            )
            for span, label in spans:
                fit = _fits(label, span, answer_type, allowed)
                text = span.strip(" ,.;:'\"()[]-–—")
                text = re.sub(r"^(?:the|a|an)\s+", "", text, flags=re.I)
                text = re.sub(r"['’]s$", "", text)
                key = normalize(text)
                if not fit or not key or key == subject_key or key in subject_key.split():
                    continue
                if label in ("NP", "PROPN") and describes_name(text):
                    continue  # "Scottish reformer John Knox": the name is a candidate of its own
                if f" {key} " in asked_norm or key in excluded:
                    continue  # the question's own words are no answer
                if answer_type == "number" and _catalogued(sentence.text, text):
                    continue  # "RV 728", "Op. 3": a catalogue number counts nothing
                if (
                    answer_type == "number"
                    and not rel_words & _MEASURES
                    and _measured(sentence.text, text)
                ):
                    continue  # a population is no "4080 ft" peak
                sentences_of.setdefault(key, set()).add(sentence.id)
                features = {
                    "typed": float(fit == "typed"),
                    "loose": float(fit == "loose"),
                    "own": float(is_own),
                    "names_subject": float(names_subject),
                    "relation_near": float(_near(sentence.text, text, rel_words)),
                    "relation_before": float(_before(sentence.text, text, rel_words)),
                    "relation_sentence": float(bool(rel_words & words)),
                    "overlap": overlap,
                    "unit": float(key in by_unit),
                    "first_sentence": float(position == 0),
                    "first_of_type": float(fit not in seen_types),
                    "rank": 1.0 / (1 + rank),
                    "slot": float(
                        answer_type in ("date", "place") and _slot(sentence.text, text, relation)
                    ),
                    "after_by": float(_after_by(sentence.text, text)),
                    "linked": float(_linked(sentence.text, text, rel_words)),
                    "is_title": float(key == title_key),
                    "in_question": float(bool(stems(text) & asked)),
                    # a country's name holds no noun it asks for: "United States" is no state
                    "head": float(bool(head) and head in stems(text) and key not in countries),
                    "kin": float(kin_frame(relation, norm, key)),
                    "proper": float(label not in ("NP", "VP") or text[:1].isupper()),
                    **_chain(sentence.text, text, places, asks_country),
                    "holds_asked": float(any(f" {n} " in f" {key} " for n in held_names)),
                    "most_similar": float(sentence.id in similarity and cosine >= nearest),
                    "similar_gap": cosine - nearest,
                    **_country(key in countries, mentions_country, answer_type),
                }
                if role and not _writes_role(features, role & words):
                    continue
                seen_types.add(fit)
                have = best.get(key)
                candidate = HopAnswer(text, passage.id, sentence.id, 0.0, "sentence", features)
                if have is None or _prior(features) > _prior(have.features):
                    best[key] = candidate
    model = ranking()
    out = []
    held: dict[str, list[str]] = {}  # each sentence's candidates, normalized
    for key, candidate in best.items():
        held.setdefault(candidate.sentence_id, []).append(key)
    for key, candidate in best.items():
        candidate.features["frequency"] = math.log(len(sentences_of[key]))
        candidate.features["nested"] = float(
            any(len(other) > len(key) and key in other for other in held[candidate.sentence_id])
        )
        candidate.score = model.score(candidate.features)
        if candidate.features["unit"]:
            candidate.via = "unit"
        out.append(candidate)
    return sorted(out, key=lambda c: (-c.score, c.text))


def _chain(sentence: str, text: str, places: list[str], asks_country: bool) -> dict[str, float]:
    """Where a place stands in its sentence's chain of places ("Tucson, Arizona, United States").

    A chain runs narrow to wide: a hop that asks for a city or a state wants a place a wider one
    follows, a hop that asks for a country the chain's last place.
    """
    if not places:
        return {}

    def written(first: str, second: str) -> bool:  # "first, second" in the sentence
        return bool(re.search(re.escape(first) + r",\s+(?:the\s+)?" + re.escape(second), sentence))

    others = [other for other in places if other != text]
    followed = any(written(text, other) for other in others)
    last = any(written(other, text) for other in others) and not followed
    return {
        "narrower": float(followed and not asks_country),
        "broadest": float(last and asks_country),
        "broadest_unasked": float(last and not asks_country),
    }


@cache
def country_names() -> frozenset[str]:
    """Countries' names, normalized, as ISO 3166 writes them (`pycountry`), former ones too.

    Each name and its short form before a comma ("Yugoslavia, (Socialist) Federal Republic
    of"), and the countries ISO 3166-2 counts inside one (England, Scotland, Wales).
    """
    import pycountry

    names: set[str] = set()
    for country in [*pycountry.countries, *pycountry.historic_countries]:
        for attribute in ("name", "common_name", "official_name"):
            name = getattr(country, attribute, "")
            names.update({normalize(name), normalize(name.split(",")[0])})
    for part in pycountry.subdivisions:
        if part.type == "Country":
            names.add(normalize(part.name.split("[")[0]))
    return frozenset(names - {""})


def _country(is_country: bool, asked: bool, answer_type: AnswerType) -> dict[str, float]:
    """A country's name is the answer where a country is asked, seldom where another place is."""
    if not is_country:
        return {}
    if asked:
        return {"country": 1.0}
    return {"country_unasked" if answer_type == "place" else "country_not_place": 1.0}


def _writes_role(features: dict[str, float], role_in_sentence: frozenset[str]) -> bool:
    """Does the candidate's sentence write the role asked: its word, a unit, a kin frame, "by X"?"""
    return bool(role_in_sentence) or any(features[f] for f in ("unit", "kin", "after_by"))


def _prior(features: dict[str, float]) -> float:
    """Which of a candidate's sentences to keep: the one the model would score best."""
    return ranking().score(features)


def accepted(answers: Sequence[HopAnswer]) -> list[HopAnswer]:
    """The answers at or above the fitted threshold, best first (at most the best and one more)."""
    threshold = ranking().threshold
    return [a for a in answers if a.score >= threshold][:2]
