"""The resin graph with the scripted ``fake`` model registered, as the server tests serve it.

`langgraph dev` runs the graph in a process of its own, where production code offers no
``fake`` spec: its config names this module instead of `resin.agent.graph`. With
RESIN_TEST_MODEL_SECONDS set, every call of ``fake`` takes that long, so a test can catch a run
in the middle.
"""

import os
import time

from resin.agent.graph import graph
from resin.agent.llm import register_chat_model
from resin.evals.scripted import FAKE_SPEC, register_fake
from resin.testing.chat import ScriptedChatModel, heuristic_reply

register_fake()
if SECONDS := float(os.environ.get("RESIN_TEST_MODEL_SECONDS") or 0):

    def _slow_reply(messages, kwargs):
        time.sleep(SECONDS)
        return heuristic_reply(messages, kwargs)

    register_chat_model(FAKE_SPEC, lambda: ScriptedChatModel(responder=_slow_reply, record=False))

__all__ = ["graph"]
