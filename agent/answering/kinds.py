"""Answers to questions of another kind than "which thing?": yes/no, why, tell me about X.

Each is answered only from what a sentence of the passages says, or not at all:

- yes/no: the polarity of the sentence that writes the claim ("Pale gill fever does not infect
  humans." → no), that sentence cited (`resin.agent.reading.yes_no`);
- why: the immediate cause on the causal chain that ends at the asked effect, every link of the
  chain cited; no chain, no answer (`resin.tools.causal.cause_chains` finds it);
- tell me about X: X's defining sentence (the first of its own page, else the first naming
  it), with X's main facts cited: the sentences about X that its typed units rest on.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from resin.agent.language.questions import Question
from resin.agent.language.spans import Candidate
from resin.agent.reading.yes_no import claim_of, judge, page_subject
from resin.indexes.documents import Passage, Sentence
from resin.indexes.units import ReasoningUnit, entity_key, normalize

# Sentences an "about" answer cites: its defining sentence and the main facts after it.
ABOUT_FACTS = 4


def polarity(question: Question, passages: Sequence[Passage]) -> list[Candidate]:
    """Yes or no as the sentence that best writes the claim says it, that sentence first."""
    sentences = [(p, s) for p in passages for s in p.sentences]
    verdict, where = judge(
        claim_of(question.stem), sentences, page_subject(question.stem, passages)
    )
    other = "no" if verdict == "yes" else "yes"
    return [
        Candidate(verdict, "YESNO", 1.0, [where[1].id] if where else []),
        Candidate(other, "YESNO", 0.0),
    ]


def cause(causes: Sequence[str], story: Sequence[str]) -> list[Candidate]:
    """The immediate cause of the asked effect, the chain's sentences its support; [] without one."""
    return [Candidate(causes[0], "CAUSE", math.inf, list(story))] if causes else []


def _naming(key: str, sentence: Sentence) -> bool:
    return f" {key} " in f" {normalize(sentence.text)} "


def facts(
    question: Question, passages: Sequence[Passage], units: Sequence[ReasoningUnit]
) -> list[Candidate]:
    """X's defining sentence as the answer, X's main facts as its support; [] if none names X."""
    key = normalize(question.about)
    subject = entity_key(question.about)
    own = [p for p in passages if entity_key(p.title) == subject]
    pool: list[tuple[Passage, Sentence]] = [(p, s) for p in own for s in p.sentences]
    pool += [(p, s) for p in passages if p not in own for s in p.sentences if _naming(key, s)]
    if not pool:
        return []
    grounded = {sid for u in units if entity_key(u.subject) == subject for sid in u.sentence_ids}
    first = pool[0][1]
    rest = [s.id for _, s in pool[1:] if s.id in grounded] or [s.id for _, s in pool[1:]]
    return [Candidate(first.text, "ABOUT", 1.0, [first.id, *rest][:ABOUT_FACTS])]
