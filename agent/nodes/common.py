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
    """The question: the `question` field, else the last human message."""
    if state.get("question"):
        return str(state["question"]).strip()
    for message in reversed(state.get("messages") or []):
        if isinstance(message, HumanMessage):
            return str(message.content).strip()
    return ""


def structured(model: BaseChatModel, schema: type[BaseModel], max_tokens: int) -> Runnable:
    """A schema-constrained, non-streaming call: only `compose` streams tokens to the user."""
    limits = {"items": 5, "chars": 200}
    return model.bind(
        response_format=json_schema_format(schema, limits), max_tokens=max_tokens
    ).with_config(tags=[TAG_NOSTREAM])


def parse_reply(reply: BaseMessage, schema: type[BaseModel]) -> Any:
    """Validate a structured reply; raises ValueError when it does not fit the schema."""
    try:
        return schema.model_validate(json.loads(str(reply.content)))
    except (json.JSONDecodeError, ValueError) as exc:
        raise ValueError(f"{schema.__name__}: {exc}") from exc


def usage_row(step: str, reply: BaseMessage) -> dict[str, int | str]:
    """One row of the token ledger kept in state."""
    prompt, completion = token_usage(reply)
    return {"step": step, "prompt_tokens": prompt, "completion_tokens": completion}
