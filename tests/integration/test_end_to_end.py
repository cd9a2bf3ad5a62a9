"""The real embedded SmolLM2 answers the sample questions: short, right, grounded, no loops."""

import json

import pytest

from resin.agent.context import Context
from resin.agent.graph import graph
from resin.evals.bench_answer import repeats
from resin.indexes.build import Builder
from resin.indexes.opening import close_indexes, open_index
from resin.indexes.reading import load_documents
from resin.indexes.units import normalize

from ..conftest import SAMPLE_DOCS

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def structural_index(tmp_path_factory, embedder):
    path = tmp_path_factory.mktemp("e2e") / "index"
    index = open_index(path, embedder, create=True)
    docs, _ = load_documents([SAMPLE_DOCS])
    Builder(index, None).run(docs)  # structural index: the agent's model is what this test runs
    index.close()
    yield path
    close_indexes()


SAMPLE_QUESTIONS = [
    json.loads(line)
    for line in (SAMPLE_DOCS.parent / "questions.jsonl").read_text().splitlines()
    if line.strip()
][:3]


@pytest.mark.parametrize(
    "item",
    SAMPLE_QUESTIONS,
    ids=[q["id"] for q in SAMPLE_QUESTIONS],
)
def test_embedded_model_gives_the_expected_short_answer_with_sources(structural_index, item):
    ctx = Context(index_path=str(structural_index))  # the defaults: embedded model, ranked answer
    chunks, nodes, final = [], set(), {}
    for mode, payload in graph.stream(
        {"question": item["question"]}, context=ctx, stream_mode=["messages", "values"]
    ):
        if mode == "messages":
            if payload[0].content:  # the plan's answer message is empty until compose fills it
                nodes.add(payload[1].get("langgraph_node"))
            chunks.append(payload[0].content)
        else:
            final = payload
    message = final["messages"][-1].content
    assert "".join(chunks).strip() == message.strip()
    assert nodes == {"compose"}  # planning and hop calls never stream to the user
    assert any(normalize(a) in normalize(final["answer"]) for a in item["answers"]), message
    assert len(final["answer"].split()) <= 6
    assert not repeats(message), message
    buffer = {e.passage_id for e in final["evidence"]}
    assert final["sources"] and set(final["citations"]) <= buffer


def test_the_embedded_model_picks_one_of_the_candidates_when_asked_to(structural_index):
    """`choices` mode runs the real 135M model under the enum grammar: whatever it picks is a
    candidate the passages write, cited, and never looped; its pick streams as it is written."""
    # a structural plan: parsed hops would answer by themselves, with no model to pick
    ctx = Context(index_path=str(structural_index), answer_mode="choices", plan_model="none")
    event, final, chunks = {}, {}, []
    for mode, payload in graph.stream(
        {"question": SAMPLE_QUESTIONS[0]["question"]},
        context=ctx,
        stream_mode=["custom", "values", "messages"],
    ):
        if mode == "custom" and payload.get("event") == "answer":
            event = payload
        elif mode == "values":
            final = payload
        elif mode == "messages" and payload[0].content:
            chunks.append((payload[0].id, payload[0].content, bool(event)))
    answer = final["messages"][-1]
    assert {key for key, _, _ in chunks} == {answer.id}
    if final["sources"]:  # the pick came as the model wrote it, before compose had its answer
        assert "".join(text for _, text, _ in chunks) == answer.content
        told = "".join(text for _, text, after in chunks if not after)
        assert told and final["answer"].startswith(told), chunks
    assert event["mode"] == "choices" and len(event["candidates"]) > 1
    assert any(row["step"] == "compose" for row in final["usage"])  # the model was called
    if final["sources"]:
        assert final["answer"] in event["candidates"]
        assert set(final["citations"]) <= {e.passage_id for e in final["evidence"]}
    else:
        assert final["answer"] == "" or "could not find" in final["messages"][-1].content
    assert not repeats(final["messages"][-1].content)


def test_minilm_reads_which_sentence_answers_a_hop(structural_index, embedder):
    """The hop reader's meaning features come from the index's own embedder: with MiniLM, the
    sentence that writes where Hessa Varn studied is the nearest one to the hop that asks it."""
    index = open_index(structural_index, embedder)
    own = [p for p in index.catalog.iter_passages() if p.title == "Hessa Varn"]
    cosines = index.sentence_similarity("Where did Hessa Varn study engineering?", own)
    texts = {s.id: s.text for p in own for s in p.sentences}
    assert set(cosines) == set(texts)
    nearest = max(cosines, key=cosines.__getitem__)
    assert texts[nearest].startswith("Hessa Varn studied engineering")
