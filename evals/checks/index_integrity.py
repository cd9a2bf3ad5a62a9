"""Index integrity: copies of documents never share units, and a corrupted index is found and mended.

The copies check indexes the sample corpus, then the same files from one folder up (skipped and
named), then again as copies (`as_new`), and deletes the copies: the originals keep every unit.
The repair check corrupts a copy of a clean index through the stores' own interfaces
(`resin.indexes.maintenance.corrupt`), checks it, repairs it, and compares it with the clean index.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from resin.evals.checks.common import SAMPLE_DOCS


def check_copies(work: Path, embedder: Any, figures: dict[str, Any]) -> None:
    """The same files from one folder up are skipped; as copies, deleting them keeps the originals."""
    from resin.indexes.build import Builder
    from resin.indexes.integrity import check_index
    from resin.indexes.maintenance import snapshot
    from resin.indexes.opening import open_index
    from resin.indexes.reading import load_documents
    from resin.testing import chat

    figures["trials_run"] += 1
    root = work / "copies"
    shutil.copytree(SAMPLE_DOCS, root / "docs")
    model = chat.rule_based()
    index = open_index(work / "copies-index", embedder, create=True)
    originals = load_documents([root / "docs"])[0]
    Builder(index, model).run(originals)
    before = {d.id: sorted(index.document_units(d.id)) for d in originals}
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
    held = set(snapshot(index)["chroma_units"])
    figures["originals_changed"] += sum(
        sorted(index.document_units(d)) != units or not set(units) <= held
        for d, units in before.items()
    )
    if not check_index(index).consistent:
        figures["problems"].append("deleting the copies left the index inconsistent")
    index.close()


def check_repair(sample: Path, work: Path, embedder: Any, figures: dict[str, Any]) -> None:
    """A corrupted copy of the sample index: every break found, repaired, equal to the clean one."""
    from resin.evals.crash import compare
    from resin.indexes.build import Builder
    from resin.indexes.integrity import check_index, repair_index
    from resin.indexes.maintenance import corrupt, snapshot
    from resin.indexes.opening import open_index

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
