"""A PostgreSQL replica's memory and reload time against corpus size.

    python -m resin.evals.bench_scale                                  # 3k, 30k and 300k passages
    python -m resin.evals.bench_scale --passages 3000 30000 --out evals/results/bench_scale.md

Per size, a synthetic corpus (`corpus`: four sentences per passage over a pool of named
entities that grows with the corpus, so the graph grows too) is built into an empty database
with the rule-based `fake` extractor of `resin.testing.chat` and the hashed embedder of
`resin.evals.hash_embedder` (no model: MiniLM and spaCy would take hours at 300k on 2 cores),
its vectors on one `chroma run` server. Then two replicas, each a process of its own:

- `sql`: the index opened as a replica opens it (`open_index`, no create): graph steps, chains,
  names and BM25 read by SQL (`resin.indexes.pg_reads`, `resin.indexes.pg_lexical`);
- `loaded`: the index as a builder holds it (the graph, every name's vector and BM25 over every
  passage in memory), which is what a replica that loads the index must hold.

Each opens the index, then reads what a question's hops read for `--questions` questions (the
hybrid passage search, the unit search and the chain walk of `resin.tools.retrieval`) and reports
its resident memory (VmRSS) after the open and after the questions, the open time, the
questions' p50 and, for `sql`, `Index.reloaded()` (median of 3): what picking up a builder's
commit costs. A `loaded` replica's reload is a whole open. PostgreSQL and Chroma are servers of
their own: their memory is not in a replica's figures, and is reported apart (PSS).
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from resin.evals.bench_build import linked_passages
from resin.evals.bench_processes import (
    chroma_server,
    postmaster_pid,
    pss_mb,
    run_worker,
    status_mb,
)
from resin.evals.postgres import create_database, postgres
from resin.evals.provenance import command_of
from resin.evals.report import machine_settings, publish
from resin.indexes.documents import Document

SIZES = (3_000, 30_000, 300_000)
MODES = ("sql", "loaded")
KINDS = ["Dam", "Mill", "Pass", "Harbor", "Station", "Road", "Council", "Mine", "Glacier", "Bridge"]
SYLLABLES = ["ka", "lo", "mi", "ren", "tor", "vas", "zel", "qui", "dun", "pha", "gor", "lis"]
RELOADS = 3


def _word(i: int) -> str:
    """A made-up capitalized word for `i` (no two numbers share one)."""
    parts = []
    while True:
        i, rest = divmod(i, len(SYLLABLES))
        parts.append(SYLLABLES[rest])
        if i == 0:
            break
    return "".join(parts).capitalize()


def corpus(passages: int, seed: int = 0) -> list[Document]:
    """`passages` one-passage documents; each names four of `passages // 2` entities."""
    rng = random.Random(seed)
    names = [f"{_word(i)} {KINDS[i % len(KINDS)]}" for i in range(max(passages // 2, 8))]
    return linked_passages(names, passages, rng)


def questions(passages: int, n: int, seed: int = 1) -> list[str]:
    """Bridge and lexical questions over the corpus's entities."""
    rng = random.Random(seed)
    near = [d.title.rsplit(" ", 1)[0] for d in rng.sample(corpus(passages), n)]
    return [f"Who repaired the structure that was built near the {name}?" for name in near]


# --- inside a worker -----------------------------------------------------------------------------
def _open(job: dict[str, Any], **extra: Any) -> Any:
    from resin.evals.hash_embedder import HashEmbedder
    from resin.indexes.opening import open_index

    return open_index(
        job["index"],
        HashEmbedder(),
        database=job["database"],
        chroma_host="127.0.0.1",
        chroma_port=job["chroma_port"],
        **extra,
    )


def build_worker(job: dict[str, Any]) -> dict[str, Any]:
    """Build the corpus into the empty database; its size and the build's wall time."""
    from resin.indexes.build import Builder
    from resin.testing import chat

    index = _open(job, create=True)
    start = time.perf_counter()
    Builder(index, chat.rule_based(record=False), batch_passages=256).run(corpus(job["passages"]))
    seconds = time.perf_counter() - start
    stats = index.stats()
    index.close()
    return {
        "passages": stats["passages"],
        "units": stats["units"],
        "graph_nodes": stats["graph_nodes"],
        "graph_edges": stats["graph_edges"],
        "build_seconds": seconds,
    }


def _ask(index: Any, question: str) -> None:
    """What a question's hops read: passages (dense and BM25), units, cause → effect chains."""
    from resin.tools.retrieval import search_passages, search_units, traverse_chains

    search_passages(index, question, 5)
    search_units(index, question, k=5)
    traverse_chains(index, question, direction="bidirectional")


def serve_worker(job: dict[str, Any]) -> dict[str, Any]:
    """Open as `job["mode"]` says, ask the questions, reload; memory and times."""
    # every module an open imports, before the clock and the base memory
    import resin.indexes.index
    import resin.indexes.pg_graph
    import resin.indexes.pg_lexical
    import resin.indexes.pg_reads
    import resin.tools.retrieval  # noqa: F401
    from resin.evals.hash_embedder import HashEmbedder

    HashEmbedder().embed_documents(["warm"])
    base = status_mb("VmRSS")
    start = time.perf_counter()
    index = _open(job, checking=job["mode"] == "loaded")
    index.search_passages("warm", 1, "lexical")  # a loaded index builds its BM25 here
    open_seconds = time.perf_counter() - start
    gc.collect()
    after_open = status_mb("VmRSS")
    ms = []
    for question in questions(job["passages"], job["questions"]):
        start = time.perf_counter()
        _ask(index, question)
        ms.append(1000 * (time.perf_counter() - start))
    gc.collect()
    figures = {
        "base_rss_mb": base,
        "open_rss_mb": after_open,
        "asked_rss_mb": status_mb("VmRSS"),
        "peak_rss_mb": status_mb("VmHWM"),
        "open_seconds": open_seconds,
        "p50_ms": statistics.median(ms),
    }
    if job["mode"] == "sql":
        seconds = []
        for _ in range(RELOADS):
            start = time.perf_counter()
            index.reloaded()
            seconds.append(time.perf_counter() - start)
        figures["reload_seconds"] = statistics.median(seconds)
    else:
        figures["reload_seconds"] = open_seconds
    return figures


# --- the run -------------------------------------------------------------------------------------
def _worker(job: dict[str, Any]) -> dict[str, Any]:
    return run_worker("resin.evals.bench_scale", job, f"{job['mode']} at {job['passages']}")


def run(sizes: list[int], n_questions: int, workdir: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """Build each size and measure both replicas: (size, figures), one size at a time."""
    with postgres() as url, chroma_server(workdir / "chroma") as (port, chroma_pid):
        for size in sizes:
            job = {
                "passages": size,
                "questions": n_questions,
                "index": str(workdir / f"index-{size}"),
                "database": create_database(url, f"scale_{size}"),
                "chroma_port": port,
            }
            print(f"[bench_scale] building {size:,} passages", file=sys.stderr, flush=True)
            row: dict[str, Any] = {"build": _worker({**job, "mode": "build"})}
            for mode in MODES:
                print(f"[bench_scale] {mode} replica at {size:,}", file=sys.stderr, flush=True)
                row[mode] = _worker({**job, "mode": mode})
            row["servers_pss_mb"] = {
                "postgresql": pss_mb(postmaster_pid(url)),
                "chroma": pss_mb(chroma_pid),
            }
            yield size, row


def report(results: dict[str, Any], n_questions: int, load_before: float) -> str:
    """The curve as a markdown table, and its settings."""
    settings = machine_settings(load_before)
    lines = [
        "- corpus: `resin.evals.bench_scale.corpus` (four sentences per passage, entities "
        "growing with the corpus); build: the `fake` rule-based extractor, hashed 384-d "
        "vectors (`resin.evals.hash_embedder`), PostgreSQL (evals.postgres, fsync off) and "
        "`chroma run` on loopback, same cores",
        f"- per replica: open, then {n_questions} questions' reads (hybrid passage search, unit "
        "search, chain walk); RSS = VmRSS of the replica process (the hashed embedder, no "
        "MiniLM; the servers apart); reload: `Index.reloaded()` median of "
        f"{RELOADS} for `sql`, a whole open for `loaded`",
        *[f"- {k}: {v}" for k, v in settings.items()],
        "",
        "| passages | units | edges | replica | open s | RSS after open MB | RSS after "
        "questions MB | question p50 ms | reload s |",
        "|---:|---:|---:|---|---:|---:|---:|---:|---:|",
    ]
    for size, row in results.items():
        build = row["build"]
        for mode in MODES:
            fig = row[mode]
            lines.append(
                f"| {int(size):,} | {build['units']:,} | {build['graph_edges']:,} | {mode} "
                f"| {fig['open_seconds']:.2f} | {fig['open_rss_mb']:.0f} "
                f"| {fig['asked_rss_mb']:.0f} | {fig['p50_ms']:.1f} | {fig['reload_seconds']:.3f} |"
            )
    lines.append("")
    for size, row in results.items():
        build, servers = row["build"], row["servers_pss_mb"]
        lines.append(
            f"- {int(size):,} passages: built in {build['build_seconds']:.0f} s "
            f"({build['graph_nodes']:,} nodes); servers after both replicas (PSS): "
            f"PostgreSQL {servers['postgresql']:.0f} MB, Chroma {servers['chroma']:.0f} MB; "
            f"replica RSS before opening (interpreter and libraries imported): "
            f"{row['sql']['base_rss_mb']:.0f} MB"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m resin.evals.bench_scale", description=__doc__)
    parser.add_argument("--passages", type=int, nargs="+", default=list(SIZES))
    parser.add_argument("--questions", type=int, default=50)
    parser.add_argument("--out", type=Path, default=None, help="write the report here")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        job = json.loads(args.worker)
        work = build_worker if job["mode"] == "build" else serve_worker
        print(json.dumps(work(job)))
        return 0
    load_before = os.getloadavg()[0]
    json_path = args.out.with_suffix(".json") if args.out else None
    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="resin-scale-") as tmp:
        for size, row in run(args.passages, args.questions, Path(tmp)):
            results[str(size)] = row  # the report so far: a larger size may not finish
            text = report(results, args.questions, load_before)
            publish(text, results, args.out, json_path, command_of("resin.evals.bench_scale", argv))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
