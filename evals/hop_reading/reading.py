"""Reading the cases as `resolve_hop` reads a hop, under the shipped or refit (LODO) weights."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Literal

from tqdm import tqdm

import resin
from resin.agent.answering.hop_compute import compute
from resin.agent.context import Context
from resin.agent.reading import hop_answer
from resin.agent.reading.hop_answer import Ranking
from resin.agent.reading.typed_hop import HopReading, resolve_typed
from resin.agent.resources import get_index
from resin.agent.state import Hop, HopResult
from resin.evals.hop_reading.scoring import Case, Row, failure, written
from resin.evals.metrics import exact_match, f1
from resin.indexes.index import Index


# --- reading ------------------------------------------------------------------------------------
def _step(
    index: Index, ctx: Context, hop: Hop, results: dict[int, HopResult]
) -> tuple[dict[int, HopResult], HopReading | None]:
    """One hop as `resolve_hop` resolves it: computed, or read (`resolve_typed`)."""
    if hop.compute:
        answer, _ = compute(hop, results)
        status: Literal["resolved", "unresolved"] = "resolved" if answer else "unresolved"
        result = HopResult(
            hop=hop.id, query=hop.question, status=status, answer=answer, via="computed"
        )
        return {hop.id: result}, None
    out, _evidence, reading = resolve_typed(index, hop, results, ctx)
    return out, reading


def read_case(index: Index, ctx: Context, case: Case, weights: str) -> Row:
    """Read the case's hop (or run its chain) and score the answer."""
    hop = case.plan[-1] if case.plan else Hop(id=1, question="")
    result = HopResult(hop=hop.id, query="", status="unresolved")
    reading: HopReading | None = None
    read_docs: set[str] = set()
    texts: list[str] = []
    how = "not executable" if case.scored == "not executable" else "read"
    if how == "read":
        results = dict(case.given)
        todo = case.plan if case.scored == "chain" else [hop]
        for step in todo:
            if step is hop and not all(
                d in results and (results[d].answer or results[d].bridge) for d in hop.depends_on
            ):
                how = "unrun"  # `resolve_typed` reads nothing without every earlier answer
            out, reading = _step(index, ctx, step, results)
            results.update(out)
            if reading is not None:
                read_docs.update(p.doc_id for p in reading.passages)
                texts += [f"{p.title} {p.text}" for p in reading.passages]
        result = results[hop.id]
        how = "computed" if hop.compute and how == "read" else how
    answered = bool(result.answer)
    route = (result.via or "sentence") if answered else "none"
    em, f1_score = exact_match(result.answer, case.answers), f1(result.answer, case.answers)
    candidates = reading.answers if reading is not None and not hop.compute else []
    rank = next((i for i, c in enumerate(candidates, 1) if exact_match(c.text, case.answers)), None)
    gold = set(case.gold_docs)
    gold_read = (gold <= read_docs if case.all_gold else bool(gold & read_docs)) if gold else None
    answer_read = any(written(t, case.answers) for t in texts)
    return Row(
        dataset=case.dataset,
        question_id=case.question_id,
        hop=hop.id,
        scored=case.scored,
        position=case.position,
        question=result.query or hop.question,
        relation=hop.relation,
        answer_type=hop.answer_type,
        answers=case.answers,
        answer=result.answer,
        route=route,
        em=em,
        f1=f1_score,
        gold_read=gold_read,
        answer_read=answer_read,
        gold_rank=rank,
        candidates=len(candidates),
        failure=failure(em, f1_score, answered, answer_read, rank, how),
        weights=weights,
    )


def read_all(
    cases: Sequence[Case], contexts: dict[str, Context], weights: str, progress: bool
) -> list[Row]:
    """Every case read on its set's index."""
    rows = []
    for case in tqdm(cases, desc=f"hops ({weights})", disable=not progress):
        ctx = contexts[case.dataset]
        rows.append(read_case(get_index(ctx), ctx, case, weights))
    return rows


@contextmanager
def ranking_from(path: Path) -> Iterator[Ranking]:
    """Read hops with the weights in `path` (the shipped file's format) instead of the shipped.

    `hop_answer.ranking()` caches the weights it reads from `hop_answer.WEIGHTS_FILE`: the file
    name is pointed at `path` and the cache cleared, then both restored. The ranking in force is
    checked against the file, so a change in how hop_answer loads its weights fails here loudly
    rather than scoring the shipped weights twice.
    """
    shipped = hop_answer.WEIGHTS_FILE
    wanted = json.loads(path.read_text(encoding="utf-8"))
    hop_answer.WEIGHTS_FILE = path
    hop_answer.ranking.cache_clear()
    try:
        chosen = hop_answer.ranking()
        if list(chosen.weights) != [float(w) for w in wanted["weights"]]:
            raise RuntimeError(f"hop_answer did not load {path}: update ranking_from")
        yield chosen
    finally:
        hop_answer.WEIGHTS_FILE = shipped
        hop_answer.ranking.cache_clear()


# --- leave-one-dataset-out weights --------------------------------------------------------------
def _digest(paths: Iterable[Path]) -> str:
    sha = hashlib.sha1()
    for path in paths:
        sha.update(path.name.encode("utf-8"))
        sha.update(path.read_bytes())
    return sha.hexdigest()[:16]


def fit_fingerprint(files: Sequence[Path], seed: int) -> str:
    """What the refits depend on: the data, the reader's code and the shipped weights."""
    package = Path(resin.__file__).parent
    code = sorted(
        p
        for room in ("agent", "indexes")
        for p in (package / room).rglob("*.py")
        if "__pycache__" not in p.parts
    )
    code += [package / "evals" / "fit_ranking.py", hop_answer.WEIGHTS_FILE]
    return f"{_digest(files)}-{_digest(code)}-seed{seed}"


def lodo_weights(
    files: dict[str, Path], folder: Path, seed: int, refit: bool = False
) -> tuple[dict[str, Path], bool]:
    """For each set, weights fit on the other sets' files only: their paths, and whether cached.

    The gold hops of the three files are read once (`fit_ranking.labelled_hops`), then each fit
    uses the other two's (`fit_ranking.fit_labelled`). A cached fit is reused while
    `fit_fingerprint` holds.
    """
    from resin.evals import fit_ranking

    fingerprint = fit_fingerprint(list(files.values()), seed)
    out = {name: folder / f"without-{path.stem}.json" for name, path in files.items()}

    def cached(path: Path) -> bool:
        return path.exists() and json.loads(path.read_text()).get("fingerprint") == fingerprint

    if not refit and all(cached(p) for p in out.values()):
        return out, True
    labelled = fit_ranking.labelled_hops(list(files.values()))
    folder.mkdir(parents=True, exist_ok=True)
    for name, path in files.items():
        others = [p for p in files.values() if p != path]
        kept = [e for e in labelled if e[0].dataset != path.stem]
        report = fit_ranking.fit_labelled(kept, others, seed)
        report["fingerprint"] = fingerprint
        out[name].write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    return out, False
