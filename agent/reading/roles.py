"""Who did what to whom: the role a hop asks for against the role a candidate plays in its sentence.

"Who argued that the Soviet Union had become an imperialist power?" asks for the subject of
"argue"; in "Mao Zedong argued that the Soviet Union had …" both names sit beside the verb, but
only Mao Zedong is its subject. A role is read off the parse: the subject ("X argued", "argued
by X"), the object ("argued X", "X was suspended") or the preposition that attaches a phrase to
the verb ("reinstated it in 1984" → in). A question that names the answer by what it does ("Who is
the director of X?") asks for that verb's subject: "directed by Rex Ingram, starring Y" answers
with Rex Ingram.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from spacy.tokens import Token

from resin.agent.language.spans import parse, tokens_of

_WH = frozenset({"who", "whom", "what", "which"})
# "When did X …", "Where did X …": a time or place the verb is said with, by any preposition.
_ADJUNCT_WH = frozenset({"when", "where"})
_ADJUNCT = "adjunct"
# Arcs through which a word shares its head's role: "President Yeltsin", "Myanmar and Laos",
# "in a 1984 referendum".
_SHARED = frozenset({"appos", "conj", "compound", "flat", "nummod"})
# A verb's lemma cut to five letters: "reinstate" meets "reinstated", "argue" "argued".
_STEM = 5
# An agent noun names the one who does its verb: "director" (direct), "owner" (own), "writer".
_AGENT = re.compile(r"^([a-z]{3,})(?:er|or)$")


@dataclass(frozen=True)
class Asked:
    """The verb a question's wh-phrase is an argument of (its lemma) and the role asked.

    `derived` marks a verb read off an agent noun: its stem ("writ" of "writer") is the start of
    the verb's lemma ("write"), not the lemma cut to five letters.
    """

    verb: str
    role: str
    derived: bool = False

    def meets(self, lemma: str) -> bool:
        """Is a verb of this lemma the asked one?"""
        return lemma[:_STEM] == self.verb or self.derived and lemma.startswith(self.verb)


@lru_cache(maxsize=4096)
def asked_role(question: str) -> Asked | None:
    """The role the question's wh-phrase plays ("Who argued …" → subject of argue), or None.

    "When" and "where" ask for a phrase the verb takes with a preposition ("reinstated it in 1984").

    "Who is the director of X?" asks for the subject of "direct": the agent noun's verb.

    None where the wh-phrase is no verb's argument ("What is the place of birth of X?").
    """
    doc = parse(question)
    wh = next((t for t in doc if t.lower_ in _WH | _ADJUNCT_WH), None)
    if wh is None:
        return None
    if wh.lower_ in _ADJUNCT_WH:
        verb = wh.head
        return Asked(verb.lemma_.lower()[:_STEM], _ADJUNCT) if verb.pos_ == "VERB" else None
    node = wh.head if wh.dep_ == "det" else wh  # "which label" asks for the label
    found = _role(node)
    if found is None:
        return _agent(wh)
    verb, role = found
    return Asked(verb.lemma_.lower()[:_STEM], role)


def role_in(sentence: str, span: str, asked: Asked) -> tuple[bool, bool]:
    """(Is the span an argument of the asked verb in the sentence, is it in the asked role)?"""
    inside = tokens_of(sentence, span)
    if inside is None:
        return False, False
    root = inside.root
    roles = [_role(root)]
    # "Mao Zedong, who argued …": the noun a relative clause describes plays its pronoun's role
    roles += [
        _role(pronoun)
        for clause in root.children
        if clause.dep_ == "relcl"
        for pronoun in clause.children
        if pronoun.tag_ in ("WP", "WDT") or pronoun.lower_ == "that"
    ]
    for found in roles:
        if found is not None and asked.meets(found[0].lemma_.lower()):
            role = found[1]
            adjunct = asked.role == _ADJUNCT and role not in ("subject", "object")
            return True, role == asked.role or adjunct
    return False, False


def _agent(wh: Token) -> Asked | None:
    """The subject of an agent noun's verb, where "is" sets the wh-word beside the noun."""
    if wh.head.pos_ != "AUX":
        return None
    for noun in wh.head.children:
        agent = _AGENT.match(noun.lower_) if noun.pos_ == "NOUN" else None
        if agent and noun.dep_ in ("nsubj", "attr"):
            return Asked(agent.group(1)[:_STEM], "subject", derived=True)
    return None


def _role(token: Token) -> tuple[Token, str] | None:
    """The verb the noun is an argument of and its role there, or None."""
    while token.dep_ in _SHARED and token.head is not token:
        token = token.head
    head = token.head
    if token.dep_ == "nsubj" and head.pos_ in ("VERB", "AUX"):
        return (head, "subject") if head.pos_ == "VERB" else None
    if token.dep_ in ("nsubjpass", "dobj") and head.pos_ == "VERB":
        return head, "object"
    if token.dep_ == "pobj" and head.head.pos_ == "VERB":
        if head.dep_ == "agent":  # "suspended by Yeltsin"
            return head.head, "subject"
        if head.dep_ == "prep":
            return head.head, head.lower_
    return None
