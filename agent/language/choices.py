"""The alternatives a question names: "Which is older, A or B?", lettered multiple choices.

A comparison's two options are read from the question's words ("A or B", "Between A and B",
"A and B are both …; which one …"), a multiple-choice question's options from its letters.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from resin.agent.language.forms import MAX_WORDS, OPENERS

# Two names the question asks to choose between without "or": "Among A and B who made …",
# "Which of the cities A and B has …", "A and B are both …, which one …".
_NAME = r"[A-Z0-9][^\s,;]*(?: (?:[A-Z0-9\"'(][^\s,;]*|of|the|de|and))*?"
_NAMED_PAIR = re.compile(
    rf"^(?i:among |between |which (?:\w+ )?of (?:the \w+ (?:of )?)?)({_NAME}) and ({_NAME}),? "
    r"(?!and\b)(?=[a-z])"
)
_BOTH_PAIR = re.compile(rf"^({_NAME}) and ({_NAME}) (?:are|were) both [^;,]+[;,] which\b")


def _inner_pair(body: str) -> list[str]:
    """The options of a comma-delimited "A or B" inside the question ("Which man, A or B, is …").

    The clause after it must open in lower case: in "…, The Borrower or Sheba, Baby" the comma
    is part of a title. "Which year was the newer, A or B, introduced?" asks for a year.
    """
    parts = [p.strip() for p in body.split(",")]
    if re.search(r"\b(?:when|year|date)\b", parts[0], flags=re.I):
        return []
    for inner, after in zip(parts[1:-1], parts[2:], strict=False):
        found = re.fullmatch(r"(?:the )?([A-Z0-9].*?) or (?:the )?([A-Z0-9].*)", inner)
        if found and after[:1].islower():
            return [found.group(1), found.group(2)]
    return []


def question_options(question: str) -> list[str]:
    """The two alternatives a question names ("Which is older, X or Y?", "Between X and Y, …")."""
    body = question.strip().rstrip("?").strip()
    lead = re.match(r"(?:between|among|of) (?:the \w+ )?(.+?) and (.+?),", body, flags=re.I)
    named = _NAMED_PAIR.match(body) or _BOTH_PAIR.match(body)
    if lead:
        options = [lead.group(1), lead.group(2)]
    elif named:
        options = [named.group(1), named.group(2)]
    elif " or " in body:
        tail = re.split(r",|:|\bbetween\b|\s*[-–—]\s", body)[-1]  # "Who lived longer- A or B"
        options = [o.strip(" ,") for o in re.split(r"\bor\b", tail)]
        if len(options) != 2:  # "Which man, A or B, is best known for …"
            options = _inner_pair(body)
    else:
        return []
    if len(options) != 2 or not all(options):
        return []
    first, second = options[0].split(), options[1].split()
    if (
        second[0][:1].isupper() or second[0][:1].isdigit()
    ):  # "Which was built first Woolworth Building or 1 New York Plaza"
        while len(first) > 1 and (first[0].islower() or first[0].lower() in OPENERS):
            first = first[1:]
    elif first[0].lower() in OPENERS:  # "Are A and B democratic or republican?"
        first = first[-len(second) :]
    options[0] = " ".join(first)
    return options if all(len(o.split()) <= MAX_WORDS for o in options) else []


def listed_options(question: str) -> tuple[str, list[str]]:
    """A multiple-choice question's stem and its lettered options: "What …? (A) sand (B) forests".

    Options that do not run A, B, C … in order are not options (the question is returned whole).
    """
    parts = re.split(r"\s*\(([A-Za-z])\)\s+", question.strip())
    # quotes and backslashes cannot sit safely in a grammar's enum
    letters, texts = parts[1::2], [re.sub(r'["\\]', "", t).strip(" ,;") for t in parts[2::2]]
    if len(texts) < 2 or [x.upper() for x in letters] != [chr(65 + i) for i in range(len(texts))]:
        return question, []
    return parts[0].strip(), texts


def with_options(question: str, options: Sequence[str]) -> str:
    """The question as a person asks a multiple-choice one: its options lettered after it."""
    return " ".join([question, *(f"({chr(65 + i)}) {o}" for i, o in enumerate(options))])
