"""Superlative and ordinal descriptions: "the oldest university in X", "the first book in X".

A superlative or an ordinal picks one thing out of those a place, a group or a work holds; with
the name it ranges over, the description is a lookup of its own ("What is the oldest university
in X?"), read before the question that uses it.
"""

from __future__ import annotations

from spacy.tokens import Doc, Token

from resin.agent.language.relations import relation_type
from resin.agent.planning.declaratives import front, opens_question
from resin.agent.planning.names import PLACEHOLDER, Plan, is_name_word
from resin.indexes.nlp_extraction import load_pipeline

# The prepositions a superlative ranges with: "in X", "of X", "on X", "from X", "at X".
_RANGES = frozenset("in of on from at among".split())
_WHOLE = ("what is", "what was", "which is", "which was", "who is", "who was")


def _ranks(token: Token) -> bool:
    """A superlative ("oldest", "most populated") or an ordinal ("second", "fourth-largest")."""
    return token.tag_ in ("JJS", "RBS") or token.ent_type_ == "ORDINAL" and token.is_lower


def _ranked_noun(token: Token) -> Token | None:
    """The lower-case noun a ranking word modifies, through the adjective it grades."""
    noun = token.head
    if noun.pos_ == "ADJ" and noun.dep_ == "amod":
        noun = noun.head
    if token.dep_ not in ("amod", "advmod", "npadvmod") or noun.pos_ != "NOUN":
        return None
    return noun if noun.is_lower and noun.tag_ == "NN" else None


def _span(doc: Doc, noun: Token) -> tuple[int, int] | None:
    """The description's first and last token: "the" … the name its range phrase ends on."""
    det = next((c for c in noun.lefts if c.dep_ == "det" and c.lower_ == "the"), None)
    prep = next((c for c in noun.rights if c.dep_ == "prep" and c.lower_ in _RANGES), None)
    if det is None or prep is None or prep.i != noun.i + 1:
        return None
    end = prep.right_edge.i
    inside = doc[prep.i + 1 : end + 1]
    if any(t.pos_ in ("VERB", "AUX") or t.tag_ in ("WDT", "WP") for t in inside):
        return None  # a clause runs on inside it
    names = [t for t in inside if t.pos_ == "PROPN" and t.ent_type_ not in ("NORP", "LANGUAGE")]
    if not names and not any(PLACEHOLDER.fullmatch(t.text) for t in inside):
        return None  # "the oldest house in the street" names nothing to range over
    after = doc[end + 1] if end + 1 < len(doc) else None
    if after is not None and (after.pos_ == "ADP" or is_name_word(after.text)):
        return None  # the phrase or the name goes on ("… of the National Association for …")
    if any(a.dep_ in ("relcl", "acl") for a in noun.ancestors):
        return None  # inside a clause: the clause's own hop reads it whole
    return det.i, end


def ranked(words: list[str], plan: Plan) -> list[str] | None:
    """Replace the first "the SUPERLATIVE … N in/of NAME" inside a longer question by its hop."""
    doc = load_pipeline()(" ".join(words))
    for token in doc:
        noun = _ranked_noun(token) if _ranks(token) else None
        span = _span(doc, noun) if noun is not None else None
        if noun is None or span is None:
            continue
        start, end = span
        if end >= len(doc) - 2 and doc[:start].text.lower() in _WHOLE:
            continue  # "What is the oldest university in X?" asks it as written
        ref = f"#{len(plan.hops) + 1}"
        rest = [*doc[:start].text.split(), ref, *doc[end + 1 :].text.split()]
        if not opens_question(" ".join(rest)) and front(" ".join(rest)) is None:
            continue
        kind = relation_type(noun.lower_)
        wh = "Who" if kind == "person" else "What"
        name = next(t for t in doc[noun.i + 2 : end + 1] if is_name_word(t.text))
        subject = doc[name.i : end + 1].text
        plan.add(f"{wh} is the {doc[start + 1 : end + 1].text}?", subject, noun.lower_, kind)
        return rest
    return None
