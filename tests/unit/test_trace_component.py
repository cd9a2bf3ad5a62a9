"""The chat's trace component (ui/trace.tsx) type-checks and bundles as the LangGraph server does.

`langgraph dev` bundles langgraph.json's "ui" entries with `@langchain/langgraph-ui` (esbuild);
the same package, pinned in package-lock.json, builds it here, and TypeScript checks its types.
`make setup` installs both (`npm ci`).
"""

import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BIN = ROOT / "node_modules" / ".bin"
UI = json.loads((ROOT / "langgraph.json").read_text())["ui"]


@pytest.fixture(scope="module")
def tools() -> Path:
    if not (BIN / "langgraphjs-ui").exists() or not (BIN / "tsc").exists():
        pytest.fail("node_modules is missing: run `make setup` (npm ci) first")
    return BIN


def bundle(tools: Path, ui: dict[str, str], out: Path) -> subprocess.CompletedProcess[str]:
    """`langgraphjs-ui build`, from the repository root as the server runs it."""
    return subprocess.run(
        [str(tools / "langgraphjs-ui"), "build", "-o", str(out)],
        cwd=ROOT,
        env={**os.environ, "LANGGRAPH_UI": json.dumps(ui)},
        capture_output=True,
        text=True,
        timeout=120,
    )


def typecheck(tools: Path, project: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(tools / "tsc"), "-p", str(project)], capture_output=True, text=True, timeout=120
    )


@pytest.fixture
def scratch():
    """A folder inside the repository (ignored by git), where imports resolve to node_modules."""
    (ROOT / "build").mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory(dir=ROOT / "build") as folder:
        yield Path(folder)


def test_the_component_type_checks_and_bundles_as_the_server_bundles_it(tools, tmp_path):
    assert UI == {"resin": "./ui/trace.tsx"}
    checked = typecheck(tools, ROOT / "ui")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    built = bundle(tools, UI, tmp_path)
    assert built.returncode == 0, built.stdout + built.stderr
    schemas = json.loads((tmp_path / "schemas.json").read_text())
    assert schemas == {"resin": {"assets": ["entrypoint.js"], "name": "resin"}}
    script = (tmp_path / "public" / "resin" / "entrypoint.js").read_text()
    # the global the server's loader calls, the component's name and the test ids the chat shows
    assert script.startswith("var __LGUI_resin")
    for text in ("resin_trace", "resin-trace", "resin-hop", "resin-chain", "resin-note"):
        assert text in script, text
    assert "resin-source" in script and "data-status" in script
    # React is the chat client's own: required at run time, not bundled
    assert '__require("react/jsx-runtime")' in script


def test_a_syntax_error_fails_the_bundle_and_a_type_error_the_check(tools, scratch):
    source = (ROOT / "ui" / "trace.tsx").read_text()
    shutil.copy(ROOT / "ui" / "tsconfig.json", scratch / "tsconfig.json")
    relative = f"./{scratch.relative_to(ROOT).as_posix()}/trace.tsx"
    (scratch / "trace.tsx").write_text(source + "\nconst broken = <div>;\n")
    failed = bundle(tools, {"resin": relative}, scratch / "out")
    assert failed.returncode != 0 and "trace.tsx" in failed.stdout + failed.stderr
    (scratch / "trace.tsx").write_text(source.replace("{hop.answer}", "{hop.answr}"))
    checked = typecheck(tools, scratch)
    assert checked.returncode != 0 and "answr" in checked.stdout
