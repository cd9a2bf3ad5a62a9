"""`resolve_hop`: fill placeholders, call the retrieval tools, buffer evidence, answer the hop."""

from __future__ import annotations

import time
from typing import Any, Literal

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from langgraph.config import get_stream_writer
from langgraph.runtime import Runtime
from pydantic import BaseModel

from resin.agent import chat_trace
from resin.agent.answering.hop_compute import compute
from resin.agent.context import Context
from resin.agent.language.forms import causal_parts, defined_subject, why_clause
from resin.agent.language.spans import main_verb
from resin.agent.llm import make_chat_model
from resin.agent.nodes.common import structured, usage_row
from resin.agent.nodes.compose import CHARS_PER_TOKEN
from resin.agent.reading.typed_hop import resolve_typed
from resin.agent.resources import context_of, get_index
from resin.agent.state import Evidence, Hop, HopResult, HopTask
from resin.indexes.index import Index
from resin.indexes.lexical import tokenize
from resin.indexes.reads import ABOUT_SCAN
from resin.indexes.units import ReasoningUnit, normalize
from resin.prompts import BRIDGE_SYSTEM, BRIDGE_USER
from resin.prompts.structured import fence, parse_reply
from resin.tools.causal import cause_chains, effect_chains
from resin.tools.entities import bridge_entities, passages_about, units_about
from resin.tools.pairs import paired_passages
from resin.tools.retrieval import (
    Chain,
    PassageHit,
    UnitHit,
    search_passages,
    search_units,
    traverse_chains,
    units_by_id,
)

# Dense passages kept for a question hop; bridge hops add passages about the entities these name.
QUESTION_HOP_PASSAGES = 3
# The bridge call's whole prompt (instructions, evidence, question) at 4 characters per token: the
# few sentences sharing the hop's words, not whole passages (the 135M model reads about 80 tokens
# a second on one core).
BRIDGE_PROMPT_TOKENS = 192
# A unit this similar to the hop question is a real hit; fewer than two such hits = units are thin.
# Weaker ones stay out of the buffer: ranked ahead of later hops, they would push out the bridge
# passages the structural plan exists to add.
UNIT_HIT = 0.5


class BridgeAnswer(BaseModel):
    """The hop model's short answer, used only to fill dependents' placeholders."""

    answer: str = ""


def _best_sentence(hit: PassageHit, query: str, index: Index) -> tuple[str, str]:
    """The passage sentence sharing most content words with the query: the evidence quote."""
    passage = index.passages([hit.passage_id])[0]
    terms = set(tokenize(query))
    best = max(passage.sentences, key=lambda s: len(terms & set(tokenize(s.text))))
    return best.id, best.text


def _passage_evidence(hits: list[PassageHit], hop: int, query: str, index: Index) -> list[Evidence]:
    evidence = []
    for hit in hits:
        sid, quote = _best_sentence(hit, query, index)
        evidence.append(
            Evidence(
                id=hit.passage_id,
                passage_id=hit.passage_id,
                sentence_ids=[sid],
                quote=quote,
                score=hit.score,
                hop=hop,
                route=hit.route,
            )
        )
    return evidence


def _evidence_of(unit: ReasoningUnit, score: float, hop: int, route: str) -> Evidence:
    """A unit's source sentences as evidence of this hop."""
    return Evidence(
        id=unit.id,
        passage_id=unit.passage_id,
        sentence_ids=unit.sentence_ids,
        quote=unit.evidence,
        score=score,
        hop=hop,
        route=route,  # type: ignore[arg-type]
    )


def _unit_evidence(hits: list[UnitHit], hop: int, route: str = "units") -> list[Evidence]:
    return [_evidence_of(h.unit, round(h.score, 4), hop, route) for h in hits]


def _chain_evidence(chains: list[Chain], hop: int, index: Index) -> list[Evidence]:
    score = {u: chain.score for chain in chains for u in chain.first_units}
    units = units_by_id(index, list(dict.fromkeys(u for c in chains for u in c.first_units)))
    return [_evidence_of(u, score.get(u.id, 0.0), hop, "chain") for u in units]


def bridge_evidence(query: str, evidence: list[Evidence]) -> list[str]:
    """The evidence sentences that matter for `query`, fenced, within the bridge prompt's budget.

    Those sharing most of the query's words come first (then the better scored); whatever does
    not fit is left out, and the best one is cut at a word when it alone does not fit.
    """
    fixed = len(BRIDGE_SYSTEM) + len(BRIDGE_USER.format(evidence="", question=fence(query)))
    budget = BRIDGE_PROMPT_TOKENS * CHARS_PER_TOKEN - fixed
    terms = set(tokenize(query))
    ranked = sorted(evidence, key=lambda e: (-len(terms & set(tokenize(e.quote))), -e.score))
    quotes: list[str] = []
    used = 0
    for quote in dict.fromkeys(fence(e.quote) for e in ranked):
        cost = len(quote) + 3  # "- " and the line break
        if used + cost <= budget:
            quotes.append(quote)
            used += cost
        elif not quotes and budget > 3:
            quotes.append(quote[: budget - 3].rsplit(" ", 1)[0])
            used = budget
    return quotes


def bridge_messages(query: str, quotes: list[str]) -> list[BaseMessage]:
    """The bridge call's prompt: instructions, the sentences that matter, the question."""
    evidence = "\n".join(f"- {q}" for q in quotes)
    return [
        SystemMessage(BRIDGE_SYSTEM),
        HumanMessage(BRIDGE_USER.format(evidence=evidence, question=fence(query))),
    ]


def bridge_value(
    hop: Hop, query: str, evidence: list[Evidence], ctx: Context, usage: list[dict[str, Any]]
) -> str:
    """A short answer for dependents: the hop model's, if the sentences it read write it."""
    quotes = bridge_evidence(query, evidence)
    if not quotes:
        return ""
    try:
        reply = structured(make_chat_model(ctx.hop_model), BridgeAnswer, max_tokens=40).invoke(
            bridge_messages(query, quotes)
        )
        usage.append(usage_row(f"hop {hop.id}", reply))
        answer = parse_reply(reply, BridgeAnswer).answer.strip()
    except Exception:  # noqa: BLE001 - an unusable answer falls back to structure below
        answer = ""
    if answer and normalize(answer) in normalize("\n".join(quotes)):
        return answer
    return ""


def _bridged(hop: Hop, task: HopTask, ctx: Context) -> bool:
    """Hop 1 of a structural plan: bridge hops will follow the entities its passages name."""
    return hop.id == 1 and task["plan_source"] == "structural" and ctx.bridge_hops > 0


def _passage_slots(hop: Hop, units: list[UnitHit], task: HopTask, ctx: Context) -> int:
    """How many passages a question hop takes.

    A bridged hop 1 leaves one of its k slots to each bridge hop (the best 3 dense passages plus
    the best 2 about entities they name beat the top 5 dense). Otherwise passages carry the hop
    when units are thin (fewer than two real hits), and back them up when they are not.
    """
    if _bridged(hop, task, ctx):
        return max(1, ctx.k_per_hop - ctx.bridge_hops)
    thin = sum(u.score >= UNIT_HIT for u in units) < 2
    return ctx.k_per_hop if thin else QUESTION_HOP_PASSAGES


def told_chains(index: Index, query: str) -> list[Chain]:
    """The causal story a question asks for, every link a sentence the answer cites.

    "What happens to X when Y?": the chain from Y to an effect on X; "Why does X?": the chain of
    causes that ends at X (its last link's head is the immediate cause).
    """
    parts = causal_parts(query)
    if parts:
        return effect_chains(index, parts[1], parts[0])
    why = why_clause(query)
    return cause_chains(index, why, main_verb(why)) if why else []


def _definitions(index: Index, query: str, held: set[str]) -> list[UnitHit]:
    """For "Who was X?" / "What is X?": X's own entity-type units, however the search ranked them.

    "Hessa Varn | is a | civil engineer" ranks below her birth and death for "Who was Hessa
    Varn?" (all name her); the answer step reads the type from these units.
    """
    defined = defined_subject(query)
    if not defined:
        return []
    about = units_about(index, defined, ABOUT_SCAN, query)
    return [h for h in about if h.unit.kind == "entity-type" and h.unit.id not in held][:2]


def _computed(hop: Hop, task: HopTask, started: float) -> dict[str, Any]:
    """A computed hop: its dependencies' answers combined, no retrieval."""
    answer, how = compute(hop, task["results"])
    status: Literal["resolved", "unresolved"] = "resolved" if answer else "unresolved"
    _report(hop, status, hop.question, started, answer=answer, how=how)
    result = HopResult(hop=hop.id, query=hop.question, status=status, answer=answer, via="computed")
    return {"results": {hop.id: result}}


def _typed(hop: Hop, task: HopTask, ctx: Context, started: float) -> dict[str, Any]:
    """A hop that asks its own question: answered by the hop reader, alternatives kept."""
    index = get_index(ctx)
    usage: list[dict[str, Any]] = []
    results, evidence, reading = resolve_typed(index, hop, task["results"], ctx)
    result = results[hop.id]
    chains = traverse_chains(
        index, result.query, hop.direction, ctx.chain_depth, ctx.tau, ctx.top_chains
    )
    effects = told_chains(index, result.query)
    evidence = _chain_evidence(effects, hop.id, index) + evidence
    if task["has_dependents"] and task["plan_source"] == "model" and not result.answer:
        # a model's plan whose hop the reader could not answer: the hop model's short answer,
        # where the sentences it read write it
        bridge = bridge_value(hop, result.query, evidence, ctx, usage)
        result = result.model_copy(update={"bridge": bridge})
    _report(
        hop,
        result.status,
        result.query,
        started,
        answer=result.answer,
        units=len(reading.units),
        passages=len(reading.passages),
        chains=len(effects + chains),
    )
    notes = [
        f"hop {hop.id} read hop {dep}'s alternative {r.answer!r}: it answers better than "
        f"{r.alternatives[0]!r}"
        for dep, r in results.items()
        if dep != hop.id
    ]
    return {
        "results": {**results, hop.id: result},
        "evidence": evidence,
        "chains": effects + chains,
        "usage": usage,
        "notes": notes,
    }


def _report(hop: Hop, status: str, query: str, started: float, **figures: Any) -> None:
    """The stream's hop event."""
    get_stream_writer()(
        {
            "event": "hop",
            "hop": hop.id,
            "status": status,
            "query": query,
            **figures,
            "seconds": round(time.perf_counter() - started, 3),
        }
    )


def resolve_hop(task: HopTask, runtime: Runtime[Context]) -> dict[str, Any]:
    """Resolve one hop; record it unresolved if nothing fits. The chat's trace shows both ends.

    A computed hop combines its dependencies' answers; a hop of a parsed or model plan asks its
    own question and gets an answer of its own (`resin.agent.reading.typed_hop`); a structural hop gathers
    typed units, chains and passages for the composer, and may add bridge hops.
    """
    started = time.perf_counter()
    ctx = context_of(runtime.context)
    hop = task["hop"]
    structural = task["plan_source"] == "structural"
    chat_trace.reading(task["answer_id"], hop, task["results"])
    if hop.compute:
        update = _computed(hop, task, started)
    elif not structural:
        update = _typed(hop, task, ctx, started)
    else:
        update = _structural(hop, task, ctx, started)
    chat_trace.resolved(task["answer_id"], update, structural)
    return update


def _structural(hop: Hop, task: HopTask, ctx: Context, started: float) -> dict[str, Any]:
    """A hop of a structural plan: evidence for the composer, and bridge hops after hop 1."""
    index = get_index(ctx)
    query = hop.question  # a structural hop names its entity: no placeholders
    usage: list[dict[str, Any]] = []
    chains: list[Chain] = []
    effects: list[Chain] = []
    new_hops: list[Hop] = []
    passages: list[PassageHit] = []
    units: list[UnitHit] = []
    searched: list[PassageHit] = []
    if hop.entity:
        # A bridge hop: the entity's own passages, ranked by the original question.
        held = set(task["evidence_ids"])
        about = passages_about(index, hop.entity, task["question"], k=1 + len(held))
        passages = [p for p in about if p.passage_id not in held][:1]
        units = units_about(index, hop.entity, ctx.k_per_hop, task["question"])
    if not passages and not units:
        # No entity, or one the index does not know (a planner's guess): search by the question.
        units = search_units(index, query, hop.kinds or None, ctx.k_per_hop)
        chains = traverse_chains(
            index, query, hop.direction, ctx.chain_depth, ctx.tau, ctx.top_chains
        )
        effects = told_chains(index, query)
        searched = search_passages(index, query, _passage_slots(hop, units, task, ctx))
        # the whole question: the pair of passages it most likely needs leads (`resin.tools.pairs`)
        passages = paired_passages(index, query, searched) if hop.id == 1 else searched
        units = [u for u in units if u.score >= UNIT_HIT]
        units += _definitions(index, query, {u.unit.id for u in units})
    evidence = (
        _passage_evidence(passages, hop.id, query, index)
        + _unit_evidence(units, hop.id)
        + _chain_evidence(chains, hop.id, index)
    )
    if _bridged(hop, task, ctx):
        # Units and chains point at sentences of the hop's own passages here; a passage of their
        # own would rank ahead of the bridge passages the plan exists to add.
        held = {p.passage_id for p in passages}
        evidence = [e for e in evidence if e.passage_id in held]
        # bridges follow the names the search's own passages write, as without the pair
        new_hops = _bridge_hops(index, searched, held, task, ctx)
    # Every link of an effect chain is a sentence the answer cites, whichever passage holds it.
    evidence = _chain_evidence(effects, hop.id, index) + evidence
    chains = effects + chains
    # Structural bridge hops carry their entity themselves: a structural plan makes no bridge call.
    bridge = new_hops[0].entity if new_hops else ""
    status: Literal["resolved", "unresolved"] = "resolved" if evidence else "unresolved"
    _report(
        hop,
        status,
        query,
        started,
        units=len(units),
        passages=len(passages),
        chains=len(chains),
        added=len(new_hops),  # bridge hops a structural plan grows by
    )
    result = HopResult(
        hop=hop.id,
        query=query,
        status=status,
        bridge=bridge,
        units=len(units),
        passages=len(passages),
    )
    return {
        "results": {hop.id: result},
        "evidence": evidence,
        "chains": chains,
        "plan": new_hops,
        "usage": usage,
    }


def _bridge_hops(
    index: Index, passages: list[PassageHit], read: set[str], task: HopTask, ctx: Context
) -> list[Hop]:
    """Follow-up hops to the named entities whose own unbuffered passages best match the question.

    Candidates are the entities `passages` name, plus those the question names itself; `read`
    holds the passages hop 1 keeps (no bridge hop adds one again).
    """
    held = [p.passage_id for p in passages] + sorted(read) + task["evidence_ids"]
    bridges = bridge_entities(
        index, [p.passage_id for p in passages], task["question"], held, ctx.bridge_hops
    )
    return [
        Hop(id=2 + i, question=f"What does the text say about {name}?", depends_on=[1], entity=name)
        for i, (name, _) in enumerate(bridges)
    ]
