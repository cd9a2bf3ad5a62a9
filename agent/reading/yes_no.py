"""Yes or no, as the cited sentence says it: its words, and whether it negates them.

"Does pale gill fever infect humans?" is answered by the sentence that best writes the claim
("Pale gill fever does not infect humans.") and its polarity: "no". A claim the best sentence
writes too little of is "no" as well (the documents do not say it), never a default "yes"; so is
one whose names and nouns the sentence does not all write ("Is the silverfin a kind of salmon?"
against "The silverfin is a kind of mountain char.": the sentence says what it is instead).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from resin.agent.language.spans import parse
from resin.indexes.documents import Passage, Sentence
from resin.indexes.lexical import STEM_CHARS, tokenize

_AUX = re.compile(
    r"^(?:is|are|was|were|do|does|did|can|could|has|have|had|will|would|should)\s+", re.I
)
_NEGATION = re.compile(r"\b(?:not|never|no|neither|nor|cannot|without)\b|n't\b", re.I)
# Share of the claim's words the best sentence must write to say it.
COVERAGE = 0.5
_INFLECTION = re.compile(r"(?:ing|ed|es|s|e)$")


def _roots(text: str) -> set[str]:
    """Content words without their inflection, cut as `resin.indexes.lexical.stems` cuts them.

    A claim writes its verb bare and a sentence inflects it: "Did X live in Y?" is said by "X
    lived in Y", and a short word cut to five letters alone would not meet its own inflection.
    """
    return {_root(t)[:STEM_CHARS] for t in tokenize(text)}


def _root(word: str) -> str:
    ending = _INFLECTION.search(word)
    return word[: ending.start()] if ending and ending.start() >= 3 else word


# Nouns that classify rather than name what the claim is about ("a kind of char" is a char).
_CLASSIFIERS = frozenset(_roots("kind type sort form part member example one"))


def claim_of(question: str) -> str:
    """The statement a yes/no question asks about, without its auxiliary ("pale gill fever infect humans")."""
    return _AUX.sub("", question.strip().rstrip("?").strip())


def page_subject(question: str, passages: Sequence[Passage]) -> str:
    """The yes/no question's grammatical subject when one of the passages is its page, else "".

    A claim about something no name marks ("Does pale gill fever infect silverfin?") is still
    about its subject: the sentences of that subject's page say it, not another page's.
    """
    for token in parse(question):
        if token.dep_ in ("nsubj", "nsubjpass") and token.head.dep_ == "ROOT":
            words = [t.text for t in token.subtree if t.i <= token.i and t.pos_ != "DET"]
            names = _roots(" ".join(words))
            if names and any(names == _roots(p.title) for p in passages):
                return " ".join(words)
    return ""


def judge(
    claim: str, sentences: Sequence[tuple[Passage, Sentence]], subject: str = ""
) -> tuple[str, tuple[Passage, Sentence] | None]:
    """'yes' or 'no' for the claim, and the sentence that decided it (None when none writes it).

    The deciding sentence writes most of the claim's words (those of `subject`, when given,
    need not be written: a page's sentences are about its subject); a negation in it that the
    claim does not hold turns its "yes" into "no". With a subject, the sentences of its own page
    decide where there are any, else those that name it: "Is Neil Jordan American?" is not said
    by another page's "an American film directed by Neil Jordan"; his own page not writing it
    is a "no" it cites. Where no sentence names the subject, the deciding one must write its name
    too: "The silverfin is a kind of mountain char." says nothing of the salmon.
    """
    about = _about(sentences, subject)
    exempt = _roots(subject) if about else set()
    words = _roots(claim) - exempt
    if not words or not sentences:
        return "no", None
    best = max(about or sentences, key=lambda item: len(words & _roots(item[1].text)))
    coverage = len(words & _roots(best[1].text)) / len(words)
    if coverage < COVERAGE:
        return "no", best if coverage or about else None
    if _named(claim) - _CLASSIFIERS - exempt - _roots(best[1].text):
        return "no", best
    negated = bool(_NEGATION.search(best[1].text)) and not _NEGATION.search(claim)
    return ("no" if negated else "yes"), best


def _about(
    sentences: Sequence[tuple[Passage, Sentence]], subject: str
) -> list[tuple[Passage, Sentence]]:
    """The sentences of the subject's own page, else those writing its name (none without one)."""
    names = _roots(subject)
    if not names:
        return []
    own = [item for item in sentences if names <= _roots(item[0].title)]
    return own or [item for item in sentences if names <= _roots(item[1].text)]


def _named(claim: str) -> set[str]:
    """The stems of the claim's names, nouns and numbers: what a sentence must write to say it."""
    return _roots(" ".join(t.text for t in parse(claim) if t.pos_ in ("PROPN", "NOUN", "NUM")))
