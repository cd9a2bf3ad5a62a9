"""Small helpers the nodes share."""

from __future__ import annotations

from typing import Any

from langchain_core.language_models import BaseChatModel, LanguageModelInput
from langchain_core.messages import BaseMessage, HumanMessage
from langchain_core.runnables import Runnable
from pydantic import BaseModel

from resin.agent.answering.answer import structured_call
from resin.agent.state import State
from resin.prompts.structured import json_schema_format, token_usage


def message_text(content: Any) -> tuple[str, list[str]]:
    """The text of a message's content, and the kinds of the non-text blocks it skipped.

    Content is a string, or (LangChain 1.x, agent-chat-ui) a list of content blocks: text blocks
    are joined; image, file and other blocks carry nothing resin can search for.
    """
    if isinstance(content, str):
        return " ".join(content.split()), []
    texts, skipped = [], []
    for block in content or []:
        if isinstance(block, str):
            texts.append(block)
        elif isinstance(block, dict) and block.get("type") == "text":
            texts.append(str(block.get("text") or ""))
        else:
            kind = block.get("type") if isinstance(block, dict) else type(block).__name__
            skipped.append(str(kind or "unknown"))
    return " ".join(" ".join(texts).split()), skipped


def first_line(content: Any) -> str:
    """The first line of a message's text: resin's short answer in its reply message."""
    text = content if isinstance(content, str) else message_text(content)[0]
    return (text.strip().splitlines() or [""])[0].strip()


def question_of(state: State) -> tuple[str, list[str]]:
    """The question (and skipped non-text blocks): the newest human turn, else `question`.

    In a chat thread `question` still holds the previous turn's question, so a trailing human
    message wins; a run started with `question` alone ends with the last turn's AI message.
    """
    messages = state.get("messages") or []
    if messages and isinstance(messages[-1], HumanMessage):
        return message_text(messages[-1].content)
    return message_text(str(state.get("question") or ""))


def structured(
    model: BaseChatModel, schema: type[BaseModel], max_tokens: int
) -> Runnable[LanguageModelInput, BaseMessage]:
    """A schema-constrained, non-streaming call: only `compose` shows text to the user."""
    return structured_call(
        model, json_schema_format(schema, {"items": 5, "chars": 200}), max_tokens
    )


def usage_row(step: str, reply: BaseMessage) -> dict[str, int | str]:
    """One row of the token ledger kept in state."""
    prompt, completion = token_usage(reply)
    return {"step": step, "prompt_tokens": prompt, "completion_tokens": completion}
