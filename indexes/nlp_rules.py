"""The rules that make typed units of one parsed sentence (`resin.indexes.nlp_extraction` parses).

Clause rules read (subject, predicate, object) claims and type them: relation, entity fact or type,
type property, causal edge. Sentence patterns add appositions, conditions ("if", "unless",
"provided that"), cause phrases ("because of", "due to") and consequences ("therefore", "As a
result,"). A pronoun subject is resolved against the previous sentence's subject or the title.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from resin.indexes.documents import Passage, Sentence
from resin.indexes.nlp_causal import cause_phrases, caused_event, conditions
from resin.indexes.nlp_spans import (
    NAMED,
    RELATIVE,
    is_generic,
    is_named,
    is_value,
    noun_phrase,
    objects_of,
    qualifiers_of,
    state_phrase,
    subjects_of,
    trim,
    with_conj,
    words_of,
)
from resin.indexes.units import ReasoningUnit, entity_key

# Bump on any change to the rules (here and in nlp_spans): the extraction cache and the manifest
# are keyed by it.
NLP_RULES_VERSION = "rules-3"
_TYPE_NAMES = {
    "PERSON": "person",
    "NORP": "group",
    "FAC": "facility",
    "ORG": "organization",
    "GPE": "place",
    "LOC": "location",
    "PRODUCT": "product",
    "EVENT": "event",
    "WORK_OF_ART": "work",
    "LAW": "law",
    "LANGUAGE": "language",
}
_PRONOUNS = frozenset("he she it they his her its their him them".split())
_PERSONAL = frozenset("he she his her him".split())
_PLURAL = frozenset("they their them".split())

# Verbs whose object is their effect ("Glaciers carve valleys" is no causal claim; these are).
_CAUSAL_VERBS = frozenset(
    """cause trigger produce increase reduce decrease raise lower induce generate prevent inhibit
    promote stimulate suppress accelerate boost worsen spark provoke affect influence enhance
    limit weaken strengthen""".split()
)
_CAUSAL_PREPS = frozenset({("lead", "to"), ("result", "in"), ("contribute", "to")})
_REVERSE_PREPS = frozenset({("result", "from"), ("stem", "from"), ("arise", "from")})
# Sentence or clause adverbs that make the preceding statement the cause.
_CONSEQUENCE = frozenset("therefore thus consequently hence".split())


@dataclass
class _Subject:
    """Who or what a clause is about: a span of the sentence, or a pronoun's resolved referent."""

    text: str
    label: str = ""
    plural: bool = False
    resolved: str = ""


@dataclass
class _Context:
    """What one sentence's rules need: the passage, the sentence and the previous subject."""

    passage: Passage
    sentence: Sentence
    doc: Any
    previous: _Subject | None
    units: list[ReasoningUnit] = field(default_factory=list)
    evidence: str = ""
    sentence_ids: list[str] = field(default_factory=list)

    def add(
        self, kind: str, *, modality: str = "asserted", polarity: str = "positive", **f: Any
    ) -> None:
        """Append a unit of this sentence (two sentences for a cause stated in the one before)."""
        try:
            unit = ReasoningUnit(
                kind=kind,  # type: ignore[arg-type]
                modality=modality,  # type: ignore[arg-type]
                polarity=polarity,  # type: ignore[arg-type]
                evidence=self.evidence or self.sentence.text,
                passage_id=self.passage.id,
                doc_id=self.passage.doc_id,
                sentence_ids=self.sentence_ids or [self.sentence.id],
                extractor="nlp",
                **f,
            )
        except ValueError:
            return  # a rule matched but a required part is empty
        if unit.kind in ("causal-edge", "rule") or entity_key(unit.subject) != entity_key(
            unit.object
        ):
            self.units.append(unit)


def _resolve(tok: Any, ctx: _Context) -> _Subject:
    """A pronoun's referent by the module's rule; any other token's own noun phrase."""
    word = tok.lower_
    if word not in _PRONOUNS:
        span = noun_phrase(tok)
        label = span.root.ent_type_ if span.root.ent_type_ in NAMED else ""
        return _Subject(span.text, label, tok.tag_ in ("NNS", "NNPS"))
    prev = ctx.previous
    if prev is not None and (
        (word in _PERSONAL and prev.label == "PERSON")
        or (word in _PLURAL and (prev.plural or prev.label in ("ORG", "NORP")))
        or (word in ("it", "its") and not prev.plural and prev.label != "PERSON")
    ):
        return _Subject(prev.text, prev.label, prev.plural, resolved=tok.text)
    return _Subject(ctx.passage.title, plural=word in _PLURAL, resolved=tok.text)


def _clause_units(verb: Any, ctx: _Context) -> _Subject | None:
    """Units of one clause; returns its first subject (the sentence subject for the root)."""
    subjects = [(tok, passive, _resolve(tok, ctx)) for tok, passive in subjects_of(verb)]
    if not subjects:
        return None
    quals = qualifiers_of(verb)
    lemma = verb.lemma_.lower()
    for tok, passive, subj in subjects:
        if subj.text == "" or (tok.pos_ == "PRON" and not subj.resolved):
            continue
        common = {"subject": subj.text, "resolved": subj.resolved, **quals}
        if subj.label:
            common["subject_type"] = _TYPE_NAMES.get(subj.label, "")
        event = caused_event(verb) if not passive else None
        if event is not None:
            # "Outbreaks cause the run to fail": the effect is the event, not its subject alone
            ctx.add(
                "causal-edge",
                **{**common, "subject": ""},
                source_state=subj.text if subj.resolved else state_phrase(tok).text,
                target_state=event.text,
                predicate=verb.text,
            )
            continue
        owner = next((c for c in tok.lefts if c.dep_ == "poss"), None)
        if lemma == "be" and owner is not None and not subj.resolved:
            # "Its population is 5,000" → (the referent, population, 5,000)
            prop = trim(tok.doc, owner.right_edge.i + 1, tok.i + 1)
            holder = _resolve(owner, ctx) if owner.lower_ in _PRONOUNS else None
            if holder is None and owner.pos_ == "PROPN":
                holder = _Subject(trim(tok.doc, owner.left_edge.i, owner.i + 1).text)
            if holder is not None:
                for _pred, obj in objects_of(verb):
                    ctx.add(
                        "entity-fact",
                        **{**common, "subject": holder.text, "resolved": holder.resolved},
                        predicate=prop.text,
                        object=noun_phrase(obj).text,
                    )
                continue
        for pred, obj in objects_of(verb):
            _claim(verb, lemma, passive, tok, pred, obj, common, ctx)
    return subjects[0][2]


def _claim(
    verb: Any,
    lemma: str,
    passive: bool,
    subj_tok: Any,
    pred: list[Any],
    obj: Any,
    common: dict[str, Any],
    ctx: _Context,
) -> None:
    """Type one (subject, predicate, object) reading of a clause and add it."""
    if obj.pos_ == "PRON" or obj.lower_ in RELATIVE or obj.dep_ == "poss":
        return
    obj_span = noun_phrase(obj) if obj.pos_ != "ADJ" else trim(obj.doc, obj.left_edge.i, obj.i + 1)
    if not obj_span.text or (
        len(obj_span) == 1 and obj.is_stop and obj.pos_ not in ("NUM", "NOUN", "PROPN")
    ):
        return  # nothing named: "are *about* to start", a stray preposition
    prep = pred[-1].lower_ if pred[-1].dep_ in ("prep", "agent") else ""
    subject = common["subject"]
    predicate = words_of(pred)
    causal = lemma in _CAUSAL_VERBS or (lemma, prep) in _CAUSAL_PREPS
    # States in full ("leaks from the tailings wall"), a resolved pronoun as its referent
    subj_state = subject if common["resolved"] else state_phrase(subj_tok).text
    obj_state = state_phrase(obj).text if obj.pos_ != "ADJ" else obj_span.text
    if (lemma, prep) in _REVERSE_PREPS or (lemma in _CAUSAL_VERBS and passive and prep == "by"):
        # "The flood was caused by rain", "Erosion results from …": the object is the cause
        ctx.add(
            "causal-edge",
            **{**common, "subject": ""},
            source_state=obj_state,
            target_state=subj_state,
            predicate=verb.text if prep == "by" else "causes",
        )
        return
    if causal and not passive and (prep == "" or (lemma, prep) in _CAUSAL_PREPS):
        ctx.add(
            "causal-edge",
            **{**common, "subject": ""},
            source_state=subj_state,
            target_state=obj_state,
            predicate=predicate,
        )
        return
    subj_span = noun_phrase(subj_tok) if not common["resolved"] else None
    named = bool(common["resolved"]) or (
        subj_span is not None and is_named(subj_span, ctx.passage.title)
    )
    first = obj
    while first.dep_ == "conj":  # "an engineer, poet and playwright": the first one's article
        first = first.head
    if lemma == "be" and first.dep_ == "attr" and obj.pos_ == "NOUN":
        dets = {c.lower_ for c in first.lefts if c.dep_ in ("det", "poss")}
        if named and dets <= {"a", "an"}:
            ctx.add("entity-type", **common, predicate="is a", object=obj_span.text)
            return
        if not named and is_generic(subj_tok, verb):
            ctx.add("type-property", **common, predicate=predicate, object=obj_span.text)
            return
        of = next((c for c in obj.rights if c.dep_ == "prep" and c.lower_ == "of"), None)
        pobj = next((c for c in of.children if c.dep_ == "pobj"), None) if of else None
        if pobj is not None and is_named(noun_phrase(pobj)):
            # "Lindmoor is the capital of Vessa": an edge (Lindmoor, capital of, Vessa)
            ctx.add(
                "relation",
                **common,
                predicate=words_of([obj, of]),
                object=noun_phrase(pobj).text,
            )
    if not named and is_generic(subj_tok, verb):
        kind = "type-property"
    elif is_value(obj) or obj.pos_ == "ADJ":
        kind = "entity-fact"
    elif is_named(obj_span) or obj.pos_ in ("NOUN", "PROPN") and lemma != "be":
        kind = "relation"
    else:
        kind = "entity-fact"
    ctx.add(kind, **common, predicate=predicate, object=obj_span.text)


def _appositions(doc: Any, ctx: _Context) -> None:
    """Appositions: "Hessa Varn, a civil engineer, …" → (Hessa Varn, is a, civil engineer)."""
    for tok in doc:
        if tok.dep_ != "appos" or tok.pos_ != "NOUN" or tok.head.pos_ != "PROPN":
            continue
        name = noun_phrase(tok.head)
        for kind_tok in with_conj(tok):
            ctx.add(
                "entity-type",
                subject=name.text,
                subject_type=_TYPE_NAMES.get(name.root.ent_type_, ""),
                predicate="is a",
                object=noun_phrase(kind_tok).text,
            )


def _consequences(doc: Any, ctx: _Context, previous_text: str | None) -> None:
    """Consequences: "…, therefore Y" / "As a result, Y" → the statement before causes Y."""
    lowers = [t.lower_ for t in doc]
    for tok in doc:
        opening = tok.i <= 1 and tok.lower_ in _CONSEQUENCE
        as_a_result = lowers[tok.i : tok.i + 4] == ["as", "a", "result", ","] and tok.i == 0
        if opening or as_a_result:
            if previous_text is None:
                continue
            last = tok.i + (2 if as_a_result else 0)
            target = trim(doc, last + 1, len(doc))
            source = previous_text.rstrip(" .!?")
            ctx.evidence = f"{previous_text} {ctx.sentence.text}"
            ctx.sentence_ids = [_previous_id(ctx), ctx.sentence.id]
            ctx.add(
                "causal-edge", source_state=source, target_state=target.text, predicate="causes"
            )
            ctx.evidence, ctx.sentence_ids = "", []
        elif tok.lower_ in _CONSEQUENCE and tok.head.dep_ == "conj" and tok.i > 1:
            verb = tok.head
            source = trim(doc, 0, verb.left_edge.i)
            target = trim(doc, tok.i + 1, verb.right_edge.i + 1)
            ctx.add(
                "causal-edge",
                source_state=source.text,
                target_state=target.text,
                predicate="causes",
            )


def _previous_id(ctx: _Context) -> str:
    ids = [s.id for s in ctx.passage.sentences]
    return ids[ids.index(ctx.sentence.id) - 1]


def _sentence_units(ctx: _Context, previous_text: str | None) -> _Subject | None:
    doc = ctx.doc
    subject: _Subject | None = None
    for tok in doc:
        if tok.pos_ == "VERB" or (tok.lemma_ == "be" and tok.dep_ not in ("aux", "auxpass")):
            found = _clause_units(tok, ctx)
            if tok.dep_ == "ROOT" and found is not None:
                subject = found
    _appositions(doc, ctx)
    conditions(doc, ctx.add)
    cause_phrases(doc, ctx.add)
    _consequences(doc, ctx, previous_text)
    return subject


def passage_units(passage: Passage, parsed: list[tuple[Sentence, Any]]) -> list[ReasoningUnit]:
    """A passage's units from its parsed sentences, in order; pronouns look one sentence back."""
    units: list[ReasoningUnit] = []
    previous: _Subject | None = None
    index = {s.id: k for k, s in enumerate(passage.sentences)}
    for sentence, doc in parsed:
        k = index[sentence.id]
        previous_text = passage.sentences[k - 1].text if k > 0 else None
        ctx = _Context(passage, sentence, doc, previous)
        subject = _sentence_units(ctx, previous_text)
        if subject is not None:
            previous = subject
        units.extend(ctx.units)
    return units
