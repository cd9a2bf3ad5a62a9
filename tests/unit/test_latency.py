"""Where a question's time goes: which planner ran and why, stage seconds in events and output."""

import json

from agent.cli import main
from agent.context import Context
from agent.models import register_chat_model
from agent.nodes.plan import EMBEDDED_VALID_PLANS, planner
from tests.unit.test_agent import QUESTION, scripted

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
    out, err = run_cli(sample_index, capsys, LOCAL_GGUF)
    schemas = [k["response_format"]["json_schema"]["name"] for _, k in model.calls]
    assert "Plan" not in schemas and "ShortAnswer" in schemas  # the model only answered
    reason = f"structural: {LOCAL_GGUF} is a local GGUF not measured as a planner"
    assert "· plan, 1 hop(s)" in err and reason in err  # bridge hops join later, with hop 1
    trace = out.split("── plan", 1)[1]
    assert trace.splitlines()[1].strip() == reason


def test_stage_seconds_in_the_stream_events_and_in_ask_output(sample_index, capsys):
    register_chat_model("scripted-timed", scripted())
    out, err = run_cli(sample_index, capsys, "scripted-timed", "--json")
    state = json.loads(out)
    timings = state["timings"]
    assert set(timings) == {"plan", "hops", "compose", "first_token", "total"}
    assert all(v >= 0 for v in timings.values())
    stages = timings["plan"] + timings["hops"] + timings["compose"]
    assert stages <= timings["total"] and timings["first_token"] <= timings["total"]
    # auto asked the scripted model, whose empty plan fell back to structure: the trace says so
    assert state["plan_source"] == "structural" and state["plan_reason"] == (
        "structural: the plan from scripted-timed failed (the plan has no hops)"
    )
    out, err = run_cli(sample_index, capsys, "scripted-timed")
    time_line = out.split("── time\n", 1)[1].splitlines()[0]
    for name in ("plan", "hops", "compose", "first token", "total"):
        assert f"{name} " in time_line and time_line.count(" s") == 5
    progress = [line for line in err.splitlines() if line.startswith("· ")]
    assert (
        progress[0].startswith("· plan, 1 hop(s), ") and " s: structural: the plan" in progress[0]
    )
    assert all(line.endswith(" s") for line in progress if line.startswith("· hop "))
    assert any(line.startswith("· answer (choices, ") for line in progress)


def test_every_stage_event_carries_its_own_seconds(sample_index):
    from agent.graph import graph

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
        seen = [e for e in custom if e["event"] == kind]
        assert seen and all(0 <= e["seconds"] < 60 for e in seen), kind
    answer = next(e for e in custom if e["event"] == "answer")
    assert answer["model_seconds"] is None  # a scripted model reports no llama.cpp time
    assert next(e for e in custom if e["event"] == "plan")["planner"] == "scripted-events"
