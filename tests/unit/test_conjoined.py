"""A question that names its answer by two facts asks each fact, then what both give."""

from resin.agent.planning import decompose


def questions(question):
    return [h.question for h in decompose(question)]


def test_two_predicates_joined_by_and_are_two_hops_and_a_shared_answer():
    hops = decompose("What novel was written by Tomas Brell and won the Harlan Prize?")
    assert [h.question for h in hops[:2]] == [
        "What novel was written by Tomas Brell?",
        "What novel won the Harlan Prize?",
    ]
    assert hops[0].subject == "Tomas Brell" and hops[1].subject == "Harlan Prize"
    assert hops[2].compute == "common" and hops[2].depends_on == [1, 2]


def test_a_verb_the_parse_reads_as_a_noun_still_opens_the_second_predicate():
    assert questions("Which film was directed by Ana Lind and stars Peter Vosk?")[:2] == [
        "Which film was directed by Ana Lind?",
        "Which film stars Peter Vosk?",
    ]


def test_a_number_or_a_nationality_is_no_subject_of_a_fact():
    hops = decompose("Which painter was born in 1901 and has a Danish father?")
    assert [h.subject for h in hops[:2]] == ["", ""]


def test_an_and_inside_a_clause_or_a_description_joins_no_predicates():
    hops = decompose("Who owns the team that won the Orrin Cup and was founded by Ida Welk?")
    assert not any(h.compute == "common" for h in hops)
    hops = decompose("Which city contains a school opened by Ida Welk and named after Orrin?")
    assert not any(h.compute == "common" for h in hops)


def test_a_question_asking_of_another_subject_is_no_conjunction():
    assert decompose("What did Ida Welk write and Tomas Brell publish?") == []


def test_one_predicate_over_both_names_is_a_hop_per_name():
    hops = decompose("What studio produced both Red Harbor and The Quiet Orchard?")
    assert [h.question for h in hops[:2]] == [
        "What studio produced Red Harbor?",
        "What studio produced The Quiet Orchard?",
    ]
    assert hops[2].compute == "common"


def test_in_common_hops_ask_what_each_name_is_associated_with():
    assert questions("Which sport do Ida Welk and Tomas Brell have in common?")[:2] == [
        "Which sport is Ida Welk associated with?",
        "Which sport is Tomas Brell associated with?",
    ]


def test_both_names_as_subjects_are_asked_one_at_a_time():
    hops = decompose("Ida Welk and the Orrin Quartet are both examples of what?")
    assert [h.question for h in hops[:2]] == [
        "What is Ida Welk an example of?",
        "What is Orrin Quartet an example of?",
    ]
    assert [h.subject for h in hops[:2]] == ["Ida Welk", "Orrin Quartet"]
    assert hops[2].compute == "common"


def test_both_subjects_without_an_auxiliary_take_do_support():
    assert questions("Ida Welk and Tomas Brell both specialize in what sport?")[:2] == [
        "In what sport does Ida Welk specialize?",
        "In what sport does Tomas Brell specialize?",
    ]


def test_both_subjects_that_are_no_names_are_no_intersection():
    assert decompose("Cats and dogs are both examples of what?") == []
