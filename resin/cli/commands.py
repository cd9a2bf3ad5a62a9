"""The `resin` subcommands that index, inspect and ask: one function per subcommand.

Each takes the parsed arguments and returns the exit status; `resin.cli.build_parser` wires them
to their arguments. Heavy modules (the graph, the builder, the models) are imported inside the
command that needs them, so that parsing the arguments loads none of them.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import Counter
from typing import Any

from resin.agent import SAMPLE_DIR
from resin.cli.render import ProgressBar, last_turns, stream_answer


def index_of(
    args: argparse.Namespace, create: bool = False, migrate: bool = False, **overrides: Any
) -> Any:
    """Open the index the arguments name (the embedder is loaded once per process).

    Only `resin index` creates one (`create`): a mistyped --index elsewhere is an error.
    """
    from resin.indexes.opening import open_index

    return open_index(
        args.index,
        args.embedder,
        create=create,
        migrate=migrate,
        chroma_host=args.chroma_host,
        chroma_port=args.chroma_port,
        database=_database(args),
        **overrides,
    )


def _database(args: argparse.Namespace) -> str | None:
    """The index's PostgreSQL URL: --database, else RESIN_DATABASE_URL, else none (SQLite).

    `resin chat --database` names where its threads go: its index's comes from the environment.
    """
    from resin.cli.checkpoints import DATABASE_ENV

    return getattr(args, "index_database", None) or os.environ.get(DATABASE_ENV) or None


def _built(args: argparse.Namespace) -> bool:
    """Whether an index exists where the arguments say: a folder's manifest, or a database's."""
    from resin.indexes.index_config import IndexConfig, resolve_index_path
    from resin.indexes.opening import index_exists

    database = _database(args)
    if database:
        from resin.indexes.database import check_url

        check_url(database)
    config = IndexConfig(resolve_index_path(args.index), database, args.chroma_host)
    return index_exists(config)


def cmd_index(args: argparse.Namespace) -> int:
    """Add, replace or delete documents."""
    from resin.agent.llm import default_concurrency, make_chat_model
    from resin.indexes.build import Builder
    from resin.indexes.extractors import extractors
    from resin.indexes.locks import IndexBusyError
    from resin.indexes.reading import BAD_LINE, load_documents

    check, repair = getattr(args, "check", False), getattr(args, "repair", False)
    if check and (args.paths or args.delete or repair):
        print(
            "error: --check only reads the index: give no files, --delete or --repair",
            file=sys.stderr,
        )
        return 2
    if check:
        from resin.cli.maintenance import check_index_command

        return check_index_command(index_of(args, checking=True))
    if getattr(args, "migrate_to", None):
        from resin.cli.migration import migrate_index

        return migrate_index(args)
    # Read the files first: paths that give nothing to index must not leave an empty index.
    documents, errors = load_documents(args.paths) if args.paths else ([], [])
    for error in errors:
        kind = "skipped" if error.reason == "unsupported type" else "error"
        print(f"{kind}: {error}", file=sys.stderr)
    if args.paths and not documents and not args.delete and not repair and not _built(args):
        print(f"error: nothing to index in {', '.join(map(str, args.paths))}", file=sys.stderr)
        return 2
    index = index_of(
        args,
        create=not repair,  # a repair needs an index to repair
        checking=repair,
        migrate=getattr(args, "migrate", False),
        passage_chars=args.passage_chars,
        merge_threshold=args.merge_threshold,
    )
    status = 0
    # one builder at a time: wait for another one (and say so), or with --no-wait exit 1
    wait = not getattr(args, "no_wait", False)

    def on_wait(message: str) -> None:
        print(message, file=sys.stderr, flush=True)

    try:
        if getattr(args, "migrate", False):
            print(f"index {args.index} uses collections {index.collections()}")
            if not args.paths and not args.delete:
                return 0
        if repair:
            from resin.cli.maintenance import repair_index_command

            status = repair_index_command(index, wait, on_wait)
            if not args.paths and not args.delete:
                return status
        if args.delete:
            builder = Builder(index, None, wait=wait, on_wait=on_wait)
            for doc_id in args.delete:
                if builder.delete(doc_id):
                    print(f"deleted {doc_id}")
                else:
                    print(f"error: no document with id {doc_id!r} in {args.index}", file=sys.stderr)
                    status = 1
            if not args.paths:
                return status
        if not args.paths:
            print(
                "error: give files or folders to index (or --delete DOC_ID, --check, --repair)",
                file=sys.stderr,
            )
            return 2
        not_indexed = Counter(e.reason for e in errors if e.reason != BAD_LINE)
        bad_lines = len(errors) - not_indexed.total()
        model, nlp = extractors(args.extract, lambda: make_chat_model(args.model))
        concurrency = getattr(args, "concurrency", None) or default_concurrency(args.model)
        progress = ProgressBar("indexing")
        try:
            report = Builder(
                index,
                model,
                nlp=nlp,
                concurrency=concurrency,
                wait=wait,
                on_wait=on_wait,
                as_new=getattr(args, "as_new", False),
            ).run(documents, progress=progress)
        finally:
            progress.close()  # a build cut short: its error goes on a line of its own
        for problem in [*report.errors[:20], *report.warnings]:
            print(f"warning: {problem}", file=sys.stderr)
        share = report.grounded_share
        reasons = ", ".join(f"{n} {r}" for r, n in not_indexed.most_common())
        print(
            f"{report.documents_indexed} documents indexed, {report.documents_skipped} unchanged, "
            f"{not_indexed.total()} files not indexed{f' ({reasons})' if reasons else ''}"
            f"{f', {bad_lines} .jsonl lines not indexed' if bad_lines else ''}"
            f"; {report.passages} passages, {report.units} units "
            f"({'-' if share is None else f'{100 * share:.0f}%'} of proposed grounded), "
            f"{report.parsed} passages parsed ({report.parse_cache_hits} cached), "
            f"{report.model_calls} model calls ({report.cache_hits} cached), "
            f"{report.prompt_tokens + report.completion_tokens} tokens, {report.seconds:.1f}s"
        )
        if report.already_indexed:
            pairs = report.already_indexed
            named = ", ".join(f"{new} as {old}" for new, old in pairs[:10])
            more = f" and {len(pairs) - 10} more" if len(pairs) > 10 else ""
            print(
                f"skipped {len(pairs)} documents already indexed under another id: {named}{more} "
                "(--as-new indexes them again as copies)"
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
    except IndexBusyError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
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
    print(f"index            {index.config.where()}")
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
    from resin.agent.context import Context
    from resin.agent.llm import DEFAULT_CHAT_SPEC, ModelSpec

    for spec in (args.model, args.hop_model, args.compose_model):
        ModelSpec.parse(spec)  # a mistyped spec is named now, not after the index is loaded
    model = args.model or DEFAULT_CHAT_SPEC
    return Context(
        plan_model=args.plan_model or "auto",
        hop_model=args.hop_model or model,
        compose_model=args.compose_model or model,
        embedder=args.embedder,
        index_path=str(args.index),
        chroma_host=args.chroma_host or "",
        chroma_port=args.chroma_port,
        database=_database(args) or "",
        k_per_hop=args.k,
        answer_mode=args.answer_mode,
        public_url="",  # a terminal shows no markdown: citations stay plain [n]
    )


def cmd_ask(args: argparse.Namespace) -> int:
    """Answer one question, streaming: the answer, its cited sentences, its sources.

    With --trace, progress lines on stderr while it runs and the trace after the answer.
    """
    from resin.agent.graph import graph
    from resin.agent.resources import get_index
    from resin.agent.trace import PICTURE_SUFFIXES, dumps, pyplot, render_trace, write_chains

    if args.chains and not args.chains.parent.is_dir():
        print(
            f"error: --chains {args.chains}: folder {args.chains.parent} does not exist",
            file=sys.stderr,
        )
        return 2
    if args.chains and args.chains.suffix.lower() in PICTURE_SUFFIXES:
        pyplot()  # no extra, no picture: refused before answering
    ctx = _context(args)
    index = get_index(ctx)
    if index.stats()["passages"] == 0:
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
        show_progress=args.trace and not args.json,
        out=sys.stderr if args.json else None,
    )
    if args.chains:
        write_chains(state.get("chains") or [], args.chains)
        print(f"chains written to {args.chains}", file=sys.stderr)
    if args.json:
        print(dumps(state))
    elif args.trace:
        print(render_trace(state, index))
    return 0


def cmd_chat(args: argparse.Namespace) -> int:
    """A conversation kept across runs, one thread per --thread: in SQLite, or PostgreSQL.

    Each turn's checkpoints are written before the turn ends (durability "sync"), so a process
    killed after an answer loses nothing of it.
    """
    from langchain_core.messages import HumanMessage

    from resin.agent.graph import builder
    from resin.agent.resources import get_index
    from resin.cli.checkpoints import DATABASE_ENV, chat_checkpointer
    from resin.indexes.database import DatabaseError

    ctx = _context(args)
    # no index, no conversation: and no chat.sqlite left in a mistyped folder
    folder = get_index(ctx).config.path
    database = args.database or os.environ.get(DATABASE_ENV)
    config: Any = {"configurable": {"thread_id": args.thread}}
    try:
        with chat_checkpointer(folder, database) as saver:
            chat_graph = builder.compile(checkpointer=saver)
            where = "PostgreSQL" if database else "SQLite"
            print(
                f"resin chat · thread {args.thread} ({where}) · empty line or Ctrl-D to quit",
                file=sys.stderr,
            )
            earlier = chat_graph.get_state(config).values.get("messages") or []
            if earlier:
                print(last_turns(earlier), file=sys.stderr)
            while question := _next_question():
                print("resin> ", end="", flush=True)
                stream_answer(
                    chat_graph,
                    {"messages": [HumanMessage(question)]},
                    ctx,
                    config,
                    show_progress=False,
                    durability="sync",
                )
    except DatabaseError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0


def _next_question() -> str:
    """The next line typed at `you>`, stripped; empty at the end of input."""
    try:
        return input("you> ").strip()
    except EOFError:
        return ""


def cmd_demo(args: argparse.Namespace) -> int:
    """Index the bundled sample corpus and answer its sample questions, offline."""
    args.paths, args.delete = [str(SAMPLE_DIR / "docs")], None
    status = cmd_index(args)
    if status not in (0, 1):
        return status
    from resin.agent.graph import graph

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


def cmd_serve_model(args: argparse.Namespace) -> int:
    """Serve a GGUF over HTTP, the OpenAI way, with parallel slots, until Ctrl-C."""
    import threading

    from resin.agent.llm import gguf_path
    from resin.agent.llm.llama_cpp import llama_slots, serve_gguf

    path = gguf_path(args.model)
    slots = args.slots or llama_slots()
    server = serve_gguf(str(path), args.host, args.port, args.ctx, slots)
    url = f"{server.listening_address}/v1"
    print(f"serving {path.name} at {url} ({slots} slots of {args.ctx} tokens)", flush=True)
    print(f"use it with --model openai:{path.stem}@{url}; Ctrl-C stops", flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        print("stopped", file=sys.stderr)
    return 0
