"""The real embedded SmolLM2 answers over the sample corpus; its citations point into the buffer."""

import pytest

from agent.context import Context
from agent.graph import graph
from agent.resources import forget_indexes
from indexes.build import Builder, Index, IndexConfig
from indexes.documents import load_documents
from tests.conftest import SAMPLE_DOCS

pytestmark = pytest.mark.slow


def test_embedded_model_answers_with_citations_into_the_buffer(tmp_path, embedder):
    path = tmp_path / "index"
    index = Index(IndexConfig(path=path), embedder)
    docs, _ = load_documents([SAMPLE_DOCS])
    Builder(index, None).run(docs)  # structural index: the agent's model is what this test runs
    index.close()
    ctx = Context(index_path=str(path))  # every step on the embedded default model
    tokens = []
    streaming_nodes = set()
    final = {}
    for mode, payload in graph.stream(
        {
            "question": "Which mountain pass does the road that carries the Brannock Mill's flour cross?"
        },
        context=ctx,
        stream_mode=["messages", "values"],
    ):
        if mode == "messages":
            streaming_nodes.add(payload[1].get("langgraph_node"))
            tokens.append(payload[0].content)
        elif mode == "values":
            final = payload
    forget_indexes()
    assert "".join(tokens).strip(), "compose streamed no tokens"
    assert final["answer"].strip()
    buffer = {e.passage_id for e in final["evidence"]}
    assert buffer and set(final["citations"]) <= buffer
    # the final AI message is the streamed message itself
    assert final["messages"][-1].content.strip() == "".join(tokens).strip()
    # planning and hop calls are tagged not to stream: every token came from compose
    assert streaming_nodes == {"compose"}
