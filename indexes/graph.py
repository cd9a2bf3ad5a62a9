"""The cause → effect knowledge graph (SARG) over entity clusters, persisted atomically as JSON.

Nodes are clusters of entity names: exact matches on the normalized name first, then embedding
cosine ≥ the merge threshold. Edges come from `relation` and `causal-edge` units; an edge's weight
is how many distinct units support it and its provenance is their ids, so deleting a document
removes exactly the support it gave. Its file is `graph_file`'s to read and write; whether it
agrees with the catalog's units, `graph_provenance`'s to tell.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import networkx as nx
import numpy as np

from resin.indexes import graph_provenance as provenance
from resin.indexes.base import Direction, Step, Vectors, Way
from resin.indexes.documents import content_hash
from resin.indexes.graph_file import GraphUnreadableError, read_graph, write_graph
from resin.indexes.graph_provenance import Edge, Place, add_once, endpoints
from resin.indexes.units import ReasoningUnit, entity_key, possessed

DEFAULT_MERGE_THRESHOLD = 0.85


class EntityGraph:
    """A networkx DiGraph of entity clusters with unit provenance: the `GraphStore` as JSON."""

    # A graph file has no generations; the PostgreSQL graph counts its saves.
    generation = 0

    def __init__(
        self,
        path: Path | None,
        merge_threshold: float = DEFAULT_MERGE_THRESHOLD,
        unreadable_ok: bool = False,
    ) -> None:
        """Load the graph at `path` if it exists, else (or with no path) start empty.

        A file that cannot be read is refused (`GraphUnreadableError`), or with `unreadable_ok`
        (an index check or repair) the graph starts empty and `unreadable` says why.
        """
        self.path = path
        self.merge_threshold = merge_threshold
        self.unreadable: str | None = None
        self.g: nx.DiGraph = nx.DiGraph()
        self._by_key: dict[str, str] = {}
        try:
            if path is not None and path.exists():
                self.adopt(read_graph(path))
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            self.unreadable = f"graph {path} cannot be read ({type(exc).__name__}: {exc})"[:300]
            folder = path.parent if path is not None else "FOLDER"
            if not unreadable_ok:
                raise GraphUnreadableError(
                    f"{self.unreadable}; `resin index --repair --index {folder}` rebuilds it "
                    "from the catalog"
                ) from None
            self.g, self._by_key = nx.DiGraph(), {}
        self._vec_ids: list[str] = []
        self._row: dict[str, int] = {}
        self._vecs = np.zeros((0, 0), dtype=np.float32)
        # (node, direction, n) -> heaviest steps; hub nodes carry thousands of edges, and every
        # traversal that reaches one would otherwise rank them all again
        self._steps: dict[tuple[str, str, int], list[Step]] = {}
        # node -> its name-vector row (-1: none); normalizing every name per lookup cost more
        # than the traversal it served
        self._node_row: dict[str, int] = {}
        # nodes that head a causal edge, and their name vectors; node -> its near causes
        self._causes: tuple[list[str], np.ndarray] | None = None
        self._near: dict[tuple[str, float, int], list[str]] = {}

    def adopt(self, g: nx.DiGraph) -> None:
        """Take `g` as the graph, indexing its names (before any vector is loaded)."""
        by_key = {entity_key(name): node for node, a in g.nodes(data=True) for name in a["names"]}
        self.g, self._by_key = g, by_key

    # clustering -----------------------------------------------------------------------------
    def load_vectors(self, keys: Sequence[str], vectors: Vectors) -> None:
        """Give the graph the name vectors it clusters against (keyed by entity key)."""
        pairs = [(k, v) for k, v in zip(keys, vectors, strict=True) if k in self._by_key]
        self._vec_ids, self._row, self._node_row = [], {}, {}
        self._vecs = np.zeros((0, 0), dtype=np.float32)
        if pairs:
            self._append_vectors(
                [k for k, _ in pairs], np.asarray([v for _, v in pairs], np.float32)
            )

    def name_vectors(self) -> tuple[list[str], np.ndarray]:
        """The entity keys that have a vector, and those vectors (one row each)."""
        return list(self._vec_ids), self._vecs[: len(self._vec_ids)]

    def unknown_keys(self, names: Iterable[str]) -> list[str]:
        """Entity keys among `names` that no node holds yet (these need vectors to cluster)."""
        return list(
            dict.fromkeys(k for n in names if (k := entity_key(n)) and k not in self._by_key)
        )

    def resolve(self, names: Sequence[str], vectors: dict[str, Sequence[float]]) -> dict[str, str]:
        """Map names to node ids: exact key, else nearest cluster ≥ threshold, else a new node.

        New names are compared, in one matrix product, to every known name and to each other, so
        clustering a batch costs one BLAS call rather than one scan per name.
        """
        self._node_row.clear()
        mapping: dict[str, str] = {}
        fresh = [
            k for k in dict.fromkeys(entity_key(n) for n in names) if k and k not in self._by_key
        ]
        with_vec = [k for k in fresh if k in vectors]
        batch = np.asarray([vectors[k] for k in with_vec], dtype=np.float32)
        known = self._vecs[: len(self._vec_ids)]
        best_known = (
            (known @ batch.T)
            if len(self._vec_ids) and len(with_vec)
            else np.zeros((0, len(with_vec)))
        )
        among = batch @ batch.T if len(with_vec) else np.zeros((0, 0))
        row = {k: i for i, k in enumerate(with_vec)}
        for key in fresh:
            node = None
            i = row.get(key)
            if i is not None and best_known.shape[0]:
                close = best_known[:, i].copy()
                while True:
                    j = int(np.argmax(close))
                    if close[j] < self.merge_threshold:
                        break
                    if not possessed(key, self._vec_ids[j]):
                        node = self._by_key[self._vec_ids[j]]
                        break
                    close[j] = -1.0
            if node is None and i is not None:
                earlier = [
                    m
                    for m in range(i)
                    if among[i, m] >= self.merge_threshold and not possessed(key, with_vec[m])
                ]
                if earlier:
                    node = self._by_key[with_vec[max(earlier, key=lambda m: among[i, m])]]
            if node is None:
                node = "n" + content_hash(key, length=12)
                self.g.add_node(node, names=[], units=[])
            self._by_key[key] = node
        if with_vec:
            self._append_vectors(with_vec, batch)
        for name in names:
            key = entity_key(name)
            if not key:
                continue
            node = self._by_key[key]
            held = self.g.nodes[node]["names"]
            if key not in {entity_key(n) for n in held}:
                held.append(name.strip())
            mapping[name] = node
        return mapping

    def _append_vectors(self, keys: list[str], batch: np.ndarray) -> None:
        """Grow the name-vector matrix geometrically so appends stay amortized O(1)."""
        used = len(self._vec_ids)
        need = used + len(keys)
        if self._vecs.shape[0] < need or self._vecs.shape[1] != batch.shape[1]:
            grown = np.zeros((max(need, 2 * self._vecs.shape[0], 256), batch.shape[1]), np.float32)
            if used:
                grown[:used] = self._vecs[:used]
            self._vecs = grown
        self._vecs[used:need] = batch
        self._row.update((k, used + i) for i, k in enumerate(keys))
        self._vec_ids.extend(keys)

    def node_vectors(self, nodes: Sequence[str]) -> tuple[list[str], np.ndarray]:
        """Nodes that have a name vector, and those vectors (one row each)."""
        found = []
        rows = []
        for node in nodes:
            row = self._node_row.get(node)
            if row is None:
                held = (self._row.get(entity_key(n), -1) for n in self.g.nodes[node]["names"])
                row = self._node_row[node] = next((r for r in held if r >= 0), -1)
            if row >= 0:
                found.append(node)
                rows.append(row)
        return found, self._vecs[rows] if rows else np.zeros((0, 0), np.float32)

    def heaviest_steps(self, node: str, direction: Direction, n: int) -> list[Step]:
        """The `n` heaviest edges at `node` as steps (head, tail, way), way "forward" or "backward".

        `direction` is "forward" (out-edges), "backward" (in-edges) or "bidirectional" (both);
        ties keep out-edges first, in insertion order. Cached until the edges next change.
        """
        key = (node, direction, n)
        steps = self._steps.get(key)
        if steps is None:  # the raw adjacency dicts: the public views cost 3x on hub nodes
            candidates: list[tuple[str, str, Way, int]] = []
            if direction != "backward":
                candidates += [
                    (node, t, "forward", w["weight"]) for t, w in self.g._succ[node].items()
                ]
            if direction != "forward":
                candidates += [
                    (h, node, "backward", w["weight"]) for h, w in self.g._pred[node].items()
                ]
            heaviest = heapq.nlargest(n, candidates, key=lambda c: c[3])
            steps = self._steps[key] = [Step(h, t, way) for h, t, way, _ in heaviest]
        return steps

    def steps_within(
        self, starts: Sequence[str], direction: Direction, n: int, depth: int
    ) -> dict[str, list[Step]]:
        """`heaviest_steps` of every node fewer than `depth` steps from `starts`, by node."""
        found: dict[str, list[Step]] = {}
        frontier = list(dict.fromkeys(starts))
        for _ in range(depth):
            reached = []
            for node in frontier:
                if node not in found:
                    found[node] = self.heaviest_steps(node, direction, n)
                    reached += [t if way == "forward" else h for h, t, way in found[node]]
            frontier = reached
        return found

    def _forget_steps(self) -> None:
        self._steps.clear()
        self._causes = None
        self._near.clear()

    def near_causes(self, node: str, tau: float, n: int) -> list[str]:
        """Up to `n` other nodes heading a causal edge whose names are within cosine `tau` of `node`.

        One state is often written two ways ("copper in the river", "the level of copper in the
        river"); the merge threshold keeps such names apart, so a chain crosses them here.
        Cached until the edges next change.
        """
        key = (node, tau, n)
        near = self._near.get(key)
        if near is None:
            own = self.node_vectors([node])[1]
            near = self.causes_like(own[0], tau, n + 1) if len(own) else []
            near = self._near[key] = [c for c in near if c != node][:n]
        return near

    def causes_like(self, vector: np.ndarray, tau: float, n: int) -> list[str]:
        """Up to `n` nodes heading a causal edge whose names are within cosine `tau` of `vector`."""
        if self._causes is None:
            heads = dict.fromkeys(h for h, _, a in self.g.edges(data=True) if a.get("causal"))
            self._causes = self.node_vectors(list(heads))
        names, vecs = self._causes
        if not names:
            return []
        sims = vecs @ vector
        order = np.argsort(-sims, kind="stable")[:n]
        return [names[i] for i in order if sims[i] >= tau]

    def node_of(self, name: str) -> str | None:
        """The node holding this exact (normalized) name, if any."""
        return self._by_key.get(entity_key(name))

    def nodes_of(self, names: Sequence[str]) -> dict[str, str]:
        """Name → node for those of `names` a node holds."""
        return {n: node for n in names if (node := self.node_of(n))}

    # units ----------------------------------------------------------------------------------
    def add_units(
        self, units: Iterable[ReasoningUnit], vectors: dict[str, Sequence[float]]
    ) -> None:
        """Attach units to their subject nodes and add SARG edges; idempotent per unit id."""
        units = list(units)
        self._forget_steps()
        nodes = self.resolve([n for u in units for n in endpoints(u)], vectors)
        for unit in units:
            head, *rest = endpoints(unit)
            if head not in nodes:
                continue
            h = nodes[head]
            add_once(self.g.nodes[h]["units"], unit.id)
            edge = unit.edge
            if edge is None:
                continue
            relation = edge[1]
            t = nodes.get(rest[0]) if rest else None
            if t is None or h == t:
                continue
            if not self.g.has_edge(h, t):
                self.g.add_edge(h, t, relations=[], provenance=[], weight=0)
            attrs = self.g.edges[h, t]
            if unit.kind != "relation":
                attrs["causal"] = True
            if add_once(attrs["provenance"], unit.id):
                add_once(attrs["relations"], relation)
                attrs["weight"] = len(attrs["provenance"])
            add_once(self.g.nodes[t]["units"], unit.id)

    def add_edge(self, head: str, tail: str, relation: str, unit_id: str) -> None:
        """An edge no unit added: what an integrity check plants, for the check to find."""
        self._forget_steps()
        self.g.add_edge(head, tail, relations=[relation], provenance=[unit_id], weight=1)

    def remove_units(self, unit_ids: Iterable[str]) -> list[str]:
        """Drop these units' support; remove emptied edges and orphan nodes (returned as keys)."""
        gone = set(unit_ids)
        if not gone:
            return []
        return self._drop(lambda unit_id, _place: unit_id not in gone)

    def _drop(self, keep: Callable[[str, Place], bool]) -> list[str]:
        """Drop unit ids where `keep` says they do not belong; remove emptied edges and orphans.

        Returns the keys of the removed nodes' names.
        """
        self._forget_steps()
        self._node_row.clear()
        for h, t, attrs in list(self.g.edges(data=True)):
            kept = [u for u in attrs["provenance"] if keep(u, (h, t))]
            if not kept:
                self.g.remove_edge(h, t)
            elif len(kept) != len(attrs["provenance"]):
                attrs["provenance"], attrs["weight"] = kept, len(kept)
        removed_keys: list[str] = []
        for node, attrs in list(self.g.nodes(data=True)):
            attrs["units"] = [u for u in attrs["units"] if keep(u, (node,))]
            if not attrs["units"] and self.g.degree(node) == 0:
                keys = [entity_key(n) for n in attrs["names"]]
                removed_keys.extend(keys)
                self.g.remove_node(node)
        for key in removed_keys:
            self._by_key.pop(key, None)
        if removed_keys:
            keep_rows = [i for i, k in enumerate(self._vec_ids) if k in self._by_key]
            kept_keys, kept_vecs = [self._vec_ids[i] for i in keep_rows], self._vecs[keep_rows]
            self._vec_ids, self._vecs, self._row = [], np.zeros((0, 0), dtype=np.float32), {}
            if keep_rows:
                self._append_vectors(kept_keys, kept_vecs)
        return removed_keys

    # agreement with the catalog's units (`graph_provenance`) -------------------------------
    def unsupported(
        self, units: Mapping[str, ReasoningUnit], unknown: Collection[str] = ()
    ) -> tuple[list[Edge], list[str]]:
        """The edges and nodes holding a unit id that no unit of `units` puts there."""
        return provenance.unsupported(self, units, unknown)

    def missing(self, units: Mapping[str, ReasoningUnit]) -> list[ReasoningUnit]:
        """The units of `units` that the graph does not hold everywhere `add_units` puts them."""
        return provenance.missing(self, units)

    def prune(self, units: Mapping[str, ReasoningUnit]) -> list[str]:
        """Drop every unit id from where no unit of `units` puts it (what `unsupported` finds).

        Returns the keys of the nodes removed as orphans.
        """
        allowed = provenance.allowed(self, units)
        return self._drop(lambda unit_id, place: place in allowed.get(unit_id, ()))

    # reading --------------------------------------------------------------------------------
    def names(self, node: str) -> list[str]:
        """Every name (the first is the display name) of a node."""
        return list(self.g.nodes[node]["names"])

    def all_names(self) -> dict[str, str]:
        """Entity key → node id for every name in the graph."""
        return dict(self._by_key)

    def edge(self, head: str, tail: str) -> dict[str, Any]:
        """The attributes of the edge head → tail: relations, provenance (unit ids), weight."""
        return dict(self.g.edges[head, tail])

    def edges(self) -> Iterator[tuple[str, str, dict[str, Any]]]:
        """Every edge as (head, tail, attributes), in the graph's order."""
        yield from self.g.edges(data=True)

    def edge_count(self) -> int:
        """How many edges the graph holds."""
        return int(self.g.number_of_edges())

    def node_count(self) -> int:
        """How many nodes (entities) the graph holds."""
        return int(self.g.number_of_nodes())

    def out_degree(self, node: str) -> int:
        """How many edges leave `node`."""
        return int(self.g.out_degree(node))

    def stats(self) -> dict[str, Any]:
        """Node and edge counts."""
        return {"graph_nodes": self.node_count(), "graph_edges": self.edge_count()}

    def save(self) -> None:
        """Write the graph atomically: a temp file in the same folder, then rename over.

        What is written can be read again, so an unreadable file is no longer one.
        """
        if self.path is None:
            raise ValueError("a graph opened with no path has nowhere to be saved")
        write_graph(self.g, self.path)
        self.unreadable = None
