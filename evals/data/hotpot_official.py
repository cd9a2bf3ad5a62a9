"""HotpotQA's official JSON, read by converting each record to the normalized schema in memory.

The file is a list of `{_id, question, answer, context, supporting_facts}`; after conversion it
is loaded exactly as a normalized file with paragraphs.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from resin.evals.data.dataset import DataError, Dataset
from resin.evals.data.normalized import from_records


def official_to_normalized(item: dict[str, Any]) -> dict[str, Any]:
    """One official HotpotQA record as a normalized-schema record."""
    gold_titles = {str(f[0]) for f in item.get("supporting_facts") or []}
    paragraphs = [
        {
            "pid": f"{item.get('_id')}#{i}",
            "title": str(title),
            "text": "".join(sentences),
            "sentences": list(sentences),
            "is_supporting": str(title) in gold_titles,
        }
        for i, (title, sentences) in enumerate(item.get("context") or [])
    ]
    answer = item.get("answer")
    return {
        "id": str(item.get("_id")),
        "dataset": "hotpotqa",
        "question": item.get("question"),
        "answers": [] if answer is None else [str(answer)],
        "paragraphs": paragraphs,
        "supporting_facts": [[str(t), int(i)] for t, i in item.get("supporting_facts") or []],
        "type": item.get("type", ""),
    }


def load_hotpot_official(
    path: Path, limit: int | None = None, seed: int = 0, subset: bool = False
) -> Dataset:
    """Load HotpotQA's official JSON by converting it to the normalized schema in memory."""
    try:
        items = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise DataError(f"{path}: not a HotpotQA JSON file ({exc})") from exc
    if not isinstance(items, list) or not all(isinstance(i, dict) and "_id" in i for i in items):
        raise DataError(f"{path}: expected a list of objects with '_id' (HotpotQA's format)")
    records = [official_to_normalized(i) for i in items]
    data = from_records(records, path, limit, seed, subset, None)
    data.format = "hotpotqa-official"
    return data
