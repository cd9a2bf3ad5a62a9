"""The hop reader: kin frames, names with their rank, and the fitted order and acceptance."""

from __future__ import annotations

from functools import partial

import numpy as np
import pytest

from resin.agent.context import Context
from resin.agent.language.relations import kin_frame, relation_words
from resin.agent.reading.hop_answer import FEATURES, HopAnswer, accepted, ranking, read_hop
from resin.agent.reading.roles import asked_role, role_in
from resin.agent.reading.signals import hop_head, linked_to, spans_of
from resin.agent.reading.typed_hop import read, resolve_typed
from resin.agent.reading.yes_no import claim_of, judge, page_subject
from resin.agent.state import Hop, HopResult
from resin.evals.fit_ranking import _fit_listwise
from resin.indexes.documents import Passage, Sentence
from resin.indexes.units import normalize

from ..fakes import FakeIndex

BIRTH = (
    "Osric Vane was born in Harlow, eldest son of Aldous Vane, 3rd Duke of Brenmoor "
    "and his second wife Celia Marsh."
)


def _passage(title: str, *sentences: str) -> Passage:
    pid = normalize(title).replace(" ", "-")
    return Passage(
        id=pid,
        doc_id=pid,
        title=title,
        position=0,
        text=" ".join(sentences),
        sentences=tuple(Sentence(f"{pid}::{i}", s) for i, s in enumerate(sentences)),
    )


def _read_texts(own: Passage, kind, question: str, relation: str) -> set[str]:
    """The candidate answers the hop reader gives from its subject's own passage alone."""
    return {a.text for a in read_hop(question, own.title, relation, kind, [own], {own.id})}


@pytest.mark.parametrize(
    ("relation", "answer", "written"),
    [
        ("father", "Aldous Vane, 3rd Duke of Brenmoor", True),
        ("father", "Celia Marsh", False),  # the second parent named is the mother
        ("mother", "Celia Marsh", True),
        ("mother", "Aldous Vane, 3rd Duke of Brenmoor", False),
        ("spouse", "Celia Marsh", True),  # "his second wife Celia Marsh"
        ("director", "Celia Marsh", False),  # no kin relation, no frame
    ],
)
def test_kin_frames_tell_the_parents_apart(relation, answer, written):
    assert kin_frame(relation, normalize(BIRTH), normalize(answer)) is written


def test_a_name_keeps_the_rank_written_after_it_and_a_rank_alone_is_no_name():
    spans = [s for s, _ in spans_of("Her father was Albert III, Count of Namur, a Duke.")]
    assert "Albert III, Count of Namur" in spans
    assert "Duke" not in spans and "Count" not in spans


def test_a_name_is_also_read_with_the_place_it_is_of_and_without_its_rank():
    spans = [
        s
        for s, _ in spans_of(
            "Orla was the daughter of King Osric of Brenmoor and Celia of Harlow, "
            "and married Aldous II of Quillen; Tam Varr of the Harlow Players sang."
        )
    ]
    assert {"Osric of Brenmoor", "King Osric of Brenmoor", "Celia of Harlow"} <= set(spans)
    assert "Aldous II of Quillen" in spans
    assert not [s for s in spans if s.endswith(" of")]
    assert not [s for s in spans if s.startswith("Tam Varr of")]  # a member, not a designation


@pytest.mark.parametrize(
    ("question", "sentence", "right", "wrong"),
    [
        (
            "Who argued that Brenmoor had become an empire?",
            "Osric Vane once argued that Brenmoor had become an empire.",
            "Osric Vane",
            "Brenmoor",
        ),
        (
            "Who suspended the Harlow Council?",
            "The Harlow Council was suspended by President Tam Varr after the coup.",
            "President Tam Varr",
            "Harlow Council",
        ),
        (
            "When did Quillen reinstate the curfew?",
            "Quillen abolished the curfew in a 1964 vote but reinstated it in a 1984 vote.",
            "1984",
            "1964",
        ),
        (
            "Who led the expedition to Harlow?",
            "Celia Marsh, together with her son Aldous Marsh, led the expedition to Harlow.",
            "Celia Marsh",
            "Aldous Marsh",
        ),
    ],
)
def test_the_role_a_hop_asks_for_is_read_against_the_sentences_parse(
    question, sentence, right, wrong
):
    asked = asked_role(question)
    assert asked is not None
    assert role_in(sentence, right, asked) == (True, True)
    assert role_in(sentence, wrong, asked)[1] is False


def test_an_agent_noun_asks_for_the_subject_of_its_verb():
    sentence = (
        "Harlow Nights is a 1939 Western film directed by Osric Vane and starring Celia Marsh."
    )
    asked = asked_role("Who is the director of Harlow Nights?")
    assert asked is not None
    assert role_in(sentence, "Osric Vane", asked) == (True, True)
    assert role_in(sentence, "Celia Marsh", asked) == (False, False)
    writer = asked_role("Who was the writer of the Harlow ballad?")
    assert writer is not None
    assert role_in("The ballad was written by Tam Varr.", "Tam Varr", writer) == (True, True)


def test_a_designated_name_is_read_without_its_title_and_with_its_regnal_number():
    spans = [s for s, _ in spans_of("Mira was the daughter of King Ferdinand of Romania.")]
    assert "Ferdinand of Romania" in spans
    assert "King Ferdinand of Romania" not in spans
    numbered = [s for s, _ in spans_of("He was the son of Aldous I of Quillen and Celia Marsh.")]
    assert "Aldous I of Quillen" in numbered
    assert "Aldous" not in numbered
    assert "Lady Celia" in [s for s, _ in spans_of("Lady Celia sang at the fair.")]


@pytest.mark.parametrize(
    ("sentence", "dates"),
    [
        (
            "Osric Vane (6 June 1906 – 2 November 1994) was a director.",
            {"6 June 1906", "2 November 1994"},
        ),
        ("The siege of Harlow lasted from 1775 to 1786.", {"1775", "1786"}),
        ("It was fought between December 14, 1814 and January 18, 1815.", {"December 14, 1814"}),
    ],
)
def test_a_range_is_read_as_its_dates_never_as_one_answer(sentence, dates):
    found = {s for s, lab in spans_of(sentence) if lab == "DATE"}
    assert dates <= found
    assert not [d for d in found if any(w in f" {d} " for w in ("–", " to ", " and ", "between"))]


def test_a_question_whose_wh_word_is_no_verbs_argument_asks_no_role():
    assert asked_role("What is the place of birth of Osric Vane?") is None


def test_a_range_that_lost_its_dash_gives_both_dates_and_no_run_on_year():
    spans = spans_of("Orla Venn (21 March 192011 January 2010) was a Brenmoorian director.")
    dates = [s for s, lab in spans if lab == "DATE"]
    assert {"21 March 1920", "11 January 2010"} <= set(dates)
    assert not [d for d in dates if "192011" in d]


def test_a_country_of_origin_is_answered_by_the_nationality_written():
    own = _passage("Harlow Nights", "Harlow Nights is a 1939 American Western film.")
    found = _read_texts(
        own, "place", "What is the country of origin of Harlow Nights?", "country of origin"
    )
    assert "American" in found


@pytest.mark.parametrize(
    ("relation", "kind", "right", "wrong"),
    [
        ("place of death", "place", "Le Plessis-Bouchard", "Graz"),
        ("place of birth", "place", "Graz", "Le Plessis-Bouchard"),
        ("date of death", "date", "2 November 1994", "6 June 1906"),
        ("date of birth", "date", "6 June 1906", "2 November 1994"),
    ],
)
def test_a_lifes_range_answers_a_birth_from_its_start_and_a_death_from_its_end(
    relation, kind, right, wrong
):
    own = _passage(
        "Osric Vane",
        "Osric Vane (6 June 1906, Graz – 2 November 1994, Le Plessis-Bouchard) was a director.",
    )
    found = _read_texts(own, kind, f"What is the {relation} of Osric Vane?", relation)
    assert right in found
    assert wrong not in found


def test_a_nationality_of_birth_is_no_citizenship():
    own = _passage("Noel Vane", "Noel Vane (born 1969) is a Canadian-born French film director.")
    found = _read_texts(
        own, "place", "What is the country of citizenship of Noel Vane?", "country of citizenship"
    )
    assert "French" in found
    assert "Canadian" not in found


@pytest.mark.parametrize(
    ("relation", "answer"),
    [("father", "Aldous Vane, 3rd Duke of Brenmoor"), ("mother", "Celia Marsh")],
)
def test_a_parent_hop_reads_the_parent_its_frame_names(relation, answer):
    own = _passage("Osric Vane", BIRTH, "He served as a judge in Harlow.")
    found = read_hop(
        f"Who is the {relation} of Osric Vane?", "Osric Vane", relation, "person", [own], {own.id}
    )
    assert found and found[0].text == answer
    assert found[0].features["kin"] == 1.0


def test_what_the_hop_before_asked_about_is_no_answer():
    own = _passage(
        "Hessel Brand",
        "The Varrow Dam was designed by Hessel Brand.",
        "Hessel Brand was born in the port of Quillen in 1868.",
    )
    question = "Where was Hessel Brand born?"
    found = read_hop(question, "Hessel Brand", "born", "place", [own], {own.id})
    assert "Varrow Dam" in [a.text for a in found]
    after = read_hop(
        question, "Hessel Brand", "born", "place", [own], {own.id}, not_answers=["the Varrow Dam"]
    )
    assert after and "Varrow Dam" not in [a.text for a in after]
    assert after[0].text.endswith("Quillen")


def test_below_the_fitted_threshold_a_hop_has_no_answer():
    threshold = ranking().threshold
    sure = HopAnswer("A", "p", "p::0", score=threshold + 0.001)
    unsure = HopAnswer("B", "p", "p::0", score=threshold - 0.001)
    assert [a.text for a in accepted([sure, unsure])] == ["A"]
    assert accepted([unsure]) == []


def test_the_sentence_nearer_the_question_by_meaning_gives_the_answer():
    own = _passage("Lena Dorr", "Lena Dorr: Quillen.", "Lena Dorr: Harlow.")
    first, second = (s.id for s in own.sentences)
    question = "Where did Lena Dorr train as a surgeon?"

    def best(similarity: dict[str, float]) -> str:
        found = read_hop(
            question, "Lena Dorr", "trained", "place", [own], {own.id}, similarity=similarity
        )
        return found[0].text

    assert best({first: 0.2, second: 0.7}) == "Harlow"
    assert best({first: 0.7, second: 0.2}) == "Quillen"


def test_a_sentence_on_the_subjects_own_page_writes_the_subject_even_as_a_pronoun():
    own = _passage("Oren Thale", "Oren Thale was born in Lindmoor.", "He died in Caldmere.")
    other = _passage("Caldmere", "Oren Thale visited Lindmoor.", "He died in Harlow.")
    found = read_hop(
        "Where did Oren Thale die?", "Oren Thale", "die", "place", [own, other], {own.id}
    )
    overlap = {a.text: a.features["overlap"] for a in found}
    # "oren", "thale" and "die": the own page's "He died" writes all three
    assert overlap["Caldmere"] == 1.0 and overlap["Lindmoor"] == pytest.approx(2 / 3)
    # off the subject's page, "he" is someone else
    assert overlap["Harlow"] == pytest.approx(1 / 3)


def test_the_index_reads_each_sentences_cosine_with_a_question():
    index = FakeIndex()
    passage = index.add("Lena Dorr", "Lena Dorr trained as a surgeon in Harlow. She sailed.")[0]
    cosines = index.sentence_similarity("Lena Dorr trained as a surgeon in Harlow.", [passage])
    trained, sailed = (s.id for s in passage.sentences)
    assert set(cosines) == {trained, sailed}
    assert cosines[trained] == pytest.approx(1.0, abs=1e-5) and cosines[sailed] < 0.9


def test_the_listwise_fit_ranks_the_feature_that_marks_the_gold_candidate_first():
    kin = FEATURES.index("kin")
    frequency = FEATURES.index("frequency")
    hops = []
    for _ in range(20):
        x = np.zeros((3, len(FEATURES)))
        x[0, kin] = 1.0  # the gold one is written in its kin frame
        x[1:, frequency] = 1.0  # its rivals are written more often
        hops.append((x, np.array([True, False, False])))
    weights = _fit_listwise(hops)
    assert weights[kin] > 0 > weights[frequency]


def test_the_listwise_fit_is_the_optimum_of_each_hops_softmax_over_hops_of_any_size():
    rng = np.random.default_rng(0)
    hops = []
    for size in (1, 2, 5, 9, 3, 7):
        x = rng.normal(size=(size, len(FEATURES)))
        gold = np.zeros(size, dtype=bool)
        gold[: 1 + (size > 4)] = True  # a hop may hold two gold candidates
        hops.append((x, gold))
    weights = _fit_listwise(hops)
    grad = weights.copy()  # L2 = 1: the penalty's gradient, then each hop's own, one by one
    for x, gold in hops:
        p = np.exp(x @ weights - (x @ weights).max())
        p /= p.sum()
        grad += p @ x - (p[gold] / p[gold].sum()) @ x[gold]
    assert np.abs(grad).max() < 1e-3
    assert np.abs(weights).max() > 1e-3


def test_a_hop_reads_from_its_dependencys_alternative_when_that_reads_better():
    index = FakeIndex()
    index.add("Osric Vane", "Osric Vane lives in Harlow, where he was a judge.")
    brand = index.add("Hessel Brand", "Hessel Brand was born in the port of Quillen in 1868.")
    first = HopResult(
        hop=1,
        query="Who designed the Varrow Dam?",
        status="resolved",
        answer="Osric Vane",
        bridge="Osric Vane",
        alternatives=["Hessel Brand"],
        alternative_sentences=[(brand[0].id, brand[0].sentences[0].id)],
        passage_id="p",
        sentence_id="p::0",
    )
    hop = Hop(
        id=2,
        question="Where was #1 born?",
        depends_on=[1],
        subject="#1",
        relation="born",
        answer_type="place",
    )
    # the answer's own reading finds a place too, but writes no birth beside it
    own = read(index, hop, {1: first}, Context(), {})  # type: ignore[arg-type]
    assert [a.text for a in accepted(own.answers)][:1] == ["Harlow"]
    results, _, reading = resolve_typed(index, hop, {1: first}, Context())  # type: ignore[arg-type]
    assert reading.subject == "Hessel Brand"
    assert results[2].answer.endswith("Quillen") and results[2].subject == "Hessel Brand"
    assert results[1].answer == "Hessel Brand" and results[1].alternatives == ["Osric Vane"]
    assert results[1].sentence_id == brand[0].sentences[0].id
    assert results[1].alternative_sentences == [("p", "p::0")]


def test_a_role_is_answered_only_from_a_sentence_that_writes_it():
    town = _passage(
        "Lindholm",
        "Lindholm is a market town on the Tessel River.",
        "The engineer Maren Holt lived in Lindholm while the dam was built.",
    )
    question = "Who was the first mayor of Lindholm?"
    # a person tied to the town some other way is no mayor: no answer rather than an invented one
    assert read_hop(question, "Lindholm", "first mayor", "person", [town], {town.id}) == []
    elected = _passage("Lindholm council", "In 1902 Tomas Brek was elected the first mayor.")
    found = read_hop(question, "Lindholm", "first mayor", "person", [town, elected], {town.id})
    assert [a.text for a in found] == ["Tomas Brek"]


def test_a_name_inside_a_longer_name_of_its_sentence_is_marked_nested():
    district = _passage("Wittenberg", "Wittenberg is a district in the east of Saxony-Anhalt.")
    found = {
        a.text: a.features
        for a in read_hop(
            "Which state is Wittenberg in?", "Wittenberg", "state", "place", [district], set()
        )
    }
    # the parser reads "Saxony" as a place of its own inside the hyphenated name
    assert found["Saxony"]["nested"] == 1.0
    assert found["Saxony-Anhalt"]["nested"] == 0.0 and found["Saxony-Anhalt"]["proper"] == 1.0


def test_a_phrase_that_describes_a_name_gives_way_to_the_name():
    own = _passage("Margery Knox", "Margery Knox married the Scottish reformer John Knox in 1553.")
    found = [
        a.text
        for a in read_hop(
            "Who is the spouse of Margery Knox?",
            "Margery Knox",
            "spouse",
            "person",
            [own],
            {own.id},
        )
    ]
    assert found[0] == "John Knox"
    assert not any("reformer" in text for text in found)


def test_a_comparison_names_the_option_its_hop_asked_about():
    from resin.agent.answering.hop_compute import compute

    def dated(hop: int, subject: str, when: str) -> HopResult:
        return HopResult(hop=hop, query="", status="resolved", subject=subject, answer=when)

    step = Hop(
        id=3,
        question="Which came first, the first film of Orrin Vale or Lantern Run?",
        depends_on=[1, 2],
        compute="earliest",
        options=["the first film of Orrin Vale", "Lantern Run"],
    )
    results = {1: dated(1, "Orrin Vale", "1931"), 2: dated(2, "Lantern Run", "1950")}
    assert compute(step, results)[0] == "Orrin Vale"
    # a subject the option does not write leaves the option as it is
    results[1] = dated(1, "Osric Vane", "1931")
    assert compute(step, results)[0] == "the first film of Orrin Vale"


def test_a_chain_of_places_gives_a_city_hop_its_first_place_and_a_country_hop_its_last():
    own = _passage(
        "Orla Venn", "Orla Venn was born in Harlow, Essex, England, and studied painting."
    )

    def best(question: str, relation: str) -> tuple[str, dict[str, float]]:
        top = read_hop(question, "Orla Venn", relation, "place", [own], {own.id})[0]
        return top.text, top.features

    city, features = best("What city was Orla Venn born in?", "city")
    assert city == "Harlow" and features["narrower"] == 1.0
    country, features = best("What country was Orla Venn born in?", "country")
    assert country == "England" and features["broadest"] == 1.0


@pytest.mark.parametrize(
    ("question", "relation", "feature"),
    [
        ("Which country is Quillen in?", "country", "country"),
        ("Which county is Quillen in?", "county", "country_unasked"),
        ("What is Quillen known for?", "", "country_not_place"),
    ],
)
def test_a_countrys_name_is_told_from_a_narrower_place(question, relation, feature):
    own = _passage(
        "Quillen", "Quillen is a town in Brenmoor County, Canada, founded by Osric Vane."
    )
    kind = "place" if relation else "other"
    found = {
        a.text: a.features for a in read_hop(question, "Quillen", relation, kind, [own], {own.id})
    }
    marks = {
        f
        for f in ("country", "country_unasked", "country_not_place")
        if found.get("Canada", {}).get(f)
    }
    assert marks == {feature}
    assert not any(found.get("Brenmoor County", {}).get(f) for f in ("country", "country_unasked"))


def test_a_count_is_never_a_point_in_the_calendar():
    own = _passage(
        "Quillen",
        "Plague struck Quillen 22 times between the 4th century and 1714.",
        "The plague lasted 3 years at the start of the 18th century, in the 1710s.",
        "A three-act opera tells of its twenty-two victims.",
    )
    found = read_hop(
        "How many times did plague strike Quillen?",
        "Quillen",
        "many times plague strike",
        "number",
        [own],
        {own.id},
    )
    texts = [a.text for a in found]
    assert {"22", "3 years", "twenty-two"} <= set(texts)
    assert not {"1714", "4th century", "1710s", "three-act"} & set(texts)
    assert not [t for t in texts if "century" in t]


def test_an_untyped_hop_answers_with_a_time_only_where_its_relation_asks_for_one():
    own = _passage(
        "Orla Venn",
        "Orla Venn (26 February 1906 – 1980) was a Brenmoorian cardinal of the Quillen Church.",
        "Her era, the 1920s, was later known as the Quiet Years.",
        "She was ordained in 1931.",
    )
    texts = partial(_read_texts, own, "other")
    religion = texts("What is the religion of Orla Venn?", "religion")
    assert "Quillen Church" in religion
    assert not [t for t in religion if "1906" in t or "February" in t or "1920s" in t]
    assert "1920s" in texts("What was the era of Orla Venn?", "era")
    # a relation that names a year asks for one, though the parse left the hop untyped
    assert "1931" in texts("What was the year of ordination of Orla Venn?", "year of ordination")


def test_a_catalogue_number_counts_nothing():
    own = _passage(
        "Orla Suite",
        "The Orla Suite (RV 728, Op. 3) was played in Quillen on 22 occasions.",
    )
    found = read_hop(
        "On how many occasions was the Orla Suite played in Quillen?",
        "Orla Suite",
        "many occasions played",
        "number",
        [own],
        {own.id},
    )
    texts = [a.text for a in found]
    assert "22" in texts
    assert not {"728", "3"} & set(texts)


@pytest.mark.parametrize(
    ("question", "relation", "answers", "not_answers"),
    [
        (
            "What is the population of Quillen?",
            "population",
            {"4,210"},
            {"412 ft", "412", "3.5 km"},
        ),
        ("What is the height of Quillen's hill?", "height", {"412", "3.5 km"}, set()),
    ],
)
def test_a_count_is_never_a_measure_unless_the_relation_asks_for_one(
    question, relation, answers, not_answers
):
    town = _passage(
        "Quillen",
        "Quillen had 4,210 inhabitants at the 2010 census.",
        "Its castle stands on a 412 ft hill, 3.5 km from the 1.2 mi long harbour wall.",
    )
    found = _read_texts(town, "number", question, relation)
    assert answers <= found and not not_answers & found


def test_a_hop_asks_for_the_noun_before_its_preposition_or_clause():
    assert hop_head("What is the busiest airport in Quillen?") == "airpo"
    assert hop_head("What is the record label that Orla Venn belongs to?") == "label"
    assert hop_head("Which mountain pass is near Quillen?") == "pass"  # the question's own head
    assert hop_head("Who is the director of Glass Harbor?") == ""
    assert hop_head("What is Quillen known for?") == ""  # no noun is asked for


def test_a_relation_word_two_parse_arcs_away_links_the_span():
    sentence = "Orla Venn, who was born in Quillen in 1906, composed the Harrow Suite."
    words = frozenset({"compo"})
    assert linked_to(sentence, "Orla Venn", words)  # "Orla Venn … composed": its subject
    assert not linked_to(sentence, "Quillen", words)  # near in no way that matters
    assert linked_to(sentence, "Quillen", frozenset({"born"}))  # "born in Quillen"


def test_a_country_s_name_holds_no_noun_a_hop_asks_for():
    own = _passage(
        "Quillen",
        "Quillen is a village in Harrow County, Brenmoor, United States.",
        "Its college was merged into Ohio State in 1911.",
    )
    found = {
        a.text: a.features
        for a in read_hop(
            "What is the state where Quillen is located?",
            "Quillen",
            "state located",
            "place",
            [own],
            {own.id},
        )
    }
    assert found["Harrow County"]["head"] == 0.0
    # "United States" holds "state", but a country's name is no state
    assert found["United States"]["head"] == 0.0
    assert found["Ohio State"]["head"] == 1.0


@pytest.mark.parametrize(
    ("own_sentence", "verdict"),
    [
        ("Tamsin Orle (born 1950) is an Irish film director.", "no"),
        ("Tamsin Orle (born 1950) is an American film director.", "yes"),
    ],
)
def test_a_yes_no_hop_is_decided_by_a_sentence_about_its_subject(own_sentence, verdict):
    other = _passage("Greywater", "Greywater is an American film directed by Tamsin Orle.")
    own = _passage("Tamsin Orle", own_sentence)
    sentences = [(p, s) for p in (other, own) for s in p.sentences]
    answer, where = judge("Tamsin Orle American", sentences, "Tamsin Orle")
    assert answer == verdict
    assert where is not None and where[0] is own


def test_a_yes_no_claim_meets_its_verb_inflected_and_its_subject_by_its_page():
    lived = _passage("Lindmoor", "Tamsin Orle lived in Lindmoor while the bridge was built.")
    answer, where = judge("Tamsin Orle live in Lindmoor", [(lived, lived.sentences[0])])
    assert answer == "yes" and where is not None
    fever = _passage("Marsh ague", "The disease is spread by reed midges.", "Marsh ague is rare.")
    other = _passage("Reed midge", "Reed midges breed in still water.")
    question = "Is marsh ague spread by reed midges?"
    assert page_subject(question, [other, fever]) == "marsh ague"
    assert page_subject(question, [other]) == ""
    sentences = [(p, s) for p in (other, fever) for s in p.sentences]
    answer, where = judge(claim_of(question), sentences, page_subject(question, [other, fever]))
    assert answer == "yes" and where is not None and where[1].text.startswith("The disease")


def test_a_place_the_parser_takes_for_a_person_answers_a_birthplace_hop():
    own = _passage(
        "Tamsin Orle",
        "Tamsin Orle (born 26 February 1973) is a Polish film director, screenwriter and "
        "producer, born in Kraków.",
    )
    assert ("Kraków", "PERSON") in spans_of(own.sentences[0].text)
    found = accepted(
        read_hop("Where was Tamsin Orle born?", "Tamsin Orle", "born", "place", [own], {own.id})
    )
    assert found and found[0].text == "Kraków"
    assert found[0].features["loose"] == 1.0


def test_a_short_relation_word_meets_its_regular_inflections():
    assert {"died", "dies"} <= relation_words("die")
    assert {"lived", "livin"} <= relation_words("live")
    assert {"starr"} <= relation_words("star")  # "starred", "starring"
    assert relation_words("directed") == {"direc"}  # five letters meet the inflections already


def test_a_final_y_turns_i_in_the_inflections():
    assert {"study", "studi"} <= relation_words("study")  # "studied", "studies"
    assert {"marry", "marri"} <= relation_words("marry")  # "married"
    assert {"bury", "burie", "buryi"} <= relation_words("bury")  # "buries", "buried", "burying"
