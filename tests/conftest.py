"""Shared fixtures: the real embedder, real Chroma in a temp dir, scripted chat models."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")
os.environ.setdefault("LANGSMITH_TRACING", "false")
os.environ.setdefault("LANGGRAPH_CLI_NO_ANALYTICS", "1")

from agent.llm.scripted import ScriptedChatModel, heuristic_reply  # noqa: E402
from indexes.embeddings import make_embedder  # noqa: E402
from indexes.index import Index  # noqa: E402
from indexes.index import open_index as open_index_at  # noqa: E402

SAMPLE_DOCS = Path(__file__).resolve().parents[1] / "agent" / "sample" / "docs"


@pytest.fixture(scope="session")
def embedder():
    return make_embedder()


@pytest.fixture
def open_index(tmp_path, embedder) -> Callable[..., Index]:
    opened: list[Index] = []

    def _open(path: Path | None = None, create: bool = True, **config) -> Index:
        index = open_index_at(path or tmp_path / "index", embedder, create=create, **config)
        opened.append(index)
        return index

    yield _open
    for index in opened:
        index.close()


@pytest.fixture(scope="session")
def nlp_extractor():
    """The real spaCy pipeline, loaded once."""
    from indexes.nlp_extraction import NlpExtractor

    return NlpExtractor()


@pytest.fixture
def fake_model() -> ScriptedChatModel:
    """Rule-based extraction: a relation per sentence between its first two names."""
    return ScriptedChatModel(responder=heuristic_reply)


@pytest.fixture(scope="session")
def sample_index(tmp_path_factory, embedder) -> Path:
    """The sample corpus indexed once with the rule-based fake extractor (absolute path)."""
    from indexes.build import Builder
    from indexes.documents import load_documents
    from indexes.index import close_indexes

    path = (tmp_path_factory.mktemp("sample") / "index").resolve()
    index = open_index_at(path, embedder, create=True)
    try:
        docs, errors = load_documents([SAMPLE_DOCS])
        assert docs and not errors
        Builder(index, ScriptedChatModel(responder=heuristic_reply)).run(docs)
    finally:
        index.close()
    yield path
    close_indexes()


def units_json(*units: dict) -> str:
    return json.dumps({"units": list(units)})
