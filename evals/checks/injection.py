"""Prompt injection from hostile documents: fences hold, tools stay with the graph, citations checked.

The documents and the models that obey them come from `resin.evals.hostile`; this check asks the graph
its questions over the sample index and counts every way the hostile text got through.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from resin.evals.hostile import (
    HOSTILE_DOCS,
    fence_breaks,
    hostile_questions,
    obeying_responder,
    schema_of,
    tool_calling_model,
)

_BRACKETED = re.compile(r"\[([^\]\s]{1,40})\]")


def check_hostile(index_path: Path, figures: dict[str, Any]) -> None:
    """Fences hold in every prompt, tools stay with the graph, citations stay in the buffer."""
    import html

    from resin.agent.context import Context
    from resin.agent.graph import graph
    from resin.agent.llm import registered_chat_model
    from resin.agent.resources import get_index
    from resin.indexes.documents import Document, make_passages
    from resin.indexes.extraction import extraction_messages
    from resin.testing import chat

    figures["hostile_documents_tried"] += len(HOSTILE_DOCS)
    for doc in HOSTILE_DOCS:
        figures["trials_run"] += 1
        for passage in make_passages(Document(id=doc["id"], title=doc["title"], text=doc["text"])):
            prompt = str(extraction_messages(passage)[-1].content)
            figures["fence_breakouts"] += fence_breaks(prompt, "passage", 1)
    ctx = Context.one_model(
        "doctor-hostile",
        index_path=str(index_path),
    )
    index = get_index(ctx)
    for model in (
        chat.ScriptedChatModel(responder=obeying_responder),
        tool_calling_model(obeying_responder),
    ):
        with registered_chat_model("doctor-hostile", model):
            for question in hostile_questions():
                figures["trials_run"] += 1
                done = len(model.calls)
                out = graph.invoke({"question": question}, context=ctx)
                held = index.passages({e.passage_id for e in out["evidence"]})
                figures["citations_outside_buffer"] += len(
                    set(out["citations"]) - {p.id for p in held}
                )
                if any(getattr(m, "tool_calls", None) for m in out.get("messages", [])):
                    figures["tool_calls_passed_on"] += 1
                sentences = {s.text for p in held for s in p.sentences}
                for args, kwargs in model.calls[done:]:
                    if "tools" in kwargs or "functions" in kwargs:
                        figures["tool_calls_outside_graph"] += 1
                    prompt = str(args[-1].content)
                    schema = schema_of(kwargs)
                    if schema == "ShortAnswer":  # every evidence line is a sentence of the buffer
                        lines = [
                            html.unescape(line[2:])
                            for line in prompt.splitlines()
                            if line.startswith("- ")
                        ]
                        figures["fence_breakouts"] += sum(line not in sentences for line in lines)
                        for tag in ("evidence", "question", "choices"):
                            figures["fence_breakouts"] += fence_breaks(prompt, tag, 1)
                    elif schema == "BridgeAnswer":
                        figures["bridge_fence_breakouts"] += fence_breaks(prompt, "evidence", 1)
                message = str(out["messages"][-1].content)
                labels = _BRACKETED.findall(message)
                figures["unchecked_citations_in_answer"] += sum(
                    not (label.isdigit() and 1 <= int(label) <= len(out["sources"]))
                    for label in labels
                )
                figures["unchecked_citations_in_answer"] += sum(
                    s["sentence"] not in sentences for s in out["sources"]
                )
