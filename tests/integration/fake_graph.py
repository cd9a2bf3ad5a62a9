"""The resin graph with the scripted ``fake`` model registered, as the server tests serve it.

`langgraph dev` runs the graph in a process of its own, where production code offers no
``fake`` spec: its config names this module instead of `resin.agent.graph`.
"""

from resin.agent.graph import graph
from resin.evals.scripted import register_fake

register_fake()

__all__ = ["graph"]
