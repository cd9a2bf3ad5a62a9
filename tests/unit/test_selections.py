"""Superlative and ordinal descriptions inside a question are hops of their own."""

from resin.agent.planning import decompose


def questions(question):
    return [h.question for h in decompose(question)]


def test_a_superlative_description_with_its_range_is_a_hop():
    hops = decompose("What is the motto of the oldest public college in Vermora?")
    assert [h.question for h in hops] == [
        "What is the oldest public college in Vermora?",
        "What is the motto of #1?",
    ]
    assert hops[0].subject == "Vermora" and hops[1].depends_on == [1]


def test_an_ordinal_description_is_a_hop():
    assert questions("The second novel in the Harrow Cycle won what prize?") == [
        "What is the second novel in the Harrow Cycle?",
        "What prize did #1 win?",
    ]


def test_a_superlative_that_is_the_whole_question_or_names_nothing_is_no_hop():
    assert decompose("What is the largest lake in Vermora?") == []
    assert decompose("Who painted the oldest house in the street?") == []
