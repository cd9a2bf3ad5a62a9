"""The `resin` command: index documents, inspect the index, ask questions, run evaluations.

The CLI package, above every package: it imports the agent, the index and evals, and none of
them imports it. Here the parser and `main`; the subcommands in `resin.cli.commands`, what they
print while they run in `resin.cli.render`. `resin eval` and `resin doctor` are registered from
evals/ (`resin.evals.cli.register`, `resin.evals.doctor.register`).
"""

from __future__ import annotations

import argparse
import errno
import logging
import os
import sys
from pathlib import Path

from resin.agent.llm.spec import ANSWER_MODES, DEFAULT_CHAT_SPEC
from resin.cli.checkpoints import DATABASE_ENV
from resin.cli.commands import (
    cmd_ask,
    cmd_chat,
    cmd_demo,
    cmd_index,
    cmd_serve_model,
    cmd_stats,
)
from resin.cli.settings import apply_environment, invalid_setting
from resin.indexes.documents import DEFAULT_PASSAGE_CHARS
from resin.indexes.embeddings import DEFAULT_EMBEDDER_SPEC
from resin.indexes.graph import DEFAULT_MERGE_THRESHOLD

# Offline by default: no telemetry, no hub look-ups.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")
os.environ.setdefault("LANGSMITH_TRACING", "false")


def _add_index_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--index", type=Path, default=Path(".resin"), help="index folder (default .resin)"
    )
    parser.add_argument(
        "--embedder", default=DEFAULT_EMBEDDER_SPEC, help="sentence-transformers name or path"
    )
    parser.add_argument("--chroma-host", default=None, help="use the Chroma server at this host")
    parser.add_argument(
        "--chroma-port", type=int, default=8000, help="Chroma server port (default 8000)"
    )


def _add_database_arg(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--database",
        dest="index_database",
        default=None,
        metavar="URL",
        help="keep the catalog, graph and manifest in PostgreSQL at postgresql://USER@HOST:PORT/DB "
        "for several machines, the vectors on --chroma-host (default: SQLite and JSON in the "
        "--index folder)",
    )


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


def _add_model_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--model", default=None, help=f"model spec for every step (default: {DEFAULT_CHAT_SPEC})"
    )
    parser.add_argument(
        "--plan-model",
        default=None,
        help="model spec for planning, none (structural), or auto (default: see docs/answering.md)",
    )
    parser.add_argument("--hop-model", default=None, help="model spec for hop bridge answers")
    parser.add_argument("--compose-model", default=None, help="model spec for the final answer")
    parser.add_argument(
        "--answer-mode",
        choices=ANSWER_MODES,
        default="auto",
        help="ranked: the best-ranked candidate in the passages; choices: the model picks one; "
        "free: the model writes it (auto: ranked for embedded, free for openai:, else choices)",
    )
    parser.add_argument("--k", type=int, default=5, help="units and passages per hop (default 5)")


def _add_extract_arg(parser: argparse.ArgumentParser) -> None:
    from resin.indexes.extractors import EXTRACT_CHOICES

    parser.add_argument(
        "--extract",
        choices=EXTRACT_CHOICES,
        default="nlp",
        help="units from the spaCy parse (nlp, default: no model calls), from --model (model), "
        "both merged (nlp+model), or none (structural index only)",
    )


def build_parser() -> argparse.ArgumentParser:
    """The argument parser for every subcommand."""
    from resin.evals.cli import add_concurrency_arg

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
    _add_database_arg(p)
    p.add_argument(
        "--model", default=None, help=f"extraction model spec (default: {DEFAULT_CHAT_SPEC})"
    )
    _add_extract_arg(p)
    _add_passage_chars_arg(p)
    p.add_argument("--delete", action="append", metavar="DOC_ID", help="remove a document")
    p.add_argument(
        "--as-new",
        action="store_true",
        help="index documents whose content is already indexed under another id, as copies",
    )
    p.add_argument(
        "--check",
        action="store_true",
        help="check that the catalog, Chroma and the graph agree; exit 1 naming what does not",
    )
    p.add_argument(
        "--repair",
        action="store_true",
        help="make them agree from the sources and the extraction cache (then index any files given)",
    )
    p.add_argument(
        "--no-wait",
        action="store_true",
        help="exit 1 if another builder holds the index, instead of waiting for it",
    )
    p.add_argument(
        "--migrate",
        action="store_true",
        help="move an index built before per-index collections into its own on a Chroma server",
    )
    p.add_argument(
        "--migrate-to",
        metavar="URL",
        default=None,
        help="copy the --index folder's index and its vectors to PostgreSQL at postgresql://… "
        "and the --chroma-host server; prints how many records of each kind it copied",
    )
    add_concurrency_arg(p)
    _add_merge_threshold_arg(p)
    p.set_defaults(func=cmd_index)

    p = sub.add_parser("stats", help="show what the index holds")
    _add_index_args(p)
    _add_database_arg(p)
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=cmd_stats)

    p = sub.add_parser("ask", help="answer a question: the answer, its sentences and sources")
    p.add_argument("question")
    _add_index_args(p)
    _add_database_arg(p)
    _add_model_args(p)
    p.add_argument(
        "--trace",
        "-v",
        action="store_true",
        help="also show progress on stderr and print the trace: plan, evidence, chains, time",
    )
    p.add_argument("--json", action="store_true", help="print the output state as JSON")
    p.add_argument(
        "--chains", type=Path, help="write the chains used (.png/.svg picture or .mmd Mermaid)"
    )
    p.set_defaults(func=cmd_ask)

    p = sub.add_parser(
        "chat", help="a conversation kept across runs (SQLite checkpoints, or PostgreSQL)"
    )
    _add_index_args(p)
    _add_model_args(p)
    p.add_argument("--thread", default="default", help="conversation id (default: default)")
    p.add_argument(
        "--database",
        default=None,
        metavar="URL",
        help="keep the threads in PostgreSQL at postgresql://USER@HOST:PORT/DB, for every "
        "machine that chats (default: chat.sqlite in the index)",
    )
    p.set_defaults(func=cmd_chat)

    p = sub.add_parser("demo", help="index the bundled sample corpus and answer its questions")
    _add_index_args(p)
    _add_model_args(p)
    _add_passage_chars_arg(p)
    _add_merge_threshold_arg(p)
    _add_extract_arg(p)
    p.add_argument(
        "--questions", type=int, default=None, help="answer only the first N sample questions"
    )
    p.set_defaults(func=cmd_demo)

    p = sub.add_parser(
        "serve-model", help="serve a GGUF (default: embedded) over OpenAI's HTTP API, in parallel"
    )
    p.add_argument("--model", default=DEFAULT_CHAT_SPEC, help="embedded or gguf:PATH")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default loopback)")
    p.add_argument("--port", type=int, default=8090, help="port (default 8090)")
    p.add_argument(
        "--slots",
        type=int,
        default=None,
        help="requests decoded at once (default RESIN_LLAMA_SLOTS or 4)",
    )
    p.add_argument("--ctx", type=int, default=4096, help="context tokens per slot (default 4096)")
    p.set_defaults(func=cmd_serve_model)

    from resin.evals.cli import register as register_eval
    from resin.evals.doctor import register as register_doctor

    register_eval(sub)
    register_doctor(sub)
    apply_environment(parser)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the `resin` console script.

    A refused setting or input exits 2; a database or store that fails under the command (a
    server down or gone, a full disk) exits 1. Each is one `error:` line, secrets masked.
    """
    from resin.agent.llm import ModelBackendError
    from resin.indexes.database import DatabaseError, database_failure, database_failures
    from resin.indexes.documents import DocumentError
    from resin.indexes.index_config import IndexMismatchError, IndexNotFoundError
    from resin.indexes.nlp_extraction import NlpUnavailableError
    from resin.indexes.stores import StoreError, StoreMissingError, store_failure, store_failures

    args = build_parser().parse_args(argv)
    refused = invalid_setting(args)
    if refused:
        print(f"error: {refused}", file=sys.stderr)
        return 2
    if not sys.stderr.isatty():
        # progress bars redrawn ten times a second fill a log file: there, one line a minute
        os.environ.setdefault("TQDM_MININTERVAL", "60")
    # the pool's own warnings (a dropped connection, a failed reconnect) would add lines to the
    # one that says what failed
    logging.getLogger("psycopg.pool").setLevel(logging.ERROR)
    try:
        return int(args.func(args))
    except (
        IndexMismatchError,
        IndexNotFoundError,
        StoreMissingError,
        DocumentError,
        ModelBackendError,
        NlpUnavailableError,
        ValueError,
    ) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except (DatabaseError, StoreError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except database_failures() as exc:
        url = getattr(args, "index_database", None) or os.environ.get(DATABASE_ENV, "")
        print(f"error: {database_failure(url, exc)}", file=sys.stderr)
        return 1
    except store_failures() as exc:
        # the catalog locked or the disk full under the index folder: one line, not a traceback
        if isinstance(exc, OSError) and exc.errno != errno.ENOSPC:
            raise
        where = f"index {getattr(args, 'index', '')}"
        print(f"error: {store_failure(where, exc)}", file=sys.stderr)
        return 1
