"""The question's passages as a pair: the bridge a passage names joins the one the question names."""

from __future__ import annotations

import json

from resin.evals.fit_pairs import fit, pair_example
from resin.indexes.units import ReasoningUnit
from resin.tools.pairs import WEIGHTS_FILE, PairWeights, best_pair, pair_weights, paired_passages
from resin.tools.retrieval import search_passages

from ..fakes import FakeIndex

TITLES = {"a": "orrin dam", "b": "hessa varn", "c": "tessel river"}


def test_a_link_between_two_passages_outweighs_a_slightly_closer_third():
    similarity = {"a": 0.60, "b": 0.40, "c": 0.45}
    mentions = {"a": {"hessa varn"}, "b": set(), "c": set()}
    unlinked = best_pair(similarity, TITLES, mentions, set(), PairWeights(0.0, 0.0))
    assert unlinked == ("a", "c")  # by meaning alone: the two nearest
    linked = best_pair(similarity, TITLES, mentions, set(), PairWeights(0.2, 0.0))
    assert linked == ("a", "b")  # the dam's page names the engineer's page: the bridge


def test_a_title_the_question_names_counts_for_its_passage():
    similarity = {"a": 0.30, "b": 0.50, "c": 0.35}
    mentions: dict[str, set[str]] = {"a": set(), "b": set(), "c": set()}
    weights = PairWeights(0.0, 0.1)
    assert best_pair(similarity, TITLES, mentions, {"orrin dam"}, weights) == ("b", "a")
    assert best_pair({"a": 0.3}, TITLES, mentions, set(), weights) is None


def test_paired_passages_bring_the_bridge_page_into_the_first_two():
    index = FakeIndex()
    dam = index.add(
        "Orrin Dam",
        "The Orrin Dam holds the Tessel River above Lindmoor. It was designed by Hessa Varn.",
        [
            ReasoningUnit(
                kind="entity-fact",
                subject="Hessa Varn",
                predicate="designed",
                object="Orrin Dam",
                evidence="It was designed by Hessa Varn.",
            )
        ],
    )
    varn = index.add("Hessa Varn", "Hessa Varn was a civil engineer from Caldmere.")
    index.add("Tessel River", "The Tessel River was a river of the north.")
    index.add("Orrin Lake", "Orrin Lake was a glacier lake.")
    question = "Where was the engineer of the Orrin Dam from?"
    plain = [h.passage_id for h in search_passages(index, question, 5)]
    paired = [
        h.passage_id for h in paired_passages(index, question, search_passages(index, question, 5))
    ]
    assert sorted(paired) == sorted(plain)  # the same passages, in another order
    assert dam[0].id in paired[:2] and varn[0].id in paired[:2]
    nearest = [pid for pid, _ in index.search_passages(question, 5)]
    assert nearest.index(varn[0].id) > 1  # by meaning alone it is among the last


def test_the_shipped_weights_were_fit_by_the_command_they_name():
    shipped = json.loads(WEIGHTS_FILE.read_text(encoding="utf-8"))
    assert shipped["command"].startswith("python -m resin.evals.fit_pairs")
    assert pair_weights() == PairWeights(shipped["link"], shipped["named"])
    assert all(
        row["pair_recall_at_2"] >= row["dense_recall_at_2"]
        for row in shipped["cross_validated"].values()
    )


def _record(qid: str) -> dict[str, object]:
    return {
        "id": qid,
        "question": "Where was the designer of the Orrin Dam born?",
        "paragraphs": [
            {
                "title": "Orrin Dam",
                "text": "The Orrin Dam was designed by Hessa Varn.",
                "is_supporting": True,
            },
            {"title": "Hessa Varn", "text": "She was born in Caldmere.", "is_supporting": True},
            {
                "title": "Orrin Lake",
                "text": "Orrin Lake is a lake in the hills, popular with anglers.",
                "is_supporting": False,
            },
        ],
    }


def test_the_fit_reads_links_and_names_from_the_paragraphs(tmp_path):
    example = pair_example(_record("q1"), "toy")
    assert example is not None
    assert example.mentions["q1#0"] == {"hessa varn"} and example.named == {"orrin dam"}
    data = tmp_path / "toy.jsonl"
    data.write_text("\n".join(json.dumps(_record(f"q{i}")) for i in range(10)) + "\n")
    out = tmp_path / "weights.json"
    report = fit([data], out)
    assert json.loads(out.read_text())["link"] == report["link"]
    row = report["cross_validated"]["toy"]
    assert row["questions"] == 10 and row["pair_recall_at_2"] == 100.0
