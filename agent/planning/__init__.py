"""The parse-based planner: the descriptions inside a question become one-hop questions.

"Where was the place of death of the director of film X?" holds two descriptions, one inside the
other. The innermost is read first and replaced by its placeholder: "the director of film X" →
hop 1 "Who is the director of X?" (person); "the place of death of #1" → hop 2 (place); what is
left, "Where was #2", asks nothing more, so hop 2 answers the question. The readings:

- of-descriptions with a relational noun: "the director of X", "the place of birth of #1",
  or a singular common noun the parse hangs "of NAME" on ("the biographer of X");
- possessives: "X's father", "X's paternal grandfather" (father of father, `relations.KINSHIP`);
- a relational noun after a name: "the Oh Yeah performer";
- superlative and ordinal descriptions with their range: "the oldest university in X";
- relative clauses, from the parse: "the city where X died", "the school that owns X";
- participle descriptions: "the film directed by X", "a 2004 comedy film starring X";
- statements with the question word inside ("X was born in a town with how many residents?"):
  each hop gets its question phrase in front ("How many residents does #1 have?");
- comparisons of two options ("Which film came out first, A or B?"), through a bridge when the
  options are compared by someone of theirs ("Which film has the director born later, A or B?");
  by a count or a measure ("Which band has more members, A or B?": one number hop per option);
- "the same country" questions, "both" yes/no questions and "in common" questions;
- last, a noun a name describes through a preposition, participle or clause ("an actor in X").

Each hop carries its subject (a name or `#k`), its relation phrase and the answer type it
expects; a computed hop combines its dependencies' answers without retrieval. A question none of
these fits is not decomposed (the caller keeps it as one hop).
"""

from __future__ import annotations

import re

from resin.agent.language.relations import AnswerType, question_type
from resin.agent.planning.bridges import bridge_clause, described_noun, main_verb
from resin.agent.planning.comparisons import both, common, compared_options, comparison, same
from resin.agent.planning.conjoined import both_objects, both_subjects, conjoined
from resin.agent.planning.declaratives import bridge_prep, front, opens_question
from resin.agent.planning.descriptions import (
    chain,
    noun_after_name,
    of_description,
    possessive,
    prep_description,
)
from resin.agent.planning.filters import filtered, relative_filter
from resin.agent.planning.names import (
    DEGENERATE,
    PLACEHOLDER,
    Plan,
    asks_nothing,
    entity_end,
    is_name_word,
    main_relation,
    wh_words,
)
from resin.agent.state import MAX_PARSED_HOPS, Hop

__all__ = [
    "compared_options",
    "decompose",
    "describe_hop",
    "entity_end",
    "single_hop",
    "wh_words",
]


# A setting written before the question words ("In 1900, what was …"): it belongs to the last hop.
_SETTING = re.compile(
    r"^((?:in|during|as of|by|after|before)\s+[^,]+),\s+(?=(?:what|which|who|whom|whose|where|when|how)\b)",
    re.I,
)


# A prefixed past form the small parser splits at its hyphen ("co-starred", "re-elected"); joined,
# its "-ed" still reads as a verb (a joined "costars" would read as a noun).
_PREFIXED = re.compile(r"\b(co|re|pre|de|mis|out|over|under)-([a-z]+ed)\b")


def decompose(question: str) -> list[Hop]:
    """The hops a question's parse gives, dependencies first; [] when it gives no decomposition.

    A prefixed verb is parsed as one word ("costarred"): split at its hyphen, the parse ends
    the clause there. Its hops write it as the question does.
    """
    text = " ".join(question.strip().rstrip("?.! ").split())
    joined = {f"{m[1]}{m[2]}": m[0] for m in _PREFIXED.finditer(text)}
    hops = _decompose(_PREFIXED.sub(r"\1\2", text)) if text else []
    for hop in hops:
        hop.question, hop.relation, hop.subject = (
            re.sub(r"\w+", lambda m: joined.get(m[0], m[0]), part)
            for part in (hop.question, hop.relation, hop.subject)
        )
    return hops


def _decompose(text: str) -> list[Hop]:
    """`decompose` of a question's text."""
    setting = _SETTING.match(text)
    if setting:
        rest = text[setting.end() :]
        hops = _read(rest[:1].upper() + rest[1:])
        if len(hops) > 1 and not hops[-1].compute:
            last = setting.group(1)
            hops[-1].question = f"{hops[-1].question.rstrip('?')} {last[0].lower()}{last[1:]}?"
            return hops
    return _read(text)


def _read(text: str) -> list[Hop]:
    """The first reading that decomposes the text, its hops opening with their question words.

    A declarative question none of the readers splits is read again with its question phrase in
    front ("The film X directed was released in what year?" → "In what year was the film …").
    """
    hops = _first_reading(text)
    if not hops and not opens_question(text):
        fronted = front(text)
        hops = _first_reading(fronted.rstrip("?")) if fronted else []
        hops = hops if len(hops) > 1 else []
    for hop in hops:
        fronted = None if hop.compute else front(hop.question)
        if fronted:
            hop.question = fronted
            kind = question_type(wh_words(fronted), hop.relation)
            hop.answer_type = hop.answer_type if kind == "other" else kind
    return hops


def _first_reading(text: str) -> list[Hop]:
    """The first reading that decomposes the text, within the hop limit."""
    lost = False  # a reading whose hop lost the question's predicate ("When did #1?")
    readers = (
        comparison,
        same,
        both,
        common,
        chain,
        bridge_clause,
        bridge_prep,
        conjoined,
        both_objects,
        both_subjects,
        filtered,
        relative_filter,
        described_noun,
    )
    for reader in readers:
        plan = Plan()
        if reader(text, plan) and len(plan.hops) <= MAX_PARSED_HOPS:
            if not any(asks_nothing(h.question) for h in plan.hops if not h.compute):
                return plan.hops
            lost = True
    plan = Plan()
    if lost and main_verb(text, plan) and len(plan.hops) <= MAX_PARSED_HOPS:
        if not any(asks_nothing(h.question) for h in plan.hops):
            return plan.hops
    return []


def describe_hop(question: str) -> tuple[str, str, AnswerType]:
    """A one-hop question's subject (a name or `#k`), relation phrase and answer type.

    For hops a model wrote ("Who directed #1?"): a description in it is read as the planner
    reads one ("the director of X"); otherwise the subject is its placeholder or first name.
    """
    text = " ".join(question.strip().rstrip("?.! ").split())
    words = text.split()
    plan = Plan()
    rest = (
        of_description(words, plan)
        or possessive(words, plan)
        or noun_after_name(words, plan)
        or prep_description(words, plan)
    )
    if rest is not None and len(plan.hops) == 1 and DEGENERATE.match(" ".join(rest)):
        hop = plan.hops[0]
        return hop.subject, hop.relation, hop.answer_type
    refs = PLACEHOLDER.findall(text)
    subject = refs[0] if refs else ""
    if not subject:
        starts = [i for i, w in enumerate(words) if i > 0 and is_name_word(w)]
        if starts:
            subject = " ".join(words[starts[0] : entity_end(words, starts[0])])
    relation = main_relation(" ".join(w for w in words if w not in subject.split()))
    return subject, relation, question_type(wh_words(text), relation)


# A question that asks one thing opens with one of these: a person, thing, place, time or count.
_ASKS_ONE = re.compile(r"^(?:who|whom|what|which|where|when|how (?:many|much))\b", re.I)
# Words of "how many"/"how much" the relation keeps but that name no relation.
_COUNTING = frozenset({"many", "much"})


def single_hop(question: str) -> Hop | None:
    """A question asking one thing of one name, as that one hop; None for any other.

    "Where did Oren Thale die?" names its subject and says its relation in a word or two. Why,
    how, yes/no and "tell me about" questions, nameless ones and longer relations are not one.
    """
    text = " ".join(question.strip().rstrip("?.! ").split())
    if not _ASKS_ONE.match(text):
        return None
    subject, relation, answer_type = describe_hop(text)
    words = [w for w in relation.split() if w not in _COUNTING]
    if not subject or PLACEHOLDER.search(subject) or not 1 <= len(words) <= 2:
        return None
    return Hop(
        id=1, question=f"{text}?", subject=subject, relation=relation, answer_type=answer_type
    )
