"""The ``fake`` model spec for `resin eval --model fake`, benchmarks and `resin doctor`.

Production code offers no ``fake`` spec: the scripted model (`resin.testing.chat.rule_based`)
answers every step by rule, with no model time, only where it is registered.
"""

from __future__ import annotations

from resin.agent.llm import register_chat_model
from resin.testing.chat import rule_based

FAKE_SPEC = "fake"


def register_fake() -> None:
    """Serve the rule-based scripted model as ``fake``: a new one per use, keeping no calls."""
    register_chat_model(FAKE_SPEC, lambda: rule_based(record=False))
