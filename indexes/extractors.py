"""Which extractors a build runs, the key their units are recorded under, and cached units reused.

An `--extract` choice names the parser, the model, both or neither; a model's key names it with
the prompt and grounding versions, so a change to either re-extracts; a cached extraction is
keyed by content, and `rebased` makes its units another passage's.
"""

from __future__ import annotations

import json
from collections.abc import Callable

from langchain_core.language_models import BaseChatModel

from resin.indexes.catalog_rows import NO_EXTRACTION
from resin.indexes.documents import Passage
from resin.indexes.extraction import GROUNDING_VERSION, ExtractionResult
from resin.indexes.nlp_extraction import NlpExtractor
from resin.indexes.units import ReasoningUnit
from resin.prompts import EXTRACTION_PROMPT_VERSION

# A passage's cached extraction row (units json, proposed, ungrounded, invalid), or a fresh result.
Fetched = tuple[str, int, int, int] | ExtractionResult

EXTRACT_CHOICES = ("nlp", "model", "nlp+model", "none")


def extractors(
    extract: str, make_model: Callable[[], BaseChatModel]
) -> tuple[BaseChatModel | None, NlpExtractor | None]:
    """The model and the parser an `--extract` choice asks for (each made only when asked)."""
    if extract not in EXTRACT_CHOICES:
        raise ValueError(f"--extract is one of {', '.join(EXTRACT_CHOICES)}, not {extract!r}")
    parts = extract.split("+")
    return (make_model() if "model" in parts else None, NlpExtractor() if "nlp" in parts else None)


def extraction_key(model: BaseChatModel | None) -> str:
    """Which model (and prompt and grounding versions) produced units ('none' without one)."""
    if model is None:
        return NO_EXTRACTION
    from_model = getattr(model, "model_id", None)
    name = (
        from_model
        if isinstance(from_model, str)
        else getattr(model, "model_name", type(model).__name__)
    )
    return f"{name}|{EXTRACTION_PROMPT_VERSION}|{GROUNDING_VERSION}"


def rebased(units_json: str, passage: Passage) -> list[ReasoningUnit]:
    """The units of a cached extraction row, as units of `passage`.

    The cache is keyed by content, so the row may come from another document's passage with the
    same text: its units are rebased onto this passage (their ids derive from it, their sentences
    are this passage's), so no two documents ever share a unit.
    """
    return [
        ReasoningUnit.model_validate(
            {
                **u,
                "id": "",
                "passage_id": passage.id,
                "doc_id": passage.doc_id,
                "sentence_ids": [
                    f"{passage.id}:{s.rsplit(':', 1)[1]}" for s in u.get("sentence_ids", [])
                ],
            }
        )
        for u in json.loads(units_json)
    ]
