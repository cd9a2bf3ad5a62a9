"""Index integrity: copies of documents never share units, and a corrupted index is found and mended.

The copies check indexes the sample corpus, then the same files from one folder up (skipped and
named), then again as copies (`as_new`), and deletes the copies: the originals keep every unit.
The repair check corrupts a copy of a clean index through the stores' own interfaces (`corrupt`,
which the unit tests use too), checks it, repairs it, and compares it with the clean index.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from evals.checks.common import SAMPLE_DOCS


def corrupt(index: Any) -> dict[str, list[str]]:
    """Break an index by hand, one store at a time; what was broken, by the disagreement it makes.

    Unit vectors and a passage vector deleted from Chroma, a unit's catalog row deleted, an edge
    added to the graph between two unlinked nodes, a passage vector and a mention of no passage.
    """
    docs = [d.doc_id for d in index.catalog.documents() if index.catalog.unit_ids(d.doc_id)]
    lost_vectors = sorted(index.catalog.unit_ids(docs[0]))[:3]
    index.vectors.delete("units", lost_vectors)
    lost_passage = index.catalog.doc_passage_ids(docs[1])[0]
    index.vectors.delete("passages", [lost_passage])
    lost_row = sorted(index.catalog.unit_ids(docs[2]))[0]
    index.catalog.delete_unit_rows([lost_row])
    nodes = sorted(index.graph.g.nodes)
    head, tail = next(
        (h, t) for h in nodes for t in nodes if h != t and not index.graph.g.has_edge(h, t)
    )
    index.graph.g.add_edge(head, tail, relations=["invented"], provenance=["u-invented"], weight=1)
    index.graph.save()
    _, vector = index.vectors.get_vectors("passages", [index.catalog.doc_passage_ids(docs[3])[0]])
    index.vectors.upsert("passages", ["p-stray"], vector, ["stray"], [{"doc_id": "gone"}])
    index.catalog.add_mentions([(docs[0], "p-gone")])
    return {
        "units_without_vector": lost_vectors,
        "passages_without_vector": [lost_passage],
        "unit_vectors_without_unit": [lost_row],
        "passage_vectors_without_passage": ["p-stray"],
        "graph_edges_without_unit": [
            f"{index.graph.names(head)[0]} → {index.graph.names(tail)[0]}"
        ],
        "stray_mentions": ["p-gone"],
    }


def check_copies(work: Path, embedder: Any, figures: dict[str, Any]) -> None:
    """The same files from one folder up are skipped; as copies, deleting them keeps the originals."""
    from evals.scripted import fakes
    from indexes.build import Builder
    from indexes.documents import load_documents
    from indexes.index import open_index
    from indexes.integrity import check_index

    figures["trials_run"] += 1
    root = work / "copies"
    shutil.copytree(SAMPLE_DOCS, root / "docs")
    model = fakes().rule_based()
    index = open_index(work / "copies-index", embedder, create=True)
    originals = load_documents([root / "docs"])[0]
    Builder(index, model).run(originals)
    before = {d.id: sorted(index.catalog.unit_ids(d.id)) for d in originals}
    again = Builder(index, model).run(load_documents([root])[0])
    if len(again.already_indexed) != len(originals) or again.documents_indexed:
        figures["problems"].append(
            f"the same files from one folder up: {again.documents_indexed} indexed again, "
            f"{len(again.already_indexed)} of {len(originals)} named as already indexed"
        )
    builder = Builder(index, model, as_new=True)
    builder.run(load_documents([root])[0])
    for doc in originals:
        figures["copies_deleted"] += builder.delete(f"docs/{doc.id}")
    held = set(index.vectors.ids("units"))
    figures["originals_changed"] += sum(
        sorted(index.catalog.unit_ids(d)) != units or not set(units) <= held
        for d, units in before.items()
    )
    if not check_index(index).consistent:
        figures["problems"].append("deleting the copies left the index inconsistent")
    index.close()


def check_repair(sample: Path, work: Path, embedder: Any, figures: dict[str, Any]) -> None:
    """A corrupted copy of the sample index: every break found, repaired, equal to the clean one."""
    from evals.crash import compare, snapshot
    from indexes.build import Builder
    from indexes.index import open_index
    from indexes.integrity import check_index, repair_index

    figures["trials_run"] += 1
    shutil.copytree(sample, work / "repair-index")
    index = open_index(work / "repair-index", embedder)
    broken = corrupt(index)
    found = check_index(index).disagreements
    figures["corruptions_made"] += len(broken)
    # the graph may find more than the edge added: the edges of the unit whose row went too
    figures["corruptions_found"] += sum(set(v) <= set(found.get(k, ())) for k, v in broken.items())
    repair_index(Builder(index, None))
    figures["disagreements_after_repair"] += len(check_index(index).disagreements)
    reference = open_index(sample, embedder)
    diff = compare(snapshot(reference), snapshot(index))
    reference.close()
    index.close()
    figures["units_lost"] += diff["lost"]
    figures["units_duplicated"] += diff["duplicated"] + diff["extra"]
    if diff["mismatched_stores"]:
        figures["problems"].append("the repaired index's stores differ from the clean index")
