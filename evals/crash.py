"""Kill `resin index` with SIGKILL at random points, rerun, and compare with an uninterrupted build.

    python -m resin.evals.crash --trials 20
    python -m resin.evals.crash --trials 20 --concurrency 8   # builds with 8 model requests in flight

Prints trials run, builds killed mid-way, and units lost or duplicated (both must be 0). With
`--concurrency`, extraction goes to a loopback OpenAI-compatible server (`FaultyServer`) that
takes 0.2 s per request on that many slots, so kills land while requests are in flight.
"""

from __future__ import annotations

import argparse
import io
import json
import math
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from contextlib import ExitStack, redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

from resin.indexes.maintenance import snapshot


def synthetic_corpus(path: Path, documents: int, seed: int = 0) -> Path:
    """A JSONL corpus whose sentences link named places and people (so units and edges form)."""
    rng = random.Random(seed)
    names = [
        f"{a} {b}"
        for a in ("Orrin", "Tessel", "Kestrel", "Varn", "Lind", "Cald", "Sedge")
        for b in ("Dam", "Mill", "Pass", "Harbor", "Station", "Road", "Council")
    ]
    with path.open("w", encoding="utf-8") as fh:
        for i in range(documents):
            a, b, c = rng.sample(names, 3)
            text = (
                f"The {a} was built near {b} in {1800 + i}. Engineers from {c} repaired it. "
                f"Floods at {b} damaged {a} twice."
            )
            fh.write(
                json.dumps({"id": f"doc-{i}", "title": f"{a} record {i}", "text": text}) + "\n"
            )
    return path


# What `resin index` is run with by default: units from the parse, no model.
NLP = ("--extract", "nlp")


def _index_args(corpus: Path, index: Path, model_args: Sequence[str]) -> list[str]:
    return ["index", str(corpus), "--index", str(index), *model_args]


# The build's progress bar, one line per passage: "indexing:  43%|...| 64/150 [00:01<...".
_PROGRESS = re.compile(rb" (\d+)/(\d+) \[")


def crash_trial(corpus: Path, index: Path, kill_at: float, model_args: Sequence[str] = NLP) -> bool:
    """Start a build, SIGKILL it once `kill_at` of its passages are done; True if killed mid-build.

    The kill is timed from the build's own progress bar (on stderr, redrawn every passage), so it
    lands between the first passage and the last whatever the machine's speed.
    """
    env = {**os.environ, "TQDM_MININTERVAL": "0", "TQDM_MINITERS": "1"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "resin.cli", *_index_args(corpus, index, model_args)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=env,
    )
    assert proc.stderr is not None
    seen, killed = b"", False
    while chunk := os.read(proc.stderr.fileno(), 65536):  # until the build ends, or the kill
        seen = seen[-200:] + chunk
        progress = _PROGRESS.findall(seen)
        if not progress:
            continue
        done, total = map(int, progress[-1])
        # the bar reaches its total before the last batch is written: that too is mid-build
        if done >= min(max(1, math.ceil(kill_at * total)), total):
            proc.send_signal(signal.SIGKILL)
            killed = True
            break
    proc.wait()
    proc.stderr.close()
    return killed


def finish(corpus: Path, index: Path, model_args: Sequence[str] = NLP) -> None:
    """Run the build to completion: `resin index` in this process, with its embedder loaded."""
    from resin.cli import main

    said = io.StringIO()
    with redirect_stdout(said), redirect_stderr(said):
        code = main(_index_args(corpus, index, model_args))
    if code != 0:
        raise RuntimeError(f"resin index {corpus} exited with {code}: {said.getvalue()[-2000:]}")


def compare(expected: dict[str, Any], got: dict[str, Any]) -> dict[str, int]:
    """Units lost and duplicated, and other differences, versus the reference build."""
    lost = len(set(expected["units"]) - set(got["units"]))
    duplicated = len(got["units"]) - len(set(got["units"]))
    extra = len(set(got["units"]) - set(expected["units"]))
    mismatched = sum(
        expected[k] != got[k] for k in ("chroma_units", "chroma_passages", "edges", "mentions")
    )
    return {"lost": lost, "duplicated": duplicated, "extra": extra, "mismatched_stores": mismatched}


def run_trials(
    trials: int, documents: int, seed: int, embedder: Any, concurrency: int = 1
) -> dict[str, Any]:
    """Reference build, then `trials` kill-and-resume builds; returns the figures.

    The reference is built sequentially; with `concurrency` > 1 the killed and resumed builds keep
    that many requests in flight to a loopback server, and must still end up identical to it.
    """
    with ExitStack() as stack:
        reference: Sequence[str] = NLP
        trial: Sequence[str] = NLP
        if concurrency > 1:
            from resin.testing.faults import FaultyServer

            server = stack.enter_context(FaultyServer(latency=0.2, slots=concurrency))
            model = ("--extract", "model", "--model", server.spec())
            reference = (*model, "--concurrency", "1")
            trial = (*model, "--concurrency", str(concurrency))
        return _trials(trials, documents, seed, embedder, reference, trial)


def _trials(
    trials: int,
    documents: int,
    seed: int,
    embedder: Any,
    reference: Sequence[str],
    trial_args: Sequence[str],
) -> dict[str, Any]:
    from resin.indexes.opening import open_index

    rng = random.Random(seed)
    work = Path(tempfile.mkdtemp(prefix="resin-crash-"))
    try:
        corpus = synthetic_corpus(work / "corpus.jsonl", documents, seed)
        finish(corpus, work / "reference", reference)
        ref = open_index(work / "reference", embedder, create=True)
        expected = snapshot(ref)
        ref.close()
        figures = {
            "trials": 0,
            "killed_mid_build": 0,
            "lost": 0,
            "duplicated": 0,
            "extra": 0,
            "mismatched_stores": 0,
            "units_per_build": len(expected["units"]),
        }
        for trial in range(trials):
            target = work / f"trial-{trial}"
            # kill points spread over the whole build, first batches to last
            share = (trial + rng.random()) / trials
            killed = crash_trial(corpus, target, share, model_args=trial_args)
            finish(corpus, target, trial_args)
            index = open_index(target, embedder, create=True)
            diff = compare(expected, snapshot(index))
            index.close()
            figures["trials"] += 1
            figures["killed_mid_build"] += int(killed)
            for key, value in diff.items():
                figures[key] += value
            shutil.rmtree(target, ignore_errors=True)
        return figures
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main() -> None:
    """Run the trials and print the figures."""
    from resin.indexes.embeddings import make_embedder

    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--trials", type=int, default=20)
    parser.add_argument("--documents", type=int, default=400)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--concurrency", type=int, default=1)
    args = parser.parse_args()
    figures = run_trials(args.trials, args.documents, args.seed, make_embedder(), args.concurrency)
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
