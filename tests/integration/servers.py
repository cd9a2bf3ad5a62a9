"""Start real servers on loopback for integration tests, and stop them."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from resin.testing.processes import free_port, running

__all__ = ["ROOT", "dev_server", "tail"]

ROOT = Path(__file__).resolve().parents[2]


def fake_config(folder: Path, ui: bool) -> Path:
    """This checkout's langgraph.json, serving the graph with ``fake`` registered, in `folder`.

    Without `ui` the chat component is left out: its bundler (`npx @langchain/langgraph-ui`,
    fetched from npm) matters only to the tests of the component, which start in the root.
    """
    config = json.loads((ROOT / "langgraph.json").read_text())
    config["dependencies"] = [str(ROOT)]
    config["graphs"] = {"resin": f"{Path(__file__).with_name('fake_graph.py')}:graph"}
    config["env"] = str(ROOT / config["env"])
    if not ui:
        del config["ui"]
    path = folder / "langgraph.json"
    path.write_text(json.dumps(config))
    return path


@contextmanager
def dev_server(
    log_path: Path, cwd: Path, env: dict[str, str] | None = None, ui: bool = False
) -> Iterator[Any]:
    """`langgraph dev` for this checkout on a free loopback port, started in `cwd` with `env`.

    `ui` bundles the chat component, whose path langgraph.json gives from `cwd` (the root).
    """
    port = free_port()
    langgraph = str(Path(sys.executable).with_name("langgraph"))
    cmd = [
        langgraph,
        "dev",
        "--config",
        str(fake_config(log_path.parent, ui)),
        "--no-browser",
        # Other files may change while the tests run: a hot reload would drop the run.
        "--no-reload",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
    ]
    with open(log_path, "w") as log, ExitStack() as stack:
        # The environment and working directory only matter while the process starts.
        with pytest.MonkeyPatch.context() as mp:
            mp.chdir(cwd)
            mp.setenv("LANGGRAPH_CLI_NO_ANALYTICS", "1")
            mp.setenv("LANGSMITH_TRACING", "false")
            mp.setenv("HF_HUB_OFFLINE", "1")
            mp.setenv("ANONYMIZED_TELEMETRY", "False")
            # `langgraph dev` imports the graph's package from its working directory: from
            # elsewhere, this checkout's code must come first on the path.
            mp.setenv("PYTHONPATH", str(ROOT))
            for key, value in (env or {}).items():
                mp.setenv(key, value)
            try:
                proc = stack.enter_context(
                    running(cmd, f"http://127.0.0.1:{port}/ok", timeout=120, log=log)
                )
            except (RuntimeError, TimeoutError) as exc:
                log.flush()
                raise RuntimeError(f"{exc}\n{tail(log_path)}") from exc
        yield SimpleNamespace(url=f"http://127.0.0.1:{port}", log=log_path, pid=proc.pid)


def tail(path: Path, chars: int = 4000) -> str:
    return path.read_text(errors="replace")[-chars:]
