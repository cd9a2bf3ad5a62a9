"""Participle descriptions: "the film directed by X", "the song performed by X in 1990".

A clause with no relative word nor verb of its own is read off the question's parse like the
clauses of `resin.agent.planning.clauses`, and replaced by a placeholder for its hop.
"""

from __future__ import annotations

import re

from spacy.tokens import Doc

from resin.agent.language.relations import relation_type
from resin.agent.planning.clauses import RELATIVES, end_of_clause, gives_name, opening
from resin.agent.planning.declaratives import front, opens_question
from resin.agent.planning.names import PLACEHOLDER, Plan, entity_end, is_name_word
from resin.indexes.nlp_extraction import load_pipeline

# What is left when a description is the question's whole subject: "What is", "Which was".
_ASKS_WHAT = re.compile(r"^(?:what|which|who) (?:is|was|are|were)$", re.I)


def participle(words: list[str], plan: Plan) -> list[str] | None:
    """Replace "the N VERBED … NAME", a clause with no relative word nor verb of its own, by its hop.

    "the film directed by X" → "What is the film directed by X?"; "the film starring X". It
    runs over the verb's phrase and the noun's own prepositional phrases ("the song performed by
    X in 1990"). A description that is the whole question is what it asks, not a hop before it;
    an indefinite one ("a film directed by X") is read like "the film …" when it names a name.
    """
    doc = load_pipeline()(" ".join(words))
    for verb in doc[2:]:
        noun = verb.head
        if verb.dep_ != "acl" or verb.tag_ not in ("VBN", "VBG") or not verb.is_lower:
            continue  # "the documentary Making …" is a title
        if any(t.tag_ != "RB" for t in doc[noun.i + 1 : verb.i]):
            continue  # "the drink normally consumed with X": only adverbs between
        if noun.pos_ != "NOUN" or not noun.is_lower:
            continue
        start = opening(doc, noun)
        if start is None:
            continue
        # the verb's phrase, and the noun's own prepositional phrases after it ("… in 1990")
        ends = [verb.right_edge.i, *(c.right_edge.i for c in noun.rights if c.dep_ == "prep")]
        end = end_of_clause(doc, max(ends))
        if end >= len(doc) - 2 and _ASKS_WHAT.match(doc[:start].text):
            continue
        if _not_a_description(doc, start, verb.i, end):
            continue
        if any(t.dep_ == "cc" and t.lower_ in ("and", "or") for t in doc[verb.i : end + 1]):
            continue  # "directed by X and starring Y": several conditions, no one hop's question
        clause = doc[verb.i : end + 1].text.split()
        names = {
            t.text for t in doc[verb.i : end + 1] if t.pos_ == "PROPN" and t.ent_type_ != "NORP"
        }
        named = [
            j
            for j, w in enumerate(clause)
            if PLACEHOLDER.match(w) or is_name_word(w) and w.strip("\"“,.'") in names
        ]
        if not named:
            continue  # "the club founded in 1905", "… by a German maker" name nothing to look up
        if doc[start].lower_ != "the" and all(PLACEHOLDER.match(clause[j]) for j in named):
            continue  # "in a sitcom produced by #1": the last hop reads an indefinite one whole
        if gives_name(verb):
            continue  # "a song called X" is X: nothing to look up
        refs = [w for w in clause if PLACEHOLDER.fullmatch(w.rstrip("'s"))]
        subject = refs[0] if refs else " ".join(clause[named[0] : entity_end(clause, named[0])])
        kind = relation_type(noun.lower_)
        wh = "Who" if kind == "person" else "What"
        relation = " ".join(w for w in clause if not is_name_word(w))
        ref = f"#{len(plan.hops) + 1}"
        rest = [*doc[:start].text.split(), ref, *doc[end + 1 :].text.split()]
        if not opens_question(" ".join(rest)) and front(" ".join(rest)) is None:
            continue  # a statement left that no question can be made of
        plan.add(f"{wh} is the {doc[start + 1 : end + 1].text}?", subject, relation, kind)
        return rest
    return None


_WH_WORDS = frozenset("what which who whom whose where when how".split())


def _not_a_description(doc: Doc, start: int, verb: int, end: int) -> bool:
    """Is "the N VERBED …" no closed description (the question's own verb, a clause, an aside)?

    "When was the actor born …": after "was" the participle is the question's own predicate
    unless another verb follows ("When was the film directed by X released"). A question word
    or a finite verb inside means the parse ran the clause on; commas around it set it aside, and
    a relative clause after it carries the description on.
    """
    inside = doc[verb : end + 1]
    if any(t.lower_ in _WH_WORDS or t.tag_ in ("VBD", "VBZ", "VBP", "MD") for t in inside):
        return True
    after = doc[end + 1].lower_ if end + 1 < len(doc) else ""
    cut = doc[end + 1 : end + 2]
    attached = cut and (start <= cut[0].head.i <= end or cut[0].dep_ in ("dep", "appos", "amod"))
    if cut.text.islower() and cut[0].pos_ in ("NOUN", "ADJ") and attached:
        return True  # "about the executive whistleblower": the parse cut a noun phrase
    if end + 1 < len(doc) and is_name_word(doc[end].text) and is_name_word(doc[end + 1].text):
        return True  # "starring Pelle | Varn": the parse cut a name
    if start > 0 and doc[start - 1].text == "," or after in (",", *RELATIVES):
        return True  # an aside, or a description that a relative clause carries on
    if inside.text.count('"') % 2:
        return True  # a quoted title the clause would split
    own_verb = any(t.pos_ == "VERB" for t in doc[end + 1 :])
    return start > 0 and doc[start - 1].lemma_ == "be" and not own_verb
