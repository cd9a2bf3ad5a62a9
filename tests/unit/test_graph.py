import numpy as np

from resin.indexes.graph import EntityGraph
from resin.indexes.units import ReasoningUnit, entity_key


def relation(subject, obj, pid="p1"):
    return ReasoningUnit(
        kind="relation",
        subject=subject,
        predicate="linked to",
        object=obj,
        evidence=f"{subject} is linked to {obj}.",
        passage_id=pid,
    )


def add(graph, embedder, units):
    names = [n for u in units for n in (u.subject, u.object)]
    keys = graph.unknown_keys(names)
    first = {}
    for n in names:
        first.setdefault(entity_key(n), n)
    vectors = embedder.embed_documents([first[k] for k in keys])
    graph.add_units(units, dict(zip(keys, vectors, strict=True)))


def test_name_variants_merge_and_distinct_entities_stay_apart(tmp_path, embedder):
    graph = EntityGraph(tmp_path / "graph.json")
    add(
        graph,
        embedder,
        [
            relation("Orrin Dam", "Hessa Varn"),
            relation("the Orrin Dam", "Caldmere", "p2"),  # exact after normalization
            relation("Orrin dam's", "Tessel River", "p3"),  # case and possessive
            relation("Hessa Varn's", "Lindmoor", "p4"),
            relation("Ysolde Glacier", "Tessel River", "p5"),
            relation("Ysolde glacier", "Kestrel Pass", "p6"),
        ],
    )
    assert (
        graph.node_of("Orrin Dam") == graph.node_of("the Orrin Dam") == graph.node_of("Orrin dam's")
    )
    assert graph.node_of("Ysolde Glacier") == graph.node_of("ysolde glacier")
    distinct = {
        graph.node_of(n)
        for n in (
            "Orrin Dam",
            "Hessa Varn",
            "Caldmere",
            "Tessel River",
            "Lindmoor",
            "Ysolde Glacier",
            "Kestrel Pass",
        )
    }
    assert len(distinct) == 7
    dam = graph.node_of("Orrin Dam")
    assert graph.out_degree(dam) == 3


def test_embedding_similarity_merges_near_duplicates_only(tmp_path, embedder):
    graph = EntityGraph(tmp_path / "graph.json", merge_threshold=0.85)
    add(
        graph,
        embedder,
        [
            relation("Greywell Mine", "copper tailings"),
            relation("Greywell mines", "copper tailing", "p2"),
            relation("Lantern Run", "silverfin", "p3"),
        ],
    )
    assert graph.node_of("Greywell mines") == graph.node_of("Greywell Mine")
    assert graph.node_of("copper tailing") == graph.node_of("copper tailings")
    assert graph.node_of("Lantern Run") != graph.node_of("Greywell Mine")
    assert set(graph.names(graph.node_of("Greywell Mine"))) == {"Greywell Mine", "Greywell mines"}


def test_a_thing_of_an_entity_is_not_merged_into_it(tmp_path, embedder):
    # the owner's name dominates both vectors, above the merge threshold in one batch and across
    # batches; merged, the engineer's node would be shown as her notebooks
    names = ["Hessa Varn", "notebooks of Hessa Varn", "Tessel River", "mouth of the Tessel River"]
    vectors = np.asarray(embedder.embed_documents(names))
    assert vectors[0] @ vectors[1] >= 0.85 and vectors[2] @ vectors[3] >= 0.85
    together = EntityGraph(tmp_path / "one.json", merge_threshold=0.85)
    add(together, embedder, [relation(names[1], "Oster"), relation(names[0], names[2], "p2")])
    add(together, embedder, [relation(names[3], "Oster", "p3")])
    for a, b in ((0, 1), (2, 3)):
        assert together.node_of(names[a]) != together.node_of(names[b]), names[b]
    assert together.names(together.node_of("Hessa Varn")) == ["Hessa Varn"]


def test_edges_count_distinct_units_and_persist_atomically(tmp_path, embedder):
    path = tmp_path / "graph.json"
    graph = EntityGraph(path)
    units = [relation("Orrin Dam", "Hessa Varn"), relation("Orrin Dam", "Hessa Varn", "p2")]
    add(graph, embedder, units)
    add(graph, embedder, units)  # idempotent
    edge = graph.edge(graph.node_of("Orrin Dam"), graph.node_of("Hessa Varn"))
    assert edge["weight"] == 2 and sorted(edge["provenance"]) == sorted(u.id for u in units)
    graph.save()
    assert not list(tmp_path.glob(".graph-*"))
    loaded = EntityGraph(path)
    assert loaded.node_of("orrin dam") == graph.node_of("Orrin Dam")
    assert loaded.edge(graph.node_of("Orrin Dam"), graph.node_of("Hessa Varn"))["weight"] == 2
    removed = loaded.remove_units([units[0].id])
    assert not removed and loaded.edge_count() == 1
    removed = loaded.remove_units([units[1].id])
    assert set(removed) == {"orrin dam", "hessa varn"} and loaded.node_count() == 0


def test_heaviest_steps_follow_edge_changes(tmp_path, embedder):
    graph = EntityGraph(tmp_path / "graph.json")
    add(graph, embedder, [relation("Orrin Dam", "Hessa Varn"), relation("Varn Mill", "Orrin Dam")])
    add(graph, embedder, [relation("Orrin Dam", "Caldmere", pid) for pid in ("p1", "p2")])
    dam, varn, town, mill = (
        graph.node_of(n) for n in ("Orrin Dam", "Hessa Varn", "Caldmere", "Varn Mill")
    )
    # heaviest first; ties keep out-edges before in-edges
    assert graph.heaviest_steps(dam, "bidirectional", 3) == [
        (dam, town, "forward"),
        (dam, varn, "forward"),
        (mill, dam, "backward"),
    ]
    assert graph.heaviest_steps(dam, "forward", 1) == [(dam, town, "forward")]
    assert graph.heaviest_steps(dam, "backward", 8) == [(mill, dam, "backward")]
    # the cached ranking is dropped when the edges change
    add(graph, embedder, [relation("Orrin Dam", "Hessa Varn", pid) for pid in ("p3", "p4")])
    assert graph.heaviest_steps(dam, "forward", 1) == [(dam, varn, "forward")]
    graph.remove_units([relation("Orrin Dam", "Hessa Varn", pid).id for pid in ("p3", "p4")])
    assert graph.heaviest_steps(dam, "forward", 1) == [(dam, town, "forward")]
    names, vectors = graph.node_vectors([dam, town])
    assert names == [dam, town] and vectors.shape[0] == 2


def test_steps_within_holds_every_step_a_walk_of_that_depth_takes(tmp_path, embedder):
    graph = EntityGraph(tmp_path / "graph.json")
    chain = ["Orrin Dam", "Hessa Varn", "Caldmere", "Tessel River", "Kestrel Pass"]
    add(
        graph,
        embedder,
        [relation(a, b, f"p{i}") for i, (a, b) in enumerate(zip(chain, chain[1:], strict=False))],
    )
    dam, varn, town, river, _ = (graph.node_of(n) for n in chain)
    steps = graph.steps_within([dam], "forward", 8, 3)
    # the nodes 0, 1 and 2 steps away: a walk of depth 3 takes steps from those only
    assert list(steps) == [dam, varn, town]
    assert all(steps[n] == graph.heaviest_steps(n, "forward", 8) for n in steps)
    assert steps[town] == [(town, river, "forward")]
    both = graph.steps_within([town], "bidirectional", 8, 2)
    assert set(both) == {town, varn, river}
    assert graph.steps_within([dam], "forward", 8, 0) == {}
