"""Bridges read at a clause or at the main verb: "X was voiced by the actress who … what show?".

`bridge_clause` reads a declarative question whose last relative clause asks; `main_verb` reads
"When did DESCRIPTION VERB …" when the parse took the question's verb into the description.
"""

from __future__ import annotations

import re

from spacy.tokens import Doc, Token

from resin.agent.language.forms import causal_parts
from resin.agent.language.relations import question_type, relation_type
from resin.agent.planning.clauses import WH_OPENERS, gives_name
from resin.agent.planning.descriptions import chain
from resin.agent.planning.names import Plan, entity_end, is_name_word, main_relation, wh_words
from resin.indexes.nlp_extraction import load_pipeline

_IN_SITU = frozenset("what which who whom when where how".split())
_ARTICLES = frozenset("a an the this".split())


def _determiner(words: list[str], at: int) -> bool:
    """A capitalized article that opens no name ("The people for whom …", "A book that …")."""
    nxt = words[at + 1] if at + 1 < len(words) else ""
    return words[at].lower() in ("the", "a", "an", "this") and not is_name_word(nxt)


def _common(token: Token) -> bool:
    """A lower-case noun (the small parser tags some, "lord", as proper nouns)."""
    return token.pos_ in ("NOUN", "PROPN") and token.is_lower


def _article(doc: Doc, noun: Token) -> Token | None:
    """The article that opens the noun's phrase: its own, else the nearest over its modifiers.

    "a Dominican professional baseball left fielder": the parse may hang the article on a
    modifier; only adjectives, nouns and misread participles may stand between.
    """
    own = next((c for c in noun.children if c.dep_ == "det" and c.lower_ in _ARTICLES), None)
    if own is not None:
        return own
    for token in reversed(doc[max(0, noun.i - 6) : noun.i]):
        if token.lower_ in _ARTICLES:
            return token
        if token.pos_ in ("ADP", "AUX", "PUNCT", "PRON", "DET", "CCONJ") and token.tag_ != "HYPH":
            return None
    return None


def bridge_clause(question: str, plan: Plan) -> bool:
    """Read "NAME … a N that/who CLAUSE-asking-what": the N is a bridge, the clause asks of it.

    "Candace Flynn was voiced by the actress who achieved success on what show?" → hop 1 "Who is
    the actress that Candace Flynn was voiced by?" (person), hop 2 "#1 achieved success on what
    show?". A reduced clause gets its verb: "… by an actress born in what year?" → "#1 was born in
    what year?". The clause runs to the question's end and holds its question word; the words
    before the N name a name. "this N" points at the N as "the N" does.
    """
    doc = load_pipeline()(question)
    if not len(doc) or doc[0].lower_ in WH_OPENERS | _IN_SITU:
        return False
    # the last question word: an earlier one may be the clause's own relative word ("who")
    wh = next(
        (t for t in reversed(doc[1:]) if t.lower_ in _IN_SITU and t.tag_ in ("WDT", "WP", "WRB")),
        None,
    )
    if wh is None:
        return False
    clause = next(
        (a for a in wh.ancestors if a.dep_ in ("relcl", "acl") and _common(a.head)),
        None,
    )
    if clause is None:
        return False
    noun = clause.head
    if clause.left_edge.i > 0 and _common(doc[clause.left_edge.i - 1]):
        noun = doc[clause.left_edge.i - 1]  # a clause hangs on the noun just before it
    det = _article(doc, noun)
    last = len(doc) - 1 - (doc[-1].is_punct)
    if det is None or clause.left_edge.i != noun.i + 1 or clause.right_edge.i < last:
        return False
    before = doc[: det.i].text.split()
    named = [j for j, w in enumerate(before) if is_name_word(w) and not _determiner(before, j)]
    verbs = [t for t in doc[: det.i] if t.pos_ in ("VERB", "AUX")]
    if not named or not verbs or verbs == [doc[det.i - 1]] and verbs[0].lemma_ == "be":
        return False  # "X is an area where …" describes X itself: no bridge
    bridge = doc[det.i + 1 : noun.i + 1].text
    kind = relation_type(noun.lower_)
    if kind == "other" and doc[noun.i + 1].lower_ in ("who", "whom"):
        kind = "person"
    subject = " ".join(before[named[0] : entity_end(before, named[0])])
    relation = " ".join([noun.lower_, *(w for w in before if not is_name_word(w))])
    rest = doc[noun.i + 1 : last + 1]
    if len(rest) > 1 and rest[1].is_punct:
        return False  # "a style that, when …, is called what": an aside splits the clause
    if rest[0].lower_ in ("who", "whom", "that", "which"):
        tail = rest[1:].text.split()
    elif rest[0].tag_ == "VBN":  # a reduced clause: "born in what year", "set in what state"
        tail = ["was", *rest.text.split()]
    elif rest[0].tag_ == "VBG":  # "specializing in what type of fighting"
        tail = rest.text.split()
    else:
        return False
    wh_noun = "Who" if kind == "person" else "What"
    ref = plan.add(f"{wh_noun} is the {bridge} that {' '.join(before)}?", subject, relation, kind)
    asked = [ref, *tail]
    if wh.dep_ == "det":  # "what show"
        phrase = doc[wh.i : wh.head.i + 1].text
    else:  # "who", "where", "how many"
        phrase = doc[wh.i : wh.i + 2].text if wh.lower_ == "how" else wh.text
    own = " ".join(w for w in asked[1:] if w.lower() not in phrase.lower().split())
    plan.add(f"{' '.join(asked)}?", ref, main_relation(own), question_type(phrase, own))
    return True


_DID = re.compile(
    r"^((?:\w+ )?(?:when|where|who|whom|what|which|how|why)(?: \w+)?) (did|does|do) (.+)$", re.I
)

_VERBLESS_CLAUSE = re.compile(r"\b(?:where|when|that|which|who|whom) #\d+\?$")


def main_verb(question: str, plan: Plan) -> bool:
    """Read "When did DESCRIPTION VERB …" at its main verb, when the parse took the verb in.

    The first bare verb after "did" that no modal or "to" governs is the question's own ("When
    did the luxury division of the company that made the Orla Coupe change the body style of
    the Vane 350?": "change"): the words before it are one description, read as `chain` reads
    one, and the question asks its predicate of the description's answer ("When did #2 change
    the body style of the Vane 350?").
    """
    opening = _DID.match(question)
    if not opening:
        return False
    doc = load_pipeline()(opening.group(3))
    verb = next(
        (t for t in doc[1:] if t.tag_ in ("VB", "VBP") and doc[t.i - 1].tag_ not in ("MD", "TO")),
        None,
    )
    if verb is None or not chain(f"What is {doc[: verb.i].text}", plan):
        return False
    if _VERBLESS_CLAUSE.search(plan.hops[-1].question):
        return False  # "What is the place where #2?": the description's clause lost its verb
    ref = f"#{plan.hops[-1].id}"
    asked = f"{opening.group(1)} {opening.group(2)} {ref} {doc[verb.i :].text}"
    relation = main_relation(" ".join(w for w in asked.split() if w != ref))
    plan.add(f"{asked}?", ref, relation, question_type(wh_words(asked), relation))
    return True


# Modifiers through which a name describes a noun: "an actor in X", "the film directed by X",
# "the team that X coached".
_DESCRIBING = frozenset("prep acl relcl".split())


def _description_end(doc: Doc, noun: Token, naming: list[Token]) -> int | None:
    """Where the description of `noun` ends, or None where no clean phrase can be cut.

    The first naming modifier ends it ("an actor in X" of "an actor in X nominated for Y", where
    the parse hung the question's verb on the noun); a preposition or clause after it belongs to
    it. A place chain ("in Billund, Denmark") is kept whole; a quoted title or an aside cut by
    the phrase's end leaves no clean question.
    """
    end = max(t.i for t in naming[0].subtree)
    later = [m for m in noun.rights if m.i > end and m.dep_ in ("prep", "relcl")]
    if later or doc[end + 1 : end + 2].text.lower() in ("that", "who", "which", "whose"):
        end = max(t.i for t in noun.subtree)
    while doc[end + 1 : end + 2].text == "," and doc[end + 2 : end + 3].text[:1].isupper():
        end += 2  # "Billund, Denmark"
        while doc[end + 1 : end + 2].text[:1].isupper() and doc[end + 1].pos_ == "PROPN":
            end += 1
    if doc[end].is_punct and doc[end].text != '"':
        end -= 1
    if doc[: end + 1].text.count('"') % 2 or doc[end + 1 : end + 2].text == ",":
        return None
    return end


def described_noun(question: str, plan: Plan) -> bool:
    """Read a noun phrase a name describes as a hop, when no other reading splits the question.

    "For what film was an actor in Alligator nominated?" → hop 1 "Who is an actor in
    Alligator?", hop 2 "For what film was #1 nominated?". The noun is common (lower case) with
    its article, a modifier of it (a preposition, participle or relative clause) names a name,
    the phrase holds no question word, and the question keeps a verb (or a verb's auxiliary and
    a final preposition, "What film was #1 in?") besides.
    """
    if causal_parts(question):
        return False  # "What happens to the trout in X when …?" follows the cause, not a lookup
    doc = load_pipeline()(question)
    for noun in doc:
        if not _common(noun) or noun.pos_ != "NOUN" or noun.dep_ == "compound":
            continue
        det = _article(doc, noun)
        if det is None or det.i == 0 or doc[det.i - 1].lower_ == "of":
            continue  # "One of the directors of X": the phrase belongs to the word before
        if doc[det.i - 1].lemma_ == "be" and not any(t.lower_ in _IN_SITU for t in doc[: det.i]):
            continue  # "X is a band that …" says what X is
        if any(a.dep_ == "advcl" for a in noun.ancestors):
            continue  # "… when the glacier in X retreats": a condition, not a thing to look up
        naming = [
            m
            for m in noun.rights
            if m.dep_ in _DESCRIBING and any(t.pos_ == "PROPN" for t in m.subtree)
        ]
        if not naming or naming[0].lower_ == "of" or gives_name(naming[0]):
            continue  # of-phrases are the of-readers' ("the construction of X"); "called X" is X
        end = _description_end(doc, noun, naming)
        if end is None:
            continue
        phrase = doc[det.i : end + 1]
        if any(t.dep_ == "cc" for t in phrase) or doc[end + 1 : end + 2].text[:1].isupper():
            continue  # "directed by X and starring Y" is an intersection; "starring Pelle | Varn"
        rest = [*doc[: det.i], *doc[end + 1 :]]
        if any(t.lower_ in _IN_SITU for t in phrase) or not any(t.lower_ in _IN_SITU for t in rest):
            continue
        last = [t for t in rest if not t.is_punct][-1]
        own_verb = any(t.pos_ == "VERB" and t.lemma_ not in ("do", "be") for t in rest)
        stranded = last.pos_ == "ADP" and any(t.pos_ == "AUX" for t in rest)  # "… was #1 in?"
        if not (own_verb or stranded) or last.lower_ in _IN_SITU | {"that"}:
            continue  # "What movie was #1", "When did the place where #1": it took the verb
        # the name the modifier holds: its head proper noun with the proper nouns before it
        names = [t for t in naming[0].subtree if t.pos_ == "PROPN"]
        head = next((t for t in names if t.dep_ != "compound"), names[-1])
        first = head.i
        while doc[first - 1].pos_ == "PROPN" and doc[first - 1].dep_ == "compound":
            first -= 1
        kind = relation_type(noun.lower_)
        wh_noun = "Who" if kind == "person" else "What"
        ref = plan.add(
            f"{wh_noun} is {phrase.text}?", doc[first : head.i + 1].text, noun.lower_, kind
        )
        asked = f"{doc[: det.i].text} {ref} {doc[end + 1 :].text}"
        relation = main_relation(" ".join(w for w in asked.split() if w != ref))
        plan.add(f"{asked.rstrip('?')}?", ref, relation, question_type(wh_words(asked), relation))
        return True
    return False
