"""Chat-model plumbing: one spec string picks a backend (see `agent.llm.factory`).

- `factory`: `make_chat_model(spec)`, `check_model`, the registry of named models (tests register
  and unregister their own), `default_concurrency`, `gguf_path`;
- `llama_cpp`: GGUF models in-process on llama.cpp's server engine (`ChatLlamaCpp`,
  `load_server`, `serve_gguf` for `resin serve-model`, `smollm2_path`);
- `openai_compat`: OpenAI-compatible servers with the bounded retry loop;
- `scripted`: the deterministic `ScriptedChatModel` and `heuristic_reply` (``fake``), for tests
  and benchmarks;
- `base`: the errors every backend raises, the settings they read, and `TextChatModel`, which
  turns a backend's text into LangChain's results and streamed chunks.

Response formats, reply parsing and token usage are in `prompts.structured`, which the index
builder shares.
"""

from agent.llm.base import ModelBackendError, ModelSpecError
from agent.llm.factory import (
    DEFAULT_CHAT_SPEC,
    check_model,
    default_concurrency,
    gguf_path,
    make_chat_model,
    register_chat_model,
    registered_chat_model,
    unregister_chat_model,
)

__all__ = [
    "DEFAULT_CHAT_SPEC",
    "ModelBackendError",
    "ModelSpecError",
    "check_model",
    "default_concurrency",
    "gguf_path",
    "make_chat_model",
    "register_chat_model",
    "registered_chat_model",
    "unregister_chat_model",
]
