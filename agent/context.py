"""Runtime settings of the resin graph; LangGraph Studio shows each field's description.

A field the run's context does not give comes from the environment (what a server deployment
sets, e.g. in the `.env` that langgraph.json names), else from its default:

    RESIN_INDEX           index_path (a relative path: from the working directory, when opened)
    RESIN_MODEL           hop_model and compose_model (plan_model "auto" follows compose_model)
    RESIN_PLAN_MODEL, RESIN_HOP_MODEL, RESIN_COMPOSE_MODEL   one step each (over RESIN_MODEL)
    RESIN_EMBEDDER        embedder
    RESIN_CHROMA_HOST, RESIN_CHROMA_PORT                     chroma_host, chroma_port
    RESIN_DATABASE_URL    database (catalog, graph and manifest in PostgreSQL)
    RESIN_PUBLIC_URL      public_url (else LANGGRAPH_API_URL, which `langgraph dev` sets)
    RESIN_ANSWER_MODE, RESIN_K                               answer_mode, k_per_hop
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from resin.agent.llm.spec import DEFAULT_CHAT_SPEC
from resin.indexes.embeddings import DEFAULT_EMBEDDER_SPEC


def _env(*names: str, default: str) -> Callable[[], str]:
    """A default read from the first of `names` set in the environment when a Context is made."""
    return lambda: next((os.environ[n] for n in names if os.environ.get(n)), default)


@dataclass(kw_only=True)
class Context:
    """Per-run configuration: models, index location and retrieval knobs."""

    plan_model: str = field(
        default_factory=_env("RESIN_PLAN_MODEL", default="auto"),
        metadata={
            "description": "Model spec for planning hops (embedded, gguf:PATH, "
            "openai:MODEL[@BASE_URL], a registered name); parsed: hops from the question's parse (a "
            "question it cannot decompose is one structural hop); none: always one structural "
            "hop, no decomposition; or auto: plan with compose_model unless it is a local GGUF "
            "(the embedded model), which plans by the parse."
        },
    )
    hop_model: str = field(
        default_factory=_env("RESIN_HOP_MODEL", "RESIN_MODEL", default=DEFAULT_CHAT_SPEC),
        metadata={
            "description": "Model spec for the short bridge answer of a hop with dependents."
        },
    )
    compose_model: str = field(
        default_factory=_env("RESIN_COMPOSE_MODEL", "RESIN_MODEL", default=DEFAULT_CHAT_SPEC),
        metadata={"description": "Model spec that gives the short answer."},
    )
    answer_mode: str = field(
        default_factory=_env("RESIN_ANSWER_MODE", default="auto"),
        metadata={
            "description": "ranked: the short answer is the best-ranked candidate written in the "
            "passages; choices: the model picks it from those candidates (a schema enum); free: "
            "the model writes a short answer itself; auto: ranked for embedded, free for openai: "
            "models, choices for gguf: and registered models."
        },
    )
    embedder: str = field(
        default_factory=_env("RESIN_EMBEDDER", default=DEFAULT_EMBEDDER_SPEC),
        metadata={"description": "sentence-transformers model name or path; must match the index."},
    )
    index_path: str = field(
        default_factory=_env("RESIN_INDEX", default=".resin"),
        metadata={"description": "Folder of the resin index (Chroma, catalog, graph, manifest)."},
    )
    chroma_host: str = field(
        default_factory=_env("RESIN_CHROMA_HOST", default=""),
        metadata={
            "description": "Chroma server host; empty uses the embedded store in index_path."
        },
    )
    chroma_port: int = field(
        default_factory=lambda: int(_env("RESIN_CHROMA_PORT", default="8000")()),
        metadata={"description": "Chroma server port."},
    )
    database: str = field(
        default_factory=_env("RESIN_DATABASE_URL", default=""),
        metadata={
            "description": "postgresql:// URL of an index shared by several machines (catalog, "
            "graph, manifest; vectors on chroma_host); empty uses SQLite and JSON in index_path."
        },
    )
    public_url: str = field(
        default_factory=_env("RESIN_PUBLIC_URL", "LANGGRAPH_API_URL", default=""),
        metadata={
            "description": "The server's URL as a browser reaches it: the chat's source links "
            "start with it; empty: links are relative to the server."
        },
    )
    k_per_hop: int = field(
        default_factory=lambda: int(_env("RESIN_K", default="5")()),
        metadata={"description": "Units and passages retrieved per hop."},
    )
    chain_depth: int = field(default=3, metadata={"description": "Maximum edges in a SARG chain."})
    tau: float = field(
        default=0.7,
        metadata={
            "description": "Cosine above which a query keyword matches a graph node (SARG τ)."
        },
    )
    top_chains: int = field(default=3, metadata={"description": "Chains kept per hop (SARG: 3)."})
    bridge_hops: int = field(
        default=2,
        metadata={"description": "Structural plan: bridge-entity hops added after hop 1."},
    )
    evidence_budget: int = field(
        default=1500,
        metadata={"description": "Token budget for the source passages the answer is drawn from."},
    )

    @classmethod
    def one_model(cls, spec: str, *, plan_model: str | None = None, **fields: Any) -> Context:
        """A context whose every step uses the model `spec` (planning too, unless `plan_model`)."""
        return cls(plan_model=plan_model or spec, hop_model=spec, compose_model=spec, **fields)
