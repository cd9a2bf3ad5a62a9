"""Descriptions read innermost first: of-phrases, possessives, relative clauses, "the N in #k"."""

from __future__ import annotations

import re

from spacy.tokens import Token

from resin.agent.language.relations import (
    KINSHIP,
    is_relational,
    question_type,
    relation_head,
    relation_type,
)
from resin.agent.planning.clauses import (
    KIND_WORDS,
    contact,
    free_relative,
    in_placeholder,
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
from resin.agent.planning.participles import participle
from resin.agent.planning.selections import ranked
from resin.agent.state import MAX_PARSED_HOPS
from resin.indexes.nlp_extraction import load_pipeline

# Place classes that stand in apposition before a name ("the city of Paris" is Paris).
_APPOSITIVE = frozenset(
    "city town state village county province region island river country place".split()
)


def strip_kind(words: list[str], start: int) -> int:
    """Skip "the film" / "song" before a title, or a kind the parse sets beside the name."""
    rest = " ".join(words[start:]) + " "
    found = KIND_WORDS.match(rest.lower())
    if found and start + len(found.group(0).split()) < len(words):
        skipped = start + len(found.group(0).split())
        if is_name_word(words[skipped]):
            return skipped
    return _apposed_kind(words, start)


_KIND_WORD = re.compile(r"[a-z][a-z-]*|\d{4}")
# What a kind before a name is made of: adjectives, common nouns, a year ("the 1993 comedy").
_KIND_TAGS = frozenset({"JJ", "JJR", "JJS", "NN", "NNS", "CD"})


def _apposed_kind(words: list[str], start: int) -> int:
    """Skip a common noun and its modifiers the name stands beside ("the romantic comedy X").

    The parse must join noun and name (apposition or compound), so a name that opens a clause
    ("the production Madge Ryan took part in") is not skipped to.
    """
    first = start + (start < len(words) and words[start].lower() == "the")
    end = first
    while end < len(words) and end - first < 3 and _KIND_WORD.fullmatch(words[end]):
        end += 1
    if end == first or end >= len(words) or not is_name_word(words[end]):
        return start
    kinds = [_word_token(words, at) for at in range(first, end)]
    kind, name = kinds[-1], _word_token(words, end)
    if any(t is None or t.tag_ not in _KIND_TAGS for t in kinds) or kind is None or name is None:
        return start
    if name.is_punct and name.i + 1 < len(name.doc):  # a quoted title: its first word
        name = name.doc[name.i + 1]
    root = name
    while root.dep_ in ("compound", "flat") and root.head.i > root.i:
        root = root.head
    after = root.doc[root.i + 1] if root.i + 1 < len(root.doc) else None
    if after is not None and after.tag_ in ("VBD", "VBZ", "VBP"):
        return start  # the name is a clause's subject: "the production Madge Ryan took part in"
    joined = kind.head.i == root.i and kind.dep_ in ("compound", "nmod", "amod") or (
        root.head.i == kind.i and root.dep_ in ("appos", "compound", "npadvmod")
    )
    return end if joined and (kind.tag_ != "JJ" or kind.dep_ == "amod") else start


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


def _clause_after(words: list[str], at: int) -> bool:
    """Does a relative clause open at `words[at]` ("who …", "in which …")?"""
    nxt = [w.lower() for w in words[at : at + 2]]
    relatives = ("who", "whom", "whose", "that", "which")
    return bool(nxt) and (nxt[0] in relatives or nxt[1:] in (["which"], ["whom"]))


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
        if end == name_at + 1 and name_at > i + 1 and _clause_after(words, end):
            continue  # "the birthplace of the Senator who …": a title a clause describes
        if end < len(words) and words[end].isalpha() and words[end].islower():
            name = " ".join(words[name_at:end])
            if _modifier(name, words[end]) or name_at > i + 1 and _names_a_noun(words, end):
                # "the author of the 1993 production", "the mother of the Texas business man":
                # the name modifies a noun, and that noun's phrase is what "of" takes
                continue
        for start in range(left, i):  # the longest relational phrase first
            relation = " ".join(words[start:i])
            if relation_head(relation) in _APPOSITIVE or not is_relational(relation):
                continue
            if start > 0 and words[start - 1].lower() in ("which", "what"):
                break  # "Which president of X did …" selects among them: one lookup
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
    and one inside a relative clause is read with the clause; one inside an adverbial clause
    ("when the retreat of X continues") is a condition, not a thing to look up.
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
        if any(a.dep_ in ("relcl", "acl", "advcl") for a in noun.ancestors):
            continue  # inside a clause: a relative one reads it whole, "when …" is a condition
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
    """A nationality, language or number before the noun ("the Danish band", "the 1993 film")."""
    if PLACEHOLDER.match(name):
        return False
    words = [t for t in load_pipeline()(f"the {name} {noun}")[1:-1] if not t.is_punct]
    return is_nationality(name) or all(
        t.tag_ == "CD" or t.ent_type_ in ("NORP", "LANGUAGE") or t.tag_ == "JJ" and not t.ent_type_
        for t in words
    )


def _word_token(words: list[str], at: int) -> Token | None:
    """The token that starts `words[at]` in the parse of the whole question, if one does."""
    doc = load_pipeline()(" ".join(words))
    offset = sum(len(w) + 1 for w in words[:at])
    return next((t for t in doc if t.idx == offset), None)


def _names_a_noun(words: list[str], end: int) -> bool:
    """Does the name ending before `words[end]` modify that common noun ("the Texas business man")?

    Not the question's last word: the small parser tags a final verb as a noun ("… study").
    """
    noun = _word_token(words, end) if end + 1 < len(words) else None
    return noun is not None and noun.tag_ in ("NN", "NNS") and noun.doc[noun.i - 1].head.i >= noun.i


def _modifies_later(words: list[str], at: int) -> bool:
    """Does the noun at `words[at]` modify a later one ("the Blazers college athletic teams")?"""
    noun = _word_token(words, at)
    return (
        noun is not None
        and noun.tag_ in ("NN", "NNS")
        and noun.dep_ in ("compound", "nmod", "amod")
        and noun.head.i > noun.i
    )


def noun_after_name(words: list[str], plan: Plan) -> list[str] | None:
    """Replace "the NAME REL" ("the Oh Yeah performer") by its hop."""
    for i, word in enumerate(words[:-2]):
        if word != "the" or not is_name_word(words[i + 1]):
            continue
        end = entity_end(words, i + 1)
        noun = words[end].rstrip(",;:") if end < len(words) else ""
        name = " ".join(words[i + 1 : end])
        if (
            noun
            and _after_name(noun)
            and not _modifier(name, noun)
            and not _modifies_later(words, end)
        ):
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
        if not rest.lower().startswith("where") or plan.hops[-1].answer_type == "place":
            return True
        rest = f"{rest} located"  # "Where is the stadium named after X": #1 is no place yet
    refs = PLACEHOLDER.findall(rest)
    subject = refs[-1] if refs else last
    relation = " ".join(w for w in rest.split() if not PLACEHOLDER.fullmatch(w.rstrip("'s")))
    relation = main_relation(relation)
    plan.add(f"{rest}?", subject, relation, question_type(wh_words(rest), relation))
    return True
