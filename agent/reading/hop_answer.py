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

from resin.agent.language.countries import country_names
from resin.agent.language.relations import (
    AnswerType,
    inflections,
    kin_frame,
    relation_head,
    relation_words,
    role_words,
)
from resin.agent.language.spans import describes_name
from resin.agent.reading.roles import asked_role, role_in
from resin.agent.reading.signals import (
    ASKS_COUNTRY,
    MEASURES,
    NATIONALITY,
    PLACE_LABELS,
    after_by,
    born_as,
    catalogued,
    country_features,
    has_measure,
    hop_head,
    in_slot,
    labels_for,
    linked_to,
    other_slot,
    place_chain,
    relation_before,
    relation_near,
    spans_of,
    type_fit,
    writes_role,
)
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
    "overlap",  # share of the hop question's words its sentence writes (its own page: the subject)
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
    "verb_argument",  # an argument of the verb the hop asks with ("1984" in "reinstated it in 1984")
    "verb_role",  # in the role the hop asks for: "Who argued …" → the subject of "argued"
)


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
    # each asked word with its inflections: "Where did X die?" is answered by "He died in …"
    asked_forms = [{f[:5] for f in inflections(w)} for w in asked]
    asked_norm = f" {normalize(question)} "
    head = hop_head(question)
    asked_verb = asked_role(question)
    subject_key = entity_key(subject)
    subject_words = stems(subject)
    mentions_country = bool(ASKS_COUNTRY.search(question) or relation_head(relation) in NATIONALITY)
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
            # its own page writes the subject even as "he" or "the town": "He died in Caldmere"
            said = words | subject_words if is_own else words
            overlap = sum(bool(forms & said) for forms in asked_forms) / max(1, len(asked))
            cosine = similarity.get(sentence.id, nearest)
            seen_types: set[str] = set()
            spans = spans_of(sentence.text)
            places = (
                [s for s, lab in spans if lab in PLACE_LABELS] if answer_type == "place" else []
            )
            for span, label in spans:
                fit = type_fit(label, span, answer_type, allowed)
                text = span.strip(" ,.;:'\"()[]-–—")
                text = re.sub(r"^(?:the|a|an)\s+", "", text, flags=re.I)
                text = re.sub(r"['’]s$", "", text)
                key = normalize(text)
                if not fit or not key or key == subject_key or key in subject_key.split():
                    continue
                if fit == "loose" and subject_key and f" {subject_key} " in f" {key} ":
                    continue  # an untyped span running on from the subject ("Lena Dorr: Harlow")
                if label in ("NP", "PROPN") and describes_name(text):
                    continue  # "Scottish reformer John Knox": the name is a candidate of its own
                if f" {key} " in asked_norm or key in excluded:
                    continue  # the question's own words are no answer
                if mentions_country and born_as(sentence.text, text):
                    continue  # "a Canadian-born French director" is a French citizen
                if answer_type in ("date", "place") and other_slot(sentence.text, text, relation):
                    continue  # "(6 June 1906, Graz – 2 November 1994, Paris)": Graz is no death's
                if answer_type == "number" and catalogued(sentence.text, text):
                    continue  # "RV 728", "Op. 3": a catalogue number counts nothing
                if (
                    answer_type == "number"
                    and not rel_words & MEASURES
                    and has_measure(sentence.text, text)
                ):
                    continue  # a population is no "4080 ft" peak
                sentences_of.setdefault(key, set()).add(sentence.id)
                argument, in_role = (
                    role_in(sentence.text, text, asked_verb) if asked_verb else (0, 0)
                )
                features = {
                    "typed": float(fit == "typed"),
                    "loose": float(fit == "loose"),
                    "own": float(is_own),
                    "names_subject": float(names_subject),
                    "relation_near": float(relation_near(sentence.text, text, rel_words)),
                    "relation_before": float(relation_before(sentence.text, text, rel_words)),
                    "relation_sentence": float(bool(rel_words & words)),
                    "overlap": overlap,
                    "unit": float(key in by_unit),
                    "first_sentence": float(position == 0),
                    "first_of_type": float(fit not in seen_types),
                    "rank": 1.0 / (1 + rank),
                    "slot": float(
                        answer_type in ("date", "place") and in_slot(sentence.text, text, relation)
                    ),
                    "after_by": float(after_by(sentence.text, text)),
                    "linked": float(linked_to(sentence.text, text, rel_words)),
                    "is_title": float(key == title_key),
                    "in_question": float(bool(stems(text) & asked)),
                    # a country's name holds no noun it asks for: "United States" is no state
                    "head": float(bool(head) and head in stems(text) and key not in countries),
                    "kin": float(kin_frame(relation, norm, key)),
                    "proper": float(label not in ("NP", "VP") or text[:1].isupper()),
                    **place_chain(sentence.text, text, places, asks_country),
                    "holds_asked": float(any(f" {n} " in f" {key} " for n in held_names)),
                    "most_similar": float(sentence.id in similarity and cosine >= nearest),
                    "similar_gap": cosine - nearest,
                    **country_features(key in countries, mentions_country, answer_type),
                    "verb_argument": float(argument),
                    "verb_role": float(in_role),
                }
                if role and not writes_role(features, role & words):
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


def _prior(features: dict[str, float]) -> float:
    """Which of a candidate's sentences to keep: the one the model would score best."""
    return ranking().score(features)


def accepted(answers: Sequence[HopAnswer]) -> list[HopAnswer]:
    """The answers at or above the fitted threshold, best first (at most the best and one more)."""
    threshold = ranking().threshold
    return [a for a in answers if a.score >= threshold][:2]
