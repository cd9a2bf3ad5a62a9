"""resin's retrieval as a LangChain retriever: the passages the hop-wise reading chose.

Any LangChain chain or agent can use it where it takes a `BaseRetriever`. A query runs the graph
up to the point where every hop is resolved (no composed answer, so no answering model call)
and returns the passages behind the evidence buffer, ranked as the composer ranks them
(`buffer_order`): each hop's answer passage first, then what the hops found, hop by hop.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from langchain_core.callbacks import (
    AsyncCallbackManagerForRetrieverRun,
    CallbackManagerForRetrieverRun,
)
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from langgraph.graph.state import CompiledStateGraph
from pydantic import ConfigDict, Field

from resin.agent.context import Context
from resin.agent.graph import make_builder
from resin.agent.nodes.compose import buffer_order
from resin.agent.resources import get_index
from resin.agent.state import Evidence
from resin.indexes.reads import IndexReads


@cache
def retrieval_graph() -> CompiledStateGraph[Any, Context, Any, Any]:
    """The resin graph without `compose`: it ends once every hop is resolved."""
    return make_builder(answer=False).compile(name="resin-retrieval")


def buffer_documents(evidence: list[Evidence], index: IndexReads) -> list[Document]:
    """One Document per passage behind the buffer, in the composer's order, with how it was found.

    Metadata: `passage_id`, `doc_id`, `title`, `hop` and `route` of the passage's first support,
    every `hops` that found it, the buffered `sentence_ids` it holds, and its best `score`.
    """
    order = buffer_order(evidence)
    found: dict[str, list[Evidence]] = {}
    for item in evidence:
        found.setdefault(item.passage_id, []).append(item)
    passages = sorted(index.passages(found), key=lambda p: order[p.id])
    documents = []
    for passage in passages:
        supports = found[passage.id]
        first = supports[0]
        documents.append(
            Document(
                id=passage.id,
                page_content=passage.text,
                metadata={
                    "passage_id": passage.id,
                    "doc_id": passage.doc_id,
                    "title": passage.title,
                    "hop": first.hop,
                    "route": first.route,
                    "hops": sorted({s.hop for s in supports}),
                    "sentence_ids": list(
                        dict.fromkeys(i for s in supports for i in s.sentence_ids)
                    ),
                    "score": max(s.score for s in supports),
                },
            )
        )
    return documents


class ResinRetriever(BaseRetriever):
    """Documents for a question: the passages resin's plan and hops read, in buffer order.

    `context` names the index and models (default: `Context()`, which reads RESIN_* variables);
    `k` caps how many passages are returned (default: all the buffer holds).
    """

    context: Context = Field(default_factory=Context)
    k: int | None = None
    model_config = ConfigDict(arbitrary_types_allowed=True)

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun
    ) -> list[Document]:
        state = retrieval_graph().invoke(
            {"question": query},
            {"callbacks": run_manager.get_child()},
            context=self.context,
        )
        return self._documents(state)

    async def _aget_relevant_documents(
        self, query: str, *, run_manager: AsyncCallbackManagerForRetrieverRun
    ) -> list[Document]:
        state = await retrieval_graph().ainvoke(
            {"question": query},
            {"callbacks": run_manager.get_child()},
            context=self.context,
        )
        return self._documents(state)

    def _documents(self, state: dict[str, Any]) -> list[Document]:
        documents = buffer_documents(state.get("evidence") or [], get_index(self.context))
        return documents if self.k is None else documents[: self.k]
