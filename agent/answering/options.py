"""Candidates from the options a question names: a comparison settled, lettered choices.

"Who was born first, A or B?" is settled by the years the passages write for each option
(`compared`); any other "A or B" goes to the option its sentences describe best (`described`);
"What …? (A) … (B) …" offers its own options, best supported first (`listed`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from resin.agent.language.questions import Question
from resin.agent.language.spans import YEAR, Candidate, around, clean
from resin.indexes.documents import Passage
from resin.indexes.lexical import stems
from resin.indexes.units import normalize

# Date comparisons the passages' years can settle.
_EARLIER = re.compile(r" (?:older|oldest|first|earlier|earliest|sooner|predates?|before) ")
_LATER = re.compile(
    r" (?:younger|youngest|later|latest|newer|newest|more recent|most recent|last) "
)
_LONGER = re.compile(r" lived (?:longer|the longest) ")


def _option_years(
    option: str, main: frozenset[str], passages: Sequence[Passage]
) -> tuple[list[int], str]:
    """The years of the first sentence naming an option, and that sentence's id.

    "Who was born first, A or B?": A's page writes "A (born 12 May 1950) …"; "Which was founded
    first …": "B was founded in 1818 …". The year written nearest a question word ("born",
    "founded") leads; the option's own page (its title) is read before others.
    """
    key = normalize(clean(option))
    pages = sorted(passages, key=lambda p: normalize(p.title) != key)
    for passage in pages:
        own = normalize(passage.title) == key
        for sentence in passage.sentences:
            if not own and f" {key} " not in f" {normalize(sentence.text)} ":
                continue
            years = [int(y) for y in YEAR.findall(sentence.text)]
            if years:
                near = [y for y in years if main & around(sentence.text, str(y), 6)]
                return near[:1] + [y for y in years if y not in near[:1]], sentence.id
    return [], ""


def compared(question: Question, passages: Sequence[Passage]) -> list[Candidate]:
    """The option a date comparison picks ("born first", "younger", "lived longer"), first.

    Labelled COMPARED: computed from the years the passages write, not guessed. Empty when the
    passages lack either option's years or the question compares something else.
    """
    words, options = question.normalized, question.pair
    if _LONGER.search(words):
        measure = "span"
    elif _EARLIER.search(words):
        measure = "first"
    elif _LATER.search(words):
        measure = "last"
    else:
        return []
    found = [_option_years(o, question.parts[0], passages) for o in options]
    years = [y for y, _ in found]
    if measure == "span":  # "(9 April 1948 – 15 April 1989)"
        years = [sorted(y[:2]) for y in years]
        values = [y[1] - y[0] if len(y) > 1 else None for y in years]
    else:
        values = [y[0] if y else None for y in years]
    known = [v for v in values if v is not None]
    if len(known) < len(values) or len(set(known)) < len(known):
        return []
    pick = known.index((max if measure in ("span", "last") else min)(known))
    ranked = mentioned(options, passages, "OPTION")
    for candidate, (_, sentence_id) in zip(ranked, found, strict=True):
        candidate.sentences = [sentence_id]  # the sentence whose year was compared
    ranked[pick].label, ranked[pick].score = "COMPARED", float("inf")
    return sorted(ranked, key=lambda c: c.label != "COMPARED")


def listed(question: Question, passages: Sequence[Passage]) -> list[Candidate]:
    """A multiple-choice question's options, best supported first.

    An option's support is the share of its words a sentence writes, weighted by how many of the
    question's words that sentence shares: options are rarely written word for word.
    """
    asked = question.words
    pool = [(s.id, stems(s.text)) for p in passages for s in p.sentences]
    out = []
    for text in question.options:
        own = stems(text) or {normalize(text)}
        support = [(len(own & w) / len(own) * (1 + len(asked & w)), sid) for sid, w in pool]
        ids = [sid for score, sid in sorted(support, reverse=True) if score > 0]
        out.append(Candidate(text, "OPTION", max((s for s, _ in support), default=0.0), ids))
    return sorted(out, key=lambda c: -c.score)


_MORE = frozenset({"more", "most", "less", "least", "fewer", "fewest"})


def measured(question: Question) -> frozenset[str]:
    """What a comparison measures, as stems: "longer" → long, "more populous", "more members".

    Empty when the question compares by no comparative ("Which man, A or B, is best known …").
    """
    out: set[str] = set()
    for token in question.doc:
        if token.lower_ in _MORE and token.head.i != token.i:
            out |= stems(f"{token.head.text} {token.head.lemma_}")
        elif token.tag_ in ("JJR", "RBR", "JJS", "RBS") and token.lower_ not in _MORE:
            out |= stems(f"{token.text} {token.lemma_}")  # "best" is written, "well" its lemma
    return frozenset(out)


def described(question: Question, passages: Sequence[Passage]) -> list[Candidate]:
    """A comparison's options when no years settle it, the one its sentences describe best first.

    "Which man, A or B, is best known for …?": an option scores the most question words (the
    options' own aside) that one sentence about it shares, from its own page or naming it. No
    option is picked when no sentence about either shares a word with the question, or, for a
    comparison by a measure ("Which is longer, A or B?"), when none writes that measure.
    """
    options = question.pair
    asked = question.words.difference(*(stems(o) for o in options))
    measure = measured(question)
    ranked = mentioned(options, passages, "OPTION")
    for candidate in ranked:
        key = normalize(candidate.text)
        about = [
            (len(asked & stems(s.text)), s.id)
            for p in passages
            for s in p.sentences
            if normalize(p.title) == key or s.id in candidate.sentences
        ]
        about.sort(key=lambda item: -item[0])
        candidate.score = float(about[0][0]) if about else 0.0
        candidate.sentences = [sid for _, sid in about]
    written = {s.id: stems(s.text) for p in passages for s in p.sentences}
    if measure and not any(measure & written[sid] for c in ranked for sid in c.sentences):
        return []
    if all(c.score <= 0 for c in ranked):
        return []
    return sorted(ranked, key=lambda c: -c.score)


def mentioned(texts: Sequence[str], passages: Sequence[Passage], label: str) -> list[Candidate]:
    """Fixed candidates (a question's options), with the sentences that name them."""
    out = []
    for text in texts:
        key = normalize(clean(text))
        ids = [s.id for p in passages for s in p.sentences if key and key in normalize(s.text)]
        out.append(Candidate(clean(text), label, float(len(ids)), ids))
    return out
