"""Honest answers on the sample corpus: yes/no by polarity, why by the cause, about X by its facts.

The real offline path: the parser's units, the real embedder, the default (embedded) answer
mode, which ranks candidates and calls no model. A question the documents do not answer is
"not found", never a guess.
"""

from __future__ import annotations

import json

import pytest

from resin.agent.answering.answer import NOT_FOUND
from resin.agent.context import Context
from resin.agent.graph import graph
from resin.agent.nodes.plan import ENGLISH_ONLY
from resin.indexes.build import Builder
from resin.indexes.reading import load_documents
from resin.indexes.units import normalize
from resin.tools.causal import cause_chains

from ..conftest import SAMPLE_DOCS


@pytest.fixture(scope="module")
def sample(tmp_path_factory, embedder, nlp_extractor):
    from resin.indexes.opening import close_indexes, open_index

    path = tmp_path_factory.mktemp("kinds") / "index"
    index = open_index(path, embedder, create=True)
    docs, _ = load_documents([SAMPLE_DOCS])
    Builder(index, None, nlp=nlp_extractor).run(docs)
    yield index
    close_indexes()


def ask(index, question: str) -> dict:
    return graph.invoke({"question": question}, context=Context(index_path=str(index.config.path)))


def sentences(out: dict) -> list[str]:
    return [s["sentence"] for s in out["sources"]]


@pytest.mark.parametrize(
    ("question", "answer", "cited"),
    [
        ("Does pale gill fever infect humans?", "no", "Pale gill fever does not infect humans."),
        # the disease's own page decides: its sentences are about it without naming it
        (
            "Does pale gill fever infect fish?",
            "yes",
            "Infected fish have pale, swollen gills and swim slowly near the surface.",
        ),
        (
            "Does pale gill fever infect silverfin?",
            "yes",
            "Most infected silverfin die within three weeks.",
        ),
        # the claim writes its verb bare, the sentence inflects it
        (
            "Did Hessa Varn live in Lindmoor?",
            "yes",
            "Hessa Varn lived in Lindmoor while the Orrin Dam was being built.",
        ),
        # the sentence writes the claim's frame but another kind: it says what it is instead
        ("Is the silverfin a kind of salmon?", "no", "The silverfin is a kind of mountain char."),
        (
            "Is the silverfin a kind of mountain char?",
            "yes",
            "The silverfin is a kind of mountain char.",
        ),
        (
            "Was the Orrin Dam designed by Oren Thale?",
            "no",
            "The Orrin Dam was designed by Hessa Varn.",
        ),
        # no sentence names the salmon: the one about the silverfin does not say it of the salmon
        (
            "Is the salmon a kind of mountain char?",
            "no",
            "The silverfin is a kind of mountain char.",
        ),
    ],
)
def test_yes_or_no_is_the_polarity_of_the_sentence_that_writes_the_claim(
    sample, question, answer, cited
):
    out = ask(sample, question)
    assert out["answer"] == answer
    assert sentences(out)[0] == cited


def test_why_is_answered_by_the_cause_with_its_chain_cited(sample):
    out = ask(sample, "Why does the council cancel the Lantern Run?")
    assert "silverfin run fail" in out["answer"]
    cited = sentences(out)
    assert cited[-1] == "If the silverfin run fails, the council cancels the Lantern Run."
    assert "Outbreaks of pale gill fever cause the silverfin run to fail." in cited


def test_a_cause_chain_ends_at_a_state_that_writes_the_asked_verb(sample):
    [chain] = cause_chains(sample, "the council cancel the Lantern Run", "cancel")
    assert chain.links[-1].tail == "council cancels the Lantern Run"
    assert chain.links[-1].head == "silverfin run fails"
    assert cause_chains(sample, "the Brannock Mill closed", "close") == []


def test_tell_me_about_gives_the_defining_sentence_and_the_main_facts(sample):
    out = ask(sample, "Tell me about Hessa Varn")
    assert out["answer"] == (
        "Hessa Varn was a civil engineer who specialized in dams and harbor works."
    )
    cited = sentences(out)
    assert len(cited) >= 3 and all("Hessa Varn" in s for s in cited)
    assert {s["title"] for s in out["sources"]} == {"Hessa Varn"}


def test_tell_me_about_a_one_word_subject_is_answered(sample):
    # "tell" is written in no sentence: the subject's own words are what a sentence must share
    out = ask(sample, "Tell me about the silverfin.")
    assert out["answer"] == "The silverfin is a fish species found only in the Tessel River."
    assert all("silverfin" in s.lower() for s in sentences(out))


@pytest.mark.parametrize(
    "question",
    [
        "Why is the Brannock Mill closed?",  # the documents never say it is
        "Which is longer, the Tessel River or the Salt Ledger Road?",  # no length is written
        "Tell me about Zorbax",  # no document names it
        "Who was the mayor of Caldmere?",  # no sentence says
    ],
)
def test_what_the_documents_do_not_say_is_not_found(sample, question):
    out = ask(sample, question)
    assert out["answer"] in ("", NOT_FOUND), out["answer"]
    assert NOT_FOUND in out["messages"][-1].content


def test_a_question_in_another_language_is_told_so(sample):
    out = ask(sample, "Où est née Hessa Varn ?")
    assert out["messages"][-1].content == ENGLISH_ONLY


def test_the_forms_that_ask_for_a_cause_or_a_summary():
    from resin.agent.language.forms import about_subject, why_clause

    assert why_clause("Why was the Lantern Run cancelled in 1958?") == (
        "the Lantern Run cancelled in 1958"
    )
    assert why_clause("Who cancelled the Lantern Run?") == ""
    assert about_subject("What do you know about the Orrin Dam?") == "the Orrin Dam"
    assert about_subject("Describe Caldmere.") == "Caldmere"
    assert about_subject("Who designed the Orrin Dam?") == ""


def test_a_comparison_by_a_measure_needs_the_measure_written():
    from resin.agent.answering.options import measured
    from resin.agent.language.questions import Question
    from resin.indexes.lexical import stems

    longer = measured(Question.read("Which is longer, the Tessel River or the Salt Ledger Road?"))
    assert stems("long") <= longer
    assert stems("members") <= measured(Question.read("Which band has more members, A or B?"))
    assert measured(Question.read("Which man, Alan Ross or Bo Dee, is known for jazz?")) == set()


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("Is the Orrin Dam older than the Brannock Mill?", "no"),
        ("Is the Brannock Mill older than the Orrin Dam?", "yes"),
        ("Was the Orrin Dam built before the Brannock Mill?", "no"),
        ("Is the Orrin Dam newer than the Brannock Mill?", "yes"),
    ],
)
def test_a_comparison_asked_as_yes_or_no_compares_both_dates(sample, question, answer):
    out = ask(sample, question)
    assert out["answer"] == answer
    cited = " ".join(sentences(out))
    assert "1874" in cited and "Orrin Dam" in cited  # both options' dates rest on their sentences


DEMO = [
    json.loads(line)
    for line in (SAMPLE_DOCS.parent / "questions.jsonl").read_text().splitlines()
    if line.strip()
]


@pytest.mark.parametrize("item", DEMO, ids=[q["id"] for q in DEMO])
def test_every_demo_question_gets_its_expected_answer_cited(sample, item):
    out = ask(sample, item["question"])
    assert any(normalize(a) in normalize(out["answer"]) for a in item["answers"]), out["answer"]
    assert out["sources"] and out["citations"]


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("Who was born in Lindmoor, Hessa Varn or Oren Thale?", "Oren Thale"),
        ("Which fish, the salmon or the silverfin, is a kind of mountain char?", "silverfin"),
    ],
)
def test_a_choice_by_a_claim_is_the_option_its_sentence_says_it_of(sample, question, answer):
    out = ask(sample, question)
    assert normalize(out["answer"]).removeprefix("the ") == normalize(answer)
    assert out["plan"][-1].compute == "chosen"
    assert out["sources"]


def test_the_chat_trace_draws_the_cause_chain_the_answer_follows(sample):
    out = ask(
        sample,
        "What ultimately happens to the Lantern Run when tailings leak from the Greywell Mine?",
    )
    chain = out["ui"][-1]["props"]["chain"]
    assert len(chain) >= 2 and "Lantern Run" in chain[-1]["tail"], chain
    assert "copper" in chain[0]["head"] or "tailings" in chain[0]["head"], chain
    # a question of who and where follows no cause → effect chain: none is drawn
    assert (
        ask(sample, "In which port was the designer of the Orrin Dam born?")["ui"][-1]["props"][
            "chain"
        ]
        == []
    )
