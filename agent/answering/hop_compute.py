"""Computed hops, and the answer composed from the hops: no retrieval, only the hops' own answers.

A computed hop reads the answers of the hops it depends on: the option whose date is earliest
or latest, the one who lived longest, the one whose number (a count or a measure) is the most or
the least, whether every option has the same value, what the options have in common, whether
every yes/no hop said yes, the one option a yes/no hop said yes to. The composed answer is the
last hop's, cited with each hop's answer sentence in hop order (RESIN's delayed composition: the
sentences are the sources' own, the hop answers only say which).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import date

from resin.agent.answering.answer import NOT_FOUND, Answer, Source
from resin.agent.language.countries import countries_of
from resin.agent.language.questions import is_yes_no
from resin.agent.reading.signals import MONTHS
from resin.agent.state import Hop, HopResult
from resin.indexes.documents import Passage, Sentence
from resin.indexes.units import normalize

_MONTHS = {m: i for i, m in enumerate(MONTHS, 1)}


def parse_date(text: str) -> date | None:
    """The date a short answer writes ("4 May 1974", "May 4, 1974", "1974"; day and month 1 if unsaid)."""
    words = normalize(text).split()
    years = [int(w) for w in words if re.fullmatch(r"\d{3,4}", w)]
    if not years:
        return None
    month = next((_MONTHS[w] for w in words if w in _MONTHS), 1)
    days = [int(w) for w in words if re.fullmatch(r"\d{1,2}", w) and 1 <= int(w) <= 31]
    try:
        return date(years[-1], month, days[0] if days and month else 1)
    except ValueError:
        return date(years[-1], month, 1)


_SCALES = {"thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12}
_NUMBER_WORDS = {
    w: i
    for i, w in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
        "fifteen sixteen seventeen eighteen nineteen twenty".split()
    )
}
# Units a measure is written in: what they measure, and their size in that measure's base unit.
_UNITS: dict[str, tuple[str, float]] = {
    **dict.fromkeys(("m", "metre", "metres", "meter", "meters"), ("length", 1.0)),
    **dict.fromkeys(("ft", "feet", "foot"), ("length", 0.3048)),
    **dict.fromkeys(("cm", "centimetres", "centimeters"), ("length", 0.01)),
    **dict.fromkeys(("km", "kilometres", "kilometers"), ("length", 1000.0)),
    **dict.fromkeys(("mi", "mile", "miles"), ("length", 1609.344)),
    **dict.fromkeys(
        ("km2", "km²", "sq km", "square kilometres", "square kilometers"), ("area", 1.0)
    ),
    **dict.fromkeys(("sq mi", "square miles", "square mile"), ("area", 2.589988)),
    **dict.fromkeys(("acre", "acres"), ("area", 0.00404686)),
    **dict.fromkeys(("ha", "hectare", "hectares"), ("area", 0.01)),
    **dict.fromkeys(("kg", "kilograms", "kilogram"), ("mass", 1.0)),
    **dict.fromkeys(("lb", "lbs", "pound", "pounds"), ("mass", 0.4536)),
    **dict.fromkeys(("t", "tonnes", "tonne", "tons", "ton"), ("mass", 1000.0)),
    **dict.fromkeys(("%", "percent", "per cent"), ("percent", 1.0)),
}
_UNIT = "|".join(sorted((re.escape(u) for u in _UNITS), key=len, reverse=True))
_AMOUNT = re.compile(
    rf"(?<![\w.,])(\d{{1,3}}(?:,\d{{3}})+(?![,\d])|\d+(?:\.\d+)?(?![.,]?\d)|"
    rf"(?:{'|'.join(_NUMBER_WORDS)})\b)"
    rf"(?:\s*({'|'.join(_SCALES)})\b)?(?:\s*({_UNIT})(?![\w²]))?",
    re.I,
)


def parse_amount(text: str) -> tuple[float, str] | None:
    """The number a short answer writes and what it measures ("4,080 ft" → 1243.6, "length").

    Thousands separators and scale words are read ("1,234", "3.5 million"); a unit is converted to
    its measure's base unit; a count, or a number whose unit is not known, measures ''.
    """
    found = _AMOUNT.search(text.lower())
    if not found:
        return None
    number, scale, unit = found.groups()
    value = (
        float(_NUMBER_WORDS[number]) if number in _NUMBER_WORDS else float(number.replace(",", ""))
    )
    value *= _SCALES[scale] if scale else 1.0
    measure, size = _UNITS.get(" ".join(unit.split()), ("", 1.0)) if unit else ("", 1.0)
    return value * size, measure


def _picked(hop: Hop, groups: list[list[HopResult | None]], at: int, how: str) -> tuple[str, str]:
    """The option at `at` as the answer; asked as yes or no, whether it is the first, claimed one."""
    if is_yes_no(hop.question):  # "Is A older than B?" claims the first option
        return ("yes" if at == 0 else "no"), how
    return _named(hop.options[at], groups[at]), how


def _same(a: str, b: str) -> bool:
    """Two values name the same thing: equal, or one country ("United States", "American")."""
    x, y = normalize(a), normalize(b)
    if not (x and y):
        return False
    if x == y:
        return True
    ours, theirs = countries_of(x), countries_of(y)
    if ours and theirs:
        return bool(ours & theirs)
    return len(x) > 3 and len(y) > 3 and x[:4] == y[:4]


def _groups(hop: Hop, results: dict[int, HopResult]) -> list[list[HopResult | None]]:
    """The dependencies' results, one group per option."""
    per = max(1, len(hop.depends_on) // max(1, len(hop.options)))
    deps = [results.get(d) for d in hop.depends_on]
    return [deps[i : i + per] for i in range(0, len(deps), per)]


def _named(option: str, group: list[HopResult | None]) -> str:
    """The option as the name its first hop asked about, where the option writes more around it.

    "Which occurred first, the first publication of The Ladder or Heat?" is answered "The Ladder".
    """
    subject = group[0].subject if group and group[0] else ""
    key = normalize(subject)
    return subject if key and f" {key} " in f" {normalize(option)} " else option


def compute(hop: Hop, results: dict[int, HopResult]) -> tuple[str, str]:
    """The computed hop's answer ('' when its dependencies do not settle it) and how it was reached."""
    groups = _groups(hop, results)
    answers = [[r.answer if r else "" for r in group] for group in groups]
    if hop.compute in ("earliest", "latest", "longest"):
        dates = [[parse_date(a) for a in group] for group in answers]
        if hop.compute == "longest":
            values = [(g[1] - g[0]).days if len(g) == 2 and g[0] and g[1] else None for g in dates]
        else:
            values = [g[0].toordinal() if g and g[0] else None for g in dates]
        known = [v for v in values if v is not None]
        if len(known) < len(values) or len(set(known)) < len(known):
            return "", "the hops did not give a date for every option"
        pick = max(known) if hop.compute in ("latest", "longest") else min(known)
        return _picked(hop, groups, values.index(pick), f"compared the dates: {hop.compute}")
    if hop.compute in ("most", "least"):
        amounts = [parse_amount(group[0]) if group and group[0] else None for group in answers]
        found = [a for a in amounts if a is not None]
        numbers = [value for value, _ in found]
        if len(found) < len(amounts) or len({m for _, m in found}) > 1:
            return "", "the hops did not give a number of one measure for every option"
        if len(set(numbers)) < len(numbers):
            return "", "the options' numbers are equal"
        top = max(numbers) if hop.compute == "most" else min(numbers)
        return _picked(hop, groups, numbers.index(top), f"compared the numbers: {hop.compute}")
    if hop.compute == "same":
        lasts = [g[-1] for g in groups]
        named = [[a for a in ([r.answer, *r.alternatives] if r else []) if a] for r in lasts]
        if not all(named):
            return "", "the hops did not give a value for every option"
        first, *rest = named
        shared = all(any(_same(a, b) for a in first[:1] for b in other) for other in rest)
        return ("yes" if shared else "no"), "compared the values"
    if hop.compute == "all":
        if any(not g[-1] or not g[-1].answer for g in groups):
            return "", "a yes/no hop found nothing"
        return (
            "yes" if all(g[-1].answer == "yes" for g in groups if g[-1]) else "no"
        ), "all said yes"
    if hop.compute == "chosen":
        said = [g[-1].answer if g[-1] else "" for g in groups]
        if said.count("yes") != 1:
            return "", "no one option was said yes to"
        at = said.index("yes")
        return _named(hop.options[at], groups[at]), "the option its yes/no hop said yes to"
    if hop.compute == "common":
        lists = [[r.answer, *r.alternatives] if r else [] for r in (g[-1] for g in groups)]
        common = [
            a for a in lists[0] if a and all(any(_same(a, b) for b in other) for other in lists[1:])
        ]
        return (common[0] if common else ""), "named by every option"
    return "", f"unknown computation {hop.compute!r}"


def final_hop(plan: Sequence[Hop]) -> Hop | None:
    """The hop the question's answer comes from: the last one no other hop depends on."""
    needed = {d for h in plan for d in h.depends_on}
    sinks = [h for h in plan if h.id not in needed]
    return sinks[-1] if sinks else None


def answer_from_hops(
    plan: Sequence[Hop], results: dict[int, HopResult], passages: Sequence[Passage]
) -> Answer:
    """The last hop's answer, cited with every hop's answer sentence in hop order.

    `NOT_FOUND` when the last hop has no answer of its expected type: no span is made up.
    """
    last = final_hop(plan)
    result = results.get(last.id) if last else None
    if last is None or result is None or not result.answer:
        missing = [h.id for h in plan if not (results.get(h.id) and results[h.id].answer)]
        note = f"hop {missing[0] if missing else '?'} found no answer of its expected type"
        return Answer(NOT_FOUND, False, mode="hops", notes=[note])
    by_id = {p.id: p for p in passages}
    chosen: list[tuple[Passage, Sentence]] = []
    for hop in plan:
        hop_result = results.get(hop.id)
        if not hop_result or not hop_result.sentence_id or hop_result.passage_id not in by_id:
            continue
        passage = by_id[hop_result.passage_id]
        sentence = next((s for s in passage.sentences if s.id == hop_result.sentence_id), None)
        if sentence is not None and all(s.id != sentence.id for _, s in chosen):
            chosen.append((passage, sentence))
    sources = [
        Source(label=i, passage_id=p.id, title=p.title, sentence_id=s.id, sentence=s.text)
        for i, (p, s) in enumerate(chosen, 1)
    ]
    return Answer(
        result.answer,
        True,
        sources,
        mode="hops",
        candidates=[result.answer, *result.alternatives],
        notes=[f"answered hop by hop: {len(plan)} hops"],
    )
