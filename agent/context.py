"""Runtime settings of the resin graph; LangGraph Studio shows each field's description."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(kw_only=True)
class Context:
    """Per-run configuration: models, index location and retrieval knobs."""

    plan_model: str = field(
        default="embedded",
        metadata={
            "description": "Model spec for planning hops (embedded, gguf:PATH, "
            "openai:MODEL[@BASE_URL], fake)."
        },
    )
    hop_model: str = field(
        default="embedded",
        metadata={
            "description": "Model spec for the short bridge answer of a hop with dependents."
        },
    )
    compose_model: str = field(
        default="embedded",
        metadata={"description": "Model spec that writes the final, cited answer (streamed)."},
    )
    embedder: str = field(
        default="minilm",
        metadata={"description": "sentence-transformers model name or path; must match the index."},
    )
    index_path: str = field(
        default=".resin",
        metadata={"description": "Folder of the resin index (Chroma, catalog, graph, manifest)."},
    )
    chroma_host: str = field(
        default="",
        metadata={
            "description": "Chroma server host; empty uses the embedded store in index_path."
        },
    )
    chroma_port: int = field(default=8000, metadata={"description": "Chroma server port."})
    k_per_hop: int = field(
        default=5, metadata={"description": "Units and passages retrieved per hop."}
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
        metadata={"description": "Token budget for source passages in the compose prompt."},
    )
