"""The chat-model factory: a spec string in, a LangChain chat model out.

The specs are read by `ModelSpec.parse` (`resin.agent.llm.spec`, which lists them): the embedded
SmolLM2-135M and other GGUF files run in-process on llama.cpp's server engine
(`resin.agent.llm.llama_cpp`), ``openai:`` specs go to OpenAI or an OpenAI-compatible server
(`resin.agent.llm.openai_compat`), and a registered name gets the model registered under it.

Structured output is requested the OpenAI way, ``response_format={"type": "json_schema", ...}``;
each backend turns it into the strongest constraint it has (a JSON-schema grammar on llama.cpp).
"""

from __future__ import annotations

from pathlib import Path

from langchain_core.language_models import BaseChatModel

from resin.agent.llm.base import ModelBackendError, ModelSpecError
from resin.agent.llm.llama_cpp import ChatLlamaCpp, llama_slots, smollm2_path
from resin.agent.llm.openai_compat import openai_compatible
from resin.agent.llm.spec import ModelSpec, registered_builder

# Requests kept in flight to an OpenAI-compatible server by default (`--concurrency`).
SERVER_CONCURRENCY = 8

# Seconds a model server has to answer the check before a run.
_PROBE_TIMEOUT = 5.0


def default_concurrency(spec: str | None) -> int:
    """Requests in flight for a spec: several for a server, one per slot for a GGUF in-process."""
    parsed = ModelSpec.parse(spec)
    if parsed.kind == "openai":
        return SERVER_CONCURRENCY
    return llama_slots() if parsed.local else 1


def gguf_path(spec: str | None) -> Path:
    """The GGUF file an ``embedded`` or ``gguf:`` spec names (an error for any other spec)."""
    parsed = ModelSpec.parse(spec)
    if parsed.kind == "embedded":
        return smollm2_path()
    if parsed.kind != "gguf":
        raise ModelSpecError(f"{parsed.text!r} is not a GGUF model: use embedded or gguf:PATH")
    path = Path(parsed.path).expanduser()
    if not path.is_file():
        raise ModelSpecError(f"GGUF file not found: {path}")
    return path


def make_chat_model(
    spec: str | None = None, *, timeout: float | None = None, max_retries: int | None = None
) -> BaseChatModel:
    """Build a chat model from a spec string (see `resin.agent.llm.spec`); default: embedded.

    `timeout` and `max_retries` apply to OpenAI-compatible servers (see `openai_compatible`).
    """
    parsed = ModelSpec.parse(spec)
    builder = registered_builder(parsed.text)
    if builder is not None:
        return builder()
    if parsed.local:
        return ChatLlamaCpp(model_path=str(gguf_path(parsed.text)))
    return openai_compatible(parsed.model, parsed.base_url or None, timeout, max_retries)


def check_model(spec: str) -> None:
    """Raise now if a spec cannot serve: no key, no GGUF file, no server listening at its URL.

    Building the model finds a missing key or file; an OpenAI-compatible server is asked for its
    model list (any HTTP answer will do), so a server that is not there is named before a run
    spends time on the steps that come first.
    """
    make_chat_model(spec)
    parsed = ModelSpec.parse(spec)
    if parsed.kind != "openai" or not parsed.base_url:
        return
    import urllib.error
    import urllib.request

    try:
        with urllib.request.urlopen(
            f"{parsed.base_url.rstrip('/')}/models", timeout=_PROBE_TIMEOUT
        ):
            pass
    except urllib.error.HTTPError:
        pass  # it answered
    except OSError as exc:
        raise ModelBackendError(
            f"model server {parsed.base_url} ({parsed.model}): not reachable "
            f"({getattr(exc, 'reason', exc)}); start it, or fix the model spec"
        ) from None
