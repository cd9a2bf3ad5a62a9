"""The typed reasoning unit: an address into a source sentence, with a claim in one of six shapes."""

from __future__ import annotations

import re
import unicodedata
from typing import Literal, get_args

from pydantic import BaseModel, Field, model_validator

from resin.indexes.documents import content_hash

UnitKind = Literal["entity-fact", "type-property", "entity-type", "relation", "causal-edge", "rule"]
UNIT_KINDS: tuple[UnitKind, ...] = get_args(UnitKind)
# Kinds whose subject → object is an edge of the cause → effect graph (the SARG triples); a rule
# is one when it has a single condition (condition → conclusion).
GRAPH_KINDS: frozenset[str] = frozenset({"relation", "causal-edge", "rule"})

Modality = Literal["asserted", "possible", "necessary", "hypothetical"]
Polarity = Literal["positive", "negative"]

_REQUIRED: dict[str, tuple[str, ...]] = {
    "entity-fact": ("subject", "predicate", "object"),
    "type-property": ("subject", "predicate", "object"),
    "entity-type": ("subject", "object"),
    "relation": ("subject", "predicate", "object"),
    "causal-edge": ("source_state", "target_state"),
    "rule": ("conditions", "conclusion"),
}


def normalize(text: str) -> str:
    """Lower-case, strip accents and punctuation, collapse spaces: the form names are matched in."""
    if not text.isascii():  # ASCII has no accents to strip; the per-character pass is the cost
        text = unicodedata.normalize("NFKD", text)
        text = "".join(c for c in text if not unicodedata.combining(c))
    text = text.lower()
    text = re.sub(r"['’]s\b", "", text)
    text = re.sub(r"[^\w\s]", " ", text)
    return " ".join(text.split())


_LEADING_ARTICLE = re.compile(r"^(?:the|a|an) ")


def entity_key(name: str) -> str:
    """The exact-match key of an entity name: normalized, without a leading article."""
    return _LEADING_ARTICLE.sub("", normalize(name))


class ReasoningUnit(BaseModel):
    """One grounded claim: identity, core claim, logic, qualifiers and grounding (RESIN's groups)."""

    # identity
    id: str = ""
    kind: UnitKind
    extractor: str = ""  # "nlp" or "model": which extractor proposed it
    # core claim
    subject: str = ""
    resolved: str = ""  # the pronoun the subject stands for in the evidence ("" when written there)
    subject_type: str = ""
    predicate: str = ""
    object: str = ""
    # logical structure
    conditions: list[str] = Field(default_factory=list)
    conclusion: str = ""
    source_state: str = ""
    target_state: str = ""
    # qualifiers
    modality: Modality = "asserted"
    polarity: Polarity = "positive"
    scope: str = ""
    confidence: float = Field(default=1.0, ge=0.0, le=1.0)
    # grounding (sentence ids and passage id are assigned by code, never by the model)
    evidence: str
    passage_id: str = ""
    doc_id: str = ""
    sentence_ids: list[str] = Field(default_factory=list)

    @model_validator(mode="after")
    def _check_kind_fields(self) -> ReasoningUnit:
        missing = [f for f in _REQUIRED[self.kind] if not getattr(self, f)]
        if missing:
            raise ValueError(f"{self.kind} unit needs {', '.join(missing)}")
        if not self.evidence.strip():
            raise ValueError("a unit needs an evidence quote")
        if self.kind == "causal-edge" and not self.subject:
            # The states double as graph endpoints when no separate cause entity is named.
            self.subject, self.object = self.source_state, self.target_state
        if not self.id:
            self.id = "u" + content_hash(self.passage_id, self.text, length=15)
        return self

    @property
    def text(self) -> str:
        """Canonical one-line form per kind; this is what gets embedded."""
        neg = "not " if self.polarity == "negative" else ""
        if self.kind in ("entity-fact", "type-property", "relation"):
            return f"{self.subject} | {neg}{self.predicate} | {self.object}"
        if self.kind == "entity-type":
            return f"{self.subject} | {neg}is a | {self.object}"
        if self.kind == "causal-edge":
            return f"{self.source_state} → {neg}{self.target_state}"
        return f"if {' and '.join(self.conditions)} then {neg}{self.conclusion}"

    @property
    def edge(self) -> tuple[str, str, str] | None:
        """The SARG triple (cause/head, relation, effect/tail) this unit contributes, if any."""
        if self.kind == "relation":
            return self.subject, self.predicate, self.object
        if self.kind == "causal-edge":
            return self.source_state, self.predicate or "causes", self.target_state
        if self.kind == "rule" and len(self.conditions) == 1:
            # "If the run fails, the council cancels the festival": a chain runs through it
            return self.conditions[0], "if", self.conclusion
        return None


def claim_key(unit: ReasoningUnit) -> tuple[str, str, str]:
    """Normalized subject, predicate and object: the same claim from two extractors shares it."""
    return (
        normalize(unit.subject or " and ".join(unit.conditions)),
        normalize(unit.predicate),
        normalize(unit.object or unit.conclusion),
    )


def merge_units(*groups: list[ReasoningUnit]) -> list[ReasoningUnit]:
    """The units of all groups, in order, each claim once (the first group's copy wins)."""
    seen: set[tuple[str, str, str] | str] = set()
    merged = []
    for unit in (u for group in groups for u in group):
        key = claim_key(unit)
        if key not in seen and unit.id not in seen:
            seen.update((key, unit.id))
            merged.append(unit)
    return merged


def possessed(a: str, b: str) -> bool:
    """Is one entity key a thing of the other ("notebooks of hessa varn", "hessa varn")?

    Their vectors are close (the owner's name dominates), but they are two entities: merged, the
    engineer's node would be shown as her notebooks.
    """

    def of(thing: str, owner: str) -> bool:
        return any(thing.endswith(f" of {article}{owner}") for article in ("", "the ", "a ", "an "))

    return of(a, b) or of(b, a)
