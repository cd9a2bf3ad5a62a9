"""What goes around a prompt on its way into a model and what comes back out of it.

Data placed between prompt tags is fenced (`fence`, undone by `unfence`); structured output is
requested as an OpenAI-style JSON-schema `response_format` (`json_schema_format`), read back by
`parse_reply`; `token_usage` reads what a backend says a call cost. The index builder's extraction
call and the agent's nodes both use these, so they live here, below both.
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any, TypeVar

from langchain_core.messages import BaseMessage
from pydantic import BaseModel

_Model = TypeVar("_Model", bound=BaseModel)

_FENCE = {"<": "&lt;", ">": "&gt;"}
_UNFENCE = {v: k for k, v in _FENCE.items()} | {"&quot;": '"'}


def fence(text: str, attribute: bool = False) -> str:
    """Text made safe to place between prompt tags: it can open or close none.

    Only ``<`` and ``>`` are escaped (and ``"`` in an attribute), so ordinary text reaches the model
    unchanged; a document that writes ``</passage>`` cannot end its own fence.
    """
    for char, entity in _FENCE.items():
        text = text.replace(char, entity)
    return text.replace('"', "&quot;") if attribute else text


def unfence(value: Any) -> Any:
    """Undo `fence` in a string the model copied from a fenced passage (other values unchanged)."""
    if isinstance(value, str):
        for entity, char in _UNFENCE.items():
            value = value.replace(entity, char)
    return value


def json_schema_format(
    schema: type[BaseModel], limits: dict[str, int] | None = None
) -> dict[str, Any]:
    """An OpenAI-style `response_format` constraining output to the schema.

    `limits` caps arrays (maxItems) and strings (maxLength) in the constraint only, so a small
    model's grammar-bound output ends inside its token budget; parsing stays lenient.
    """
    body = json.loads(_schema_json(schema))  # a fresh copy: _cap edits it
    if limits:
        _cap(body, limits)
    return {"type": "json_schema", "json_schema": {"name": schema.__name__, "schema": body}}


@cache
def _schema_json(schema: type[BaseModel]) -> str:
    """Pydantic rebuilds a JSON schema on every call; plan, bridge and compose ask each question."""
    return json.dumps(schema.model_json_schema())


def _cap(node: Any, limits: dict[str, int]) -> None:
    if isinstance(node, dict):
        if node.get("type") == "array" and "items" in node:
            node["maxItems"] = min(node.get("maxItems", limits["items"]), limits["items"])
        if node.get("type") == "string" and "enum" not in node:
            node["maxLength"] = min(node.get("maxLength", limits["chars"]), limits["chars"])
        for value in node.values():
            _cap(value, limits)
    elif isinstance(node, list):
        for value in node:
            _cap(value, limits)


def parse_reply(reply: BaseMessage, schema: type[_Model]) -> _Model:
    """Validate a structured reply; raises ValueError when it does not fit the schema."""
    try:
        return schema.model_validate(json.loads(str(reply.content), strict=False))
    except (json.JSONDecodeError, ValueError) as exc:
        raise ValueError(f"{schema.__name__}: {exc}") from exc


def token_usage(message: BaseMessage) -> tuple[int, int]:
    """Prompt and completion tokens as reported by the backend (0 when it reports none)."""
    usage = getattr(message, "usage_metadata", None) or {}
    return int(usage.get("input_tokens", 0)), int(usage.get("output_tokens", 0))
