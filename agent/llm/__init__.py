"""Chat-model plumbing: one spec string picks a backend (see `resin.agent.llm.spec`).

- `spec`: `ModelSpec.parse`, the one reading of a spec string (its aliases, whether it is local,
  what `auto` answers and plans with), and the registry of named models (`register_chat_model`:
  tests and benchmarks register their test doubles there, production code registers none);
- `factory`: `make_chat_model(spec)`, `check_model`, `default_concurrency`, `gguf_path`;
- `llama_cpp`: GGUF models in-process on llama.cpp's server engine (`ChatLlamaCpp`,
  `load_server`, `serve_gguf` for `resin serve-model`, `smollm2_path`);
- `openai_compat`: OpenAI-compatible servers with the bounded retry loop;
- `base`: the errors every backend raises, the settings they read, and `TextChatModel`, which
  turns a backend's text into LangChain's results and streamed chunks.

Response formats, reply parsing and token usage are in `resin.prompts.structured`, which the index
builder shares.
"""

from resin.agent.llm.base import ModelBackendError, ModelSpecError
from resin.agent.llm.factory import check_model, default_concurrency, gguf_path, make_chat_model
from resin.agent.llm.spec import (
    ANSWER_MODES,
    DEFAULT_CHAT_SPEC,
    AnswerMode,
    ModelSpec,
    register_chat_model,
    registered_chat_model,
    unregister_chat_model,
)

__all__ = [
    "ANSWER_MODES",
    "DEFAULT_CHAT_SPEC",
    "AnswerMode",
    "ModelBackendError",
    "ModelSpec",
    "ModelSpecError",
    "check_model",
    "default_concurrency",
    "gguf_path",
    "make_chat_model",
    "register_chat_model",
    "registered_chat_model",
    "unregister_chat_model",
]
