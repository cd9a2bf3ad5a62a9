"""The test doubles of tests/fakes.py and evals: what they answer, so tests may rely on it.

`heuristic_reply` is keyed on the names of schemas from three packages (indexes, agent, and the
answer step); each is asked here through the real response format, so a renamed schema fails
here and not in some test that merely gets an empty reply.
"""

import json

import numpy as np
import pytest
from langchain_core.messages import HumanMessage

from agent.answering import ShortAnswer, choice_format
from agent.nodes.rewrite import Referent
from agent.state import Plan
from evals.hash_embedder import HashEmbedder
from indexes.documents import Document, make_passages
from indexes.extraction import ExtractionOutput, extraction_messages
from prompts.structured import json_schema_format
from tests.fakes import ScriptedChatModel, heuristic_reply, rule_based, scripted


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
