"""Indefinite and long descriptions: "a film directed by X", "a band that X founded"."""

from resin.agent.planning import decompose


def questions(question):
    return [h.question for h in decompose(question)]


def test_an_indefinite_participle_description_is_a_hop():
    assert questions("Who produced a 1987 Italian crime drama directed by Marta Olenko?") == [
        "What is the 1987 Italian crime drama directed by Marta Olenko?",
        "Who produced #1?",
    ]


def test_an_adverb_between_noun_and_participle_keeps_the_description():
    assert questions("Who composed the song originally recorded by Nora Tesh?") == [
        "What is the song originally recorded by Nora Tesh?",
        "Who composed #1?",
    ]


def test_a_description_that_would_cut_a_name_is_no_hop():
    # the small parser ends the participle inside the name ("starring Pelle | Varn")
    assert (
        decompose("Where was the 2011 Danish black comedy film starring Pelle Varn filmed?") == []
    )


def test_a_participle_that_only_names_is_no_hop():
    assert decompose("Who directed a romantic comedy called Sunday Lanes?") == []


def test_an_indefinite_relative_clause_naming_a_name_is_a_hop():
    hops = decompose("Who founded a German car maker that Otto Breit joined in 1950?")
    assert [h.question for h in hops] == [
        "What is the German car maker that Otto Breit joined in 1950?",
        "Who founded #1?",
    ]
    assert hops[0].subject == "Otto Breit"


def test_a_definite_clause_about_a_lower_case_thing_is_a_hop_about_that_thing():
    # documents name diseases and species in lower case: the clause's object is its subject
    hops = decompose("Where did the biologist who first described pale gill fever die?")
    assert [h.question for h in hops] == [
        "Who is the biologist who first described pale gill fever?",
        "Where did #1 die?",
    ]
    assert (hops[0].subject, hops[0].relation, hops[0].answer_type) == (
        "pale gill fever",
        "first described",
        "person",
    )
    # a bare word, a quantity or a pronoun's thing names nothing to look up
    assert decompose("What did the man who won awards study?") == []
    assert decompose("Where is the statue whose replica stands in many landmarks?") == []
    assert decompose("Who owns the stadium that hosted their final?") == []


def test_a_hop_whose_verb_the_parse_took_into_its_description_is_no_plan():
    # the parser reads "fever work" as one noun phrase: "At which field station did #1?" asks
    # nothing, so the question is not planned from that reading
    assert (
        decompose(
            "At which field station did the biologist who first described pale gill fever work?"
        )
        == []
    )


def test_an_indefinite_description_after_be_says_what_the_subject_is():
    assert decompose("Tom Arkell is a painter who studied with Lena Moss.") == []


def test_a_relative_clause_that_asks_is_the_last_hop_not_a_description():
    assert questions("Ada Brill joined a party that held power in Norland until what year?") == [
        "What is the party that Ada Brill joined?",
        "What is the year that #1 held power in Norland until?",
    ]


def test_a_named_participle_in_a_what_question_belongs_to_the_clause():
    assert questions("What conference is the team that is coached by the son of Ray Dunmore?") == [
        "Who is the son of Ray Dunmore?",
        "What is the team that is coached by #1?",
        "What conference is #2?",
    ]


def test_an_of_description_with_a_noun_the_lexicon_lacks_is_a_hop():
    hops = decompose("At which college does the biographer of Edda Marlow teach?")
    assert [h.question for h in hops] == [
        "What is the biographer of Edda Marlow?",
        "At which college does #1 teach?",
    ]
    assert hops[0].subject == "Edda Marlow" and hops[0].relation == "biographer"
    assert questions("What breed of dog is the mascot of Harlow Tech?") == [
        "What is the mascot of Harlow Tech?",
        "What breed of dog is #1?",
    ]


def test_of_phrases_of_parts_events_and_whole_questions_stay_as_written():
    assert decompose("When was the construction of Fort Olbeck finished?") == []
    assert decompose("Who was the last king of the Varrians?") == []
    assert decompose("What is the nickname of the Ostmark Ferry terminal?") == []


def test_a_nationality_or_number_before_a_noun_is_no_name_to_look_up():
    assert decompose("Who founded the Danish band Korvid?") == []  # not "the band of Danish"
    # not "the author of 1987": the production is the clause's
    assert questions("Who is the author of the 1987 production Ilse Varn starred in?") == [
        "What is the 1987 production Ilse Varn starred in?",
        "Who is the author of #1?",
    ]


def test_a_selection_among_relatives_is_one_lookup():
    # "Which sister of X …" picks one of them by the rest of the question: no bridge through X
    assert decompose("Which sister of Ilse Varn married a painter from Oslo?") == []


def test_a_language_before_its_noun_names_nothing_to_look_up():
    assert not any(
        h.subject == "Latin" for h in decompose("Which empire influenced the Latin language?")
    )


def test_a_capitalized_article_is_no_subject_of_a_bridge():
    # the words before the bridge name nothing: no "What is the painter that A film … is based on"
    assert decompose("A film about sailors is based on a painter who lived in what city?") == []


def test_a_relative_clause_set_off_by_commas_is_a_hop():
    assert questions(
        "In what year was the label, whose founder signed Nora Tesh in 2001, sold?"
    ) == [
        "What is the label whose founder signed Nora Tesh in 2001?",
        "In what year was #1 sold?",
    ]


def test_which_before_a_noun_asks_and_opens_no_clause():
    hops = questions("After the war ended in 1945, which rival party did Ada Brill join?")
    assert not any("which rival party" in h for h in hops[:-1])


def test_a_capitalized_title_a_clause_describes_is_a_description():
    hops = decompose("What is the birthplace of the Governor who signed the Harlow Accord?")
    assert [h.question for h in hops] == [
        "Who is the Governor who signed the Harlow Accord?",
        "What is the birthplace of #1?",
    ]
    assert hops[0].subject == "Harlow Accord"


def test_the_subject_of_a_clause_keeps_its_whole_name():
    hops = decompose(
        "In what year was the county that was named after the 3rd Duke of Arlen formed?"
    )
    assert hops[0].subject == "3rd Duke of Arlen"


def test_an_of_description_inside_a_when_clause_is_a_condition_not_a_hop():
    asked = "What does the Corran Mill switch to when the retreat of the Vell Glacier continues?"
    assert not any("retreat" in q for q in questions(asked)[:-1])


def test_a_clause_after_to_whom_describes_the_noun_before_the_preposition():
    hops = decompose("What religion was the martyr to whom the Orrin Gate statue is dedicated?")
    assert [h.question for h in hops] == [
        "Who is the martyr to whom the Orrin Gate statue is dedicated?",
        "What religion was #1?",
    ]


def test_a_clause_after_a_place_name_describes_the_noun_the_place_follows():
    hops = decompose("Who directed the show in Tessel Bay that was first staged in 1993?")
    assert hops[0].question == "What is the show in Tessel Bay that was first staged in 1993?"
    assert hops[-1].question == "Who directed #1?"


def test_a_prefixed_verb_is_parsed_whole_and_written_as_asked():
    hops = decompose("What year was the actor that co-starred with Orla Venn in Grey Harbour born?")
    assert [h.question for h in hops] == [
        "Who is the actor that co-starred with Orla Venn in Grey Harbour?",
        "What year was #1 born?",
    ]
    assert "co-starred" in hops[0].relation


def test_a_kind_the_parse_sets_beside_a_name_is_skipped_to_the_name():
    assert questions('Who is the director of the romantic comedy "Harlow Nights"?') == [
        'Who is the director of "Harlow Nights"?'
    ]
    assert questions("Who is the mother of the famous historical painter Osric Vane?") == [
        "Who is the mother of Osric Vane?"
    ]


def test_a_name_that_opens_a_clause_after_a_kind_is_not_skipped_to():
    # "Tam Varr" is the subject of "took part in", not the production's name
    assert questions("Who is the author of the 1993 production Tam Varr took part in?") == [
        "What is the 1993 production Tam Varr took part in?",
        "Who is the author of #1?",
    ]


def test_where_a_described_thing_is_is_a_hop_of_its_own():
    hops = decompose("Where is the stadium that was named after Osric Vane?")
    assert [h.question for h in hops] == [
        "What is the stadium that was named after Osric Vane?",
        "Where is #1 located?",
    ]
    assert hops[-1].answer_type == "place"
    # where the description already asks for a place, nothing is left to ask
    assert questions("Where is the birthplace of Osric Vane?") == [
        "What is the birthplace of Osric Vane?"
    ]
