"""Descriptions a clause makes: relative clauses, free relatives, contact clauses, "the N in #k".

"the city where X died", "the school that owns X", "what X owns", "the band X joined": each is
read off the question's parse and replaced by a placeholder for the hop that resolves it.
"""

from __future__ import annotations

import re

from spacy.tokens import Doc, Span, Token

from resin.agent.language.relations import AnswerType, relation_type
from resin.agent.planning.declaratives import front, opens_question
from resin.agent.planning.names import PLACEHOLDER, Plan, asks_nothing, entity_end, is_name_word
from resin.indexes.nlp_extraction import load_pipeline

# A kind of work before its title ("the film X").
KIND_WORDS = re.compile(
    r"^(?:the )?(?:(?:film|movie|song|album|novel|book|series|show|band|single|play|opera|"
    r"poem|painting|game|video game|tv series|television series|magazine|newspaper) )"
)
RELATIVES = ("where", "that", "which", "who", "whom", "whose")
# Participles that give a thing's name rather than describe it ("a song called X" is X).
_NAMING = frozenset("called named entitled titled dubbed nicknamed".split())
# Words a question opens with (a clause opening so is the question's own, not a description).
WH_OPENERS = frozenset("in at on what which when where how".split())


def opening(doc: Doc, noun: Token) -> int | None:
    """Where the description of `noun` opens: "the" just before it, else its own article.

    A long premodifier ("a 2004 American teen comedy film") puts the article further left
    than a window reaches; the parse's determiner of the noun is the description's start.
    """
    near = next((t.i for t in doc[max(0, noun.i - 3) : noun.i] if t.lower_ == "the"), None)
    if near is not None:
        return near
    det = next((c for c in noun.lefts if c.dep_ == "det" and c.lower_ in ("the", "a", "an")), None)
    if det is None or any(t.pos_ in ("VERB", "AUX", "ADP") for t in doc[det.i + 1 : noun.i]):
        return None
    return det.i


def end_of_clause(doc: Doc, end: int) -> int:
    """A clause's last token: no final punctuation, but the closing quote of a title it opened."""
    if doc[end].is_punct and doc[end].text != '"':
        end -= 1
    if doc[: end + 1].text.count('"') % 2 and end + 1 < len(doc) and doc[end + 1].text == '"':
        end += 1
    return end


def _main_participle(doc: Doc, start: int, clause_start: int, clause_end: int) -> int:
    """Where the question's own participle phrase starts inside the clause, or 0 (none).

    "In what year was the university where X was a professor founded?", "When was the star who
    left the team signed by Barcelona?": a question that opens with a bare "was" before the noun
    needs a participle of its own, and the small parser hangs it inside the clause. It is the
    clause's last participle phrase, not the clause's own verb ("that was designed by X").
    "What county is the N …" asks already: a participle of its own is a bare one ("… located
    in"), and one that names something ("… coached by X") is the clause's.
    """
    # "When was", "In what year was", "What county is": the question word, then a bare "was"
    be = next((t.i for t in doc[1 : min(start, 4)] if t.lemma_ == "be"), None)
    if be is None or doc[0].lower_ not in WH_OPENERS or doc[be + 1].pos_ == "VERB":
        return 0
    asks = doc[0].lower_ in ("what", "which")
    for token in doc[clause_start + 3 : clause_end + 1]:
        if token.tag_ != "VBN" or token.dep_ == "relcl" or token.nbor(-1).pos_ in ("AUX", "PART"):
            continue
        if asks and any(t.pos_ in ("PROPN", "NOUN", "NUM") for t in token.subtree):
            continue
        if max(t.i for t in token.subtree) >= clause_end and clause_end >= len(doc) - 2:
            return token.i
    return 0


def relative(words: list[str], plan: Plan) -> list[str] | None:
    """Replace the first "the N where/that/who CLAUSE" whose clause names a name or #k by its hop.

    The clause belongs to the noun just before its relative word (English puts it there; the
    small parser often attaches it further up); it ends where the parse's clause ends. An
    indefinite one ("a band that X founded") is a hop when its clause names a proper name and
    the question does not say what its subject is ("X is a band that …"); a clause that holds
    the question word is what is asked, not a description. One set off by commas ("the band,
    whose bassist joined X, formed") ends at its closing comma.
    """
    doc = load_pipeline()(" ".join(words))
    for rel in reversed(doc):  # the innermost clause first: it holds no other
        opener = rel.lower_
        if opener not in RELATIVES or rel.i < 2:
            continue
        if not any(t.pos_ in ("VERB", "AUX") for t in doc[rel.i + 1 :]):
            continue  # "in which Maryland county?" asks; it opens no clause
        if opener == "which" and (rel.dep_ == "det" or doc[rel.i + 1].pos_ in ("ADJ", "NOUN")):
            continue  # "…, which rival brewer were they …": a question phrase, no clause
        aside = doc[rel.i - 1].text == "," and opener in ("who", "whose", "which")
        noun = doc[rel.i - 1 - aside]  # "the band, whose bassist joined X in 1996, formed"
        if noun.tag_ in ("IN", "TO") and noun.lower_ != "of" and opener in ("which", "whom"):
            noun = doc[rel.i - 2]  # "the league in which …", "the person to whom …"
        if noun.pos_ == "PROPN" and not _title(doc, noun):
            noun = _placed(doc, noun) or noun  # "the show in Las Vegas that …": the show's clause
        if noun.pos_ not in ("NOUN", "PROPN") or not noun.is_lower and not _title(doc, noun):
            continue
        start = opening(doc, noun)
        if start is None:
            continue
        clause_start = noun.i + 1 + aside
        ends = [
            max(t.i for t in tok.subtree)
            for tok in doc[clause_start:]
            if tok.dep_ in ("relcl", "acl", "advcl", "ccomp")
            and min(t.i for t in tok.subtree) == clause_start
        ]
        clause_end = end_of_clause(doc, max(ends) if ends else len(doc) - 1)
        own = _main_participle(doc, start, clause_start, clause_end)
        if own:
            clause_end = own - 1  # "when was the N where X taught founded?": the question's verb
        if aside and doc[clause_end].text == ",":
            clause_end -= 1  # the comma that closes the aside is no part of its hop
        if aside and not any(t.pos_ in ("VERB", "AUX") for t in doc[rel.i : clause_end + 1]):
            continue  # the aside's verb lies past where the parse ends it
        if any(t.dep_ == "relcl" and gives_name(t) for t in doc[clause_start : clause_end + 1]):
            continue  # "a mascot who is named X" is X
        verbs = [t for t in doc[rel.i + 1 : clause_end + 1] if t.tag_.startswith(("VB", "MD"))]
        if opener == "where" and all(t.dep_ == "acl" for t in verbs):
            continue  # "where the head of the region named after X": no clause of its own
        if any(_asks(t) for t in doc[clause_start + 1 : clause_end + 1]):
            continue  # "a party that held power until what year?": the clause is what is asked
        definite = doc[start].lower_ == "the"
        if not definite and start > 0 and doc[start - 1].lemma_ == "be":
            continue  # "X is a group who …" says what X is: no bridge
        clause = doc[clause_start : clause_end + 1].text.split()
        named = [j for j, w in enumerate(clause) if is_name_word(w)]
        proper = _proper(doc[clause_start : clause_end + 1])
        names = [j for j in named if clause[j].strip("\"“,.'") in proper]
        thing = None if named or not definite else _object(doc[clause_start : clause_end + 1])
        if not named and thing is None or not definite and not names:
            continue  # an indefinite one is read when it names a name ("in a film with #1": whole)
        # the first name that holds a proper noun ("the 1925 Birthday Honours", not "American")
        named = [j for j in named if set(range(j, entity_end(clause, j))) & set(names)] or named
        head = doc[start + 1 : noun.i + 1].text
        kind = relation_type(noun.lower_)
        if opener == "where" and kind == "other":
            kind = "place"
        if opener in ("who", "whom") and kind == "other":
            kind = "person"
        wh = "Who" if kind == "person" else "What"
        refs = [w for w in clause if PLACEHOLDER.fullmatch(w.rstrip("'s"))]
        if thing is not None:  # "the biologist who first described pale gill fever"
            subject = thing.text
            owned = set(thing.text.split())
        else:
            first = named[0]
            subject = refs[0] if refs else " ".join(clause[first : entity_end(clause, first)])
            owned = set()
        relation = " ".join(
            w
            for w in clause
            if w.lower() not in RELATIVES and not is_name_word(w) and w not in owned
        )
        before = doc[:start].text.split()
        after = doc[clause_end + 1 + (aside and doc[clause_end + 1 : clause_end + 2].text == ",") :]
        after = after.text.split()
        rest = " ".join([*before, f"#{len(plan.hops) + 1}", *after])
        if not definite and not opens_question(rest) and front(rest) is None:
            continue  # a statement left that no question can be made of
        ref = plan.add(f"{wh} is the {head} {' '.join(clause)}?", subject, relation, kind)
        return [*before, ref, *after]
    return None


def _object(clause: Span) -> Span | None:
    """The thing a clause that names no name is about: its verb's object, a common noun phrase.

    "who first described *pale gill fever*": a name of the user's documents the parser does not
    capitalize. A bare word ("who won *awards*"), a quantity ("in *many landmarks*") or a
    pronoun's ("that began *their tour*") names nothing to look up.
    """
    for chunk in clause.noun_chunks:
        words = [t for t in chunk if t.pos_ != "DET"]
        if (
            chunk.root.dep_ in ("dobj", "pobj")
            and chunk.root.pos_ == "NOUN"
            and len(words) > 1
            and words[0].lower_ not in _QUANTIFIERS
            and not any(t.pos_ == "PRON" for t in chunk)
        ):
            return chunk[len(chunk) - len(words) :]
    return None


_QUANTIFIERS = frozenset("many several few some most all various numerous other".split())


def _title(doc: Doc, noun: Token) -> bool:
    """A capitalized common noun right after "the" that names no one ("the King who …")."""
    return noun.i > 0 and doc[noun.i - 1].lower_ == "the" and not noun.ent_type_


def _placed(doc: Doc, name: Token) -> Token | None:
    """The common noun a name's place phrase follows ("show" of "the show in Las Vegas").

    A relative clause after such a name belongs to the noun: a name needs no restricting clause.
    """
    at = name.i
    while at > 0 and doc[at - 1].pos_ == "PROPN":
        at -= 1
    if at < 2 or doc[at - 1].lower_ not in ("in", "from", "at", "on"):
        return None
    noun = doc[at - 2]
    return noun if noun.pos_ == "NOUN" and noun.is_lower else None


def gives_name(verb: Token) -> bool:
    """A verb that gives a name: "called X", not "named after X"."""
    return verb.lower_ in _NAMING and not any(c.dep_ == "prep" for c in verb.children)


def _asks(token: Token) -> bool:
    """A question word: "what", "how", or "which" before a noun ("which two countries")."""
    return token.lower_ in ("what", "how") or token.lower_ == "which" and token.dep_ == "det"


def _proper(span: Span) -> set[str]:
    """The proper names' words in a span: no nationality ("American") nor number ("1995")."""
    return {t.text for t in span if t.pos_ == "PROPN" and t.ent_type_ != "NORP"}


_FREE: dict[str, AnswerType] = {
    "who": "person",
    "whom": "person",
    "where": "place",
    "what": "other",
}


def free_relative(words: list[str], plan: Plan) -> list[str] | None:
    """Replace a clause a preposition takes whole, its relative word its own noun, by its hop.

    "the label responsible for who sang Delta Hardware" → hop "Who sang Delta Hardware?"
    (person); "the expedition to where Min dialects are spoken" → "Where are …". The clause is
    the parse's subtree of the preposition's verb, and it names a name or #k.
    """
    doc = load_pipeline()(" ".join(words))
    for rel in doc[2:]:
        if rel.lower_ not in _FREE or doc[rel.i - 1].pos_ != "ADP" or rel.dep_ == "det":
            continue  # "in what province" asks; it opens no clause
        verb = next(
            (
                t
                for t in doc[rel.i + 1 :]
                if t.dep_ == "pcomp" and t.head.i == rel.i - 1 and t.left_edge.i == rel.i
            ),
            None,
        )
        if verb is None:
            continue
        end = end_of_clause(doc, verb.right_edge.i)
        clause = doc[rel.i + 1 : end + 1].text.split()
        named = [j for j, w in enumerate(clause) if is_name_word(w)]
        if not named:
            continue
        refs = [w for w in clause if PLACEHOLDER.fullmatch(w.rstrip("'s"))]
        subject = refs[0] if refs else " ".join(clause[named[0] : entity_end(clause, named[0])])
        relation = " ".join(w for w in clause if not is_name_word(w))
        kind = _FREE[rel.lower_]
        ref = plan.add(f"{rel.text.capitalize()} {' '.join(clause)}?", subject, relation, kind)
        return [*doc[: rel.i].text.split(), ref, *doc[end + 1 :].text.split()]
    return None


def _in_name(token: Token) -> bool:
    """A word of a name, or the hyphen inside one ("CKIS-FM" is three tokens)."""
    joined = token.i > 0 and not token.nbor(-1).whitespace_ and not token.whitespace_
    return is_name_word(token.text) or token.text in ("-", "–") and joined


def contact(words: list[str], plan: Plan) -> list[str] | None:
    """Replace "the N NAME VERB …", a relative clause with no relative word, by its hop.

    "the city CKIS-FM serves", "the country the U.S. fought during X": a lower-case noun after
    "the", then a name (or #k) that is the subject of the verb right after it. The clause ends
    where the verb's parse subtree ends.
    """
    doc = load_pipeline()(" ".join(words))
    for noun in doc[1:-2]:
        if noun.pos_ != "NOUN" or not noun.is_lower:
            continue
        start = next((t.i for t in doc[max(0, noun.i - 3) : noun.i] if t.lower_ == "the"), None)
        if start is None:
            continue
        at = noun.i + 1 + (doc[noun.i + 1].lower_ == "the")
        if at == noun.i + 1 and KIND_WORDS.match(f"{noun.lower_} "):
            continue  # "the movie Hush was born …": the name is the noun's, not a clause's subject
        if at >= len(doc) or not (
            is_name_word(doc[at].text) or PLACEHOLDER.fullmatch(doc[at].text)
        ):
            continue
        first = next((t for t in doc[at + 1 :] if not _in_name(t)), None)
        if first is None or first.pos_ not in ("VERB", "AUX"):
            continue
        verb = first.head if first.dep_ in ("aux", "auxpass") else first  # "was given"
        if not any(c.dep_ in ("nsubj", "nsubjpass") and c.i >= at for c in verb.children):
            continue
        end = end_of_clause(doc, max(t.i for t in verb.subtree))
        rest = [*doc[:start].text.split(), f"#{len(plan.hops) + 1}", *doc[end + 1 :].text.split()]
        if asks_nothing(" ".join(rest)):
            continue  # "When was the last time #1 beat #2?": the clause is the question
        kind = relation_type(noun.lower_)
        plan.add(
            f"{'Who' if kind == 'person' else 'What'} is {doc[start : end + 1].text}?",
            doc[at : first.i].text,
            doc[first.i : end + 1].text,
            kind,
        )
        return rest
    return None


def in_placeholder(words: list[str], plan: Plan) -> list[str] | None:
    """Replace "the [ADJ] NOUN in/of #k" inside a longer question ("the majority party in #1")."""
    for i, word in enumerate(words):
        if not PLACEHOLDER.fullmatch(word) or i < 3 or words[i - 1] not in ("in", "of", "from"):
            continue
        start = next((j for j in range(i - 2, max(-1, i - 7), -1) if words[j] == "the"), None)
        if start is None:
            continue
        inside = start > 1 and words[start - 1] == "of"
        named = inside and words[start - 2] in ("name", "title")  # "the name of the X of #1"
        if i == len(words) - 1 and (named or start <= 2 and not inside):
            # "What is the X in #1": at the end of a question that asks for it, it is what is
            # asked; after another verb's object ("Who won the race in the city in #1") it is not
            continue
        phrase = words[start + 1 : i - 1]
        if not phrase or not all(re.fullmatch(r"[a-z][a-z-]*", w) for w in phrase):
            continue
        tags = [t.pos_ for t in load_pipeline()(" ".join(words))[start + 1 : i - 1]]
        if len(tags) == len(phrase) and any(t in ("VERB", "AUX") for t in tags):
            continue  # "the plague occur in #2" is a clause, not a noun phrase
        noun = " ".join(phrase)
        kind = relation_type(noun)
        wh = "Who" if kind == "person" else "What"
        ref = plan.add(f"{wh} is the {noun} {words[i - 1]} {word}?", word, noun, kind)
        return words[:start] + [ref] + words[i + 1 :]
    return None
