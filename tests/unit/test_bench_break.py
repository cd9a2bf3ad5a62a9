"""The Break planner benchmark's readings: decomposition shapes, human lookups, hop checks.

Records and plans here are written for the tests (invented names), not copied from Break.
"""

from __future__ import annotations

import pytest

from resin.agent.language.questions import Question
from resin.agent.state import Hop
from resin.evals.bench_break import examples, plan_question
from resin.evals.break_judge import Row, hop_problems, human_lookups, shape, unnamed_subject


@pytest.mark.parametrize(
    ("operators", "expected"),
    [
        (["select", "project"], "bridge"),
        (["select", "project", "project"], "bridge"),
        (["select", "select", "comparison"], "comparison"),
        (["boolean", "boolean", "comparison"], "comparison"),
        (["select", "select", "aggregate", "aggregate", "comparison"], "comparison"),
        (["select", "select", "None"], "comparison"),
        (["select", "select", "intersection"], "intersection"),
        (["select", "filter"], "filter"),
        (["select", "filter", "project"], "filter"),
        (["boolean", "boolean", "boolean"], "yes/no"),
        (["select", "select", "boolean"], "yes/no"),
        (["select", "project", "aggregate"], "aggregate"),
        (["select"], "single-step"),
        (["select", "discard"], "other"),
    ],
)
def test_shape_reads_the_operators(operators, expected):
    assert shape(operators) == expected


@pytest.mark.parametrize(
    ("steps", "operators", "expected"),
    [
        # a bridge: both steps look something up
        (["the novel written by Orla Venn", "publisher of #1"], ["select", "project"], 2),
        # a comparison: two lookups, the comparison is computed
        (
            [
                "when was Caldmere founded",
                "when was Brisk Hollow founded",
                "which is first of #1 , #2",
            ],
            ["select", "select", "comparison"],
            2,
        ),
        # yes/no sides about named things are lookups; "both true" is computed
        (
            [
                "if Orla Venn was a painter",
                "if Tomas Reed was a painter",
                "if both #1 and #2 are true",
            ],
            ["boolean", "boolean", "boolean"],
            2,
        ),
        # a class that a filter narrows: one lookup, the filter's
        (["botanists", "#1 that described the silverfin lily"], ["select", "filter"], 1),
        # a restated name is no lookup
        (["sculpture Quiet Harbor", "artist who made #1"], ["select", "project"], 1),
        # renaming is no lookup
        (["the river that runs through Caldmere", "name of #1"], ["select", "project"], 1),
        # a description without a name still has to be resolved
        (
            ["2004 comedy film about a lighthouse keeper", "role that Orla Venn plays in #1"],
            ["select", "project"],
            2,
        ),
    ],
)
def test_human_lookups_count_retrieval_steps(steps, operators, expected):
    assert human_lookups(steps, operators) == expected


def hop(id: int, question: str, subject: str = "", depends_on=(), compute: str = "") -> Hop:
    return Hop(
        id=id,
        question=question,
        subject=subject,
        depends_on=list(depends_on),
        compute=compute,  # type: ignore[arg-type]
    )


def test_a_well_formed_hop_has_no_problems():
    assert hop_problems(hop(2, "Who directed #1?", "#1", [1]), [1]) == []
    assert hop_problems(hop(1, "Where was Orla Venn born?", "Orla Venn"), []) == []
    assert hop_problems(hop(2, "In which city is #1 based?", "#1", [1]), [1]) == []


@pytest.mark.parametrize(
    ("made", "question", "reason"),
    [
        (
            hop(2, "#1 was directed by whom?", "#1", [1]),
            "",
            "question word inside, not at the start",
        ),
        (hop(2, "Orla Venn painted #1?", "#1", [1]), "", "no question word"),
        (hop(2, "Who directed #3?", "#3", [3]), "", "dangling #k"),
        (hop(2, "On what day did #1?", "#1", [1]), "", "no verb"),
        (hop(2, "How many rooms does #1?", "#1", [1]), "", "no verb"),
        (
            hop(1, "Who is the daughter of Irish?", "Irish"),
            "Who married the daughter of the Irish poet Orla Venn?",
            "bare modifier as subject",
        ),
        (hop(1, "What is the population of 2010?", "2010"), "", "bare modifier as subject"),
        (
            hop(1, "Who is the novelist that The book was written by?", "The"),
            "",
            "bare modifier as subject",
        ),
        (hop(2, "Who is #1 horror film?", "#1", [1]), "", "description torn around #k"),
        (hop(2, "Which #1 painted the mural?", "#1", [1]), "", "description torn around #k"),
        (
            hop(1, "Which game is Red Harbor come from?", "Red Harbor come"),
            "",
            "subject runs into the predicate",
        ),
        (
            hop(1, "What is the birthplace of Senator?", "Senator"),
            "What is the birthplace of the Senator who chaired the Caldmere inquiry?",
            "subject is the head of a description",
        ),
        (
            hop(1, 'What is the film that featured "Blue Salt?', '"Blue Salt'),
            "",
            "quoted title split",
        ),
    ],
)
def test_garbled_hops_are_named(made, question, reason):
    earlier = list(range(1, made.id))
    assert reason in hop_problems(made, earlier, question)


def test_a_named_nationality_is_a_subject():
    # "Pomeranian" names a breed here; it modifies nothing in the question
    made = hop(1, "Is Pomeranian a toy breed?", "Pomeranian")
    question = "Are both Pomeranian and Orla Terrier toy breeds?"
    assert "bare modifier as subject" not in hop_problems(made, [], question)


def test_a_computed_hop_is_checked_for_placeholders_only():
    made = hop(3, "Who was born first, Orla Venn or Tomas Reed?", "", [1, 2], "earliest")
    assert hop_problems(made, [1, 2]) == []
    assert hop_problems(made.model_copy(update={"question": "Which of #4 is first?"}), [1, 2]) == [
        "dangling #k"
    ]


def test_unnamed_subject():
    question = "Who founded the publisher of Caldmere's Almanac?"
    assert not unnamed_subject(
        hop(1, "Who is the publisher of Caldmere's Almanac?", "Caldmere's Almanac"), question
    )
    assert not unnamed_subject(hop(2, "Who founded #1?", "#1", [1]), question)
    assert unnamed_subject(
        hop(1, "Who is the publisher of Lindqvist Books?", "Lindqvist Books"), question
    )


def row(id: str, shape_: str, clean: bool) -> Row:
    return Row(
        id=id,
        question=f"question {id}",
        shape=shape_,  # type: ignore[arg-type]
        operators=["select", "project"],
        human_steps=2,
        human_lookups=2,
        source="parsed" if clean else "structural",
        hops=[],
        lookups=2 if clean else 1,
        multi_hop=clean,
    )


def test_examples_are_a_seeded_draw_of_failures():
    rows = [row(str(i), "bridge", clean=i % 3 == 0) for i in range(30)]
    first, again = examples(rows, seed=4), examples(rows, seed=4)
    assert [r.id for r in first["bridge"]] == [r.id for r in again["bridge"]]
    assert len(first["bridge"]) == 5 and not any(r.clean for r in first["bridge"])
    assert first["comparison"] == []


def test_the_plan_node_plans_a_question():
    source, hops = plan_question(Question.read("Where was the director of Blue Salt born?"))
    assert source in ("parsed", "structural") and hops
    assert all(isinstance(h, Hop) for h in hops)
