"""A replica's SQL reads against the loaded graph and the in-memory BM25, on real PostgreSQL.

The sample corpus is built into PostgreSQL (vectors on a real Chroma server); the same index is
opened twice: as a builder loads it (`PgGraph`, BM25 built from the catalog) and as a replica
reads it (`PgGraphReads`, `PgLexical`). Every read a question makes must give the same answer
from both, and a database of schema version 1 must be upgraded to the same read tables.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from resin.cli import main
from resin.evals.postgres import create_database
from resin.indexes.base import Direction
from resin.indexes.index import Index
from resin.indexes.opening import close_indexes, open_index
from resin.indexes.pg_graph import PgGraph
from resin.indexes.pg_lexical import PgLexical
from resin.indexes.pg_reads import PgGraphReads, ReadOnlyGraphError
from resin.tools.retrieval import match_nodes

from ..conftest import SAMPLE_DOCS

pytestmark = pytest.mark.slow

DIRECTIONS: tuple[Direction, ...] = ("forward", "backward", "bidirectional")
QUESTIONS = [
    json.loads(line)["question"]
    for line in (SAMPLE_DOCS.parent / "questions.jsonl").read_text().splitlines()
    if line.strip()
]


@pytest.fixture(scope="module")
def built(tmp_path_factory, postgres_url, chroma_port):
    """The sample in PostgreSQL: (where to open it, the builder's view, the replica's view)."""
    root = tmp_path_factory.mktemp("pg-reads")
    url = create_database(postgres_url, "reads")
    where = {
        "path": root / "pg",
        "database": url,
        "chroma_host": "127.0.0.1",
        "chroma_port": chroma_port,
    }
    server = ["--chroma-host", "127.0.0.1", "--chroma-port", str(chroma_port)]
    argv = ["index", str(SAMPLE_DOCS), "--extract", "nlp", "--database", url, *server]
    assert main([*argv, "--index", str(root / "pg")]) == 0
    close_indexes()
    yield where, open_index(checking=True, **where), open_index(**where)
    close_indexes()


def _same_reads(loaded: Index, replica: Index) -> None:
    """Every graph read and BM25 search of a question, from both views, compared."""
    assert isinstance(loaded.graph, PgGraph) and isinstance(replica.graph, PgGraphReads)
    names = loaded.graph.all_names()
    assert names and replica.graph.all_names() == names
    for key, node in names.items():
        assert replica.graph.node_of(key) == node
        assert replica.entity(node) == loaded.entity(node)
    assert replica.entity_named("no such entity anywhere") is None
    asked = [*names, "no such entity anywhere", ""]
    assert replica.entities_named(asked) == loaded.entities_named(asked)
    for question in QUESTIONS:
        assert match_nodes(replica, question) == match_nodes(loaded, question)
    nodes = sorted(set(names.values()))
    for node in nodes:
        for direction in DIRECTIONS:
            assert replica.heaviest_steps(node, direction, 3) == loaded.heaviest_steps(
                node, direction, 3
            )
    for direction in DIRECTIONS:
        assert replica.steps_within(nodes[:5], direction, 8, 3) == loaded.steps_within(
            nodes[:5], direction, 8, 3
        )
    assert list(replica.links()) == list(loaded.links())
    assert replica.link_count() == loaded.link_count() > 0
    assert replica.graph.stats() == loaded.graph.stats()
    got, vectors = replica.entity_vectors(nodes)
    want, expected = loaded.entity_vectors(nodes)
    assert got == want and np.allclose(vectors, expected)
    for question in QUESTIONS:
        assert replica.causes_like(question, 0.3, 5) == loaded.causes_like(question, 0.3, 5)
    # passages' own sentences: rare and common words together, so the pruning is exercised
    sentences = [s.text for p in loaded.catalog.iter_passages() for s in p.sentences[:2]]
    for query in [*QUESTIONS, *sentences, "the river", "zzz unknown words"]:
        for k in (1, 5, 50):
            lexical = replica.search_passages(query, k, "lexical")
            memory = loaded.search_passages(query, k, "lexical")
            assert [p for p, _ in lexical] == [p for p, _ in memory], (query, k)
            assert np.allclose([s for _, s in lexical], [s for _, s in memory], rtol=1e-5)
    causes = [
        n
        for n in nodes
        if any(loaded.link(*s[:2]).causal for s in loaded.heaviest_steps(n, "forward", 50))
    ]
    assert causes
    for node in causes:
        assert replica.near_causes(node, 0.5, 3) == loaded.near_causes(node, 0.5, 3)


def test_replica_reads_by_sql_equal_the_loaded_graph_and_bm25(built):
    _, loaded, replica = built
    assert isinstance(replica.lexical, PgLexical) and loaded.lexical is None
    _same_reads(loaded, replica)


def test_a_build_plan_reads_records_and_content_owners_in_one_query_each(built):
    _, loaded, _ = built
    records = loaded.catalog.documents()
    asked = [r.doc_id for r in records[::2]] + ["no-such-document"]
    assert loaded.catalog.records(asked) == {r.doc_id: r for r in records[::2]}
    owners = loaded.catalog.owners([r.content for r in records] + ["no-such-content"])
    assert owners == {r.content: r.doc_id for r in reversed(records) if r.content}


def test_a_replica_refuses_writes_and_reloads_by_reading_the_generation(built):
    where, loaded, replica = built
    with pytest.raises(ReadOnlyGraphError, match="opened to read"):
        replica.graph.save()
    fresh = replica.reloaded()
    assert fresh.generation == replica.generation == loaded.generation
    assert fresh.graph is not replica.graph and fresh.catalog is replica.catalog
    assert fresh.search_passages(QUESTIONS[0], 3, "lexical") == replica.search_passages(
        QUESTIONS[0], 3, "lexical"
    )


def test_a_version_1_database_is_upgraded_to_the_read_tables(built):
    import psycopg

    where, _, _ = built
    close_indexes()
    with psycopg.connect(where["database"], autocommit=True) as conn:
        conn.execute(
            "DROP TABLE resin.graph_names, resin.passage_terms, resin.passage_lengths; "
            "DROP INDEX resin.graph_edges_tail, resin.graph_edges_causal; "
            "UPDATE resin.schema_version SET version = 1"
        )
    replica = open_index(**where)
    with psycopg.connect(where["database"]) as conn:
        assert conn.execute("SELECT version FROM resin.schema_version").fetchone() == (2,)
    _same_reads(open_index(checking=True, **where), replica)
    close_indexes()


def test_a_newer_schema_version_is_refused(built):
    import psycopg

    from resin.indexes.database import DatabaseError

    where, _, _ = built
    close_indexes()
    with psycopg.connect(where["database"], autocommit=True) as conn:
        conn.execute("UPDATE resin.schema_version SET version = 3")
    try:
        with pytest.raises(DatabaseError, match="schema version 3; this resin reads 2"):
            open_index(**where)
    finally:
        with psycopg.connect(where["database"], autocommit=True) as conn:
            conn.execute("UPDATE resin.schema_version SET version = 2")
