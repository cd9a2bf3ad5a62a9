"""Shared fixtures and helpers: the real embedder, real Chroma in a temp dir, scripted models.

The scripted ``fake`` spec is registered here, for every test: production code offers none.
"""

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

from resin.evals.scripted import register_fake  # noqa: E402
from resin.indexes.documents import Document  # noqa: E402
from resin.indexes.embeddings import make_embedder  # noqa: E402
from resin.indexes.index import Index  # noqa: E402
from resin.indexes.opening import open_index as open_index_at  # noqa: E402
from resin.testing.chat import ScriptedChatModel, rule_based  # noqa: E402

register_fake()

SAMPLE_DOCS = Path(__file__).resolve().parents[1] / "agent" / "sample" / "docs"
QUESTION = "In which port was the designer of the Orrin Dam born?"
# Three small documents that link a dam, its designer and a mill.
DOCS = [
    Document(
        id="orrin",
        title="Orrin Dam",
        text="The Orrin Dam was designed by Hessa Varn. The Orrin Dam holds the Orrin Reservoir.",
    ),
    Document(
        id="varn",
        title="Hessa Varn",
        text="Hessa Varn was born in Caldmere. Hessa Varn studied in Lindmoor.",
    ),
    Document(
        id="mill",
        title="Brannock Mill",
        text="The Brannock Mill draws water from the Orrin Reservoir. Caldmere buys its flour.",
    ),
]
# A conversation's two turns: the follow-up's "she" is the first answer.
FIRST = "Who designed the Orrin Dam?"
FOLLOW_UP = "Where was she born?"


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
    from resin.indexes.nlp_extraction import NlpExtractor

    return NlpExtractor()


@pytest.fixture
def fake_model() -> ScriptedChatModel:
    """Rule-based extraction: a relation per sentence between its first two names."""
    return rule_based()


@pytest.fixture(scope="session")
def sample_index(tmp_path_factory, embedder) -> Path:
    """The sample corpus indexed once with the rule-based fake extractor (absolute path)."""
    from resin.indexes.build import Builder
    from resin.indexes.opening import close_indexes
    from resin.indexes.reading import load_documents

    path = (tmp_path_factory.mktemp("sample") / "index").resolve()
    index = open_index_at(path, embedder, create=True)
    try:
        docs, errors = load_documents([SAMPLE_DOCS])
        assert docs and not errors
        Builder(index, rule_based()).run(docs)
    finally:
        index.close()
    yield path
    close_indexes()


def units_json(*units: dict) -> str:
    return json.dumps({"units": list(units)})


def make_legacy(index: Index) -> None:
    """Turn an index into one built before per-index collections: plain names, no prefix."""
    from resin.indexes.stores import COLLECTIONS

    prefix = index.manifest["collection_prefix"]
    for name in COLLECTIONS:
        index.vectors.client.get_collection(prefix + name).modify(name=name)
    manifest = json.loads(index.manifest_path.read_text())
    del manifest["collection_prefix"], manifest["index_id"]
    index.manifest_path.write_text(json.dumps(manifest))
    index.close()


def two_turns(sample_index, model, follow_up=FOLLOW_UP, first=FIRST, **fields):
    """`first`, then `follow_up`, on one thread, every step on `model`: each turn's state, events."""
    from langchain_core.messages import HumanMessage
    from langgraph.checkpoint.memory import InMemorySaver

    from resin.agent.context import Context
    from resin.agent.graph import builder
    from resin.agent.llm import register_chat_model

    register_chat_model("conversation", model)
    ctx = Context.one_model(
        "conversation", plan_model="auto", index_path=str(sample_index), **fields
    )
    graph = builder.compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "talk"}}
    turns = []
    for question in (first, follow_up):
        events = [
            payload
            for mode, payload in graph.stream(
                {"messages": [HumanMessage(question)]}, config, context=ctx, stream_mode=["custom"]
            )
        ]
        turns.append((graph.get_state(config).values, events))
    return turns
