"""Bad input files beside good ones: one clear error per bad file, every good document indexed.

The files are written fresh into the check's folder (empty, binary, malformed, huge, a pipe,
awkward ids...), so the check needs no fixtures on disk.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any


def write_bad_inputs(folder: Path) -> tuple[list[Path], int]:
    """Bad files (each must give one clear error) beside good ones; returns (bad, good docs)."""
    folder.mkdir(parents=True, exist_ok=True)
    bad: list[Path] = []

    def add(name: str, data: bytes) -> None:
        path = folder / name
        path.write_bytes(data)
        bad.append(path)

    add("empty.txt", b"")
    add("blank.md", b"  \n\t\n")
    add("binary.txt", b"\x00\x01\x02\xffPNG\r\n")
    add("latin1.txt", "Caf\xe9 au lait in M\xfcnchen.".encode("latin-1"))
    add("title-only.md", b"# Only a title\n")
    add("malformed.jsonl", b'{"id": "ok-1", "text": "Fine."}\n{"id": "broken", "text": \n')
    add("not-objects.jsonl", b'["a", "list"]\n')
    add("dup-in-file.jsonl", b'{"id": "twin", "text": "One."}\n{"id": "twin", "text": "Two."}\n')
    huge = folder / "huge-line.txt"
    with huge.open("wb") as fh:  # a single 50 MB line: refused by size before it is read
        chunk = b"a" * (1 << 20)
        for _ in range(50):
            fh.write(chunk)
    bad.append(huge)
    # named on the command line too (a folder walk passes over what is not a regular file, and
    # a file named twice gives one error)
    named = folder / "named"
    named.mkdir()
    (named / "unsupported.pptx").write_bytes(b"PK\x03\x04")
    bad.append(named / "unsupported.pptx")
    add("truncated.pdf", b"%PDF-1.4\n1 0 obj <<")
    if hasattr(os, "mkfifo"):
        os.mkfifo(named / "pipe.txt")
        bad.append(named / "pipe.txt")
    bad.append(named / "missing.md")
    # good files, some with awkward ids and one duplicating another file's id
    (folder / "good.md").write_text("# Orrin Dam\n\nThe Orrin Dam was designed by Hessa Varn.\n")
    (folder / "good-crlf.txt").write_bytes(b"\xef\xbb\xbfHessa Varn was born in Caldmere.\r\n")
    records = [
        {"id": "../../etc/passwd", "title": "Path", "text": "A path-like id is only a name."},
        {"id": '{"$ne": null}', "title": "$where", "text": "Filter syntax in an id is only text."},
        {"id": "a'; DROP TABLE documents; --", "text": "SQL in an id is only text."},
        {"id": "%s %d *?[]", "text": "Glob and format characters."},
        {"id": "long-line", "text": "word " * 3_000},  # no end punctuation: cut at spaces
    ]
    (folder / "awkward.jsonl").write_text("\n".join(json.dumps(r) for r in records) + "\n")
    clash = folder / "zz-dup-across.jsonl"  # read after good.md, whose id it repeats
    clash.write_text(json.dumps({"id": "good", "text": "Clash."}) + "\n")
    bad.append(clash)
    # and the good lines of the two .jsonl files with a bad line ("ok-1", the first "twin")
    return bad, 2 + len(records) + 2


def check_bad_inputs(work: Path, embedder: Any, figures: dict[str, Any]) -> None:
    """Every bad file gives one error naming it; every good document is indexed."""
    from resin.indexes.build import Builder
    from resin.indexes.maintenance import snapshot
    from resin.indexes.opening import open_index
    from resin.indexes.reading import load_documents
    from resin.testing import chat

    folder = work / "inputs"
    bad, good = write_bad_inputs(folder)
    figures["trials_run"] += 1
    started = time.monotonic()
    named = [p for p in bad if p.parent.name == "named"]
    docs, errors = load_documents([folder, *named])
    figures["bad_inputs_tried"] += len(bad)
    clean = {p.name for p in bad if sum(p.name in str(e) for e in errors) == 1}
    figures["bad_inputs_rejected_cleanly"] += len(clean)
    for path in bad:
        if path.name not in clean:
            figures["problems"].append(f"bad input {path.name}: no single clear error")
    if time.monotonic() - started > 30:
        figures["problems"].append("loading the bad inputs took over 30 s")
    index = open_index(work / "inputs-index", embedder, create=True)
    report = Builder(index, chat.rule_based()).run(docs)
    indexed = {r.doc_id for r in index.documents() if r.complete}
    figures["good_documents_indexed"] += len(indexed)
    if len(indexed) != good or report.failed_passages:
        figures["problems"].append(f"good documents indexed {len(indexed)} of {good}")
    for doc_id in sorted(indexed):
        if not Builder(index, None).delete(doc_id):
            figures["problems"].append(f"could not delete {doc_id!r}")
    if index.documents() or snapshot(index)["chroma_passages"]:
        figures["problems"].append("deleting every document left something behind")
    index.close()
    outside = [p for p in work.parent.iterdir() if p.name in ("etc", "passwd")]
    if outside:
        figures["problems"].append(f"files written outside the index: {outside}")
