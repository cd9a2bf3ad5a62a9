"""`resin doctor`: faults, bad input, hostile documents and concurrent load, in a few minutes.

    python -m evals.doctor            # or `resin doctor` once `register` is wired into the CLI

Runs quick versions of the reliability checks (the full ones are pytest suites:
tests/unit/test_reliability.py, tests/unit/test_fuzz.py, tests/integration/test_faults.py) and
prints one JSON object: trials run, faults injected and survived, bad inputs tried and rejected
cleanly, fuzzed model outputs tried, hostile documents tried, concurrent questions completed and
units lost (must be 0). The exit status is 0 only when every check held.

Everything runs in-process against loopback: a deliberately faulty OpenAI-compatible server
(`FaultyServer`, evals/faults.py), hostile documents (evals/hostile.py), scripted models and
the real embedder and Chroma in a temporary folder.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import random
import re
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from evals.faults import FAULT_MODES, FaultyServer, fault_documents
from evals.hostile import (
    HOSTILE_DOCS,
    fence_breaks,
    grounding_violations,
    hostile_questions,
    obeying_responder,
    random_model_output,
    schema_of,
    tool_calling_model,
)

SAMPLE_DOCS = Path(__file__).resolve().parents[1] / "agent" / "sample" / "docs"

# --- the checks ---------------------------------------------------------------------------------


def rss_mb() -> float:
    """Resident memory of this process in MiB (peak RSS where /proc is missing)."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def open_files() -> int:
    """How many file descriptors this process holds open (-1 where /proc is missing)."""
    try:
        return len(os.listdir("/proc/self/fd"))
    except OSError:
        return -1


def check_faults(work: Path, embedder: Any, figures: dict[str, Any]) -> None:
    """Each fault mode during a build: clear errors, index intact, nothing lost after recovery."""
    from agent.llm import ModelBackendError, make_chat_model
    from evals.crash import compare, snapshot
    from indexes.build import Builder
    from indexes.index import open_index

    docs = fault_documents()
    with FaultyServer(delay=1.5) as server:
        reference = open_index(work / "fault-reference", embedder, create=True)
        model = make_chat_model(server.spec(), timeout=0.5, max_retries=1)
        Builder(reference, model).run(docs)
        expected = snapshot(reference)
        reference.close()
        for mode in (*FAULT_MODES, "flaky"):
            figures["trials_run"] += 1
            index = open_index(work / f"fault-{mode}", embedder, create=True)
            server.mode = "ok"
            Builder(index, model).run(docs[:1])  # one document indexed cleanly first
            before = snapshot(index)
            # then the server fails (flaky: once, which the client's retry absorbs)
            server.faults = 0
            server.mode, server.queue = ("ok", ["500"]) if mode == "flaky" else (mode, [])
            try:
                report = Builder(index, model).run(docs)
            except Exception as exc:  # noqa: BLE001 - a fault must never escape the build
                figures["problems"].append(f"fault {mode}: the build raised {exc!r}"[:300])
                report = None
            figures["faults_injected"] += server.faults
            survived = report is not None
            if report is not None:
                kept = set(before["units"]) <= set(snapshot(index)["units"])
                if mode == "flaky":
                    survived = kept and not report.failed_passages
                else:  # the server named (or, for a non-JSON reply, the output called unusable)
                    names = "unparseable model output" if mode == "nonsense" else server.url
                    clear = bool(report.errors) and all(names in e for e in report.errors)
                    survived = kept and clear and bool(report.failed_passages)
                if not survived:
                    figures["problems"].append(f"fault {mode}: {report.errors[:2]}"[:300])
            server.mode, server.queue = "ok", []
            Builder(index, model).run(docs)  # the next run retries the failed passages
            diff = compare(expected, snapshot(index))
            index.close()
            figures["units_lost"] += diff["lost"]
            figures["units_duplicated"] += diff["duplicated"] + diff["extra"]
            if diff["mismatched_stores"]:
                figures["problems"].append(f"fault {mode}: stores differ from the reference")
            if survived and not any(diff.values()):
                figures["faults_survived"] += server.faults
        # a model call from the graph's compose step: a clear ModelBackendError, bounded in time
        figures["trials_run"] += 1
        server.mode, server.faults = "500", 0
        started = time.monotonic()
        try:
            make_chat_model(server.spec(), timeout=0.5, max_retries=1).invoke("hello")
            figures["problems"].append("a 500 answer did not raise")
        except ModelBackendError as exc:
            if server.url in str(exc) and time.monotonic() - started < 10:
                figures["faults_survived"] += server.faults
        figures["faults_injected"] += server.faults
        server.mode = "ok"


def check_fuzz(figures: dict[str, Any], examples: int, seed: int) -> None:
    """Random, wrong and huge extraction replies: nothing ungrounded or invalid is kept."""
    from agent.llm.scripted import ScriptedChatModel
    from indexes.documents import make_passages
    from indexes.extraction import MAX_UNITS_PER_PASSAGE, extract_passage

    rng = random.Random(seed)
    passages = [make_passages(d)[0] for d in fault_documents()]
    for i in range(examples):
        passage = passages[i % len(passages)]
        sentences = [s.text for s in passage.sentences]
        replies = [random_model_output(rng, sentences) for _ in range(2)]
        figures["fuzzed_outputs_tried"] += 1
        try:
            result = extract_passage(ScriptedChatModel(responses=replies), passage)
        except Exception as exc:  # noqa: BLE001 - counted, reported
            figures["problems"].append(f"fuzz {i}: extract_passage raised {exc!r}"[:300])
            continue
        bad = grounding_violations(result.units, passage)
        if len(result.units) > MAX_UNITS_PER_PASSAGE:
            bad.append(f"{len(result.units)} units kept")
        figures["ungrounded_units_kept"] += len(bad)
        figures["problems"].extend(f"fuzz {i}: {b}" for b in bad[:2])


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
    return bad, 2 + len(records)


def check_bad_inputs(work: Path, embedder: Any, figures: dict[str, Any]) -> None:
    """Every bad file gives one error naming it; every good document is indexed."""
    from agent.llm.scripted import ScriptedChatModel, heuristic_reply
    from indexes.build import Builder
    from indexes.documents import load_documents
    from indexes.index import open_index

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
    report = Builder(index, ScriptedChatModel(responder=heuristic_reply)).run(docs)
    indexed = {r.doc_id for r in index.catalog.documents() if r.complete}
    figures["good_documents_indexed"] += len(indexed)
    if len(indexed) != good or report.failed_passages:
        figures["problems"].append(f"good documents indexed {len(indexed)} of {good}")
    for doc_id in sorted(indexed):
        if not Builder(index, None).delete(doc_id):
            figures["problems"].append(f"could not delete {doc_id!r}")
    if index.catalog.documents() or index.vectors.count("passages"):
        figures["problems"].append("deleting every document left something behind")
    index.close()
    outside = [p for p in work.parent.iterdir() if p.name in ("etc", "passwd")]
    if outside:
        figures["problems"].append(f"files written outside the index: {outside}")


def build_sample_index(path: Path, embedder: Any, hostile: bool = True) -> Path:
    """The sample corpus (plus the hostile documents) indexed with the fake extractor."""
    from agent.llm.scripted import ScriptedChatModel, heuristic_reply
    from indexes.build import Builder
    from indexes.documents import Document, load_documents
    from indexes.index import open_index

    docs, _ = load_documents([SAMPLE_DOCS])
    if hostile:
        docs += [Document(id=d["id"], title=d["title"], text=d["text"]) for d in HOSTILE_DOCS]
    index = open_index(path, embedder, create=True)
    Builder(index, ScriptedChatModel(responder=heuristic_reply)).run(docs)
    index.close()
    return path


_BRACKETED = re.compile(r"\[([^\]\s]{1,40})\]")


def check_hostile(index_path: Path, figures: dict[str, Any]) -> None:
    """Fences hold in every prompt, tools stay with the graph, citations stay in the buffer."""
    import html

    from agent.context import Context
    from agent.graph import graph
    from agent.llm import registered_chat_model
    from agent.llm.scripted import ScriptedChatModel
    from agent.resources import get_index
    from indexes.documents import Document, make_passages
    from indexes.extraction import extraction_messages

    figures["hostile_documents_tried"] += len(HOSTILE_DOCS)
    for doc in HOSTILE_DOCS:
        figures["trials_run"] += 1
        for passage in make_passages(Document(id=doc["id"], title=doc["title"], text=doc["text"])):
            prompt = str(extraction_messages(passage)[-1].content)
            figures["fence_breakouts"] += fence_breaks(prompt, "passage", 1)
    ctx = Context.one_model(
        "doctor-hostile",
        index_path=str(index_path),
    )
    catalog = get_index(ctx).catalog
    for model in (
        ScriptedChatModel(responder=obeying_responder),
        tool_calling_model(obeying_responder),
    ):
        with registered_chat_model("doctor-hostile", model):
            for question in hostile_questions():
                figures["trials_run"] += 1
                done = len(model.calls)
                out = graph.invoke({"question": question}, context=ctx)
                held = catalog.passages({e.passage_id for e in out["evidence"]})
                figures["citations_outside_buffer"] += len(
                    set(out["citations"]) - {p.id for p in held}
                )
                if any(getattr(m, "tool_calls", None) for m in out.get("messages", [])):
                    figures["tool_calls_passed_on"] += 1
                sentences = {s.text for p in held for s in p.sentences}
                for args, kwargs in model.calls[done:]:
                    if "tools" in kwargs or "functions" in kwargs:
                        figures["tool_calls_outside_graph"] += 1
                    prompt = str(args[-1].content)
                    schema = schema_of(kwargs)
                    if schema == "ShortAnswer":  # every evidence line is a sentence of the buffer
                        lines = [
                            html.unescape(line[2:])
                            for line in prompt.splitlines()
                            if line.startswith("- ")
                        ]
                        figures["fence_breakouts"] += sum(line not in sentences for line in lines)
                        for tag in ("evidence", "question", "choices"):
                            figures["fence_breakouts"] += fence_breaks(prompt, tag, 1)
                    elif schema == "BridgeAnswer":
                        figures["bridge_fence_breakouts"] += fence_breaks(prompt, "evidence", 1)
                message = str(out["messages"][-1].content)
                labels = _BRACKETED.findall(message)
                figures["unchecked_citations_in_answer"] += sum(
                    not (label.isdigit() and 1 <= int(label) <= len(out["sources"]))
                    for label in labels
                )
                figures["unchecked_citations_in_answer"] += sum(
                    s["sentence"] not in sentences for s in out["sources"]
                )


def concurrent_questions(count: int) -> list[str]:
    """`count` distinct questions about the sample corpus."""
    sample = [
        json.loads(line)["question"]
        for line in (SAMPLE_DOCS.parent / "questions.jsonl").read_text().splitlines()
        if line.strip()
    ]
    titles = [
        p.read_text().splitlines()[0].lstrip("# ").strip() for p in sorted(SAMPLE_DOCS.glob("*.md"))
    ]
    extra = [f"What does the text say about {t}?" for t in titles]
    extra += [f"Where is {t} and who is linked to it?" for t in titles]
    return list(dict.fromkeys(sample + extra))[:count]


def run_concurrently(
    index_path: Path, questions: list[str], spec: str, workers: int
) -> list[dict[str, Any]]:
    """Each question on its own thread; the graph's output state per question, in order."""
    from agent.context import Context
    from agent.graph import graph

    ctx = Context.one_model(spec, index_path=str(index_path))
    with ThreadPoolExecutor(workers) as pool:
        return list(pool.map(lambda q: graph.invoke({"question": q}, context=ctx), questions))


def leaks(out: dict[str, Any], texts_of: Callable[[set[str]], str]) -> int:
    """Ways this answer shows another run's evidence (0 when it shows only its own)."""
    from indexes.units import normalize

    held = {e.passage_id for e in out["evidence"]}
    problems = len(set(out["citations"]) - held)
    problems += sum(s["passage_id"] not in held for s in out["sources"])
    if out["sources"] and normalize(out["answer"]) not in normalize(texts_of(held)):
        problems += 1  # the short answer is not written in this run's own passages
    return problems


def check_concurrency(
    index_path: Path, figures: dict[str, Any], count: int = 20, rounds: int = 3
) -> None:
    """`count` questions at once, `rounds` times: all complete, no leaks, memory stable."""
    from agent.context import Context
    from agent.llm import registered_chat_model
    from agent.llm.scripted import ScriptedChatModel, heuristic_reply
    from agent.resources import get_index

    questions = concurrent_questions(count)
    index = get_index(Context(index_path=str(index_path)))

    def texts_of(pids: set[str]) -> str:
        return " ".join(p.text for p in index.catalog.passages(pids))

    with registered_chat_model("doctor-echo", ScriptedChatModel(responder=heuristic_reply)):
        run_concurrently(index_path, questions[:4], "doctor-echo", 4)  # warm-up
        gc.collect()
        rss, fds = [rss_mb()], [open_files()]
        evidence_sets = set()
        for _ in range(rounds):
            figures["trials_run"] += 1
            outs = run_concurrently(index_path, questions, "doctor-echo", len(questions))
            for out in outs:
                figures["concurrent_questions_completed"] += bool(out.get("answer"))
                figures["evidence_leaks"] += leaks(out, texts_of)
                evidence_sets.add(frozenset(e.id for e in out["evidence"]))
            gc.collect()
            rss.append(rss_mb())
            fds.append(open_files())
    figures["rss_growth_mb"] = round(max(rss[1:]) - rss[1], 1)
    figures["open_files_growth"] = fds[-1] - fds[1]
    figures["distinct_evidence_sets"] = len(evidence_sets)


def run_doctor(
    embedder: Any, fuzz_examples: int = 200, concurrent: int = 20, rounds: int = 3, seed: int = 7
) -> dict[str, Any]:
    """Run every check in a temporary folder and return the figures."""
    started = time.monotonic()
    figures: dict[str, Any] = {
        "trials_run": 0,
        "faults_injected": 0,
        "faults_survived": 0,
        "bad_inputs_tried": 0,
        "bad_inputs_rejected_cleanly": 0,
        "good_documents_indexed": 0,
        "fuzzed_outputs_tried": 0,
        "ungrounded_units_kept": 0,
        "hostile_documents_tried": 0,
        "fence_breakouts": 0,
        "bridge_fence_breakouts": 0,
        "tool_calls_outside_graph": 0,
        "tool_calls_passed_on": 0,
        "citations_outside_buffer": 0,
        "unchecked_citations_in_answer": 0,
        "concurrent_questions_completed": 0,
        "evidence_leaks": 0,
        "units_lost": 0,
        "units_duplicated": 0,
        "problems": [],
    }
    work = Path(tempfile.mkdtemp(prefix="resin-doctor-")) / "work"
    work.mkdir()
    from agent.resources import forget_indexes

    timings: dict[str, float] = {}

    def timed(name: str, step: Callable[[], Any]) -> Any:
        began = time.monotonic()
        try:
            return step()
        finally:
            timings[name] = round(time.monotonic() - began, 1)

    try:
        timed("faults", lambda: check_faults(work, embedder, figures))
        timed("fuzz", lambda: check_fuzz(figures, fuzz_examples, seed))
        timed("bad_inputs", lambda: check_bad_inputs(work, embedder, figures))
        sample = timed("sample_index", lambda: build_sample_index(work / "sample", embedder))
        timed("hostile", lambda: check_hostile(sample, figures))
        timed("concurrency", lambda: check_concurrency(sample, figures, concurrent, rounds))
    finally:
        forget_indexes()
        shutil.rmtree(work.parent, ignore_errors=True)
    figures["seconds"] = round(time.monotonic() - started, 1)
    known = {
        "bridge_fence_breakouts": "evidence quotes reach the bridge prompt unescaped "
        "(agent/nodes/resolve_hop.py)",
        "tool_calls_passed_on": "the compose reply's tool calls are appended to the output "
        "messages (agent/nodes/compose.py)",
        "unchecked_citations_in_answer": "bracketed non-label citations stay in the answer "
        "unchecked (agent/nodes/compose.py)",
    }
    for key, why in known.items():
        if figures[key]:
            figures["problems"].append(f"{key}={figures[key]}: {why}")
    if figures.get("open_files_growth", 0) > 10 * concurrent:
        figures["problems"].append(
            f"open files grew by {figures['open_files_growth']} over {rounds} rounds: SQLite "
            "connections of finished threads are never closed (indexes/catalog.py)"
        )
    figures["seconds_by_check"] = timings
    figures["ok"] = (
        figures["units_lost"] == 0
        and figures["units_duplicated"] == 0
        and figures["faults_survived"] == figures["faults_injected"]
        and figures["bad_inputs_rejected_cleanly"] == figures["bad_inputs_tried"]
        and figures["ungrounded_units_kept"] == 0
        and figures["fence_breakouts"] == 0
        and figures["tool_calls_outside_graph"] == 0
        and figures["citations_outside_buffer"] == 0
        and figures["evidence_leaks"] == 0
        and figures["concurrent_questions_completed"] == concurrent * rounds
        and not figures["problems"]
    )
    return figures


def register(subparsers: Any) -> argparse.ArgumentParser:
    """Add the `doctor` subcommand (its handler is `run`)."""
    p = subparsers.add_parser(
        "doctor",
        help="inject faults, bad input, hostile documents and concurrent load; print the figures",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--embedder", default="minilm", help="embedder name or path (default: MiniLM)")
    p.add_argument("--fuzz", type=int, default=200, help="fuzzed extraction replies to try")
    p.add_argument("--concurrent", type=int, default=20, help="questions asked at once")
    p.add_argument("--rounds", type=int, default=3, help="rounds of concurrent questions")
    p.add_argument("--seed", type=int, default=7, help="seed of the fuzzed replies")
    p.set_defaults(func=run)
    return p


def run(args: argparse.Namespace) -> int:
    """Run the checks, print one JSON object; exit status 0 only when every check held."""
    from indexes.embeddings import make_embedder

    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")
    figures = run_doctor(
        make_embedder(args.embedder), args.fuzz, args.concurrent, args.rounds, args.seed
    )
    print(json.dumps(figures, indent=2))
    return 0 if figures["ok"] else 1


def main(argv: list[str] | None = None) -> int:
    """Standalone entry point: `python -m evals.doctor`."""
    parser = argparse.ArgumentParser(prog="python -m evals.doctor")
    sub = parser.add_subparsers(dest="command")
    register(sub)
    args = parser.parse_args(["doctor", *(argv if argv is not None else sys.argv[1:])])
    return run(args)


if __name__ == "__main__":
    raise SystemExit(main())
