"""The cause → effect rules of one parsed sentence: conditions, cause phrases, caused events.

Each rule hands what it reads to `add` (the sentence's unit collector in `resin.indexes.nlp_rules`), so
a rule here knows spans of the sentence and nothing of passages or pronouns.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from resin.indexes.nlp_spans import (
    CAUSE_PHRASES,
    clause_head,
    opening_clause,
    qualifiers_of,
    remainder,
    trim,
    words_of,
)

Add = Callable[..., None]

_CONDITION_MARKS = frozenset("if when whenever unless".split())
# Verbs that bring an event about when given one: "X causes Y to V", "X led the council to V".
_CAUSING = frozenset("cause lead force drive prompt compel trigger induce".split())


def caused_event(verb: Any) -> Any:
    """The event a causing verb brings about ("causes *the wall to leak*"), else None.

    The small parser reads "Y to V" as an object and a complement, a clausal complement, or a
    noun with a stray clause; in every reading an infinitive ("to" V) follows the verb.
    """
    if verb.lemma_.lower() not in _CAUSING:
        return None
    for child in verb.rights:
        if child.dep_ not in ("dobj", "xcomp", "ccomp", "oprd"):
            continue
        for tok in child.subtree:
            if tok.pos_ == "VERB" and any(c.dep_ == "aux" and c.lower_ == "to" for c in tok.lefts):
                event = trim(verb.doc, verb.i + 1, tok.right_edge.i + 1)
                # something must be caused: "causes to fail" names no one that fails
                return event if event[0].lower_ != "to" else None
    return None


def conditions(doc: Any, add: Add) -> None:
    """Rules from conditional clauses, causal edges from "because" clauses.

    A sentence that opens with the clause ("If X, Y") is cut at its comma, however it was parsed
    (the parser may take the conclusion's verb for a noun); a clause elsewhere is read off the
    parse ("Y if X").
    """
    opening = opening_clause(doc)
    if opening is not None and doc[0].lower_ in _CONDITION_MARKS | {"because"}:
        condition, conclusion = opening
        _condition(doc[0].lower_, doc[0], condition, conclusion, conclusion.root, add)
    for tok in doc:
        first = tok.left_edge
        if tok.dep_ != "advcl" or (opening is not None and first.i == 0):
            continue
        condition = trim(doc, first.i + 1, tok.right_edge.i + 1)
        conclusion = remainder(tok.head, first.i, tok.right_edge.i)
        _condition(first.lower_, first, condition, conclusion, tok.head, add)
    for tok in doc[:-1]:
        if tok.lower_ in ("provided", "providing") and doc[tok.i + 1].lower_ == "that":
            condition = trim(doc, tok.i + 2, len(doc))
            conclusion = trim(doc, 0, tok.i)
            add("rule", conditions=[condition.text], conclusion=conclusion.text)


def _condition(mark: str, first: Any, condition: Any, conclusion: Any, head: Any, add: Add) -> None:
    """A rule (if, when, unless) or a causal edge (because) from a clause and its conclusion."""
    if mark not in _CONDITION_MARKS and mark != "because":
        return
    if mark == "when" and any(t.tag_ == "VBD" for t in condition):
        return  # "when he lived in Harlem": a time in a story, not a condition
    if mark == "unless" and condition.text:  # the negation stays with its condition
        condition = first.doc[first.i : condition.end]
    if not condition.text or not conclusion.text:
        return
    if mark == "because":
        add(
            "causal-edge",
            source_state=condition.text,
            target_state=conclusion.text,
            predicate="because",
            **qualifiers_of(head),
        )
    else:
        add("rule", conditions=[condition.text], conclusion=conclusion.text, **qualifiers_of(head))


def cause_phrases(doc: Any, add: Add) -> None:
    """Cause phrases: "because of X", "due to X", "as a result of X" → X causes the clause."""
    lowers = [t.lower_ for t in doc]
    for i in range(len(doc)):
        for phrase in CAUSE_PHRASES:
            if tuple(lowers[i : i + len(phrase)]) != phrase:
                continue
            end = i + len(phrase) - 1
            pobj = next((t for t in doc[end:] if t.dep_ == "pobj" and i <= t.head.i <= end), None)
            if pobj is None:
                continue
            source = trim(doc, pobj.left_edge.i, pobj.right_edge.i + 1)
            head = clause_head(doc[i])
            target = remainder(head, i, pobj.right_edge.i)
            add(
                "causal-edge",
                source_state=source.text,
                target_state=target.text,
                predicate=words_of(doc[i : end + 1]),
                **qualifiers_of(head),
            )
