"""Models are checked before work starts; a failing planner is reported, not only traced."""

import json

import pytest

from resin.agent.context import Context
from resin.agent.graph import graph
from resin.agent.llm import ModelBackendError, ModelSpecError, register_chat_model
from resin.testing.chat import ScriptedChatModel
from resin.testing.processes import free_port


def events_until_failure(ctx: Context, error: type[Exception]) -> tuple[list[str], str]:
    """The custom events a run emitted before it raised `error`, and the error's message."""
    seen: list[str] = []
    with pytest.raises(error) as failure:
        for _, payload in graph.stream(
            {"question": "Who designed the Orrin Dam?"},
            context=ctx,
            stream_mode=["custom", "updates"],
        ):
            if isinstance(payload, dict) and "event" in payload:
                seen.append(payload["event"])
    return seen, str(failure.value)


@pytest.mark.parametrize(
    ("spec", "error", "message"),
    [
        ("gguf:/no/such/model.gguf", ModelSpecError, "GGUF file not found: /no/such/model.gguf"),
        ("openai:gpt-4o-mini", ModelSpecError, "needs OPENAI_API_KEY"),
        ("openai:m@http://127.0.0.1:{port}/v1", ModelBackendError, "not reachable"),
    ],
    ids=["no-file", "no-key", "no-server"],
)
def test_a_model_that_cannot_load_fails_before_the_plan(
    sample_index, monkeypatch, spec, error, message
):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    register_chat_model("healthy", ScriptedChatModel(responses=['{"answer": "x"}'] * 10))
    spec = spec.format(port=free_port())
    ctx = Context(
        plan_model="healthy", hop_model="healthy", compose_model=spec, index_path=str(sample_index)
    )
    seen, text = events_until_failure(ctx, error)
    assert seen == []  # no plan, no hop ran first
    assert message in text


def test_a_failing_plan_model_is_reported_in_the_output_and_the_stream(sample_index):
    def respond(messages, kwargs):
        name = kwargs["response_format"]["json_schema"]["name"]
        if name == "Plan":
            raise ModelBackendError("model server http://gpu:8000/v1 (m): HTTP 500; gave up")
        return json.dumps({"answer": "Hessa Varn"})

    register_chat_model("failing-planner", ScriptedChatModel(responder=respond))
    ctx = Context(
        plan_model="failing-planner",
        hop_model="failing-planner",
        compose_model="failing-planner",
        index_path=str(sample_index),
    )
    warnings, final = [], {}
    for mode, payload in graph.stream(
        {"question": "Who designed the Orrin Dam?"}, context=ctx, stream_mode=["custom", "values"]
    ):
        if mode == "custom" and payload.get("event") == "warning":
            warnings.append(payload["message"])
        elif mode == "values":
            final = payload
    assert len(warnings) == 1 and "plan model failing-planner failed" in warnings[0]
    assert "HTTP 500" in warnings[0]
    assert final["plan_source"] == "structural" and warnings[0] in final["notes"]
    assert final["answer"] == "Hessa Varn"


def test_the_cli_says_a_plan_model_failed_on_stderr(sample_index, capsys):
    from resin.cli import main

    def respond(messages, kwargs):
        if kwargs["response_format"]["json_schema"]["name"] == "Plan":
            raise ModelBackendError("connection failed")
        return json.dumps({"answer": "Hessa Varn"})

    register_chat_model("failing-planner", ScriptedChatModel(responder=respond))
    argv = ["ask", "Who designed the Orrin Dam?", "--index", str(sample_index), "--json"]
    assert main([*argv, "--model", "failing-planner"]) == 0
    out = capsys.readouterr()
    assert json.loads(out.out)["plan_source"] == "structural"
    assert "warning: plan model failing-planner failed (connection failed)" in out.err


@pytest.mark.parametrize("plan_model", ["auto", "none"])
def test_the_planner_keywords_are_not_model_specs_to_check(sample_index, plan_model):
    register_chat_model("healthy", ScriptedChatModel(responder=lambda m, k: '{"answer": ""}'))
    ctx = Context(
        plan_model=plan_model,
        hop_model="healthy",
        compose_model="healthy",
        index_path=str(sample_index),
    )
    final = graph.invoke({"question": "Who designed the Orrin Dam?"}, context=ctx)
    assert final["plan_source"] == "structural" and final["messages"][-1].content
