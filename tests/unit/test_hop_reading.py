"""The hop-reading benchmark's scoring and tables, on small synthetic rows (no index, no run)."""

import json
from pathlib import Path

from resin.agent.reading import hop_answer
from resin.agent.state import Hop
from resin.evals import hop_reading as hr
from resin.evals.gold_plans import break_question, gold_steps
from resin.indexes.documents import content_hash


def _row(dataset, em, route="sentence", position="1", answer_type="person", failure="", f1=None):
    return hr.Row(
        dataset=dataset,
        question_id="q",
        hop=1,
        scored="hop",
        position=position,
        question="Who is the director of X?",
        relation="director",
        answer_type=answer_type,
        answers=["A"],
        answer="" if route == "none" else "A",
        route=route,
        em=em,
        f1=em if f1 is None else f1,
        gold_read=True,
        answer_read=True,
        gold_rank=1,
        candidates=3,
        failure=failure,
        weights="in-set",
    )


def test_positions_are_dependency_depths():
    plan = [
        Hop(id=1, question="Who directed X?"),
        Hop(id=2, question="Who directed Y?"),
        Hop(id=3, question="Where was #1 born?", depends_on=[1]),
        Hop(id=4, question="Which of #3 and #2?", depends_on=[2, 3]),
    ]
    depth = hr.depths(plan)
    assert depth == {1: 1, 2: 1, 3: 2, 4: 3}
    assert [hr.position_label(depth[h.id]) for h in plan] == ["1", "1", "2", "3+"]


def test_failure_names_the_first_cause():
    assert hr.failure(1.0, 1.0, True, True, 1) == ""
    assert hr.failure(0.0, 0.5, True, True, None) == "partial"
    assert hr.failure(0.0, 0.0, True, False, None) == "answer not read"
    assert hr.failure(0.0, 0.0, True, True, None) == "not a candidate"
    assert hr.failure(0.0, 0.0, False, True, 1) == "below threshold"
    assert hr.failure(0.0, 0.0, True, True, 2) == "outranked"
    assert hr.failure(0.0, 0.0, False, True, 3) == "outranked"
    assert hr.failure(0.0, 0.0, True, True, None, "computed") == "computed wrong"
    assert hr.failure(0.0, 0.0, False, False, None, "unrun") == "earlier step unanswered"
    assert hr.failure(0.0, 0.0, False, False, None, "not executable") == "not executable"


def test_written_reads_whole_words_across_dashes():
    assert hr.written("John Knox (1505–1572) was a Scot.", ["1572"])
    assert hr.written("born in Lodi, New Jersey", ["Lodi, New Jersey"])
    assert not hr.written("John Knox (1505–1572)", ["157"])


def test_summarize_per_set_position_route_and_failure():
    rows = [
        _row("MuSiQue", 1.0),
        _row("MuSiQue", 0.0, position="2", failure="outranked", f1=0.5),
        _row("MuSiQue", 0.0, route="none", position="3+", failure="below threshold"),
        _row("2Wiki", 1.0, route="unit", answer_type="date"),
    ]
    figures = hr.summarize(rows)
    assert figures["MuSiQue"]["all"]["n"] == 3
    assert figures["MuSiQue"]["all"]["em"] == 33.3
    assert figures["MuSiQue"]["all"]["f1"] == 50.0
    assert figures["MuSiQue"]["all"]["answered"] == 66.7
    assert list(figures["MuSiQue"]["position"]) == ["1", "2", "3+"]
    assert figures["MuSiQue"]["route"]["none"]["share"] == 33.3
    assert figures["MuSiQue"]["route"]["sentence"]["em"] == 50.0
    assert figures["MuSiQue"]["failure"] == {"outranked": 1, "below threshold": 1}
    assert figures["2Wiki"]["route"]["unit"] == {
        "n": 1,
        "share": 100.0,
        "em": 100.0,
        "f1": 100.0,
        "answered": 100.0,
        "gold_read": 100.0,
        "answer_read": 100.0,
    }
    assert figures["all"]["all"]["n"] == 4 and figures["all"]["all"]["em"] == 50.0
    assert set(figures["all"]["type"]) == {"person", "date"}


def test_wrong_patterns_most_common_first():
    rows = [
        _row("MuSiQue", 0.0, failure="outranked"),
        _row("MuSiQue", 0.0, failure="outranked"),
        _row("2Wiki", 0.0, answer_type="place", failure="not a candidate"),
        _row("2Wiki", 1.0),
    ]
    patterns = hr.wrong_patterns(rows, limit=5)
    assert patterns[0] == {
        "dataset": "MuSiQue",
        "answer_type": "person",
        "route": "sentence",
        "failure": "outranked",
        "count": 2,
    }
    assert len(patterns) == 2


def test_report_tables_hold_both_weights():
    rows = [_row("MuSiQue", 1.0), _row("MuSiQue", 0.0, failure="outranked")]
    lodo = [_row("MuSiQue", 0.0, failure="outranked"), _row("MuSiQue", 0.0, failure="outranked")]
    figures = {
        "header": {"date": "2026-01-01", "commit": "abc", "machine": "m", "command": "c"},
        "settings": {"limit": 2, "seed": 0, "k": 5, "runs": "evals/runs/hop_reading"},
        "seconds": {"total": 120.0, "index": 10.0, "fits": 100.0, "reading": 10.0},
        "sets": {
            "MuSiQue": {
                "data": "m.jsonl",
                "questions": 1,
                "documents": 4,
                "cases": 2,
                "scored": {"hop": 2},
            }
        },
        "weights": {
            "in-set": {"file": "agent/reading/hop_ranking.json", "fitted": "on all"},
            "lodo": {"MuSiQue": {"fitted": "on the others"}},
            "lodo_cached": True,
        },
        "scores": {"in-set": hr.summarize(rows), "LODO": hr.summarize(lodo)},
        "patterns": hr.wrong_patterns(rows),
    }
    text = hr.report_markdown(figures)
    assert "- commit: abc" in text and "- command: `c`" in text
    assert "(cached)" in text and "run time: 2.0 min" in text
    assert "| MuSiQue | 2 | 50.0 | 50.0 | 0.0 | 0.0 | 100.0 | 100.0 | 100.0 |" in text
    assert "| MuSiQue | outranked | 1 | 2 |" in text


def test_ranking_from_swaps_the_weights_and_restores_them(tmp_path: Path):
    shipped = json.loads(hop_answer.WEIGHTS_FILE.read_text(encoding="utf-8"))
    other = dict(shipped, weights=[0.5] * len(shipped["weights"]))
    path = tmp_path / "w.json"
    path.write_text(json.dumps(other), encoding="utf-8")
    with hr.ranking_from(path) as chosen:
        assert chosen.weights == tuple([0.5] * len(shipped["weights"]))
        assert hop_answer.ranking().weights == chosen.weights
    assert list(hop_answer.ranking().weights) == shipped["weights"]


def test_paragraph_doc_follows_the_loader_ids():
    paragraph = {"title": "Paris", "text": "Paris is a city."}
    hashed = f"Paris#{content_hash('Paris', 'Paris is a city.', length=8)}"
    assert hr.paragraph_doc(paragraph, {"Paris"}) == "Paris"
    assert hr.paragraph_doc(paragraph, {"Paris", hashed}) == hashed
    assert hr.paragraph_doc(paragraph, {"Rome"}) is None


def test_gold_steps_keep_answers_and_fill_ins():
    triples = [
        ["Film X", "director", "Ann Lee"],
        ["Film X", "director", "Bo Ek"],
        ["Ann Lee", "place of birth", "Oslo"],
    ]
    steps = gold_steps({"evidence_triples": triples})
    assert [s.answers for s in steps] == [["Ann Lee", "Bo Ek"], ["Oslo"]]
    assert steps[1].hop.depends_on == [1] and steps[1].given == {1: "Ann Lee"}
    chain = {
        "decomposition": [
            {"question": "Film X >> director", "answer": "Ann Lee", "paragraph_support_idx": 3},
            {"question": "#1 >> place of birth", "answer": "Oslo", "paragraph_support_idx": 0},
        ]
    }
    steps = gold_steps(chain)
    assert steps[1].given == {1: "Ann Lee"} and steps[1].support == [0]
    assert steps[1].hop.question == "What is the place of birth of #1?"


def test_break_steps_become_questions():
    assert break_question("who directed #1", "project") == "Who directed #1?"
    assert break_question("actress that X was voiced by", "select") == (
        "What is the actress that X was voiced by?"
    )
    assert break_question("if Vibe is a magazine", "boolean") == "Is Vibe a magazine?"
