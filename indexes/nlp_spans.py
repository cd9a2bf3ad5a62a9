"""What the unit rules read off a spaCy parse: noun phrases, clause subjects and objects, qualifiers.

Word lists and token-level readings with no notion of a unit: `resin.indexes.nlp_rules` makes units of
them, `resin.indexes.nlp_extraction` runs the parser. A change here changes units: bump
`NLP_RULES_VERSION`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from resin.indexes.units import entity_key

_MAX_SPAN_TOKENS = 10
# A cause or effect state may run longer than a name: "the level of dissolved copper in the river".
_MAX_STATE_TOKENS = 12
# Dependents that end a state phrase: a clause or a list hanging off a noun is no part of it.
_STATE_STOPS = frozenset("relcl acl advcl ccomp xcomp conj cc appos punct".split())
# Words that open a sentence with a subordinate clause ("Because A, B causes C").
_OPENING_MARKS = frozenset("because if when whenever since once unless although while".split())

NAMED = frozenset("PERSON NORP FAC ORG GPE LOC PRODUCT EVENT WORK_OF_ART LAW LANGUAGE".split())
_VALUE = frozenset("DATE TIME PERCENT MONEY QUANTITY CARDINAL ORDINAL".split())
# Left dependents that belong to a noun phrase ("the tall stone dam", "Varn's bridge").
_NP_LEFT = frozenset("compound amod nummod poss nmod quantmod det predet".split())
_NP_RIGHT = frozenset("compound flat nummod".split())
_EDGE_TRIM = frozenset("det punct cc case mark prep advmod".split())
_SUBJECTS = ("nsubj", "nsubjpass")
RELATIVE = frozenset("who which that whom whose".split())
_GENERIC_DETS = frozenset("a an every all most many some each any".split())
# Phrases before a noun phrase that name a cause: "because of the drought".
CAUSE_PHRASES = (("because", "of"), ("due", "to"), ("owing", "to"), ("as", "a", "result", "of"))
_POSSIBLE = frozenset("may might can could".split())
_NECESSARY = frozenset("must should shall need".split())


def trim(doc: Any, start: int, end: int) -> Any:
    """doc[start:end] without determiners, punctuation or connectives at either edge."""
    while start < end and (doc[start].dep_ in _EDGE_TRIM or doc[start].is_punct):
        if doc[start].dep_ == "det" and doc[start].lower_ not in ("a", "an", "the"):
            break  # "this", "no", "every" carry meaning
        start += 1
    while end > start and (doc[end - 1].is_punct or doc[end - 1].dep_ in ("cc", "punct")):
        end -= 1
    return doc[start:end]


def noun_phrase(tok: Any) -> Any:
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
                hi = max(hi, noun_phrase(pobj).end - 1)
    if tok.ent_iob_ != "O":
        for ent in tok.doc.ents:
            # a whole name, never two coordinated ones the tagger ran together
            if ent.start <= tok.i < ent.end and not any(t.dep_ == "cc" for t in ent):
                lo, hi = min(lo, ent.start), max(hi, ent.end - 1)
    span = trim(tok.doc, lo, hi + 1)
    if len(span) > _MAX_SPAN_TOKENS or not span.text:
        core = [c.i for c in tok.lefts if c.dep_ == "compound"] + [tok.i]
        span = tok.doc[min(core) : tok.i + 1]
    return span


def state_phrase(tok: Any) -> Any:
    """A cause or effect as written: the noun phrase with its prepositional modifiers.

    "Leaks *from the tailings wall*", "copper *in the river*": a state is a situation, and its head
    noun alone ("Leaks", "copper") would join unrelated ones in the graph. A modifier holding a
    clause or a list is left out, and an over-long phrase falls back to the noun phrase.
    """
    span = noun_phrase(tok)
    hi = span.end
    for child in tok.rights:
        if child.dep_ != "prep" or _connective(child):
            continue
        if any(t.dep_ in _STATE_STOPS or t.is_punct for t in child.subtree):
            break
        hi = max(hi, child.right_edge.i + 1)
    state = trim(tok.doc, span.start, hi)
    return state if 0 < len(state) <= _MAX_STATE_TOKENS else span


def is_named(span: Any, title: str = "") -> bool:
    """A proper noun, a named entity, or the passage title (tagged NOUN in "Caldmere is a lake")."""
    return (
        span.root.pos_ == "PROPN"
        or any(t.ent_type_ in NAMED for t in span)
        or (bool(title) and entity_key(span.text) == entity_key(title))
    )


def is_value(tok: Any) -> bool:
    """A date, time, amount or number."""
    return tok.ent_type_ in _VALUE or tok.pos_ == "NUM"


def is_generic(tok: Any, verb: Any) -> bool:
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


def with_conj(tok: Any) -> list[Any]:
    """`tok` and the tokens coordinated with it ("valleys and fjords")."""
    out: list[Any] = []
    stack = [tok]
    while stack:
        t = stack.pop()
        out.append(t)
        stack.extend(c for c in t.rights if c.dep_ == "conj" and c.pos_ == tok.pos_)
    return sorted(out, key=lambda t: t.i)


def remainder(head: Any, cut_lo: int, cut_hi: int) -> Any:
    """The part of `head`'s clause on `head`'s side of the cut tokens [cut_lo, cut_hi]."""
    lo, hi = head.left_edge.i, head.right_edge.i + 1
    if head.i > cut_hi:
        return trim(head.doc, max(lo, cut_hi + 1), hi)
    return trim(head.doc, lo, min(hi, cut_lo))


def qualifiers_of(verb: Any) -> dict[str, str]:
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


def subjects_of(verb: Any) -> list[tuple[Any, bool]]:
    """The subject tokens of a clause and whether it is passive (a patient as subject)."""
    subs = [c for c in verb.lefts if c.dep_ in _SUBJECTS] or [
        c for c in verb.rights if c.dep_ in _SUBJECTS
    ]
    if subs:
        out: list[tuple[Any, bool]] = []
        for s in subs:
            passive = s.dep_ == "nsubjpass"
            s = _past_opening(s)
            if s.lower_ in RELATIVE and verb.dep_ == "relcl":
                s = verb.head  # "the dam, which was built by …": the dam
            out.extend((t, passive) for t in with_conj(s))
        return out
    if verb.dep_ in ("conj", "xcomp") and verb.head.pos_ in ("VERB", "AUX"):
        # "was built in 1950 and flooded the valley": a shared subject, each verb its own voice
        passive = verb.dep_ == "conj" and verb.tag_ == "VBN"
        return [(t, p and passive) for t, p in subjects_of(verb.head)]
    if verb.dep_ == "acl" and verb.tag_ == "VBN":
        return [(verb.head, True)]  # "Varn, born in 1919", "the bridge designed by Varn"
    if verb.dep_ == "relcl":
        return [(verb.head, False)]
    return []


def _past_opening(subj: Any) -> Any:
    """The real subject when the parser took the opening clause's object for it.

    "Because copper damages the gills, copper in the river causes …" is often parsed with "gills"
    as the subject and "copper" as its apposition across the comma that closes the opening clause.
    """
    doc = subj.doc
    if doc[0].lower_ not in _OPENING_MARKS:
        return subj
    comma = next((t.i for t in doc if t.text == ","), None)
    after = [c for c in subj.rights if c.dep_ == "appos"]
    if comma is not None and subj.i < comma and after and after[0].i > comma:
        return after[0]
    return subj


def opening_clause(doc: Any) -> tuple[Any, Any] | None:
    """A sentence-opening "If/When/Because X, Y" cut at its first comma: (X, Y), else None.

    The comma is where the writer closed the condition; the parser's clause edges often are not
    (it may attach the conclusion's subject to the condition).
    """
    if len(doc) < 4 or doc[0].lower_ not in _OPENING_MARKS or doc[1].lower_ == "of":
        return None  # "Because of X, …" is a cause phrase, not a clause
    comma = next((t.i for t in doc if t.text == ","), None)
    if comma is None or comma < 3:
        return None
    condition, conclusion = trim(doc, 1, comma), trim(doc, comma + 1, len(doc))
    if not any(t.pos_ in ("VERB", "AUX") for t in condition):
        return None  # "If so, …", "When in Rome, …": no clause to be a condition
    return (condition, conclusion) if conclusion.text else None


def objects_of(verb: Any) -> list[tuple[list[Any], Any]]:
    """(predicate tokens, object head) pairs of a clause: direct objects and prepositional ones."""
    particle = [c for c in verb.rights if c.dep_ == "prt"]
    out: list[tuple[list[Any], Any]] = []
    for child in verb.children:
        # the small parser tags "kept *in* the archive" as an object (oprd): a preposition still
        prep = child.dep_ in ("prep", "agent") or child.pos_ == "ADP"
        if not prep and (
            child.dep_ in ("dobj", "attr", "oprd")
            or (child.dep_ == "npadvmod" and child.ent_type_ == "DATE")
        ):
            out.extend(([verb, *particle], o) for o in with_conj(child))
        elif prep and not _connective(child):
            for pobj in (c for c in child.children if c.dep_ == "pobj"):
                out.extend(([verb, *particle, child], o) for o in with_conj(pobj))
        elif child.dep_ == "acomp":
            preps = [c for c in child.rights if c.dep_ == "prep"]
            for prep in preps:
                for pobj in (c for c in prep.children if c.dep_ == "pobj"):
                    out.extend(([verb, child, prep], o) for o in with_conj(pobj))
            if not preps:
                out.append(([verb], child))
    return out


def _connective(tok: Any) -> bool:
    """Does a cause phrase ("due to", "as a result") start at `tok`? It is no object of a verb."""
    ahead = tuple(t.lower_ for t in tok.doc[tok.i : tok.i + 4])
    return ahead[:3] == ("as", "a", "result") or any(ahead[: len(p)] == p for p in CAUSE_PHRASES)


def words_of(tokens: Iterable[Any]) -> str:
    """A predicate as verb, particle, preposition: "In 1964 engineers proposed" → "proposed in"."""
    return " ".join(t.text for t in tokens)


def clause_head(tok: Any) -> Any:
    """The verb heading the clause `tok` stands in (else the sentence root)."""
    while tok.pos_ not in ("VERB", "AUX") and tok.head.i != tok.i:
        tok = tok.head
    return tok
