"""Resolving a hop that asks its own one-hop question: retrieve for it, answer it, buffer its support.

The subject's own passages come first (a hop about Mario Bonnard reads his page), then what the
hop's question finds by meaning; units about the subject are read too. The hop is resolved only
when `resin.agent.reading.hop_answer` finds an answer of its expected type; its answer's passage leads its
evidence, so retrieval ranks the passage that answers the hop first. A yes/no hop ("Is A a
documentary?") is judged by the sentence that best writes its claim (`resin.agent.reading.yes_no`). When the
subject came from an earlier hop, the earlier hop's alternative is read too, and the reading whose
best answer stands higher wins (the earlier hop's result then takes the alternative as its answer).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field, replace

from resin.agent.context import Context
from resin.agent.language.questions import is_yes_no
from resin.agent.language.relations import AnswerType
from resin.agent.planning import describe_hop
from resin.agent.reading.hop_answer import HopAnswer, accepted, read_hop
from resin.agent.reading.yes_no import claim_of, judge, page_subject
from resin.agent.state import Evidence, Hop, HopResult
from resin.indexes.documents import Passage
from resin.indexes.index import Index
from resin.tools.entities import passages_about, units_about
from resin.tools.retrieval import UnitHit, fetch_passages, search_passages, search_units

# Units at least this similar to the hop's question are read beside the subject's own.
UNIT_HIT = 0.5
# Passages of the subject's own page read first, then the hop's search.
OWN_PASSAGES = 2
# A hop that asks for a year is answered with the year of the date it finds.
_ASKS_YEAR = re.compile(r"\b(?:what|which) year\b", re.I)
_YEAR = re.compile(r"\b\d{3,4}\b")


@dataclass
class HopReading:
    """What one typed hop found: its answers (best first), passages and units."""

    query: str
    subject: str
    answers: list[HopAnswer] = field(default_factory=list)
    passages: list[Passage] = field(default_factory=list)
    units: list[UnitHit] = field(default_factory=list)


def fill_placeholders(text: str, results: dict[int, HopResult], choice: dict[int, str]) -> str:
    """Placeholders replaced by the earlier hops' answers (or a chosen alternative)."""

    def value(match: re.Match[str]) -> str:
        k = int(match.group(1))
        result = results.get(k)
        return choice.get(k) or (result.bridge or result.answer if result else "")

    return " ".join(re.sub(r"#(\d+)", value, text).split())


def typed(hop: Hop) -> tuple[str, str, AnswerType]:
    """The hop's subject, relation and answer type, read from its question when a model wrote it."""
    if hop.subject or hop.relation:
        return hop.subject, hop.relation, hop.answer_type
    return describe_hop(hop.question)


def read(
    index: Index, hop: Hop, results: dict[int, HopResult], ctx: Context, choice: dict[int, str]
) -> HopReading:
    """Retrieve for the hop and read its answers."""
    subject_ref, relation, answer_type = typed(hop)
    query = fill_placeholders(hop.question, results, choice)
    subject = fill_placeholders(subject_ref, results, choice)
    own = passages_about(index, subject, query, k=OWN_PASSAGES) if subject else []
    found = search_passages(index, query, ctx.k_per_hop)
    ids = list(dict.fromkeys([p.passage_id for p in own] + [p.passage_id for p in found]))
    passages = fetch_passages(index, ids)
    units = units_about(index, subject, ctx.k_per_hop, query) if subject else []
    units += [u for u in search_units(index, query, None, ctx.k_per_hop) if u.score >= UNIT_HIT]
    reading = HopReading(query, subject, passages=passages, units=units)
    own_ids = {p.passage_id for p in own}
    if is_yes_no(query):
        ordered = sorted(passages, key=lambda p: p.id not in own_ids)
        sentences = [(p, s) for p in ordered for s in p.sentences]
        verdict, where = judge(claim_of(query), sentences, subject or page_subject(query, ordered))
        if where is not None:
            reading.answers = [HopAnswer(verdict, where[0].id, where[1].id, 1.0, "polarity")]
        return reading
    # what the hops before it asked about, and what they answered, is no answer to this one
    # ("Where was #1 born?" after "Who designed the Orrin Dam?" is never the Orrin Dam, and "Who
    # is the president of #1?" never the other name #1 was read as)
    asked_before = [
        name
        for d in hop.depends_on
        if d in results
        for name in (results[d].subject, results[d].answer, *results[d].alternatives)
    ]
    reading.answers = read_hop(
        query,
        subject,
        relation,
        answer_type,
        passages,
        own_ids,
        [u.unit for u in units],
        not_answers=asked_before,
        similarity=index.sentence_similarity(query, passages),
    )
    return reading


def _logit(p: float) -> float:
    """A candidate's standing before the squashing: scores near 1 stay apart."""
    p = min(max(p, 1e-12), 1 - 1e-12)
    return math.log(p / (1 - p))


def switched(result: HopResult, alternative: str) -> HopResult:
    """A hop's result with one of its alternatives as its answer: a later hop read it better."""
    at = result.alternatives.index(alternative)
    located = dict(zip(result.alternatives, result.alternative_sentences, strict=False))
    passage_id, sentence_id = located.get(alternative, ("", ""))
    others = [result.answer, *result.alternatives[:at], *result.alternatives[at + 1 :]]
    places = [
        (result.passage_id, result.sentence_id),
        *result.alternative_sentences[:at],
        *result.alternative_sentences[at + 1 :],
    ]
    return result.model_copy(
        update={
            "answer": alternative,
            "bridge": alternative,
            "alternatives": others,
            "alternative_sentences": places,
            "passage_id": passage_id,
            "sentence_id": sentence_id,
        }
    )


def resolve_typed(
    index: Index, hop: Hop, results: dict[int, HopResult], ctx: Context
) -> tuple[dict[int, HopResult], list[Evidence], HopReading]:
    """The hop's result (answer and up to two alternatives) and its evidence, answer first.

    The results hold the hop's own and, where the hop read better from a dependency's
    alternative than from its answer, that dependency's result switched to the alternative.
    A hop whose dependency found no answer is not run: it has no subject to ask about.
    """
    if any(
        not (results.get(d) and (results[d].answer or results[d].bridge)) for d in hop.depends_on
    ):
        reading = HopReading(fill_placeholders(hop.question, results, {}), "")
        return (
            {hop.id: HopResult(hop=hop.id, query=reading.query, status="unresolved")},
            [],
            reading,
        )
    reading = read(index, hop, results, ctx, {})
    best = accepted(reading.answers)
    took: tuple[int, str] | None = None
    # a dependency's alternative may be the subject this hop's documents know better: the reading
    # whose best answer stands highest wins (a beam of two over the chain's bridges)
    for dep in hop.depends_on:
        for alternative in (results[dep].alternatives if dep in results else [])[:1]:
            retry = read(index, hop, results, ctx, {dep: alternative})
            found = accepted(retry.answers)
            if found and (not best or _logit(found[0].score) > _logit(best[0].score)):
                reading, best, took = retry, found, (dep, alternative)
    if _ASKS_YEAR.search(reading.query):
        years = [replace(a, text=y[-1]) if (y := _YEAR.findall(a.text)) else a for a in best]
        best = list({a.text: a for a in reversed(years)}.values())[::-1]  # each year once
    evidence = _evidence(hop, reading, best)
    answer = best[0] if best else None
    result = HopResult(
        hop=hop.id,
        query=reading.query,
        status="resolved" if answer else "unresolved",
        subject=reading.subject,
        bridge=answer.text if answer else "",
        units=len(reading.units),
        passages=len(reading.passages),
        answer=answer.text if answer else "",
        alternatives=[a.text for a in best[1:]],
        alternative_sentences=[(a.passage_id, a.sentence_id) for a in best[1:]],
        sentence_id=answer.sentence_id if answer else "",
        passage_id=answer.passage_id if answer else "",
        via=answer.via if answer else "",
    )
    out = {hop.id: result}
    if took:
        out[took[0]] = switched(results[took[0]], took[1])
    return out, evidence, reading


def _evidence(hop: Hop, reading: HopReading, best: list[HopAnswer]) -> list[Evidence]:
    """The answers' sentences, then every other passage the hop read, then its units."""
    by_id = {p.id: p for p in reading.passages}
    lead = list(dict.fromkeys(a.passage_id for a in best if a.passage_id in by_id))
    # The passages that write an answered hop's answers come first; what else it read ranks
    # after every hop's answers ("read"), so a later hop's answer is not pushed down by it.
    order = list(dict.fromkeys(lead + [p.id for p in reading.passages]))
    sentence_of = {a.passage_id: a.sentence_id for a in reversed(best)}
    out = []
    for rank, pid in enumerate(order):
        passage = by_id[pid]
        sid = sentence_of.get(pid) or passage.sentences[0].id
        quote = next(s.text for s in passage.sentences if s.id == sid)
        out.append(
            Evidence(
                id=pid,
                passage_id=pid,
                sentence_ids=[sid],
                quote=quote,
                score=round(1.0 - rank / (len(order) + 1), 4),
                hop=hop.id,
                route="answer" if rank < len(lead) else "read" if lead else "dense",
            )
        )
    for hit in reading.units:
        unit = hit.unit
        if lead and unit.passage_id not in lead:
            continue
        out.append(
            Evidence(
                id=unit.id,
                passage_id=unit.passage_id,
                sentence_ids=unit.sentence_ids,
                quote=unit.evidence,
                score=round(hit.score, 4),
                hop=hop.id,
                route="units",
            )
        )
    return out
