"""One schema-constrained model call per passage, then grounding checked by code.

The model proposes; code disposes. A unit survives only if its evidence quote matches a sentence of
its own passage and its subject (and object, for graph edges) are written in that sentence. The
code, never the model, assigns passage and sentence ids.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from pydantic import BaseModel, Field, ValidationError
from rapidfuzz import fuzz

from resin.indexes.documents import Passage
from resin.indexes.lexical import GROUNDING_STOPWORDS, tokenize
from resin.indexes.units import ReasoningUnit, UnitKind, entity_key, normalize
from resin.prompts import EXTRACT_EXAMPLE_OUTPUT, EXTRACT_EXAMPLE_USER, EXTRACT_SYSTEM, EXTRACT_USER
from resin.prompts.structured import fence, json_schema_format, token_usage, unfence

MAX_UNITS_PER_PASSAGE = 24
QUOTE_MATCH_RATIO = 0.85
# Bump on any change to what `ground` keeps: the extraction cache holds grounded units, so it is
# keyed by this too (see indexes.extractors.extraction_key).
GROUNDING_VERSION = "ground-2"
_NEGATION = re.compile(r"\b(?:not|never|no longer|cannot|without)\b|n't\b", re.I)
_POSSIBLE = re.compile(r"\b(?:may|might|can|could|sometimes|often)\b", re.I)


class UnitDraft(BaseModel):
    """What the model writes for one unit: one flat shape for all six kinds.

    A flat shape with every field required is what a small model can fill under a grammar; code
    maps it onto each kind's fields (cause → effect for causal edges, condition → conclusion for
    rules). The quote comes first so the model copies the sentence, then picks its parts.
    """

    quote: str = Field(min_length=1, description="one sentence of the passage, copied")
    kind: UnitKind
    subject: str = Field(min_length=1, description="entity, type, cause or condition")
    predicate: str = Field(description="relation or property, e.g. 'designed by'")
    object: str = Field(min_length=1, description="value, entity, type, effect or conclusion")


class ExtractionOutput(BaseModel):
    """The structured output of the extraction call."""

    units: list[UnitDraft] = Field(default_factory=list, max_length=MAX_UNITS_PER_PASSAGE)


def unit_fields(draft: UnitDraft) -> dict[str, Any]:
    """The `ReasoningUnit` fields a draft stands for, by kind; qualifiers read off the predicate."""
    fields: dict[str, Any] = {"kind": draft.kind, "predicate": draft.predicate.strip()}
    subject, obj = draft.subject.strip(), draft.object.strip()
    if draft.kind == "causal-edge":
        fields.update(source_state=subject, target_state=obj)
        fields["predicate"] = fields["predicate"] or "causes"
    elif draft.kind == "rule":
        conditions = [c.strip() for c in re.split(r"\band\b", subject) if c.strip()]
        fields.update(conditions=conditions, conclusion=obj)
    else:
        fields.update(subject=subject, object=obj)
        if draft.kind == "entity-type":
            fields["predicate"] = fields["predicate"] or "is a"
    if _NEGATION.search(draft.predicate):
        fields["polarity"] = "negative"
    if _POSSIBLE.search(draft.predicate):
        fields["modality"] = "possible"
    return fields


# Enough for every claim of a short passage, small enough that a 135M model's JSON closes in time.
# 80 characters cut a long quote to the sentence's opening, which identifies it (see
# match_sentences) at a third of the tokens; names and predicates fit well within.
EXTRACTION_LIMITS = {"items": 3, "chars": 80}
# A quote this long that opens a sentence names that sentence.
MIN_OPENING_CHARS = 24
# Room for the longest output the capped schema allows, so the JSON always closes.
EXTRACTION_MAX_TOKENS = 400


@dataclass
class ExtractionResult:
    """Units kept for one passage, with what was dropped and what it cost."""

    passage_id: str
    units: list[ReasoningUnit] = field(default_factory=list)
    proposed: int = 0
    ungrounded: int = 0
    invalid: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    error: str | None = None

    @property
    def ok(self) -> bool:
        """False when the model never gave a parseable answer: the passage is retried next run."""
        return self.error is None


def content_tokens(text: str) -> set[str]:
    """The normalized words of `text` that are not stopwords."""
    return set(tokenize(text, GROUNDING_STOPWORDS))


def match_sentences(quote: str, passage: Passage) -> list[str]:
    """Ids of the passage sentences the quote reproduces (normalized, fuzzy); [] if none."""
    q = normalize(quote)
    if len(q) < 8:
        return []
    sentences = [(s.id, normalize(s.text)) for s in passage.sentences]
    # A quote may cover one sentence, a clause of one, or run across two neighbours.
    windows = sentences + [
        (f"{a[0]} {b[0]}", f"{a[1]} {b[1]}") for a, b in zip(sentences, sentences[1:], strict=False)
    ]
    best_ids, best = "", 0.0
    for ids, text in windows:
        if q == text:
            return ids.split()
        single = " " not in ids
        if q in text and len(q) >= 0.5 * len(text):
            score = 1.0
        elif single and len(text) >= 20 and q.startswith(text):
            score = 1.0  # the quote copies this sentence and runs on past its end
        else:
            score = _fuzzy(q, text)
            if single and MIN_OPENING_CHARS <= len(q) < len(text):
                # the quote is the sentence's opening, cut at the grammar's length cap
                score = max(score, _fuzzy(q, text[: len(q)]))
        if score > best:
            best_ids, best = ids, score
    return best_ids.split() if best >= QUOTE_MATCH_RATIO else []


def _fuzzy(a: str, b: str) -> float:
    """Indel similarity (2·LCS / total length), 0 below the match ratio.

    rapidfuzz, not difflib: 20× faster, and it grounded 1,500 noisy HotpotQA quotes identically.
    """
    return fuzz.ratio(a, b, score_cutoff=QUOTE_MATCH_RATIO * 100) / 100


def mentioned(name: str, sentence_tokens: set[str]) -> bool:
    """A name is written in a sentence when most of its content words are there."""
    tokens = content_tokens(name)
    if not tokens:
        return False
    return len(tokens & sentence_tokens) >= max(1, (len(tokens) + 1) // 2)


def _same(a: str, b: str) -> bool:
    return entity_key(a) == entity_key(b)


# Words that belong to a relation, not to its object: "designed by" + "Hessa Varn".
_LINKING = frozenset("by in on at of to from with into near for as after under over".split())


def _object_from_predicate(draft: UnitDraft) -> UnitDraft | None:
    """The draft with its predicate split into a verb and an object, if it has at least two words.

    A small model often writes the claim's whole remainder as the predicate ("is a port town at
    the mouth of the Tessel River") and the subject, or a misspelling, as the object. The split is
    kept only if the new object is written, word for word, in the evidence sentence.
    """
    words = draft.predicate.strip().rstrip(".").split()
    if len(words) < 2:
        return None
    verb, rest = words[:1], words[1:]
    while len(rest) > 1 and rest[0].lower() in _LINKING:
        verb.append(rest.pop(0))
    return draft.model_copy(update={"predicate": " ".join(verb), "object": " ".join(rest)})


def ground(draft: UnitDraft, passage: Passage) -> ReasoningUnit | None:
    """A grounded unit, or None when the quote or the names it links are not in the passage."""
    sentence_ids = match_sentences(draft.quote, passage)
    if not sentence_ids:
        return None
    by_id = {s.id: s.text for s in passage.sentences}
    evidence = " ".join(by_id[i] for i in sentence_ids)
    tokens = content_tokens(evidence)
    if not mentioned(draft.subject, tokens):
        return None
    # "X is a X" (a small model's favourite non-fact) or an object the sentence does not hold
    if not mentioned(draft.object, tokens) or _same(draft.subject, draft.object):
        repaired = _object_from_predicate(draft)
        if repaired is None or _same(draft.subject, repaired.object):
            return None
        obj = normalize(repaired.object)
        if not content_tokens(obj) or f" {obj} " not in f" {normalize(evidence)} ":
            return None
        draft = repaired
    return ReasoningUnit(
        **unit_fields(draft),
        evidence=evidence,
        passage_id=passage.id,
        doc_id=passage.doc_id,
        sentence_ids=sentence_ids,
        extractor="model",
    )


def _type_subjects(units: list[ReasoningUnit]) -> None:
    """Fill subject types from the passage's own entity-type units (X is a Y → X's type is Y)."""
    types = {entity_key(u.subject): u.object for u in units if u.kind == "entity-type"}
    for unit in units:
        if not unit.subject_type and entity_key(unit.subject) in types:
            unit.subject_type = types[entity_key(unit.subject)]


def _parse(content: str) -> list[dict[str, Any]]:
    """Parse the model's JSON leniently: a fenced block or a bare list are accepted too."""
    text = content.strip()
    fenced = re.search(r"```(?:json)?\s*(.*?)```", text, re.S)
    if fenced:
        text = fenced.group(1)
    data = json.loads(text, strict=False)  # a raw newline copied into a string is no fault
    if isinstance(data, list):
        data = {"units": data}
    if not isinstance(data, dict) or not isinstance(data.get("units"), list):
        raise ValueError("expected an object with a 'units' list")
    return [u for u in data["units"] if isinstance(u, dict)]


def extraction_messages(passage: Passage) -> list[BaseMessage]:
    """The system and user messages for one passage (its title and text fenced as data)."""
    return [
        SystemMessage(EXTRACT_SYSTEM),
        HumanMessage(EXTRACT_EXAMPLE_USER),
        AIMessage(EXTRACT_EXAMPLE_OUTPUT),
        HumanMessage(
            EXTRACT_USER.format(
                title=fence(passage.title, attribute=True), text=fence(passage.text)
            )
        ),
    ]


def extract_passage(model: BaseChatModel, passage: Passage, attempts: int = 2) -> ExtractionResult:
    """Extract, validate and ground the units of one passage; never raises on model output."""
    result = ExtractionResult(passage_id=passage.id)
    constrained = model.bind(
        response_format=json_schema_format(ExtractionOutput, EXTRACTION_LIMITS),
        max_tokens=EXTRACTION_MAX_TOKENS,
    )
    messages = extraction_messages(passage)
    fenced = any(c in passage.text + passage.title for c in '<>"')
    for _ in range(attempts):
        try:
            reply = constrained.invoke(messages)
        except Exception as exc:  # noqa: BLE001 - a backend fault fails this passage, not the build
            result.error = f"model call failed: {type(exc).__name__}: {exc}"[:300]
            continue
        prompt_tokens, completion_tokens = token_usage(reply)
        result.prompt_tokens += prompt_tokens
        result.completion_tokens += completion_tokens
        try:
            raw_units = _parse(str(reply.content))
        except (ValueError, RecursionError) as exc:  # RecursionError: JSON nested too deep
            result.error = f"unparseable model output: {exc}"[:300]
            continue
        result.error = None
        seen: set[str] = set()
        for raw in raw_units[:MAX_UNITS_PER_PASSAGE]:
            result.proposed += 1
            try:
                if fenced:
                    raw = {k: unfence(v) for k, v in raw.items()}
                draft = UnitDraft.model_validate(raw)
                unit = ground(draft, passage)
            except ValidationError:
                result.invalid += 1
                continue
            if unit is None:
                result.ungrounded += 1
            elif unit.id not in seen:
                seen.add(unit.id)
                result.units.append(unit)
        _type_subjects(result.units)
        result.proposed += max(0, len(raw_units) - MAX_UNITS_PER_PASSAGE)
        result.invalid += max(0, len(raw_units) - MAX_UNITS_PER_PASSAGE)
        break
    return result
