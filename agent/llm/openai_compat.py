"""OpenAI-compatible chat models (``openai:`` specs) with a bounded retry loop.

OpenAI-compatible servers get RESIN_MODEL_TIMEOUT seconds per try (default 120) and
RESIN_MODEL_RETRIES retries with exponential backoff (default 2, tenacity's loop); a server that
still fails raises `ModelBackendError` naming the server and the cause. A server that refuses ``json_schema``
(llama.cpp's) gets ``json_object`` + schema from then on.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from functools import cache
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.outputs import ChatGenerationChunk, ChatResult
from pydantic import Field, PrivateAttr, SecretStr
from tenacity import Retrying, retry_if_exception, stop_after_attempt, wait_exponential_jitter

from resin.agent.llm.base import ModelBackendError, ModelSpecError, setting, to_llama_format

DEFAULT_TIMEOUT = 120.0
DEFAULT_RETRIES = 2
# pauses of 0.5 s, 1 s, 2 s … (at most 8 s) before each retry, plus up to 0.125 s of jitter
_BACKOFF = wait_exponential_jitter(initial=0.5, max=8.0, jitter=0.125)
# what a body that is not a chat completion raises inside the client (JSONDecodeError is a ValueError)
_MALFORMED: tuple[type[Exception], ...] = (
    ValueError,
    TypeError,
    KeyError,
    IndexError,
    AttributeError,
)


@cache
def _openai_compatible_class() -> type[Any]:
    """The ChatOpenAI subclass, defined once (a class per call costs time and is never freed)."""
    import openai
    from langchain_openai import ChatOpenAI

    class ChatOpenAICompatible(ChatOpenAI):
        """ChatOpenAI with llama.cpp's schema fallback, and failures named as `ModelBackendError`.

        Every retryable failure (HTTP 408/409/429/5xx, a timeout, a lost connection, a body that
        is not a chat completion) is retried here, `retries` times with exponential backoff. The
        OpenAI client's own retries are off (``max_retries=0``): two retry layers would multiply,
        and a timeout followed by truncated bodies would exceed the promised number of tries.
        What still fails raises `ModelBackendError` naming the server and the cause.
        """

        retries: int = Field(default=DEFAULT_RETRIES, ge=0)
        _legacy_schema: bool = PrivateAttr(default=False)

        # the async paths run the sync ones in a thread, so they share the retry loop
        _agenerate = BaseChatModel._agenerate
        _astream = BaseChatModel._astream

        def _adapt(self, kwargs: dict[str, Any]) -> dict[str, Any]:
            if self._legacy_schema and kwargs.get("response_format"):
                kwargs = {**kwargs, "response_format": to_llama_format(kwargs["response_format"])}
            return kwargs

        def _schema_refused(self, exc: Exception, kwargs: dict[str, Any]) -> bool:
            """Whether the server refused json_schema; from then on it gets json_object + schema.

            llama.cpp's server answers json_schema with a validation error (a 422 or a 500).
            """
            wants_schema = (kwargs.get("response_format") or {}).get("type") == "json_schema"
            refused = "response_format" in str(exc) or "json_schema" in str(exc)
            if not wants_schema or self._legacy_schema or not refused:
                return False
            self._legacy_schema = True
            return True

        def _failure(self, exc: BaseException, tries: int) -> ModelBackendError:
            where = f"model server {self.openai_api_base or 'api.openai.com'} ({self.model_name})"
            if isinstance(exc, openai.APITimeoutError):
                cause = f"no answer within {self.request_timeout} s"
            elif isinstance(exc, openai.APIStatusError):
                cause = f"HTTP {exc.status_code}: {str(exc.message)[:200]}"
            elif isinstance(exc, openai.APIConnectionError):
                cause = f"connection failed ({exc.__cause__ or exc})"
            else:
                cause = f"malformed response ({type(exc).__name__}: {str(exc)[:200]})"
            return ModelBackendError(f"{where}: {cause}; gave up after {tries} tries")

        def _retrying(self, started: Callable[[], bool] = lambda: False) -> Retrying:
            """One bound on tries for every kind of failure; none once a stream has started."""

            def retryable(exc: BaseException) -> bool:
                if started():  # the caller has seen tokens: a retry would repeat them
                    return False
                if isinstance(exc, openai.APIStatusError):
                    return exc.status_code in (408, 409, 429) or exc.status_code >= 500
                # timeouts, lost connections, bodies that are not a chat completion
                return isinstance(exc, _MALFORMED + (openai.APIError,))

            return Retrying(
                stop=stop_after_attempt(self.retries + 1),
                wait=_BACKOFF,
                retry=retry_if_exception(retryable),
                reraise=True,
            )

        def _generate_once(
            self, messages: Any, stop: Any, run_manager: Any, **kw: Any
        ) -> ChatResult:
            try:
                result = super()._generate(messages, stop, run_manager, **self._adapt(kw))
            except openai.APIError as exc:
                if not self._schema_refused(exc, kw):
                    raise
                result = super()._generate(messages, stop, run_manager, **self._adapt(kw))
            if not result.generations:
                raise ValueError("the response has no choices")
            return result

        def _generate(
            self, messages: Any, stop: Any = None, run_manager: Any = None, **kw: Any
        ) -> ChatResult:
            retrying = self._retrying()
            try:
                return retrying(self._generate_once, messages, stop, run_manager, **kw)
            except _MALFORMED + (openai.APIError,) as exc:
                raise self._failure(exc, retrying.statistics["attempt_number"]) from exc

        def _stream_once(self, *args: Any, **kwargs: Any) -> Iterator[ChatGenerationChunk]:
            started = False
            try:
                for chunk in super()._stream(*args, **self._adapt(kwargs)):
                    started = True
                    yield chunk
            except openai.APIError as exc:
                if started or not self._schema_refused(exc, kwargs):
                    raise
                yield from super()._stream(*args, **self._adapt(kwargs))

        def _stream(self, *args: Any, **kwargs: Any) -> Iterator[ChatGenerationChunk]:
            # A structured call streams too when a client streams the graph's messages.
            started = False
            retrying = self._retrying(lambda: started)
            try:
                for attempt in retrying:
                    with attempt:
                        for chunk in self._stream_once(*args, **kwargs):
                            started = True
                            yield chunk
            except _MALFORMED + (openai.APIError,) as exc:
                raise self._failure(exc, retrying.statistics["attempt_number"]) from exc

    return ChatOpenAICompatible


def openai_compatible(
    model: str,
    base_url: str | None,
    timeout: float | None = None,
    max_retries: int | None = None,
) -> BaseChatModel:
    """ChatOpenAI that falls back to llama.cpp's json_object+schema when json_schema is refused.

    `timeout` (seconds per try) and `max_retries` default to RESIN_MODEL_TIMEOUT and
    RESIN_MODEL_RETRIES, else 120 s and 2 retries.
    """
    key = os.environ.get("OPENAI_API_KEY") or ("not-needed" if base_url else None)
    if key is None:
        raise ModelSpecError("openai:MODEL needs OPENAI_API_KEY (or give a base URL: openai:M@URL)")
    if timeout is None:
        timeout = setting("RESIN_MODEL_TIMEOUT", DEFAULT_TIMEOUT)
    if max_retries is None:
        max_retries = int(setting("RESIN_MODEL_RETRIES", DEFAULT_RETRIES))
    chat: BaseChatModel = _openai_compatible_class()(
        model=model,
        base_url=base_url,
        api_key=SecretStr(key),
        temperature=0,
        max_retries=0,
        retries=max_retries,
        timeout=timeout,
    )
    return chat
