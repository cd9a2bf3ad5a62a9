"""What a hop's candidate answer's sentence says about it: the readings the ranking's features use.

Each function reads one thing off a sentence and a candidate span (is it of the expected type,
near the relation's words, after "by", in the date slot of "(1868, Graz – 1937, Paris)", a
country's name, a count written with a unit …); `resin.agent.reading.hop_answer` turns them into
the features its fitted ranking weighs.
"""

from __future__ import annotations

import re

from resin.agent.language.forms import TIME_WORDS, TIMES, answer_head
from resin.agent.language.relations import (
    TYPE_LABELS,
    AnswerType,
    relation_head,
    relation_words,
)
from resin.agent.language.spans import sentence_spans, tokens_of
from resin.indexes.units import normalize

_WINDOW = 4
MONTHS = tuple(
    "january february march april may june july august september october november december".split()
)
_MONTH = rf"(?:{'|'.join(m.capitalize() for m in MONTHS)})"
# Dates as biographies write them: "4 May 1974", "May 4, 1974", "May 1974", "1974"; in a range
# whose dash was lost, a date may end where the next begins ("21 March 192011 January 2010").
_GLUED = rf"(?<=\d)(?=\d{{1,2}} {_MONTH})"
_DATES = re.compile(
    rf"(?:\b|{_GLUED})(?:\d{{1,2}} {_MONTH},? \d{{3,4}}|{_MONTH} \d{{1,2}},? \d{{3,4}}|"
    rf"{_MONTH} \d{{3,4}}|(?<![\d.,])\d{{3,4}}(?!\d|[.,]\d))(?:\b|{_GLUED})"
)
# A year run into the next number: the parser's span of a range that lost its dash.
_RUN_ON_YEAR = re.compile(r"(?:1\d{3}|20\d{2})\d{1,2}\b")
# The parser's span of a range ("6 June 1906 – 2 November 1994", "1775 to 1786", "between May
# 1814 and"): two dates, or one cut short, never one answer; `_DATES` reads each date of it.
_RANGE = re.compile(r"\d\s*(?:[–—-]|\bto\b|\band\b)\s*\S|^between\b|\b(?:and|to)$|[–—-]$")
# A span naming a point in the calendar ("1714", "the 1970s", "May 1974", "start of the 20th
# century"): a date, never a count ("5 years" is one).
_CALENDAR = re.compile(
    rf"(?<!\d)(?:1\d{{3}}|20\d{{2}})(?!\d)|\b\d{{1,2}}(?:st|nd|rd|th)[- ]centur|\b{_MONTH}\b", re.I
)
# A count made a modifier ("a three-act opera", "a 2-year term"): no count of its own
# ("twenty-two" is one).
_MODIFIER = re.compile(r"\S+-(?!(?:one|two|three|four|five|six|seven|eight|nine)\b)[a-z]+", re.I)
_MONTH_WORDS = frozenset(MONTHS)
_DATE_RANGE = re.compile(r"\(([^()]*\d{3,4}[^()]*?)\s*[–—-]+\s*([^()]*\d{3,4}[^()]*)\)")
NATIONALITY = frozenset(
    {"nationality", "citizenship", "country of citizenship", "country", "country of origin"}
)
ASKS_COUNTRY = re.compile(r"\b(?:country|countries|nation|nationality|citizenship)\b", re.I)
PLACE_LABELS = frozenset({"GPE", "LOC"})
# Types the small parser often leaves untyped: a capitalized span may still answer them.
_LOOSE: dict[str, frozenset[str]] = {
    "person": frozenset({"PROPN", "ORG", "TITLE", "NAME"}),
    "work": frozenset({"PROPN", "PERSON", "TITLE", "NAME"}),
    "organization": frozenset({"PROPN", "TITLE", "NAME", "PERSON", "GPE"}),
    "place": frozenset({"PROPN", "TITLE", "NAME", "ORG", "PERSON"}),
}


def labels_for(answer_type: AnswerType, relation: str) -> frozenset[str]:
    """Entity labels an answer may carry: a country or nationality may be an adjective."""
    if relation_head(relation) in NATIONALITY:
        return frozenset({"NORP", "GPE"})
    if answer_type == "other" and relation_words(relation) & TIME_WORDS:
        return TIMES
    return TYPE_LABELS[answer_type]


def type_fit(label: str, text: str, answer_type: AnswerType, allowed: frozenset[str]) -> str:
    """'typed', 'loose' or '' (not a candidate) for a span of this label.

    Any span but a verb phrase may answer an untyped hop, except a time where the relation asks
    for none: "What is the religion of X?" is never "26 February 1906". `allowed` then holds the
    time labels where it does ("What was the era …"), and is empty where it does not.
    """
    if answer_type == "other":
        timed = label in TIMES or bool(_CALENDAR.search(text))  # "26 February" too
        return "" if label == "VP" or timed and not allowed else "typed"
    if label in allowed:
        if answer_type == "date" and not any(c.isdigit() for c in text):
            return ""
        if answer_type == "number" and (
            label == "DATE" and _CALENDAR.search(text) or _MODIFIER.fullmatch(text)
        ):
            return ""  # "how many times" is no year ("the plague struck in 1714") nor "three-act"
        return "typed"
    if label in _LOOSE.get(answer_type, frozenset()):
        return "loose" if text[:1].isupper() else ""
    return ""


def relation_near(sentence: str, span: str, words: frozenset[str]) -> int:
    """How many relation words are written within a few words of the span."""
    tokens = normalize(sentence).split()
    target = normalize(span).split()
    found = 0
    for i in range(len(tokens) - len(target) + 1):
        if tokens[i : i + len(target)] == target:
            around = (
                tokens[max(0, i - _WINDOW) : i]
                + tokens[i + len(target) : i + len(target) + _WINDOW]
            )
            found = max(found, len({w[:5] for w in around} & words))
    return min(found, 2)


def relation_before(sentence: str, span: str, words: frozenset[str]) -> bool:
    """Is a relation word among the three words written just before the span?"""
    tokens = normalize(sentence).split()
    target = normalize(span).split()
    for i in range(len(tokens) - len(target) + 1):
        if (
            tokens[i : i + len(target)] == target
            and {w[:5] for w in tokens[max(0, i - 3) : i]} & words
        ):
            return True
    return False


# A rank a name carries as part of itself: "Charles, Duke of Vendôme", "Thomas FitzGerald, 7th
# Earl of Desmond". Alone, the rank word is no name.
_RANKS = (
    "Duke|Duchess|Count|Countess|Earl|Baron|Baroness|Viscount|Viscountess|Marquess|Marquis|"
    "Marchioness|Prince|Princess|King|Queen|Lord|Lady|Emperor|Empress|Margrave|Landgrave|Elector|"
    "Electress|Grand Duke|Grand Duchess|Archduke|Archduchess|Bishop|Archbishop|Sultan|Khan"
)
_RANK_ALONE = re.compile(rf"^(?:\d+(?:st|nd|rd|th)\s+)?(?:{_RANKS})$", re.I)
_STYLED = re.compile(
    rf"^,\s+(?:the\s+)?(?:\d+(?:st|nd|rd|th)\s+)?(?:{_RANKS})\s+of\s+"
    r"[A-Z][\w'’-]*(?:(?:\s+|-)(?:of\s+|the\s+)?[A-Z][\w'’-]*)*"
)


# A name's territorial designation ("Mstislav I of Kiev", "Sibylle of Brandenburg"): a given name
# with a rank before it or a regnal number after it, or a lone given name, then "of" and a place.
_RANKED = rf"(?:(?:{_RANKS})\s+)+"
_DESIGNATED = re.compile(
    rf"^(?:{_RANKED}[A-Z][\w'’-]+(?:\s+[A-Z][\w'’-]+)?|[A-Z][\w'’-]+)(?:\s+[IVX]+)?$"
)
_OF_PLACE = re.compile(r"^\s+of\s+[A-Z][\w'’]*(?:(?:\s+|-)[A-Z][\w'’]*)*")
_LEADING_RANK = re.compile(rf"^{_RANKED}(?=[A-Z])")
# A regnal number the parser left out of the name ("Mstislav" of "Mstislav I of Kiev"), not the
# pronoun "I" of a new clause.
_NUMERAL = re.compile(r"^\s+[IVX]+\b(?=\s+(?:of|and)\b|\s*[,.;:)]|\s*$)")


def _designated(text: str, spans: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """Each name also with the place it is "of", and a designated one without its rank.

    "Sibylle of Brandenburg" is a name of its own. "King Ferdinand of Romania" is read as
    "Ferdinand of Romania": a rank before a name that holds its place or its regnal number is a
    title, not part of the name ("Lady Gaga" keeps hers). Where the parser cut the name before its
    place or its number ("Stephen I of", "Mstislav"), the cut span gives way to the whole name.
    """
    out = []
    for span, label in spans:
        if label not in ("PERSON", "PROPN"):
            out.append((span, label))
            continue
        name = re.sub(r"\s+of$", "", span)
        at = text.find(name)
        if at >= 0 and (numeral := _NUMERAL.match(text[at + len(name) :])):
            name += numeral.group(0)
        names = [name]
        if _DESIGNATED.match(name) and at >= 0:
            place = _OF_PLACE.match(text[at + len(name) :])
            if place:
                names.append(name + place.group(0))
        names = [_untitled(n) for n in names]
        out += [(n, label if n == span else "PERSON") for n in dict.fromkeys(names)]
    return out


def _untitled(name: str) -> str:
    """The name without a rank before it where the rest names one person by place or number."""
    rest = _LEADING_RANK.sub("", name)
    designated = rest != name and (" of " in rest or re.search(r"\s[IVX]+$", rest))
    return rest if designated else name


def _styled(text: str, spans: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """Names with the rank written after them ("Albert III, Count of Namur") as one span.

    A rank makes the name a person's, whatever label the parser gave it.
    """
    out = []
    for span, label in spans:
        if _RANK_ALONE.match(span):
            continue
        if label in ("PERSON", "PROPN", "ORG") and (at := text.find(span)) >= 0:
            styled = _STYLED.match(text[at + len(span) :])
            if styled:
                span, label = span + styled.group(0), "PERSON"
        out.append((span, label))
    return out


def spans_of(text: str) -> list[tuple[str, str]]:
    """A sentence's spans and labels: the parser's, with every written date as a DATE.

    A noun chunk the parser also read as an entity of another label keeps that label only; a
    name keeps the rank written after it.
    """
    parsed = _designated(text, _styled(text, list(sentence_spans(text))))
    labelled = {normalize(s): lab for s, lab in parsed if lab not in ("NP", "PROPN", "VP")}
    out = [
        (s, lab) for s, lab in parsed if lab not in ("NP", "PROPN") or normalize(s) not in labelled
    ]
    out = [
        (s, lab)
        for s, lab in out
        if normalize(s) not in _MONTH_WORDS
        and not (lab == "DATE" and (_RUN_ON_YEAR.search(s) or _RANGE.search(s.strip())))
    ]
    out += [(m.group(0), "DATE") for m in _DATES.finditer(text)]
    return out


# A number written as a catalogue or serial number: after an abbreviation in capitals ("RV 728",
# "BWV 831") or after "No."/"Op." ("Op. 3").
_CATALOGUE = r"(?:\b[A-Z]{1,5}\.?|\b(?:No|Nos|Op|Nr)\.)\s+"


# A unit written with a number: the number measures something ("a 4080 ft peak", "1.83 km").
_UNIT = (
    r"(?:ft|feet|foot|m|metres?|meters?|km|kilometres?|kilometers?|mi|miles?|acres?|hectares?|"
    r"ha|sq|square|kg|kilograms?|lb|lbs|pounds?|tons?|tonnes?|%|percent|per cent|mph)"
)
# Relation words that ask for a measure, where a unit belongs to the answer.
MEASURES = frozenset(
    w[:5]
    for w in "height tall long length distance far area size elevation altitude depth deep wide "
    "width weight heavy speed capacity volume prominence percent percentage share rate "
    "proportion".split()
)


def has_measure(sentence: str, span: str) -> bool:
    """Is the number written with a unit ("4080 ft", "1.83 km")? Then it counts nothing."""
    if not span[:1].isdigit():
        return False
    if re.search(rf"\d\s*{_UNIT}$", span, flags=re.I):
        return True
    at = sentence.find(span)
    return at >= 0 and bool(
        re.match(rf"\s*(?:\(\S+\)\s*)?{_UNIT}\b", sentence[at + len(span) :], re.I)
    )


def catalogued(sentence: str, span: str) -> bool:
    """Is every place the sentence writes the number one that catalogues rather than counts?"""
    if not span[:1].isdigit():
        return False
    at = [m.start() for m in re.finditer(rf"(?<![\w.]){re.escape(span)}(?!\w)", sentence)]
    return bool(at) and all(re.search(_CATALOGUE + "$", sentence[:i]) for i in at)


def in_slot(sentence: str, span: str, relation: str) -> bool:
    """Is the date or place in the parenthetical slot its relation names?

    Biographies write birth first and death second ("(1868 – 1937)", "(6 June 1906, Graz –
    2 November 1994, Paris)"), or "(born … in Place)".
    """
    words = relation_words(relation)
    match = _DATE_RANGE.search(sentence)
    key = normalize(span)
    if match:
        first, second = normalize(match.group(1)), normalize(match.group(2))
        if words & {"born", "birth"}:
            return key in first
        if words & {"died", "death", "die"}:
            return key in second
    if words & {"born", "birth"}:
        return bool(re.search(r"\(\s*born\b[^()]*" + re.escape(span), sentence))
    return False


def other_slot(sentence: str, span: str, relation: str) -> bool:
    """Is the date or place in the other end of a life's range: a birth's where a death is asked?"""
    match = _DATE_RANGE.search(sentence)
    words = relation_words(relation)
    if not match or not words & {"born", "birth", "died", "death", "die"}:
        return False
    key = normalize(span)
    first, second = normalize(match.group(1)), normalize(match.group(2))
    other, asked = (second, first) if words & {"born", "birth"} else (first, second)
    return key in other and key not in asked


# A hop as the planner writes it: "What is the busiest airport in #1?", "What is the record
# label that #1 belongs to?". The noun before the preposition or clause is what it asks for.
_HOP_HEAD = re.compile(
    r"^(?:what|which) (?:is|was|are|were) the (?:[a-z]+ )*?([a-z]+) "
    r"(?:of|in|on|at|for|from|by|to|that|which|who|whom|where|whose)\b"
)


def hop_head(question: str) -> str:
    """The noun a hop asks for, cut to five letters: "which pass", "the busiest *airport* in"."""
    found = _HOP_HEAD.match(normalize(question))
    return answer_head(question) or (found.group(1)[:5] if found else "")


def linked_to(sentence: str, span: str, words: frozenset[str]) -> bool:
    """Is the span at most two parse arcs from a relation word ("X composed", "composed by X")?

    Reads the sentence's grammar where `relation_near` reads its word order: "Vivaldi, who was
    born in Venice in 1678, composed …" links Vivaldi to "composed" however far apart.
    """
    inside = tokens_of(sentence, span)
    if inside is None or not words:
        return False
    reached = {t.i for t in inside}
    frontier = list(inside)
    for _ in range(2):  # two arcs out from the span, up to heads and down to children
        frontier = [n for t in frontier for n in (t.head, *t.children) if n.i not in reached]
        reached.update(n.i for n in frontier)
        if any(t.lower_[:5] in words or t.lemma_.lower()[:5] in words for t in frontier):
            return True
    return False


def after_by(sentence: str, span: str) -> bool:
    """Is the span written after "by", at most four words between ("by American singer X")?"""
    words, target = normalize(sentence).split(), normalize(span).split()
    return any(
        words[at + gap : at + gap + len(target)] == target
        for at, word in enumerate(words, start=1)
        if word == "by"
        for gap in range(5)
    )


def place_chain(
    sentence: str, text: str, places: list[str], asks_country: bool
) -> dict[str, float]:
    """Where a place stands in its sentence's chain of places ("Tucson, Arizona, United States").

    A chain runs narrow to wide: a hop that asks for a city or a state wants a place a wider one
    follows, a hop that asks for a country the chain's last place.
    """
    if not places:
        return {}

    def written(first: str, second: str) -> bool:  # "first, second" in the sentence
        return bool(re.search(re.escape(first) + r",\s+(?:the\s+)?" + re.escape(second), sentence))

    others = [other for other in places if other != text]
    followed = any(written(text, other) for other in others)
    last = any(written(other, text) for other in others) and not followed
    return {
        "narrower": float(followed and not asks_country),
        "broadest": float(last and asks_country),
        "broadest_unasked": float(last and not asks_country),
    }


def born_as(sentence: str, span: str) -> bool:
    """Is the span a birth's nationality ("a Canadian-born French director"), not a citizenship?"""
    return bool(re.search(rf"(?<!\w){re.escape(span)}\s*-\s*born\b", sentence))


def country_features(is_country: bool, asked: bool, answer_type: AnswerType) -> dict[str, float]:
    """A country's name is the answer where a country is asked, seldom where another place is."""
    if not is_country:
        return {}
    if asked:
        return {"country": 1.0}
    return {"country_unasked" if answer_type == "place" else "country_not_place": 1.0}


def writes_role(features: dict[str, float], role_in_sentence: frozenset[str]) -> bool:
    """Does the candidate's sentence write the role asked: its word, a unit, a kin frame, "by X"?"""
    return bool(role_in_sentence) or any(features[f] for f in ("unit", "kin", "after_by"))
