"""Cause → effect chains end to end: parser rules, graph edges, effect chains, the answer.

Real spaCy, real embedder, real Chroma and networkx. The corpus is written for these tests: a
chain told across three documents, each link a sentence in one of the shapes the rules read.
"""

import json

import pytest

from resin.agent.context import Context
from resin.agent.graph import graph
from resin.agent.language.forms import causal_parts
from resin.indexes.build import Builder
from resin.indexes.documents import Document, make_passages
from resin.indexes.opening import close_indexes
from resin.indexes.reading import load_documents
from resin.indexes.units import normalize
from resin.tools.causal import effect_chains

from ..conftest import SAMPLE_DOCS

DOCS = [
    Document(
        "quarry",
        "Dunmore Quarry",
        "The Dunmore Quarry is a limestone quarry near Ashby. "
        "When the pumps of the Dunmore Quarry fail, groundwater floods the lower pits. "
        "Floodwater in the lower pits causes lime dust to wash into the Marrow Creek. "
        "The quarry employs forty people.",
    ),
    Document(
        "creek",
        "Marrow Creek",
        "The Marrow Creek is a small stream that flows past Ashby. "
        "Lime dust in the Marrow Creek causes the mayfly larvae to die. "
        "The death of the mayfly larvae causes the trout catch to fail. "
        "If the water of the Marrow Creek warms above 20 degrees, the brown trout stop feeding.",
    ),
    Document(
        "fair",
        "Ashby Fair",
        "The Ashby Fair is a spring fair held in Ashby. "
        "The fair celebrates the trout of the Marrow Creek. "
        "If the trout catch fails, the organizers postpone the Ashby Fair. "
        "In dry years the mill diverts water from the Marrow Creek. "
        "The diversion by the mill raises the temperature of the Marrow Creek.",
    ),
]


def _units(nlp_extractor, text):
    passages = make_passages(Document("d", "T", text), 5000)
    return [u for r in nlp_extractor.extract(passages) for u in r.units]


def _edges(nlp_extractor, text):
    return [u.edge for u in _units(nlp_extractor, text) if u.kind in ("causal-edge", "rule")]


WINDS = "Strong winds cause the old bridge to sway."
DROUGHT = "The drought forced the farmers to sell their cattle."
LEAKS = "Leaks from the old pipes raise the level of dissolved lead in the drinking water."
SALT = "Because salt corrodes the pipes, salt in the water supply causes leaks in the mains."
PUMPS = "When the pumps of the quarry fail, groundwater floods the lower pits."


@pytest.mark.parametrize(
    ("text", "edge"),
    [
        # "X causes Y to V": the effect is the event, whichever way the parser reads it
        (WINDS, ("Strong winds", "cause", "old bridge to sway")),
        (DROUGHT, ("drought", "forced", "farmers to sell their cattle")),
        # states keep their prepositional modifiers
        (
            LEAKS,
            ("Leaks from the old pipes", "raise", "level of dissolved lead in the drinking water"),
        ),
        # "Because A, B causes C": B is the subject, not A's object across the comma
        (SALT, ("salt in the water supply", "causes", "leaks in the mains")),
        (
            SALT,
            (
                "salt corrodes the pipes",
                "because",
                "salt in the water supply causes leaks in the mains",
            ),
        ),
        # a conditional with one condition is a graph edge, cut at the writer's comma
        (PUMPS, ("pumps of the quarry fail", "if", "groundwater floods the lower pits")),
        ("If the dam fails, the valley floods.", ("dam fails", "if", "valley floods")),
    ],
)
def test_causal_rules_read_each_shape(nlp_extractor, text, edge):
    assert edge in _edges(nlp_extractor, text)


def test_an_opening_without_a_clause_is_no_condition(nlp_extractor):
    edges = _edges(nlp_extractor, "When in doubt, the council consults the engineers.")
    assert not any(e[0] == "in doubt" for e in edges)


def test_a_past_when_clause_is_a_time_not_a_condition(nlp_extractor):
    units = _units(nlp_extractor, "When he lived in Harlem, he went to school with Myers.")
    assert not [u for u in units if u.kind == "rule"]


def test_an_opening_cause_phrase_is_read_as_one(nlp_extractor):
    edges = _edges(nlp_extractor, "Because of the storm, the ferry stopped.")
    assert edges == [("storm", "Because of", "ferry stopped")]


def test_causing_verbs_without_an_infinitive_keep_their_object(nlp_extractor):
    assert ("Heavy rain", "causes", "floods") in _edges(nlp_extractor, "Heavy rain causes floods.")


@pytest.fixture
def causal_index(open_index, nlp_extractor):
    index = open_index()
    Builder(index, None, nlp=nlp_extractor).run(DOCS)
    return index


def test_effect_chain_crosses_near_states_to_the_thing_affected(causal_index):
    [chain] = effect_chains(causal_index, "the pumps of the Dunmore Quarry fail", "the Ashby Fair")
    assert chain.about == "the Ashby Fair"
    assert chain.links[-1].tail == "organizers postpone the Ashby Fair"
    assert len(chain.links) >= 4 and all(link.unit_ids for link in chain.links)
    # "groundwater floods the lower pits" goes on as "Floodwater in the lower pits": two names of
    # one state that the graph did not merge, crossed as a turn in the chain
    assert "; " in chain.text and "Floodwater in the lower pits" in chain.text
    # nothing that ends elsewhere: the last effect must name the thing asked about
    assert effect_chains(causal_index, "the pumps of the Dunmore Quarry fail", "the harbour") == []


def test_the_index_reads_causes_as_entities_heading_causal_links(causal_index):
    causes = causal_index.causes_like("the pumps of the Dunmore Quarry fail", 0.3, 3)
    assert causes
    for cause in causes:
        steps = causal_index.heaviest_steps(cause, "forward", 8)
        assert any(causal_index.link(s.head, s.tail).causal for s in steps)
    near = causal_index.near_causes(causes[0], 0.0, 2)
    assert causes[0] not in near and all(causal_index.entity(n).names for n in near)


def test_conditionals_are_causal_edges_of_the_graph(causal_index):
    g = causal_index.graph
    head, tail = g.node_of("trout catch fails"), g.node_of("organizers postpone the Ashby Fair")
    assert (
        head and tail and g.edge(head, tail)["causal"] and g.edge(head, tail)["relations"] == ["if"]
    )
    assert g.near_causes(g.node_of("groundwater floods the lower pits"), 0.6, 4)


@pytest.mark.parametrize(
    ("question", "answer", "cited"),
    [
        (
            "What ultimately happens to the Ashby Fair when the pumps of the Dunmore Quarry fail?",
            "postpone the Ashby Fair",
            5,
        ),
        (
            "What happens to the brown trout in the Marrow Creek when the mill diverts water?",
            "stop feeding",
            2,
        ),
    ],
)
def test_what_happens_questions_answer_with_the_chains_last_effect(
    causal_index, tmp_path, question, answer, cited
):
    path = tmp_path / "index"  # where `open_index` built it
    causal_index.close()
    close_indexes()
    try:
        final = graph.invoke({"question": question}, context=Context(index_path=str(path)))
    finally:
        close_indexes()
    assert normalize(answer) in normalize(final["answer"]), final["messages"][-1].content
    # every link of the chain is a cited sentence, cause first, the effect's own sentence last
    assert len(final["sources"]) >= cited
    assert normalize(answer) in normalize(final["sources"][-1]["sentence"])


def test_causal_parts_of_a_question():
    assert causal_parts("What ultimately happens to the fair when the pumps fail?") == (
        "the fair",
        "the pumps fail",
    )
    assert causal_parts("What happens to the trout below the weir if the water warms?") == (
        "the trout",
        "the water warms",
    )
    assert causal_parts("What happens when ice melts?") is None
    assert causal_parts("Who designed the dam?") is None


@pytest.mark.parametrize(
    ("qid", "answer"), [("q6", "cancels the Lantern Run"), ("q7", "stops spawning")]
)
def test_the_sample_causal_questions_on_the_parser_index(
    open_index, nlp_extractor, tmp_path, qid, answer
):
    docs, _ = load_documents([SAMPLE_DOCS])
    Builder(open_index(), None, nlp=nlp_extractor).run(docs)
    lines = (SAMPLE_DOCS.parent / "questions.jsonl").read_text().splitlines()
    item = next(json.loads(line) for line in lines if f'"{qid}"' in line)
    close_indexes()
    try:
        ctx = Context(index_path=str(tmp_path / "index"))
        final = graph.invoke({"question": item["question"]}, context=ctx)
    finally:
        close_indexes()
    assert final["answer"] == answer and any(
        normalize(a) in normalize(answer) for a in item["answers"]
    )
