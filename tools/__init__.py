"""Retrieval tools over a resin index, for this graph and for any tool-calling agent.

`make_tools(index)` binds the typed retrieval functions to an opened index and returns LangChain
tools whose results are typed JSON (units, passages, chains), never prose:

    from resin.indexes.opening import open_index
    from resin.tools import make_tools

    tools = make_tools(open_index(".resin"))
    agent = create_react_agent(model, tools)
"""

from __future__ import annotations

from typing import Any

from langchain_core.tools import BaseTool, StructuredTool

from resin.indexes.base import Direction
from resin.indexes.reads import IndexReads
from resin.indexes.units import UnitKind
from resin.tools.retrieval import (
    fetch_passages,
    search_passages,
    search_units,
    traverse_chains,
)


def make_tools(index: IndexReads, k: int = 5) -> list[BaseTool]:
    """The four resin tools bound to `index`: unit search, chain traversal, passage search, fetch."""

    def find_units(query: str, kinds: list[UnitKind] | None = None, limit: int = k) -> list[dict[str, Any]]:
        """Search typed reasoning units (facts, types, relations, causal edges, rules).

        Each result carries the unit's fields, its evidence sentence, passage id and similarity.
        """
        return [hit.model_dump() for hit in search_units(index, query, kinds, limit)]

    def find_chains(query: str, direction: Direction = "forward", depth: int = 3) -> list[dict[str, Any]]:
        """Follow cause → effect chains in the knowledge graph from entities matching the query.

        direction: "forward" for effects of a cause, "backward" for causes of an effect.
        """
        chains = traverse_chains(index, query, direction, depth)
        return [
            {"chain": c.text, "score": c.score, "links": [link.model_dump() for link in c.links]}
            for c in chains
        ]

    def find_passages(query: str, limit: int = k) -> list[dict[str, Any]]:
        """Search source passages by meaning and by keywords (fused); returns ids, titles, text."""
        return [hit.model_dump() for hit in search_passages(index, query, limit)]

    def read_passages(passage_ids: list[str]) -> list[dict[str, Any]]:
        """Fetch source passages by id, with their sentences and sentence ids."""
        return [
            {
                "passage_id": p.id,
                "doc_id": p.doc_id,
                "title": p.title,
                "text": p.text,
                "sentences": [{"id": s.id, "text": s.text} for s in p.sentences],
            }
            for p in fetch_passages(index, passage_ids)
        ]

    return [
        StructuredTool.from_function(fn, name=fn.__name__)
        for fn in (find_units, find_chains, find_passages, read_passages)
    ]


__all__ = ["make_tools"]
