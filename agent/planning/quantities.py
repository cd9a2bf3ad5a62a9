"""Comparisons by a quantity: each option's number, then the option with the most or the least.

"Which band has more members, A or B?" asks a count of each option ("How many members does A
have?"); "Which city has a larger population, A or B?" and "Who is taller, A or B?" ask a
measure ("What is the population of A?", "What is the height of A?"). Bare size words ("Which is
larger, A or B?") say no measure and are not read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from resin.agent.state import Compute
from resin.indexes.nlp_extraction import load_pipeline

# Comparatives and superlatives of size, and whether they ask for the most.
_SIZE = {
    **dict.fromkeys("larger largest bigger biggest greater greatest higher highest".split(), True),
    **dict.fromkeys("smaller smallest lower lowest".split(), False),
}
# Nouns a size word compares by: "a larger population", "a bigger area".
_MEASURE_NOUNS = frozenset("population area length height elevation depth width weight".split())
# Comparatives that name their measure: "taller" compares heights.
_MEASURE_ADJECTIVES: dict[str, tuple[str, bool]] = {
    **dict.fromkeys(("taller", "tallest"), ("height", True)),
    **dict.fromkeys(("higher", "highest"), ("height", True)),
    **dict.fromkeys(("lower", "lowest"), ("height", False)),
    **dict.fromkeys(("longer", "longest"), ("length", True)),
    **dict.fromkeys(("deeper", "deepest"), ("depth", True)),
    **dict.fromkeys(("shallower", "shallowest"), ("depth", False)),
    **dict.fromkeys(("wider", "widest", "broader", "broadest"), ("width", True)),
    **dict.fromkeys(("narrower", "narrowest"), ("width", False)),
    **dict.fromkeys(("heavier", "heaviest"), ("weight", True)),
    **dict.fromkeys(("lighter", "lightest"), ("weight", False)),
}
_POPULOUS = re.compile(r"\b(more|most|less|least) populous\b")
# Count words: "more members", "fewer acts", "a greater number of species".
_MORE = frozenset("more most".split())
_FEWER = frozenset("fewer fewest less least".split())
_NUMBER_OF = re.compile(r"\b(?:a |the )?(\w+) number of\b")
_NOUN_TAGS = frozenset({"NN", "NNS", "NNP", "NNPS", "JJ", "VBN", "CD"})
_FINITE = frozenset({"VBZ", "VBP", "VBD", "MD"})


@dataclass(frozen=True)
class Quantity:
    """What a comparison compares: the hop asked of each option, its relation, the computation."""

    template: str  # the hop question, "{}" for the option
    relation: str
    compute: Compute


@lru_cache(maxsize=256)
def _tagged(lead: str) -> tuple[tuple[str, str, str], ...]:
    """The lead's words with their tags and lemmas."""
    return tuple((t.text, t.tag_, t.lemma_) for t in load_pipeline()(lead))


def quantity(lead: str) -> Quantity | None:
    """The quantity a comparison's lead words compare the options by, or None."""
    lead = re.sub(r"\s+than$", "", lead.strip(" ,?"))
    words = lead.split()
    populous = _POPULOUS.search(lead)
    if populous:
        most = populous.group(1) in _MORE
        return Quantity("What is the population of {}?", "population", "most" if most else "least")
    for i, word in enumerate(words):
        nxt = words[i + 1] if i + 1 < len(words) else ""
        if word in _SIZE and nxt in _MEASURE_NOUNS:
            most = _SIZE[word]
            return Quantity(f"What is the {nxt} of {{}}?", nxt, "most" if most else "least")
    count = _count(lead)
    if count:
        return count
    for i, word in enumerate(words):
        if word in _MEASURE_ADJECTIVES and _asks_measure(words, i):
            noun, most = _MEASURE_ADJECTIVES[word]
            return Quantity(f"What is the {noun} of {{}}?", noun, "most" if most else "least")
        if word in ("shorter", "shortest") and _asks_measure(words, i):
            noun = "height" if words[0] == "who" else "length"
            return Quantity(f"What is the {noun} of {{}}?", noun, "least")
    return None


def _asks_measure(words: list[str], at: int) -> bool:
    """Is the adjective said of the options themselves ("Which is taller", "Is A taller than")?

    Not when it describes something of theirs ("a longer career", "a higher rank").
    """
    before = words[at - 1] if at else ""
    return before in ("is", "was", "are", "were", "the", "be") and at == len(words) - 1


def _count(lead: str) -> Quantity | None:
    """A count: "which band has more members" → "How many members does {} have?"."""
    marked = _NUMBER_OF.search(lead)
    tokens = list(_tagged(_NUMBER_OF.sub(r"\1", lead) if marked else lead))
    at = next(
        (i for i, (w, _, _) in enumerate(tokens) if w in _MORE or w in _FEWER),
        None,
    )
    if marked and marked.group(1) in _SIZE:
        at = next((i for i, (w, _, _) in enumerate(tokens) if w == marked.group(1)), None)
    if at is None:
        return None
    word = tokens[at][0]
    most = _SIZE[word] if word in _SIZE else word in _MORE
    end = at + 1
    while end < len(tokens) and tokens[end][1] in _NOUN_TAGS:
        end += 1
    while end > at + 1 and tokens[end - 1][1] not in ("NNS", "NNPS"):
        end -= 1  # the counted noun is plural: "more acclaimed guitarist" counts nothing
    if end == at + 1:
        return None
    noun = " ".join(w for w, _, _ in tokens[at + 1 : end])
    tail = "".join(f" {w}" for w, _, _ in tokens[end:])
    if tokens[-1][1] in ("IN", "TO"):
        return None  # a preposition left without its object: the options were not split off
    verb = next((i for i, (_, tag, _) in enumerate(tokens[:at]) if tag in _FINITE), None)
    if verb is None:
        return None
    predicate = tokens[verb:at]
    if predicate and predicate[-1][0] in ("the", "a"):
        predicate = predicate[:-1]  # "has the most species"
    if not predicate:
        return None
    first, tag, lemma = predicate[0]
    rest = "".join(f" {w}" for w, _, _ in predicate[1:])
    if lemma == "do" and len(predicate) > 1:  # "does have more members than"
        aux, (first, tag, lemma) = first, predicate[1]
        rest = "".join(f" {w}" for w, _, _ in predicate[2:])
        verb_phrase = f"{first}{rest}"
    elif tag == "MD" or lemma in ("have", "be") and rest:  # "can have", "has released"
        aux, verb_phrase = first, rest.strip()
    else:  # "has", "contains", "flows through", "served"
        aux = "did" if tag == "VBD" else "does"
        verb_phrase = f"{lemma}{rest}"
    template = f"How many {noun} {aux} {{}} {verb_phrase}{tail}?"
    return Quantity(template, noun, "most" if most else "least")
