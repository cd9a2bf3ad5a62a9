"""Effect chains: where a stated cause leads, through cause → effect links, for a named thing.

"What ultimately happens to the festival when tailings leak from the mine?" names a cause (the
condition) and the thing affected. SARG's traversal ranks chains by their likeness to the whole
question, so a short chain near the cause wins; the answer is at the far end. This walk starts at
the states most like the condition, follows causal edges only (and crosses to a near state
written another way: "they release copper into the river" → "the level of copper in the river"),
and keeps the chains whose last effect names the thing affected.
"""

from __future__ import annotations

from resin.indexes.lexical import stems
from resin.indexes.reads import IndexReads
from resin.tools.retrieval import FAN_OUT, Chain, chain_of, match_nodes

# Links in an effect chain: a causal story runs longer than SARG's three-link bridge chains.
EFFECT_DEPTH = 5
# Cosine at which an effect continues as a cause written another way. Lower than the graph's
# merge threshold (0.85): a crossing only counts on a chain that ends at the thing asked about.
NEAR_STATE = 0.6
_START_TAU = 0.6
# A cause written unlike the question's condition ("the summer surface release" for "the dam
# releases surface water in summer") is still a start among the few most like it.
_CAUSE_TAU = 0.4
_STARTS = 5
_NEAR_CAUSES = 4
_MAX_PATHS = 2000


def effect_chains(
    index: IndexReads,
    condition: str,
    affected: str,
    depth: int = EFFECT_DEPTH,
    near: float = NEAR_STATE,
    top: int = 1,
) -> list[Chain]:
    """The best `top` causal chains from states like `condition` to an effect naming `affected`.

    A chain's score is its start's cosine to the condition plus its end's cosine to the thing
    affected; an end must share a content word with it ("the silverfin" → "silverfin stops
    spawning"), and on a tie the shorter chain wins.
    """
    want = stems(affected)
    # the states named in the condition, and the causes written most like it
    named = [n for n, _ in match_nodes(index, condition, _START_TAU, _STARTS)]
    like = index.causes_like(condition, _CAUSE_TAU, _STARTS)
    starts = list(dict.fromkeys(named + like))
    if not want or not starts:
        return []
    paths: list[tuple[list[tuple[str, str]], str]] = []

    def walk(node: str, edges: list[tuple[str, str]], seen: list[str]) -> None:
        if edges:
            paths.append((list(edges), seen[0]))
        if len(edges) >= depth or len(paths) >= _MAX_PATHS:
            return
        for head in [node, *index.near_causes(node, near, _NEAR_CAUSES)]:
            if head != node and head in seen:
                continue
            for h, t, _ in index.heaviest_steps(head, "forward", FAN_OUT):
                if t in seen or t == head or not index.link(h, t).causal:
                    continue
                fresh = [n for n in (head, t) if n not in seen]
                edges.append((h, t))
                seen.extend(fresh)
                walk(t, edges, seen)
                edges.pop()
                del seen[-len(fresh) :]

    for start in starts:
        walk(start, [], [start])
    ends = [
        (edges, start)
        for edges, start in paths
        if want & stems(" ".join(index.entity(edges[-1][1]).names))
    ]
    if not ends:
        return []
    touched = list({n for edges, start in ends for n in (start, edges[-1][1])})
    names, vectors = index.entity_vectors(touched)
    cause = dict(zip(names, (vectors @ index.query_vector(condition)).tolist(), strict=True))
    effect = dict(zip(names, (vectors @ index.query_vector(affected)).tolist(), strict=True))
    scored = sorted(
        ends,
        key=lambda p: (-(cause.get(p[1], 0.0) + effect.get(p[0][-1][1], 0.0)), len(p[0])),
    )
    chains: list[Chain] = []
    for edges, start in scored[:top]:
        score = (cause.get(start, 0.0) + effect.get(edges[-1][1], 0.0)) / 2
        chain = chain_of(index, edges, round(score, 4))
        chain.about = affected
        chains.append(chain)
    return chains


def cause_chains(
    index: IndexReads, effect: str, verb: str = "", depth: int = EFFECT_DEPTH, top: int = 1
) -> list[Chain]:
    """The best `top` causal chains that end at a state like `effect`, read cause first.

    "Why does the council cancel the Lantern Run?" asks for what leads to "the council cancels
    the Lantern Run": the walk starts at the states most like that effect and follows causal
    edges backward. A chain's score is its end's cosine to the effect; of the chains from the
    best end, the longest leads (the whole story behind it), and its last link's head is the
    immediate cause. An end must write the effect's `verb` when one is given ("Why is the mill
    closed?" is not answered by what makes the mill switch boilers), else share a word with it.
    """
    want = stems(verb) or stems(effect)
    ends = [n for n, _ in match_nodes(index, effect, _CAUSE_TAU, _STARTS)]
    ends = [n for n in ends if want & stems(" ".join(index.entity(n).names))]
    if not want or not ends:
        return []
    names, vectors = index.entity_vectors(ends)
    like = dict(zip(names, (vectors @ index.query_vector(effect)).tolist(), strict=True))
    paths: list[list[tuple[str, str]]] = []

    def walk(node: str, edges: list[tuple[str, str]], seen: set[str]) -> None:
        if edges:
            paths.append(list(edges))
        if len(edges) >= depth or len(paths) >= _MAX_PATHS:
            return
        for h, t, _ in index.heaviest_steps(node, "backward", FAN_OUT):
            if h in seen or not index.link(h, t).causal:
                continue
            edges.insert(0, (h, t))
            seen.add(h)
            walk(h, edges, seen)
            seen.discard(h)
            edges.pop(0)

    for end in sorted(ends, key=lambda n: -like.get(n, 0.0)):
        walk(end, [], {end})
        if paths:  # the best end with causes: its chains only
            break
    if not paths:
        return []
    end = paths[0][-1][1]
    chains: list[Chain] = []
    for edges in sorted(paths, key=len, reverse=True)[:top]:
        chain = chain_of(index, edges, round(like.get(end, 0.0), 4))
        chain.about = effect
        chains.append(chain)
    return chains
