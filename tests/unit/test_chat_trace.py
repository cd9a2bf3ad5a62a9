"""The chat's live trace: its props, the order the graph pushes them in, and the passage route."""

import json
import re

import pytest
from langchain_core.messages import HumanMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph.ui import ui_message_reducer
from starlette.testclient import TestClient

from resin.agent import chat_trace
from resin.agent.context import Context
from resin.agent.graph import builder
from resin.agent.llm import register_chat_model
from resin.agent.resources import get_index
from resin.agent.server import app
from resin.agent.state import Hop, HopResult
from resin.prompts import ANSWER_FREE_SYSTEM
from resin.testing.chat import ScriptedChatModel, heuristic_reply
from resin.tools.retrieval import Chain, ChainLink

from ..conftest import QUESTION

COMPARISON = "Which was built first, the Orrin Dam or the Brannock Mill?"
FINAL = {"answered", "resolved", "not_found", "skipped"}


def result(hop: int, status: str = "resolved", answer: str = "") -> HopResult:
    return HopResult(hop=hop, query=f"filled question {hop}", status=status, answer=answer)


def test_a_hop_s_status_says_whether_it_answered_read_or_found_nothing():
    assert chat_trace.hop_status(None, structural=False) == "pending"
    assert chat_trace.hop_status(result(1, "unresolved"), structural=True) == "not_found"
    assert chat_trace.hop_status(result(1, answer="Hessa Varn"), structural=False) == "answered"
    # a structural hop has no answer of its own: finding passages is all it does
    assert chat_trace.hop_status(result(1), structural=True) == "resolved"
    # a hop that asked its own question and got no answer found nothing
    assert chat_trace.hop_status(result(1), structural=False) == "not_found"


def test_the_last_push_marks_hops_never_run_and_notes_each_miss():
    plan = [Hop(id=1, question="Who designed #0 dam?"), Hop(id=2, question="Where was #1 born?")]
    entries, notes = chat_trace.final_hops(plan, {1: result(1, "unresolved")}, structural=False)
    assert entries["hop_1"] == {
        "id": 1,
        "question": "filled question 1",
        "status": "not_found",
        "answer": "",
    }
    assert entries["hop_2"]["status"] == "skipped"
    assert entries["hop_2"]["question"] == "Where was #1 born?"
    assert notes == ["hop 1 found no answer", "hop 2 was not run"]


def test_a_source_link_names_the_passage_and_the_sentence_s_position():
    assert (
        chat_trace.source_url("http://srv:2024/", "p1a2", "p1a2:3")
        == "http://srv:2024/sources/p1a2?sentence=3"
    )
    assert chat_trace.source_url("", "a/b c", "a/b c:0") == "/sources/a%2Fb%20c?sentence=0"
    # a sentence id of another shape: the passage alone
    assert chat_trace.source_url("", "p1", "other:2") == "/sources/p1"


def test_a_chain_is_drawn_cause_first():
    chain = Chain(
        links=[
            ChainLink(head="glacier retreat", relation="reduces", tail="river flow", unit_ids=[]),
            ChainLink(head="river flow", relation="lowers", tail="the reservoir", unit_ids=[]),
        ],
        score=0.8,
    )
    assert chat_trace.chain_links(chain) == [
        {"head": "glacier retreat", "relation": "reduces", "tail": "river flow"},
        {"head": "river flow", "relation": "lowers", "tail": "the reservoir"},
    ]
    assert chat_trace.chain_links(None) == []


def streamed(sample_index, question, config=None, graph=None, **fields):
    """One run on the rule-based ``fake`` model: custom parts, message chunks, the final state."""
    graph = graph or builder.compile()
    fields = {"public_url": "http://resin.test:2024", **fields}
    ctx = Context.one_model("fake", index_path=str(sample_index), **fields)
    custom, chunks, final = [], [], {}
    for mode, payload in graph.stream(
        {"messages": [HumanMessage(question)]},
        config,
        context=ctx,
        stream_mode=["custom", "messages", "values"],
    ):
        if mode == "custom":
            custom.append(payload)
        elif mode == "messages":
            chunks.append(payload)
        else:
            final = payload
    return custom, chunks, final


def check_trace(custom, final):
    """The UI messages of one run: one id, tied to the answer, in the order the run went."""
    ui = [p for p in custom if p.get("type") == "ui"]
    answer = final["messages"][-1]
    assert {m["id"] for m in ui} == {f"trace-{answer.id}"}
    assert all(m["name"] == "resin_trace" and m["metadata"]["merge"] for m in ui)
    assert {m["metadata"]["message_id"] for m in ui} == {answer.id}
    # the plan comes first, right after the plan event, every hop pending
    kinds = [p.get("event", "ui") for p in custom]
    assert kinds[:2] == ["plan", "ui"]
    first = ui[0]["props"]
    planned = [k for k in first if k.startswith("hop_")]
    assert planned and all(first[k]["status"] == "pending" for k in planned)
    assert first["stage"] == "reading" and first["sources"] == []
    # each hop reads, then resolves, before the answer is composed
    stages = [m["props"]["stage"] for m in ui if "stage" in m["props"]]
    assert stages == ["reading", "composing", "done"]
    composing = next(i for i, m in enumerate(ui) if m["props"].get("stage") == "composing")
    for key in {k for m in ui for k in m["props"] if k.startswith("hop_")}:
        statuses = [m["props"][key]["status"] for m in ui[:composing] if key in m["props"]]
        assert "reading" in statuses and statuses[-1] in FINAL, (key, statuses)
    # merged in order, the pushes give the state's trace
    merged = []
    for message in ui:
        merged = ui_message_reducer(merged, message)
    assert merged == [final["ui"][-1]]
    return merged[0]["props"]


def test_a_run_pushes_its_plan_each_hop_and_its_sources_to_one_ui_message(sample_index):
    custom, chunks, final = streamed(sample_index, QUESTION, plan_model="parsed")
    props = check_trace(custom, final)
    hops = sorted((v for k, v in props.items() if k.startswith("hop_")), key=lambda h: h["id"])
    assert [h["id"] for h in hops] == [p.id for p in final["plan"]]
    for hop in hops:
        got = final["results"][hop["id"]]
        assert hop["question"] == got.query and hop["answer"] == got.answer
    assert props["answer"] == final["answer"] and props["found"] is True
    # a hop read after another shows that one's answer in its question, not a placeholder
    shown = [m["props"]["hop_2"]["question"] for m in custom if "hop_2" in m.get("props", {})]
    reading = [
        m["props"]["hop_2"]
        for m in custom
        if m.get("props", {}).get("hop_2", {}).get("status") == "reading"
    ]
    assert reading and all("#" not in h["question"] for h in reading), shown
    assert final["results"][1].answer in reading[0]["question"]
    # no cause → effect chain answers a question of who and where: none is drawn
    assert props["chain"] == []
    assert [s["label"] for s in props["sources"]] == [s["label"] for s in final["sources"]]
    for shown, cited in zip(props["sources"], final["sources"], strict=True):
        position = cited["sentence_id"].rsplit(":", 1)[1]
        assert shown["url"] == (
            f"http://resin.test:2024/sources/{cited['passage_id']}?sentence={position}"
        )
        assert shown["sentence"] == cited["sentence"]
    # the answer streams as a chunk of the message the trace sits in, and only once
    answer = final["messages"][-1]
    said = "".join(c.content for c, meta in chunks if c.id == answer.id)
    assert said == answer.content and answer.content.startswith(final["answer"])
    assert all(meta["langgraph_node"] in ("plan", "compose") for _, meta in chunks)
    # each citation in the text, and each Sources entry, links to the trace's source link
    for shown in props["sources"]:
        link = f"[[{shown['label']}]]({shown['url']})"
        assert f"{shown['sentence']} {link}" in answer.content
        assert f"- {link} {shown['title']}: " in answer.content
    assert not re.search(r"(?<!\[)\[\d+\](?!\()", answer.content)  # no bare [n] left


def test_without_a_server_address_the_citations_stay_plain_text(sample_index, monkeypatch):
    """The CLI, the library and the evals read the same plain `[n]` as before."""
    monkeypatch.delenv("RESIN_PUBLIC_URL", raising=False)
    monkeypatch.delenv("LANGGRAPH_API_URL", raising=False)
    _, _, final = streamed(sample_index, QUESTION, public_url="", plan_model="parsed")
    text = final["messages"][-1].content
    assert final["sources"] and "](" not in text and "/sources/" not in text
    for cited in final["sources"]:
        assert f"- [{cited['label']}] {cited['title']}: " in text


def test_hops_resolved_in_parallel_each_keep_their_own_entry(sample_index):
    custom, _, final = streamed(sample_index, COMPARISON, plan_model="parsed")
    props = check_trace(custom, final)
    plan = final["plan"]
    parallel = [h.id for h in plan if not h.depends_on]
    assert len(parallel) >= 2  # both options are looked up at once
    for hop_id in parallel:
        assert props[f"hop_{hop_id}"]["status"] == "answered"
        assert props[f"hop_{hop_id}"]["answer"] == final["results"][hop_id].answer


def test_each_turn_of_a_thread_keeps_its_own_trace_with_its_own_answer(sample_index):
    graph = builder.compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "chat"}}
    streamed(sample_index, QUESTION, config, graph)
    custom, _, final = streamed(sample_index, "Who designed the Orrin Dam?", config, graph)
    check_trace(custom, final)
    ai = [m for m in final["messages"] if m.type == "ai"]
    assert len(ai) == 2 and all(m.content for m in ai)
    assert [u["metadata"]["message_id"] for u in final["ui"]] == [m.id for m in ai]
    assert final["ui"][0]["props"]["question"] == QUESTION


def test_a_message_that_asks_nothing_gets_its_reply_and_no_trace(sample_index):
    custom, chunks, final = streamed(sample_index, "hi")
    assert not [p for p in custom if p.get("type") == "ui"] and not final.get("ui")
    reply = final["messages"][-1]
    assert reply.content.startswith("Ask me a question")
    assert "".join(c.content for c, _ in chunks if c.id == reply.id) == reply.content


def answer_parts(sample_index, spec="fake", **fields):
    """One run's custom events and the answer message's chunks, in the order they came."""
    ctx = Context.one_model(spec, index_path=str(sample_index), **fields)
    parts, final = [], {}
    for mode, payload in builder.compile().stream(
        {"messages": [HumanMessage(QUESTION)]},
        context=ctx,
        stream_mode=["custom", "messages", "values"],
    ):
        if mode == "custom" and "event" in payload:
            parts.append(("event", payload["event"]))
        elif mode == "messages":
            chunk, meta = payload
            parts.append((chunk.id, chunk.content))
        elif mode == "values":
            final = payload
    answer = final["messages"][-1]
    return parts, [text for key, text in parts if key == answer.id], final


def test_a_model_s_answer_reaches_the_chat_as_it_writes_it(sample_index):
    """Free mode: the model's pieces stream as chunks of the answer message, then the rest."""
    parts, chunks, final = answer_parts(sample_index, answer_mode="free")
    answer = final["messages"][-1]
    assert [m.type for m in final["messages"]] == ["human", "ai"]
    assert "".join(chunks) == answer.content and final["answer"] == "Orrin Dam"
    # the scripted model writes the answer word by word: each word comes as a chunk of its own,
    # before compose has its answer (its "answer" event); the sentences and sources follow
    assert chunks[1:4] == ["Orrin", " Dam", answer.content.removeprefix("Orrin Dam")]
    words = parts.index((answer.id, "Orrin"))
    assert words < parts.index(("event", "answer")) < parts.index((answer.id, chunks[3]))


def test_a_picked_answer_arrives_whole(sample_index):
    """The ranked pick (the embedded model's default) is not written by a model: one chunk."""
    _, chunks, final = answer_parts(sample_index, answer_mode="ranked")
    assert [c for c in chunks if c] == [final["messages"][-1].content]


def test_a_streamed_answer_compose_sets_aside_is_followed_by_the_message_kept(sample_index):
    """An answer no sentence supports streamed as written; the thread keeps the not-found alone."""

    def invent(messages, kwargs):
        if messages[0].content == ANSWER_FREE_SYSTEM:
            return json.dumps({"answer": "Napoleon Bonaparte"})
        return heuristic_reply(messages, kwargs)

    register_chat_model("inventing", ScriptedChatModel(responder=invent))
    _, chunks, final = answer_parts(sample_index, "inventing", answer_mode="free")
    kept = final["messages"][-1].content
    assert (
        not final["sources"]
        and kept == final["answer"] == "I could not find this in the documents."
    )
    assert [m.type for m in final["messages"]] == ["human", "ai"]
    assert "".join(chunks) == f"Napoleon Bonaparte\n\n{kept}"


@pytest.fixture
def passages(sample_index, monkeypatch):
    """The server's app over the sample index (RESIN_INDEX), and a passage of it."""
    monkeypatch.setenv("RESIN_INDEX", str(sample_index))
    index = get_index(Context(index_path=str(sample_index)))
    pid = index.catalog.doc_passage_ids("orrin-dam")[0]
    return TestClient(app), index.passages([pid])[0]


def test_a_source_link_opens_its_passage_with_the_sentence_marked(passages):
    client, passage = passages
    second = passage.sentences[1]
    page = client.get(chat_trace.source_url("", passage.id, second.id))
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert f'<mark id="sentence-1">{second.text}</mark>' in page.text.replace("&#x27;", "'")
    assert page.text.count("<mark") == 1 and passage.title in page.text
    data = client.get(
        chat_trace.source_url("", passage.id, second.id), headers={"accept": "application/json"}
    ).json()
    assert data["title"] == passage.title and data["sentence"] == 1
    assert [s["marked"] for s in data["sentences"]] == [
        i == 1 for i in range(len(passage.sentences))
    ]
    assert [s["text"] for s in data["sentences"]] == [s.text for s in passage.sentences]


def test_a_bad_source_link_gets_a_one_line_error(passages):
    client, passage = passages
    missing = client.get("/sources/p-none")
    assert missing.status_code == 404 and missing.text == "no passage 'p-none' in the index"
    last = len(passage.sentences) - 1
    for bad in ("99", "x", "-1"):
        reply = client.get(f"/sources/{passage.id}?sentence={bad}")
        assert reply.status_code == 400, bad
        assert reply.text == (
            f"sentence must be a sentence number of passage {passage.id!r}: 0 to {last}"
        )
    assert (
        json.loads(
            client.get(f"/sources/{passage.id}", headers={"accept": "application/json"}).text
        )["sentence"]
        is None
    )
