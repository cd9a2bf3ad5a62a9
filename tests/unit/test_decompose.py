"""The parse-based planner: real hops with placeholders, relation phrases and answer types."""

import re

import pytest

from resin.agent.planning import decompose, describe_hop, single_hop
from resin.agent.planning.bridges import main_verb
from resin.agent.planning.declaratives import front
from resin.agent.planning.names import Plan, asks_nothing


def shape(question):
    return [
        (h.question, h.subject, h.answer_type, h.compute, h.depends_on) for h in decompose(question)
    ]


def test_nested_descriptions_become_hops_innermost_first():
    hops = decompose("Where was the place of birth of the director of film Six Months Of Life?")
    assert [h.question for h in hops] == [
        "Who is the director of Six Months Of Life?",
        "What is the place of birth of #1?",
    ]
    assert [h.answer_type for h in hops] == ["person", "place"]
    assert hops[1].depends_on == [1] and hops[1].subject == "#1"
    assert hops[0].relation == "director" and hops[1].relation == "place of birth"


def test_a_description_inside_the_question_leaves_its_own_hop():
    hops = decompose("Where was the father of Daniel Carasso born?")
    assert [h.question for h in hops] == [
        "Who is the father of Daniel Carasso?",
        "Where was #1 born?",
    ]
    assert hops[1].answer_type == "place" and hops[1].depends_on == [1]


def test_kin_terms_are_two_relations_in_a_row():
    hops = decompose("Who is Ieuan Ab Owain Glyndŵr's paternal grandfather?")
    assert [h.relation for h in hops] == ["father", "father"]
    assert hops[0].subject == "Ieuan Ab Owain Glyndŵr" and hops[1].subject == "#1"
    in_law = decompose("Who is the father-in-law of Marcus Vinicius?")
    assert [h.relation for h in in_law] == ["spouse", "father"]


def test_possessive_and_relative_clause_chains():
    hops = decompose("What is the busiest airport in the city where Marcel Bich died?")
    assert hops[0].question == "What is the city where Marcel Bich died?"
    assert hops[0].subject == "Marcel Bich" and hops[0].answer_type == "place"
    assert hops[1].question == "What is the busiest airport in #1?"
    spouse = decompose("Who is the spouse of the performer of Still?")
    assert [h.answer_type for h in spouse] == ["person", "person"]
    assert spouse[0].question == "Who is the performer of Still?"


def test_clauses_after_a_preposition_or_with_no_relative_word_are_hops():
    league = decompose("Who founded the league in which Orlen City won titles in 1950?")
    assert [h.question for h in league] == [
        "What is the league in which Orlen City won titles in 1950?",
        "Who founded #1?",
    ]
    assert league[0].subject == "Orlen City" and league[1].depends_on == [1]
    company = decompose("Where is the headquarters of the company Orla Venn works for?")
    assert company[0].question == "What is the company Orla Venn works for?"
    assert company[0].subject == "Orla Venn" and company[0].relation == "works for"
    assert company[1].subject == "#1"


def test_the_participle_after_a_clause_belongs_to_the_question():
    hops = decompose("In what year was the college where Orla Venn was a lecturer founded?")
    assert [h.question for h in hops] == [
        "What is the college where Orla Venn was a lecturer?",
        "In what year was #1 founded?",
    ]
    assert hops[1].answer_type == "date"
    # the clause's own verb stays in it where the question has a verb of its own
    team = decompose("Who was the coach of the team that Orla Venn founded?")
    assert team[0].question == "What is the team that Orla Venn founded?"


def test_the_questions_own_participle_phrase_leaves_the_clause_but_the_clause_verb_stays():
    signed = decompose("When was the striker who left the Dabney club signed by Orlen City?")
    assert signed[-1].question == "When was #2 signed by Orlen City?"
    built = decompose("When was the mill that was designed by Orla Venn built?")
    assert [h.question for h in built] == [
        "What is the mill that was designed by Orla Venn?",
        "When was #1 built?",
    ]


def test_a_clause_inside_a_clause_is_read_first():
    hops = decompose("Which country won the war after the conflict Orla Venn fought in?")
    assert [h.question for h in hops] == [
        "What is the conflict Orla Venn fought in?",
        "Which country won the war after #1?",
    ]
    longer = decompose(
        "Who won the race in the largest city by population in the state where Orla Venn lives?"
    )
    assert [h.question for h in longer] == [
        "What is the state where Orla Venn lives?",
        "What is the largest city by population in #1?",
        "Who won the race in #2?",
    ]


def test_a_quoted_title_in_lower_case_is_a_name():
    hops = decompose('Who sang "Harbor Song" with the performer of "lantern Nights"?')
    assert [h.question for h in hops] == [
        'Who is the performer of "lantern Nights"?',
        'Who sang "Harbor Song" with #1?',
    ]


def test_a_title_opening_with_a_foreign_article_runs_on_in_lower_case():
    hops = decompose("Where was the author of Il vento della sera born?")
    assert [h.question for h in hops] == [
        "Who is the author of Il vento della sera?",
        "Where was #1 born?",
    ]
    # a word of the question ends the title: "in", or a verb the parse reads in context
    assert decompose("Where was the architect of La torre in Spain born?")[0].subject == "La torre"


def test_a_nationality_before_a_noun_is_no_name_to_ask_about():
    assert decompose("Where was the British actor born?") == []
    hops = decompose("Where was the Dabney Town actor born?")
    assert [h.question for h in hops] == ["Who is the actor of Dabney Town?", "Where was #1 born?"]


def test_a_civic_office_is_a_relation():
    hops = decompose("Who was the first mayor of Dabney Town?")
    assert [(h.question, h.answer_type) for h in hops] == [
        ("Who is the first mayor of Dabney Town?", "person")
    ]


def test_which_that_asks_and_a_clause_that_is_the_question_make_no_hop():
    assert decompose("The Orlen Park lies in which Dabney county?") == []
    # a name joined by a hyphen is one name: the clause after it is still read
    radio = decompose("From where do buses leave the city KORV-FM serves?")
    assert [h.question for h in radio] == [
        "What is the city KORV-FM serves?",
        "From where do buses leave #1?",
    ]
    assert decompose("When was the last time Orlen City beat Dabney Town?") == []
    # a clause that runs to the question's last verb is still a description when a verb is left
    bridge = decompose("Where is the bridge Hessa Varn designed located?")
    assert [h.question for h in bridge] == [
        "What is the bridge Hessa Varn designed?",
        "Where is #1 located?",
    ]


def test_a_question_without_descriptions_is_not_decomposed():
    causal = "What ultimately happens to the Lantern Run when tailings leak from the Greywell Mine?"
    assert decompose(causal) == []
    assert decompose("Who designed the Orrin Dam?") == []


def test_a_model_written_hop_is_read_for_its_subject_relation_and_type():
    assert describe_hop("Who is the director of Romulus and the Sabines?") == (
        "Romulus and the Sabines",
        "director",
        "person",
    )
    assert describe_hop("In which port was #1 born?")[0] == "#1"
    assert describe_hop("When was Mario Bonnard born?") == ("Mario Bonnard", "born", "date")


def test_the_name_of_a_described_thing_is_that_thing_not_a_hop_of_its_own():
    hops = decompose(
        "What is the name of the castle in the town where the composer of Vell Ardo died?"
    )
    assert [h.question for h in hops][-1] == "What is the name of the castle in #2?"
    assert len(hops) == 3 and hops[-1].depends_on == [2]


def test_a_longer_noun_phrase_in_a_placeholder_is_a_hop_and_a_clause_is_not():
    hops = decompose(
        "What was the population of the second largest city in the state where Orla Venn was born?"
    )
    assert "What is the second largest city in #1?" in [h.question for h in hops]
    clause = decompose("How many times did the flood occur in the birth city of Orla Venn?")
    assert [h.question for h in clause] == [
        "What is the birth city of Orla Venn?",
        "How many times did the flood occur in #1?",
    ]
    assert clause[-1].answer_type == "number"


def test_a_setting_before_the_question_words_goes_to_the_last_hop():
    hops = decompose("In 1900, what was the population of the birth city of Orla Venn?")
    assert [h.question for h in hops] == [
        "What is the birth city of Orla Venn?",
        "What is the population of #1 in 1900?",
    ]
    assert hops[-1].answer_type == "number"
    assert decompose("In which port was Hessa Varn born?") == []  # a question word, no setting


def test_a_clause_a_preposition_takes_whole_is_a_hop():
    hops = decompose("What label was responsible for who sang Copper Lanterns?")
    assert [(h.question, h.answer_type) for h in hops] == [
        ("Who sang Copper Lanterns?", "person"),
        ("What label was responsible for #1?", "organization"),
    ]
    assert hops[0].subject == "Copper Lanterns"
    # "in what province" asks in place: it opens no clause
    assert decompose("Orla Venn was born in what province?") == []


def test_a_bridge_described_before_the_clause_that_asks():
    hops = decompose("Orla Venn was voiced by the actress who won fame on what show?")
    assert [(h.question, h.subject, h.answer_type) for h in hops] == [
        ("Who is the actress that Orla Venn was voiced by?", "Orla Venn", "person"),
        ("On what show did #1 win fame?", "#1", "work"),
    ]
    born = decompose("The Copper Lanterns were written by a poet born in what year?")
    assert [h.question for h in born][-1] == "In what year was #1 born?"
    assert born[-1].answer_type == "date"
    tall = decompose("Lindmoor Fen lies at the foot of a mountain that is how many feet tall?")
    assert [(h.question, h.answer_type) for h in tall][-1] == (
        "How many feet tall is #1?",
        "number",
    )
    this = decompose("Tomas Brell married this painter who was born in what city?")
    assert [h.question for h in this] == [
        "Who is the painter that Tomas Brell married?",
        "In what city was #1 born?",
    ]
    # "X is an area where …" describes X itself: there is no bridge to ask for
    assert decompose("Lindmoor Fen is an area where the heron is seen in what season?") == []


def test_a_hop_is_typed_by_its_relation_when_its_question_words_are_not():
    assert describe_hop("What was Orla Venn's city of birth?")[2] == "place"
    assert describe_hop("What instrument did the actor in Orla play?")[2] == "other"
    assert describe_hop("What was the wettest year in Brenmoor County?")[2] == "date"


def test_a_verb_before_a_relational_noun_is_no_part_of_the_relation():
    # "serves as" is the question's: the relation is "headquarters", and "What serves as #2" asks
    # for #2 itself
    assert [
        h.question for h in decompose("What serves as headquarters of the publisher of Orla?")
    ] == [
        "What is the publisher of Orla?",
        "What is the headquarters of #1?",
    ]


def test_a_reading_whose_hop_lost_the_questions_predicate_is_no_plan():
    # the parse takes "become its own country" into the description: "When did #1?" asks nothing
    assert (
        decompose(
            "When did the town where the head of the diocese named after Saint Orla become its own"
            " country?"
        )
        == []
    )
    # a hop with its own predicate stays
    assert [h.question for h in decompose("When was the director of Orla Nights born?")] == [
        "Who is the director of Orla Nights?",
        "When was #1 born?",
    ]


def test_a_did_question_is_read_at_its_main_verb():
    plan = Plan()
    question = (
        "When did the luxury division of the company that made the Orla Coupe change the body"
        " style of the Vane 350"
    )
    assert main_verb(question, plan)
    assert [(h.question, h.depends_on) for h in plan.hops] == [
        ("What is the company that made the Orla Coupe?", []),
        ("What is the luxury division of #1?", [1]),
        ("When did #2 change the body style of the Vane 350?", [2]),
    ]
    assert plan.hops[-1].answer_type == "date"
    assert asks_nothing("When did #1?") and asks_nothing("How were #2 #1?")
    assert not asks_nothing("When did #2 change the body style of the Vane 350?")


def test_a_declarative_question_word_is_fronted_in_its_hop():
    hops = decompose("The director of Film Morvane Tale was born in what city?")
    assert [h.question for h in hops] == [
        "Who is the director of Morvane Tale?",
        "In what city was #1 born?",
    ]
    assert hops[1].answer_type == "place" and hops[1].depends_on == [1]
    wife = decompose("Orvin Castellane's wife was born where?")
    assert wife[-1].question == "Where was #1 born?" and wife[-1].answer_type == "place"
    film = decompose("Tobin Arle starred in a film directed by whom?")
    assert film[-1].question == "By whom was #1 directed?"


def test_fronting_inverts_the_clause_or_strands_a_noun_s_preposition():
    assert front("#1 was born in what city?") == "In what city was #1 born?"
    assert front("#1 also created what comedy?") == "What comedy did #1 also create?"
    inhabitants = "How many inhabitants in 2011 did #1 have?"
    assert front("#1 had how many inhabitants in 2011?") == inhabitants
    assert front("#1 is how many miles long?") == "How many miles long is #1?"
    # a preposition after a noun stays; so does one a question seldom opens with
    capital = "What is the region that #1 is the capital of?"
    assert front("#1 is the capital of what region?") == capital
    assert front("#1 was built around which drum?") == "What is the drum that #1 was built around?"
    # a bare question word after a noun's preposition: the preposition ends the question
    assert front("#1 is currently the chairman of what?") == "What is #1 currently the chairman of?"
    assert front("#1 became the leader of whom?") == "Whom did #1 become the leader of?"
    # already a question, or a question word inside a clause of its own: nothing to move
    assert front("Where was #1 born?") is None
    assert front("#1 married a singer who won what award?") is None


def test_a_noun_placed_by_a_question_phrase_is_a_bridge():
    dam = decompose("Idra Solvane designed a dam on which river?")
    assert [h.question for h in dam] == [
        "What is the dam that Idra Solvane designed?",
        "On which river is #1?",
    ]
    assert dam[0].subject == "Idra Solvane" and dam[1].answer_type == "place"
    farm = decompose("Idra Solvane owns a farm near which town?")
    assert farm[-1].question == "What is the town that #1 is near?"
    town = decompose("Orvin Castellane was born in a town with how many residents?")
    assert town[-1].question == "How many residents does #1 have?"
    assert town[-1].answer_type == "number"
    # company, not something the noun has; and a noun the subject is, not one it reaches
    assert decompose("Velda Morne starred in a sitcom with what other actor?") == []
    assert decompose("Velmoria is a city in what county?") == []


def test_a_participle_description_is_a_hop():
    hops = decompose("The film directed by Tobin Arle was released in what year?")
    assert [h.question for h in hops] == [
        "What is the film directed by Tobin Arle?",
        "In what year was #1 released?",
    ]
    assert hops[0].subject == "Tobin Arle" and hops[0].answer_type == "work"
    company = decompose("Where was the company founded by Orvin Castellane based?")
    assert [h.question for h in company] == [
        "What is the company founded by Orvin Castellane?",
        "Where was #1 based?",
    ]
    starring = decompose("When did the director of the film starring Velda Morne die?")
    assert [h.question for h in starring][0] == "What is the film starring Velda Morne?"
    # the question's own passive verb, a description that is the whole question, no name
    assert decompose("When was the actor born who starred in Orla Nights?") == []
    assert decompose("What is the film directed by Tobin Arle?") == []
    assert decompose("Who plays for the club founded in 1905?") == []


def test_a_participle_description_with_several_conditions_is_no_hop():
    # "directed by X and starring Y" is an intersection: no one lookup answers it
    assert (
        decompose(
            "When was the comedy film directed by Tobin Arle and starring Velda Morne released?"
        )
        == []
    )


def test_a_clause_that_asks_hangs_on_the_noun_just_before_it():
    # the parse may hang "that focuses on what" on "editor"; the nearer "magazine" is the bridge
    hops = decompose("Ida Welk is the managing editor of the magazine that focuses on what?")
    assert [h.question for h in hops] == [
        "What is the magazine that Ida Welk is the managing editor of?",
        "On what does #1 focus?",
    ]
    lord = decompose(
        "Tomas Brell served as Keeper of the Seals of the Orrin Court under the lord who served "
        "in what position from 1865 to 1868?"
    )
    assert lord[0].question.startswith("Who is the lord that Tomas Brell served as Keeper")
    # an aside between the relative word and its clause: no clean hop to ask
    assert (
        decompose("Lindmoor Fen was painted in a style that, when it uses chalk, is called what?")
        == []
    )


@pytest.mark.parametrize(
    "question, torn",
    [
        # the name modifies the noun "of" takes: the thing asked about is the whole phrase
        (
            "Who is the mother of the Velmora shipping magnate that founded Kestrel Lines?",
            "Velmora",
        ),
        ("Who was the wife of the Orrin Party nomination for Senate in 1931?", "Orrin Party"),
        # the relational noun after the name modifies a later noun
        ("Which northern city hosts the Tarrow college rowing crews?", "Tarrow"),
    ],
)
def test_a_name_that_modifies_a_noun_is_not_what_a_hop_asks_about(question, torn):
    hops = decompose(question)
    assert all(hop.subject != torn for hop in hops), [hop.question for hop in hops]
    assert not any(re.search(r"#\d \w+ (?:magnate|nomination|rowing)", h.question) for h in hops)


def test_a_question_asking_one_thing_of_one_name_is_a_single_hop():
    hop = single_hop("Where did Marlo Venn die?")
    assert hop is not None
    assert (hop.subject, hop.relation, hop.answer_type) == ("Marlo Venn", "die", "place")
    counted = single_hop("How many people live in Tarrow?")
    assert counted is not None and counted.answer_type == "number"
    for question in (
        "Did Marlo Venn die in Tarrow?",
        "Why does the Tarrow Mill close in winter?",
        "Tell me about Marlo Venn.",
        "What is the silverfin?",
        "What is the school in Tarrow named after?",
    ):
        assert single_hop(question) is None, question


def test_a_noun_a_name_describes_is_a_hop_when_no_other_reading_splits():
    hops = decompose("For what film was an actor in Orla Nights nominated for an award?")
    assert [(h.question, h.subject, h.answer_type) for h in hops] == [
        ("Who is an actor in Orla Nights?", "Orla Nights", "person"),
        ("For what film was #1 nominated for an award?", "#1", "work"),
    ]
    # a description that took the question's verb leaves "What movie was #1": no plan
    assert decompose("What movie was the actor born on May 4, 1946 involved in in 1972?") == []
    # nor "When did the place where #1" when it took the clause's verb
    assert (
        decompose(
            "When did the place where the head of the region named after the same saint as the "
            "Orrin Chapel become its own country?"
        )
        == []
    )
    # a name after its kind is that name, not a description
    assert decompose("Which company produced the movie Radio Patrol?") == []
