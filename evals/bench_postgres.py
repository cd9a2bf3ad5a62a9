"""What serving one index from several machines costs: PostgreSQL + a Chroma server vs SQLite/JSON.

    python -m resin.evals.bench_postgres                          # both corpora, 50 questions each
    python -m resin.evals.bench_postgres --corpus hotpot --questions 50 --out /tmp/bench_postgres.md

The same corpus is built with the parser (`--extract nlp`, no model) into both backends: the
bundled sample corpus (`resin demo`'s) and the union corpus of HotpotQA dev-300 (every context
paragraph of the file, as `resin eval` builds it). Per backend it reports build passages/s, the
per-question overhead with the scripted `fake` model for every step (what remains is every index
read a question's hops make: catalog rows, vectors, graph steps; over loopback sockets for
PostgreSQL), the resident memory of a process that opened the index and answered the questions
(what each replica holds), units and edges (equal when the backends hold the same index), and the
time a replica takes to pick up another builder's batch: `Index.reloaded()`, and the reads a
whole load makes (the graph from PostgreSQL, the entity vectors from Chroma, BM25 over the
passages), timed one by one; for SQLite the same three loads from graph.json and the embedded
store, for comparison.

Each build and each replica runs in a process of its own (`--worker`), so no backend inherits
the other's caches, loaded models or memory. PostgreSQL (`resin.evals.postgres`) and the Chroma server
(`chroma run`, as the integration tests start it) run on this machine and share its cores:
latency between machines is not in the figures, and the servers' own memory is reported apart.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from resin.evals.bench_postgres_report import report
from resin.evals.bench_processes import chroma_server, postmaster_pid, pss_mb, run_worker, status_mb
from resin.evals.postgres import create_database, postgres
from resin.evals.provenance import command_of
from resin.evals.report import machine_settings, publish

CORPORA = ("sample", "hotpot")
# Indexed by a second builder while a replica serves: the batch the replica must pick up.
EXTRA = {
    "id": "bench-extra-harlow-weir",
    "title": "Harlow Weir",
    "text": "The Harlow Weir was designed by Petra Quill in 1931. It holds back the Tarn River. "
    "Floods on the Tarn River led to the building of the weir.",
}
EXTRA_NAME = "Petra Quill"  # an entity only that document names
RELOADS = 3  # a reload repeated: the same reads each time, the median reported
FOLLOW_TIMEOUT = 30.0
ENV = {"HF_HUB_OFFLINE": "1", "ANONYMIZED_TELEMETRY": "False", "LANGSMITH_TRACING": "false"}


# --- measurements inside a worker ---------------------------------------------------------------
def _documents(corpus: str) -> tuple[list[Any], int]:
    """The corpus's documents and the passage size they are cut at."""
    from resin.agent import SAMPLE_DIR
    from resin.evals.bench_latency import HOTPOT
    from resin.evals.data import load_dataset
    from resin.indexes.documents import DEFAULT_PASSAGE_CHARS
    from resin.indexes.reading import load_documents

    if corpus == "sample":
        docs, _errors = load_documents([SAMPLE_DIR / "docs"])
        return docs, DEFAULT_PASSAGE_CHARS
    data = load_dataset(HOTPOT)  # all 300 questions: the union of their paragraphs
    return data.documents, data.passage_chars


def _questions(corpus: str, n: int, seed: int) -> list[str]:
    """The sample questions, or `n` HotpotQA questions sampled as `resin eval --limit n` does."""
    from resin.agent import SAMPLE_DIR
    from resin.evals.bench_latency import HOTPOT
    from resin.evals.data import load_dataset

    if corpus == "sample":
        lines = (SAMPLE_DIR / "questions.jsonl").read_text(encoding="utf-8").splitlines()
        return [json.loads(line)["question"] for line in lines if line.strip()][:n]
    return [q.question for q in load_dataset(HOTPOT, limit=n, seed=seed).questions]


def _open(job: dict[str, Any], embedder: Any, create: bool = False, **extra: Any) -> Any:
    from resin.indexes.opening import open_index

    return open_index(
        job["index"],
        embedder,
        create=create,
        database=job["database"] or None,
        chroma_host="127.0.0.1" if job["database"] else None,
        chroma_port=job["chroma_port"],
        **extra,
    )


def _warm_embedder() -> Any:
    """MiniLM loaded and run once, so no timing below pays its load."""
    from resin.indexes.embeddings import make_embedder

    embedder = make_embedder()
    embedder.embed_documents(["warm"])
    return embedder


def build_worker(job: dict[str, Any]) -> dict[str, Any]:
    """Build the corpus into an empty index with the parser; the wall time of the build alone."""
    from resin.indexes.build import Builder
    from resin.indexes.nlp_extraction import NlpExtractor, load_pipeline

    docs, passage_chars = _documents(job["corpus"])
    embedder = _warm_embedder()
    load_pipeline()("Warm.")
    index = _open(job, embedder, create=True, passage_chars=passage_chars)
    start = time.perf_counter()
    report = Builder(index, None, nlp=NlpExtractor()).run(docs)
    seconds = time.perf_counter() - start
    stats = index.stats()
    index.close()
    return {
        "documents": len(docs),
        "passages": report.passages,
        "units": stats["units"],
        "graph_nodes": stats["graph_nodes"],
        "graph_edges": stats["graph_edges"],
        "build_seconds": seconds,
        "peak_rss_mb": status_mb("VmHWM"),
    }


def _median(values: list[float]) -> float:
    return sorted(values)[len(values) // 2]


def load_aside(index: Any) -> tuple[dict[str, float], bool]:
    """Read what a replica holds in memory afresh, as a reload must: seconds per part.

    The graph (`pg_graph.load_graph` from PostgreSQL's tables, or graph.json), its entity-name
    vectors from Chroma (as `Index.__init__` loads them) and BM25 over every catalog passage (as
    `IndexReads._lexical`). With whether the graph read holds the extra document's entity.
    """
    from resin.indexes.graph import EntityGraph
    from resin.indexes.lexical import BM25
    from resin.indexes.pg_graph import load_graph

    clock = time.perf_counter
    start = clock()
    threshold = index.config.merge_threshold
    if index.config.database:
        graph = EntityGraph(None, threshold)
        graph.adopt(load_graph(index.catalog.pool)[1])
    else:
        graph = EntityGraph(index.config.path / "graph.json", threshold)
    loaded = clock()
    ids, vecs = index.vectors.vectors("entities")
    keys = [h.metadata.get("key", "") for h in index.vectors.get("entities", ids)] if ids else []
    by_id = dict(zip(ids, vecs, strict=True))
    graph.load_vectors(keys, [by_id[i] for i in ids])
    vectors = clock()
    BM25((p.id, f"{p.title} {p.text}") for p in index.catalog.iter_passages())
    done = clock()
    seconds = {
        "graph": loaded - start,
        "entity_vectors": vectors - loaded,
        "bm25": done - vectors,
        "total": done - start,
    }
    return seconds, graph.node_of(EXTRA_NAME) is not None


def _followed(job: dict[str, Any], index: Any, committed: float) -> tuple[Any, float | None]:
    """The index `open_index` serves once the replica's follower swapped a newer one in.

    With the seconds from the batch's commit to the swap; None when none came within
    `FOLLOW_TIMEOUT` seconds.
    """
    while time.perf_counter() - committed < FOLLOW_TIMEOUT:
        current = _open(job, index.embedder)
        if current is not index:
            return current, time.perf_counter() - committed
        time.sleep(0.005)
    return index, None


def _reload(index: Any, job: dict[str, Any]) -> dict[str, Any]:
    """A second builder indexes one document; the replica then picks up the new generation.

    Timed: the batch; from its commit until the replica's own follower swapped the new generation
    in (PostgreSQL's NOTIFY); then, on a quiet process, `Index.reloaded()`, and the reads a whole
    load makes one by one (`load_aside`). The SQLite index serves one machine:
    only `load_aside` is timed there, with no batch, for comparison.
    """
    from resin.indexes.build import Builder
    from resin.indexes.documents import Document
    from resin.indexes.index import Index
    from resin.indexes.nlp_extraction import NlpExtractor

    figures: dict[str, Any] = {}
    if job["database"]:
        second = Index(index.config, index.embedder)  # another machine's builder
        start = time.perf_counter()
        Builder(second, None, nlp=NlpExtractor()).run([Document(**EXTRA)])
        committed = time.perf_counter()
        figures["batch_seconds"] = committed - start
        second.close()
        index, figures["followed_seconds"] = _followed(job, index, committed)
        seconds = []
        for _ in range(RELOADS):
            start = time.perf_counter()
            fresh = index.reloaded()
            seconds.append(time.perf_counter() - start)
        figures["reloaded_seconds"] = _median(seconds)
        figures["generation"] = fresh.generation
        figures["picked_up_batch"] = fresh.graph.node_of(EXTRA_NAME) is not None
    runs = [load_aside(index) for _ in range(RELOADS)]
    figures.update({part: _median([r[part] for r, _ in runs]) for part in runs[0][0]})
    figures.setdefault("picked_up_batch", runs[0][1])
    return figures


def serve_worker(job: dict[str, Any]) -> dict[str, Any]:
    """A replica: open the index, answer the questions with the `fake` model, then reload."""
    from resin.agent.context import Context
    from resin.agent.graph import graph
    from resin.agent.resources import get_index
    from resin.evals.bench_latency import WARM_UP
    from resin.evals.scripted import FAKE_SPEC, register_fake

    register_fake()
    asked = _questions(job["corpus"], job["questions"], job["seed"])
    embedder = _warm_embedder()
    start = time.perf_counter()
    index = _open(job, embedder)
    open_seconds = time.perf_counter() - start
    ctx = Context.one_model(
        FAKE_SPEC,
        index_path=job["index"],
        database=job["database"],
        chroma_host="127.0.0.1" if job["database"] else "",
        chroma_port=job["chroma_port"],
    )
    if get_index(ctx) is not index:
        raise RuntimeError("the agent opened another index than the one timed")
    graph.invoke({"question": WARM_UP}, context=ctx)  # parser, BM25, first queries of each store
    ms, answers = [], []
    for question in asked:
        start = time.perf_counter()
        final = graph.invoke({"question": question}, context=ctx)
        ms.append(1000 * (time.perf_counter() - start))
        answers.append([final.get("answer"), sorted(final.get("citations") or [])])
    rss = status_mb("VmRSS")
    return {
        "open_seconds": open_seconds,
        "ms": ms,
        "answers": answers,
        "rss_mb": rss,
        "peak_rss_mb": status_mb("VmHWM"),
        "reload": _reload(index, job),
    }


# --- the run ------------------------------------------------------------------------------------
def _worker(job: dict[str, Any]) -> dict[str, Any]:
    return run_worker("resin.evals.bench_postgres", job, f"{job['mode']} {job['backend']}")


def run_corpus(corpus: str, args: argparse.Namespace, root: Path) -> dict[str, Any]:
    """Both backends on one corpus: builds, then one replica each."""
    out: dict[str, Any] = {"corpus": corpus, "backends": {}}
    with postgres() as url, chroma_server(root / f"chroma-{corpus}") as (port, chroma_pid):
        jobs: dict[str, dict[str, Any]] = {
            "sqlite": {"index": str(root / f"sqlite-{corpus}"), "database": ""},
            "postgres": {
                "index": str(root / f"pg-{corpus}"),
                "database": create_database(url, f"bench_{corpus}"),
            },
        }
        for backend, where in jobs.items():
            where.update(backend=backend, corpus=corpus, chroma_port=port)
            where.update(questions=args.questions, seed=args.seed)
            print(f"{corpus}: building into {backend}", file=sys.stderr, flush=True)
            out["backends"][backend] = {"build": _worker({**where, "mode": "build"})}
        for backend, where in jobs.items():
            print(f"{corpus}: serving from {backend}", file=sys.stderr, flush=True)
            out["backends"][backend]["serve"] = _worker({**where, "mode": "serve"})
        out["chroma_server_pss_mb"] = pss_mb(chroma_pid)
        out["postgres_server_pss_mb"] = pss_mb(postmaster_pid(url))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--corpus", nargs="+", choices=CORPORA, default=list(CORPORA))
    parser.add_argument("--questions", type=int, default=50, help="per corpus (the sample has 8)")
    parser.add_argument("--seed", type=int, default=0, help="HotpotQA question sample")
    parser.add_argument("--out", type=Path, help="write the markdown report here")
    parser.add_argument("--json", type=Path, help="every figure, per question too")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args()
    for key, value in ENV.items():
        os.environ.setdefault(key, value)
    if args.worker:
        job = json.loads(args.worker)
        before = os.getloadavg()[0]
        result = (build_worker if job["mode"] == "build" else serve_worker)(job)
        result["load"] = [before, os.getloadavg()[0]]  # the machine is shared: say how busy
        print(json.dumps(result), flush=True)
        return
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="resin-bench-pg-") as tmp:
        results = [run_corpus(corpus, args, Path(tmp)) for corpus in args.corpus]
    settings = {
        "builds": "`--extract nlp` (no model), each in a fresh process, spaCy and MiniLM loaded "
        "before the clock starts; queries: the `fake` model for every step, one warm-up question "
        "first",
        "servers": "PostgreSQL (evals.postgres, fsync off) and `chroma run` on loopback, same cores",
        **machine_settings(load_before),
    }
    text = report(results, settings, RELOADS, FOLLOW_TIMEOUT)
    publish(text, results, args.out, args.json, command_of("resin.evals.bench_postgres"))


if __name__ == "__main__":
    main()
