"""Filtered selections: "Which actor in film X is also in film Y?" names its answer twice.

The question phrase carries a modifier that selects candidates ("actor in film X", "team owned
by X") and the predicate picks among them. Neither fact alone gives the answer: each becomes
its own hop ("Which actor is in film X?", "Which actor is also in film Y?") and a computed hop
names the answer both give.
"""

from __future__ import annotations

from spacy.tokens import Doc

from resin.agent.planning.conjoined import FINITE, fact, shared, subject_of
from resin.agent.planning.names import Plan, is_name_word
from resin.indexes.nlp_extraction import load_pipeline

# Prepositions that place or attach a candidate: "the actor in X", "the rapper on X".
_PLACING = frozenset("in on at from near".split())
# Words before the noun of a question phrase: adjectives, nouns and names modifying it.
_PHRASE_TAGS = frozenset("JJ NN NNS NNP NNPS HYPH CD VBN".split())
# Words that open a clause or join phrases: a modifier holding one is no simple selection.
_JOINS = frozenset("and or , that who whom which whose where when".split())


def filtered(question: str, plan: Plan) -> bool:
    """Read "WH N MODIFIER PREDICATE": the modifier's candidates, the predicate's, then shared.

    The phrase is the question word and a noun run ending in a common noun; the modifier opens
    with a placing preposition or a participle and names a name; the predicate opens with the
    first finite verb after it and the adverbs before that verb ("is also in film Y", "also
    appeared in Y", "did X inherit"). The modifier is asked with "is", or "was" when the
    predicate is in the past.
    """
    doc = load_pipeline()(question)
    if len(doc) < 5 or doc[0].lower_ not in ("what", "which"):
        return False
    at = 1
    while at < len(doc) and doc[at].tag_ in _PHRASE_TAGS and not _opens_modifier(doc, at):
        at += 1
    noun = doc[at - 1]
    if at == 1 or noun.tag_ not in ("NN", "NNS") or not noun.is_lower:
        return False
    if not _opens_modifier(doc, at):
        return False
    verb = next((t for t in doc[at + 1 :] if t.tag_ in FINITE), None)
    end = len(doc) - 1 if doc[-1].text in "?.!" else len(doc)
    if verb is None or verb.i >= end - 1:
        return False
    opens = verb.i
    while opens - 1 > at and doc[opens - 1].tag_ == "RB":
        opens -= 1
    modifier = doc[at:opens]
    if any(t.lower_ in _JOINS for t in modifier) or modifier.text.count('"') % 2:
        return False
    if not any(is_name_word(t.text) for t in modifier[1:]):
        return False
    if doc[at].tag_ == "IN" and not subject_of(modifier):
        return False  # "in 2013", "in the midwest": a setting, not a candidate's place
    phrase = doc[:at].text
    be = "was" if verb.tag_ == "VBD" else "is"
    predicate = doc[opens:end]
    first = fact(phrase, modifier, plan, said=f"{be} {modifier.text}")
    deps = [first, fact(phrase, predicate, plan)]
    shared(question, phrase, deps, [modifier.text, predicate.text], plan)
    return True


def _opens_modifier(doc: Doc, at: int) -> bool:
    """Does a modifier open at the token: a placing preposition, or a participle with its own?"""
    token = doc[at]
    if token.lower_ in _PLACING:
        return True
    return token.tag_ == "VBN" and at + 1 < len(doc) and doc[at + 1].tag_ == "IN"
