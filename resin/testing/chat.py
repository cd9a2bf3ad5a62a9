"""Scripted chat models: deterministic stand-ins for a real model, for tests and offline checks.

`ScriptedChatModel` replies from a list or a function of the prompt and records every call;
`ToolCallingModel` also asks for a tool call, as a document that injects instructions would
want; `rule_based` answers every step by the schema bound to the call (`heuristic_reply`). None
is a production model spec: register one under a name of your own with
`resin.agent.llm.register_chat_model` to run resin's graph, or an app that embeds it, with no
model at all. `resin eval --model fake` and `resin doctor` register `rule_based` as ``fake``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.messages.ai import UsageMetadata
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import ConfigDict

from resin.agent.llm.base import CallFigures, TextChatModel

__all__ = ["Responder", "ScriptedChatModel", "ToolCallingModel", "heuristic_reply", "rule_based"]

Responder = Callable[[list[BaseMessage], dict[str, Any]], str]


class ScriptedChatModel(TextChatModel):
    """A deterministic chat model for tests: replies come from a list or a function of the prompt.

    Every call is recorded in ``calls`` (messages and bound kwargs), so tests can assert on
    prompts; `record` off keeps none, for a model that answers a whole benchmark run.
    """

    # Plain defaults (pydantic copies them per instance), not default_factory: LangChain reprs
    # the model on every call, and a factory makes pydantic inspect its signature each time.
    responses: list[str] = []
    responder: Responder | None = None
    calls: list[tuple[list[BaseMessage], dict[str, Any]]] = []
    record: bool = True
    model_config = ConfigDict(arbitrary_types_allowed=True)

    @property
    def _llm_type(self) -> str:
        return "scripted"

    @property
    def model_id(self) -> str:
        """Scripted models share one cache identity."""
        return "fake"

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> ScriptedChatModel:
        """Tools are called by the graph's own logic, so binding them changes nothing."""
        return self

    def _reply(self, messages: list[BaseMessage], kwargs: dict[str, Any]) -> str:
        if self.record:
            self.calls.append((list(messages), dict(kwargs)))
        if self.responses:
            return self.responses.pop(0)
        if self.responder is None:
            raise RuntimeError("ScriptedChatModel ran out of responses")
        return self.responder(messages, kwargs)

    @staticmethod
    def _usage(messages: list[BaseMessage], text: str) -> UsageMetadata:
        prompt = sum(len(str(m.content).split()) for m in messages)
        completion = len(text.split())
        return {
            "input_tokens": prompt,
            "output_tokens": completion,
            "total_tokens": prompt + completion,
        }

    def _complete(
        self, messages: list[BaseMessage], stop: list[str] | None, **kwargs: Any
    ) -> tuple[str, CallFigures]:
        text = self._reply(messages, kwargs)
        return text, CallFigures(self._usage(messages, text))

    def _pieces(
        self, messages: list[BaseMessage], stop: list[str] | None, **kwargs: Any
    ) -> Iterator[str | CallFigures]:
        text = self._reply(messages, kwargs)
        yield from re.findall(r"\S+\s*|\s+", text)
        yield CallFigures(self._usage(messages, text))


class ToolCallingModel(ScriptedChatModel):
    """A scripted model whose every reply also asks for a tool call, as an injected passage demands."""

    def _generate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kw: Any
    ) -> ChatResult:
        call = {"name": "search_passages", "args": {"query": "secret keys"}, "id": "call_1"}
        message = AIMessage(content=self._reply(messages, kw), tool_calls=[call])
        return ChatResult(generations=[ChatGeneration(message=message)])


_CAPITALIZED = re.compile(r"\b[A-Z][\w'-]*(?:\s+(?:of\s+|the\s+)?[A-Z][\w'-]*)*")


def heuristic_reply(messages: list[BaseMessage], kwargs: dict[str, Any]) -> str:
    """The ``fake`` model: rule-based answers shaped by the schema bound to the call.

    Extraction gets one relation per sentence between its first two capitalized names (or an
    entity-fact), which gives benchmarks a realistic unit and edge count with no model time.
    """
    schema = ((kwargs.get("response_format") or {}).get("json_schema") or {}).get("name")
    prompt = str(messages[-1].content)
    if schema == "ExtractionOutput":
        body = re.search(r"<passage[^>]*>\n(.*)\n</passage>", prompt, re.S)
        from resin.indexes.documents import split_sentences

        units = []
        for sentence in split_sentences(body.group(1) if body else prompt):
            names = [n for n in _CAPITALIZED.findall(sentence) if len(n) > 2]
            if len(names) >= 2 and names[0] != names[1]:
                units.append(
                    {
                        "kind": "relation",
                        "subject": names[0],
                        "predicate": "related to",
                        "object": names[1],
                        "quote": sentence,
                    }
                )
            elif names:
                words = sentence.rstrip(".").split()
                units.append(
                    {
                        "kind": "entity-fact",
                        "subject": names[0],
                        "predicate": "is described as",
                        "object": " ".join(words[-3:]),
                        "quote": sentence,
                    }
                )
        return json.dumps({"units": units})
    if schema == "Referent":  # the first name offered: the previous answer, when it agrees
        enum = kwargs["response_format"]["json_schema"]["schema"]["properties"]["name"]["enum"]
        return json.dumps({"name": enum[0]})
    if schema == "ShortAnswer":  # the first choice (the best-ranked candidate), or a name
        body = kwargs["response_format"]["json_schema"]["schema"]["properties"]["answer"]
        names = _CAPITALIZED.findall(prompt.rpartition("<question>")[0])
        return json.dumps({"answer": (body.get("enum") or names or ["not found"])[0]})
    if schema:
        return "{}"
    # Free text: the first sentence of the first passage, cited; or of the prompt's text.
    passage = re.search(r"<passage[^>]*>([^<]*)</passage>", prompt)
    source = passage.group(1) if passage else prompt
    first = re.search(r"[A-Z][^.\n]{10,200}\.", source)
    if not first:
        return "I could not find the answer."
    return f"{first.group(0)} [1]" if passage else first.group(0)


def rule_based(record: bool = True) -> ScriptedChatModel:
    """The ``fake`` model: `heuristic_reply` for every call."""
    return ScriptedChatModel(responder=heuristic_reply, record=record)
