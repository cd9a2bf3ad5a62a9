"""Every prompt as a named, versioned constant; a prompt change changes the cache key.

`resin.prompts.structured` holds what goes around a prompt: fencing data between tags, JSON-schema
response formats, reply parsing and token usage, shared by the index builder and the agent.
"""

from resin.prompts.agent import (
    ANSWER_CHOICE_SYSTEM,
    ANSWER_CHOICE_USER,
    ANSWER_FREE_SYSTEM,
    ANSWER_FREE_USER,
    BRIDGE_SYSTEM,
    BRIDGE_USER,
    MAX_HOPS,
    PLAN_PROMPT_VERSION,
    PLAN_SYSTEM,
    PLAN_USER,
)
from resin.prompts.conversation import REFERENT_SYSTEM, REFERENT_USER
from resin.prompts.extraction import (
    EXTRACT_EXAMPLE_OUTPUT,
    EXTRACT_EXAMPLE_USER,
    EXTRACT_SYSTEM,
    EXTRACT_USER,
    EXTRACTION_PROMPT_VERSION,
)

__all__ = [
    "ANSWER_CHOICE_SYSTEM",
    "ANSWER_CHOICE_USER",
    "ANSWER_FREE_SYSTEM",
    "ANSWER_FREE_USER",
    "BRIDGE_SYSTEM",
    "BRIDGE_USER",
    "EXTRACT_EXAMPLE_OUTPUT",
    "EXTRACT_EXAMPLE_USER",
    "EXTRACT_SYSTEM",
    "EXTRACT_USER",
    "EXTRACTION_PROMPT_VERSION",
    "MAX_HOPS",
    "PLAN_PROMPT_VERSION",
    "PLAN_SYSTEM",
    "PLAN_USER",
    "REFERENT_SYSTEM",
    "REFERENT_USER",
]
