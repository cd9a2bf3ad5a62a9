"""Copy a one-machine index (SQLite catalog, graph.json, manifest.json, its vectors) to PostgreSQL.

`resin index --migrate-to postgresql://…` runs this. The order is a build's: the vectors go to
the Chroma server first, under the new index's own collection names; then the catalog tables in
one transaction (COPY), then the graph (one `PgGraph.save`, generation 1), and the manifest last.
A database without a manifest is no index yet, so a migration cut short is started over by
running it again: it empties what an earlier attempt left.
"""

from __future__ import annotations

import sqlite3
import uuid
from collections import Counter
from typing import Any

from resin.indexes.database import shown_url
from resin.indexes.graph import EntityGraph
from resin.indexes.index import Index
from resin.indexes.index_config import IndexMismatchError
from resin.indexes.pg_catalog import PgCatalog
from resin.indexes.pg_graph import PgGraph
from resin.indexes.pg_lexical import fill_terms
from resin.indexes.pg_schema import read_manifest, write_manifest
from resin.indexes.stores import ChromaIndex, chroma_client, store_name

COLLECTIONS = ("passages", "units", "entities")
_VECTOR_BATCH = 5000  # Chroma's limit on one request's ids
# table: (columns, the SQLite query that reads them in the order a build wrote them)
_TABLES = {
    "documents": (
        "doc_id, hash, title, source, extract_key, complete, content",
        "SELECT doc_id, hash, title, source, extract_key, complete != 0, content FROM documents",
    ),
    "passages": (
        "pid, doc_id, position, title, text, sentences, title_key",
        "SELECT pid, doc_id, position, title, text, sentences, title_key FROM passages",
    ),
    "units": (
        "uid, pid, doc_id, kind, subject",
        "SELECT uid, pid, doc_id, kind, subject FROM units ORDER BY rowid",
    ),
    "mentions": ("name, pid", "SELECT name, pid FROM mentions"),
    "scanned": ("name", "SELECT name FROM scanned"),
    "unscanned": ("name", "SELECT name FROM unscanned"),
    "extractions": (
        "key, pid, units, proposed, ungrounded, invalid, prompt_tokens, completion_tokens",
        "SELECT key, pid, units, proposed, ungrounded, invalid, prompt_tokens, "
        "completion_tokens FROM extractions",
    ),
}
# Written from the rows above: the graph's name keys by its save, the postings by `fill_terms`.
_WRITTEN_TABLES = ("graph_nodes", "graph_edges", "graph_names", "passage_terms", "passage_lengths")


def migrate_to(source: Index, url: str, chroma_host: str, chroma_port: int) -> Counter[str]:
    """Copy `source` into the database at `url` and the Chroma server; the records copied, by kind.

    Refuses a database that already holds an index, and a source that is itself in PostgreSQL.
    """
    if source.config.database:
        raise IndexMismatchError(f"the index at {source.config.where()} is in PostgreSQL already")
    catalog = PgCatalog(url)
    pool = catalog.pool
    copied: Counter[str] = Counter()
    try:
        if read_manifest(pool) is not None:
            raise IndexMismatchError(
                f"database {shown_url(url)} already holds a resin index: migrate into an empty one"
            )
        with pool.connection() as conn:  # what an attempt cut short left
            conn.execute(f"TRUNCATE {', '.join([*_TABLES, *_WRITTEN_TABLES])}")
        index_id = uuid.uuid4().hex[:12]
        manifest = {
            **source.manifest,
            "index_id": index_id,
            "collection_prefix": f"resin-{index_id}-",
        }
        target = ChromaIndex(
            chroma_client(source.config.path, chroma_host, chroma_port),
            manifest["collection_prefix"],
            store_name(source.config.path, chroma_host, chroma_port),
            create=True,
        )
        for collection in COLLECTIONS:
            copied[f"{collection} vectors"] = _copy_vectors(source, target, collection)
        copied.update(_copy_catalog(source, pool))
        graph = PgGraph(catalog, source.config.merge_threshold)
        assert isinstance(source.graph, EntityGraph)  # not in PostgreSQL: checked above
        graph.adopt(source.graph.g.copy())
        graph.save()
        copied["graph nodes"], copied["graph edges"] = graph.node_count(), graph.edge_count()
        write_manifest(pool, manifest)
    finally:
        catalog.close()
    return copied


def _copy_vectors(source: Index, target: ChromaIndex, collection: str) -> int:
    """Copy one collection's records (id, vector, text, metadata), a batch at a time."""
    ids = source.vectors.ids(collection)
    for start in range(0, len(ids), _VECTOR_BATCH):
        batch = ids[start : start + _VECTOR_BATCH]
        records = {h.id: h for h in source.vectors.get(collection, batch)}
        found, vectors = source.vectors.get_vectors(collection, batch)
        target.upsert(
            collection,
            found,
            vectors,
            [records[i].text for i in found],
            [records[i].metadata for i in found],
        )
    return len(ids)


def _copy_catalog(source: Index, pool: Any) -> Counter[str]:
    """COPY every catalog table from the SQLite file, all in one transaction."""
    copied: Counter[str] = Counter()
    db = sqlite3.connect(f"file:{source.config.path / 'catalog.sqlite'}?mode=ro", uri=True)
    try:
        with pool.connection() as conn, conn.cursor() as cur:
            for table, (columns, query) in _TABLES.items():
                with cur.copy(f"COPY {table} ({columns}) FROM STDIN") as copy:
                    for row in db.execute(query):
                        copy.write_row(row)
                        copied[table] += 1
            fill_terms(conn)
    finally:
        db.close()
    return copied
