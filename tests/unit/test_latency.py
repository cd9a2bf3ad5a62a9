"""Where a question's time goes: which planner ran and why, stage seconds in events and output."""

import json
import re

import pytest

from resin.agent.context import Context
from resin.agent.llm import register_chat_model
from resin.agent.nodes.plan import EMBEDDED_VALID_PLANS, planner
from resin.agent.nodes.resolve_hop import (
    BRIDGE_PROMPT_TOKENS,
    bridge_evidence,
    bridge_messages,
    bridge_value,
)
from resin.agent.state import Evidence, Hop
from resin.cli import main
from resin.testing.chat import ScriptedChatModel

from ..conftest import QUESTION

# A registered name that reads as a local GGUF: `auto` must plan structurally for it.
from ..fakes import scripted

# A registered name that reads as a local GGUF: `auto` must plan structurally for it.
LOCAL_GGUF = "gguf:/models/scripted-local.gguf"


def test_auto_plans_structurally_for_local_models_and_says_why():
    spec, reason = planner(Context(plan_model="auto", compose_model="embedded"))
    assert spec is None and reason.startswith("structural:")
    assert "embedded 135M" in reason
    for name, rate in EMBEDDED_VALID_PLANS.items():  # the measured evidence, in the reason
        assert f"{rate}% of {name}" in reason
    spec, reason = planner(Context(plan_model="auto", compose_model="gguf:/m/q.gguf"))
    assert spec is None and "not measured as a planner" in reason
    spec, reason = planner(Context(plan_model="auto", compose_model="openai:m@http://h/v1"))
    assert spec == "openai:m@http://h/v1" and reason.startswith("model:")
    spec, reason = planner(Context(plan_model="none", compose_model="openai:m@http://h/v1"))
    assert spec is None and reason == "structural: plan_model is none"
    spec, reason = planner(Context(plan_model="embedded", compose_model="embedded"))
    assert spec == "embedded" and reason == "model: plan_model is embedded"


def run_cli(sample_index, capsys, model: str, *extra: str) -> tuple[str, str]:
    assert main(["ask", QUESTION, "--index", str(sample_index), "--model", model, *extra]) == 0
    captured = capsys.readouterr()
    return captured.out, captured.err


def test_a_local_model_makes_no_plan_call_and_the_trace_says_which_planner_ran(
    sample_index, capsys
):
    model = scripted(plan={"hops": [{"id": 1, "question": "Who designed the Orrin Dam?"}]})
    register_chat_model(LOCAL_GGUF, model)
    out, err = run_cli(sample_index, capsys, LOCAL_GGUF, "--trace")
    schemas = [k["response_format"]["json_schema"]["name"] for _, k in model.calls]
    assert "Plan" not in schemas  # no planning call: the question's parse planned
    reason = (
        "parsed: the question's parse gives 2 hop(s) "
        f"({LOCAL_GGUF} is a local GGUF not measured as a planner)"
    )
    assert "· plan, 2 hop(s)" in err and reason in err
    trace = out.split("── plan", 1)[1]
    assert trace.splitlines()[1].strip() == reason


def test_stage_seconds_in_the_stream_events_and_in_ask_output(sample_index, capsys):
    register_chat_model("scripted-timed", scripted())
    out, err = run_cli(sample_index, capsys, "scripted-timed", "--json")
    state = json.loads(out)
    timings = state["timings"]
    assert set(timings) == {"rewrite", "plan", "hops", "compose", "first_token", "total"}
    assert all(v >= 0 for v in timings.values())
    stages = timings["rewrite"] + timings["plan"] + timings["hops"] + timings["compose"]
    # each of the five figures is rounded to the millisecond on its own, so each may be half of
    # one off; rounding keeps order, so the first token is never after the total
    assert stages <= timings["total"] + 5 * 0.0005 + 1e-9
    assert timings["first_token"] <= timings["total"]
    # auto asked the scripted model, whose empty plan fell back to the parse: the trace says so
    assert state["plan_source"] == "parsed" and state["plan_reason"] == (
        "parsed: the question's parse gives 2 hop(s) "
        "(the plan from scripted-timed was not valid (the plan has no hops))"
    )
    out, err = run_cli(sample_index, capsys, "scripted-timed", "-v")
    time_line = out.split("── time\n", 1)[1].splitlines()[0]
    for name in ("rewrite", "plan", "hops", "compose", "first token", "total"):
        assert f"{name} " in time_line and time_line.count(" s") == 6
    progress = [line for line in err.splitlines() if line.startswith("· ")]
    assert (
        progress[0].startswith("· plan, 2 hop(s), ") and " s: parsed: the question" in progress[0]
    )
    hop_lines = [line for line in progress if line.startswith("· hop ")]
    assert len(hop_lines) == 2 and all(re.search(r"\d s\b", line) for line in hop_lines)
    assert all(" resolved → " in line for line in hop_lines)  # each hop's own answer
    assert any(line.startswith("· answer (hops, ") for line in progress)


def test_every_stage_event_carries_its_own_seconds(sample_index):
    from resin.agent.graph import graph

    register_chat_model("scripted-events", scripted())
    ctx = Context(
        plan_model="scripted-events",
        hop_model="scripted-events",
        compose_model="scripted-events",
        index_path=str(sample_index),
    )
    custom = [
        p for m, p in graph.stream({"question": QUESTION}, context=ctx, stream_mode=["custom"])
    ]
    for kind in ("plan", "hop", "answer"):
        seen = [e for e in custom if e.get("event") == kind]
        assert seen and all(0 <= e["seconds"] < 60 for e in seen), kind
    answer = next(e for e in custom if e.get("event") == "answer")
    # a scripted model reports no llama.cpp time and no prompt cache
    assert answer["model_seconds"] is None and answer["cached_tokens"] is None
    assert next(e for e in custom if e.get("event") == "plan")["planner"] == "scripted-events"


def smollm2_tokens(text: str) -> int:
    """Tokens of `text` by the embedded model's own tokenizer."""
    from resin.agent.llm.llama_cpp import ChatLlamaCpp, smollm2_path

    return ChatLlamaCpp(model_path=str(smollm2_path())).count_tokens(text)


def evidence(quote: str, score: float, n: int) -> Evidence:
    return Evidence(
        id=f"p{n}",
        passage_id=f"p{n}",
        sentence_ids=[f"s{n}"],
        quote=quote,
        score=score,
        hop=1,
        route="dense",
    )


def test_the_bridge_call_reads_the_sentences_that_matter_within_its_token_budget():
    query = "Who designed the Orrin Dam?"
    filler = (
        "The valley below the northern ridge was farmed for centuries by families who kept "
        "sheep, grew barley and traded wool at the autumn fairs of the market towns nearby."
    )
    held = [evidence(filler.replace("northern", f"{i}th"), 0.9, i) for i in range(6)]
    held.append(evidence("The Orrin Dam was designed by Hessa Varn.", 0.2, 9))
    everything = "\n".join(e.quote for e in held)
    assert smollm2_tokens(everything) > BRIDGE_PROMPT_TOKENS  # whole, it would not fit
    model = ScriptedChatModel(responder=lambda m, k: json.dumps({"answer": "Hessa Varn"}))
    register_chat_model("scripted-bridge", model)
    usage: list = []
    ctx = Context(hop_model="scripted-bridge")
    assert bridge_value(Hop(id=1, question=query), query, held, ctx, usage) == "Hessa Varn"
    messages = model.calls[-1][0]
    prompt = "\n".join(str(m.content) for m in messages)
    assert smollm2_tokens(prompt) <= BRIDGE_PROMPT_TOKENS
    # the sentence with the hop's words is read first, though retrieval scored it lowest
    assert "<evidence>\n- The Orrin Dam was designed by Hessa Varn.\n" in prompt
    assert usage[0]["step"] == "hop 1"


def test_one_sentence_longer_than_the_budget_is_cut_to_fit():
    query = "Which river feeds the reservoir?"
    long = "The reservoir is fed by the Tessel River, " + "and by streams " * 200 + "."
    quotes = bridge_evidence(query, [evidence(long, 1.0, 1)])
    assert len(quotes) == 1 and quotes[0].startswith("The reservoir is fed by the Tessel River")
    prompt = "\n".join(str(m.content) for m in bridge_messages(query, quotes))
    assert smollm2_tokens(prompt) <= BRIDGE_PROMPT_TOKENS < smollm2_tokens(long)


@pytest.mark.parametrize("streamed", [True, False])
def test_a_structured_call_falls_back_to_json_object_when_a_server_refuses_json_schema(streamed):
    """llama.cpp's server refuses json_schema; a client streaming the graph streams every call."""
    from langchain_core.messages import HumanMessage

    from resin.agent.answering.answer import choice_format, structured_call
    from resin.agent.llm import make_chat_model
    from resin.testing.faults import FaultyServer

    with FaultyServer() as server:
        server.refuse_json_schema = True
        call = structured_call(make_chat_model(server.spec()), choice_format(["a", "b"]), 20)
        messages = [HumanMessage("Pick one.")]
        text = (
            "".join(str(c.content) for c in call.stream(messages))
            if streamed
            else str(call.invoke(messages).content)
        )
        assert text  # answered, once the schema went as json_object + schema
        assert len(server.requests) == 2  # the refusal costs one request, and no retries
