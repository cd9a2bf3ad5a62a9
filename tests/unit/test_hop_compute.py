"""Computed hops that compare numbers: counts and measures read from the hops' answers."""

import pytest

from resin.agent.answering.hop_compute import compute, parse_amount
from resin.agent.state import Hop, HopResult


@pytest.mark.parametrize(
    ("text", "amount"),
    [
        ("1,234", (1234.0, "")),
        ("3.5 million", (3_500_000.0, "")),
        ("about 4,080 ft", (4080 * 0.3048, "length")),
        ("1,243 metres (4,080 ft)", (1243.0, "length")),
        ("five members", (5.0, "")),
        ("12 km²", (12.0, "area")),
        ("someone", None),
        ("", None),
    ],
)
def test_a_short_answer_gives_its_number_and_what_it_measures(text, amount):
    found = parse_amount(text)
    assert found == (pytest.approx(amount[0]), amount[1]) if amount else found is None


def _step(question: str, how: str) -> Hop:
    return Hop(
        id=3, question=question, depends_on=[1, 2], compute=how, options=["Orla Venn", "Tam Reed"]
    )


def _answers(first: str, second: str) -> dict[int, HopResult]:
    return {
        i: HopResult(hop=i, query="", status="resolved", subject=s, answer=a)
        for i, (s, a) in enumerate((("Orla Venn", first), ("Tam Reed", second)), 1)
    }


@pytest.mark.parametrize(
    ("how", "first", "second", "winner"),
    [
        ("most", "12,400", "3.1 million", "Tam Reed"),
        ("most", "four", "3", "Orla Venn"),
        ("least", "6 ft", "1.9 m", "Orla Venn"),  # 1.83 m against 1.9 m
        ("most", "4,080 ft", "1,300 m", "Tam Reed"),  # 1,244 m against 1,300 m
        ("most", "1,200 m", "40%", ""),  # a length and a share: not like with like
        ("most", "1,200", "", ""),  # a number missing: unsettled
        ("least", "7", "7", ""),  # equal: unsettled
    ],
)
def test_the_option_with_the_most_or_the_least_is_picked(how, first, second, winner):
    step = _step("Which band has more members, Orla Venn or Tam Reed?", how)
    assert compute(step, _answers(first, second))[0] == winner


def test_asked_as_yes_or_no_the_number_comparison_says_whether_the_claim_holds():
    step = _step("Is Orla Venn taller than Tam Reed?", "most")
    assert compute(step, _answers("1.91 m", "1.80 m"))[0] == "yes"
    assert compute(step, _answers("5 ft 9 in", "1.80 m"))[0] == "no"
    assert compute(step, _answers("", "1.80 m"))[0] == ""


@pytest.mark.parametrize(
    ("first", "second", "winner"),
    [
        ("yes", "no", "Orla Venn"),
        ("no", "yes", "Tam Reed"),
        ("yes", "", "Orla Venn"),
        ("yes", "yes", ""),
        ("no", "no", ""),
        ("", "", ""),
    ],
)
def test_a_choice_is_the_one_option_its_yes_or_no_hop_says_yes_to(first, second, winner):
    step = _step("Which singer, Orla Venn or Tam Reed, is a member of Fuel?", "chosen")
    assert compute(step, _answers(first, second))[0] == winner


@pytest.mark.parametrize(
    ("first", "second", "same"),
    [
        ("American", "United States", "yes"),  # a nationality and its country's name
        ("British", "United Kingdom", "yes"),
        ("Nigerian", "Niger", "no"),  # the longest stem: Nigeria's adjective, not Niger's
        ("Austrian", "Australia", "no"),
        ("Dutch", "Netherlands", "yes"),  # an adjective no ending rule reaches
        ("Italy", "Italian", "yes"),
        ("Canadian", "American", "no"),
    ],
)
def test_values_that_name_one_country_are_the_same(first, second, same):
    step = _step("Are Orla Venn and Tam Reed of the same nationality?", "same")
    assert compute(step, _answers(first, second))[0] == same
