"""resin: multi-hop question answering over your own documents, every step cited.

The public API:

    from resin import Resin, graph, Context, make_tools, ResinRetriever

- `graph`: the compiled LangGraph graph (input `question` or `messages`; `context=Context(...)`),
  to invoke, stream, or add as a node of a parent graph;
- `Context`: its runtime settings (index location, models, retrieval knobs);
- `Resin`: build or update an index from files and strings, ask, retrieve, get tools;
- `ResinRetriever`: a LangChain retriever whose documents are the passages the hops read;
- `make_tools(index)`: retrieval tools over an opened index for any tool-calling agent;
- `OutputState`: the typed output of a run.

Names load on first use, so `import resin` (and the `resin` command) stays fast. Everything else
under `resin.` is reachable but not promised.
"""

from __future__ import annotations

import importlib
from importlib.metadata import PackageNotFoundError, version
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from resin.agent.context import Context
    from resin.agent.graph import graph
    from resin.agent.retriever import ResinRetriever
    from resin.agent.state import InputState, OutputState
    from resin.api import Resin
    from resin.indexes.build_report import BuildReport
    from resin.indexes.documents import Document
    from resin.tools import make_tools

__all__ = [
    "BuildReport",
    "Context",
    "Document",
    "InputState",
    "OutputState",
    "Resin",
    "ResinRetriever",
    "__version__",
    "graph",
    "make_tools",
]

_WHERE = {
    "BuildReport": "resin.indexes.build_report",
    "Context": "resin.agent.context",
    "Document": "resin.indexes.documents",
    "InputState": "resin.agent.state",
    "OutputState": "resin.agent.state",
    "Resin": "resin.api",
    "ResinRetriever": "resin.agent.retriever",
    "graph": "resin.agent.graph",
    "make_tools": "resin.tools",
}

try:
    __version__ = version("resin-agent")
except PackageNotFoundError:  # a checkout that was never installed
    __version__ = "0+unknown"


def __getattr__(name: str) -> Any:
    """Import a public name's module on first use."""
    if name not in _WHERE:
        raise AttributeError(f"module 'resin' has no attribute {name!r}")
    value = getattr(importlib.import_module(_WHERE[name]), name)
    globals()[name] = value
    return value
