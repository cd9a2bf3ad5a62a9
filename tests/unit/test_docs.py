"""The manual holds: its Python examples run, its links resolve, the README stays a manual.

Every ```python block of README.md and docs/*.md runs on its own, in a fresh namespace (no block
relies on an earlier one), from a fresh working directory that looks like a checkout after
`make demo`: `.resin` is the sample corpus indexed once per module through the real offline path
(`Resin(...).index(...)`: parser units, the real embedder; answers from the embedded model's
defaults), and `agent/sample/docs` holds the sample documents, for examples that index files.
A block fails its test when it raises; the test id is the block's file and opening line.
Examples that need a network, a server or a key are written as ```bash or ```text blocks.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest

from resin import Resin
from resin.agent.llm import spec as registry
from resin.indexes.opening import close_indexes

from ..conftest import SAMPLE_DOCS

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
DOCS = sorted((ROOT / "docs").glob("*.md"))
MANUAL = [README, *DOCS]
LINKED = [*MANUAL, ROOT / "CHANGELOG.md", ROOT / "evals" / "README.md"]

# Settings a developer's shell may hold that would point the examples elsewhere.
RESIN_ENV = (
    "RESIN_INDEX",
    "RESIN_MODEL",
    "RESIN_PLAN_MODEL",
    "RESIN_HOP_MODEL",
    "RESIN_COMPOSE_MODEL",
    "RESIN_EMBEDDER",
    "RESIN_CHROMA_HOST",
    "RESIN_CHROMA_PORT",
    "RESIN_DATABASE_URL",
)
FENCE = re.compile(r"^(`{3,}|~{3,})\s*([\w+-]*)")
# [text](target) or ![alt](target); the target ends at whitespace or the closing parenthesis.
LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
INLINE_CODE = re.compile(r"`+[^`]*`+")
DIARY = [
    r"\bstop \d+",
    r"\blast stop\b",
    r"\bthis stop\b",
    r"\bbefore/after\b",
    r"\btried and (not kept|dropped)\b",
    r"\bat this commit\b",
]


def blocks(path: Path) -> list[tuple[int, str, str]]:
    """Each fenced block of a markdown file: (line of its opening fence, language, text)."""
    found, lines = [], path.read_text(encoding="utf-8").splitlines()
    i = 0
    while i < len(lines):
        opening = FENCE.match(lines[i].strip())
        if not opening:
            i += 1
            continue
        fence, language, start, body = opening.group(1), opening.group(2).lower(), i + 1, []
        i += 1
        while i < len(lines) and not lines[i].strip().startswith(fence):
            body.append(lines[i])
            i += 1
        found.append((start, language, "\n".join(body) + "\n"))
        i += 1
    return found


def prose(path: Path) -> str:
    """A markdown file without its fenced blocks and inline code: the text links live in."""
    text, fenced = [], False
    for line in path.read_text(encoding="utf-8").splitlines():
        if FENCE.match(line.strip()):
            fenced = not fenced
            continue
        if not fenced:
            text.append(INLINE_CODE.sub("", line))
    return "\n".join(text)


PYTHON_BLOCKS = [
    pytest.param(path, line, code, id=f"{path.relative_to(ROOT)}:{line}")
    for path in MANUAL
    for line, language, code in blocks(path)
    if language in ("python", "py")
]


@pytest.fixture(scope="module")
def checkout(tmp_path_factory) -> Path:
    """A folder laid out like a checkout after `make demo`: the sample docs and their index."""
    root = tmp_path_factory.mktemp("checkout")
    shutil.copytree(SAMPLE_DOCS, root / "agent" / "sample" / "docs")
    report = Resin(root / ".resin").index([root / "agent" / "sample" / "docs"])
    assert report.documents_indexed == 14 and not report.errors
    yield root
    close_indexes()


@pytest.fixture
def workdir(checkout, tmp_path, monkeypatch) -> Path:
    """A fresh working directory for one block, its `.resin` and `agent/` the shared ones."""
    (tmp_path / ".resin").symlink_to(checkout / ".resin", target_is_directory=True)
    (tmp_path / "agent").symlink_to(checkout / "agent", target_is_directory=True)
    for name in RESIN_ENV:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_the_manual_has_python_examples():
    assert len(PYTHON_BLOCKS) >= 5


@pytest.mark.parametrize(("path", "line", "code"), PYTHON_BLOCKS)
def test_a_python_example_runs(path, line, code, workdir):
    # What a block may change for the whole process is put back: the environment, and the chat
    # models it registers.
    saved_env, saved_models = dict(os.environ), dict(registry._REGISTERED)
    try:
        exec(compile(code, f"{path.name}:{line}", "exec"), {"__name__": "__docs__"})
    finally:
        os.environ.clear()
        os.environ.update(saved_env)
        registry._REGISTERED.clear()
        registry._REGISTERED.update(saved_models)


@pytest.mark.parametrize("path", LINKED, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_names_a_file_that_exists(path):
    assert path.exists(), path
    broken = []
    for target in LINK.findall(prose(path)):
        if re.match(r"^(https?:|mailto:)", target, re.IGNORECASE):
            continue
        target = target.split("#", 1)[0]
        if target and not (path.parent / target).exists():
            broken.append(target)
    assert not broken, f"{path.relative_to(ROOT)}: no such file: {broken}"


def test_the_readme_is_short_and_starts_with_the_quick_start():
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 300, f"README.md has {len(lines)} lines"
    assert any("make demo" in line for line in lines[:40])


@pytest.mark.parametrize("path", MANUAL, ids=lambda p: str(p.relative_to(ROOT)))
def test_the_manual_keeps_no_development_diary(path):
    text = path.read_text(encoding="utf-8")
    found = [m.group() for pattern in DIARY for m in re.finditer(pattern, text, re.IGNORECASE)]
    assert not found, f"{path.relative_to(ROOT)}: {found}"


def test_the_readme_results_table_is_the_reports():
    """README's one results table copies evals/results/multihop.json, figure by figure."""
    import json

    report = json.loads((ROOT / "evals" / "results" / "multihop.json").read_text(encoding="utf-8"))
    text = README.read_text(encoding="utf-8")
    for name, result in report["sets"].items():
        row = next(line for line in text.splitlines() if line.startswith(f"| {name} |"))
        cells = [c.strip().strip("*") for c in row.strip("|").split("|")][1:]
        systems = result["systems"]
        want = [systems[s]["em"] for s in ("agent", "dense", "bm25")]
        want += [systems[s]["recall@5"] for s in ("agent", "dense", "bm25")]
        assert cells == [f"{v:.1f}" for v in want], name
    header = report["header"]
    assert f"commit: `{header['commit']}`" in text
    assert f"`{header['command']}` ({header['date']})" in text
