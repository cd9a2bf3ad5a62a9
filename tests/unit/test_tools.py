import pytest

from resin.indexes.build import Builder
from resin.testing.chat import ScriptedChatModel, heuristic_reply
from resin.tools import make_tools
from resin.tools.retrieval import traverse_chains

from ..conftest import DOCS


def test_tools_return_typed_results_bound_to_the_index(open_index):
    index = open_index()
    Builder(index, ScriptedChatModel(responder=heuristic_reply)).run(DOCS)
    tools = {t.name: t for t in make_tools(index)}
    assert set(tools) == {"find_units", "find_chains", "find_passages", "read_passages"}
    units = tools["find_units"].invoke(
        {"query": "Who designed the Orrin Dam?", "kinds": ["relation"]}
    )
    assert units and all(u["unit"]["kind"] == "relation" for u in units)
    assert units[0]["unit"]["sentence_ids"] and units[0]["unit"]["passage_id"]
    passages = tools["find_passages"].invoke({"query": "Where was Hessa Varn born?", "limit": 2})
    assert passages[0]["doc_id"] == "varn" and passages[0]["route"] == "fused"
    fetched = tools["read_passages"].invoke({"passage_ids": [passages[0]["passage_id"], "nope"]})
    assert len(fetched) == 1 and fetched[0]["sentences"][0]["text"].startswith("Hessa Varn")
    chains = tools["find_chains"].invoke({"query": "Orrin Dam", "direction": "forward"})
    assert chains and "Orrin Dam" in chains[0]["chain"]
    assert all(link["unit_ids"] for c in chains for link in c["links"])
    both = traverse_chains(index, "Orrin Dam", "bidirectional", top=10)
    edge_sets = [frozenset((x.head, x.tail) for x in c.links) for c in both]
    assert len(both) > 1 and len(set(edge_sets)) == len(edge_sets)  # met from both ends: once
    assert [c.score for c in both] == sorted((c.score for c in both), reverse=True)
    # the schema a chat model sees documents every argument
    assert "direction" in tools["find_chains"].args


def test_bridge_entities_cross_to_the_passages_of_named_entities(open_index):
    from resin.tools.entities import bridge_entities, named_in

    index = open_index()
    Builder(index, None).run(DOCS)  # structural index: mentions alone carry the bridge
    dam = index.catalog.doc_passage_ids("orrin")
    assert named_in(index, "Who designed the Orrin Dam?") == ["orrin dam"]
    bridges = bridge_entities(index, dam, "Where was the designer of the Orrin Dam born?", held=dam)
    assert bridges and bridges[0][0] == "Hessa Varn"
    assert bridges[0][1].passage_id == index.catalog.doc_passage_ids("varn")[0]
    assert all(hit.passage_id not in dam for _, hit in bridges)
    # nothing to cross to: no candidates, no error
    everything = [p.id for p in index.catalog.iter_passages()]
    assert bridge_entities(index, dam, "anything", held=everything) == []


def test_common_names_are_ranked_among_the_querys_neighbours(open_index, monkeypatch):
    import resin.indexes.reads as reads
    import resin.tools.entities as entities

    index = open_index()
    Builder(index, ScriptedChatModel(responder=heuristic_reply)).run(DOCS)
    question = "Where was Hessa Varn born?"
    exact = entities.units_about(index, "Hessa Varn", k=5, query=question)
    assert len(exact) == 2  # both of her sentences, ranked by the question
    query = "What draws water from the Orrin Reservoir?"
    named = entities.passages_about(index, "Orrin Reservoir", query, k=2)
    assert len(named) == 2  # the dam's passage and the mill's both name it
    # with a scan of one, Hessa Varn (2 units) and the Orrin Reservoir (2 passages) count as
    # common: ids-only neighbours filtered by the catalog, then the winners read in full
    monkeypatch.setattr(entities, "ABOUT_SCAN", 1)
    monkeypatch.setattr(reads, "ABOUT_SCAN", 1)
    near = entities.units_about(index, "Hessa Varn", k=5, query=question)
    assert [h.unit.id for h in near] == [exact[0].unit.id]
    assert near[0].score == pytest.approx(exact[0].score, abs=1e-4)
    about = entities.passages_about(index, "Orrin Reservoir", query, k=2)
    assert [(p.passage_id, p.text) for p in about] == [(named[0].passage_id, named[0].text)]
    assert about[0].route == "entity"
    assert index.catalog.with_subject("hessa varn", [h.unit.id for h in exact] + ["nope"]) == {
        h.unit.id for h in exact
    }
