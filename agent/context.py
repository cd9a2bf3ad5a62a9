"""Runtime settings of the resin graph; LangGraph Studio shows each field's description."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(kw_only=True)
class Context:
    """Per-run configuration: models, index location and retrieval knobs."""

    plan_model: str = field(
        default="auto",
        metadata={
            "description": "Model spec for planning hops (embedded, gguf:PATH, "
            "openai:MODEL[@BASE_URL], fake), or auto: plan with compose_model unless it is a "
            "small local GGUF (the embedded model), which plans structurally."
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
        metadata={"description": "Model spec that gives the short answer."},
    )
    answer_mode: str = field(
        default="auto",
        metadata={
            "description": "choices: the model picks the short answer from candidates written in "
            "the passages (a schema enum); free: it writes a short answer itself; auto: free for "
            "openai: models, choices for embedded, gguf: and fake."
        },
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
        metadata={"description": "Token budget for the source passages the answer is drawn from."},
    )
