"""The compiled resin graph as a node of a parent chat agent, streamed with subgraphs=True."""

from __future__ import annotations

import uuid

import pytest
from langchain_core.messages import AIMessage, HumanMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, MessagesState, StateGraph

from resin.agent.context import Context
from resin.agent.graph import graph
from resin.agent.resources import get_index

pytestmark = pytest.mark.slow

FIRST = "In which port was the designer of the Orrin Dam born?"
SECOND = "What spawns in the gravel beds below the Orrin Dam?"


def chat_agent():
    """A parent chat graph whose only node is resin, added directly as a subgraph."""
    parent = StateGraph(MessagesState, context_schema=Context)
    parent.add_node("resin", graph)
    parent.add_edge(START, "resin")
    parent.add_edge("resin", END)
    return parent.compile(checkpointer=InMemorySaver())


def turn(app, question: str | list, config: dict, context: Context) -> dict:
    """Stream one chat turn; collect tokens, custom events and updates by namespace."""
    seen: dict = {"tokens": [], "custom": [], "updates": [], "parent": [], "namespaces": set()}
    for namespace, mode, data in app.stream(
        {"messages": [HumanMessage(content=question)]},
        config,
        context=context,
        stream_mode=["messages", "custom", "updates"],
        subgraphs=True,
    ):
        if namespace:
            seen["namespaces"].add(namespace)
        if mode == "messages":
            chunk, metadata = data
            if chunk.content:
                seen["tokens"].append((namespace, metadata.get("langgraph_node"), chunk.content))
        elif mode == "custom":
            seen["custom"].append(data)
        elif namespace:
            seen["updates"].append(data)
        else:
            seen["parent"].append(data)
    return seen


def check_turn(seen: dict, question: str) -> tuple[str, set[str], list[str]]:
    """Common checks; returns the streamed text, the turn's evidence passage ids and citations."""
    tokens = seen["tokens"]
    assert tokens, "no tokens streamed"
    for namespace, node, _ in tokens:
        assert namespace and namespace[0].split(":")[0] == "resin", namespace
        assert node == "compose"

    kinds = [e["event"] for e in seen["custom"] if "event" in e]  # not the chat's UI messages
    assert kinds[0] == "plan" and "hop" in kinds and kinds[-2:] == ["composing", "answer"], kinds
    # The question is the parent's last human message, not an earlier turn's.
    assert seen["custom"][0]["hops"][0]["question"] == question

    evidence = [
        item
        for update in seen["updates"]
        for item in (update.get("resolve_hop") or {}).get("evidence", [])
    ]
    composing = next(e for e in seen["custom"] if e.get("event") == "composing")
    # The buffer the composer reads holds exactly what this turn's hops found.
    assert composing["evidence"] == len({e.id for e in evidence})

    composed = next(u["compose"] for u in seen["updates"] if "compose" in u)
    assert seen["parent"] and "resin" in seen["parent"][-1]
    return "".join(text for *_, text in tokens), {e.passage_id for e in evidence}, composed


def test_resin_as_a_subgraph_of_a_chat_agent(sample_index):
    app = chat_agent()
    config = {"configurable": {"thread_id": f"chat-{uuid.uuid4()}"}}
    context = Context.one_model("fake", index_path=str(sample_index))

    # as LangChain 1.x chat clients send it: content blocks, not a string
    first = turn(app, [{"type": "text", "text": FIRST}], config, context)
    text1, held1, composed1 = check_turn(first, FIRST)
    messages = app.get_state(config).values["messages"]
    assert [type(m) for m in messages] == [HumanMessage, AIMessage]
    assert messages[-1].content.strip()
    assert messages[-1].content.strip() == text1.strip()
    assert set(composed1["citations"]) <= held1
    assert composed1["answer"] == "Caldmere" and "Sources:" in text1

    second = turn(app, SECOND, config, context)
    text2, held2, composed2 = check_turn(second, SECOND)
    # Each turn runs the subgraph afresh (its own checkpoint namespace).
    assert first["namespaces"].isdisjoint(second["namespaces"])
    messages = app.get_state(config).values["messages"]
    assert [type(m) for m in messages] == [HumanMessage, AIMessage, HumanMessage, AIMessage]
    assert [m.text for m in messages[::2]] == [FIRST, SECOND]
    answer = messages[-1].content.strip()
    assert answer and answer == text2.strip()
    assert answer != messages[1].content.strip()
    # the second turn searched for the second question: its buffer holds the gravel-bed passage
    second_texts = [p.text for p in get_index(context).catalog.passages(held2)]
    assert any("gravel beds" in t for t in second_texts)
    assert composed2["answer"].strip() and set(composed2["citations"]) <= held2
    assert held2 != held1


def test_a_follow_up_through_the_subgraph_is_read_with_the_parent_s_thread(sample_index):
    app = chat_agent()
    config = {"configurable": {"thread_id": f"chat-{uuid.uuid4()}"}}
    context = Context.one_model("fake", index_path=str(sample_index))
    turn(app, "Who designed the Orrin Dam?", config, context)
    answer = app.get_state(config).values["messages"][-1].content.splitlines()[0]
    seen = turn(app, "Where was she born?", config, context)
    plan = next(e for e in seen["custom"] if e.get("event") == "plan")
    # the fake model picks the first name offered: the previous turn's short answer
    assert plan["asked"] == "Where was she born?"
    assert plan["question"] == f"Where was {answer} born?"
    assert plan["hops"][0]["question"] == plan["question"]
