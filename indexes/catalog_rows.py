"""What the SQLite and PostgreSQL catalogs share: extraction keys, row decoding, derived figures.

Both keep the same tables; a passage row is (pid, doc_id, position, title, text, sentences as
JSON, title key), a document row (doc_id, hash, title, source, extract_key, complete, content).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

from resin.indexes.base import DocumentRecord
from resin.indexes.documents import Passage, Sentence, content_hash
from resin.indexes.units import entity_key

# A document's extraction key: its extractors' keys joined, or this when it has none.
NO_EXTRACTION = "none"
_JOIN = " + "


def join_extractors(keys: Sequence[str]) -> str:
    """The extraction key of a document built by these extractors (their keys and versions)."""
    return _JOIN.join(keys) or NO_EXTRACTION


def extractor_keys(extract_key: str) -> list[str]:
    """The keys of the extractors a document's extraction key names ([] for none)."""
    return [] if extract_key == NO_EXTRACTION else extract_key.split(_JOIN)


def extraction_cache_key(extractor: str, passage_hash: str) -> str:
    """Where the extraction cache keeps one extractor's result for a passage's content."""
    return content_hash(extractor, passage_hash, length=24)


def record_of_row(row: Sequence[Any]) -> DocumentRecord:
    """A document record from its row (doc_id, hash, title, source, extract_key, complete, content)."""
    doc_id, hash_, title, source, extract_key, complete, content = row
    return DocumentRecord(doc_id, hash_, title, source, extract_key, bool(complete), content or "")


def passage_of_row(row: Sequence[Any]) -> Passage:
    """A passage from its row (pid, doc_id, position, title, text, sentences as JSON, title key)."""
    pid, doc_id, position, title, text, sentences, _ = row
    return Passage(
        id=pid,
        doc_id=doc_id,
        title=title,
        position=position,
        text=text,
        sentences=tuple(Sentence(i, t) for i, t in json.loads(sentences)),
    )


def row_of_passage(p: Passage) -> tuple[str, str, int, str, str, str, str]:
    """A passage's row, as `passage_of_row` reads it back."""
    sentences = json.dumps([[s.id, s.text] for s in p.sentences])
    return (p.id, p.doc_id, p.position, p.title, p.text, sentences, entity_key(p.title))


# Every passage row with its document's extract key: what `current_cache_keys` reads.
INDEXED_ROWS = "SELECT p.*, d.extract_key FROM passages p JOIN documents d ON d.doc_id = p.doc_id"


class CatalogFigures:
    """The token and cache-key figures every SQL catalog derives alike from its rows."""

    def _extraction_sums(self, keys: Sequence[str], columns: str) -> list[int]:
        raise NotImplementedError

    def _indexed_rows(self) -> Iterable[Sequence[Any]]:
        raise NotImplementedError

    def extraction_tokens(self, keys: Sequence[str]) -> tuple[int, int]:
        """Prompt and completion tokens the cached extractions under `keys` cost, each key once."""
        prompt, completion = self._extraction_sums(
            list(dict.fromkeys(keys)), "prompt_tokens, completion_tokens"
        )
        return prompt, completion

    def current_cache_keys(self) -> list[str]:
        """The cache key of every extractor of every passage indexed now, once per passage.

        A cache row outlives the passages it was made for (a delete or an edit keeps it for
        reuse) and serves every passage with the same content, so figures about what the index
        holds count rows through these keys, not the rows themselves.
        """
        return [
            extraction_cache_key(extractor, passage_of_row(row[:-1]).hash)
            for row in self._indexed_rows()
            for extractor in extractor_keys(row[-1])
        ]
