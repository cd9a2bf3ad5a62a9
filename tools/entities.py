"""Retrieval by entity: what the index holds about a named entity, and the entities text names.

A multi-hop question crosses from one entity to the next; these look entities up by their
normalized key (the catalog's subjects, titles and mentions, and the graph's names) rather than
by meaning, then rank what they find by the query. `tools.retrieval` searches by meaning.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from indexes.index import Index
from indexes.lexical import word_runs
from indexes.units import entity_key
from tools.retrieval import PassageHit, UnitHit, passage_hits, query_vector, read_units

# An entity with at most this many units (or passages naming it) is ranked exactly: a lookup plus
# a dot product. A commoner one is looked for among the query's this-many nearest neighbours.
ABOUT_SCAN = 256


def units_about(index: Index, entity: str, k: int = 5, query: str | None = None) -> list[UnitHit]:
    """Units whose subject is this entity (exact normalized name), ranked by the query."""
    key = entity_key(entity)
    vector = query_vector(index, query or entity)
    ids = index.catalog.units_with_subject(key, ABOUT_SCAN + 1)
    if len(ids) > ABOUT_SCAN:  # a common subject: its units among the query's neighbours
        near = index.vectors.nearest("units", vector, ABOUT_SCAN)
        own = index.catalog.with_subject(key, [u for u, _ in near])
        found = [(u, s) for u, s in near if u in own][:k]
        if found:
            return read_units(index, found)
        ids = ids[:ABOUT_SCAN]  # none that near: rank the first ones found
    stored, vectors = index.vectors.get_vectors("units", ids)
    if not stored:
        return []
    scores = vectors @ vector
    return read_units(
        index, [(stored[i], float(scores[i])) for i in np.argsort(-scores, kind="stable")[:k]]
    )


def passages_about(index: Index, entity: str, query: str, k: int = 2) -> list[PassageHit]:
    """Passages about an entity (its own document first, then passages naming it), ranked by query."""
    key = entity_key(entity)
    candidates = (
        index.catalog.titled(key)
        or index.catalog.titled_qualified(key)
        or index.catalog.mentioning(key)
    )
    if not candidates:
        return []
    vector = query_vector(index, query)
    if len(candidates) > ABOUT_SCAN:  # a common name: its passages among the query's neighbours
        named = set(candidates)
        near = index.vectors.nearest("passages", vector, ABOUT_SCAN)
        ranked = [(pid, s) for pid, s in near if pid in named][:k]
        if ranked:
            return passage_hits(index, ranked, "entity")
        candidates = candidates[:ABOUT_SCAN]
    ids, vectors = index.passage_vectors(candidates)
    if not ids:
        return []
    sims = vectors @ vector
    ranked = sorted(zip(ids, sims.tolist(), strict=True), key=lambda kv: -kv[1])[:k]
    return passage_hits(index, ranked, "entity")


def named_in(index: Index, text: str, longest: int = 6) -> list[str]:
    """Entity keys written in the text that the index knows: document titles and graph names."""
    found: list[str] = []
    for gram in word_runs(entity_key(text).split(), longest):
        if len(gram) >= 3 and gram not in found and _display_name(index, gram):
            found.append(gram)
    return found


def bridge_entities(
    index: Index,
    passage_ids: Sequence[str],
    question: str,
    held: Sequence[str] = (),
    limit: int = 2,
    per_entity: int = 20,
) -> list[tuple[str, PassageHit]]:
    """The best unheld passage about each entity the passages (or the question) name, best first.

    These are a multi-hop question's bridges: a passage about the first hop names the entity
    whose own passages answer the second, and the mention index finds it without a model. Each
    candidate's passages (its own document's, else those naming it) are scored against the
    question in one batch; the `limit` entities with the best-scoring passage win.
    """
    keys = named_in(index, question) + [
        k for p in passage_ids for k in index.catalog.mentioned_in(p)
    ]
    skip = set(held)
    candidates: dict[str, list[str]] = {}
    for key in dict.fromkeys(keys):
        display = _display_name(index, key)
        if not display or display in candidates:
            continue
        own = index.catalog.titled(key) or index.catalog.mentioning(key, per_entity)
        pids = [p for p in own if p not in skip]
        if pids:
            candidates[display] = pids
    ids, vectors = index.passage_vectors(
        list(dict.fromkeys(p for ps in candidates.values() for p in ps))
    )
    if not ids:
        return []
    sim = dict(zip(ids, (vectors @ query_vector(index, question)).tolist(), strict=True))
    best = sorted(
        (
            max((sim[p], p) for p in pids if p in sim) + (name,)
            for name, pids in candidates.items()
            if any(p in sim for p in pids)
        ),
        reverse=True,
    )
    chosen: list[tuple[str, str, float]] = []
    for score, pid, name in best:
        if pid not in {c[1] for c in chosen}:
            chosen.append((name, pid, score))
        if len(chosen) == limit:
            break
    hits = {
        h.passage_id: h
        for h in passage_hits(index, [(pid, score) for _, pid, score in chosen], "entity")
    }
    return [(name, hits[pid]) for name, pid, _ in chosen if pid in hits]


def _display_name(index: Index, key: str) -> str:
    """A document title or graph name for an entity key; '' when the key names neither."""
    titled = index.catalog.titled(key)
    if titled:
        return index.catalog.passages(titled[:1])[0].title
    node = index.graph.node_of(key)
    return index.graph.names(node)[0] if node else ""
