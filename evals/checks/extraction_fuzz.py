"""Fuzzed extraction replies: random, wrong and huge model output must never keep a bad unit.

The quick version of tests/unit/test_fuzz.py: every kept unit is grounded in its passage and no
passage keeps more than the cap.
"""

from __future__ import annotations

import random
from typing import Any

from resin.evals.hostile import grounding_violations, random_model_output
from resin.testing.faults import fault_documents


def check_fuzz(figures: dict[str, Any], examples: int, seed: int) -> None:
    """Random, wrong and huge extraction replies: nothing ungrounded or invalid is kept."""
    from resin.indexes.documents import make_passages
    from resin.indexes.extraction import MAX_UNITS_PER_PASSAGE, extract_passage
    from resin.testing import chat

    rng = random.Random(seed)
    passages = [make_passages(d)[0] for d in fault_documents()]
    for i in range(examples):
        passage = passages[i % len(passages)]
        sentences = [s.text for s in passage.sentences]
        replies = [random_model_output(rng, sentences) for _ in range(2)]
        figures["fuzzed_outputs_tried"] += 1
        try:
            result = extract_passage(chat.ScriptedChatModel(responses=replies), passage)
        except Exception as exc:  # noqa: BLE001 - counted, reported
            figures["problems"].append(f"fuzz {i}: extract_passage raised {exc!r}"[:300])
            continue
        bad = grounding_violations(result.units, passage)
        if len(result.units) > MAX_UNITS_PER_PASSAGE:
            bad.append(f"{len(result.units)} units kept")
        figures["ungrounded_units_kept"] += len(bad)
        figures["problems"].extend(f"fuzz {i}: {b}" for b in bad[:2])
