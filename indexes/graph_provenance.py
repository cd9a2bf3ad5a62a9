"""Whether a graph agrees with the catalog's units: where each unit's id belongs, and where it is.

A unit's id belongs on its head node, and for an edge on the edge and its tail node; an
integrity check finds the ids held elsewhere (`unsupported`) and the units not held everywhere
they belong (`missing`), and a repair prunes the former (`EntityGraph.prune`).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import TYPE_CHECKING

from resin.indexes.units import ReasoningUnit, entity_key

if TYPE_CHECKING:
    from resin.indexes.graph import EntityGraph

# Where a unit id is held: a node (one id) or an edge (head, tail).
Place = tuple[str, ...]
Edge = tuple[str, str]


def endpoints(unit: ReasoningUnit) -> list[str]:
    """The names a unit touches: its subject (or cause), and its object (or effect) for edges."""
    edge = unit.edge
    return [edge[0], edge[2]] if edge else [unit.subject]


def places(graph: EntityGraph, unit: ReasoningUnit) -> list[Place] | None:
    """Where `add_units` puts a unit; None when a node it names is not in the graph.

    Its head node, and for an edge the edge and its tail node (an edge whose ends merged into
    one node is no edge).
    """
    head, *rest = endpoints(unit)
    if not entity_key(head):
        return []
    h = graph.node_of(head)
    if h is None:
        return None
    found: list[Place] = [(h,)]
    if unit.edge is None or not entity_key(rest[0]):
        return found
    t = graph.node_of(rest[0])
    if t is None:
        return None
    return found if t == h else [*found, (h, t), (t,)]


def allowed(graph: EntityGraph, units: Mapping[str, ReasoningUnit]) -> dict[str, set[Place]]:
    """Unit id → the places `add_units` puts it, for `units`."""
    return {uid: set(places(graph, unit) or ()) for uid, unit in units.items()}


def unsupported(
    graph: EntityGraph, units: Mapping[str, ReasoningUnit], unknown: Collection[str] = ()
) -> tuple[list[Edge], list[str]]:
    """The edges and nodes holding a unit id that no unit of `units` puts there.

    A unit the catalog no longer has, an edge added by hand; and an edge with no unit at all.
    The ids in `unknown` (units whose record cannot be read) are not judged.
    """
    belongs = allowed(graph, units)

    def stray(unit_id: str, place: Place) -> bool:
        return place not in belongs.get(unit_id, ()) and unit_id not in unknown

    edges = [
        (h, t)
        for h, t, attrs in graph.g.edges(data=True)
        if not attrs["provenance"] or any(stray(u, (h, t)) for u in attrs["provenance"])
    ]
    nodes = [
        node
        for node, attrs in graph.g.nodes(data=True)
        if any(stray(u, (node,)) for u in attrs["units"])
    ]
    return edges, nodes


def missing(graph: EntityGraph, units: Mapping[str, ReasoningUnit]) -> list[ReasoningUnit]:
    """The units of `units` that the graph does not hold everywhere `add_units` puts them."""
    absent = []
    for unit in units.values():
        where = places(graph, unit)
        if where is None or not all(_holds(graph, place, unit.id) for place in where):
            absent.append(unit)
    return absent


def _holds(graph: EntityGraph, place: Place, unit_id: str) -> bool:
    if len(place) == 1:
        return unit_id in graph.g.nodes[place[0]]["units"]
    return graph.g.has_edge(*place) and unit_id in graph.g.edges[place]["provenance"]


def add_once(items: list[str], item: str) -> bool:
    """Add a unit id (or relation) to a place's list unless it is there; whether it was added."""
    if item in items:
        return False
    items.append(item)
    return True
