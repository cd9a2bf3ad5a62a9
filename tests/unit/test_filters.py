"""A question phrase whose modifier selects candidates asks the modifier and the predicate apart."""

from resin.agent.planning import decompose


def questions(question):
    return [h.question for h in decompose(question)]


def test_a_placed_candidate_and_the_predicate_are_hops_with_a_shared_answer():
    hops = decompose("Which singer in the band Red Orchard is also in the film Low Tide?")
    assert [h.question for h in hops[:2]] == [
        "Which singer is in the band Red Orchard?",
        "Which singer is also in the film Low Tide?",
    ]
    assert hops[0].subject == "Red Orchard" and hops[1].subject == "Low Tide"
    assert hops[2].compute == "common" and hops[2].depends_on == [1, 2]


def test_a_participle_modifier_is_asked_in_the_predicate_s_tense():
    assert questions("What novel written by Ida Welk won the Harlan Prize?")[:2] == [
        "What novel was written by Ida Welk?",
        "What novel won the Harlan Prize?",
    ]


def test_a_predicate_with_its_own_subject_keeps_its_do_support():
    assert questions("What castle near Orrin did Tomas Brell inherit?")[:2] == [
        "What castle was near Orrin?",
        "What castle did Tomas Brell inherit?",
    ]


def test_a_modifier_naming_nothing_or_joining_phrases_is_no_filter():
    assert decompose("What race track in the midwest hosts a long race every May?") == []
    assert decompose("Which team in Orrin and Castor won the Harlan Cup?") == []


def test_a_place_or_time_that_names_no_name_sets_the_question_and_selects_nothing():
    hops = decompose("What news program in 2013 did Ida Welk host?")
    assert not any(h.compute == "common" for h in hops)


def test_a_capitalized_title_word_is_no_subject():
    hops = decompose("What novelist born in Orrin wrote Lost in the Orchard?")
    assert hops[0].subject == "Orrin" and hops[1].subject != "Lost"


def test_adverbs_before_the_predicate_s_verb_and_a_closing_quote_stay_in_the_predicate():
    assert questions('Which singer in the band Red Orchard also appeared in "Low Tide"?')[:2] == [
        "Which singer was in the band Red Orchard?",
        'Which singer also appeared in "Low Tide"?',
    ]


def test_a_relative_clause_on_the_question_phrase_is_a_fact_of_its_own():
    hops = decompose(
        "Tomas Brell played with what drummer who is best known for his work in Red Orchard?"
    )
    assert [(h.question, h.subject) for h in hops[:2]] == [
        ("With what drummer did Tomas Brell play?", "Tomas Brell"),
        ("What drummer is best known for his work in Red Orchard?", "Red Orchard"),
    ]
    assert hops[2].compute == "common" and hops[2].depends_on == [1, 2]
    inside = decompose("Which singer, who was a founding member of Red Orchard, wrote Low Tide?")
    assert [(h.question, h.answer_type) for h in inside[:2]] == [
        ("Which singer wrote Low Tide?", "person"),
        ("Which singer was a founding member of Red Orchard?", "person"),
    ]


def test_a_relative_clause_that_asks_or_names_nothing_is_no_filter():
    # the clause holds the question word: a bridge through the drummer, not two facts
    hops = decompose("Tomas Brell played with a drummer who was born in what city?")
    assert not any(h.compute == "common" for h in hops)
    assert decompose("Tomas Brell played with what drummer who is best known for his work?") == []
