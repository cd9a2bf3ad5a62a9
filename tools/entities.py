"""Retrieval by entity: what the index holds about a named entity, and the entities text names.

A multi-hop question crosses from one entity to the next; these look entities up by their
normalized key (the catalog's subjects, titles and mentions, and the graph's names) rather than
by meaning, then rank what they find by the query. `resin.tools.retrieval` searches by meaning.
"""

from __future__ import annotations

from collections.abc import Sequence

from resin.indexes.lexical import word_runs
from resin.indexes.reads import ABOUT_SCAN, IndexReads
from resin.indexes.units import entity_key
from resin.tools.retrieval import PassageHit, UnitHit, passage_hits, unit_hits


def units_about(
    index: IndexReads, entity: str, k: int = 5, query: str | None = None
) -> list[UnitHit]:
    """Units whose subject is this entity (exact normalized name), ranked by the query."""
    return unit_hits(index.search_units(query or entity, k, about=entity_key(entity)))


def passages_about(index: IndexReads, entity: str, query: str, k: int = 2) -> list[PassageHit]:
    """Passages about an entity (its own document first, then passages naming it), ranked by query."""
    key = entity_key(entity)
    candidates = (
        index.passages_titled(key)
        or index.passages_titled(key, qualified=True)
        or index.mentions(key)
    )
    if not candidates:
        return []
    vector = index.query_vector(query)
    if len(candidates) > ABOUT_SCAN:  # a common name: its passages among the query's neighbours
        named = set(candidates)
        near = index.search_passages(query, ABOUT_SCAN)
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


def named_in(index: IndexReads, text: str, longest: int = 6) -> list[str]:
    """Entity keys written in the text that the index knows: document titles and graph names."""
    found: list[str] = []
    for gram in word_runs(entity_key(text).split(), longest):
        if len(gram) >= 3 and gram not in found and _display_name(index, gram):
            found.append(gram)
    return found


def bridge_entities(
    index: IndexReads,
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
    keys = named_in(index, question) + [k for p in passage_ids for k in index.mentioned_in(p)]
    skip = set(held)
    candidates: dict[str, list[str]] = {}
    for key in dict.fromkeys(keys):
        display = _display_name(index, key)
        if not display or display in candidates:
            continue
        own = index.passages_titled(key) or index.mentions(key, per_entity)
        pids = [p for p in own if p not in skip]
        if pids:
            candidates[display] = pids
    ids, vectors = index.passage_vectors(
        list(dict.fromkeys(p for ps in candidates.values() for p in ps))
    )
    if not ids:
        return []
    sim = dict(zip(ids, (vectors @ index.query_vector(question)).tolist(), strict=True))
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


def _display_name(index: IndexReads, key: str) -> str:
    """A document title or graph name for an entity key; '' when the key names neither."""
    titled = index.passages_titled(key)
    if titled:
        return index.passages(titled[:1])[0].title
    entity = index.entity_named(key)
    return entity.name if entity else ""
