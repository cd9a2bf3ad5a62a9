"""Does an index agree with itself? The catalog, the Chroma collections and the graph, checked and repaired.

The catalog is the record of what is indexed: its documents, their passages (with their text)
and the ids of their units. Chroma holds a vector for every passage and unit (a unit's whole
record is its metadata) and one for every graph name; the graph holds each unit where
`EntityGraph.add_units` puts it. `check_index` lists every way these disagree; `repair_index`
makes them agree again from what each store can be rebuilt from:

- a document whose passages are gone from the catalog is read again from its source file (kept
  only if the file still holds the same text);
- passages whose document is gone are dropped, with their units and mentions (`resin index
  PATHS --repair` then indexes such files again);
- a passage's vector is embedded again from its catalog text; vectors of no catalog record go;
- a document's units are held to what its extractors give each passage from the extraction
  cache (rebased onto that passage, as a build does): a missing vector or catalog row is put
  back, a unit no extraction gives is dropped;
- the graph drops what no catalog unit puts where it is and adds the units it lacks (a graph
  file that is gone or cannot be read is rebuilt from the catalog's units), and the names'
  vectors follow the graph.

Callers see disagreements in words; no collection name or SQL leaves the index's interfaces.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field, replace
from pathlib import Path

from resin.indexes.base import DocumentRecord
from resin.indexes.build import Builder
from resin.indexes.documents import DocumentError, Passage, make_passages
from resin.indexes.index import Index
from resin.indexes.reading import read_file
from resin.indexes.store_writes import (
    add_to_graph,
    entity_id,
    forget_removed_names,
    store_entity_vectors,
    store_passage_vectors,
    store_unit_vectors,
)
from resin.indexes.units import entity_key

# What can disagree, in the order a report lists it, and how it reads.
DISAGREEMENTS = {
    "graph_unreadable": "graph files that cannot be read",
    "documents_without_passages": "documents whose passages are missing from the catalog",
    "passages_without_document": "catalog passages whose document is not in the catalog",
    "passages_without_vector": "catalog passages with no vector in Chroma",
    "passage_vectors_without_passage": "passage vectors in Chroma with no catalog passage",
    "units_without_passage": "catalog units whose passage is not in the catalog",
    "units_without_vector": "catalog units with no vector in Chroma",
    "unit_vectors_without_unit": "unit vectors in Chroma with no catalog unit",
    "graph_edges_without_unit": "graph edges that no catalog unit supports",
    "graph_nodes_without_unit": "graph nodes holding units the catalog does not have there",
    "units_missing_from_graph": "catalog units the graph does not hold",
    "names_without_vector": "graph names with no entity vector in Chroma",
    "name_vectors_without_name": "entity vectors in Chroma with no graph name",
    "stray_mentions": "passages named in mentions but not in the catalog",
}
_EXAMPLES = 3
_JSONL_LINE = re.compile(r"^(.*\.jsonl):\d+$", re.I)


@dataclass
class IntegrityReport:
    """What an index holds, and every way its stores disagree (kind → the ids or names at fault)."""

    path: Path
    documents: int
    passages: int
    units: int
    graph_nodes: int
    graph_edges: int
    disagreements: dict[str, list[str]] = field(default_factory=dict)

    @property
    def consistent(self) -> bool:
        """Whether the catalog, Chroma and the graph agree."""
        return not self.disagreements

    def lines(self) -> list[str]:
        """One line for the index, then one for each kind of disagreement, with examples."""
        held = (
            f"{self.documents} documents, {self.passages} passages, {self.units} units, "
            f"graph {self.graph_nodes} nodes / {self.graph_edges} edges"
        )
        if self.consistent:
            return [f"index {self.path} is consistent: catalog, Chroma and graph agree ({held})"]
        lines = [f"index {self.path}: {held}"]
        for kind, items in self.disagreements.items():
            shown = ", ".join(items[:_EXAMPLES]) + (", …" if len(items) > _EXAMPLES else "")
            lines.append(f"disagrees: {len(items)} {DISAGREEMENTS[kind]} ({shown})")
        return lines


@dataclass
class _Snapshot:
    """The ids each store holds, read once."""

    records: dict[str, DocumentRecord]
    passage_doc: dict[str, str]
    positions: dict[str, list[int]]
    unit_rows: dict[str, tuple[str, str]]  # unit id → (passage id, document id)
    passage_vectors: set[str]
    unit_vectors: set[str]
    name_vectors: set[str]

    @classmethod
    def of(cls, index: Index) -> _Snapshot:
        positions: dict[str, list[int]] = defaultdict(list)
        passage_doc: dict[str, str] = {}
        for pid, doc_id, position in index.catalog.passage_rows():
            passage_doc[pid] = doc_id
            positions[doc_id].append(position)
        return cls(
            records={r.doc_id: r for r in index.catalog.documents()},
            passage_doc=passage_doc,
            positions=positions,
            unit_rows={uid: (pid, doc) for uid, pid, doc in index.catalog.unit_rows()},
            passage_vectors=set(index.vectors.ids("passages")),
            unit_vectors=set(index.vectors.ids("units")),
            name_vectors=set(index.vectors.ids("entities")),
        )

    def damaged_documents(self) -> list[str]:
        """Documents that lost passages from the catalog.

        Those with none, with a gap in their positions, or with a unit of a passage not there.
        """
        damaged = {d for p, d in self.unit_rows.values() if p not in self.passage_doc}
        for doc_id in self.records:
            held = sorted(self.positions.get(doc_id, ()))
            if not held or held != list(range(len(held))):
                damaged.add(doc_id)
        return sorted(damaged & self.records.keys())


def check_index(index: Index) -> IntegrityReport:
    """Every way the catalog, Chroma and the graph of `index` disagree (nothing is changed)."""
    seen = _Snapshot.of(index)
    units = {u.id: u for u in index.units(sorted(seen.unit_rows.keys() & seen.unit_vectors))}
    # a catalog unit with no vector cannot be read: where the graph holds it is not judged
    edges, nodes = index.graph.unsupported(units, seen.unit_rows.keys() - units.keys())
    names = {entity_id(k): k for k in index.graph.all_names()}
    found = {
        "graph_unreadable": [index.graph.unreadable] if index.graph.unreadable else [],
        "documents_without_passages": seen.damaged_documents(),
        "passages_without_document": [
            p for p, d in seen.passage_doc.items() if d not in seen.records
        ],
        "passages_without_vector": [p for p in seen.passage_doc if p not in seen.passage_vectors],
        "passage_vectors_without_passage": list(seen.passage_vectors - seen.passage_doc.keys()),
        "units_without_passage": [
            u for u, (p, _) in seen.unit_rows.items() if p not in seen.passage_doc
        ],
        "units_without_vector": [u for u in seen.unit_rows if u not in seen.unit_vectors],
        "unit_vectors_without_unit": list(seen.unit_vectors - seen.unit_rows.keys()),
        "graph_edges_without_unit": [
            f"{index.graph.names(h)[0]} → {index.graph.names(t)[0]}" for h, t in edges
        ],
        "graph_nodes_without_unit": [index.graph.names(n)[0] for n in nodes],
        "units_missing_from_graph": [u.id for u in index.graph.missing(units)],
        "names_without_vector": [k for e, k in names.items() if e not in seen.name_vectors],
        "name_vectors_without_name": list(seen.name_vectors - names.keys()),
        "stray_mentions": index.catalog.stray_mentions(),
    }
    return IntegrityReport(
        path=index.config.path,
        documents=len(seen.records),
        passages=len(seen.passage_doc),
        units=len(seen.unit_rows),
        graph_nodes=index.graph.node_count(),
        graph_edges=index.graph.edge_count(),
        disagreements={k: sorted(v) for k, v in found.items() if v},
    )


@dataclass
class RepairReport:
    """What a repair changed (a count per kind of change), and what it could not mend."""

    changes: dict[str, int] = field(default_factory=dict)
    unmended: list[str] = field(default_factory=list)

    def count(self, change: str, n: int) -> None:
        """Add `n` changes of one kind (none are noted)."""
        if n:
            self.changes[change] = self.changes.get(change, 0) + n

    def summary(self) -> str:
        """The changes, in one line."""
        return "; ".join(f"{n} {what}" for what, n in self.changes.items()) or "nothing to change"


def repair_index(builder: Builder) -> RepairReport:
    """Make the index's stores agree (see the module's docstring), under the builder's lock.

    `builder` supplies the index, the lock and the extraction cache reads (its parser parses a
    passage the cache lacks). Writes are ordered as a build orders them, so a repair cut short
    is finished by running it again.
    """
    index = builder.index
    report = RepairReport()
    with index.build_lock(builder.wait, builder.on_wait):
        was_complete = _restore_passages(builder, _Snapshot.of(index), report)
        _drop_unowned(index, _Snapshot.of(index), report)
        seen = _Snapshot.of(index)
        _mend_passage_vectors(index, seen, report)
        _mend_units(builder, seen, was_complete, report)
        _mend_graph(builder, report)
        report.count(
            "passages not in the catalog dropped from the mentions",
            len(index.catalog.stray_mentions()),
        )
        index.catalog.drop_stray_mentions()
        builder.mentions.scan_new_names()
    return report


def _restore_passages(builder: Builder, seen: _Snapshot, report: RepairReport) -> dict[str, bool]:
    """Documents whose passages are missing, read again from their sources.

    Returns whether each document read again was complete before (it is marked incomplete
    until its units are mended).
    """
    index = builder.index
    restored = {}
    for doc_id in seen.damaged_documents():
        record = seen.records[doc_id]
        passages = _passages_from_source(record, index.config.passage_chars)
        known = {p for p, d in seen.passage_doc.items() if d == doc_id}
        known |= {p for p, d in seen.unit_rows.values() if d == doc_id}
        if passages is None or not known <= {p.id for p in passages}:
            why = (
                f"its source {record.source} is gone or changed: index the file again (or "
                "--delete it)"
                if passages is None
                else "its source splits into other passages than the index holds: repair "
                "with the --passage-chars (RESIN_PASSAGE_CHARS) it was built with"
            )
            report.unmended.append(f"document {doc_id} lost passages from the catalog and {why}")
            index.catalog.mark_complete([(doc_id, False)])
            continue
        index.catalog.put_documents([(replace(record, complete=False), passages)])
        builder.mentions.scan(passages, builder.mentions.scanned)
        restored[doc_id] = record.complete
    report.count("documents read again from their sources", len(restored))
    return restored


def _passages_from_source(record: DocumentRecord, passage_chars: int) -> list[Passage] | None:
    """The document's passages as its source file gives them now; None if it no longer does."""
    jsonl = _JSONL_LINE.match(record.source)
    path = Path(jsonl.group(1) if jsonl else record.source)
    try:
        read = read_file(path, line_errors=[])
    except (DocumentError, OSError):
        return None
    for doc in read:
        same = replace(doc, id=record.doc_id)  # a file read alone gets its name as id
        if same.hash == record.hash:
            return make_passages(same, passage_chars)
    return None


def _drop_unowned(index: Index, seen: _Snapshot, report: RepairReport) -> None:
    """Passages whose document is gone, and units whose passage is gone: rows and vectors."""
    passages = [p for p, d in seen.passage_doc.items() if d not in seen.records]
    units = [
        u for u, (p, _) in seen.unit_rows.items() if p not in seen.passage_doc or p in passages
    ]
    index.vectors.delete("units", units)
    index.vectors.delete("passages", passages)
    index.catalog.delete_unit_rows(units)
    index.catalog.delete_passages(passages)
    report.count("passages of no document dropped", len(passages))
    report.count("units of no passage dropped", len(units))


def _mend_passage_vectors(index: Index, seen: _Snapshot, report: RepairReport) -> None:
    """Vectors of no catalog passage dropped; catalog passages without one embedded again."""
    stray = sorted(seen.passage_vectors - seen.passage_doc.keys())
    index.vectors.delete("passages", stray)
    missing = index.catalog.passages(p for p in seen.passage_doc if p not in seen.passage_vectors)
    store_passage_vectors(index, missing)
    report.count("passage vectors of no passage dropped", len(stray))
    report.count("passages embedded again", len(missing))


def _mend_units(
    builder: Builder, seen: _Snapshot, was_complete: dict[str, bool], report: RepairReport
) -> None:
    """Every document's units held to what its extraction gives its passages.

    Vectors of no catalog unit go first: a unit whose catalog row was lost is put back whole
    from the extraction (its vector embedded again) with the rest of its document.
    """
    index = builder.index
    stray = sorted(seen.unit_vectors - seen.unit_rows.keys())
    index.vectors.delete("units", stray)
    report.count("unit vectors of no catalog unit dropped", len(stray))
    rows: dict[str, set[str]] = defaultdict(set)
    for uid, (pid, _) in seen.unit_rows.items():
        rows[pid].add(uid)
    vectors = seen.unit_vectors - set(stray)
    for record in index.catalog.documents():
        told = True
        for passage in index.catalog.passages(index.catalog.doc_passage_ids(record.doc_id)):
            held = rows.get(passage.id, set())
            expected = builder.expected_units(record, passage)
            if expected is None:  # no telling: keep what is whole, drop rows with no vector
                lost = sorted(held - vectors)
                index.catalog.delete_unit_rows(lost)
                report.count("units that cannot be restored dropped", len(lost))
                told = False
                continue
            wanted = {u.id: u for u in expected}
            store_unit_vectors(index, [u for uid, u in wanted.items() if uid not in vectors])
            index.catalog.put_units(
                record.doc_id,
                [
                    (u.id, u.passage_id, u.kind, entity_key(u.subject))
                    for uid, u in wanted.items()
                    if uid not in held
                ],
            )
            extra = sorted(held - wanted.keys())
            index.vectors.delete("units", extra)
            index.catalog.delete_unit_rows(extra)
            report.count("unit vectors restored", len(wanted.keys() - vectors))
            report.count("unit catalog rows restored", len(wanted.keys() - held))
            report.count("units no extraction gives dropped", len(extra))
        complete = told and was_complete.get(record.doc_id, record.complete)
        if complete != record.complete:
            index.catalog.mark_complete([(record.doc_id, complete)])


def _mend_graph(builder: Builder, report: RepairReport) -> None:
    """The graph held to the catalog's units, and the names' vectors to the graph."""
    index = builder.index
    order = [uid for uid, _, _ in index.catalog.unit_rows()]
    units = {u.id: u for u in index.units(order)}
    edges, nodes = index.graph.unsupported(units)
    removed = index.graph.prune(units) if edges or nodes else []
    forget_removed_names(index, removed, builder.mentions.scanned)
    # in the order the build recorded them, so that a graph rebuilt whole clusters as it did
    rank = {uid: i for i, uid in enumerate(order)}
    missing = sorted(index.graph.missing(units), key=lambda u: rank[u.id])
    add_to_graph(index, missing, builder.mentions.scanned)
    report.count("graph files rebuilt from the catalog's units", bool(index.graph.unreadable))
    index.graph.save()
    report.count("graph edges no unit supports mended", len(edges))
    report.count("graph nodes holding units not there mended", len(nodes))
    report.count("units added to the graph", len(missing))
    names = {entity_id(k): k for k in index.graph.all_names()}
    held = set(index.vectors.ids("entities"))
    stray = sorted(held - names.keys())
    index.vectors.delete("entities", stray)
    lacking = [k for e, k in names.items() if e not in held]
    store_entity_vectors(index, lacking, [_name_of(index, k) for k in lacking])
    report.count("entity vectors of no graph name dropped", len(stray))
    report.count("graph names embedded again", len(lacking))


def _name_of(index: Index, key: str) -> str:
    """The name a graph node holds for an entity key."""
    node = index.graph.node_of(key)
    assert node is not None
    return next(n for n in index.graph.names(node) if entity_key(n) == key)
