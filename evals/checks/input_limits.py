"""Input limits: a .jsonl file's bad lines each named, and a 240 KB run with no space.

The good lines of the .jsonl file beside them are indexed; the run is one passage and a warning.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

# Each bad line, and the words its error must hold.
_BAD_LINES = [
    ('{"id": "cut", "text": ', "malformed JSON"),
    ('["a", "list"]', "expected an object with a string 'text'"),
    (json.dumps({"id": "dam", "text": "The same id again."}), "duplicate document id 'dam'"),
    (json.dumps({"id": "blank", "text": " "}), "has empty text"),
]
_GOOD = [
    {"id": "dam", "title": "Orrin Dam", "text": "The Orrin Dam was designed by Hessa Varn."},
    {"id": "mill", "title": "Brannock Mill", "text": "The Brannock Mill grinds flour."},
]


def check_input_limits(work: Path, embedder: Any, figures: dict[str, Any]) -> None:
    """Bad .jsonl lines named with file:line and why, the good ones indexed; a run, one passage."""
    from resin.indexes.build import Builder
    from resin.indexes.opening import open_index
    from resin.indexes.reading import load_documents
    from resin.testing import chat

    folder = work / "limits"
    folder.mkdir()
    corpus = folder / "corpus.jsonl"
    lines = [json.dumps(_GOOD[0]), *(line for line, _ in _BAD_LINES), json.dumps(_GOOD[1])]
    corpus.write_text("\n".join(lines) + "\n", encoding="utf-8")
    blob = folder / "blob.txt"
    blob.write_text("QUJD" * 60_000, encoding="utf-8")
    figures["trials_run"] += 2
    docs, errors = load_documents([corpus, blob])
    figures["jsonl_bad_lines_tried"] += len(_BAD_LINES)
    for lineno, (_, why) in enumerate(_BAD_LINES, 2):
        named = [e for e in errors if re.match(rf"{re.escape(str(corpus))}:{lineno}: ", str(e))]
        figures["jsonl_bad_lines_named"] += len(named) == 1 and why in str(named[0])
    index = open_index(work / "limits-index", embedder, create=True)
    report = Builder(index, chat.rule_based()).run(docs)
    figures["jsonl_good_lines_tried"] += len(_GOOD)
    figures["jsonl_good_lines_indexed"] += sum(index.document(d["id"]) is not None for d in _GOOD)
    figures["long_runs_tried"] += 1
    one = len(index.document_passages("blob")) == 1
    warned = [w for w in report.warnings if str(blob) in w and "240,000 characters" in w]
    figures["long_runs_one_passage"] += one and len(warned) == 1
    if len(errors) != len(_BAD_LINES):
        figures["problems"].append(f"{len(errors)} errors for {len(_BAD_LINES)} bad .jsonl lines")
    index.close()
