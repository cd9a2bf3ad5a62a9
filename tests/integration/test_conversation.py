"""A two-turn conversation on the sample corpus with the embedded 135M model."""

import pytest

from ..conftest import FIRST, FOLLOW_UP, two_turns

pytestmark = pytest.mark.slow


def test_the_embedded_model_reads_a_follow_up_with_the_previous_turn(sample_index):
    from resin.agent.llm import make_chat_model

    (first, _), (second, events) = two_turns(sample_index, make_chat_model("embedded"))
    assert first["question"] == FIRST == first["asked"]
    answer = first["answer"]
    plan = next(e for e in events if e.get("event") == "plan")
    assert plan["question"] == second["question"]
    if answer == "Hessa Varn":  # the designer: "she" is her
        assert second["question"] == "Where was Hessa Varn born?"
        assert second["asked"] == FOLLOW_UP
    else:  # the model may only put a person of the previous turn in, or keep the question
        assert second["question"] in (FOLLOW_UP, FOLLOW_UP.replace("she", answer))
