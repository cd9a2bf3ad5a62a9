"""The build's writes to the three stores: units in, documents' units and passages out.

Chroma and the graph change first and the graph is saved before the catalog's rows change, so a
kill in between leaves a record of what to redo. `scanned` is the build's set of names every
passage was scanned for (`MentionScanner.scanned`).
"""

from __future__ import annotations

from collections.abc import Sequence

from indexes.documents import content_hash
from indexes.index import Index
from indexes.units import ReasoningUnit, entity_key


def remove_content(index: Index, doc_ids: Sequence[str], passages: bool, scanned: set[str]) -> None:
    """Drop documents' units (and passages) from Chroma and the graph, then their unit rows.

    One call per batch, not per document: the graph pass and its save scale with the whole
    index, so re-extracting a large index document by document was quadratic. The catalog's
    unit rows are the record of what to remove, so they go last, after the graph that held
    their provenance is saved: a kill in between repeats the removal.
    """
    if not doc_ids:
        return
    uids = [u for d in doc_ids for u in index.catalog.unit_ids(d)]
    index.vectors.delete("units", uids)
    if passages:
        index.vectors.delete(
            "passages", [p for d in doc_ids for p in index.catalog.doc_passage_ids(d)]
        )
    removed = index.graph.remove_units(uids)
    index.vectors.delete("entities", ["e" + content_hash(k) for k in removed])
    orphaned = [k for k in removed if not index.catalog.titled(k)]
    if orphaned:
        index.catalog.forget_names(orphaned)
        scanned.difference_update(orphaned)
    index.graph.save()
    for doc_id in doc_ids:
        index.catalog.delete_units(doc_id)


def store_units(index: Index, units: list[ReasoningUnit], scanned: set[str]) -> None:
    """Units into Chroma, their names clustered into the graph (new names into `entities`)."""
    if not units:
        return
    index.vectors.upsert(
        "units",
        [u.id for u in units],
        index.embed([u.text for u in units]),
        [u.text for u in units],
        [
            {
                "kind": u.kind,
                "extractor": u.extractor,
                "subject": entity_key(u.subject),
                "subject_type": u.subject_type,
                "passage_id": u.passage_id,
                "doc_id": u.doc_id,
                "confidence": u.confidence,
                "unit": u.model_dump_json(),
            }
            for u in units
        ],
    )
    names = [n for u in units for n in (u.edge[::2] if u.edge else (u.subject,))]
    index.catalog.add_unscanned(
        k
        for u in units
        if u.extractor != "nlp"
        for n in (u.edge[::2] if u.edge else (u.subject,))
        if (k := entity_key(n)) not in scanned
    )
    first_name: dict[str, str] = {}
    for name in names:
        first_name.setdefault(entity_key(name), name)
    unknown = index.graph.unknown_keys(names)
    vectors = index.embed([first_name[k] for k in unknown])
    by_key = {k: vectors[i] for i, k in enumerate(unknown)}
    index.graph.add_units(units, by_key)
    if unknown:
        index.vectors.upsert(
            "entities",
            ["e" + content_hash(k) for k in unknown],
            vectors,
            [first_name[k] for k in unknown],
            [{"key": k, "node": index.graph.node_of(k) or ""} for k in unknown],
        )
