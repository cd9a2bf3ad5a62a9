"""A replica's graph: the `GraphStore` reads of a PostgreSQL index answered by SQL, nothing loaded.

`PgGraph` (what a builder holds) loads every node and edge and every name's vector to cluster new
names against them; a replica needs none of that to answer. `PgGraphReads` looks an entity name
up by its key in `graph_names`, takes an entity's heaviest edges with one indexed query and the
edges within a walk's depth with one recursive query, and reads name vectors from the entities
collection as it needs them, through bounded caches. Its memory and the time it takes to open do
not grow with the corpus: opening it reads the generation. The builder keeps `graph_names` in the
transaction that saves the graph (`PgGraph.save`).

The steps come in the order a loaded graph gives them (weight, then out-edges before in-edges,
then the order the rows were saved in), so a walk takes the same edges as on `PgGraph`. Each
statement reads the latest committed generation: a question that spans a builder's commit may
read some steps from each side of it. The caches belong to one generation; `Index.reloaded`
opens the next one's.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from typing import Any

import numpy as np
from psycopg import Connection

from resin.indexes.base import Direction, Step, VectorIndex, Vectors
from resin.indexes.database import shown_url
from resin.indexes.pg_catalog import PgCatalog
from resin.indexes.reads import LruCache
from resin.indexes.store_writes import entity_id
from resin.indexes.units import ReasoningUnit, entity_key

_CACHE_SIZE = 32768
# A name search for causes reads this many nearest names, more while the farthest still passes tau.
_CAUSE_SCAN = 64
_CAUSE_SCAN_MAX = 4096


class ReadOnlyGraphError(RuntimeError):
    """A write to a replica's graph: only a builder (`open_index(create=True)`) writes."""


def _steps_sql(node: str, direction: Direction, n: str) -> str:
    """The `n` heaviest edges at `node` (SQL expressions) as (head, tail, way) rows.

    The rows come in a loaded graph's order. Each side takes its own `n` first: out-edges by
    the `graph_edges_heavy` index, so a hub with thousands of edges reads `n` of them, not all.
    """
    forward = (
        "SELECT e.head, e.tail, 'forward' AS way, e.weight, 0 AS side, e.seq AS o1, "
        f"0::bigint AS o2 FROM graph_edges e WHERE e.head = {node} "
        f"ORDER BY e.weight DESC, e.seq LIMIT {n}"
    )
    backward = (
        "SELECT e.head, e.tail, 'backward' AS way, e.weight, 1 AS side, n.seq AS o1, "
        "e.seq AS o2 FROM graph_edges e JOIN graph_nodes n ON n.node = e.head "
        f"WHERE e.tail = {node} ORDER BY e.weight DESC, n.seq, e.seq LIMIT {n}"
    )
    parts = {"forward": [forward], "backward": [backward], "bidirectional": [forward, backward]}
    union = " UNION ALL ".join(f"({p})" for p in parts[direction])
    return f"SELECT head, tail, way FROM ({union}) s ORDER BY weight DESC, side, o1, o2 LIMIT {n}"


def name_rows(node: str, names: Iterable[str]) -> list[tuple[str, str]]:
    """The (key, node) rows of a node's names, for `graph_names`."""
    return [(k, node) for k in dict.fromkeys(entity_key(n) for n in names) if k]


def write_names(cur: Any, nodes: Mapping[str, Sequence[str]], gone: Sequence[str]) -> None:
    """Replace the `graph_names` rows of changed nodes (node → names) and drop the gone ones'."""
    cur.execute("DELETE FROM graph_names WHERE node = ANY(%s)", ([*nodes, *gone],))
    rows = [r for node, names in nodes.items() for r in name_rows(node, names)]
    if rows:
        cur.executemany(
            "INSERT INTO graph_names VALUES (%s,%s) ON CONFLICT (key) DO UPDATE "
            "SET node=EXCLUDED.node",
            rows,
        )


def fill_names(conn: Connection[Any]) -> None:
    """Write `graph_names` from every stored node (a schema upgrade), in the order nodes load."""
    rows = conn.execute("SELECT node, names FROM graph_nodes ORDER BY seq").fetchall()
    with conn.cursor() as cur:
        write_names(cur, {node: names for node, names in rows}, [])


class PgGraphReads:
    """The graph of a PostgreSQL index as a replica reads it: by SQL, a generation at a time."""

    unreadable: str | None = None

    def __init__(self, catalog: PgCatalog, vectors: VectorIndex) -> None:
        """Read the generation; nothing else is read until it is asked for."""
        self.catalog = catalog
        self.vectors = vectors
        row = self._rows("SELECT value FROM generation")
        self.generation = int(row[0][0]) if row else 0
        self._node_of: LruCache[str, str | None] = LruCache(_CACHE_SIZE)
        self._names: LruCache[str, list[str]] = LruCache(_CACHE_SIZE)
        self._steps: LruCache[tuple[str, str, int], list[Step]] = LruCache(_CACHE_SIZE)
        self._vectors: LruCache[str, np.ndarray | None] = LruCache(_CACHE_SIZE)
        self._near: LruCache[tuple[str, float, int], list[str]] = LruCache(_CACHE_SIZE)
        self._edge_count: int | None = None

    def _rows(self, query: str, params: Sequence[Any] | Mapping[str, Any] = ()) -> list[Any]:
        with self.catalog.connection() as conn:
            return conn.execute(query, params).fetchall()

    # names ------------------------------------------------------------------------------------
    def node_of(self, name: str) -> str | None:
        """The node holding this exact (normalized) name, if any: one primary-key lookup."""
        return self.nodes_of([name]).get(name)

    def nodes_of(self, names: Sequence[str]) -> dict[str, str]:
        """Name → node for those of `names` a node holds: one query for all of them.

        The nodes' names come in the same query (a found entity is shown by its names next).
        """
        keys = {name: key for name in names if (key := entity_key(name))}

        def load(wanted: list[str]) -> dict[str, str | None]:
            rows = self._rows(
                "SELECT g.key, g.node, n.names FROM graph_names g "
                "JOIN graph_nodes n ON n.node = g.node WHERE g.key = ANY(%s)",
                (wanted,),
            )
            self._names.put({node: list(held) for _key, node, held in rows})
            found = {key: node for key, node, _held in rows}
            return {k: found.get(k) for k in wanted}

        held = self._node_of.through(list(keys.values()), load)
        return {name: node for name, key in keys.items() if (node := held[key])}

    def names(self, node: str) -> list[str]:
        """Every name (the first is the display name) of a node."""
        return list(self._names_of([node]).get(node, []))

    def _names_of(self, nodes: Sequence[str]) -> dict[str, list[str]]:
        def load(wanted: list[str]) -> dict[str, list[str]]:
            rows = self._rows("SELECT node, names FROM graph_nodes WHERE node = ANY(%s)", (wanted,))
            found = {node: list(names) for node, names in rows}
            return {n: found.get(n, []) for n in wanted}

        return self._names.through(nodes, load)

    def all_names(self) -> dict[str, str]:
        """Entity key → node id for every name."""
        return dict(self._rows("SELECT key, node FROM graph_names"))

    # edges ------------------------------------------------------------------------------------
    def heaviest_steps(self, node: str, direction: Direction, n: int) -> list[Step]:
        """The `n` heaviest edges at `node`, out-edges first on ties (a shared list: read only)."""
        key = (node, direction, n)

        def load(_keys: list[tuple[str, str, int]]) -> dict[tuple[str, str, int], list[Step]]:
            rows = self._rows(_steps_sql("%(node)s", direction, "%(n)s"), {"node": node, "n": n})
            return {key: [Step(*r) for r in rows]}

        return self._steps.through([key], load)[key]

    def steps_within(
        self, starts: Sequence[str], direction: Direction, n: int, depth: int
    ) -> dict[str, list[Step]]:
        """The `n` heaviest steps of every node fewer than `depth` steps from `starts`.

        One recursive query finds the nodes a walk can reach and the steps it can take there.
        """
        if not starts or depth < 1:
            return {}
        steps = _steps_sql("r.node", direction, "%(n)s")
        rows = self._rows(
            f"""
            WITH RECURSIVE reach(node, depth) AS (
                SELECT unnest(%(starts)s::text[]) COLLATE "C", 0
                UNION
                SELECT CASE WHEN s.way = 'forward' THEN s.tail ELSE s.head END, r.depth + 1
                FROM reach r CROSS JOIN LATERAL ({steps}) s
                WHERE r.depth < %(depth)s)
            SELECT r.node, s.head, s.tail, s.way
            FROM (SELECT DISTINCT node FROM reach) r
            LEFT JOIN LATERAL ({steps}) s ON TRUE
            """,
            {"starts": list(starts), "n": n, "depth": depth - 1},
        )
        found: dict[str, list[Step]] = {}
        for node, head, tail, way in rows:
            found.setdefault(node, [])
            if head is not None:
                found[node].append(Step(head, tail, way))
        self._steps.put({(node, direction, n): held for node, held in found.items()})
        return found

    def edge(self, head: str, tail: str) -> dict[str, Any]:
        """The edge's relations, provenance (unit ids), weight, and causal flag if set."""
        rows = self._rows(
            "SELECT relations, provenance, weight, causal FROM graph_edges "
            "WHERE head=%s AND tail=%s",
            (head, tail),
        )
        if not rows:
            raise KeyError((head, tail))
        return _attrs(*rows[0])

    def edges(self) -> Iterator[tuple[str, str, dict[str, Any]]]:
        """Every edge as (head, tail, attributes), in the order a loaded graph holds them."""
        with self.catalog.connection() as conn, conn.cursor(name="resin_edges") as cur:
            cur.execute(
                "SELECT e.head, e.tail, e.relations, e.provenance, e.weight, e.causal "
                "FROM graph_edges e JOIN graph_nodes n ON n.node = e.head ORDER BY n.seq, e.seq"
            )
            for head, tail, *attrs in cur:
                yield head, tail, _attrs(*attrs)

    def edge_count(self) -> int:
        """How many edges the graph holds (counted once per generation)."""
        if self._edge_count is None:
            self._edge_count = int(self._rows("SELECT count(*) FROM graph_edges")[0][0])
        return self._edge_count

    def node_count(self) -> int:
        """How many nodes the graph holds."""
        return int(self._rows("SELECT count(*) FROM graph_nodes")[0][0])

    def stats(self) -> dict[str, Any]:
        """Node and edge counts."""
        return {"graph_nodes": self.node_count(), "graph_edges": self.edge_count()}

    # name vectors -----------------------------------------------------------------------------
    def node_vectors(self, nodes: Sequence[str]) -> tuple[list[str], np.ndarray]:
        """Nodes that have a name vector (their first name that has one), and those vectors."""

        def load(wanted: list[str]) -> dict[str, np.ndarray | None]:
            names = self._names_of(wanted)
            keys = {n: [entity_key(name) for name in names[n]] for n in wanted}
            ids = list(dict.fromkeys(entity_id(k) for ks in keys.values() for k in ks))
            stored, vectors = self.vectors.get_vectors("entities", ids)
            row = {i: r for r, i in enumerate(stored)}
            found: dict[str, np.ndarray | None] = {}
            for node in wanted:
                hit = next((row[i] for k in keys[node] if (i := entity_id(k)) in row), None)
                found[node] = None if hit is None else np.asarray(vectors[hit], np.float32)
            return found

        held = self._vectors.through(nodes, load)
        found = [n for n in nodes if held.get(n) is not None]
        if not found:
            return [], np.zeros((0, 0), np.float32)
        return found, np.stack([held[n] for n in found])  # type: ignore[misc]

    def causes_like(self, vector: np.ndarray, tau: float, n: int) -> list[str]:
        """Up to `n` nodes heading a causal edge whose names are within cosine `tau` of `vector`.

        The nearest names are read from the entities collection, more until the farthest read
        falls below `tau`; of their nodes, those heading a causal edge are ranked by their own
        name vector, as the loaded graph ranks them.
        """
        scan = _CAUSE_SCAN
        while True:
            hits = self.vectors.search("entities", vector, scan)
            if len(hits) < scan or hits[-1].score < tau or scan >= _CAUSE_SCAN_MAX:
                break
            scan *= 4
        keys = [h.metadata.get("key", "") for h in hits if h.score >= tau]
        rows = self._rows(
            "SELECT DISTINCT g.node FROM graph_names g WHERE g.key = ANY(%s) AND EXISTS "
            "(SELECT 1 FROM graph_edges e WHERE e.head = g.node AND e.causal)",
            (keys,),
        )
        names, vecs = self.node_vectors(sorted(r[0] for r in rows))
        if not names:
            return []
        sims = vecs @ vector
        order = np.argsort(-sims, kind="stable")[:n]
        return [names[i] for i in order if sims[i] >= tau]

    def near_causes(self, node: str, tau: float, n: int) -> list[str]:
        """Up to `n` other nodes heading a causal edge whose names are within `tau` of `node`'s."""

        def load(keys: list[tuple[str, float, int]]) -> dict[tuple[str, float, int], list[str]]:
            own = self.node_vectors([node])[1]
            near = self.causes_like(own[0], tau, n + 1) if len(own) else []
            return {keys[0]: [c for c in near if c != node][:n]}

        return self._near.through([(node, tau, n)], load)[(node, tau, n)]

    # writes: a builder's -----------------------------------------------------------------------
    def _refuse(self, what: str) -> ReadOnlyGraphError:
        return ReadOnlyGraphError(
            f"the graph of database {shown_url(self.catalog.url)} is opened to read; {what} is a builder's "
            "(open the index with create=True, as `resin index` does)"
        )

    def load_vectors(self, keys: Sequence[str], vectors: Vectors) -> None:
        """Refused: a replica reads name vectors from the entities collection."""
        raise self._refuse("loading name vectors")

    def name_vectors(self) -> tuple[list[str], np.ndarray]:
        """Refused: a replica holds no name vectors but those it read last."""
        raise self._refuse("listing every name vector")

    def unknown_keys(self, names: Iterable[str]) -> list[str]:
        """Refused: clustering new names is a builder's."""
        raise self._refuse("clustering names")

    def add_units(
        self, units: Iterable[ReasoningUnit], vectors: dict[str, Sequence[float]]
    ) -> None:
        """Refused."""
        raise self._refuse("adding units")

    def remove_units(self, unit_ids: Iterable[str]) -> list[str]:
        """Refused."""
        raise self._refuse("removing units")

    def add_edge(self, head: str, tail: str, relation: str, unit_id: str) -> None:
        """Refused."""
        raise self._refuse("adding an edge")

    def unsupported(
        self, units: Mapping[str, ReasoningUnit], unknown: Collection[str] = ()
    ) -> tuple[list[tuple[str, str]], list[str]]:
        """Refused: an integrity check opens the index to check it (`checking`)."""
        raise self._refuse("checking provenance")

    def missing(self, units: Mapping[str, ReasoningUnit]) -> list[ReasoningUnit]:
        """Refused: an integrity check opens the index to check it (`checking`)."""
        raise self._refuse("checking provenance")

    def prune(self, units: Mapping[str, ReasoningUnit]) -> list[str]:
        """Refused."""
        raise self._refuse("pruning")

    def save(self) -> None:
        """Refused."""
        raise self._refuse("saving")


def _attrs(
    relations: list[str], provenance: list[str], weight: int, causal: bool
) -> dict[str, Any]:
    """An edge row's attributes as the loaded graph holds them (`causal` only when set)."""
    attrs: dict[str, Any] = {"relations": relations, "provenance": provenance, "weight": weight}
    if causal:
        attrs["causal"] = True
    return attrs
