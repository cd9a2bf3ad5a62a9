"""Filtered selections: "Which actor in film X is also in film Y?" names its answer twice.

The question phrase carries a modifier that selects candidates ("actor in film X", "team owned
by X") and the predicate picks among them. Neither fact alone gives the answer: each becomes
its own hop ("Which actor is in film X?", "Which actor is also in film Y?") and a computed hop
names the answer both give.
"""

from __future__ import annotations

from spacy.tokens import Doc, Token

from resin.agent.language.relations import question_type
from resin.agent.planning.conjoined import FINITE, fact, shared, subject_of
from resin.agent.planning.declaratives import front, opens_question
from resin.agent.planning.names import Plan, is_name_word, main_relation, wh_words
from resin.indexes.nlp_extraction import load_pipeline

# Prepositions that place or attach a candidate: "the actor in X", "the rapper on X".
_PLACING = frozenset("in on at from near".split())
# Words before the noun of a question phrase: adjectives, nouns and names modifying it.
_PHRASE_TAGS = frozenset("JJ NN NNS NNP NNPS HYPH CD VBN".split())
# Words that open a clause or join phrases: a modifier holding one is no simple selection.
_JOINS = frozenset("and or , that who whom which whose where when".split())
# Relative words that stand for a clause's subject ("the musician who is best known for …").
_SUBJECT_RELATIVES = frozenset("who that which".split())
_WH_WORDS = frozenset("what which who whom whose where when how".split())


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


def relative_filter(question: str, plan: Plan) -> bool:
    """Read "… WH N that/who CLAUSE …": the rest of the question's candidates, the clause's, shared.

    "X played with what musician who is best known for Y?" → "With what musician did X play?",
    "What musician is best known for Y?" and a computed hop names the answer both give; the
    clause may stand inside ("Which battle, that resulted in X, did Y start?"). The clause is a
    subject relative on the question phrase's noun with a verb of its own and a name, holding no
    question word; the rest of the question must ask with its own predicate.
    """
    doc = load_pipeline()(question)
    wh = next((t for t in doc if t.lower_ in ("what", "which") and t.dep_ == "det"), None)
    noun = wh.head if wh is not None else None
    if wh is None or noun is None or noun.pos_ != "NOUN" or not noun.is_lower or noun.i < wh.i:
        return False
    clause = next((c for c in noun.rights if c.dep_ == "relcl" and _finite(c)), None)
    if clause is None:
        return False
    opener = clause.left_edge
    if opener.is_punct:
        opener = opener.nbor()
    if opener.lower_ not in _SUBJECT_RELATIVES or opener.dep_ not in ("nsubj", "nsubjpass"):
        return False
    if any(t.lower_ in _WH_WORDS and t.i not in (wh.i, opener.i) for t in doc):
        return False  # another question word: the clause asks, or a bridge runs through it
    start = opener.i - (opener.nbor(-1).is_punct and opener.nbor(-1).text == ",")
    if start != noun.i + 1 and not (start > noun.i + 1 and doc[noun.i + 1 : start].text == ","):
        return False
    end = clause.right_edge.i + 1
    if end < len(doc) and doc[end].text == ",":
        end += 1
    if end < len(doc) and not doc[end].is_punct and doc[end].pos_ not in ("VERB", "AUX"):
        return False  # the parse left words of the clause after it: no clean split
    predicate = doc[opener.i + 1 : clause.right_edge.i + 1]
    if not any(is_name_word(t.text) for t in predicate) or predicate.text.count('"') % 2:
        return False
    rest = " ".join([doc[: noun.i + 1].text, doc[end:].text]).strip(" ?.!")
    asked = rest if opens_question(rest) else front(rest)
    if not asked or not any(is_name_word(w) for w in rest.split()[1:]):
        return False
    lead = next((t.i for t in doc[: wh.i] if t.pos_ not in ("ADP", "DET")), wh.i)
    # the words around the question phrase, without a fronted preposition ("With what …")
    subject = subject_of(load_pipeline()(f"{doc[lead : wh.i].text} {doc[end:].text}")[:])
    relation = main_relation(" ".join(w for w in asked.split() if w not in subject.split()))
    first = plan.add(
        f"{asked.rstrip('?')}?", subject, relation, question_type(wh_words(asked), relation)
    )
    phrase = doc[wh.i : noun.i + 1].text
    phrase = phrase[0].upper() + phrase[1:]
    deps = [int(first[1:]), fact(phrase, predicate, plan)]
    kind = question_type(phrase.lower(), "")
    for hop in plan.hops if kind != "other" else ():
        hop.answer_type = kind  # the asked noun types both facts ("what singer": a person)
    shared(question, phrase, deps, [rest, predicate.text], plan)
    return True


def _finite(verb: Token) -> bool:
    """A verb with a tense of its own, or with an auxiliary that has one ("is known")."""
    return verb.tag_ in FINITE or any(
        c.dep_ in ("aux", "auxpass") and c.tag_ in FINITE for c in verb.lefts
    )
