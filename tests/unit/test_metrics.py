"""Answer and retrieval metrics, scored as the official scripts score them."""

import pytest

from resin.evals import metrics


@pytest.mark.parametrize(
    ("raw", "normalized"),
    [
        ("The Eiffel Tower!", "eiffel tower"),
        ("  an   apple,  a pear ", "apple pear"),
        ("U.S.A.", "usa"),
        ("Theater", "theater"),  # 'the' only as a whole word
        ("1,755", "1755"),
    ],
)
def test_normalize_answer_follows_the_official_script(raw, normalized):
    assert metrics.normalize_answer(raw) == normalized


def test_exact_match_and_f1():
    assert metrics.exact_match("the Eiffel Tower", ["Eiffel Tower"]) == 1.0
    assert metrics.exact_match("Eiffel Tower in Paris", ["Eiffel Tower"]) == 0.0
    f1, precision, recall = metrics.f1_parts("Eiffel Tower in Paris", "Eiffel Tower")
    assert (precision, recall) == (0.5, 1.0)
    assert f1 == pytest.approx(2 / 3)
    assert metrics.f1("Paris", ["London", "paris"]) == 1.0  # best over references
    assert metrics.f1("nothing shared", ["Eiffel Tower"]) == 0.0


def test_yes_no_answers_score_zero_unless_equal():
    assert metrics.f1("yes", ["no"]) == 0.0
    assert metrics.f1("yes", ["yes sir"]) == 0.0
    assert metrics.f1("Yes.", ["yes"]) == 1.0


def test_citations_are_removed_before_scoring():
    answer = "It was founded in 1755 [1] by Lomonosov [2, 3] [p3f2a9c1d0e4b5a6]."
    assert metrics.strip_citations(answer) == "It was founded in 1755 by Lomonosov."
    assert metrics.contains_answer(metrics.strip_citations(answer), ["1755"]) == 1.0
    assert metrics.contains_answer("in 17550", ["1755"]) == 0.0


def test_choice_accuracy_maps_a_free_answer_to_the_closest_choice():
    choices = ["sand", "local weather conditions", "forests"]
    assert metrics.closest_choice("It is described by local weather conditions.", choices) == 1
    assert metrics.choice_correct("local weather", choices, 1) == 1.0
    assert metrics.choice_correct("forests", choices, 1) == 0.0
    assert metrics.closest_choice("nothing alike", choices) is None


def test_recall_and_all_gold_at_k():
    ranked = ["a", "x", "b", "y"]
    assert metrics.recall_at_k(ranked, ["a", "b"], 1) == 0.5
    assert metrics.recall_at_k(ranked, ["a", "b"], 3) == 1.0
    assert metrics.all_gold_at_k(ranked, ["a", "b"], 2) == 0.0
    assert metrics.all_gold_at_k(ranked, ["a", "b"], 3) == 1.0
    assert metrics.recall_at_k(ranked, [], 3) == 0.0


def test_context_recall_cosine_and_percentiles():
    assert metrics.context_recall({"s1", "s3"}, ["s1", "s2"]) == 0.5
    assert metrics.cosine([1, 0], [1, 0]) == pytest.approx(1.0)
    assert metrics.cosine([1, 0], [0, 1]) == pytest.approx(0.0)
    assert metrics.percentile([1, 2, 3, 4], 50) == 2.5
    assert metrics.percentile([], 95) is None
