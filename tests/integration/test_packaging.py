"""resin as a library: beside an app whose own package is `agent`, and as the wheel it builds."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
import zipfile
from email.parser import Parser
from pathlib import Path

import pytest

from .servers import ROOT

pytestmark = pytest.mark.slow

QUESTION = "Who designed the Orrin Dam?"

# An app laid out like LangGraph's new-project template: its code is the top-level package
# `agent` (src/agent/graph.py), its graph `agent.graph:graph`, with a context of its own.
APP_GRAPH = '''
"""The app's own graph: one node that reads its own runtime context."""

from dataclasses import dataclass
from typing import Any

from langgraph.graph import StateGraph
from langgraph.runtime import Runtime
from typing_extensions import TypedDict


class Context(TypedDict):
    greeting: str


@dataclass
class State:
    note: str = ""


async def call_model(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
    greeting = (runtime.context or {}).get("greeting", "hello")
    return {"note": f"{greeting} from the app"}


graph = StateGraph(State, context_schema=Context).add_node(call_model)
graph = graph.add_edge("__start__", "call_model").compile(name="New Graph")
'''

# A parent graph holding both graphs as nodes: the app's, then resin's.
PARENT = '''
import asyncio
from typing import Annotated

from langchain_core.messages import AnyMessage, HumanMessage
from langgraph.graph import END, START, StateGraph
from langgraph.graph.message import add_messages
from typing_extensions import TypedDict

from agent.graph import graph as app_graph
from resin import Context, graph as resin_graph


class Parent(TypedDict, total=False):
    messages: Annotated[list[AnyMessage], add_messages]
    note: str
    answer: str


parent = StateGraph(Parent)
parent.add_node("app", app_graph)
parent.add_node("resin", resin_graph)
parent.add_edge(START, "app")
parent.add_edge("app", "resin")
parent.add_edge("resin", END)
out = asyncio.run(
    parent.compile().ainvoke({"messages": [HumanMessage("{question}")]})
)
print("note:", out["note"])
print("answer:", out["answer"])
print("reply:", out["messages"][-1].content.splitlines()[0])
'''


@pytest.fixture(scope="module")
def app(tmp_path_factory) -> Path:
    """The app's source folder (its `src`), holding the package `agent`."""
    src = tmp_path_factory.mktemp("app") / "src"
    (src / "agent").mkdir(parents=True)
    (src / "agent" / "__init__.py").write_text('"""The app."""\nfrom agent.graph import graph\n')
    (src / "agent" / "graph.py").write_text(textwrap.dedent(APP_GRAPH))
    return src


def _run(cmd: list[str], app: Path, cwd: Path, index: Path) -> subprocess.CompletedProcess[str]:
    """`cmd` in a process whose import path puts the app's `agent` before everything else."""
    env = {
        **os.environ,
        "PYTHONPATH": str(app),
        "RESIN_INDEX": str(index),
        "HF_HUB_OFFLINE": "1",
        "LANGSMITH_TRACING": "false",
    }
    return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


def test_resin_ask_works_beside_an_app_package_called_agent(app, sample_index, tmp_path):
    resin = str(Path(sys.executable).with_name("resin"))
    probe = _run([sys.executable, "-c", "import agent; print(agent.__doc__)"], app, tmp_path, sample_index)
    assert probe.stdout.strip() == "The app.", probe.stderr  # the app's agent is the one imported
    done = _run([resin, "ask", QUESTION, "--index", str(sample_index)], app, tmp_path, sample_index)
    assert done.returncode == 0, done.stderr
    assert "Hessa Varn" in done.stdout


def test_a_parent_graph_holds_the_apps_graph_and_resins(app, sample_index, tmp_path):
    script = tmp_path / "parent.py"
    script.write_text(textwrap.dedent(PARENT).replace("{question}", QUESTION))
    done = _run([sys.executable, str(script)], app, tmp_path, sample_index)
    assert done.returncode == 0, done.stderr
    lines = dict(line.split(": ", 1) for line in done.stdout.splitlines() if ": " in line)
    assert lines["note"] == "hello from the app"
    assert lines["answer"] == "Hessa Varn"
    assert lines["reply"].startswith("Hessa Varn")


def _checkout_copy(to: Path) -> Path:
    """The checkout's files (committed or not, links kept) in `to`: the build leaves ROOT clean."""
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    for name in filter(None, listed.split("\0")):
        source, target = ROOT / name, to / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.is_symlink():
            target.symlink_to(os.readlink(source))
        elif source.is_file():
            shutil.copy2(source, target)
    return to


def test_the_wheel_installs_resin_alone_and_needs_no_test_tool(tmp_path):
    src = _checkout_copy(tmp_path / "src")
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path), str(src)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert built.returncode == 0, built.stderr
    (wheel,) = tmp_path.glob("resin_agent-*.whl")
    with zipfile.ZipFile(wheel) as zf:
        names = zf.namelist()
        meta = next(n for n in names if n.endswith(".dist-info/METADATA"))
        metadata = Parser().parsestr(zf.read(meta).decode())
    tops = {n.split("/", 1)[0] for n in names if not n.split("/", 1)[0].endswith(".dist-info")}
    assert tops == {"resin"}
    for must in (
        "resin/py.typed",
        "resin/agent/graph.py",
        "resin/agent/sample/docs/orrin-dam.md",
        "resin/agent/reading/hop_ranking.json",
        "resin/tools/pair_weights.json",
        "resin/testing/chat.py",
        "resin/cli/__init__.py",
    ):
        assert must in names, must
    assert not [n for n in names if n.startswith("resin/tests") or "/fakes.py" in n]
    runtime = [r for r in metadata.get_all("Requires-Dist") or [] if "extra ==" not in r]
    tools = ("pytest", "hypothesis", "ruff", "mypy", "langgraph-cli", "langgraph-sdk")
    assert not [r for r in runtime if r.split()[0].split("[")[0].split(">")[0] in tools], runtime
    assert not [r for r in runtime if r.startswith(("psycopg", "matplotlib"))], runtime
