"""Retrieval over an index by meaning: typed units, SARG chains, passages (dense + lexical).

Lookups by an entity's name (units and passages about it, the bridges a passage names) are in
`resin.tools.entities`.

Plain typed functions returning typed results; `resin.tools.make_tools` wraps them as LangChain tools
for any tool-calling agent, and the resin graph calls them directly from its own logic.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel

from resin.indexes.base import Direction
from resin.indexes.documents import Passage
from resin.indexes.lexical import word_runs
from resin.indexes.reads import IndexReads
from resin.indexes.units import ReasoningUnit, UnitKind

PassageRoute = Literal["dense", "lexical", "fused", "entity"]
_RRF_K = 60


class UnitHit(BaseModel):
    """A typed unit and its similarity to the query."""

    unit: ReasoningUnit
    score: float


class PassageHit(BaseModel):
    """A source passage, how it was found and how well it matches."""

    passage_id: str
    doc_id: str
    title: str
    text: str
    score: float
    route: PassageRoute
    sentence_ids: list[str]


class ChainLink(BaseModel):
    """One edge of a chain: head -relation-> tail, supported by these units."""

    head: str
    relation: str
    tail: str
    unit_ids: list[str]


class Chain(BaseModel):
    """A cause → effect path through the graph, scored against the hop question.

    `about` is the thing affected, for a chain found as what a cause does to it
    (`resin.tools.causal.effect_chains`): its last link's tail is that effect.
    """

    links: list[ChainLink]
    score: float
    about: str = ""

    @property
    def first_units(self) -> list[str]:
        """Each link's first supporting unit, cause first: the sentences that tell the chain."""
        return [link.unit_ids[0] for link in self.links if link.unit_ids]

    @property
    def text(self) -> str:
        """`A -[rel]-> B -[rel]-> C`: the serialized form used in prompts and for ranking."""
        if not self.links:
            return ""
        parts = [self.links[0].head]
        for prev, link in zip([None, *self.links], self.links, strict=False):
            if prev is not None and prev.tail != link.head:  # a turn in a bidirectional walk
                parts.append(f"; {link.head}")
            parts.append(f"-[{link.relation}]-> {link.tail}")
        return " ".join(parts)


def unit_hits(found: Sequence[tuple[ReasoningUnit, float]]) -> list[UnitHit]:
    """Scored units as hits, in the order given."""
    return [UnitHit(unit=unit, score=score) for unit, score in found]


def search_units(
    index: IndexReads, query: str, kinds: Sequence[UnitKind] | None = None, k: int = 5
) -> list[UnitHit]:
    """Typed units nearest to the query, optionally only of the given kinds."""
    return unit_hits(index.search_units(query, k, kinds))


def fetch_passages(index: IndexReads, passage_ids: Sequence[str]) -> list[Passage]:
    """Source passages by id, in the order asked (unknown ids are skipped)."""
    return index.passages(passage_ids)


def passage_hits(
    index: IndexReads, scored: Sequence[tuple[str, float]], route: PassageRoute
) -> list[PassageHit]:
    """Scored passage ids read in full as hits, in the order given (unknown ids are skipped)."""
    score = dict(scored)
    return [
        PassageHit(
            passage_id=p.id,
            doc_id=p.doc_id,
            title=p.title,
            text=p.text,
            score=round(score[p.id], 4),
            route=route,
            sentence_ids=[s.id for s in p.sentences],
        )
        for p in index.passages([pid for pid, _ in scored])
    ]


def search_passages(
    index: IndexReads, query: str, k: int = 5, mode: Literal["dense", "lexical", "fused"] = "fused"
) -> list[PassageHit]:
    """Passages for the query: dense (embeddings), lexical (BM25) or both fused by reciprocal rank."""
    dense: list[tuple[str, float]] = []
    lexical: list[tuple[str, float]] = []
    if mode in ("dense", "fused"):
        dense = index.search_passages(query, 2 * k)
        if mode == "dense":
            return passage_hits(index, dense[:k], "dense")
    lexical = index.search_passages(query, 2 * k, "lexical")
    if mode == "lexical":
        return passage_hits(index, lexical[:k], "lexical")
    fused: dict[str, float] = {}
    for ranking in (dense, lexical):
        for rank, (pid, _) in enumerate(ranking):
            fused[pid] = fused.get(pid, 0.0) + 1.0 / (_RRF_K + rank + 1)
    best = sorted(fused.items(), key=lambda kv: -kv[1])[:k]
    return passage_hits(index, best, "fused")


def match_nodes(
    index: IndexReads, query: str, tau: float = 0.7, k: int = 5
) -> list[tuple[str, float]]:
    """Graph nodes the query names, then nodes whose names match it at cosine > τ (SARG's matching).

    A name written in the query (any run of up to four words, normalized) matches exactly at no
    embedding cost; the whole query's vector, already cached by the hop's searches, finds the rest.
    """
    best: dict[str, float] = {}
    runs = list(word_runs(_WORD.findall(query), _MAX_NAME_WORDS))
    named = index.entities_named(runs)
    for run in runs:
        if run in named:
            best.setdefault(named[run].id, 1.0)
    for entity, score in index.search_entities(query, k):
        if score > tau and score > best.get(entity.id, 0.0):
            best[entity.id] = score
    return sorted(best.items(), key=lambda kv: -kv[1])[:k]


_WORD = re.compile(r"[\w'’-]+")
_MAX_NAME_WORDS = 4


# Bounded traversal: the heaviest edges out of each node, and a cap on the chains considered.
FAN_OUT = 8
# Per start node, so one busy start cannot starve the others (depth 3 needs at most 584).
_MAX_CHAINS_PER_START = 1000


def traverse_chains(
    index: IndexReads,
    query: str,
    direction: Direction = "forward",
    depth: int = 3,
    tau: float = 0.7,
    top: int = 3,
) -> list[Chain]:
    """Depth-first cause → effect chains from nodes matching the query, best `top` by similarity.

    A chain's similarity to the query is the mean cosine of its nodes' names to the query, read
    from vectors the graph already holds, so ranking thousands of candidates costs no embedding.
    """
    starts = match_nodes(index, query, tau)
    if not starts or index.link_count() == 0:
        return []
    # Each candidate: its edges, and its nodes (distinct, as a walk never revisits one).
    paths: list[tuple[tuple[tuple[str, str], ...], tuple[str, ...]]] = []

    steps = index.steps_within([s for s, _ in starts], direction, FAN_OUT, depth)

    def walk(node: str, edges: list[tuple[str, str]], nodes: list[str], limit: int) -> None:
        if edges:  # every prefix is a candidate: a short chain may be the one that answers
            paths.append((tuple(edges), tuple(nodes)))
        if len(edges) >= depth or len(paths) >= limit:
            return
        for head, tail, way in steps.get(node, []):
            nxt = tail if way == "forward" else head
            if nxt not in nodes:
                edges.append((head, tail))
                nodes.append(nxt)
                walk(nxt, edges, nodes, limit)
                edges.pop()
                nodes.pop()

    for start, _ in starts:
        walk(start, [], [start], len(paths) + _MAX_CHAINS_PER_START)
    if not paths:
        return []
    # Score every candidate: the mean cosine of its nodes' names to the query (one product for
    # all the nodes; per-path sums in plain Python beat filling a padded array row by row).
    touched = list({n for _, nodes in paths for n in nodes})
    names, vectors = index.entity_vectors(touched)
    sim = (
        dict(zip(names, (vectors @ index.query_vector(query)).tolist(), strict=True))
        if names
        else {}
    )
    scores = [sum([sim.get(n, 0.0) for n in nodes]) / len(nodes) for _, nodes in paths]
    chains: list[Chain] = []
    seen: set[frozenset[tuple[str, str]]] = set()
    for row in sorted(range(len(paths)), key=lambda r: -scores[r]):  # stable: walk order on ties
        if scores[row] <= 0:
            break
        edges = frozenset(paths[row][0])
        if edges in seen:  # a bidirectional walk meets the same edges from both ends
            continue
        seen.add(edges)
        chains.append(chain_of(index, list(paths[row][0]), round(scores[row], 4)))
        if len(chains) == top:
            break
    return chains


def chain_of(index: IndexReads, path: list[tuple[str, str]], score: float) -> Chain:
    """Links in cause → effect order (a backward walk is read from its far cause forward)."""
    if len(path) > 1 and all(a[0] == b[1] for a, b in zip(path, path[1:], strict=False)):
        path = path[::-1]
    links = []
    for head, tail in path:
        link = index.link(head, tail)
        links.append(
            ChainLink(
                head=index.entity(head).name,
                relation=" / ".join(link.relations[:2]),
                tail=index.entity(tail).name,
                unit_ids=list(link.unit_ids),
            )
        )
    return Chain(links=links, score=score)


def units_by_id(index: IndexReads, unit_ids: Sequence[str]) -> list[ReasoningUnit]:
    """Units by id (the provenance of chain edges)."""
    return index.units(unit_ids)
