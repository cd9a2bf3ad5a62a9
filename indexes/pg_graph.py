"""The entity graph in PostgreSQL: nodes and edges as rows, a generation counter, a NOTIFY per save.

`PgGraph` is `EntityGraph` (the same clustering, steps and provenance, on a networkx copy in
memory) loaded from the tables instead of graph.json. `save()` writes what changed since the
last save (and the changed names' keys, which replicas look entities up by: `pg_reads`), bumps
the generation and sends `NOTIFY resin_generation` with its number, in the catalog's open batch
(`PgCatalog.batch`) or a transaction of its own; the notification is delivered when that
transaction commits. `load_graph` reads the graph and its generation
from one snapshot, so a reader can load a new generation aside and swap it in whole.

Rows keep the order networkx held them in (`seq`), and the load adds edges head by head as a
JSON round trip does, so the heaviest steps break ties exactly as they do on the JSON graph.

`follow` is a replica's side: it LISTENs on the channel (and polls, should a notification be
lost with its connection) and hands every newer generation to a callback that reloads.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable
from typing import Any

import networkx as nx
import psycopg
from psycopg import Connection
from psycopg_pool import ConnectionPool

from resin.indexes.database import shown_url
from resin.indexes.graph import DEFAULT_MERGE_THRESHOLD, EntityGraph
from resin.indexes.pg_catalog import PgCatalog
from resin.indexes.pg_reads import write_names
from resin.indexes.pg_schema import PG_SCHEMA

CHANNEL = "resin_generation"
# How often a replica asks for the generation when no notification came.
POLL_SECONDS = 5.0
log = logging.getLogger(__name__)
NodeRow = tuple[tuple[str, ...], tuple[str, ...]]
EdgeRow = tuple[tuple[str, ...], tuple[str, ...], int, bool]


def load_graph(pool: ConnectionPool[Connection[Any]]) -> tuple[int, nx.DiGraph, dict[Any, int]]:
    """(generation, graph, the seq of every node and edge), read from one snapshot."""
    g = nx.DiGraph()
    seqs: dict[Any, int] = {}
    with pool.connection() as conn:
        conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
        row = conn.execute("SELECT value FROM generation").fetchone()
        generation = int(row[0]) if row else 0
        for node, names, units, seq in conn.execute(
            "SELECT node, names, units, seq FROM graph_nodes ORDER BY seq"
        ):
            g.add_node(node, names=names, units=units)
            seqs[node] = seq
        for head, tail, relations, provenance, weight, causal, seq in conn.execute(
            "SELECT e.head, e.tail, e.relations, e.provenance, e.weight, e.causal, e.seq "
            "FROM graph_edges e JOIN graph_nodes n ON n.node = e.head ORDER BY n.seq, e.seq"
        ):
            attrs: dict[str, Any] = {"relations": relations, "provenance": provenance}
            attrs["weight"] = weight
            if causal:
                attrs["causal"] = True
            g.add_edge(head, tail, **attrs)
            seqs[(head, tail)] = seq
    return generation, g, seqs


class PgGraph(EntityGraph):
    """The `GraphStore` of a PostgreSQL index, shared by every machine that opens it."""

    def __init__(
        self, catalog: PgCatalog, merge_threshold: float = DEFAULT_MERGE_THRESHOLD
    ) -> None:
        """Load the graph's latest generation from the tables; saves join the catalog's batch."""
        super().__init__(None, merge_threshold)
        self.catalog = catalog
        self.generation, g, self._seq = load_graph(catalog.pool)
        self.adopt(g)
        self._nodes, self._edges = self._rows()
        self._top = max(self._seq.values(), default=0)

    def _rows(self) -> tuple[dict[str, NodeRow], dict[tuple[str, str], EdgeRow]]:
        """The graph as the rows it is saved as, to diff against at the next save."""
        nodes = {n: (tuple(a["names"]), tuple(a["units"])) for n, a in self.g.nodes(data=True)}
        edges = {
            (h, t): (
                tuple(a["relations"]),
                tuple(a["provenance"]),
                int(a["weight"]),
                bool(a.get("causal")),
            )
            for h, t, a in self.g.edges(data=True)
        }
        return nodes, edges

    def _next_seq(self, key: Any) -> int:
        """The seq of a row: its old one, else one after every other (networkx appends too)."""
        if key not in self._seq:
            self._top += 1
            self._seq[key] = self._top
        return self._seq[key]

    def save(self) -> None:
        """Write the changed rows, bump the generation and NOTIFY, in one transaction."""
        nodes, edges = self._rows()
        gone_nodes = [n for n in self._nodes if n not in nodes]
        gone_edges = [e for e in self._edges if e not in edges]
        node_rows = [
            (n, json.dumps(names), json.dumps(units), self._next_seq(n))
            for n, (names, units) in nodes.items()
            if self._nodes.get(n) != (names, units)
        ]
        edge_rows = [
            (h, t, json.dumps(rel), json.dumps(prov), weight, causal, self._next_seq((h, t)))
            for (h, t), (rel, prov, weight, causal) in edges.items()
            if self._edges.get((h, t)) != (rel, prov, weight, causal)
        ]
        with self.catalog.connection() as conn, conn.cursor() as cur:
            if gone_edges:
                cur.executemany("DELETE FROM graph_edges WHERE head=%s AND tail=%s", gone_edges)
            if gone_nodes:
                cur.execute("DELETE FROM graph_nodes WHERE node = ANY(%s)", (gone_nodes,))
            if node_rows:
                cur.executemany(
                    "INSERT INTO graph_nodes VALUES (%s,%s,%s,%s) ON CONFLICT (node) DO UPDATE "
                    "SET names=EXCLUDED.names, units=EXCLUDED.units",
                    node_rows,
                )
            if node_rows or gone_nodes:
                write_names(cur, {r[0]: nodes[r[0]][0] for r in node_rows}, gone_nodes)
            if edge_rows:
                cur.executemany(
                    "INSERT INTO graph_edges VALUES (%s,%s,%s,%s,%s,%s,%s) ON CONFLICT (head, tail) "
                    "DO UPDATE SET relations=EXCLUDED.relations, provenance=EXCLUDED.provenance, "
                    "weight=EXCLUDED.weight, causal=EXCLUDED.causal",
                    edge_rows,
                )
            row = cur.execute("UPDATE generation SET value = value + 1 RETURNING value").fetchone()
            generation = int(row[0]) if row else 0
            cur.execute("SELECT pg_notify(%s, %s)", (CHANNEL, str(generation)))
        for key in [*gone_nodes, *gone_edges]:
            self._seq.pop(key, None)
        self.generation, self._nodes, self._edges = generation, nodes, edges


def follow(
    url: str,
    held: Callable[[], int],
    renew: Callable[[int], None],
    stop: threading.Event,
    poll: float = POLL_SECONDS,
) -> None:
    """Until `stop` is set, call `renew(generation)` whenever the database's passes `held()`.

    Woken by the builder's NOTIFY, or after `poll` seconds without one. A lost connection or a
    failed reload is logged and retried: a replica keeps serving the generation it holds.
    """
    while not stop.is_set():
        try:
            with psycopg.connect(
                url, autocommit=True, connect_timeout=10, options=f"-c search_path={PG_SCHEMA}"
            ) as conn:
                conn.execute(f"LISTEN {CHANNEL}")
                while not stop.is_set():
                    row = conn.execute("SELECT value FROM generation").fetchone()
                    generation = int(row[0]) if row else 0
                    if generation > held():
                        renew(generation)
                    for _ in conn.notifies(timeout=poll, stop_after=1):
                        pass
        except Exception as exc:  # noqa: BLE001 (any failure: serve on, try again)
            if stop.is_set():
                return  # closed while it waited: the server going away is no failure
            log.warning(
                "resin: following %s for new generations failed (%s); retrying in %.0f s",
                shown_url(url),
                exc,
                poll,
            )
            stop.wait(poll)
