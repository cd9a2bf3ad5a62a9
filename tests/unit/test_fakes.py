"""The test doubles of tests/fakes.py and evals: what they answer, so tests may rely on it.

`heuristic_reply` is keyed on the names of schemas from three packages (indexes, agent, and the
answer step); each is asked here through the real response format, so a renamed schema fails
here and not in some test that merely gets an empty reply.
"""

import json

import numpy as np
import pytest
from langchain_core.messages import HumanMessage

from resin.agent.answering.answer import ShortAnswer, choice_format
from resin.agent.context import Context
from resin.agent.graph import graph
from resin.agent.nodes.rewrite import Referent
from resin.agent.state import Plan
from resin.evals.hash_embedder import HashEmbedder
from resin.indexes.documents import Document, Passage, make_passages
from resin.indexes.extraction import ExtractionOutput, extraction_messages
from resin.indexes.units import ReasoningUnit
from resin.prompts.structured import json_schema_format
from resin.testing.chat import ScriptedChatModel, heuristic_reply, rule_based

from ..fakes import FakeIndex, scripted


def reply(model, fmt, text="<question>Who?</question>"):
    return model.bind(response_format=fmt).invoke([HumanMessage(text)]).content


def test_a_scripted_model_replies_from_its_list_then_its_responder_and_records_every_call():
    model = ScriptedChatModel(responses=["one"], responder=lambda m, k: "more")
    assert model.invoke("a").content == "one"
    assert model.bind(max_tokens=3).invoke("b").content == "more"
    assert [kwargs.get("max_tokens") for _, kwargs in model.calls] == [None, 3]
    assert model.invoke("c").usage_metadata["output_tokens"] == 1


def test_a_scripted_model_streams_its_reply_and_may_keep_no_calls():
    model = ScriptedChatModel(responses=["a streamed reply"], record=False)
    assert "".join(str(c.content) for c in model.stream("x")) == "a streamed reply"
    assert model.calls == []


def test_a_scripted_model_out_of_replies_says_so():
    with pytest.raises(RuntimeError, match="ran out of responses"):
        ScriptedChatModel(responses=[]).invoke("x")


def test_the_rule_based_model_extracts_a_relation_between_the_first_two_names():
    doc = Document(id="d", title="Orrin Dam", text="The Orrin Dam was designed by Hessa Varn.")
    passage = make_passages(doc)[0]
    fmt = json_schema_format(ExtractionOutput)
    out = rule_based().bind(response_format=fmt).invoke(extraction_messages(passage))
    (unit,) = json.loads(str(out.content))["units"]
    assert (unit["kind"], unit["subject"], unit["object"]) == (
        "relation",
        "The Orrin Dam",
        "Hessa Varn",
    )
    assert unit["quote"] == doc.text


def test_the_rule_based_model_picks_the_first_choice_and_names_otherwise():
    assert json.loads(reply(rule_based(), choice_format(["Caldmere", "Lindmoor"]))) == {
        "answer": "Caldmere"
    }
    free = json_schema_format(ShortAnswer)
    written = reply(rule_based(), free, "Hessa Varn built it. <question>Who built it?</question>")
    assert json.loads(written) == {"answer": "Hessa Varn"}
    referent = json_schema_format(Referent)
    referent["json_schema"]["schema"]["properties"]["name"] = {"enum": ["Hessa Varn", "unsure"]}
    assert json.loads(reply(rule_based(), referent)) == {"name": "Hessa Varn"}


def test_the_rule_based_model_gives_no_plan_and_cites_the_first_sentence_in_free_text():
    assert reply(rule_based(), json_schema_format(Plan)) == "{}"
    prompt = '<passage id="1">The Orrin Dam holds the reservoir. It is old.</passage>'
    assert heuristic_reply([HumanMessage(prompt)], {}) == "The Orrin Dam holds the reservoir. [1]"


def test_the_graph_script_answers_each_step_by_its_schema():
    model = scripted(plan={"hops": [{"id": 1, "question": "Who designed it?"}]}, bridge="Varn")
    assert json.loads(reply(model, json_schema_format(Plan)))["hops"][0]["id"] == 1
    assert json.loads(reply(model, choice_format(["x"]))) == {"answer": "Caldmere"}


def test_the_hash_embedder_is_deterministic_normalized_and_lexical():
    embedder = HashEmbedder()
    one, same, other = embedder.embed_documents(["Orrin Dam", "orrin  dam!", "Brannock Mill"])
    assert one == same == embedder.embed_query("Orrin Dam")
    assert len(one) == HashEmbedder.dim and np.linalg.norm(one) == pytest.approx(1.0)
    assert np.dot(one, other) < np.dot(one, same)


def film_index():
    """Two films' directors and where each director was born, with the units a parser writes."""
    index = FakeIndex()
    for film, director, year in (
        ("Glass Harbor", "Kara Venn", "1998"),
        ("Cold Rain", "Per Odd", "2004"),
    ):
        index.add(
            film,
            f"{film} is a {year} drama film directed by {director}.",
            [unit("relation", film, "directed by", director, f"{film} is directed by {director}.")],
        )
    for director, town in (("Kara Venn", "Pellisk"), ("Per Odd", "Varrow")):
        index.add(
            director,
            f"{director} is a film director. {director} was born in {town}, a harbour town.",
            [unit("entity-fact", director, "born in", town, f"{director} was born in {town}.")],
        )
    return index


def unit(kind, subject, predicate, obj, evidence):
    return ReasoningUnit(
        kind=kind,
        extractor="nlp",
        subject=subject,
        predicate=predicate,
        object=obj,
        evidence=evidence,
    )


def test_the_fake_index_answers_the_typed_reads_as_a_real_index_does():
    index = film_index()
    [(top, score)] = index.search_units("Who directed Glass Harbor?", 1, about="glass harbor")
    assert isinstance(top, ReasoningUnit) and top.object == "Kara Venn" and score > 0
    assert not index.search_units("Who directed Glass Harbor?", 3, kinds=["causal-edge"])
    ranked = index.search_passages("Where was Per Odd born?", 2)
    passage = index.passages([ranked[0][0]])[0]
    assert isinstance(passage, Passage) and passage.title == "Per Odd"
    entity = index.entity_named("Kara Venn")
    assert entity is not None and entity.name == "Kara Venn"
    assert index.mentions("kara venn") and index.link_count() == 2
    assert {(link.head, link.tail) for link in index.links()} <= {
        (index.entity_named(a).id, index.entity_named(b).id)
        for a, b in (("Glass Harbor", "Kara Venn"), ("Cold Rain", "Per Odd"))
    }


def test_the_graph_reads_hop_by_hop_on_the_fake_index(monkeypatch):
    """Planning, both hops and compose, with no store or model on disk: the parse plans."""
    index = film_index()
    monkeypatch.setattr("resin.agent.resources.open_index", lambda *a, **k: index)
    ctx = Context(index_path="fake-index", plan_model="parsed", answer_mode="ranked")
    question = {"question": "Where was the director of Glass Harbor born?"}
    events = list(graph.stream(question, context=ctx, stream_mode=["custom", "values"]))
    hops = [e for mode, e in events if mode == "custom" and e.get("event") == "hop"]
    out = next(e for mode, e in reversed(events) if mode == "values")
    assert out["plan_source"] == "parsed" and len(out["plan"]) == 2
    assert [h["answer"] for h in sorted(hops, key=lambda h: h["hop"])] == ["Kara Venn", "Pellisk"]
    assert out["answer"] == "Pellisk"
    assert [s["title"] for s in out["sources"]][:2] == ["Glass Harbor", "Kara Venn"]
