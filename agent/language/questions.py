"""Reading a question: what it asks for, the options it names, the words its answer sits beside.

Pure analysis of the question text (and its spaCy parse), apart from the passages: the candidate
ranking (`resin.agent.answering.candidates`), the answer step, the follow-up rewrite and the eval
loaders all read questions the same way. Expected answer types are spaCy (OntoNotes) entity labels.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import cached_property, lru_cache

from pydantic import BaseModel, ConfigDict, Field
from spacy.tokens import Doc

from resin.indexes.lexical import stems
from resin.indexes.nlp_extraction import load_pipeline
from resin.indexes.units import normalize

_WH_WORDS = frozenset("what which who whom whose when where how".split())
_PREPOSITIONS = frozenset("by in at of for from on to with into under".split())
# Auxiliaries that open a yes/no question ("Were both …", "Is the …", "Did …").
_AUXILIARIES = frozenset(
    "is are was were am do does did can could has have had will would should may might must "
    "shall".split()
)
_OPENERS = _WH_WORDS | _AUXILIARIES
_AUX_LEMMAS = frozenset({"be", "do", "have"})
# What the question word asks for, as spaCy (OntoNotes) entity labels.
PEOPLE = frozenset({"PERSON", "ORG"})
PLACES = frozenset({"GPE", "LOC", "FAC"})
NUMBERS = frozenset({"CARDINAL", "QUANTITY", "MONEY", "PERCENT"})
TIMES = frozenset({"DATE", "TIME"})
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
        while len(first) > 1 and (first[0].islower() or first[0].lower() in _OPENERS):
            first = first[1:]
    elif first[0].lower() in _OPENERS:  # "Are A and B democratic or republican?"
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


def is_yes_no(question: str) -> bool:
    """A question that opens with an auxiliary verb and offers no alternatives."""
    words = normalize(question).split()
    return bool(words) and words[0] in _AUXILIARIES and not question_options(question)


def question_parts(doc: Doc) -> tuple[frozenset[str], frozenset[str]]:
    """The question's own words, and the words of the descriptions inside it (stems).

    "In which port was *the designer of the Orrin Dam* born?", "the biologist *who first
    described pale gill fever*": a description names a bridge entity, and the sentences that
    match it are about that entity; the answer's sentence matches the rest ("port", "born").
    """
    inner: set[int] = set()
    for token in doc:
        for child in token.children:
            if (
                child.dep_ in ("relcl", "acl")
                or token.pos_ in ("NOUN", "PROPN")
                and (child.dep_ == "prep" and not any(t.lower_ in _WH_WORDS for t in child.subtree))
            ):
                inner.update(t.i for t in child.subtree)
    words = [t for t in doc if t.is_alpha]
    if words and words[0].lower_ in _WH_WORDS | {"in", "at", "on", "from", "for", "by", "to"}:
        inner.discard(words[-1].i)  # "… did the biologist who … *work*?": the main verb
    described = stems(" ".join(t.text for t in doc if t.i in inner))
    main = stems(" ".join(t.text for t in doc if t.i not in inner)) - described
    return frozenset(main), frozenset(described)


def question_verb(doc: Doc) -> str:
    """The question's main verb other than be/do/have ("… *switch* to …"), cut to five letters.

    The answer is usually written beside it.
    """
    roots = [t for t in doc if t.dep_ == "ROOT" and t.pos_ == "VERB"]
    return roots[0].lemma_.lower()[:5] if roots and roots[0].lemma_ not in _AUX_LEMMAS else ""


# Clauses that describe something inside the question rather than ask it.
_CLAUSES = frozenset({"relcl", "acl", "advcl", "ccomp", "pcomp", "xcomp"})


def asks_main_argument(doc: Doc) -> bool:
    """Does the question word hang off the main verb, not off a clause describing something?

    "Where was Hessa Varn born?", "In which port was … born?": the main verb's argument is asked.
    "… voiced by the actress who achieved success on what show?": the clause's is, so a fact
    with the main verb ("voiced by Ashley Tisdale") answers a hop on the way, not the question.
    """
    node = next((t for t in doc if t.lower_ in _WH_WORDS), None)
    if node is None:
        return False
    while node.head.i != node.i:
        if node.dep_ in _CLAUSES:
            return False
        node = node.head
    return True


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
        if start < len(words) and words[start] in _WH_WORDS:
            return " ".join(words[start : start + 5])
    if words and words[-1] in _WH_WORDS:
        return " ".join(words[-5:])
    for i in range(1, len(words) - 1):  # "… was directed by which Australian producer?"
        if words[i] in ("which", "what", "whom") and words[i - 1] in _PREPOSITIONS:
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
    return words[-1][:5] if words and words[-1] not in _AUXILIARIES else ""


# Entity labels that name no thing a passage must be about: "American", "1990", "first".
_NOT_NAMES = frozenset("NORP DATE TIME CARDINAL ORDINAL QUANTITY PERCENT MONEY LANGUAGE".split())


_TRIMMED = frozenset("the a an and or of for".split())


def question_names(doc: Doc, options: Sequence[str]) -> list[str]:
    """The named things a question is about: its options, quoted titles and entity names.

    An entity that runs over an option ("A or B" read as one name) gives way to the options.
    A lower-case entity is the parser's guess, not a name the asker wrote.
    """
    named = [o for o in options if o[:1].isupper() or o[:1].isdigit()]  # not "sang or played"
    names = [*named, *re.findall(r'"([^"]{2,})"', doc.text)]
    given = [f" {normalize(n)} " for n in names]
    for ent in doc.ents:
        if ent.label_ in _NOT_NAMES:
            continue
        for part in re.split(r"\s+or\s+", ent.text):
            words = part.strip(" ,").split()
            while words and words[0].lower() in _OPENERS | _TRIMMED:
                words = words[1:]  # "Are Rovin' Tumbleweeds …": the parser took the verb in
            while words and words[-1].lower() in _TRIMMED:
                words = words[:-1]
            if len(words) > 2 and ent.end >= len(doc) - 1 and _is_demonym(words[-1]):
                words = words[:-1]  # "Is Orla Venn British?": the parser ran the name into it
            text = " ".join(words)
            key = f" {normalize(text)} "
            if not text[:1].isupper() and not text[:1].isdigit() or not key.strip():
                continue
            if not any(key in g or g in key for g in given):
                names.append(text)
    return list(dict.fromkeys(n for n in names if normalize(n)))


@lru_cache(maxsize=1024)
def _is_demonym(word: str) -> bool:
    """Is the word a nationality, religion or language ("British", "Catholic")?

    The parser reads it alone in a frame where a name would be read as a person or place.
    """
    return any(e.label_ in ("NORP", "LANGUAGE") for e in load_pipeline()(f"He is {word}.").ents)


def names_written(name: str, texts: Sequence[str]) -> bool:
    """Do the normalized, spaced texts write the name, or each part of an "A and B" it joined?"""
    parts = [normalize(p) for p in re.split(r"\s+and\s+|,\s+", name)]
    return any(
        all(any(f" {p} " in t for t in texts) for p in group if p)
        for group in ([normalize(name)], parts)
    )


class ParsedToken(BaseModel):
    """One token of a question's parse, as plain values a checkpoint can hold."""

    model_config = ConfigDict(frozen=True)

    text: str
    space: bool
    lemma: str
    pos: str
    tag: str
    dep: str
    head: int
    ent: str = Field(description="the token's entity as IOB: 'B-PERSON', 'I-GPE', 'O'")
    morph: str = ""


class Question(BaseModel):
    """A question read once: its text, its parse and what the message held that was skipped.

    `rewrite` makes it and state keeps it (plain JSON in a checkpoint); every later reading of
    the question (plan, hops, candidates, the answer step) asks this object, whose readings are
    computed once. A multiple-choice question's readings are those of its stem: `options` holds
    the lettered options, `text` the question as asked.
    """

    model_config = ConfigDict(frozen=True)

    text: str
    skipped: list[str] = Field(default_factory=list)
    options: list[str] = Field(default_factory=list, description="lettered options, in order")
    stem: str = ""
    tokens: list[ParsedToken] = Field(default_factory=list)

    @classmethod
    def read(cls, text: str, skipped: Sequence[str] = ()) -> Question:
        """Parse the question (its stem, when it lists lettered options)."""
        stem, options = listed_options(text)
        doc = load_pipeline()(stem if len(text) <= MAX_QUESTION_CHARS else "")
        tokens = [
            ParsedToken(
                text=t.text,
                space=bool(t.whitespace_),
                lemma=t.lemma_,
                pos=t.pos_,
                tag=t.tag_,
                dep=t.dep_,
                head=t.head.i,
                ent=f"{t.ent_iob_}-{t.ent_type_}" if t.ent_type_ else "O",
                morph=str(t.morph),
            )
            for t in doc
        ]
        return cls(text=text, skipped=list(skipped), options=options, stem=stem, tokens=tokens)

    @cached_property
    def doc(self) -> Doc:
        """The stem's spaCy parse, rebuilt from the tokens (no model run)."""
        t = self.tokens
        return Doc(
            load_pipeline().vocab,
            words=[x.text for x in t],
            spaces=[x.space for x in t],
            lemmas=[x.lemma for x in t],
            pos=[x.pos for x in t],
            tags=[x.tag for x in t],
            deps=[x.dep for x in t],
            heads=[x.head for x in t],
            ents=[x.ent for x in t],
            morphs=[x.morph for x in t],
        )

    @cached_property
    def pair(self) -> list[str]:
        """The two alternatives the question names ("Which is older, X or Y?"), or []."""
        return question_options(self.stem)

    @cached_property
    def names(self) -> list[str]:
        """The named things the question is about (`question_names`): a passage must name each."""
        return question_names(self.doc, self.pair)

    @cached_property
    def yes_no(self) -> bool:
        """A yes/no question: it opens with an auxiliary and names no alternatives."""
        return is_yes_no(self.stem)

    @cached_property
    def parts(self) -> tuple[frozenset[str], frozenset[str]]:
        """The question's own words and the words of its descriptions (stems)."""
        return question_parts(self.doc)

    @cached_property
    def words(self) -> frozenset[str]:
        """Every word stem of the question."""
        return frozenset(stems(self.stem))

    @cached_property
    def normalized(self) -> str:
        """The normalized stem with a space on each side, for whole-phrase tests."""
        return f" {normalize(self.stem)} "

    @cached_property
    def verb(self) -> str:
        """The main verb other than be/do/have, cut to five letters ('' if none)."""
        return question_verb(self.doc)

    @cached_property
    def main_argument(self) -> bool:
        """Whether the question word hangs off the main verb, not a clause inside."""
        return asks_main_argument(self.doc)

    @cached_property
    def defined(self) -> str:
        """What a "Who was X?" question asks to define, normalized ('' if none)."""
        return defined_subject(self.stem)

    @cached_property
    def wh(self) -> str:
        """The question word and the words after it, normalized."""
        return wh_phrase(self.stem)

    @cached_property
    def expected(self) -> frozenset[str]:
        """What the question word asks for, as entity labels (empty: anything)."""
        return expected_labels(self.stem)

    @cached_property
    def head(self) -> str:
        """The noun the question asks for ("which mountain *pass*"), cut to five letters."""
        return answer_head(self.stem)

    @cached_property
    def causal(self) -> tuple[str, str] | None:
        """(thing affected, condition) of "What happens to X when Y?", else None."""
        return causal_parts(self.stem)
