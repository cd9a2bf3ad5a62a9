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

from resin.agent.language.choices import listed_options, question_options
from resin.agent.language.forms import (
    AUX_LEMMAS,
    AUXILIARIES,
    MAX_QUESTION_CHARS,
    OPENERS,
    WH_WORDS,
    about_subject,
    answer_head,
    causal_parts,
    defined_subject,
    expected_labels,
    wh_phrase,
    why_clause,
)
from resin.indexes.lexical import stems
from resin.indexes.nlp_extraction import load_pipeline
from resin.indexes.units import normalize


def is_yes_no(question: str) -> bool:
    """A question that opens with an auxiliary verb and offers no alternatives."""
    words = normalize(question).split()
    return bool(words) and words[0] in AUXILIARIES and not question_options(question)


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
                and (child.dep_ == "prep" and not any(t.lower_ in WH_WORDS for t in child.subtree))
            ):
                inner.update(t.i for t in child.subtree)
    words = [t for t in doc if t.is_alpha]
    if words and words[0].lower_ in WH_WORDS | {"in", "at", "on", "from", "for", "by", "to"}:
        inner.discard(words[-1].i)  # "… did the biologist who … *work*?": the main verb
    described = stems(" ".join(t.text for t in doc if t.i in inner))
    main = stems(" ".join(t.text for t in doc if t.i not in inner)) - described
    return frozenset(main), frozenset(described)


def question_verb(doc: Doc) -> str:
    """The question's main verb other than be/do/have ("… *switch* to …"), cut to five letters.

    The answer is usually written beside it.
    """
    roots = [t for t in doc if t.dep_ == "ROOT" and t.pos_ == "VERB"]
    return roots[0].lemma_.lower()[:5] if roots and roots[0].lemma_ not in AUX_LEMMAS else ""


# Clauses that describe something inside the question rather than ask it.
_CLAUSES = frozenset({"relcl", "acl", "advcl", "ccomp", "pcomp", "xcomp"})


def asks_main_argument(doc: Doc) -> bool:
    """Does the question word hang off the main verb, not off a clause describing something?

    "Where was Hessa Varn born?", "In which port was … born?": the main verb's argument is asked.
    "… voiced by the actress who achieved success on what show?": the clause's is, so a fact
    with the main verb ("voiced by Ashley Tisdale") answers a hop on the way, not the question.
    """
    node = next((t for t in doc if t.lower_ in WH_WORDS), None)
    if node is None:
        return False
    while node.head.i != node.i:
        # the small parser tags "In what *year* …" a prepositional complement: a noun is no clause
        if node.dep_ in _CLAUSES and node.pos_ not in ("NOUN", "PROPN"):
            return False
        node = node.head
    return True


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
            while words and words[0].lower() in OPENERS | _TRIMMED:
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
    the lettered options, `text` the question as asked. `unresolved` holds the pronouns `rewrite`
    found no name for in a question that names nothing else: it cannot be searched.
    """

    model_config = ConfigDict(frozen=True)

    text: str
    skipped: list[str] = Field(default_factory=list)
    options: list[str] = Field(default_factory=list, description="lettered options, in order")
    stem: str = ""
    tokens: list[ParsedToken] = Field(default_factory=list)
    unresolved: list[str] = Field(default_factory=list, description="pronouns with no referent")

    @classmethod
    def read(
        cls, text: str, skipped: Sequence[str] = (), unresolved: Sequence[str] = ()
    ) -> Question:
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
        return cls(
            text=text,
            skipped=list(skipped),
            options=options,
            stem=stem,
            tokens=tokens,
            unresolved=list(unresolved),
        )

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
    def why(self) -> str:
        """The effect a "Why …?" question asks the cause of ('' for any other question)."""
        return why_clause(self.stem)

    @cached_property
    def about(self) -> str:
        """What "Tell me about X" asks to be told about ('' for any other question)."""
        return about_subject(self.stem)

    @cached_property
    def causal(self) -> tuple[str, str] | None:
        """(thing affected, condition) of "What happens to X when Y?", else None."""
        return causal_parts(self.stem)
