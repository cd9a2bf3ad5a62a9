"""The form of a question: what its question word asks for, and the statement it is about.

Read off the question's words alone (no parse, no passages): the entity labels an answer should
carry (spaCy's OntoNotes labels), the noun it asks for ("which mountain *pass*"), what a "Who
was X?" asks to define, the parts of "What happens to X when Y?", the effect a "Why …?" asks
the cause of, and the thing "Tell me about X" asks to be told about.
"""

from __future__ import annotations

import re

from resin.indexes.units import normalize

WH_WORDS = frozenset("what which who whom whose when where how".split())
PREPOSITIONS = frozenset("by in at of for from on to with into under".split())
# Auxiliaries that open a yes/no question ("Were both …", "Is the …", "Did …").
AUXILIARIES = frozenset(
    "is are was were am do does did can could has have had will would should may might must "
    "shall".split()
)
OPENERS = WH_WORDS | AUXILIARIES
AUX_LEMMAS = frozenset({"be", "do", "have"})
# What the question word asks for, as spaCy (OntoNotes) entity labels.
PEOPLE = frozenset({"PERSON", "ORG"})
PLACES = frozenset({"GPE", "LOC", "FAC"})
NUMBERS = frozenset({"CARDINAL", "QUANTITY", "MONEY", "PERCENT"})
TIMES = frozenset({"DATE", "TIME"})
# Words that let an untyped question or hop answer with a time ("the era of X", "the year of X").
TIME_WORDS = frozenset(
    w[:5]
    for w in "era period age time times reign season term duration when year date decade "
    "century day".split()
)
_KINDS = frozenset(
    {"NP", "PROPN"}
)  # "a kind of what?": a noun phrase (the parser may tag it proper)
ACTIONS = frozenset({"VP"})  # "what happens to …?": what something does or undergoes
_EXPECTED: tuple[tuple[re.Pattern[str], frozenset[str]], ...] = tuple(
    (re.compile(pattern), labels)
    for pattern, labels in (
        (
            r"^what (?:\w+ly )?(?:happens|happened|will happen|would happen)\b"
            r"|^what (?:does|did) .* do$",
            ACTIONS,
        ),
        (r"\bhow (?:many|much)\b", NUMBERS),
        (r"\bhow (?:long|old|tall|high|far|big|large|deep|wide)\b", NUMBERS | TIMES),
        (r"\b(?:when|what year|which year|what date|what decade|what century)\b", TIMES),
        (r"\b(?:who|whom|whose)\b", PEOPLE),
        (
            r"\b(?:which|what) (?:\w+ ){0,2}(?:actor|actress|star|player|singer|musician|"
            r"director|author|writer|poet|novelist|producer|comedian|person|man|woman|"
            r"politician|coach|president|king|queen|artist|composer|athlete|footballer|"
            r"rapper|scientist|founder|wife|husband|son|daughter|father|mother)s?\b",
            frozenset({"PERSON"}),
        ),
        (r"\bwhat nationality\b", frozenset({"NORP", "GPE"})),
        (r"\b(?:kind|type|sort|species|genus|form|breed|class) of (?:what|which)\b", _KINDS),
        (
            r"\b(?:where|(?:what|which) (?:\w+ )?(?:city|town|port|country|state|place|village|county|"
            r"region|river|mountain|island|continent|province|location|area|lake|valley|pass))\b",
            PLACES,
        ),
        (
            r"\b(?:what|which) (?:\w+ )?(?:arena|stadium|venue|hall|theat(?:er|re)|museum|airport|"
            r"hotel|casino|castle|church|cathedral|bridge|building|base|park)s?\b",
            PLACES | frozenset({"ORG"}),
        ),
        (
            r"\b(?:what|which) (?:\w+ ){0,2}(?:company|organi[sz]ation|band|team|group|university|school|"
            r"club|party|agency|firm|label|station)\b",
            frozenset({"ORG", "FAC"}),
        ),
        (
            r"\b(?:what|which) (?:\w+ )?(?:film|movie|book|novel|album|song|show|series|play|magazine)\b",
            frozenset({"WORK_OF_ART", "ORG"}),
        ),
    )
)
# An answer (a named option, a candidate span) is at most this many words.
MAX_WORDS = 8
# Longer questions are refused rather than cut (a cut question is a different question), and
# are not parsed.
MAX_QUESTION_CHARS = 2000


_DEFINITION = re.compile(r"^(?:who|what) (?:is|was|are|were) (.+)$")


def defined_subject(question: str) -> str:
    """What a "Who was X?" / "What is the X?" question asks to define, normalized ('' if none).

    Whether X is an entity (not "the population of Caldmere") is for the index's units to say.
    """
    found = _DEFINITION.match(normalize(question))
    return found.group(1) if found else ""


def wh_phrase(question: str) -> str:
    """The question word and the words after it ("which mountain pass"), normalized.

    Only a question word that opens the question ("In which port …", "Who …") or closes it
    ("… a kind of what?") counts: a "who" or "when" inside it opens a clause ("the biologist who
    first described …", "… when the river runs low"), not the question.
    """
    words = normalize(question).split()
    for start in (0, 1):  # "In which port", "At which field station"
        if start < len(words) and words[start] in WH_WORDS:
            return " ".join(words[start : start + 5])
    if words and words[-1] in WH_WORDS:
        return " ".join(words[-5:])
    for i in range(1, len(words) - 1):  # "… was directed by which Australian producer?"
        if words[i] in ("which", "what", "whom") and words[i - 1] in PREPOSITIONS:
            return " ".join(words[i : i + 5])
    return ""


_HAPPENS_TO = re.compile(
    r"^what (?:\w+ly )?(?:happens|happened|will happen|would happen) to (.+?),? "
    r"(?:when|if|whenever|once|after) (.+?)\W*$",
    flags=re.I,
)
# A modifier after the thing affected places it ("the silverfin below the dam"); its words are
# not what the effect must name.
_PLACING = re.compile(r" (?:below|above|in|on|at|near|under|behind|downstream|upstream)\b.*$")


def causal_parts(question: str) -> tuple[str, str] | None:
    """(thing affected, condition) of "What (ultimately) happens to X when Y?", else None."""
    match = _HAPPENS_TO.match(question.strip())
    if match is None:
        return None
    return _PLACING.sub("", match.group(1)), match.group(2)


def expected_labels(question: str) -> frozenset[str]:
    """What the question word asks for, as entity labels (empty: anything)."""
    phrase = wh_phrase(question)
    for pattern, labels in _EXPECTED:
        if pattern.search(phrase):
            return labels
    return frozenset()


def answer_head(question: str) -> str:
    """The noun the question asks for ("which mountain *pass*"), cut to five letters."""
    phrase = wh_phrase(question)
    match = re.match(
        r"(?:which|what) ((?:\w+ )*?\w+?) (?:is|was|are|were|did|does|do|has|had)\b", phrase
    )
    if match is None:
        match = re.match(r"(?:which|what) (\w+)$", phrase) or re.search(
            r"(\w+) of (?:what|which)$", phrase
        )
    words = match.group(1).split() if match else []
    return words[-1][:5] if words and words[-1] not in AUXILIARIES else ""


_WHY = re.compile(
    r"^why (?:do|does|did|is|are|was|were|has|have|had|will|would|can|could|should|must) (.+?)\W*$",
    flags=re.I,
)
_ABOUT = re.compile(
    r"^(?:please )?(?:(?:can|could|would) you )?(?:tell me (?:more )?about|"
    r"what (?:do you|do the documents|does the text) (?:know|say) about|describe|summari[sz]e|"
    r"give (?:me )?(?:an )?(?:overview|summary) of)\s+(.+?)[\s?.!]*$",
    flags=re.I,
)


def why_clause(question: str) -> str:
    """The effect a "Why …?" question asks the cause of ("the council cancel the Lantern Run")."""
    found = _WHY.match(question.strip())
    return found.group(1) if found else ""


def about_subject(question: str) -> str:
    """What "Tell me about X" (or "Describe X", "What do you know about X") asks about, or ''."""
    found = _ABOUT.match(question.strip())
    return found.group(1) if found else ""
