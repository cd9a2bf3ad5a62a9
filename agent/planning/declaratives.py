"""Declarative questions: the question word stands inside ("X was born in what city?").

People write many questions as statements with a gap: "The director of X was born in what city?",
"#1 was directed by whom?". A hop must open with its question words (the hop reader and the
answer types read them there), so the phrase that holds the gap is moved to the front and the
clause inverted: "In what city was the director of X born?", "By whom was #1 directed?". The
move follows the parse: the question word must hang on the main verb through noun phrases and
prepositions only, not through a clause of its own ("the actress who won what award" keeps it).
"""

from __future__ import annotations

import re

from spacy.tokens import Doc, Span, Token

from resin.agent.language.relations import question_type, relation_type
from resin.agent.planning.names import (
    PLACEHOLDER,
    Plan,
    entity_end,
    is_name_word,
    main_relation,
    wh_words,
)
from resin.indexes.nlp_extraction import load_pipeline

_WH = frozenset("what which who whom whose where when how".split())
# Words a question opens with: a question word, an auxiliary, or a preposition before one.
_OPENS = re.compile(
    r"^(?:(?:what|which|who|whom|whose|where|when|how|why)\b"
    r"|(?:is|are|was|were|do|does|did|has|have|had|can|could|will|would|should)\b"
    r"|\w+ (?:what|which|who|whom|whose|where|when|how)\b)",
    re.I,
)
# How the question word may hang on the main verb: inside noun phrases and prepositional phrases.
_PATH = frozenset(
    "det pobj pcomp prep agent dobj attr advmod npadvmod amod compound nummod quantmod acomp oprd "
    "dative poss".split()
)
# What may follow the moved phrase: modifiers of the verb ("… in 2011", "… in World War II").
_AFTER = frozenset("prep agent advmod npadvmod punct".split())
# Prepositions a question opens with ("In what city …", "By whom …"); others are left at the end.
_PIED = frozenset("in on at for from by to of with during after before since as".split())
_DO = {"VBD": "did", "VBZ": "does", "VBP": "do"}
# Names the parser reads as names, one per placeholder, for the parse only.
_STAND_INS = ("Paris", "London", "Berlin", "Madrid", "Vienna")


def opens_question(text: str) -> bool:
    """Does the text open as a question does (a question word, auxiliary, "In which …")?"""
    return bool(_OPENS.match(text.strip()))


def front(question: str) -> str | None:
    """The question with its inner question phrase moved to the front; None when it cannot be.

    "#1 was born in what city?" → "In what city was #1 born?"; "#1 also created what comedy?" →
    "What comedy did #1 also create?". A preposition after a noun stays where it is, the gap
    becoming a relative clause: "#1 was a part of what party?" → "What is the party that #1 was
    a part of?".
    """
    text = " ".join(question.strip().rstrip("?.! ").split())
    if not text or opens_question(text):
        return None
    refs = PLACEHOLDER.findall(text)
    stand_ins = [s for s in _STAND_INS if s not in text][: len(refs)]
    if len(stand_ins) < len(refs):
        return None
    for ref, stand_in in zip(refs, stand_ins, strict=True):
        text = re.sub(rf"{re.escape(ref)}(?!\d)", stand_in, text, count=1)
    doc = load_pipeline()(text)
    moved = _move(doc)
    if moved is None:
        return None
    for ref, stand_in in zip(refs, stand_ins, strict=True):
        moved = re.sub(rf"\b{stand_in}\b", ref, moved, count=1)
    return moved


def _path(wh: Token, root: Token) -> list[Token] | None:
    """The tokens from the question word up to the main verb's dependent, when all in `_PATH`."""
    path = [wh]
    node = wh
    while node.head.i != root.i:
        # the small parser reads "in what play" and "how many feet tall" as clauses: "what" the
        # subject of "play", "feet" of "tall"
        measure = node.pos_ == "ADJ" and node.dep_ == "ccomp"
        clause_read = node.dep_ == "nsubj" and node.head.dep_ in ("pcomp", "ccomp") or measure
        if (node.dep_ not in _PATH and not clause_read) or node.head.i == node.i:
            return None
        node = node.head
        path.append(node)
    return path if node.dep_ in _PATH or node.pos_ == "ADJ" and node.dep_ == "ccomp" else None


def _move(doc: Doc) -> str | None:
    end = len(doc) - (len(doc) > 0 and doc[-1].is_punct)
    roots = [t for t in doc[:end] if t.dep_ == "ROOT"]
    if len(roots) != 1 or roots[0].pos_ not in ("VERB", "AUX"):
        return None
    root = roots[0]
    whs = [t for t in doc[:end] if t.lower_ in _WH]
    path = _path(whs[0], root) if len(whs) == 1 and whs[0].i > 0 else None
    if not path:
        return None  # a second question word may open a clause the parse did not see
    prep = next((t for t in path if t.dep_ in ("prep", "agent")), None)
    top = path[-1]
    # "a part of what party"; "around which instrument" reads better as "which instrument … around"
    stranded = prep is not None and (prep.i != top.i or prep.lower_ not in _PIED)
    if prep is not None and stranded:
        start, stop = prep.i + 1, prep.right_edge.i + 1
    else:
        start, stop = top.left_edge.i, top.right_edge.i + 1
    subjects = [c for c in root.children if c.dep_ in ("nsubj", "nsubjpass")]
    if len(subjects) != 1 or subjects[0].left_edge.i != 0 or subjects[0].right_edge.i >= root.i:
        return None
    subject = doc[: subjects[0].right_edge.i + 1]
    if start <= root.i or start <= subject.end:
        return None
    opening = doc[start : start + 1 + (doc[start].dep_ in ("prep", "agent"))]
    if opening[-1].lower_ not in _WH:
        return None  # the phrase must open with its question word ("how many", "in what city")
    if doc[start:stop].text.count('"') % 2:
        return None  # the phrase would split a quoted title
    after = doc[stop:end]
    if any(not _modifies(t, root) for t in after):
        return None  # the parse split the phrase: what follows is not the verb's modifier
    middle = list(doc[subject.end : start])
    # "#1 is the chairman of what?": a bare question word leaves its preposition at the end
    bare = stranded and stop - start == 1 and not after and doc[start].lower_ in ("what", "whom")
    if stranded and not bare:
        # "#1 is the capital of what region?" → "What is the region that #1 is the capital of?"
        if after or doc[start].lower_ not in ("what", "which") or stop - start < 2:
            return None
        if any(t.pos_ in ("VERB", "AUX") for t in doc[start:stop]):
            return None  # "what standard that originated in …": a clause the relative cannot hold
        noun = doc[start + 1 : stop].text
        return f"What is the {noun} that {_lowered(subject)} {doc[subject.end : start].text}?"
    aux = next((t for t in middle if t.dep_ in ("aux", "auxpass") and t.head.i == root.i), None)
    if aux is None and root.lemma_ == "be":
        aux = root
    if aux is not None:
        rest = [t.text for t in middle if t.i != aux.i]
        verb = aux.text.lower()
    elif root.tag_ in _DO:
        verb = _DO[root.tag_]
        rest = [root.lemma_ if t.i == root.i else t.text for t in middle]
    else:
        return None
    phrase = doc[start:stop].text
    words = [phrase[:1].upper() + phrase[1:], verb, _lowered(subject), *rest, after.text]
    return " ".join(" ".join(w for w in words if w).split()) + "?"


def _modifies(token: Token, root: Token) -> bool:
    """Is the token part of a modifier of the main verb ("in 2011")?"""
    node = token
    while node.head.i != root.i and node.head.i != node.i:
        node = node.head
    return node.head.i == root.i and node.dep_ in _AFTER


def _lowered(subject: Span) -> str:
    """The subject as it reads after the verb: "The brother of X" → "the brother of X"."""
    first = subject[0]
    if first.tag_ == "DT" and len(subject) > 1 and subject[1].is_lower:
        return f"{first.lower_} {subject[1:].text}"
    return subject.text


# Prepositions after a noun that place or equip it: "a dam on which river", "a town with how many
# residents" (the second hop asks "#1 has …", for a quantity only).
_BRIDGE_PREPS = frozenset("in on at near along with".split())


def bridge_prep(question: str, plan: Plan) -> bool:
    """Read "X VERB a N PREP what …" as two hops: the N, then where it stands or what it has.

    "Hessa Varn designed a dam on which river?" → "What is the dam that Hessa Varn designed?",
    "On which river is #1?"; "X was born in a town with how many residents?" → "… town that X
    was born in?", "How many residents does #1 have?". A verb other than "be" must come before
    the noun: "X is a city in what county" asks about X itself.
    """
    if opens_question(question) or PLACEHOLDER.search(question):
        return False
    doc = load_pipeline()(question)
    end = len(doc) - (len(doc) > 0 and doc[-1].is_punct)
    whs = [t for t in doc[:end] if t.lower_ in _WH]
    if len(whs) != 1:
        return False
    prep = next((a for a in whs[0].ancestors if a.dep_ == "prep"), None)
    if prep is None or prep.lower_ not in _BRIDGE_PREPS or prep.right_edge.i < end - 1:
        return False
    if prep.lower_ == "with" and whs[0].lower_ != "how":
        return False  # "a sitcom with what other actor" is company, not something it has
    noun = prep.head
    if noun.i != prep.i - 1 or noun.pos_ != "NOUN" or not noun.is_lower:
        return False
    det = next(
        (c for c in noun.children if c.dep_ == "det" and c.lower_ in ("a", "an", "the")), None
    )
    if det is None or det.i == 0:
        return False
    before = doc[: det.i]
    verbs = [t for t in before if t.pos_ in ("VERB", "AUX")]
    if not verbs or verbs[-1].lemma_ == "be" and verbs[-1].i == det.i - 1:
        return False
    named = [j for j, w in enumerate(before.text.split()) if is_name_word(w)]
    if not named:
        return False
    words = before.text.split()
    kind = relation_type(noun.lower_)
    bridge = doc[det.i + 1 : noun.i + 1].text
    wh = "Who" if kind == "person" else "What"
    subject = " ".join(words[named[0] : entity_end(words, named[0])])
    relation = " ".join([noun.lower_, *(w for w in words if not is_name_word(w))])
    placed = doc[prep.i + 1 : end].text if prep.lower_ == "with" else doc[prep.i : end].text
    asked = front(f"#{len(plan.hops) + 1} {'has' if prep.lower_ == 'with' else 'is'} {placed}")
    if asked is None:
        return False
    ref = plan.add(f"{wh} is the {bridge} that {before.text}?", subject, relation, kind)
    own = doc[prep.i : end].text
    plan.add(asked, ref, main_relation(own), question_type(wh_words(asked), own))
    return True
