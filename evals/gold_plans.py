"""Gold decompositions as plans, and how well the parsed planner matches them.

MuSiQue's `chain.decomposition` holds each sub-question ("Châu Đức >> country", or a question
with `#k`); 2Wiki's `chain.evidence_triples` holds (subject, relation, object) per hop, a later
hop's subject being an earlier one's object. Either becomes the hops a strong planning model
would write; a comparison's computed step (which the gold data does not write) comes from the
parsed plan of the question. `agent_gold_plan` runs them through the agent's own executor.
`gold_steps` keeps each hop's gold answers beside it (the hop-reading benchmark scores them), and
`break_plan` makes Break's human decompositions of HotpotQA questions into plans the same way.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
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


@dataclass
class GoldStep:
    """A gold hop, its gold answers, and the gold value each of its `#k` placeholders stands for.

    `support` holds the indices of the record's paragraphs that write the answer, where the set
    says (MuSiQue's `paragraph_support_idx`).
    """

    hop: Hop
    answers: list[str]
    given: dict[int, str] = field(default_factory=dict)
    support: list[int] = field(default_factory=list)


def _triple_steps(triples: list[list[str]]) -> list[GoldStep]:
    steps: list[GoldStep] = []
    produced: dict[str, int] = {}  # an object's key → the hop that gives it
    by_hop: dict[tuple[str, str], GoldStep] = {}
    for subject, relation, obj in triples:
        if (entity_key(subject), relation) in by_hop:
            by_hop[(entity_key(subject), relation)].answers.append(obj)
            continue  # a relation with several values is one hop
        ref = produced.get(entity_key(subject))
        hop = _relation_hop(len(steps) + 1, f"#{ref}" if ref else subject, relation)
        step = GoldStep(hop, [obj], {ref: subject} if ref else {})
        by_hop[(entity_key(subject), relation)] = step
        steps.append(step)
        produced.setdefault(entity_key(obj), hop.id)
    return steps


def _decomposition_steps(steps: list[dict[str, Any]]) -> list[GoldStep]:
    hops = _from_decomposition(steps)
    answers = [str(s.get("answer") or "") if isinstance(s, dict) else "" for s in steps]
    return [
        GoldStep(
            hop,
            [answers[hop.id - 1]],
            {d: answers[d - 1] for d in hop.depends_on if 0 < d <= len(answers)},
            [int(i)]
            if isinstance(step, dict) and isinstance(i := step.get("paragraph_support_idx"), int)
            else [],
        )
        for hop, step in zip(hops, steps, strict=True)
    ]


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
    return [step.hop for step in gold_steps(chain)]


def gold_steps(chain: dict[str, Any]) -> list[GoldStep]:
    """The gold lookup hops of a question with their gold answers ([] without a decomposition).

    A 2Wiki hop whose relation has several objects accepts each; a placeholder stands for the
    earlier hop's object that is this hop's subject, a MuSiQue one for the earlier step's answer.
    """
    if chain.get("evidence_triples"):
        return _triple_steps(chain["evidence_triples"])
    if chain.get("decomposition"):
        return _decomposition_steps(chain["decomposition"])
    return []


# Break's operators whose step the hop reader reads (a boolean step with no `#k` is a yes/no
# lookup); the others combine earlier steps' results.
LOOKUP_OPERATORS = frozenset({"select", "project", "filter", "boolean"})
_WH = re.compile(
    r"^(?:who|whom|whose|what|when|where|which|why|how|in what|on what|until when)\b", re.I
)
_AUX = re.compile(r"^(.*?)\b(is|was|are|were|has|have|had|does|did|do|can)\s+(.+)$", re.I)


def is_lookup(step: str, operator: str) -> bool:
    """Whether the hop reader reads this Break step, rather than a computed step combining others."""
    return operator in LOOKUP_OPERATORS and not (operator == "boolean" and "#" in step)


def break_question(step: str, operator: str) -> str:
    """A Break step as the one-hop question a planner would write.

    A wh-step keeps its words ("who directed #1" → "Who directed #1?"), a yes/no step is asked
    ("if Vibe is a magazine" → "Is Vibe a magazine?"), a noun phrase becomes "What is …?".
    """
    text = " ".join(step.replace(" ,", ",").split()).rstrip("?. ")
    if operator == "boolean":
        text = re.sub(r"^if\s+", "", text, flags=re.I)
        aux = _AUX.match(text)
        if aux and aux.group(1).strip():  # "Vibe is a magazine": the verb first
            text = f"{aux.group(2)} {aux.group(1).strip()} {aux.group(3)}"
    elif not _WH.match(text):
        named = re.match(r"(?:the|a|an)\b", text, re.I) or re.match(r"[A-Z#\d]", text)
        lead = "" if named else "the "  # "actress that …" → "What is the actress that …?"
        return f"What is {lead}{text}?"
    return text[:1].upper() + text[1:] + "?"


def break_plan(question: str, steps: list[str], operators: list[str]) -> list[Hop]:
    """A Break decomposition as a plan: its lookup steps as hops, its last step computed.

    A last step that combines earlier ones (a comparison, "if both #1 and #2 are true") becomes
    the parsed plan's computed step, as `gold_plan` adds one; [] when the chain cannot run as
    written (a combining step in the middle, or one the parse computes no step for).
    """
    lookups = [is_lookup(s, o) for s, o in zip(steps, operators, strict=True)]
    if not steps or not all(lookups[:-1]):
        return []
    hops = _from_decomposition(
        [{"question": break_question(s, o)} for s, o in zip(steps, operators, strict=True)]
    )
    if lookups[-1]:
        return hops
    parsed = decompose(question)
    step = parsed[-1] if parsed and parsed[-1].compute else None
    if step is None:
        return []
    return _then(hops[:-1], step)


def _then(hops: list[Hop], step: Hop) -> list[Hop]:
    """The hops, then the computed step over every hop no other hop depends on."""
    needed = {d for h in hops for d in h.depends_on}
    sinks = [h.id for h in hops if h.id not in needed]
    return [*hops, step.model_copy(update={"id": len(hops) + 1, "depends_on": sinks}, deep=True)]


def gold_plan(question: str, chain: dict[str, Any]) -> list[Hop]:
    """The gold hops, with the parsed plan's computed step when the question compares options."""
    hops = gold_hops(chain)
    parsed = decompose(question)
    step = parsed[-1] if parsed and parsed[-1].compute else None
    if step is not None and hops:
        hops = _then(hops, step)
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
