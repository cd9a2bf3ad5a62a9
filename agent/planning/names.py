"""What the planner's readers share: names in a question's words, placeholders, the plan."""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import accumulate

from resin.agent.language.relations import KINSHIP, AnswerType, relation_type
from resin.agent.state import Compute, Hop
from resin.indexes.lexical import STOPWORDS
from resin.indexes.nlp_extraction import load_pipeline

# Words that may join the capitalized words of one name ("Palau de la Generalitat").
CONNECTORS = frozenset(
    "of the and de la le du des del di da von van der den y e on in for a an to at & with".split()
)
# A work's kind written before its title: "the director of film X" asks about X.
PLACEHOLDER = re.compile(r"#\d+")
# Articles that open a title in another language, whose other words keep lower case ("La fida
# ninfa", "Il nome della rosa", "Der fliegende Holländer"): the title runs on past them.
FOREIGN_ARTICLES = frozenset("la le les il lo gli el los las der die das".split())
# What is left once a question's last description is a hop: "What is #2" ("the name of #2",
# "What serves as #2" too).
DEGENERATE = re.compile(
    r"^(?:who|what|where|when|which) (?:is|was|are|were|serves as|served as) "
    r"(?:the (?:name|title) of )?(#\d+)$",
    re.I,
)
AUX = r"(?:are|were|is|was|do|did|does)"
_WH = frozenset("what which who whom whose where when how".split())


def asks_nothing(question: str) -> bool:
    """Is the hop only question words and placeholders ("When did #1?", "What #2?")?

    Then the parse took the question's own predicate into a description ("the place where the
    head … become its own country"), and the plan does not ask what was asked. So it did when
    "did" ends the hop with no verb ("At which field station did #1?").
    """
    if _VERBLESS_DID.search(question):
        return True
    words = re.findall(r"[A-Za-z]+", PLACEHOLDER.sub(" ", question))
    return not [w for w in words if w.lower() not in _WH and not re.fullmatch(AUX, w, re.I)]


_VERBLESS_DID = re.compile(r"\b(?:did|does|do) #\d+\W*$", re.I)


def is_name_word(token: str) -> bool:
    """Does this word start or continue a name ("Sabines", "(1945", "#2", "3Rd", a quoted title)?"""
    core = token.lstrip("(\"'“‘")
    return bool(core) and (core[0].isupper() or core[0].isdigit() or core[0] == "#")


def entity_end(words: list[str], start: int) -> int:
    """The index after the name that starts at `words[start]`, or `start` when none starts there."""
    if start < len(words) and words[start][:1] in ('"', "“") and words[start][1:2].islower():
        # a quoted title that opens in lower case ("country Man"): the quotes delimit it
        close = next(
            (
                j
                for j in range(start, len(words))
                if words[j].rstrip("?,.;:").endswith(('"', "”"))
                and (j > start or len(words[j].rstrip("?,.;:")) > 1)
            ),
            None,
        )
        if close is not None:
            return close + 1
    end = start
    i = start
    while i < len(words):
        word = words[i]
        if is_name_word(word):
            i += 1
            end = i
            possessive = word.endswith(("'s", "'S", "’s"))
            if PLACEHOLDER.fullmatch(word) or (
                possessive and not (i < len(words) and is_name_word(words[i]))
            ):
                break  # a placeholder closes the name, and so does a possessive ("X's father")
        elif word.lower() in CONNECTORS and end > start and i + 1 < len(words):
            if words[i - 1].endswith(","):
                break  # "Scion, and Nissan": a list of names, not one name
            # up to two joining words ("Romulus and the Sabines", "Thrill of a Lifetime")
            nxt = i + 1 + (words[i + 1].lower() in CONNECTORS and i + 2 < len(words))
            if not is_name_word(words[nxt]):
                break
            i = nxt
        else:
            break
    if end == start + 1 and words[start].lower() in FOREIGN_ARTICLES:
        end = _title_run(words, end)
    return end


def _title_run(words: list[str], at: int) -> int:
    """Where a title that opened with a foreign article ends: at an English word, verb or stop."""
    read_as_verbs = _verbs(tuple(words))
    end = at
    for i in range(at, len(words)):
        core = words[i].rstrip("?,.;:!")
        if not core.isalpha() or core.lower() in STOPWORDS or i in read_as_verbs:
            break
        end += 1
        if core != words[i]:
            break  # the title's last word carries the sentence's punctuation
    return end


@lru_cache(maxsize=256)
def _verbs(words: tuple[str, ...]) -> frozenset[int]:
    """The indexes of the words the parser reads as verbs in context ("La torre born?": "born")."""
    starts = list(accumulate((len(w) + 1 for w in words[:-1]), initial=0))
    doc = load_pipeline()(" ".join(words))
    return frozenset(bisect_right(starts, t.idx) - 1 for t in doc if t.tag_.startswith("VB"))


def entity_start(words: list[str], end: int) -> int:
    """The index where the name ending just before `words[end]` starts (leftwards)."""
    i = end - 1
    start = end
    while i >= 0:
        if words[i].lower() in _WH:
            break  # "What Andy Williams' album": the question word starts no name
        if is_name_word(words[i]):
            start = i
        elif not (words[i].lower() in CONNECTORS and i > 0 and is_name_word(words[i - 1])):
            break
        i -= 1
    return start


@dataclass
class Plan:
    """Hops as they are read, innermost first."""

    hops: list[Hop] = field(default_factory=list)

    def add(
        self,
        question: str,
        subject: str,
        relation: str,
        answer_type: AnswerType,
        compute: Compute = "",
        depends_on: list[int] | None = None,
        options: list[str] | None = None,
    ) -> str:
        """Append a hop (its dependencies: the placeholders it names); its placeholder."""
        refs = [int(r[1:]) for r in PLACEHOLDER.findall(f"{question} {subject}")]
        hop = Hop(
            id=len(self.hops) + 1,
            question=" ".join(question.split()),
            depends_on=sorted(set(depends_on or refs)),
            subject=subject,
            relation=relation,
            answer_type=answer_type,
            compute=compute,
            options=options or [],
        )
        self.hops.append(hop)
        return f"#{hop.id}"

    def relation_hop(self, relation: str, subject: str) -> str:
        """One hop per relation ("father-in-law" is two): its placeholder."""
        ref = subject
        for part in KINSHIP.get(relation.lower(), (relation,)):
            kind = relation_type(part)
            wh = "Who" if kind == "person" else "What"
            ref = self.add(f"{wh} is the {part} of {ref}?", ref, part, kind)
        return ref


def wh_words(text: str) -> str:
    """The question's opening words, from its question word on ("In which port" → "which port")."""
    words = text.lower().split()
    for i, w in enumerate(words[:3]):
        if w in ("who", "whom", "whose", "what", "which", "where", "when", "how"):
            return " ".join(words[i : i + 4])
    return ""


def main_relation(text: str) -> str:
    """The words of a question that say what is asked, without its question word and auxiliaries."""
    drop = {"who", "whom", "what", "which", "where", "when", "how", "is", "was", "are", "were"}
    drop |= {"did", "does", "do", "the", "a", "an", "in", "of"}
    return " ".join(w for w in text.lower().split() if w not in drop)
