"""The benchmark's cases: gold hops of MuSiQue and 2Wiki, Break-decomposed HotpotQA questions."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

from resin.agent.state import Hop, HopResult
from resin.evals.data import Dataset
from resin.evals.data.corpus import clean
from resin.evals.gold_plans import break_plan, gold_steps
from resin.evals.hop_reading.scoring import Case, depths, position_label, written
from resin.evals.metrics import exact_match
from resin.indexes.documents import content_hash
from resin.indexes.units import entity_key


# --- the cases ----------------------------------------------------------------------------------
def _fill(text: str, values: dict[int, str]) -> str:
    return " ".join(re.sub(r"#(\d+)", lambda m: values.get(int(m.group(1)), ""), text).split())


# HotpotQA questions Break decomposed, under --data-dir.
BREAK = "break/hotpotqa_qdmr_dev.jsonl"


def _given(
    plan: Sequence[Hop], hop: Hop, values: dict[int, dict[int, str]]
) -> dict[int, HopResult]:
    """The results of the hops `hop` needs, answered with gold (`values[k]`: hop k's fill-ins)."""
    by_id = {h.id: h for h in plan}
    out = {}
    for d in hop.depends_on:
        answer = values.get(hop.id, {}).get(d, "")
        earlier, fills = by_id[d], values.get(d, {})
        out[d] = HopResult(
            hop=d,
            query=_fill(earlier.question, fills),
            status="resolved",
            subject=_fill(earlier.subject, fills),
            answer=answer,
            bridge=answer,
        )
    return out


def paragraph_doc(paragraph: dict[str, Any], doc_ids: set[str]) -> str | None:
    """The corpus document of a record's paragraph (the loader's id: its title, or title#hash)."""
    title = clean(str(paragraph.get("title") or paragraph.get("pid") or ""))
    text = clean(str(paragraph.get("text") or "".join(paragraph.get("sentences") or [])))
    hashed = f"{title or 'doc'}#{content_hash(title, text, length=8)}"
    return hashed if hashed in doc_ids else title if title in doc_ids else None


def _docs(record: dict[str, Any], indices: Iterable[int], doc_ids: set[str]) -> list[str]:
    paragraphs = record.get("paragraphs") or []
    found = (paragraph_doc(paragraphs[i], doc_ids) for i in indices if 0 <= i < len(paragraphs))
    return list(dict.fromkeys(d for d in found if d))


def _supporting(record: dict[str, Any]) -> list[int]:
    return [i for i, p in enumerate(record.get("paragraphs") or []) if p.get("is_supporting")]


def _about(record: dict[str, Any], indices: list[int], subject: str) -> list[int]:
    key = entity_key(subject)
    titles = [entity_key(str(record["paragraphs"][i].get("title") or "")) for i in indices]
    return [
        i
        for i, t in zip(indices, titles, strict=True)
        if key and (t == key or t.startswith(key + " "))
    ]


def _writing(record: dict[str, Any], indices: list[int], answers: list[str]) -> list[int]:
    paragraphs = record["paragraphs"]
    return [
        i
        for i in indices
        if written(f"{paragraphs[i].get('title', '')} {paragraphs[i].get('text', '')}", answers)
    ]


def gold_cases(name: str, data: Dataset, records: dict[str, dict[str, Any]]) -> list[Case]:
    """Every gold hop of the sampled MuSiQue or 2Wiki questions, given gold earlier answers.

    Its gold paragraph: MuSiQue's support paragraph of the step; for a triple, the supporting
    paragraph about the hop's subject (else the supporting ones that write its answer).
    """
    doc_ids = {d.id for d in data.documents}
    cases = []
    for question in data.questions:
        steps = gold_steps(question.chain)
        if not steps:
            continue
        record = records[question.id]
        plan = [s.hop for s in steps]
        depth = depths(plan)
        values = {s.hop.id: s.given for s in steps}
        support = _supporting(record)
        for step in steps:
            subject = _fill(step.hop.subject, step.given)
            where = step.support or _about(record, support, subject)
            where = where or _writing(record, support, step.answers) or support
            cases.append(
                Case(
                    dataset=name,
                    question_id=question.id,
                    scored="hop",
                    position=position_label(depth[step.hop.id]),
                    plan=plan[: step.hop.id],
                    answers=step.answers + _aliases(step.answers, question.answers),
                    gold_docs=_docs(record, where, doc_ids),
                    given=_given(plan, step.hop, values),
                )
            )
    return cases


def _aliases(answers: list[str], final: list[str]) -> list[str]:
    """The question's answers, where the hop's answer is one of them (its last hop's aliases)."""
    return (
        [a for a in final if a not in answers]
        if any(exact_match(a, final) for a in answers)
        else []
    )


def _bare(title: str) -> str:
    return re.sub(r"\s*\([^()]*\)$", "", title).strip()


def break_cases(
    data: Dataset, records: dict[str, dict[str, Any]], decompositions: list[dict[str, Any]]
) -> list[Case]:
    """HotpotQA's Break-decomposed questions: the final step given gold, else the whole chain.

    The final step is given gold where the chain is one `select` then a `project` of it (a
    bridge) and exactly one supporting paragraph's title is not written in the question: the
    bridge entity, the select's answer. A `filter`'s select names a set, whose gold is no title.
    A single `select` is its own final step.
    """
    doc_ids = {d.id for d in data.documents}
    asked = {q.id: q for q in data.questions}
    cases = []
    for item in decompositions:
        question = asked.get(str(item["id"]))
        if question is None:
            continue
        record = records[question.id]
        steps, operators = list(item["steps"]), list(item["operators"])
        plan = break_plan(question.question, steps, operators)
        support = _supporting(record)
        key = f" {entity_key(question.question)} "
        titles = [str(record["paragraphs"][i].get("title") or "") for i in support]
        unwritten = [t for t in titles if f" {entity_key(_bare(t))} " not in key]
        final_given = (
            len(steps) == 2
            and operators == ["select", "project"]
            and "#1" in steps[1]
            and len(unwritten) == 1
            and len(plan) == 2
        )
        if final_given or (len(steps) == 1 and plan):
            values = {2: {1: _bare(unwritten[0])}} if final_given else {}
            scored, position = "final step", position_label(depths(plan)[plan[-1].id])
            given = _given(plan, plan[-1], values)
            where = _writing(record, support, question.answers) or support
        else:
            scored, position, given = ("chain" if plan else "not executable"), "chain", {}
            where = support
        cases.append(
            Case(
                dataset="HotpotQA",
                question_id=question.id,
                scored=scored,
                position=position,
                plan=plan,
                answers=question.answers,
                gold_docs=_docs(record, where, doc_ids),
                given=given,
                all_gold=scored != "final step",  # a chain reads every supporting paragraph
            )
        )
    return cases
