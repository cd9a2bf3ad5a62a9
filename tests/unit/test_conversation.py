"""Follow-ups are read with the thread's previous turn; a resumed chat shows its last turns."""

import json

from langchain_core.messages import AIMessage, HumanMessage

from resin.agent.nodes.rewrite import hop_names, previous_turn, standalone
from resin.agent.state import Hop, HopResult
from resin.indexes.build import Builder
from resin.indexes.opening import close_indexes
from resin.indexes.reading import load_documents
from resin.testing.chat import ScriptedChatModel

from ..conftest import FIRST, FOLLOW_UP, SAMPLE_DOCS, two_turns


def schema_of(kwargs) -> str:
    return ((kwargs.get("response_format") or {}).get("json_schema") or {}).get("name")


def scripted_turns(referent: str | None = None) -> ScriptedChatModel:
    """Answers 'Hessa Varn', then 'Caldmere'; picks `referent` (default: the first choice)."""

    def respond(messages, kwargs):
        schema = schema_of(kwargs)
        if schema == "Referent":
            enum = kwargs["response_format"]["json_schema"]["schema"]["properties"]["name"]
            return json.dumps({"name": referent or enum["enum"][0]})
        assert schema == "ShortAnswer", kwargs
        asked = messages[-1].content.rpartition("<question>")[2]
        return json.dumps({"answer": "Caldmere" if "born" in asked else "Hessa Varn"})

    return ScriptedChatModel(responder=respond)


def test_a_follow_up_is_made_standalone_from_the_previous_turn(sample_index):
    model = scripted_turns()
    (first, first_events), (second, events) = two_turns(sample_index, model)
    # the first question passes through unchanged, with no model call to read it; `asked` is
    # the message as typed all the same
    assert first["question"] == FIRST == first["asked"]
    assert not any("read the follow-up" in note for note in first["notes"])
    assert first["answer"] == "Hessa Varn"
    referent_calls = [
        c for c in model.calls if c[1]["response_format"]["json_schema"]["name"] == "Referent"
    ]
    assert len(referent_calls) == 1
    # the follow-up is searched as a standalone question, shown in the plan event and the trace
    assert second["question"] == "Where was Hessa Varn born?"
    assert second["asked"] == FOLLOW_UP
    plan = next(e for e in events if e.get("event") == "plan")
    assert plan["question"] == "Where was Hessa Varn born?" and plan["asked"] == FOLLOW_UP
    assert second["plan"][0].question == "Where was Hessa Varn born?"
    assert any("Where was Hessa Varn born?" in note for note in second["notes"])
    assert second["answer"] == "Caldmere"
    # the choices offered were the previous turn's names, the answer first
    choices = referent_calls[0][1]["response_format"]["json_schema"]["schema"]["properties"]
    assert choices["name"]["enum"][0] == "Hessa Varn" and choices["name"]["enum"][-1] == "unsure"


def test_the_follow_up_is_answered_from_the_parser_units_without_a_model_answer(
    open_index, nlp_extractor, tmp_path
):
    # ranked answers, as the embedded model gives them: the unit (Hessa Varn | born in | port of
    # Caldmere) answers the rewritten question, not the dam her name stands beside elsewhere
    docs, _ = load_documents([SAMPLE_DOCS])
    Builder(open_index(), None, nlp=nlp_extractor).run(docs)
    close_indexes()
    try:
        turns = two_turns(tmp_path / "index", scripted_turns(), answer_mode="ranked")
    finally:
        close_indexes()
    (first, _), (second, _) = turns
    assert first["answer"] == "Hessa Varn"
    assert second["question"] == "Where was Hessa Varn born?"
    assert second["answer"] == "port of Caldmere"
    cited = " ".join(s["sentence"] for s in second["sources"])
    assert "Hessa Varn was born in the port of Caldmere" in cited


def test_a_pronoun_nobody_resolved_is_not_searched(sample_index):
    # the model was unsure who "she" is: the follow-up keeps its words, and is not searched as
    # typed (any birth sentence would match it); the reply asks for the name
    (_, _), (second, events) = two_turns(sample_index, scripted_turns(referent="unsure"))
    assert second["question"] == FOLLOW_UP == second["asked"]
    assert second["answer"] == "" and second["sources"] == [] and second["plan"] == []
    assert "“she”" in second["plan_reason"]
    assert "Please ask again with the name" in second["messages"][-1].content
    assert not [e for e in events if e.get("event") == "hop"]


def test_standalone_substitutes_possessives_and_skips_what_cannot_refer():
    model = scripted_turns()
    turn = (FIRST, "Hessa Varn")
    assert standalone("Where was her father born?", turn, model)[0] == (
        "Where was Hessa Varn's father born?"
    )
    # it never stands for the person the previous answer named
    assert standalone("When was it finished?", turn, model)[0] == "When was the Orrin Dam finished?"
    # no pronoun, no previous turn, or nothing a pronoun could mean: no model call at all
    calls = len(model.calls)
    assert standalone("What is the Tessel River?", turn, model)[0] == "What is the Tessel River?"
    assert standalone(FOLLOW_UP, ("", ""), model)[0] == FOLLOW_UP
    place = ("Which port is at the mouth of the Tessel River?", "Caldmere")
    assert standalone(FOLLOW_UP, place, model) == (FOLLOW_UP, [], ["she"])
    assert len(model.calls) == calls
    # a pronoun the question itself may mean is left to the search; one that owns the only noun,
    # or is no instance of the noun asked for, is not
    assert standalone("What parents abandon their eggs?", ("", ""), model).unresolved == []
    assert standalone("What is the capital of it?", ("", ""), model).unresolved == ["it"]
    assert standalone("What river is it on?", ("", ""), model).unresolved == ["it"]


BRIDGE = "In which port was the designer of the Orrin Dam born?"


def test_a_follow_up_may_mean_a_name_the_previous_turn_found_on_the_way(sample_index):
    # the designer is only hop 1's answer; "she" is her, not the port the turn answered
    model = scripted_turns()
    (first, _), (second, _) = two_turns(
        sample_index, model, follow_up="When was she born?", first=BRIDGE
    )
    assert [r.answer for r in first["results"].values()] == ["Hessa Varn", "Caldmere"]
    assert first["answer"] == "Caldmere"
    assert second["question"] == "When was Hessa Varn born?"
    referent = [c for c in model.calls if schema_of(c[1]) == "Referent"][-1]
    choices = referent[1]["response_format"]["json_schema"]["schema"]["properties"]["name"]
    assert choices["enum"] == ["Hessa Varn", "unsure"]


def test_hop_names_are_the_looked_up_answers_that_can_be_referents():
    plan = [
        Hop(id=1, question="Who designed the Orrin Dam?", answer_type="person"),
        Hop(id=2, question="When was #1 born?", depends_on=[1], answer_type="date"),
        Hop(id=3, question="Which river is the Orrin Dam on?", answer_type="place"),
        Hop(id=4, question="What is it called?", answer_type="other"),
        Hop(id=5, question="Which is older?", depends_on=[1, 3], compute="earliest"),
        Hop(id=6, question="Who built it?", answer_type="person"),
    ]
    results = {
        1: HopResult(hop=1, query="", status="resolved", answer="Hessa Varn"),
        2: HopResult(hop=2, query="", status="resolved", answer="1871"),
        3: HopResult(hop=3, query="", status="resolved", answer="Tessel River"),
        4: HopResult(hop=4, query="", status="resolved", answer="Orrin"),
        5: HopResult(hop=5, query="", status="resolved", answer="Tessel River"),
        6: HopResult(hop=6, query="", status="unresolved"),
    }
    # the last hop first; dates, computed picks and unresolved hops offer nothing
    assert hop_names(plan, results) == [
        ("Orrin", ""),
        ("Tessel River", "FAC"),
        ("Hessa Varn", "PERSON"),
    ]
    assert hop_names(plan, {}) == []


def test_the_previous_turn_is_the_last_human_message_and_its_answer_line():
    messages = [
        HumanMessage(FIRST),
        AIMessage("Hessa Varn\n\n- The Orrin Dam was designed by Hessa Varn. [1]"),
        HumanMessage(FOLLOW_UP),
    ]
    assert previous_turn(messages) == (FIRST, "Hessa Varn")
    assert previous_turn(messages[-1:]) == ("", "")


def test_chat_resumes_a_thread_showing_its_last_turns(sample_index, monkeypatch, capsys, tmp_path):
    import io
    import shutil

    from resin.cli import main

    index = tmp_path / "index"
    shutil.copytree(sample_index, index)
    argv = ["chat", "--index", str(index), "--model", "fake", "--thread", "t1"]
    monkeypatch.setattr("sys.stdin", io.StringIO(f"{FIRST}\n{FOLLOW_UP}\n"))
    assert main(argv) == 0
    first = capsys.readouterr()
    assert "(read as: Where was " in first.err
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    assert main(argv) == 0
    resumed = capsys.readouterr().err
    assert f"you> {FIRST}" in resumed and f"you> {FOLLOW_UP}" in resumed
    assert resumed.count("resin> ") == 2
