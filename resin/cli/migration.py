"""`resin index --migrate-to`: move a one-machine index into PostgreSQL and a Chroma server."""

from __future__ import annotations

import argparse
import sys


def migrate_index(args: argparse.Namespace) -> int:
    """Copy the --index folder's index into PostgreSQL and the --chroma-host server."""
    from resin.indexes.database import require_driver, shown_url
    from resin.indexes.opening import open_index

    require_driver()
    from resin.indexes.pg_migrate import migrate_to

    if args.paths or args.delete or getattr(args, "repair", False):
        print(
            "error: --migrate-to copies the index as it is: give no files, --delete or --repair",
            file=sys.stderr,
        )
        return 2
    if not args.chroma_host:
        print(
            "error: --migrate-to needs the Chroma server its vectors go to: give --chroma-host "
            "(RESIN_CHROMA_HOST)",
            file=sys.stderr,
        )
        return 2
    # the source's vectors: its embedded store if it has one, else the same server
    embedded = (args.index / "chroma").is_dir()
    source = open_index(
        args.index,
        args.embedder,
        chroma_host=None if embedded else args.chroma_host,
        chroma_port=args.chroma_port,
    )
    try:
        copied = migrate_to(source, args.migrate_to, args.chroma_host, args.chroma_port)
    finally:
        source.close()
    print(f"copied {args.index} to {shown_url(args.migrate_to)}:")
    for kind, count in copied.items():
        print(f"  {kind:<22}{count}")
    return 0
