"""The incremental, idempotent, resumable build: documents in, catalog + Chroma + graph out.

Order of writes per batch: Chroma upserts and graph changes first, the graph saved atomically,
and only then the catalog marks the documents done. A kill at any point leaves those documents
unmarked; the next run redoes them, every write keyed by content-derived ids, with cached
extractions, so nothing is duplicated or lost. Extraction requests to a server may run ahead of
the writes (`concurrency`); their results are still written in passage order.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Generator, Iterable, Iterator, Sequence
from contextlib import closing
from itertools import islice

from langchain_core.language_models import BaseChatModel

from resin.indexes.base import DocumentRecord
from resin.indexes.build_report import BuildReport, Progress
from resin.indexes.catalog_rows import (
    NO_EXTRACTION,
    extraction_cache_key,
    extractor_keys,
    join_extractors,
)
from resin.indexes.documents import MAX_SENTENCE_CHARS, Document, Passage, long_runs, make_passages
from resin.indexes.extraction import ExtractionResult, extract_passage
from resin.indexes.extractors import Fetched, extraction_key, rebased
from resin.indexes.index import Index
from resin.indexes.inflight import ordered_map
from resin.indexes.mentions import MentionScanner
from resin.indexes.nlp_extraction import NlpExtractor
from resin.indexes.store_writes import (
    committed_batch,
    remove_content,
    store_passage_vectors,
    store_units,
)
from resin.indexes.units import ReasoningUnit, entity_key, merge_units

# Documents a build's plan looks up in the catalog at a time.
_PLAN_READS = 1000


class Builder:
    """Adds, replaces and deletes documents in an `Index`."""

    def __init__(
        self,
        index: Index,
        model: BaseChatModel | None,
        batch_passages: int = 64,
        nlp: NlpExtractor | None = None,
        concurrency: int = 1,
        wait: bool = True,
        on_wait: Callable[[str], None] | None = None,
        as_new: bool = False,
    ) -> None:
        """Build with the parser's units (`nlp`), the model's, both merged, or neither.

        A document's extraction key names every extractor and its version, so switching
        extractors re-extracts documents; each extractor's per-passage cache means only the
        extractor that was not run before does any work. `concurrency` model requests are kept
        in flight (for a server model); their results are still recorded in passage order.
        One builder writes an index at a time (`resin.indexes.locks`): a second one waits for the first
        (told through `on_wait`), or with `wait=False` raises `IndexBusyError` naming it.
        A document whose content is already indexed under another id (the same file read from
        another folder level) is not indexed again, unless `as_new`.
        """
        self.index = index
        self.model = model
        self.nlp = nlp
        parts = [nlp.key] if nlp is not None else []
        if model is not None:
            parts.append(extraction_key(model))
        self.key = join_extractors(parts)
        self.batch_passages = batch_passages
        self.concurrency = concurrency
        self.wait = wait
        self.on_wait = on_wait
        self.as_new = as_new
        self.mentions = MentionScanner(index.catalog)
        self._gauge = threading.Lock()

    # public ---------------------------------------------------------------------------------
    def plan(
        self, documents: Iterable[Document], copies: list[tuple[str, str]] | None = None
    ) -> tuple[list[tuple[Document, DocumentRecord | None]], int]:
        """Documents that need work (with their old records), and how many are already current.

        Unless `as_new`, a new id whose content is indexed (or planned) under another id is left
        out, and the pair is added to `copies`.
        """
        todo, current = [], 0
        planned: dict[str, str] = {}
        for doc, rec, owner in self._known(documents):
            if rec is None and not self.as_new:
                other = planned.get(doc.content) or owner
                if other is not None and other != doc.id:
                    if copies is not None:
                        copies.append((doc.id, other))
                    continue
            planned.setdefault(doc.content, doc.id)
            if (
                rec is not None
                and rec.hash == doc.hash
                and rec.complete
                and (self.key == NO_EXTRACTION or rec.extract_key == self.key)
            ):
                current += 1
            else:
                todo.append((doc, rec))
        return todo, current

    def _known(
        self, documents: Iterable[Document]
    ) -> Iterator[tuple[Document, DocumentRecord | None, str | None]]:
        """Each document with its record and the id its content is indexed under, if any.

        Read `_PLAN_READS` documents at a time: two queries per chunk, not two per document.
        """
        docs = iter(documents)
        while chunk := list(islice(docs, _PLAN_READS)):
            records = self.index.catalog.records([d.id for d in chunk])
            new = [d.content for d in chunk if d.id not in records]
            owners = self.index.catalog.owners(new) if new and not self.as_new else {}
            for doc in chunk:
                yield doc, records.get(doc.id), owners.get(doc.content)

    def run(self, documents: Sequence[Document], progress: Progress | None = None) -> BuildReport:
        """Index documents incrementally; unchanged ones cost nothing."""
        with self.index.build_lock(self.wait, self.on_wait):
            return self._run(documents, progress)

    def delete(self, doc_id: str) -> bool:
        """Remove a document: passages, units, emptied edges, orphan nodes. False if unknown."""
        with self.index.build_lock(self.wait, self.on_wait):
            if self.index.catalog.document(doc_id) is None:
                return False
            with committed_batch(self.index):
                remove_content(self.index, [doc_id], passages=True, scanned=self.mentions.scanned)
                self.index.catalog.delete_document(doc_id)
            return True

    # internals ------------------------------------------------------------------------------
    def _run(self, documents: Sequence[Document], progress: Progress | None) -> BuildReport:
        started = time.perf_counter()
        report = BuildReport(documents_seen=len(documents))
        todo, report.documents_skipped = self.plan(documents, report.already_indexed)
        if self.key != NO_EXTRACTION and todo:
            self.index.record_model(self.key)
        report.warnings += [
            f"{doc.source or doc.id}: a run of {length:,} characters with no space is kept as "
            f"its first {MAX_SENTENCE_CHARS:,}, in one passage"
            for doc, _rec in todo
            for length in long_runs(doc.text)
        ]
        work = [
            (doc, rec, make_passages(doc, self.index.config.passage_chars)) for doc, rec in todo
        ]
        total = sum(len(ps) for _, _, ps in work)
        tick = (lambda r: progress(r.passages, total, r)) if progress else None
        if tick:
            tick(report)  # start the clock before the first batch is parsed or embedded
        passages = (p for _, _, ps in work for p in ps) if self.model is not None else ()
        fetched = ordered_map(lambda p: self._fetch(p, report), passages, self.concurrency)
        batch: list[tuple[Document, DocumentRecord | None, list[Passage]]] = []
        size = 0
        with closing(fetched):
            for item in work:
                batch.append(item)
                size += len(item[2])
                if size >= self.batch_passages:
                    self._run_batch(batch, report, tick, fetched)
                    batch, size = [], 0
            if batch:
                self._run_batch(batch, report, tick, fetched)
        with committed_batch(self.index):
            self.mentions.scan_new_names()
        report.seconds = time.perf_counter() - started
        return report

    def _run_batch(
        self,
        batch: list[tuple[Document, DocumentRecord | None, list[Passage]]],
        report: BuildReport,
        tick: Callable[[BuildReport], None] | None,
        fetched: Generator[Fetched],
    ) -> None:
        """One batch of documents, its catalog and graph writes committed together."""
        with committed_batch(self.index):
            self._write_batch(batch, report, tick, fetched)

    def _write_batch(
        self,
        batch: list[tuple[Document, DocumentRecord | None, list[Passage]]],
        report: BuildReport,
        tick: Callable[[BuildReport], None] | None,
        fetched: Generator[Fetched],
    ) -> None:
        idx = self.index
        changed = {doc.id for doc, rec, _ in batch if rec is not None and rec.hash != doc.hash}
        remove_content(idx, sorted(changed), passages=True, scanned=self.mentions.scanned)
        for doc_id in changed:
            idx.catalog.delete_document(doc_id)
        remove_content(
            idx,
            [
                doc.id
                for doc, rec, _ in batch
                if rec is not None
                and rec.hash == doc.hash
                and self.key != NO_EXTRACTION
                and rec.extract_key != self.key
            ],
            passages=False,
            scanned=self.mentions.scanned,
        )
        fresh = [
            p for doc, rec, passages in batch if rec is None or doc.id in changed for p in passages
        ]
        store_passage_vectors(idx, fresh)

        parsed = self._parse([p for _d, _r, ps in batch for p in ps], report)
        units_by_doc: dict[str, list[ReasoningUnit]] = {}
        complete: dict[str, bool] = {}
        for doc, _rec, passages in batch:
            complete[doc.id] = True
            units_by_doc[doc.id] = []
            for passage in passages:
                units = parsed.get(passage.id, [])
                if self.model is not None:
                    proposed, ok = self._extract(passage, report, next(fetched))
                    units = merge_units(units, proposed)
                    if not ok:
                        complete[doc.id] = False
                        report.failed_passages.append(passage.id)
                report.units += len(units)
                units_by_doc[doc.id].extend(units)
                report.passages += 1
                if tick:
                    tick(report)
        all_units = [u for us in units_by_doc.values() for u in us]
        store_units(idx, all_units, self.mentions.scanned)
        idx.catalog.put_documents(
            [
                (
                    DocumentRecord(
                        doc.id, doc.hash, doc.title, doc.source, self.key, False, doc.content
                    ),
                    passages,
                )
                for doc, _rec, passages in batch
            ]
        )
        # New passages × known names now; new names × all passages once, at the end of the run.
        self.mentions.scan(fresh, self.mentions.scanned)
        idx.graph.save()
        for doc, _rec, _ps in batch:
            idx.catalog.put_units(
                doc.id,
                [(u.id, u.passage_id, u.kind, entity_key(u.subject)) for u in units_by_doc[doc.id]],
            )
        idx.catalog.mark_complete((d.id, complete[d.id]) for d, _, _ in batch)
        report.documents_indexed += len(batch)

    def _cached(
        self, key: str, passage: Passage, report: BuildReport
    ) -> list[ReasoningUnit] | None:
        """A passage's cached units under an extractor's cache key (None: not cached)."""
        cached = self.index.catalog.cached_extraction(key)
        return None if cached is None else self._units_of(cached, passage, report)

    @staticmethod
    def _units_of(
        cached: tuple[str, int, int, int], passage: Passage, report: BuildReport
    ) -> list[ReasoningUnit]:
        """The units of a cached extraction row, its counts added to the report."""
        units_json, proposed, ungrounded, invalid = cached
        report.proposed += proposed
        report.ungrounded += ungrounded
        report.invalid += invalid
        return rebased(units_json, passage)

    def expected_units(
        self, record: DocumentRecord, passage: Passage
    ) -> list[ReasoningUnit] | None:
        """The units a document's extractors give one of its passages, from the extraction cache.

        What an index repair holds the stored units to. A passage the cache lacks is parsed
        again when the parser is this builder's; else (a model's result lost, or a passage the
        model failed on) there is no telling, and None says so.
        """
        groups = []
        for extractor in extractor_keys(record.extract_key):
            cached = self.index.catalog.cached_extraction(
                extraction_cache_key(extractor, passage.hash)
            )
            if cached is not None:
                groups.append(rebased(cached[0], passage))
            elif self.nlp is not None and extractor == self.nlp.key:
                groups.append(self.nlp.extract([passage])[0].units)
            else:
                return None
        return merge_units(*groups)

    def _cache(
        self,
        key: str,
        passage: Passage,
        units: list[ReasoningUnit],
        counts: tuple[int, int, int],
        tokens: tuple[int, int] = (0, 0),
    ) -> None:
        self.index.catalog.cache_extraction(
            key,
            passage.id,
            json.dumps([u.model_dump(exclude={"id", "passage_id", "doc_id"}) for u in units]),
            counts,
            tokens,
        )

    def _parse(
        self, passages: list[Passage], report: BuildReport
    ) -> dict[str, list[ReasoningUnit]]:
        """Parser units of a batch's passages: cached ones, the rest parsed in one `nlp.pipe`.

        A passage the parser cannot read is counted by reason and not cached (checking is cheap).
        """
        if self.nlp is None:
            return {}
        units: dict[str, list[ReasoningUnit]] = {}
        todo = []
        for passage in passages:
            cached = self._cached(extraction_cache_key(self.nlp.key, passage.hash), passage, report)
            if cached is None:
                todo.append(passage)
            else:
                report.parse_cache_hits += 1
                units[passage.id] = cached
        for passage, result in zip(todo, self.nlp.extract(todo), strict=True):
            report.parsed += 1
            units[passage.id] = result.units
            if result.skipped:
                report.skipped[result.skipped] += 1
                continue
            report.proposed += len(result.units)
            key = extraction_cache_key(self.nlp.key, passage.hash)
            self._cache(key, passage, result.units, (len(result.units), 0, 0))
        return units

    def _model_cache_key(self, passage: Passage) -> str:
        assert self.model is not None
        return extraction_cache_key(extraction_key(self.model), passage.hash)

    def _fetch(self, passage: Passage, report: BuildReport) -> Fetched:
        """A passage's cached model extraction, else one model call's result (on a worker thread)."""
        assert self.model is not None
        cached = self.index.catalog.cached_extraction(self._model_cache_key(passage))
        if cached is not None:
            return cached
        with self._gauge:
            report.in_flight += 1
            report.peak_in_flight = max(report.peak_in_flight, report.in_flight)
        try:
            return extract_passage(self.model, passage)
        finally:
            with self._gauge:
                report.in_flight -= 1

    def _extract(
        self, passage: Passage, report: BuildReport, fetched: Fetched
    ) -> tuple[list[ReasoningUnit], bool]:
        """Model units of one passage from what `_fetch` got; a fresh result is cached if it parses."""
        key = self._model_cache_key(passage)
        if not isinstance(fetched, ExtractionResult):
            report.cache_hits += 1
            return self._units_of(fetched, passage, report), True
        result = fetched
        report.model_calls += 1
        report.prompt_tokens += result.prompt_tokens
        report.completion_tokens += result.completion_tokens
        if not result.ok:
            report.errors.append(f"{passage.doc_id} passage {passage.position}: {result.error}")
            return [], False
        report.proposed += result.proposed
        report.ungrounded += result.ungrounded
        report.invalid += result.invalid
        self._cache(
            key,
            passage,
            result.units,
            (result.proposed, result.ungrounded, result.invalid),
            (result.prompt_tokens, result.completion_tokens),
        )
        return result.units, True
