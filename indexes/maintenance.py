"""What checks of an index do below its read interface: snapshot its stores, or break them.

Crash, fault and integrity checks (`resin.evals.crash`, `resin doctor`, the tests) compare what builds
leave behind, store by store, and plant the disagreements `resin.indexes.integrity` must find. Both go
through the stores' Protocols, so they work on any backend.
"""

from __future__ import annotations

from typing import Any

from resin.indexes.index import Index


def snapshot(index: Index) -> dict[str, Any]:
    """Everything a build leaves behind, in comparable form."""
    graph = index.graph
    units = sorted(index.catalog.unit_rows())
    edges = sorted(
        (
            tuple(sorted(graph.names(h))),
            tuple(sorted(graph.names(t))),
            d["weight"],
            tuple(sorted(d["provenance"])),
        )
        for h, t, d in graph.edges()
    )
    return {
        "units": units,
        "chroma_units": sorted(index.vectors.ids("units")),
        "chroma_passages": sorted(index.vectors.ids("passages")),
        "edges": edges,
        "mentions": sorted(index.catalog.mention_pairs()),
    }


def corrupt(index: Index) -> dict[str, list[str]]:
    """Break an index by hand, one store at a time; what was broken, by the disagreement it makes.

    Unit vectors and a passage vector deleted from Chroma, a unit's catalog row deleted, an edge
    added to the graph between two unlinked nodes, a passage vector and a mention of no passage.
    """
    catalog, graph, vectors = index.catalog, index.graph, index.vectors
    docs = [d.doc_id for d in catalog.documents() if catalog.unit_ids(d.doc_id)]
    lost_vectors = sorted(catalog.unit_ids(docs[0]))[:3]
    vectors.delete("units", lost_vectors)
    lost_passage = catalog.doc_passage_ids(docs[1])[0]
    vectors.delete("passages", [lost_passage])
    lost_row = sorted(catalog.unit_ids(docs[2]))[0]
    catalog.delete_unit_rows([lost_row])
    nodes = sorted(set(graph.all_names().values()))
    linked = {(h, t) for h, t, _ in graph.edges()}
    head, tail = next((h, t) for h in nodes for t in nodes if h != t and (h, t) not in linked)
    graph.add_edge(head, tail, "invented", "u-invented")
    graph.save()
    _, vector = vectors.get_vectors("passages", [catalog.doc_passage_ids(docs[3])[0]])
    vectors.upsert("passages", ["p-stray"], vector, ["stray"], [{"doc_id": "gone"}])
    catalog.add_mentions([(docs[0], "p-gone")])
    return {
        "units_without_vector": lost_vectors,
        "passages_without_vector": [lost_passage],
        "unit_vectors_without_unit": [lost_row],
        "passage_vectors_without_passage": ["p-stray"],
        "graph_edges_without_unit": [f"{graph.names(head)[0]} → {graph.names(tail)[0]}"],
        "stray_mentions": ["p-gone"],
    }
