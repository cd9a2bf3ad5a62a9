"""What the chat-model backends share: their errors, their settings, LangChain's side of a reply.

`TextChatModel` turns a backend's text into LangChain's results and streamed chunks, so that each
backend writes only how it produces a reply.
"""

from __future__ import annotations

import os
from abc import abstractmethod
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.messages.ai import UsageMetadata
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult


class ModelSpecError(ValueError):
    """A model spec that names no usable model."""


class ModelBackendError(RuntimeError):
    """A model server that still failed after the bounded retries, or answered with no reply."""


def setting(name: str, default: float) -> float:
    """A non-negative number from the environment (RESIN_MODEL_TIMEOUT and the like)."""
    raw = os.environ.get(name, "").strip()
    try:
        value = float(raw) if raw else default
    except ValueError:
        raise ModelSpecError(f"{name}={raw!r} is not a number") from None
    if value < 0:
        raise ModelSpecError(f"{name}={raw!r} must not be negative")
    return value


def to_llama_format(response_format: dict[str, Any] | None) -> dict[str, Any] | None:
    """OpenAI's json_schema format → llama.cpp's json_object + schema (compiled to a grammar)."""
    if not response_format:
        return None
    if response_format.get("type") == "json_schema":
        return {"type": "json_object", "schema": response_format["json_schema"]["schema"]}
    return response_format


@dataclass(frozen=True)
class CallFigures:
    """What a finished call reports: its token usage, and figures for the reply's metadata."""

    usage: UsageMetadata
    metadata: dict[str, Any] = field(default_factory=dict)


class TextChatModel(BaseChatModel):
    """A backend that writes text: LangChain's `_generate` and `_stream` written once for it.

    The backend gives its whole reply (`_complete`), or its pieces as they come and then its
    figures (`_pieces`); these become LangChain's result or chunks, each new piece told to the
    run's callbacks, and a last empty chunk carries the usage.
    """

    @abstractmethod
    def _complete(
        self, messages: list[BaseMessage], stop: list[str] | None, **kwargs: Any
    ) -> tuple[str, CallFigures]:
        """The whole reply and its figures."""

    @abstractmethod
    def _pieces(
        self, messages: list[BaseMessage], stop: list[str] | None, **kwargs: Any
    ) -> Iterator[str | CallFigures]:
        """The reply piece by piece, then its figures."""

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        text, figures = self._complete(messages, stop, **kwargs)
        message = AIMessage(
            content=text, usage_metadata=figures.usage, response_metadata=figures.metadata
        )
        return ChatResult(generations=[ChatGeneration(message=message)])

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        for piece in self._pieces(messages, stop, **kwargs):
            if isinstance(piece, CallFigures):
                yield ChatGenerationChunk(
                    message=AIMessageChunk(
                        content="", usage_metadata=piece.usage, response_metadata=piece.metadata
                    )
                )
                continue
            chunk = ChatGenerationChunk(message=AIMessageChunk(content=piece))
            if run_manager:
                run_manager.on_llm_new_token(piece, chunk=chunk)
            yield chunk
