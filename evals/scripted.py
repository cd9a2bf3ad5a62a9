"""The scripted chat model for benchmarks and `resin doctor`, and the ``fake`` spec they register.

The scripted model is a test double: it lives in tests/fakes.py, and production code offers no
``fake`` spec. evals runs from a checkout, where tests/ is, so it imports the model from there
(`fakes`) and registers ``fake`` itself (`register_fake`) for `resin eval --model fake` and
the benchmarks that answer with no model time.
"""

from __future__ import annotations

from types import ModuleType

from agent.llm import ModelSpecError, register_chat_model

FAKE_SPEC = "fake"


def fakes() -> ModuleType:
    """tests.fakes, which holds `ScriptedChatModel` and `heuristic_reply`; a clear error without."""
    try:
        import tests.fakes
    except ImportError as exc:
        raise ModelSpecError(
            "the scripted model is in tests/fakes.py, which this installation lacks: "
            "run this from a resin checkout"
        ) from exc
    return tests.fakes


def register_fake() -> None:
    """Serve the rule-based scripted model as ``fake``: a new one per use, keeping no calls."""
    register_chat_model(FAKE_SPEC, lambda: fakes().rule_based(record=False))
