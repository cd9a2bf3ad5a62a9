"""Descriptions read innermost first: of-phrases, possessives, relative clauses, "the N in #k"."""

from __future__ import annotations

import re

from resin.agent.language.relations import (
    KINSHIP,
    is_relational,
    question_type,
    relation_head,
    relation_type,
)
from resin.agent.planning.clauses import (
    KIND_WORDS,
    WH_OPENERS,
    contact,
    free_relative,
    in_placeholder,
    participle,
    relative,
)
from resin.agent.planning.names import (
    CONNECTORS,
    DEGENERATE,
    PLACEHOLDER,
    Plan,
    entity_end,
    entity_start,
    is_name_word,
    main_relation,
    wh_words,
)
from resin.agent.planning.selections import ranked
from resin.agent.state import MAX_PARSED_HOPS
from resin.indexes.nlp_extraction import load_pipeline

# Place classes that stand in apposition before a name ("the city of Paris" is Paris).
_APPOSITIVE = frozenset(
    "city town state village county province region island river country place".split()
)


def strip_kind(words: list[str], start: int) -> int:
    """Skip "the film" / "song" before a title."""
    rest = " ".join(words[start:]) + " "
    found = KIND_WORDS.match(rest.lower())
    if found and start + len(found.group(0).split()) < len(words):
        skipped = start + len(found.group(0).split())
        if is_name_word(words[skipped]):
            return skipped
    return start


_STOP_LEFT = frozenset("the a an as what which who whose where when how".split())


def _described_after(words: list[str], end: int) -> bool:
    """Does a relational noun follow the name ("the X songwriter", "X's manufacturer")?"""
    word = words[end].lower()
    possessive = words[end - 1].endswith(("'s", "'S", "’s"))
    return (possessive or end == len(words) - 1 or not words[end + 1 : end + 2] == ["of"]) and (
        _after_name(word) or possessive and is_relational(word)
    )


def _after_name(word: str) -> bool:
    """A relational noun that may follow a name: "the Oh Yeah performer", "the FA Cup winner"."""
    head = relation_head(word)
    return bool(head) and head not in _APPOSITIVE and relation_type(head) not in ("work", "date")


def of_description(words: list[str], plan: Plan) -> list[str] | None:
    """Replace the first "the REL of NAME" (REL relational, NAME a name or #k) by its hop."""
    for i, word in enumerate(words):
        if word != "of" or i == 0 or i + 1 >= len(words):
            continue
        left = i
        while left > 0 and re.fullmatch(r"[a-z][a-z-]*", words[left - 1]) and i - left < 4:
            if words[left - 1] in _STOP_LEFT or words[left - 1] in CONNECTORS - {"of"}:
                break
            left -= 1
        name_at = i + 1
        if words[name_at] == "the" and name_at + 1 < len(words):
            name_at += 1
        name_at = strip_kind(words, name_at)
        end = entity_end(words, name_at)
        if end == name_at or (end < len(words) and _described_after(words, end)):
            continue  # no name here, or the name's own description is read first
        if end < len(words) and words[end].isalpha() and words[end].islower():
            if _modifier(" ".join(words[name_at:end]), words[end]):
                continue  # "the author of the 1993 production": the name modifies a noun
        for start in range(left, i):  # the longest relational phrase first
            relation = " ".join(words[start:i])
            if relation_head(relation) in _APPOSITIVE or not is_relational(relation):
                continue
            begin = (
                start - 1 if start > 0 and words[start - 1].lower() in ("the", "a", "an") else start
            )
            name = " ".join(words[name_at:end])
            comma = name.endswith(",")  # "the owner of Scion, and Nissan": the list goes on
            name = name.rstrip(",")
            name = name[:-2] if name.endswith(("'s", "'S", "’s")) else name
            ref = plan.relation_hop(relation, name)
            tail = ["'s"] if words[end - 1].endswith(("'s", "'S", "’s")) else [","] * comma
            return words[:begin] + [ref + "".join(tail)] + words[end:]
    return None


# Nouns that take "of" without relating one thing to another: a part, kind, amount or name.
_NOT_RELATIONS = frozenset(
    "one type kind sort form variety number part group series name title majority rest most "
    "all some each any both list lot couple pair total amount many few none half end beginning "
    "start middle side edge top bottom center centre coast shore border idea".split()
)
# Nouns of an event or a state ("the death of X", "in the presence of X"): no thing to look up;
# so are most nouns with these endings ("the construction of X", "the awarding of X").
_EVENTS = frozenset(
    "death birth presence absence surrender arrival departure return release launch creation "
    "founding formation history story life career role use loss victory defeat".split()
)
_EVENT_ENDINGS = ("tion", "sion", "ing", "ment", "ance", "ence")


_ASKS_WHOLE = re.compile(
    r"^(?:(?:in|on|at|from) )?(?:who|what|which|when|where)(?: \w+)? (?:is|was|are|were)$", re.I
)


def common_of(words: list[str], plan: Plan) -> list[str] | None:
    """Replace "the N of NAME" by its hop, N a common noun the lexicon does not know.

    "the biographer of X", "the mascot of X": the parse hangs "of NAME" on a singular noun
    after "the" ("the last active ruler of X" with its modifiers). Nouns of a part, a kind, an
    amount or a name (`_NOT_RELATIONS`), of an event (`_EVENTS`) and place classes before a name
    ("the city of X") relate nothing; a name that is a nationality names nothing to look up. A
    description that is the whole question ("Who was the last king of X?") is asked as written,
    and one inside a relative clause is read with the clause.
    """
    doc = load_pipeline()(" ".join(words))
    starts = [t.i for t in doc if t.idx == 0 or doc.text[t.idx - 1] == " "]
    if len(starts) != len(words):
        return None  # the tokens do not line up with the words
    for i, word in enumerate(words[1:-1], start=1):
        noun, of = doc[starts[i - 1]], doc[starts[i]]
        if word != "of" or of.head.i != noun.i or noun.tag_ != "NN" or not noun.is_lower:
            continue
        if noun.lower_ in _NOT_RELATIONS | _EVENTS | _APPOSITIVE or is_relational(noun.text):
            continue
        if noun.lower_.endswith(_EVENT_ENDINGS):
            continue  # "the construction of X", "the awarding of X": an event
        if any(a.dep_ in ("relcl", "acl") for a in noun.ancestors):
            continue  # inside a clause: the clause's own hop reads it whole
        left = i - 1
        while (
            left > 0
            and doc[starts[left - 1]].dep_ in ("amod", "compound")
            and words[left - 1].islower()
        ):
            left -= 1
        if left == 0 or words[left - 1].lower() != "the":
            continue
        name_at = strip_kind(words, i + 1 + (words[i + 1] == "the" and i + 2 < len(words)))
        end = entity_end(words, name_at)
        if end == name_at or end < len(words) and _described_after(words, end):
            continue
        after = words[end].lower() if end < len(words) else ""
        if after in ("that", "which", "who", "whom", "whose", "where") or words[end - 1][-1] == ",":
            continue  # a clause after the name: it may describe the name or the whole phrase
        if after and doc[starts[end]].pos_ == "ADP" and not words[end - 1].endswith("'s"):
            continue  # "the symbol of the Saints from #2": the phrase may go on past the name
        if after and doc[starts[end]].pos_ == "NOUN" and words[end].islower():
            continue  # "the nickname of the WWII battleship": the name modifies a noun
        first = next(t for t in doc[starts[name_at] :] if not t.is_punct)
        if not PLACEHOLDER.match(words[name_at]) and (
            first.pos_ != "PROPN" or first.ent_type_ in ("NORP", "LANGUAGE")
        ):
            continue
        if end == len(words) and _ASKS_WHOLE.match(" ".join(words[: left - 1])):
            continue  # "Who was the last king of X": the question asks it as written
        name = " ".join(words[name_at:end]).rstrip(",")
        ref = plan.relation_hop(" ".join(words[left:i]), re.sub(r"['’]s$", "", name))
        tail = "'s" if words[end - 1].endswith(("'s", "’s")) else ""
        return words[: left - 1] + [ref + tail] + words[end:]
    return None


def possessive(words: list[str], plan: Plan) -> list[str] | None:
    """Replace the first "NAME's REL" by its hop(s)."""
    for i, word in enumerate(words):
        if not word.endswith(("'s", "'S", "’s", "s'")) or i + 1 >= len(words):
            continue
        for size in (3, 2, 1):
            relation = " ".join(words[i + 1 : i + 1 + size])
            known = relation in KINSHIP or is_relational(relation)
            if (
                len(words) >= i + 1 + size
                and re.fullmatch(r"[a-z][a-z -]*", relation)
                and relation not in _STOP_LEFT | CONNECTORS
                and known
            ):
                start = entity_start(words, i + 1)
                name = " ".join(words[start : i + 1])
                name = re.sub(r"['’][sS]?$", "", name)
                if not name:
                    break
                begin = start - 1 if start > 0 and words[start - 1] == "the" else start
                ref = plan.relation_hop(relation, name)
                return words[:begin] + [ref] + words[i + 1 + size :]
    return None


def is_nationality(name: str) -> bool:
    """Is the capitalized word before a noun an adjective of nationality ("the British actor")?"""
    return all(t.ent_type_ == "NORP" and t.tag_ in ("JJ", "HYPH") for t in load_pipeline()(name))


def _modifier(name: str, noun: str) -> bool:
    """A nationality or a number before the noun ("the Danish band", "the 1993 production")."""
    if PLACEHOLDER.match(name):
        return False
    words = [t for t in load_pipeline()(f"the {name} {noun}")[1:-1] if not t.is_punct]
    return is_nationality(name) or all(
        t.tag_ == "CD" or t.tag_ == "JJ" and t.ent_type_ in ("NORP", "") for t in words
    )


def noun_after_name(words: list[str], plan: Plan) -> list[str] | None:
    """Replace "the NAME REL" ("the Oh Yeah performer") by its hop."""
    for i, word in enumerate(words[:-2]):
        if word != "the" or not is_name_word(words[i + 1]):
            continue
        end = entity_end(words, i + 1)
        noun = words[end].rstrip(",;:") if end < len(words) else ""
        if noun and _after_name(noun) and not _modifier(" ".join(words[i + 1 : end]), noun):
            name = " ".join(words[i + 1 : end])
            ref = plan.relation_hop(noun, name)
            return words[:i] + [ref + words[end][len(noun) :]] + words[end + 1 :]
    return None


def prep_description(words: list[str], plan: Plan) -> list[str] | None:
    """Replace "the REL in/on/from NAME" ("the actor in X", "the rapper on X") by its hop."""
    for i, word in enumerate(words[:-3]):
        if word != "the" or relation_type(words[i + 1]) != "person":
            continue
        if words[i + 2] not in ("in", "on", "from", "for", "at", "with"):
            continue
        name_at = strip_kind(words, i + 3)
        end = entity_end(words, name_at)
        if end > name_at and not (end < len(words) and _described_after(words, end)):
            name = " ".join(words[name_at:end])
            ref = plan.add(
                f"Who is the {words[i + 1]} {words[i + 2]} {name}?", name, words[i + 1], "person"
            )
            return words[:i] + [ref] + words[end:]
    return None


def chain(question: str, plan: Plan) -> bool:
    """Read the question's descriptions innermost first; True when it makes at least one hop."""
    words = question.split()
    for _ in range(MAX_PARSED_HOPS):
        nxt = (
            of_description(words, plan)
            or possessive(words, plan)
            or noun_after_name(words, plan)
            or prep_description(words, plan)
            or common_of(words, plan)
            or ranked(words, plan)
            or contact(words, plan)
            or relative(words, plan)
            or participle(words, plan)
            or free_relative(words, plan)
            or in_placeholder(words, plan)
        )
        if nxt is None or len(plan.hops) > MAX_PARSED_HOPS:
            break
        words = nxt
    if not plan.hops:
        return False
    rest = " ".join(words)
    degenerate = DEGENERATE.match(rest)
    last = f"#{plan.hops[-1].id}"
    if degenerate and degenerate.group(1) == last:
        return True
    refs = PLACEHOLDER.findall(rest)
    subject = refs[-1] if refs else last
    relation = " ".join(w for w in rest.split() if not PLACEHOLDER.fullmatch(w.rstrip("'s")))
    relation = main_relation(relation)
    plan.add(f"{rest}?", subject, relation, question_type(wh_words(rest), relation))
    return True


_IN_SITU = frozenset("what which who whom when where how".split())


def bridge_clause(question: str, plan: Plan) -> bool:
    """Read "NAME … a N that/who CLAUSE-asking-what": the N is a bridge, the clause asks of it.

    "Candace Flynn was voiced by the actress who achieved success on what show?" → hop 1 "Who is
    the actress that Candace Flynn was voiced by?" (person), hop 2 "#1 achieved success on what
    show?". A reduced clause gets its verb: "… by an actress born in what year?" → "#1 was born in
    what year?". The clause runs to the question's end and holds its question word; the words
    before the N name a name.
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
        (
            a
            for a in wh.ancestors
            if a.dep_ in ("relcl", "acl") and a.head.pos_ == "NOUN" and a.head.is_lower
        ),
        None,
    )
    if clause is None:
        return False
    noun = clause.head
    det = next(
        (c for c in noun.children if c.dep_ == "det" and c.lower_ in ("a", "an", "the")), None
    )
    last = len(doc) - 1 - (doc[-1].is_punct)
    if det is None or clause.left_edge.i != noun.i + 1 or clause.right_edge.i < last:
        return False
    before = doc[: det.i].text.split()
    named = [j for j, w in enumerate(before) if is_name_word(w)]
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
