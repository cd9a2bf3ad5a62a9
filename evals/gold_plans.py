"""Gold decompositions as plans, and how well the parsed planner matches them.

MuSiQue's `chain.decomposition` holds each sub-question ("Châu Đức >> country", or a question
with `#k`); 2Wiki's `chain.evidence_triples` holds (subject, relation, object) per hop, a later
hop's subject being an earlier one's object. Either becomes the hops a strong planning model
would write; a comparison's computed step (which the gold data does not write) comes from the
parsed plan of the question. `agent_gold_plan` runs them through the agent's own executor.
"""

from __future__ import annotations

import re
from typing import Any

from resin.agent.language.relations import relation_type
from resin.agent.planning import decompose, describe_hop
from resin.agent.state import Hop
from resin.indexes.units import entity_key
from resin.prompts import MAX_HOPS

_ARROW = re.compile(r"^(.+?) >> (.+)$")


def _relation_hop(hop_id: int, subject: str, relation: str) -> Hop:
    kind = relation_type(relation)
    wh = "Who" if kind == "person" else "What"
    return Hop(
        id=hop_id,
        question=f"{wh} is the {relation} of {subject}?",
        depends_on=[int(r) for r in re.findall(r"#(\d+)", subject)],
        subject=subject,
        relation=relation,
        answer_type=kind,
    )


def _from_triples(triples: list[list[str]]) -> list[Hop]:
    hops: list[Hop] = []
    produced: dict[str, int] = {}  # an object's key → the hop that gives it
    seen: set[tuple[str, str]] = set()
    for subject, relation, obj in triples:
        if (entity_key(subject), relation) in seen:
            continue  # a relation with several values is one hop
        seen.add((entity_key(subject), relation))
        ref = produced.get(entity_key(subject))
        hop = _relation_hop(len(hops) + 1, f"#{ref}" if ref else subject, relation)
        hops.append(hop)
        produced.setdefault(entity_key(obj), hop.id)
    return hops


def _from_decomposition(steps: list[dict[str, Any]]) -> list[Hop]:
    hops: list[Hop] = []
    for step in steps:
        text = str(step.get("question") or "" if isinstance(step, dict) else step).strip()
        arrow = _ARROW.match(text)
        if arrow:
            hops.append(_relation_hop(len(hops) + 1, arrow.group(1), arrow.group(2)))
            continue
        subject, relation, kind = describe_hop(text)
        question = text if text.endswith("?") else f"{text}?"
        hops.append(
            Hop(
                id=len(hops) + 1,
                question=question,
                depends_on=sorted({int(r) for r in re.findall(r"#(\d+)", text)}),
                subject=subject,
                relation=relation,
                answer_type=kind,
            )
        )
    return hops


def gold_hops(chain: dict[str, Any]) -> list[Hop]:
    """The gold lookup hops of a question ([] when its set has no decomposition)."""
    if chain.get("evidence_triples"):
        return _from_triples(chain["evidence_triples"])
    if chain.get("decomposition"):
        return _from_decomposition(chain["decomposition"])
    return []


def gold_plan(question: str, chain: dict[str, Any]) -> list[Hop]:
    """The gold hops, with the parsed plan's computed step when the question compares options."""
    hops = gold_hops(chain)
    parsed = decompose(question)
    step = parsed[-1] if parsed and parsed[-1].compute else None
    if step is not None and hops:
        needed = {d for h in hops for d in h.depends_on}
        sinks = [h.id for h in hops if h.id not in needed]
        hops.append(step.model_copy(update={"id": len(hops) + 1, "depends_on": sinks}, deep=True))
    return (
        hops[:MAX_HOPS] if all(d <= MAX_HOPS for h in hops[:MAX_HOPS] for d in h.depends_on) else []
    )


def plan_accuracy(plan: list[dict[str, Any]], chain: dict[str, Any]) -> dict[str, float | None]:
    """Whether a plan's lookup hops are as many as gold's, and its hop 1 is about gold's entity."""
    gold = gold_hops(chain) if isinstance(chain, dict) else []
    plan = [h for h in plan if isinstance(h, dict)]
    if not gold:
        return {"plan_hops": None, "plan_entity": None}
    lookups = [h for h in plan if not h.get("compute") and not h.get("entity")]  # no bridge hops
    subject = entity_key(str(lookups[0].get("subject") or "")) if lookups else ""
    firsts = {entity_key(h.subject) for h in gold if not h.depends_on}
    return {
        "plan_hops": float(len(lookups) == len(gold)),
        "plan_entity": float(bool(subject) and subject in firsts),
    }
