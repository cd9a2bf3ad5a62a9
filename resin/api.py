"""`Resin`: one index and the agent over it, in the calls LightRAG and HippoRAG users expect.

    rag = Resin(".resin")
    rag.index(["docs/"], texts=["The Orrin Dam was designed by Hessa Varn."])
    out = rag.ask("Who designed the Orrin Dam?")      # the graph's OutputState
    docs = rag.as_retriever().invoke("Who designed the Orrin Dam?")

Everything here is a thin layer over the same pieces the CLI and the server use: `open_index`,
`Builder`, the compiled `graph`, `make_tools` and `ResinRetriever`.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path
from typing import Any, cast

from langchain_core.tools import BaseTool

from resin.agent.context import Context
from resin.agent.graph import graph
from resin.agent.llm import make_chat_model
from resin.agent.resources import get_index
from resin.agent.retriever import ResinRetriever
from resin.agent.state import OutputState
from resin.indexes.build import Builder
from resin.indexes.build_report import BuildReport, Progress
from resin.indexes.documents import Document, DocumentError
from resin.indexes.extractors import extractors
from resin.indexes.index import Index
from resin.indexes.opening import open_index
from resin.indexes.reading import load_documents, text_document
from resin.tools import make_tools


class Resin:
    """An index folder (or a shared PostgreSQL index) and the resin agent that answers from it.

    `index_path` and any other `Context` field (models, `chroma_host`, `database`, `k_per_hop`
    …) configure both building and asking; or pass a whole `context`. Unset fields come from
    the RESIN_* environment variables, else resin's offline defaults.
    """

    def __init__(
        self, index_path: str | Path | None = None, *, context: Context | None = None, **fields: Any
    ) -> None:
        """Name the index (default: the context's, `.resin`); nothing is opened until a call needs it."""
        if index_path is not None:
            fields["index_path"] = str(index_path)
        self.context = replace(context if context is not None else Context(), **fields)

    def open(self, create: bool = False) -> Index:
        """The opened index (one per process and folder); `create` makes an empty one if none."""
        ctx = self.context
        if not create:
            return get_index(ctx)
        return open_index(
            ctx.index_path,
            ctx.embedder,
            create=True,
            chroma_host=ctx.chroma_host or None,
            chroma_port=ctx.chroma_port,
            database=ctx.database or None,
        )

    def index(
        self,
        paths: Iterable[str | Path] = (),
        *,
        texts: Iterable[str | Document] = (),
        extract: str = "nlp",
        strict: bool = True,
        progress: Progress | None = None,
    ) -> BuildReport:
        """Add or update documents from files and folders and from strings; unchanged ones cost nothing.

        `extract` is the CLI's `--extract` (nlp, model, nlp+model, none; the model is the
        context's `compose_model`). A file that cannot be read is a `DocumentError` before
        anything is written (`strict`), or a warning while the rest is indexed; files of a type
        resin does not read are skipped with a warning either way.
        """
        documents, errors = load_documents(paths)
        documents += [t if isinstance(t, Document) else text_document(t) for t in texts]
        for error in [e for e in errors if e.reason == "unsupported type"]:
            warnings.warn(f"skipped {error}", stacklevel=2)
        bad = [e for e in errors if e.reason != "unsupported type"]
        if bad and strict:
            raise DocumentError("; ".join(map(str, bad)), bad[0].reason)
        for error in bad:
            warnings.warn(f"not indexed: {error}", stacklevel=2)
        if not documents:
            raise DocumentError("nothing to index: no readable files or texts were given", "empty")
        model, nlp = extractors(extract, lambda: make_chat_model(self.context.compose_model))
        return Builder(self.open(create=True), model, nlp=nlp).run(documents, progress)

    def delete(self, doc_id: str) -> bool:
        """Remove a document, its units, the graph edges only it supported; False if unknown."""
        return Builder(self.open(), None).delete(doc_id)

    def ask(self, question: str) -> OutputState:
        """Answer one question: the short answer, its sources, the plan, each hop's result."""
        return cast(OutputState, graph.invoke({"question": question}, context=self.context))

    async def aask(self, question: str) -> OutputState:
        """`ask`, awaited."""
        result = await graph.ainvoke({"question": question}, context=self.context)
        return cast(OutputState, result)

    def as_retriever(self, k: int | None = None) -> ResinRetriever:
        """A LangChain retriever over this index: the passages the hop-wise reading chose."""
        return ResinRetriever(context=self.context, k=k)

    def tools(self, k: int = 5) -> list[BaseTool]:
        """The retrieval tools (units, chains, passages, fetch) for any tool-calling agent."""
        return make_tools(self.open(), k)

    def stats(self) -> dict[str, Any]:
        """Documents, passages, units per kind and graph size."""
        return self.open().stats()
