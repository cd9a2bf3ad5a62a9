"""Small helpers the nodes share."""

from __future__ import annotations

import json
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage, HumanMessage
from langchain_core.runnables import Runnable
from langgraph.constants import TAG_NOSTREAM
from pydantic import BaseModel

from agent.state import State
from indexes.extraction import json_schema_format, token_usage


def question_of(state: State) -> str:
    """The question: the newest human turn when a chat ends with one, else the `question` field.

    In a chat thread `question` still holds the previous turn's question, so a trailing human
    message wins; a run started with `question` alone ends with the last turn's AI message.
    """
    messages = state.get("messages") or []
    if messages and isinstance(messages[-1], HumanMessage):
        return str(messages[-1].content).strip()
    return str(state.get("question") or "").strip()


def structured(model: BaseChatModel, schema: type[BaseModel], max_tokens: int) -> Runnable:
    """A schema-constrained, non-streaming call: only `compose` streams tokens to the user."""
    limits = {"items": 5, "chars": 200}
    return model.bind(
        response_format=json_schema_format(schema, limits), max_tokens=max_tokens
    ).with_config(tags=[TAG_NOSTREAM])


def parse_reply(reply: BaseMessage, schema: type[BaseModel]) -> Any:
    """Validate a structured reply; raises ValueError when it does not fit the schema."""
    try:
        return schema.model_validate(json.loads(str(reply.content), strict=False))
    except (json.JSONDecodeError, ValueError) as exc:
        raise ValueError(f"{schema.__name__}: {exc}") from exc


def usage_row(step: str, reply: BaseMessage) -> dict[str, int | str]:
    """One row of the token ledger kept in state."""
    prompt, completion = token_usage(reply)
    return {"step": step, "prompt_tokens": prompt, "completion_tokens": completion}
