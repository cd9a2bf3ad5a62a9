import json

import pytest
from langchain_core.messages import AIMessage, HumanMessage
from langgraph.checkpoint.memory import InMemorySaver

from resin.agent.context import Context
from resin.agent.graph import builder, graph
from resin.agent.language.questions import Question
from resin.agent.llm import register_chat_model
from resin.agent.nodes.compose import buffer_order, supported, unwritten
from resin.agent.nodes.dispatch import route_hops
from resin.agent.nodes.plan import PlanError, validate_plan
from resin.agent.state import Evidence, Hop, HopResult, Plan
from resin.testing.chat import ScriptedChatModel

from ..conftest import QUESTION
from ..fakes import FakeIndex, scripted


def compiled(sample_index, model, **fields):
    """The graph with its own saver, every step on the scripted `model`."""
    register_chat_model("scripted", model)
    ctx = Context.one_model("scripted", index_path=str(sample_index), **fields)
    return builder.compile(checkpointer=InMemorySaver()), ctx


def run(sample_index, model, question=QUESTION, **fields):
    graph, ctx = compiled(sample_index, model, **fields)
    config = {"configurable": {"thread_id": "t1"}}
    events = list(
        graph.stream({"question": question}, config, context=ctx, stream_mode=["debug", "custom"])
    )
    return graph.get_state(config).values, events


def task_steps(events, name):
    return [
        e["step"]
        for mode, e in events
        if mode == "debug" and e["type"] == "task" and e["payload"]["name"] == name
    ]


TWO_HOPS = {
    "hops": [
        {"id": 1, "question": "Who designed the Orrin Dam?", "depends_on": []},
        {"id": 2, "question": "In which port was #1 born?", "depends_on": [1]},
    ]
}


def test_two_hop_bridge_fills_the_second_query_with_the_first_answer(sample_index):
    model = scripted(plan=TWO_HOPS, bridge="Hessa Varn")
    state, events = run(sample_index, model)
    assert state["plan_source"] == "model"
    assert state["results"][1].bridge == "Hessa Varn"
    assert state["results"][2].query == "In which port was Hessa Varn born?"
    assert task_steps(events, "resolve_hop")[0] < task_steps(events, "resolve_hop")[1]
    # hop 2's evidence is about Hessa Varn: her passage is in the buffer
    buffer_titles = {json.dumps(e.quote) for e in state["evidence"] if e.hop == 2}
    assert any("Hessa Varn" in t or "Caldmere" in t for t in buffer_titles)
    assert state["answer"].startswith("Caldmere")


def test_an_ungrounded_bridge_answer_is_not_passed_on(sample_index):
    state, _ = run(sample_index, scripted(plan=TWO_HOPS, bridge="Napoleon Bonaparte"))
    assert "Napoleon" not in state["results"][2].query


def test_independent_hops_are_dispatched_in_the_same_step(sample_index):
    plan = {
        "hops": [
            {"id": 1, "question": "When was the Orrin Dam built?", "depends_on": []},
            {"id": 2, "question": "When was the Brannock Mill built?", "depends_on": []},
        ]
    }
    state, events = run(sample_index, scripted(plan=plan, answer="Brannock Mill"))
    steps = task_steps(events, "resolve_hop")
    assert len(steps) == 2 and steps[0] == steps[1]
    assert task_steps(events, "compose")[0] > steps[0]
    assert {e.hop for e in state["evidence"]} == {1, 2}


def answer_calls(model):
    return [
        c for c in model.calls if c[1]["response_format"]["json_schema"]["name"] == "ShortAnswer"
    ]


def test_compose_waits_for_every_hop_and_sees_passages_not_hop_answers(sample_index):
    model = scripted(plan=TWO_HOPS, bridge="Hessa Varn")
    state, events = run(sample_index, model)
    compose_step = task_steps(events, "compose")[0]
    assert all(step < compose_step for step in task_steps(events, "resolve_hop"))
    calls = answer_calls(model)
    assert len(calls) == 1
    (system, user), kwargs = calls[0]
    prompt = user.content
    from resin.agent.resources import get_index

    index = get_index(Context(index_path=str(sample_index)))
    held = index.catalog.passages({e.passage_id for e in state["evidence"]})
    sentences = {s.text for p in held for s in p.sentences}
    shown = [line[2:] for line in prompt.splitlines() if line.startswith("- ")]
    assert shown and all(line in sentences for line in shown)  # evidence = buffer sentences
    # the choices are an enum in the schema, every one written in a buffer passage
    choices = kwargs["response_format"]["json_schema"]["schema"]["properties"]["answer"]["enum"]
    assert len(choices) >= 3 and "not found" not in choices  # code decides "not found"
    text = " ".join(p.text for p in held).lower()
    assert all(c.lower() in text for c in choices)
    # the hop answers and filled hop queries never reach the answer step
    assert "In which port was Hessa Varn born?" not in prompt
    assert "Who designed the Orrin Dam?" not in prompt
    assert "never instructions" in system.content


def test_route_hops_never_composes_while_a_hop_is_pending():
    plan = [
        Hop(id=1, question="first hop?"),
        Hop(id=2, question="uses #1?", depends_on=[1]),
        Hop(id=3, question="independent?"),
    ]
    sends = route_hops({"plan": plan, "results": {}})
    assert sorted(s.arg["hop"].id for s in sends) == [1, 3]
    done = {1: HopResult(hop=1, query="q", status="resolved")}
    sends = route_hops({"plan": plan, "results": done})
    assert sorted(s.arg["hop"].id for s in sends) == [2, 3]
    assert sends[0].arg["has_dependents"] is False
    all_done = {i: HopResult(hop=i, query="q", status="unresolved") for i in (1, 2, 3)}
    assert route_hops({"plan": plan, "results": all_done}) == "compose"


@pytest.mark.parametrize(
    "bad_plan",
    [
        "not json at all",
        json.dumps({"hops": []}),
        json.dumps(
            {
                "hops": [
                    {"id": 1, "question": "a question?", "depends_on": [2]},
                    {"id": 2, "question": "another one?", "depends_on": [1]},
                ]
            }
        ),
        json.dumps({"hops": [{"id": 1, "question": "Where was #2 born?", "depends_on": []}]}),
    ],
)
def test_a_broken_plan_falls_back_to_the_parse_then_to_a_structural_plan(sample_index, bad_plan):
    parsed, _ = run(sample_index, scripted(plan=bad_plan), plan_model="parsed")
    assert parsed["plan_source"] == "parsed"
    assert [h.question for h in parsed["plan"]] == [
        "Who is the designer of Orrin Dam?",
        "In which port was #1 born?",
    ]
    assert parsed["results"][1].answer == "Hessa Varn"
    undecomposable = "Who designed the Orrin Dam?"
    state, events = run(sample_index, scripted(plan=bad_plan), question=undecomposable)
    assert run(sample_index, scripted(plan=bad_plan))[0]["plan_source"] == "structural"
    assert state["plan_source"] == "structural"
    assert state["plan"][0].question == undecomposable and state["plan"][0].depends_on == []
    # the structural plan follows bridge entities named in hop 1's passages
    assert all(h.entity and h.depends_on == [1] for h in state["plan"][1:])
    assert [e for m, e in events if m == "custom" and e.get("event") == "plan"][0][
        "source"
    ] == "structural"


def test_validate_plan_names_the_problem():
    with pytest.raises(PlanError, match="cycle"):
        validate_plan(
            Plan(
                hops=[
                    Hop(id=1, question="first?", depends_on=[2]),
                    Hop(id=2, question="second?", depends_on=[1]),
                ]
            )
        )
    with pytest.raises(PlanError, match="unknown hop 7"):
        validate_plan(Plan(hops=[Hop(id=1, question="first?", depends_on=[7])]))
    with pytest.raises(PlanError, match="more than"):
        validate_plan(Plan(hops=[Hop(id=i, question="a question") for i in range(1, 8)]))
    # what the 135M model writes when grammar makes it parseable but not sensible
    with pytest.raises(PlanError, match="not a question"):
        validate_plan(Plan(hops=[Hop(id=1, question="most_famous_statute")]))
    with pytest.raises(PlanError, match="same question"):
        validate_plan(
            Plan(hops=[Hop(id=1, question="Who built it?"), Hop(id=2, question="who built it")])
        )


def test_a_hop_about_an_entity_the_index_does_not_know_searches_by_its_question(sample_index):
    plan = {"hops": [{"id": 1, "question": "Who designed the Orrin Dam?", "entity": "Kochs"}]}
    state, _ = run(sample_index, scripted(plan=plan))
    assert state["plan_source"] == "model"
    assert state["results"][1].status == "resolved"
    assert any(e.hop == 1 and e.route != "entity" for e in state["evidence"])


def test_weak_unit_hits_stay_out_of_the_buffer_and_leave_room_for_bridges(sample_index):
    from resin.agent.nodes.resolve_hop import UNIT_HIT
    from resin.agent.resources import get_index
    from resin.tools.retrieval import search_units

    question = "Which reservoir feeds the mill that supplies flour to Caldmere?"
    state, _ = run(sample_index, scripted(), question)
    _, ctx = compiled(sample_index, scripted())
    searched = search_units(get_index(ctx), question, None, ctx.k_per_hop)
    assert any(u.score < UNIT_HIT for u in searched)  # the search does return weak hits
    hop1_units = [e for e in state["evidence"] if e.hop == 1 and e.route == "units"]
    assert len(hop1_units) == sum(u.score >= UNIT_HIT for u in searched)
    assert any(e.hop > 1 for e in state["evidence"])  # the bridge hops still ran


def test_the_answer_message_has_the_short_answer_supporting_sentences_and_sources(sample_index):
    state, _ = run(sample_index, scripted(plan=TWO_HOPS, bridge="Hessa Varn"))
    assert state["answer"] == "Caldmere"
    held = {e.passage_id for e in state["evidence"]}
    sources = state["sources"]
    assert 1 <= len(sources) <= 3 and {s["passage_id"] for s in sources} <= held
    assert "Caldmere" in sources[0]["sentence"]
    assert state["citations"] == list(dict.fromkeys(s["passage_id"] for s in sources))
    message = state["messages"][-1].content
    lines = message.splitlines()
    assert lines[0] == "Caldmere"
    for source in sources:  # each supporting sentence with its label, then the Sources entry
        assert f"- {source['sentence']} [{source['label']}]" in lines
        assert f'- [{source["label"]}] {source["title"]}: "{source["sentence"]}"' in lines
    assert lines.index("Sources:") > max(
        lines.index(f"- {s['sentence']} [{s['label']}]") for s in sources
    )


@pytest.mark.parametrize("reply", ["Napoleon Bonaparte", "not found", "{not json"])
def test_an_answer_outside_the_choices_is_not_found_never_the_models_claim(sample_index, reply):
    model = scripted(answer=reply)
    if reply.startswith("{"):
        model = ScriptedChatModel(responder=lambda m, k: reply)
    state, _ = run(sample_index, model)
    assert state["messages"][-1].content == "I could not find this in the documents."
    assert state["sources"] == [] and state["citations"] == []
    assert state["notes"]


def test_a_question_about_a_name_no_passage_writes_is_not_found(sample_index):
    state, _ = run(sample_index, scripted(), question="Who designed the Brightwater Dam?")
    assert state["answer"] == "I could not find this in the documents." and not state["sources"]
    assert "no document names 'Brightwater Dam'" in state["notes"]


def test_a_relation_no_sentence_writes_with_its_subject_is_not_found(sample_index):
    state, _ = run(sample_index, scripted(), question="Who founded the Greywell Mine?")
    assert state["answer"] == "I could not find this in the documents." and not state["sources"]
    assert "no sentence writes 'Greywell Mine' and 'founded' together" in state["notes"]


def test_one_sentence_must_write_the_subject_and_the_relation_together():
    index = FakeIndex()
    mine = index.add("Tarn Mine", "The Tarn Mine opened in 1881.")
    mill = index.add("Tarn Mill", "Since the founding of the Tarn Mill, the river has turned it.")
    founders = index.add(
        "Tarn Mine history", "Ore was found in 1880. The Tarn Mine was founded by Ada Rook."
    )
    own_page = index.add("Ada Rook", "Ada Rook was a miner. She died in Quarry Bay.")
    asked = Question.read("Who founded the Tarn Mine?")
    assert supported(asked, [*mine, *mill]) == (
        "no sentence writes 'Tarn Mine' and 'founded' together",
        [],
    )
    # the passages come back cut to the sentences that write both, their text with them
    gap, cut = supported(asked, [*mine, *mill, *founders])
    assert gap == "" and [p.id for p in cut] == [founders[0].id]
    assert [s.text for s in cut[0].sentences] == ["The Tarn Mine was founded by Ada Rook."]
    assert cut[0].text == "The Tarn Mine was founded by Ada Rook."
    # a sentence on the subject's own page names it, pronoun or not
    gap, cut = supported(Question.read("Where did Ada Rook die?"), own_page)
    assert gap == "" and [s.text for p in cut for s in p.sentences] == ["She died in Quarry Bay."]
    # an inflected relation: "study" is written "studied"
    studied = index.add("Ada Rook notes", "Ada Rook studied the Tarn River.")
    assert supported(Question.read("What did Ada Rook study?"), studied)[0] == ""
    # only a question asking one thing of one name is checked
    assert supported(Question.read("Why did the Tarn Mine close?"), mine) is None


def test_a_one_name_question_reads_only_the_sentences_that_write_its_name_and_relation(
    sample_index,
):
    # offline, as shipped: the ranking picks the answer, no model call
    ctx = Context(index_path=str(sample_index))
    # the mill's page writes more about it ("the largest employer in Lindmoor") than it grinds
    state = graph.invoke({"question": "What does the Brannock Mill grind?"}, context=ctx)
    assert [s["sentence"] for s in state["sources"]] == [
        "The Brannock Mill grinds rye and barley grown in the Tessel Valley."
    ]
    assert state["answer"] in ("rye", "rye and barley")
    # a sentence that says "he" on the subject's own page answers, though it shares one word
    state = graph.invoke({"question": "Where did Oren Thale die?"}, context=ctx)
    assert state["answer"] == "Caldmere"
    assert state["sources"][0]["sentence"] == "He died in Caldmere in 1994."


def test_a_name_the_hops_missed_is_looked_up_in_the_whole_index():
    index = FakeIndex()
    dam = index.add("Orrin Dam", "The Orrin Dam was designed by Hessa Varn.")
    index.add("Strömstad", "Strömstad is a town on the west coast.")
    asked = Question.read("Which dam near Stromstad did Hessa Varn design?")
    assert unwritten(asked, dam, index) == []  # written, with its accent, in another document
    elsewhere = Question.read("Which dam near Brightwater did Hessa Varn design?")
    assert unwritten(elsewhere, dam, index) == ["Brightwater"]


def test_messages_in_messages_out_and_progress_events(sample_index):
    graph, ctx = compiled(sample_index, scripted())
    config = {"configurable": {"thread_id": "chat"}}
    custom = []
    for mode, payload in graph.stream(
        {"messages": [HumanMessage(QUESTION)]},
        config,
        context=ctx,
        stream_mode=["custom", "updates"],
    ):
        if mode == "custom" and "event" in payload:  # not the chat's UI messages
            custom.append(payload["event"])
    assert custom[0] == "plan" and "hop" in custom and custom[-2:] == ["composing", "answer"]
    state = graph.get_state(config).values
    assert isinstance(state["messages"][-1], AIMessage)
    assert state["messages"][-1].content.startswith("Caldmere\n")
    # a second turn starts a fresh buffer
    graph.invoke(
        {"messages": [HumanMessage("Which pass does the Salt Ledger Road cross?")]},
        config,
        context=ctx,
    )
    second = graph.get_state(config).values
    assert len(second["messages"]) == 4
    assert all(e.hop in {h.id for h in second["plan"]} for e in second["evidence"])
    assert second["plan"][0].question == "Which pass does the Salt Ledger Road cross?"


def test_checkpoints_hold_plain_json_and_load_back_as_models(sample_index):
    """A server's serializer needs no allowlist of resin's types to store or reload a thread."""
    graph, ctx = compiled(sample_index, scripted(plan=TWO_HOPS))
    config = {"configurable": {"thread_id": "json"}}
    graph.invoke({"messages": [HumanMessage(QUESTION)]}, config, context=ctx)
    stored = graph.checkpointer.get_tuple(config).checkpoint["channel_values"]

    def plain(value):
        if isinstance(value, dict):
            return all(isinstance(k, str) and plain(v) for k, v in value.items())
        if isinstance(value, list):
            return all(plain(v) for v in value)
        return value is None or isinstance(value, str | int | float | bool)

    for key in ("plan", "results", "evidence", "chains"):
        assert plain(stored[key]), key
    assert stored["evidence"] and stored["results"]
    values = graph.get_state(config).values
    assert isinstance(values["plan"][0], Hop) and isinstance(values["results"][1], HopResult)


def test_graph_wiring_matches_the_snapshot():
    from pathlib import Path

    from resin.agent.graph import graph

    snapshot = Path(__file__).with_name("graph.mmd").read_text()
    assert graph.get_graph().draw_mermaid() == snapshot


def test_content_blocks_are_read_as_the_question(sample_index):
    """What agent-chat-ui sends: a list of content blocks, not a string."""
    model = scripted(plan=TWO_HOPS, bridge="Hessa Varn")
    graph, ctx = compiled(sample_index, model)
    blocks = [
        {"type": "text", "text": "In which port was the designer"},
        {"type": "image", "url": "https://example.invalid/dam.png"},
        {"type": "text", "text": "of the Orrin Dam born?"},
    ]
    config = {"configurable": {"thread_id": "blocks"}}
    graph.invoke({"messages": [HumanMessage(content=blocks)]}, config, context=ctx)
    state = graph.get_state(config).values
    assert state["question"] == QUESTION
    plan_prompt = next(c for c in model.calls if "Plan" in str(c[1]["response_format"]))
    assert QUESTION in plan_prompt[0][-1].content and "'type'" not in plan_prompt[0][-1].content
    assert state["answer"] == "Caldmere"
    assert any("image" in note for note in state["notes"])


@pytest.mark.parametrize(
    ("content", "reply"),
    [
        ([{"type": "image", "url": "https://example.invalid/x.png"}], "no text, only image"),
        ("hi", "Ask me a question about your documents"),
        ("   ", "Ask me a question about your documents"),
        ("Where is the dam? " * 200, "Please ask it in fewer words"),
    ],
)
def test_input_that_cannot_be_searched_gets_a_clear_reply(sample_index, content, reply):
    model = scripted()
    graph, ctx = compiled(sample_index, model)
    state = graph.invoke(
        {"messages": [HumanMessage(content=content)]},
        {"configurable": {"thread_id": "bad"}},
        context=ctx,
    )
    assert reply in state["messages"][-1].content
    assert state["plan"] == [] and state["sources"] == [] and not model.calls


def _buffered(pid: str, hop: int, route: str) -> Evidence:
    return Evidence(
        id=pid,
        passage_id=pid,
        sentence_ids=[f"{pid}:0"],
        quote="",
        score=1.0,
        hop=hop,
        route=route,  # type: ignore[arg-type]
    )


def test_each_hops_answer_passage_leads_then_alternatives_then_the_rest():
    evidence = [
        _buffered("a1", 1, "answer"),  # hop 1's answer
        _buffered("a2", 1, "answer"),  # hop 1's alternative
        _buffered("r1", 1, "read"),
        _buffered("b1", 2, "answer"),  # hop 2's answer: second, ahead of hop 1's alternative
        _buffered("d2", 2, "dense"),
    ]
    order = buffer_order(evidence)
    assert sorted(order, key=order.__getitem__) == ["a1", "b1", "a2", "d2", "r1"]


def test_the_hops_take_turns_with_what_they_only_read():
    evidence = [
        _buffered("a1", 1, "answer"),
        _buffered("r1a", 1, "read"),
        _buffered("r1b", 1, "read"),
        _buffered("r1c", 1, "read"),
        _buffered("a2", 2, "answer"),
        _buffered("r2a", 2, "read"),
    ]
    order = buffer_order(evidence)
    # hop 2's best read passage is not pushed behind everything hop 1 read
    assert sorted(order, key=order.__getitem__) == ["a1", "a2", "r1a", "r2a", "r1b", "r1c"]
    # without answers (a structural plan) the passages keep hop order
    plain = [_buffered("p1", 1, "fused"), _buffered("p2", 1, "fused"), _buffered("q1", 2, "entity")]
    order = buffer_order(plain)
    assert sorted(order, key=order.__getitem__) == ["p1", "p2", "q1"]
