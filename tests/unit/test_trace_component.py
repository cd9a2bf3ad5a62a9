"""The chat's trace component (ui/trace.tsx): it type-checks, bundles as the LangGraph server does,
and renders the props `resin.agent.chat_trace` pushes into the DOM the browser check reads.

`langgraph dev` bundles langgraph.json's "ui" entries with `@langchain/langgraph-ui` (esbuild);
the same package, pinned in package-lock.json, builds it here; TypeScript checks its types and
React renders it (tests/unit/render_trace.mjs). `make test` installs them first (`npm ci`).
"""

import json
import os
import shutil
import subprocess
import tempfile
from html.parser import HTMLParser
from pathlib import Path

import pytest

from resin.agent import chat_trace
from resin.agent.state import Hop, HopResult
from resin.tools.retrieval import Chain, ChainLink

ROOT = Path(__file__).resolve().parents[2]
BIN = ROOT / "node_modules" / ".bin"
UI = json.loads((ROOT / "langgraph.json").read_text())["ui"]


@pytest.fixture(scope="module")
def tools() -> Path:
    if not all((BIN / tool).exists() for tool in ("langgraphjs-ui", "tsc", "esbuild")):
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


class Elements(HTMLParser):
    """Each element with a data-testid: its attributes and the text inside it."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[dict] = []
        self.open: list[tuple[str, dict | None]] = []

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        item = {**attributes, "tag": tag, "text": ""} if "data-testid" in attributes else None
        if item is not None:
            self.found.append(item)
        self.open.append((tag, item))

    def handle_endtag(self, tag):
        while self.open and self.open.pop()[0] != tag:
            pass

    def handle_data(self, data):
        for _, item in self.open:
            if item is not None:
                item["text"] += data

    def by(self, testid: str) -> list[dict]:
        return [e for e in self.found if e["data-testid"] == testid]


def render(tools: Path, scratch: Path, props: dict) -> Elements:
    done = subprocess.run(
        ["node", str(ROOT / "tests" / "unit" / "render_trace.mjs"), str(scratch)],
        input=json.dumps(props),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    parsed = Elements()
    parsed.feed(done.stdout)
    return parsed


def test_the_pushed_props_render_as_the_dom_the_browser_check_reads(tools, scratch):
    first = HopResult(
        hop=1, query="Who designed the Orrin Dam?", status="resolved", answer="Hessa Varn"
    )
    later = Hop(id=2, question="In which port was #1 born?", depends_on=[1])
    chain = Chain(
        links=[ChainLink(head="warm water", relation="stops", tail="spawning", unit_ids=[])],
        score=1.0,
    )
    url = chat_trace.source_url("http://127.0.0.1:2024", "p1", "p1:0")
    props = {
        "stage": "done",
        "question": "In which port was the designer of the Orrin Dam born?",
        "asked": "In which port was the designer of the Orrin Dam born?",
        "plan": {"source": "parsed", "reason": "parsed: 2 hop(s)"},
        "notes": ["hop 2 was not run"],
        "chain": chat_trace.chain_links(chain),
        "sources": [
            {
                "label": 1,
                "title": "Orrin Dam",
                "sentence": "It was designed by Hessa Varn.",
                "url": url,
            }
        ],
        "answer": "Caldmere",
        "found": True,
        chat_trace.hop_key(1): chat_trace.hop_entry(first, "answered"),
        chat_trace.hop_key(2): chat_trace.hop_entry(later, "skipped"),
    }
    page = render(tools, scratch, props)
    (trace,) = page.by("resin-trace")
    assert trace["data-stage"] == "done"
    hops = page.by("resin-hop")
    assert [(h["data-hop"], h["data-status"]) for h in hops] == [
        ("1", "answered"),
        ("2", "skipped"),
    ]
    assert "Who designed the Orrin Dam?" in hops[0]["text"] and "Hessa Varn" in hops[0]["text"]
    assert "In which port was (hop 1's answer) born?" in hops[1]["text"]
    (shown_chain,) = page.by("resin-chain")
    assert "warm water" in shown_chain["text"] and "stops" in shown_chain["text"]
    assert [n["text"] for n in page.by("resin-note")] == ["hop 2 was not run"]
    (source,) = page.by("resin-source")
    assert source["tag"] == "a" and source["href"] == url and source["text"] == "Orrin Dam"

    # the first push: every hop pending, no chain, notes or sources yet
    hop_1 = Hop(id=1, question="Who designed the Orrin Dam?")
    planned = {**props, "stage": "reading", "chain": [], "notes": [], "sources": [], "answer": ""}
    planned |= {
        chat_trace.hop_key(h.id): chat_trace.hop_entry(h, "pending") for h in (hop_1, later)
    }
    page = render(tools, scratch, planned)
    assert [h["data-status"] for h in page.by("resin-hop")] == ["pending", "pending"]
    assert not page.by("resin-chain") and not page.by("resin-note") and not page.by("resin-source")
