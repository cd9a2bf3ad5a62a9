"""Build throughput excluding model time: a fake extractor over N synthetic passages.

    python -m resin.evals.bench_build --passages 10000 [--index evals/runs/bench/fake-10000]

Reports units/s over the build's wall time minus the time spent inside the (fake) model, the
share of that time in embedding, and peak resident memory. Target: ≥ 300 units/s on 2 cores.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import tempfile
import time
from pathlib import Path
from typing import Any

from resin.indexes.build import Builder
from resin.indexes.documents import Document
from resin.indexes.embeddings import make_embedder
from resin.indexes.opening import open_index
from resin.testing import chat

PLACES = [
    "Orrin",
    "Tessel",
    "Kestrel",
    "Varn",
    "Lind",
    "Cald",
    "Sedge",
    "Brannock",
    "Ysolde",
    "Grey",
]
KINDS = ["Dam", "Mill", "Pass", "Harbor", "Station", "Road", "Council", "Mine", "Glacier", "Bridge"]


def corpus(passages: int, seed: int = 0) -> list[Document]:
    """One ~4-sentence passage per document, linking named entities the way encyclopedic text does."""
    rng = random.Random(seed)
    names = [f"{p} {k}" for p in PLACES for k in KINDS] + [
        f"{p}{i} {k}" for i, p in enumerate(PLACES * 20) for k in KINDS[:3]
    ]
    return linked_passages(names, passages, rng)


def linked_passages(names: list[str], passages: int, rng: random.Random) -> list[Document]:
    """`passages` one-passage documents, each linking four of `names` in four sentences."""
    docs = []
    for i in range(passages):
        a, b, c, d = rng.sample(names, 4)
        text = (
            f"The {a} was built near the {b} in {1800 + i % 200}. Engineers from the {c} "
            f"repaired it after the flood of {1900 + i % 100}. The {d} supplies stone to the {a}. "
            f"Traders cross the {b} on the way to the {c} every spring."
        )
        docs.append(Document(id=f"doc-{i}", title=f"{a} {i}", text=text))
    return docs


class TimedEmbedder:
    """Wraps the embedder to measure the time the build spends embedding."""

    def __init__(self, inner: Any) -> None:
        self.inner, self.name, self.seconds = inner, inner.name, 0.0

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Embed and add the time taken."""
        start = time.perf_counter()
        try:
            return self.inner.embed_documents(texts)
        finally:
            self.seconds += time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--passages", type=int, default=10_000)
    parser.add_argument(
        "--index",
        type=Path,
        default=None,
        help="build into this (empty) folder and keep it, e.g. for evals.bench_agent's workdir",
    )
    args = parser.parse_args()
    if args.index and args.index.exists() and any(args.index.iterdir()):
        parser.error(f"--index {args.index} is not empty: a throughput figure needs a fresh build")
    model_seconds = 0.0

    def timed_reply(messages: Any, kwargs: Any) -> str:
        nonlocal model_seconds
        start = time.perf_counter()
        try:
            return str(chat.heuristic_reply(messages, kwargs))
        finally:
            model_seconds += time.perf_counter() - start

    embedder = TimedEmbedder(make_embedder())
    docs = corpus(args.passages)
    with tempfile.TemporaryDirectory() as tmp:
        index = open_index(args.index or Path(tmp), embedder, create=True)
        start = time.perf_counter()
        model = chat.ScriptedChatModel(responder=timed_reply)
        report = Builder(index, model, batch_passages=256).run(docs)
        wall = time.perf_counter() - start
        stats = index.stats()
        index.close()
    build = wall - model_seconds
    result = {
        "passages": report.passages,
        "units": report.units,
        "graph_nodes": stats["graph_nodes"],
        "graph_edges": stats["graph_edges"],
        "wall_seconds": round(wall, 1),
        "fake_model_seconds": round(model_seconds, 1),
        "embedding_seconds": round(embedder.seconds, 1),
        "units_per_second_excluding_model": round(report.units / build, 1),
        "peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
    }
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
