"""The spans a sentence writes that may answer a question, and the candidate they make.

Shared by the compose ranking (`resin.agent.answering.candidates`), the options a question names
(`resin.agent.answering.options`) and the hop reader (`resin.agent.reading.hop_answer`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

from spacy.tokens import Doc, Span

from resin.indexes.nlp_extraction import load_pipeline
from resin.indexes.units import normalize

_MAX_VERB_WORDS = 6
YEAR = re.compile(r"\b(?:1\d{3}|20\d{2})\b")


@dataclass
class Candidate:
    """One possible short answer, where it is written and how well it fits the question."""

    text: str
    label: str
    score: float = 0.0
    sentences: list[str] = field(default_factory=list)  # ids of the sentences that write it


@lru_cache(maxsize=2048)
def parse(text: str) -> Doc:
    """One sentence's spaCy parse, kept: the spans and the hop reader's features read it."""
    doc: Doc = load_pipeline()(text)
    return doc


def tokens_of(sentence: str, span: str) -> Span | None:
    """The parse's tokens covering the span's first occurrence in the sentence, or None."""
    at = sentence.find(span)
    if at < 0:
        return None
    found: Span | None = parse(sentence).char_span(at, at + len(span), alignment_mode="expand")
    return found


@lru_cache(maxsize=4096)
def sentence_spans(text: str) -> tuple[tuple[str, str], ...]:
    """(span, label) pairs of one sentence: named entities, noun phrases, verb phrases."""
    doc = parse(text)
    found = [(e.text, e.label_) for e in doc.ents]
    for verb in doc:
        if verb.pos_ != "VERB" or verb.dep_ not in ("ROOT", "conj", "relcl", "advcl", "xcomp"):
            continue
        end = verb.i  # the verb with its particle, object or complement: "stops spawning"
        for child in verb.rights:
            if child.dep_ in ("prt", "dobj", "xcomp", "acomp", "attr", "oprd", "prep", "dative"):
                last = max(t.i for t in child.subtree)
                if last - verb.i >= _MAX_VERB_WORDS:
                    break
                end = last
                if child.dep_ != "prt":
                    break
        found.append((doc[verb.i : end + 1].text, "VP"))
    for chunk in doc.noun_chunks:
        words = [t for t in chunk if t.pos_ not in ("DET", "PRON") and not t.is_punct]
        if words and any(t.pos_ in ("NOUN", "PROPN") for t in words):
            label = "PROPN" if chunk.root.pos_ == "PROPN" else "NP"
            found.append((doc[words[0].i : words[-1].i + 1].text, label))
    return tuple(found)


# A noun phrase that describes a name before writing it ("American singer X", "political
# activist X"): a common word, then a capitalized word later on.
_DESCRIBED_NAME = re.compile(
    r"\b(?!(?:of|the|and|de|du|da|del|der|di|la|le|van|von|y)\b)[a-z]\w+ .*\b[A-Z]"
)


def describes_name(phrase: str) -> bool:
    """Does the phrase describe a name before writing it ("Scottish reformer John Knox")?

    The name is a candidate of its own; the phrase around it is no answer.
    """
    return bool(_DESCRIBED_NAME.search(phrase))


def clean(span: str) -> str:
    """A span without its article and surrounding punctuation."""
    span = re.sub(r"^(?:the|a|an)\s+", "", span.strip(" ,.;:'\"()[]"), flags=re.I)
    return span.strip(" ,.;:'\"()[]")


def around(sentence: str, span: str, window: int = 4) -> set[str]:
    """The words (cut to five letters) written within `window` words of the span."""
    words = [w[:5] for w in normalize(sentence).split()]
    target = [w[:5] for w in normalize(span).split()]
    found: set[str] = set()
    for i in range(len(words) - len(target) + 1):
        if target == words[i : i + len(target)]:
            found.update(words[max(0, i - window) : i])
            found.update(words[i + len(target) : i + len(target) + window])
    return found


def main_verb(clause: str) -> str:
    """The lemma of a clause's main verb or predicate ("the mill closed" → "close"), or ''."""
    root = next((t for t in parse(clause) if t.dep_ == "ROOT"), None)
    if root is None or root.pos_ not in ("VERB", "ADJ", "AUX"):
        return ""
    return str(root.lemma_)
