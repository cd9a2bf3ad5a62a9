"""The `resin` command: index documents, inspect the index, ask questions, run evaluations.

The one CLI module, above every package: it imports the agent, the index and evals, and none of
them imports it. `resin eval` and `resin doctor` are registered from evals/ (`evals.cli.register`,
`evals.doctor.register`).
"""

from __future__ import annotations

import argparse
import errno
import json
import os
import sqlite3
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from agent import SAMPLE_DIR
from indexes.documents import DEFAULT_PASSAGE_CHARS
from indexes.graph import DEFAULT_MERGE_THRESHOLD

# Offline by default: no telemetry, no hub look-ups.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")
os.environ.setdefault("LANGSMITH_TRACING", "false")


def _add_index_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--index", type=Path, default=Path(".resin"), help="index folder (default .resin)"
    )
    parser.add_argument("--embedder", default="minilm", help="sentence-transformers name or path")
    parser.add_argument("--chroma-host", default=None, help="use the Chroma server at this host")
    parser.add_argument("--chroma-port", type=int, default=8000, help="Chroma server port")


def _add_passage_chars_arg(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--passage-chars",
        type=int,
        default=DEFAULT_PASSAGE_CHARS,
        help=f"max characters per passage (default {DEFAULT_PASSAGE_CHARS})",
    )


def _add_merge_threshold_arg(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--merge-threshold",
        type=float,
        default=DEFAULT_MERGE_THRESHOLD,
        help="embedding cosine at which two entity names merge into one graph node "
        f"(default {DEFAULT_MERGE_THRESHOLD})",
    )


def index_of(
    args: argparse.Namespace, create: bool = False, migrate: bool = False, **overrides: Any
) -> Any:
    """Open the index the arguments name (the embedder is loaded once per process).

    Only `resin index` creates one (`create`): a mistyped --index elsewhere is an error.
    """
    from indexes.index import open_index

    return open_index(
        args.index,
        args.embedder,
        create=create,
        migrate=migrate,
        chroma_host=args.chroma_host,
        chroma_port=args.chroma_port,
        **overrides,
    )


def _progress_bar(desc: str) -> Any:
    """A tqdm bar (passages and passages/s) driven by the builder's (done, total, report) callback."""
    import time

    from tqdm import tqdm

    bar: dict[str, Any] = {}

    def update(done: int, total: int, report: Any) -> None:
        if "bar" not in bar:
            bar["bar"] = tqdm(total=total, desc=desc, unit="passage", file=sys.stderr)
            bar["started"] = time.monotonic()
        b = bar["bar"]
        b.update(done - b.n)
        share = report.grounded_share
        tokens = report.prompt_tokens + report.completion_tokens
        b.set_postfix(
            units=report.units,
            grounded=f"{100 * share:.0f}%" if share is not None else "-",
            tokens=tokens,
            tok_s=round(tokens / max(time.monotonic() - bar["started"], 1e-3)),
            in_flight=report.in_flight,
            refresh=False,
        )
        if done >= total:
            b.close()

    return update


def cmd_index(args: argparse.Namespace) -> int:
    """Add, replace or delete documents."""
    from agent.llm import default_concurrency, make_chat_model
    from indexes.build import Builder, extractors
    from indexes.documents import load_documents

    index = index_of(
        args,
        create=True,
        migrate=getattr(args, "migrate", False),
        passage_chars=args.passage_chars,
        merge_threshold=args.merge_threshold,
    )
    status = 0
    try:
        if getattr(args, "migrate", False):
            print(f"index {args.index} uses collections {index.manifest['collection_prefix']}*")
            if not args.paths and not args.delete:
                return 0
        if args.delete:
            builder = Builder(index, None)
            for doc_id in args.delete:
                if builder.delete(doc_id):
                    print(f"deleted {doc_id}")
                else:
                    print(f"error: no document with id {doc_id!r} in {args.index}", file=sys.stderr)
                    status = 1
            if not args.paths:
                return status
        if not args.paths:
            print("error: give files or folders to index (or --delete DOC_ID)", file=sys.stderr)
            return 2
        documents, errors = load_documents(args.paths)
        for error in errors:
            kind = "skipped" if error.reason == "unsupported type" else "error"
            print(f"{kind}: {error}", file=sys.stderr)
        not_indexed = Counter(e.reason for e in errors)
        model, nlp = extractors(args.extract, lambda: make_chat_model(args.model))
        concurrency = getattr(args, "concurrency", None) or default_concurrency(args.model)
        report = Builder(index, model, nlp=nlp, concurrency=concurrency).run(
            documents, progress=_progress_bar("indexing")
        )
        for problem in report.errors[:20]:
            print(f"warning: {problem}", file=sys.stderr)
        share = report.grounded_share
        print(
            f"{report.documents_indexed} documents indexed, {report.documents_skipped} unchanged, "
            f"{len(errors)} files not indexed"
            f"{' (' + ', '.join(f'{n} {r}' for r, n in not_indexed.most_common()) + ')' if errors else ''}"
            f"; {report.passages} passages, {report.units} units "
            f"({'-' if share is None else f'{100 * share:.0f}%'} of proposed grounded), "
            f"{report.parsed} passages parsed ({report.parse_cache_hits} cached), "
            f"{report.model_calls} model calls ({report.cache_hits} cached), "
            f"{report.prompt_tokens + report.completion_tokens} tokens, {report.seconds:.1f}s"
        )
        if report.skipped:
            reasons = ", ".join(f"{n} {why}" for why, n in sorted(report.skipped.items()))
            print(f"passages without units (the parser could not read them): {reasons}")
        if report.failed_passages:
            print(
                f"{len(report.failed_passages)} passages failed extraction; run again to retry them",
                file=sys.stderr,
            )
        # A file of a type resin does not read is named and counted, but is no failure.
        failed = len(errors) - not_indexed["unsupported type"]
        return 1 if failed or report.failed_passages else status
    finally:
        index.close()


def cmd_stats(args: argparse.Namespace) -> int:
    """Print what the index holds."""
    index = index_of(args)
    try:
        figures = index.stats()
    finally:
        index.close()
    if args.json:
        print(json.dumps(figures, indent=2))
        return 0
    share = figures["grounded_share"]
    print(f"index            {args.index}")
    print(f"documents        {figures['documents']} ({figures['incomplete_documents']} incomplete)")
    print(f"passages         {figures['passages']}")
    print(f"units            {figures['units']}")
    for kind, count in sorted(figures["units_by_kind"].items()):
        print(f"  {kind:<15}{count}")
    print(
        f"grounded share   {'-' if share is None else f'{100 * share:.1f}%'} "
        f"({figures['ungrounded_units']} ungrounded, {figures['invalid_units']} invalid dropped)"
    )
    print(f"graph            {figures['graph_nodes']} nodes, {figures['graph_edges']} edges")
    print(
        f"model tokens     {figures['prompt_tokens']} prompt + {figures['completion_tokens']} completion"
    )
    print(f"embedder         {figures['embedder']}")
    print(f"extraction       {', '.join(figures['extraction_models']) or 'none (structural only)'}")
    print("document ids (for --delete)")
    for doc in figures["document_ids"]:
        print(f"  {doc['id']:<30} {doc['title']}{'' if doc['complete'] else '  (incomplete)'}")
    return 0


def _context(args: argparse.Namespace) -> Any:
    from agent.context import Context

    model = args.model or "embedded"
    return Context(
        plan_model=args.plan_model or "auto",
        hop_model=args.hop_model or model,
        compose_model=args.compose_model or model,
        embedder=args.embedder,
        index_path=str(args.index),
        chroma_host=args.chroma_host or "",
        chroma_port=args.chroma_port,
        k_per_hop=args.k,
        answer_mode=args.answer_mode,
    )


def stream_answer(
    graph: Any,
    inputs: dict[str, Any],
    ctx: Any,
    config: dict[str, Any] | None = None,
    show_progress: bool = True,
    out: Any = None,
) -> dict[str, Any]:
    """Stream a run: the answer message to `out` (stdout), progress to stderr.

    Warnings (a failing plan model) go to stderr even when progress is not shown. Returns the final
    state with `timings`: seconds per stage, to the first answer token and in all.
    """
    from agent.trace import StageClock

    out = out or sys.stdout
    final: dict[str, Any] = {}
    hops = 0
    clock = StageClock()
    for mode, payload in graph.stream(
        inputs, config=config, context=ctx, stream_mode=["messages", "custom", "updates", "values"]
    ):
        clock.part(mode, payload)
        if mode == "messages":
            chunk, meta = payload
            if meta.get("langgraph_node") == "compose" and chunk.content:
                print(chunk.content, end="", file=out, flush=True)
        elif mode == "custom":
            event = payload.get("event")
            # a structural plan grows while it runs: the count said is the count so far
            hops = len(payload["hops"]) if event == "plan" else hops + payload.get("added", 0)
            if event == "warning":
                print(f"warning: {payload['message']}", file=sys.stderr, flush=True)
            elif show_progress:
                print(_progress_line(payload, hops), file=sys.stderr, flush=True)
            elif event == "plan" and payload.get("asked"):  # how a follow-up was read, in chat
                print(f"(read as: {payload['question']})", file=sys.stderr, flush=True)
        elif mode == "values":
            final = payload
    print(file=out)
    return {**final, "timings": clock.seconds()}


def _progress_line(event: dict[str, Any], hops: int) -> str:
    """One stderr line per progress event; `hops` is the plan's size so far."""
    kind = event.get("event")
    if kind == "plan":
        asked = f" (follow-up read as: {event['question']})" if event.get("asked") else ""
        return f"· plan, {hops} hop(s), {event['seconds']:.2f} s: {event['reason']}{asked}"
    if kind == "hop":
        added = f"; {event['added']} bridge hop(s) added, {hops} in all" if event["added"] else ""
        return (
            f"· hop {event['hop']} {event['status']}: {event['units']} units, "
            f"{event['passages']} passages, {event['chains']} chains, {event['seconds']:.2f} s{added}"
        )
    if kind == "composing":
        return f"· answering from {event['evidence']} pieces of evidence"
    if kind == "answer":
        notes = "; ".join(event.get("notes") or [])
        model = event.get("model_seconds")
        took = f"{event['seconds']:.2f} s" + (f", model {model:.2f} s" if model is not None else "")
        return f"· answer ({event['mode']}, {len(event['candidates'])} candidates, {took})" + (
            f": {notes}" if notes else ""
        )
    return f"· {event}"


def cmd_ask(args: argparse.Namespace) -> int:
    """Answer one question, streaming, then print the trace."""
    from agent.graph import graph
    from agent.resources import get_index
    from agent.trace import dumps, render_trace, write_chains

    ctx = _context(args)
    index = get_index(ctx)
    if index.catalog.counts()["passages"] == 0:
        print(
            f"error: the index at {args.index} is empty; run `resin index PATH` first",
            file=sys.stderr,
        )
        return 2
    # --json prints one JSON document on stdout: the streamed message goes to stderr then.
    state = stream_answer(
        graph,
        {"question": args.question},
        ctx,
        show_progress=not args.json,
        out=sys.stderr if args.json else None,
    )
    if args.chains:
        write_chains(state.get("chains") or [], args.chains)
        print(f"chains written to {args.chains}", file=sys.stderr)
    print(dumps(state) if args.json else render_trace(state, index))
    return 0


def cmd_chat(args: argparse.Namespace) -> int:
    """A conversation kept across runs in a SQLite checkpoint (one thread per --thread)."""
    import sqlite3

    from langchain_core.messages import HumanMessage
    from langgraph.checkpoint.sqlite import SqliteSaver

    from agent.graph import builder
    from agent.resources import get_index
    from agent.state import checkpoint_serializer

    ctx = _context(args)
    get_index(ctx)  # no index, no conversation: and no chat.sqlite left in a mistyped folder
    saver = SqliteSaver(
        sqlite3.connect(args.index / "chat.sqlite", check_same_thread=False),
        serde=checkpoint_serializer(),
    )
    chat_graph = builder.compile(checkpointer=saver)
    config: Any = {"configurable": {"thread_id": args.thread}}
    print(f"resin chat · thread {args.thread} · empty line or Ctrl-D to quit", file=sys.stderr)
    earlier = chat_graph.get_state(config).values.get("messages") or []
    if earlier:
        print(last_turns(earlier), file=sys.stderr)
    while True:
        try:
            question = input("you> ").strip()
        except EOFError:
            break
        if not question:
            break
        print("resin> ", end="", flush=True)
        stream_answer(
            chat_graph, {"messages": [HumanMessage(question)]}, ctx, config, show_progress=False
        )
    return 0


def last_turns(messages: list[Any], turns: int = 3) -> str:
    """A resumed thread's last turns: each question and the first line of its answer."""
    from agent.nodes.common import first_line

    lines = [
        f"{'you' if m.type == 'human' else 'resin'}> {first_line(m.content)}" for m in messages
    ]
    shown = lines[-2 * turns :]
    skipped = len(lines) - len(shown)
    return "\n".join([f"({skipped} earlier messages)"] * bool(skipped) + shown)


def cmd_demo(args: argparse.Namespace) -> int:
    """Index the bundled sample corpus and answer its sample questions, offline."""
    args.paths, args.delete = [str(SAMPLE_DIR / "docs")], None
    status = cmd_index(args)
    if status not in (0, 1):
        return status
    from agent.graph import graph

    ctx = _context(args)
    questions = [
        json.loads(line)
        for line in (SAMPLE_DIR / "questions.jsonl").read_text().splitlines()
        if line.strip()
    ]
    for item in questions[: args.questions]:
        print(f"\nQ: {item['question']}")
        print("A: ", end="", flush=True)
        state = stream_answer(graph, {"question": item["question"]}, ctx, show_progress=False)
        print(f"   expected: {' / '.join(item['answers'])}")
        print(
            f"   plan: {len(state.get('plan') or [])} hop(s) ({state.get('plan_source')}); "
            f"evidence: {len(state.get('evidence') or [])}"
        )
    return 0


def _add_model_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--model", default=None, help="model spec for every step (default: embedded)"
    )
    parser.add_argument(
        "--plan-model",
        default=None,
        help="model spec for planning, none (structural), or auto (default: see README)",
    )
    parser.add_argument("--hop-model", default=None, help="model spec for hop bridge answers")
    parser.add_argument("--compose-model", default=None, help="model spec for the final answer")
    parser.add_argument(
        "--answer-mode",
        choices=["auto", "ranked", "choices", "free"],
        default="auto",
        help="ranked: the best-ranked candidate in the passages; choices: the model picks one; "
        "free: the model writes it (auto: ranked for embedded, free for openai:, else choices)",
    )
    parser.add_argument("--k", type=int, default=5, help="units and passages per hop")


def _add_extract_arg(parser: argparse.ArgumentParser) -> None:
    from indexes.build import EXTRACT_CHOICES

    parser.add_argument(
        "--extract",
        choices=EXTRACT_CHOICES,
        default="nlp",
        help="units from the spaCy parse (nlp, default: no model calls), from --model (model), "
        "both merged (nlp+model), or none (structural index only)",
    )


def build_parser() -> argparse.ArgumentParser:
    """The argument parser for every subcommand."""
    from evals.cli import add_concurrency_arg

    parser = argparse.ArgumentParser(
        prog="resin",
        description=(__doc__ or "").split("\n\n")[0],
    )
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser(
        "index", help="index files and folders of .txt, .md, .jsonl, .pdf, .html and .docx"
    )
    p.add_argument("paths", nargs="*", help="files or folders")
    _add_index_args(p)
    p.add_argument(
        "--model", default=None, help="extraction model spec (default: embedded SmolLM2)"
    )
    _add_extract_arg(p)
    _add_passage_chars_arg(p)
    p.add_argument("--delete", action="append", metavar="DOC_ID", help="remove a document")
    p.add_argument(
        "--migrate",
        action="store_true",
        help="move an index built before per-index collections into its own on a Chroma server",
    )
    add_concurrency_arg(p)
    _add_merge_threshold_arg(p)
    p.set_defaults(func=cmd_index)

    p = sub.add_parser("stats", help="show what the index holds")
    _add_index_args(p)
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=cmd_stats)

    p = sub.add_parser("ask", help="answer a question, streaming, then print its trace")
    p.add_argument("question")
    _add_index_args(p)
    _add_model_args(p)
    p.add_argument("--json", action="store_true", help="print the output state as JSON")
    p.add_argument(
        "--chains", type=Path, help="write the chains used (.png/.svg picture or .mmd Mermaid)"
    )
    p.set_defaults(func=cmd_ask)

    p = sub.add_parser("chat", help="a conversation kept across runs (SQLite checkpoints)")
    _add_index_args(p)
    _add_model_args(p)
    p.add_argument("--thread", default="default", help="conversation id")
    p.set_defaults(func=cmd_chat)

    p = sub.add_parser("demo", help="index the bundled sample corpus and answer its questions")
    _add_index_args(p)
    _add_model_args(p)
    _add_passage_chars_arg(p)
    _add_merge_threshold_arg(p)
    _add_extract_arg(p)
    p.add_argument("--questions", type=int, default=3, help="how many sample questions to answer")
    p.set_defaults(func=cmd_demo)

    from evals.cli import register as register_eval
    from evals.doctor import register as register_doctor

    register_eval(sub)
    register_doctor(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the `resin` console script."""
    from agent.llm import ModelBackendError
    from indexes.documents import DocumentError
    from indexes.index import IndexMismatchError, IndexNotFoundError
    from indexes.nlp_extraction import NlpUnavailableError
    from indexes.stores import StoreError, StoreMissingError, store_failure

    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args))
    except (
        IndexMismatchError,
        IndexNotFoundError,
        StoreError,
        StoreMissingError,
        DocumentError,
        ModelBackendError,
        NlpUnavailableError,
        ValueError,
    ) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except (sqlite3.OperationalError, OSError) as exc:
        # the catalog locked or the disk full under the index folder: one line, not a traceback
        if isinstance(exc, OSError) and exc.errno != errno.ENOSPC:
            raise
        where = f"index {getattr(args, 'index', '')}"
        print(f"error: {store_failure(where, exc)}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
