"""Every prompt as a named, versioned constant; a prompt change changes the cache key."""

from prompts.agent import (
    BRIDGE_SYSTEM,
    BRIDGE_USER,
    COMPOSE_SYSTEM,
    COMPOSE_USER,
    PLAN_PROMPT_VERSION,
    PLAN_SYSTEM,
    PLAN_USER,
)
from prompts.extraction import (
    EXTRACT_EXAMPLE_OUTPUT,
    EXTRACT_EXAMPLE_USER,
    EXTRACT_SYSTEM,
    EXTRACT_USER,
    EXTRACTION_PROMPT_VERSION,
)

__all__ = [
    "BRIDGE_SYSTEM",
    "BRIDGE_USER",
    "COMPOSE_SYSTEM",
    "COMPOSE_USER",
    "EXTRACT_EXAMPLE_OUTPUT",
    "EXTRACT_EXAMPLE_USER",
    "EXTRACT_SYSTEM",
    "EXTRACT_USER",
    "EXTRACTION_PROMPT_VERSION",
    "PLAN_PROMPT_VERSION",
    "PLAN_SYSTEM",
    "PLAN_USER",
]
