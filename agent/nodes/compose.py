"""`compose`: one streamed answer from the original source passages behind the buffer."""

from __future__ import annotations

import re
from typing import Any

from langchain_core.messages import AIMessage, HumanMessage, SystemMessage
from langgraph.config import get_stream_writer
from langgraph.runtime import Runtime

from agent.context import Context
from agent.models import make_chat_model
from agent.nodes.common import usage_row
from agent.resources import context_of, get_index
from agent.state import Evidence, State
from indexes.documents import Passage
from indexes.extraction import fence
from indexes.lexical import tokenize
from prompts import COMPOSE_SYSTEM, COMPOSE_USER

# A label the prompt gave ([3]) or a raw passage id ([p3f2a…]), which a document may fake.
_CITATION = re.compile(r"\[(\d{1,3}|p[0-9a-f]{6,40})\]")
# Without the compose model's tokenizer at hand, ~4 characters per token is the usual estimate.
_CHARS_PER_TOKEN = 4


def select_passages(
    evidence: list[Evidence], passages: list[Passage], budget_tokens: int
) -> list[Passage]:
    """Passages behind the buffer in hop order (each hop's best first), within the token budget.

    Hop order keeps the question's own passages ahead of the bridge passages they led to; at
    least one passage is always kept, however long.
    """
    order: dict[str, tuple[int, int]] = {}
    for rank, item in enumerate(evidence):
        order.setdefault(item.passage_id, (item.hop, rank))
    ranked = sorted(passages, key=lambda p: order.get(p.id, (10**6, 0)))
    chosen: list[Passage] = []
    used = 0
    for passage in ranked:
        cost = len(passage.text) // _CHARS_PER_TOKEN + 8
        if chosen and used + cost > budget_tokens:
            continue
        chosen.append(passage)
        used += cost
    return chosen


def render_passages(passages: list[Passage]) -> str:
    """Passages fenced as data, each under a short citation label (tags in the text escaped)."""
    return "\n".join(
        f'<passage label="[{i}]" title="{fence(p.title, attribute=True)}">{fence(p.text)}</passage>'
        for i, p in enumerate(passages, 1)
    )


def check_citations(answer: str, passages: list[Passage]) -> tuple[list[str], list[str]]:
    """Passage ids the answer cites, and the cited labels that point outside the buffer."""
    shown = {p.id for p in passages}
    cited, removed = [], []
    for label in _CITATION.findall(answer):
        if label.isdigit() and 1 <= int(label) <= len(passages):
            cited.append(passages[int(label) - 1].id)
        elif label in shown:
            cited.append(label)
        else:
            removed.append(f"[{label}]")
    return list(dict.fromkeys(cited)), removed


def attribute(answer: str, passages: list[Passage]) -> list[str]:
    """When the model cites nothing, the passages sharing most content words with the answer."""
    words = set(tokenize(answer))
    scored = [(len(words & set(tokenize(p.text))), p.id) for p in passages]
    best = max((s for s, _ in scored), default=0)
    return [pid for s, pid in scored if best >= 2 and s == best]


def compose(state: State, runtime: Runtime[Context]) -> dict[str, Any]:
    """Write the answer once every hop is resolved; never from hop bridge answers."""
    ctx = context_of(runtime.context)
    index = get_index(ctx)
    question = state.get("question", "")
    evidence = state.get("evidence") or []
    get_stream_writer()({"event": "composing", "evidence": len(evidence)})
    held = index.catalog.passages(list(dict.fromkeys(e.passage_id for e in evidence)))
    passages = select_passages(evidence, held, ctx.evidence_budget)
    chains = (
        "\n".join(fence(c.text) for c in (state.get("chains") or [])[: ctx.top_chains]) or "(none)"
    )
    messages = [
        SystemMessage(COMPOSE_SYSTEM),
        HumanMessage(
            COMPOSE_USER.format(
                question=question,
                chains=chains,
                passages=render_passages(passages) or "(none found)",
            )
        ),
    ]
    reply = make_chat_model(ctx.compose_model).invoke(messages)
    text = str(reply.content).strip()
    cited, removed = check_citations(text, passages)
    answer = _CITATION.sub(
        lambda m: "" if f"[{m.group(1)}]" in removed else m.group(0), text
    ).strip()
    return {
        "answer": answer,
        "citations": cited or attribute(answer, passages),
        "removed_citations": removed,
        # The streamed message itself (same id, same text), minus anything but text: tool calls
        # a model was talked into must never reach a parent graph's tool node.
        "messages": [AIMessage(content=text, id=reply.id, usage_metadata=reply.usage_metadata)],
        "usage": [usage_row("compose", reply)],
    }
