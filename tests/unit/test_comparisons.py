"""The planner's comparisons: by dates, by a count or a measure, asked as yes or no, "the same"."""

import pytest

from resin.agent.planning import compared_options, decompose


def test_comparison_gives_a_date_hop_per_option_and_a_computed_step():
    hops = decompose("Which film came out first, The Gentle Gunman or A Maori Maid'S Love?")
    assert [h.answer_type for h in hops[:2]] == ["date", "date"]
    assert hops[0].subject == "The Gentle Gunman" and hops[1].subject == "A Maori Maid'S Love"
    assert hops[2].compute == "earliest" and hops[2].depends_on == [1, 2]
    assert hops[2].options == ["The Gentle Gunman", "A Maori Maid'S Love"]


@pytest.mark.parametrize(
    ("question", "first", "compute"),
    [
        (
            "Is the Orrin Dam older than the Brannock Mill?",
            "When did the Orrin Dam begin?",
            "earliest",
        ),
        ("Was Osric Vane born before Ilsa Moran?", "When was Osric Vane born?", "earliest"),
        ("Did Heat come out after The Ladder?", "When did Heat come out?", "latest"),
    ],
)
def test_a_comparison_asked_as_yes_or_no_keeps_the_claimed_option_first(question, first, compute):
    hops = decompose(question)
    assert hops[0].question == first and len(hops) == 3
    assert hops[2].compute == compute and hops[2].question == question
    assert compared_options(question.rstrip("?"))[1][0] in first


@pytest.mark.parametrize(
    ("question", "first", "compute"),
    [
        ("Which band has more members, Orla Venn or Tam Reed?",
         "How many members does Orla Venn have?", "most"),
        ("Which has fewer species, Orrinia or Velloa?", "How many species does Orrinia have?",
         "least"),
        ("Who has released more solo albums, Osric Vane or Ilsa Moran?",
         "How many solo albums has Osric Vane released?", "most"),
        ("Which river flows through more states, the Orrin River or the Brannock?",
         "How many states does the Orrin River flow through?", "most"),
        ("Which city has a larger population, Orrinford or Brannock?",
         "What is the population of Orrinford?", "most"),
        ("Which town is more populous, Orrinford or Brannock?",
         "What is the population of Orrinford?", "most"),
        ("Who is taller, Osric Vane or Ilsa Moran?", "What is the height of Osric Vane?", "most"),
        ("Which peak is lower, Mount Orrin or Brannock Peak?",
         "What is the height of Mount Orrin?", "least"),
        ("Which is longer, the Orrin Canal or the Brannock Canal?",
         "What is the length of the Orrin Canal?", "most"),
    ],
)  # fmt: skip
def test_a_comparison_by_a_quantity_asks_each_options_number(question, first, compute):
    hops = decompose(question)
    assert hops[0].question == first and len(hops) == 3
    assert [h.answer_type for h in hops[:2]] == ["number", "number"]
    assert hops[2].compute == compute and hops[2].depends_on == [1, 2]


@pytest.mark.parametrize(
    ("question", "first", "second"),
    [
        ("Is Osric Vane taller than Ilsa Moran?", "What is the height of Osric Vane?",
         "What is the height of Ilsa Moran?"),
        ("Does Orla Venn have more members than Tam Reed?",
         "How many members does Orla Venn have?", "How many members does Tam Reed have?"),
        ("Does Orrinford have a larger population than Brannock?",
         "What is the population of Orrinford?", "What is the population of Brannock?"),
        ("Does La fida ninfa have fewer acts than Orrin Vale?",
         "How many acts does La fida ninfa have?", "How many acts does Orrin Vale have?"),
    ],
)  # fmt: skip
def test_a_quantity_comparison_asked_as_yes_or_no_keeps_the_claimed_option_first(
    question, first, second
):
    hops = decompose(question)
    assert [h.question for h in hops[:2]] == [first, second]
    assert hops[2].question == question and hops[2].compute in ("most", "least")


@pytest.mark.parametrize(
    "question",
    [
        "Which is larger, Orrinford or Brannock?",  # no measure said
        "Who was a more acclaimed guitarist, Osric Vane or Ilsa Moran?",  # nothing counted
        "Which director had the longer career, Osric Vane or Ilsa Moran?",  # not their length
    ],
)
def test_a_comparison_that_names_no_quantity_is_not_planned_by_one(question):
    assert not any(h.compute in ("most", "least") for h in decompose(question))


def test_bridge_comparison_asks_each_options_director_then_the_date():
    hops = decompose(
        "Which film has the director who died earlier, Slums Of Berlin or Phantom India?"
    )
    assert [(h.relation, h.subject) for h in hops[:4]] == [
        ("director", "Slums Of Berlin"),
        ("died", "#1"),
        ("director", "Phantom India"),
        ("died", "#3"),
    ]
    assert hops[4].compute == "earliest" and hops[4].depends_on == [2, 4]


def test_same_country_both_and_in_common():
    same = decompose("Are both Alex Bregman and Francesca Sterlacci from the same country?")
    assert [h.subject for h in same[:2]] == ["Alex Bregman", "Francesca Sterlacci"]
    assert same[2].compute == "same"
    both = decompose("Are John le Carré and Tim Winton both novelists?")
    assert [h.question for h in both[:2]] == [
        "Are John le Carré novelists?",
        "Are Tim Winton novelists?",
    ]
    assert both[2].compute == "all"
    nationality = decompose("Are both Orla Venn and Hessa Varn American?")
    assert [h.question for h in nationality[:2]] == [
        "Are Orla Venn American?",
        "Are Hessa Varn American?",
    ]
    common = decompose("Which actor do Heat and Ronin have in common?")
    assert common[2].compute == "common" and common[0].answer_type == "person"


@pytest.mark.parametrize(
    "question, options",
    [
        ("Was Recep Çetin or Kim Ho born first?", ["Recep Çetin", "Kim Ho"]),
        (
            "Who was born first out of Felix Cicaterri and Rajiv Gandhi?",
            ["Felix Cicaterri", "Rajiv Gandhi"],
        ),
        (
            "Which film was released more recently, Sikuru Hathe or Daughters, Daughters?",
            ["Sikuru Hathe", "Daughters, Daughters"],
        ),
    ],
)
def test_options_hold_commas_and_sit_anywhere(question, options):
    assert compared_options(question.rstrip("?"))[1] == options


@pytest.mark.parametrize(
    ("question", "first"),
    [
        (
            "Which musician, Orla Venn or Tam Reed, is a member of the band Fuel?",
            "Is Orla Venn a member of the band Fuel?",
        ),
        ("Who was a civil engineer, Hessa Varn or Oren Thale?", "Was Hessa Varn a civil engineer?"),
        (
            "Which of these universities, Orrin College or Brannock University, have a campus abroad?",
            "Does Orrin College have a campus abroad?",
        ),
        (
            "Which fish, the silverfin or the salmon, is a kind of mountain char?",
            "Is the silverfin a kind of mountain char?",
        ),
        (
            "Which writer of French descent actually lived in France, Orla Venn or Tam Reed?",
            "Did Orla Venn actually live in France?",
        ),
        ("Which novelist, Orla Venn or Tam Reed, writes of war?", "Does Orla Venn write of war?"),
    ],
)
def test_a_choice_by_a_claim_asks_each_option_yes_or_no(question, first):
    hops = decompose(question)
    assert [h.question for h in hops[:1]] == [first] and len(hops) == 3
    assert hops[2].compute == "chosen" and hops[2].depends_on == [1, 2]
    assert hops[1].question.replace(hops[1].subject, hops[0].subject) == first


def test_a_predicate_after_the_options_is_the_comparisons_lead():
    hops = decompose("Which board game, Attack! or Can't Stop, was published first?")
    assert [h.question for h in hops[:2]] == [
        "When was Attack! published?",
        "When was Can't Stop published?",
    ]
    assert hops[2].compute == "earliest"


@pytest.mark.parametrize(
    "question",
    [
        "Which film was not an animated film, Orla Venn or Tam Reed?",  # a denial
        "Which band was formed in a country closer to England, Orla Venn or Tam Reed?",  # ranks
        "What label was responsible for who sang or played Delta Hardware?",  # no options
        "Which band did Orla Venn join, Fuel or Heat?",  # the question word is the object
        "Which cocktail's name describes its look, Blue Hawaii or Baby Guinness?",  # its name's
    ],
)
def test_a_claim_that_denies_or_ranks_is_no_choice(question):
    assert all(h.compute != "chosen" for h in decompose(question))


@pytest.mark.parametrize(
    ("question", "first"),
    [
        (
            "Between the two film makers Orla Venn and Tam Reed, who was born earlier?",
            "When was Orla Venn born?",
        ),
        (
            "Between the two operas, Mosè in Egitto and Lucrezia Borgia, which one has more acts?",
            "How many acts does Mosè in Egitto have?",
        ),
    ],
)
def test_options_named_before_the_question_word(question, first):
    hops = decompose(question)
    assert hops[0].question == first and len(hops) == 3 and hops[2].compute
