"""What the chat-model backends share: the errors they raise and the settings they read."""

from __future__ import annotations

import os
from typing import Any


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
