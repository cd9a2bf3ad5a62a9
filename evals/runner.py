"""The evaluation run: load data, build (or reuse) the index, run each system, score, report.

Each system's questions are answered and appended by `resin.evals.system_run`, scored by
`resin.evals.scoring`; the figures, summary.md and plot.png are made by `resin.evals.report` from the rows.

Layout of an output folder:

    run.json                  what was run (refused if a later run into the folder differs)
    index/                    the resin index (default; `--index` puts it elsewhere)
    results/<system>.jsonl    one scored row per question, appended as it finishes
    traces/<system>.jsonl     one trace per question: plan, hops, evidence, chains, answer
    summary.md                one table, systems × metrics
    results.json              the same figures, plus per-stage latency and the run's settings
    plot.png                  quality and latency of the systems side by side

A rerun skips questions already scored (rows with an error are retried), and the index build is
incremental with an extraction cache, so a rerun of a finished run makes no model calls.
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from tqdm import tqdm

from resin.agent.context import Context
from resin.agent.llm import DEFAULT_CHAT_SPEC, default_concurrency, make_chat_model
from resin.agent.llm.llama_cpp import ChatLlamaCpp
from resin.agent.resources import get_index
from resin.evals.data import Dataset, load_dataset
from resin.evals.prompts import EVAL_PROMPT_VERSION
from resin.evals.report import aggregate, paired, plot, summary_markdown
from resin.evals.scoring import corpus_maps
from resin.evals.system_run import load_rows, run_system
from resin.evals.systems import SYSTEMS, Env
from resin.indexes.build import Builder
from resin.indexes.build_report import BuildReport
from resin.indexes.documents import make_passages
from resin.indexes.embeddings import DEFAULT_EMBEDDER_SPEC
from resin.indexes.extractors import EXTRACT_CHOICES, extraction_key, extractors
from resin.indexes.index import Index
from resin.indexes.opening import close_indexes, open_index

_INDEX_META = "evals-index.json"


@dataclass
class RunConfig:
    """Everything a run depends on (the `resin eval` flags)."""

    data: str
    out: str
    systems: list[str] = field(default_factory=lambda: ["none", "bm25", "dense", "agent"])
    limit: int | None = None
    model: str = DEFAULT_CHAT_SPEC
    index: str | None = None
    subset: bool = False
    k: int = 5
    seed: int = 0
    extract: str = "nlp"
    extract_model: str | None = None
    embedder: str = DEFAULT_EMBEDDER_SPEC
    passage_chars: int | None = None
    corpus: str | None = None
    progress: bool = True
    command: str = ""
    concurrency: int | None = None  # model requests in flight (default: by model spec)
    answer_mode: str = "auto"  # how every system reaches its short answer (Context.answer_mode)
    drop_gold: bool = False  # the corpus without the sampled questions' gold documents
    plan_model: str = "auto"  # the agent's planner (Context.plan_model): auto, parsed, none, a spec
    database: str | None = None  # serve from a PostgreSQL copy of the index built in `index`
    chroma_host: str = ""  # the Chroma server of `database`
    chroma_port: int = 8000


def _log(config: RunConfig, message: str) -> None:
    if config.progress:
        print(message, file=sys.stderr, flush=True)


def _digest(items: Sequence[str]) -> str:
    return hashlib.sha1("\n".join(items).encode("utf-8")).hexdigest()[:16]


# --- run identity -------------------------------------------------------------------------------
def fingerprint(config: RunConfig, data: Dataset, passage_chars: int) -> dict[str, Any]:
    """What must not change between runs that append to the same result files."""
    return {
        "data": str(Path(data.path).resolve()),
        "format": data.format,
        "questions": len(data.questions),
        "question_ids": _digest([q.id for q in data.questions]),
        "documents": len(data.documents),
        "corpus": _digest(sorted(d.id + d.hash for d in data.documents)),
        "subset": config.subset,
        "seed": config.seed,
        "model": config.model,
        "k": config.k,
        "extract": config.extract,
        "extract_model": config.extract_model or config.model,
        "embedder": config.embedder,
        "passage_chars": passage_chars,
        "eval_prompts": EVAL_PROMPT_VERSION,
        # only when set: folders of earlier runs (auto) still resume
        **({"answer_mode": config.answer_mode} if config.answer_mode != "auto" else {}),
        **({"drop_gold": True} if config.drop_gold else {}),
        **({"plan_model": config.plan_model} if config.plan_model != "auto" else {}),
        **({"served_from": "postgresql"} if config.database else {}),
    }


def check_run(out: Path, identity: dict[str, Any]) -> None:
    """Write run.json, or refuse when the folder holds results of a different run."""
    path = out / "run.json"
    if path.exists():
        old = json.loads(path.read_text(encoding="utf-8")).get("fingerprint", {})
        changed = [k for k in identity if old.get(k) != identity[k]]
        if changed and any((out / "results").glob("*.jsonl")):
            raise ValueError(
                f"{out} holds results of another run (it differs in: {', '.join(changed)}); "
                "choose another --out folder"
            )
    out.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"fingerprint": identity}, indent=2), encoding="utf-8")


# --- index --------------------------------------------------------------------------------------
def _check_index_meta(path: Path, passage_chars: int) -> None:
    meta = path / _INDEX_META
    if (path / "manifest.json").exists() and not meta.exists():
        raise ValueError(
            f"{path} is an index that resin eval did not make (eval removes documents that are not "
            "in the run's corpus): choose an empty folder or one an earlier eval made"
        )
    if meta.exists():
        have = json.loads(meta.read_text(encoding="utf-8")).get("passage_chars")
        if have != passage_chars:
            raise ValueError(
                f"the index at {path} was built with passage_chars={have}, this run needs "
                f"{passage_chars}: choose another --index folder"
            )
    path.mkdir(parents=True, exist_ok=True)
    meta.write_text(json.dumps({"passage_chars": passage_chars}), encoding="utf-8")


def build_index(
    config: RunConfig, data: Dataset, path: Path, passage_chars: int
) -> tuple[BuildReport, dict[str, Any]]:
    """Bring the index to exactly this corpus: stale documents removed, new ones built."""
    _check_index_meta(path, passage_chars)
    extract_spec = config.extract_model or config.model
    extractor, nlp = extractors(config.extract, lambda: make_chat_model(extract_spec))
    index = open_index(path, config.embedder, create=True, passage_chars=passage_chars)
    try:
        builder = Builder(
            index,
            extractor,
            nlp=nlp,
            concurrency=config.concurrency or default_concurrency(extract_spec),
            as_new=True,  # exactly this corpus: a paragraph two records share stays under both ids
        )
        wanted = {d.id for d in data.documents}
        stale = [r.doc_id for r in index.documents() if r.doc_id not in wanted]
        for doc_id in tqdm(stale, desc="drop stale docs", disable=not config.progress or not stale):
            builder.delete(doc_id)
        bar = tqdm(total=0, desc="index", unit="passage", disable=not config.progress)

        def progress(done: int, total: int, _report: BuildReport) -> None:
            bar.total = total
            bar.n = done
            bar.refresh()

        report = builder.run(data.documents, progress=progress)
        bar.close()
        stats = index.stats()
        stats.update(extraction_cost(index, data, passage_chars, extractor))
        stats["stale_documents_removed"] = len(stale)
    finally:
        index.close()
    return report, stats


def extraction_cost(
    index: Index, data: Dataset, passage_chars: int, extractor: Any
) -> dict[str, Any]:
    """Extraction tokens spent on this corpus's passages (from the cache) per 1K corpus tokens.

    Corpus tokens are counted with the extraction model's tokenizer when it is a llama.cpp model,
    else estimated at 4 characters per token.
    """
    passages = [p for d in data.documents for p in make_passages(d, passage_chars)]
    chars = sum(len(p.text) for p in passages)
    if isinstance(extractor, ChatLlamaCpp):
        corpus_tokens = sum(extractor.count_tokens(p.text) for p in passages)
        tokenizer = "the extraction model's"
    else:
        corpus_tokens = round(chars / 4)
        tokenizer = "estimated at 4 characters per token"
    prompt = completion = 0
    if extractor is not None:
        prompt, completion = index.extraction_tokens(extraction_key(extractor), passages)
    spent = prompt + completion
    return {
        "corpus_passages": len(passages),
        "corpus_tokens": corpus_tokens,
        "corpus_tokenizer": tokenizer,
        "extraction_prompt_tokens": prompt,
        "extraction_completion_tokens": completion,
        "extraction_tokens_per_1k_corpus_tokens": (
            round(1000 * spent / corpus_tokens, 1) if corpus_tokens else 0.0
        ),
    }


def copy_to_database(config: RunConfig, index_path: Path) -> None:
    """Copy the index built in `index_path` into the run's database, unless a rerun did already.

    The systems then read the same index through PostgreSQL's reads (`resin.indexes.pg_reads`).
    """
    from resin.indexes.pg_migrate import migrate_to
    from resin.indexes.pg_schema import has_index

    assert config.database
    if not has_index(config.database):
        source = open_index(index_path, config.embedder)
        migrate_to(source, config.database, config.chroma_host, config.chroma_port)
        close_indexes()


# --- the run ------------------------------------------------------------------------------------


def run_eval(config: RunConfig) -> dict[str, Any]:
    """Run (or resume) an evaluation; returns the report also written to results.json."""
    unknown = [s for s in config.systems if s not in SYSTEMS]
    if unknown:
        raise ValueError(f"unknown system(s): {', '.join(unknown)}")
    if config.extract not in EXTRACT_CHOICES:
        raise ValueError(f"--extract is one of {', '.join(EXTRACT_CHOICES)}")
    out = Path(config.out)
    data = load_dataset(
        config.data, config.limit, config.seed, config.subset, config.corpus, config.drop_gold
    )
    passage_chars = config.passage_chars or data.passage_chars
    check_run(out, fingerprint(config, data, passage_chars))
    index_path = Path(config.index) if config.index else out / "index"
    _log(config, f"{data.name}: {len(data.questions)} questions, {len(data.documents)} documents")
    report_build, build = build_index(config, data, index_path, passage_chars)
    build["build_seconds"] = round(report_build.seconds, 1)
    build["build_model_calls"] = report_build.model_calls
    build["failed_passages"] = len(report_build.failed_passages)
    corpus = corpus_maps(data, passage_chars)
    close_indexes()  # the agent must see the index as just built
    if config.database:
        copy_to_database(config, index_path)
    context = Context.one_model(
        config.model,
        plan_model=config.plan_model,
        embedder=config.embedder,
        index_path=str(index_path),
        # the index just built in index_path, whatever RESIN_CHROMA_HOST says, or its copy
        chroma_host=config.chroma_host if config.database else "",
        chroma_port=config.chroma_port,
        database=config.database or "",
        k_per_hop=config.k,
        answer_mode=config.answer_mode,
    )
    env = Env(
        index=get_index(context), context=context, model=make_chat_model(config.model), k=config.k
    )
    concurrency = config.concurrency or default_concurrency(config.model)
    for name in config.systems:
        run_system(name, env, data, corpus, out, config.progress, concurrency)
    ids = {q.id for q in data.questions}
    rows_of = {  # every system with results in this folder, canonical order
        name: rows for name in SYSTEMS if (rows := load_rows(out, name, ids))
    }
    systems = {
        name: aggregate(rows, SYSTEMS[name].uses_units, build) for name, rows in rows_of.items()
    }
    report = {
        "run": asdict(config),
        "dataset": {
            "name": data.name,
            "path": data.path,
            "format": data.format,
            "questions": len(data.questions),
            "documents": len(data.documents),
            "notes": data.notes,
        },
        "passage_chars": passage_chars,
        "index": str(index_path),
        "build": build,
        "systems": systems,
        "paired": paired(rows_of, build),
    }
    (out / "results.json").write_text(json.dumps(report, indent=2, default=str), encoding="utf-8")
    (out / "summary.md").write_text(summary_markdown(report, data), encoding="utf-8")
    try:
        plot(report, data, out / "plot.png")
    except ValueError as exc:
        print(f"warning: no plot.png: {exc}", file=sys.stderr)
    close_indexes()
    return report
