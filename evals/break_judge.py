"""How a Break question is judged: its decomposition's shape, its human lookups, its hops' checks.

`bench_break` plans each question and reports; this module reads the human decomposition
(`shape`, `human_lookups`) and each planned hop (`hop_problems`, `unnamed_subject`), and names
what a question's parse holds (`features`) for grouping failures.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from spacy.tokens import Doc

from resin.agent.language.questions import Question
from resin.agent.state import Hop, PlanSource
from resin.indexes.nlp_extraction import load_pipeline

Shape = Literal[
    "bridge", "comparison", "intersection", "filter", "yes/no", "aggregate", "single-step", "other"
]
SHAPES: tuple[Shape, ...] = (
    "bridge",
    "filter",
    "comparison",
    "intersection",
    "yes/no",
    "aggregate",
    "other",
    "single-step",
)
# Break operators that combine earlier results: a step with them that refers to `#k` is computed.
COMBINING = frozenset(
    "comparison boolean aggregate intersection arithmetic union discard None".split()
)
_REF = re.compile(r"#(\d+)")
_STAND_IN = "Paris"  # a name the parser reads as one, in a placeholder's place
_WH = frozenset("what which who whom whose where when how why".split())
_AUXILIARIES = frozenset(
    "is are was were am be do does did can could has have had will would should may might must "
    "shall".split()
)
_PREPOSITIONS = frozenset(
    "in on at for from by to of with during about after before since under into through "
    "between among as".split()
)
# A select step that relates something: a question or relative word, or a preposition or
# possessive that leads to a name, number or placeholder ("character of Bruce Willis in …").
_RELATIVE = re.compile(r"\b(?:who|whom|whose|which|that|what|where|when|how|if)\b", re.I)
_LEADS_TO_NAME = re.compile(
    r"(?:\b(?:" + "|".join(sorted(_PREPOSITIONS)) + r")\b|'s\b)(?=.*?(?:\b[A-Z0-9]|#\d))"
)
_POSSESSIVE = re.compile(r"\w ?'s [a-z]")
# A projection that only renames its input ("name of #1"): no lookup of its own.
_RENAMING = frozenset("name names the a an of".split())
# Words after a name that do not make it a modifier ("Pomeranian and …", "Danish is …").
_JOINING = _AUXILIARIES | _PREPOSITIONS | frozenset("and or nor but".split())
_DETERMINERS = frozenset(
    "the a an this that these those it its he she they his her their which what".split()
)


def shape(operators: Sequence[str]) -> Shape:
    """The decomposition's shape, from its operators, its last step first.

    A final boolean is a yes/no question, whatever compared before it ("Are A and B of the same
    nationality?"); a comparison anywhere picks between options (boolean sides included: "Which
    singer is also a writer, A or B?"); then an intersection, a final count or arithmetic, a
    filter anywhere, and select/project chains (bridges). Break's unlabelled final step ("None")
    over two selects is a comparison.
    """
    ops = list(operators)
    if len(ops) <= 1:
        return "single-step"
    last = ops[-1]
    if last == "boolean":
        return "yes/no"
    if "comparison" in ops or (last == "None" and ops.count("select") >= 2):
        return "comparison"
    if "intersection" in ops:
        return "intersection"
    if last in ("aggregate", "arithmetic"):
        return "aggregate"
    if "filter" in ops:
        return "filter"
    if set(ops) <= {"select", "project"}:
        return "bridge"
    return "other"


def _relates(step: str) -> bool:
    """A verb, a question or relative word, a possessive, or a preposition leading to a name."""
    if _RELATIVE.search(step) or _LEADS_TO_NAME.search(step) or _POSSESSIVE.search(step):
        return True
    return any(t.tag_.startswith("VB") for t in load_pipeline()(step))


def _names_something(step: str) -> bool:
    """Does the noun phrase hold a proper name (not a nationality: "British horror film")?"""
    return any(t.pos_ == "PROPN" and t.ent_type_ != "NORP" for t in load_pipeline()(step))


def needs_lookup(step: str, operator: str, filtered: bool = False) -> bool:
    """Does this human step need a retrieval, rather than restate a name, name a class or compute?

    - a combining step (comparison, boolean, aggregate, intersection, arithmetic, union,
      discard, unlabelled) over `#k` is computed; a boolean about a named thing ("if Pam Shriver
      was alive in the 1960s") is a yes/no lookup;
    - a select that relates something (a verb, a question or relative word, a possessive, or a
      preposition leading to a name, number or `#k`) is a lookup; a bare noun phrase is one only
      when it is a description to resolve ("2004 British horror film about a zombie uprising"):
      not when it restates a name ("Sigmund Freud", "English language opera Maria Golovin") or
      is the class a filter step then narrows (`filtered`: "fantasy and sci-fi authors" → "#1
      that X was written by" is one lookup, the filter's);
    - a project or filter is a lookup unless it only renames (`name of #1`).
    """
    refers = bool(_REF.search(step))
    if operator in COMBINING:
        return operator == "boolean" and not refers
    if operator == "select" and not refers:
        return _relates(step) or not (filtered or _names_something(step))
    words = re.findall(r"[a-z]+", _REF.sub(" ", step.lower()))
    return not set(words) <= _RENAMING


def human_lookups(steps: Sequence[str], operators: Sequence[str]) -> int:
    """The retrieval steps of a human decomposition (`needs_lookup`), at least one.

    A step is `filtered` when a filter step refers to it.
    """
    filtered = {
        int(k)
        for step, op in zip(steps, operators, strict=False)
        if op == "filter"
        for k in _REF.findall(step)
    }
    return max(
        1,
        sum(
            needs_lookup(step, op, i in filtered)
            for i, (step, op) in enumerate(zip(steps, operators, strict=False), start=1)
        ),
    )


def _opens_question(words: list[str]) -> bool:
    first = words[0].lower() if words else ""
    if first in _WH or first in _AUXILIARIES:
        return True
    # "In which port …", "For what film …", "On what day …"
    return first in _PREPOSITIONS and len(words) > 1 and words[1].lower() in _WH


def _bare_modifier(subject: str, question: str) -> bool:
    """A subject that names nothing: a determiner, adjective, bare number or modifying nationality.

    "Who is the daughter of Irish?", "What is the population of 2010?", "… that The …"; a
    nationality counts when the question uses it as a modifier ("the Danish band" → "What is
    the band of Danish?"), not when it names a breed ("Are Pomeranian …").
    """
    words = re.findall(r"[\w'-]+", subject)
    if not words:
        return False
    if len(words) == 1 and words[0].lower() in _DETERMINERS | {"who"}:
        return True
    tokens = list(load_pipeline()(f"It is about {' '.join(words)}."))[3:-1]
    if tokens and all(t.pos_ in ("ADJ", "NUM", "ADP", "PUNCT") for t in tokens):
        return any(t.pos_ != "ADP" for t in tokens)  # "1977", "5,457 in 2010"
    after = re.search(rf"\b{re.escape(subject.strip())} ([a-z]+)", question)
    followed = after is not None and after.group(1) not in _JOINING
    return bool(tokens) and followed and all(t.ent_type_ in ("NORP", "LANGUAGE") for t in tokens)


def hop_problems(hop: Hop, earlier: Iterable[int], question: str = "") -> list[str]:
    """Why a hop is not a well-formed one-hop question ([] when it is); see `RULES`.

    A computed hop is only checked for dangling placeholders (its question is the asked one).
    `earlier`: the ids of the hops before it; `question`: the question planned.
    """
    problems: list[str] = []
    before = set(earlier)
    refs = {int(r) for r in _REF.findall(hop.question)}
    if any(r not in before or r not in hop.depends_on for r in refs):
        problems.append("dangling #k")
    if hop.compute:
        return problems
    words = hop.question.replace("?", " ").split()
    if not _opens_question(words):
        inside = any(w.lower().strip(",.") in _WH for w in words)
        problems.append("question word inside, not at the start" if inside else "no question word")
    doc: Doc = load_pipeline()(hop.question)
    # a name in each placeholder's stead: "What two casinos border #1?" parses "border" as a noun
    named: Doc = load_pipeline()(_REF.sub(_STAND_IN, hop.question))
    if _verbless(named, hop.subject):
        problems.append("no verb")
    subject = set(re.findall(r"\w+", hop.subject.lower()))
    asked = [
        w
        for w in re.findall(r"[a-z]+", _REF.sub(" ", hop.question.lower()))
        if w not in _WH | _AUXILIARIES | _DETERMINERS | subject
    ]
    if not asked:
        problems.append("asks nothing")
    if (
        hop.subject
        and not _REF.fullmatch(hop.subject.strip())
        and _bare_modifier(hop.subject, question)
    ):
        problems.append("bare modifier as subject")
    if _subject_runs_on(hop, doc):
        problems.append("subject runs into the predicate")
    if question and _described_head(hop.subject, question):
        problems.append("subject is the head of a description")
    if _torn(named):
        problems.append("description torn around #k")
    if hop.question.count('"') % 2:
        problems.append("quoted title split")
    return problems


# What may follow a placeholder: "#1 was …", "#1 in 1990", "#1 's", "#1 , …", "#1 also …".
_AFTER_PLACEHOLDER = frozenset({"AUX", "VERB", "ADP", "PUNCT", "PART", "CCONJ", "ADV", "SCONJ"})


def _torn(named: Doc) -> bool:
    """A placeholder that the rest of a description still hangs on.

    "Who is #1 horror film?", "What is #1 who represents …", "Who wrote #1 "Here at the End
    …"?", or a placeholder used as a class ("Which #1 did …": a filtered selection read as a
    chain). `named`: the hop's parse with `_STAND_IN` for each placeholder.
    """
    for t in named[:-1]:
        if t.text != _STAND_IN:
            continue
        if t.i > 0 and named[t.i - 1].lower_ in ("which", "what", "the"):
            return True
        after = t.nbor()
        if (
            after.pos_ not in _AFTER_PLACEHOLDER
            or after.lower_ in ("who", "whom", "whose", "which", "that")
            or after.text in ('"', "“")
        ):
            return True
    return False


def _described_head(subject: str, question: str) -> bool:
    """A one-word subject the question describes with a clause, as if it were a name.

    "the Senator who represents …" planned as "What is the birthplace of Senator?".
    """
    name = subject.strip(" ,")
    if not name or _REF.search(name) or " " in name:
        return False
    pattern = (
        rf"\bthe {re.escape(name)} (?:who|whom|whose|which|that|where|(?:in|of|for|at) which)\b"
    )
    return re.search(pattern, question, re.I) is not None


def _verbless(doc: Doc, subject: str) -> bool:
    """No verb, or only do-support with nothing after it but the subject ("On what day did #1?").

    The parser's tag alone is not enough: it reads "does" in "How many termini does #1?" as the
    main verb, and "work" in "Did X work as stage actor?" as a noun.
    """
    verbs = [t for t in doc if t.pos_ in ("VERB", "AUX")]
    if not verbs:
        return True
    if any(t.lemma_ != "do" for t in verbs):
        return False
    named = set(re.findall(r"\w+", subject.lower())) | {_STAND_IN.lower()}
    after = [t.lower_ for t in doc[verbs[-1].i + 1 :] if t.is_alpha]
    return not [w for w in after if w not in named and w not in _DETERMINERS]


def _subject_runs_on(hop: Hop, doc: Doc) -> bool:
    """A subject that took the question's verb in ("El Grande come", "Pike Place Market opened")."""
    start = hop.question.find(hop.subject.strip(" ,")) if hop.subject else -1
    if start < 0 or _REF.search(hop.subject) or hop.subject.strip(" ,")[:1] in ('"', "“"):
        return False  # a quoted title may hold any word
    end = start + len(hop.subject.strip(" ,"))
    return any(start <= t.idx < end and t.text.islower() and t.pos_ in ("VERB", "AUX") for t in doc)


def _spaced(text: str) -> str:
    return " " + " ".join(re.findall(r"[a-z0-9#]+", text.lower().replace("'s", " "))) + " "


def unnamed_subject(hop: Hop, question: str) -> bool:
    """Is the hop about something the question does not write (its subject neither `#k` nor a span)?"""
    subject = _REF.sub(" ", hop.subject)
    if hop.compute or not subject.strip(" ,.'\""):
        return False
    return _spaced(subject) not in _spaced(question)


@dataclass
class Row:
    """One question: its human decomposition, its plan and the verdicts."""

    id: str
    question: str
    shape: Shape
    operators: list[str]
    human_steps: int
    human_lookups: int
    source: PlanSource | Literal["none"]
    hops: list[dict[str, Any]]
    lookups: int
    multi_hop: bool
    problems: list[str] = field(default_factory=list)
    unnamed: list[str] = field(default_factory=list)
    features: list[str] = field(default_factory=list)
    read_ms: float = 0.0
    plan_ms: float = 0.0

    @property
    def garbled(self) -> bool:
        """Some hop is not a well-formed one-hop question."""
        return bool(self.problems)

    @property
    def clean(self) -> bool:
        """Multi-hop, as many retrieval hops as the human lookups, every hop sound."""
        return (
            self.multi_hop
            and self.lookups == self.human_lookups
            and not self.problems
            and not self.unnamed
        )


def features(read: Question) -> list[str]:
    """What the question's parse holds that a planner must read (for grouping failures)."""
    tokens, text = read.tokens, read.stem
    low = [t.text.lower() for t in tokens]
    found = []
    words = [w for w in low if w.isalpha()]
    if words and not _opens_question(words):
        found.append("question word inside (declarative)")
    if any(t.tag == "POS" for t in tokens):
        found.append("possessive")
    of_nouns = sum(
        1
        for t in tokens
        if t.text.lower() == "of" and t.dep == "prep" and tokens[t.head].pos == "NOUN"
    )
    if of_nouns:
        found.append("of-chain (2+)" if of_nouns > 1 else "of-description")
    if any(t.dep == "relcl" for t in tokens):
        found.append("relative clause")
    if any(t.dep == "acl" and t.tag in ("VBN", "VBG") for t in tokens):
        found.append("participle modifier")
    if any(
        i > 0 and w in ("when", "while", "before", "after", "until", "since", "during")
        for i, w in enumerate(low)
    ):
        found.append("temporal clause/phrase")
    options = read.pair
    if not options and any(t.tag in ("JJS", "RBS") or t.ent.endswith("ORDINAL") for t in tokens):
        found.append("superlative/ordinal (no named options)")
    if any(t.dep == "appos" for t in tokens):
        found.append("apposition")
    if any(t.dep == "conj" and t.pos == "VERB" and tokens[t.head].pos == "VERB" for t in tokens):
        found.append("conjoined predicates")
    if options:
        found.append("named options (A or B)")
    if re.search(r"\b(?:both|same|either|in common)\b", text, re.I):
        found.append("both/same/either/common")
    return found
