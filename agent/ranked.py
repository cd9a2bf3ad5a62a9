"""The ranked answer (no model call) of a question answered from passages as a whole.

Yes/no questions are decided by the polarity of the sentence that writes their claim. Any other
question takes the first-ranked candidate only when a sentence that writes it also writes what
the question asks (its words other than the names it gives: "mayor" in "Who was the first mayor
of Lindmoor?"); else nothing is answered. The ranking always has a first candidate: without
this, a question the documents do not answer gets a span from some passage.
"""

from __future__ import annotations

from collections.abc import Sequence

from agent.candidates import Candidate
from agent.questions import question_parts
from agent.yes_no import claim_of, judge
from indexes.documents import Passage
from indexes.lexical import stems

# Question words that say little of what is asked ("first", "one"): not enough on their own.
_WEAK = frozenset("first last one two many much most name named call called known".split())


def asked_words(question: str) -> set[str]:
    """The stems of what a question asks, without the names it gives and its weak words."""
    main, _ = question_parts(question)
    names = stems(" ".join(w for w in question.split()[1:] if w[:1].isupper()))
    return set(main) - names - {w[:5] for w in _WEAK}


def ranked_pick(
    question: str, cands: Sequence[Candidate], passages: Sequence[Passage], notes: list[str]
) -> str:
    """The answer the ranking gives, or '' (with a note) when no sentence supports it."""
    sentences = [(p, s) for p in passages for s in p.sentences]
    if cands[0].label == "YESNO":
        verdict, where = judge(claim_of(question), sentences)
        notes.append(
            f"yes/no decided by the sentence {where[1].id}" if where else "no sentence writes it"
        )
        return verdict
    wanted = asked_words(question)
    if not wanted or cands[0].label in ("COMPARED", "TYPE", "OPTION"):
        return cands[0].text
    text = {s.id: s.text for _, s in sentences}
    if any(wanted & stems(text.get(sid, "")) for sid in cands[0].sentences):
        return cands[0].text
    notes.append("no sentence that writes the best candidate writes what the question asks")
    return ""
