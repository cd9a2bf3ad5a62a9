"""A short answer told as the model writes it: the `answer` field of its JSON reply, growing.

The answering calls ask for JSON (`{"answer": "…"}`, a grammar or a schema enforcing it), so the
reply's raw tokens are no text to show; the field parsed from the partial JSON is.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from langchain_core.language_models import LanguageModelInput
from langchain_core.messages import AIMessage, BaseMessage, message_chunk_to_message
from langchain_core.runnables import Runnable
from langchain_core.utils.json import parse_partial_json

# Told the short answer written so far, each time it grows.
TextSink = Callable[[str], None]


def partial_answer(content: str) -> str | None:
    """The `answer` field of a JSON reply cut anywhere; None before the field has begun."""
    try:
        partial = parse_partial_json(content, strict=False)
    except json.JSONDecodeError:
        return None
    text = partial.get("answer") if isinstance(partial, dict) else None
    return text if isinstance(text, str) else None


def written(
    call: Runnable[LanguageModelInput, BaseMessage],
    messages: list[BaseMessage],
    on_text: TextSink | None,
    shown: Callable[[str], bool],
) -> BaseMessage:
    """The reply to `messages`; with `on_text`, streamed, and told the answer as it grows.

    Each change is told once, and only an answer `shown` allows: one that could still become
    what is never shown as an answer (the model's "not found", a pick that is no choice).
    """
    if on_text is None:
        return call.invoke(messages)
    whole: Any = None  # the chunks so far, added up (a model that cannot stream gives one reply)
    last = ""
    for chunk in call.stream(messages):
        whole = chunk if whole is None else whole + chunk
        text = partial_answer(str(whole.content))
        if text and text != last and shown(text):
            on_text(text)
            last = text
    return AIMessage(content="") if whole is None else message_chunk_to_message(whole)
