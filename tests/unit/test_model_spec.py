"""`ModelSpec.parse`: one reading of every alias, and what `auto` makes of it."""

import subprocess
import sys
from pathlib import Path

import pytest

from resin.agent.context import Context
from resin.agent.llm import ModelSpec, ModelSpecError, registered_chat_model
from resin.agent.nodes.plan import planner
from resin.testing.chat import ScriptedChatModel

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    ("text", "kind", "fields"),
    [
        (None, "embedded", {}),
        ("", "embedded", {}),
        ("embedded", "embedded", {}),
        (" smollm2 ", "embedded", {}),
        ("gguf:/models/qwen.gguf", "gguf", {"path": "/models/qwen.gguf"}),
        ("/models/qwen.gguf", "gguf", {"path": "/models/qwen.gguf"}),
        ("openai:gpt-4o-mini", "openai", {"model": "gpt-4o-mini", "base_url": ""}),
        (
            "openai:qwen2.5@http://gpu:8000/v1",
            "openai",
            {"model": "qwen2.5", "base_url": "http://gpu:8000/v1"},
        ),
        ("fake", "registered", {}),  # registered by tests/conftest.py
    ],
)
def test_each_alias_has_one_reading(text, kind, fields):
    spec = ModelSpec.parse(text)
    assert spec.kind == kind
    assert {name: getattr(spec, name) for name in fields} == fields


@pytest.mark.parametrize(
    ("text", "local", "can_plan", "auto_mode"),
    [
        ("embedded", True, False, "ranked"),
        ("smollm2", True, False, "ranked"),  # the embedded model, not "choices"
        ("gguf:/m.gguf", True, False, "choices"),
        ("openai:gpt-4o-mini", False, True, "free"),
        ("openai:m@http://h/v1", False, True, "free"),
        ("fake", False, True, "choices"),
    ],
)
def test_what_a_spec_says_about_its_model(text, local, can_plan, auto_mode):
    spec = ModelSpec.parse(text)
    assert (spec.local, spec.can_plan, spec.auto_answer_mode) == (local, can_plan, auto_mode)
    assert spec.answer_mode("auto") == auto_mode
    assert spec.answer_mode("free") == "free"


def test_the_planner_and_the_answer_mode_read_smollm2_as_the_embedded_model():
    for alias in ("embedded", "smollm2"):
        spec, reason = planner(Context(compose_model=alias))
        assert spec is None and "embedded 135M model" in reason
        assert ModelSpec.parse(alias).answer_mode("auto") == "ranked"


def test_a_registered_name_keeps_the_reading_of_its_shape():
    with registered_chat_model("gguf:/models/double.gguf", ScriptedChatModel(responses=[])):
        spec = ModelSpec.parse("gguf:/models/double.gguf")
    assert spec.kind == "gguf" and not spec.can_plan


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("openai:", "needs a model name"),
        ("openai:@http://h/v1", "needs a model name"),
        ("nonsense", "unknown model spec 'nonsense'"),
    ],
)
def test_a_spec_that_names_nothing_is_refused(text, message):
    with pytest.raises(ModelSpecError, match=message):
        ModelSpec.parse(text)


def test_an_unknown_answer_mode_is_refused():
    with pytest.raises(ValueError, match="answer_mode must be auto, ranked, choices or free"):
        ModelSpec.parse("embedded").answer_mode("prose")


def test_production_code_offers_no_fake_model():
    """Outside the tests nothing registers `fake`: `resin ask` names it unknown, before the index."""
    run = subprocess.run(
        [sys.executable, "-m", "resin.cli", "ask", "Who?", "--model", "fake", "--index", "none"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert run.returncode == 2
    assert "error: unknown model spec 'fake'" in run.stderr
