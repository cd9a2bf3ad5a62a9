import pytest
from pydantic import ValidationError

from resin.indexes.units import ReasoningUnit, entity_key

EVIDENCE = "The Orrin Dam was designed by Hessa Varn."


@pytest.mark.parametrize(
    ("kind", "fields", "text"),
    [
        (
            "entity-fact",
            {"subject": "Orrin Dam", "predicate": "built in", "object": "1911"},
            "Orrin Dam | built in | 1911",
        ),
        (
            "type-property",
            {"subject": "glaciers", "predicate": "are made of", "object": "ice"},
            "glaciers | are made of | ice",
        ),
        ("entity-type", {"subject": "Orrin Dam", "object": "dam"}, "Orrin Dam | is a | dam"),
        (
            "relation",
            {"subject": "Orrin Dam", "predicate": "designed by", "object": "Hessa Varn"},
            "Orrin Dam | designed by | Hessa Varn",
        ),
        (
            "causal-edge",
            {"source_state": "glacier melt", "target_state": "high river flow"},
            "glacier melt → high river flow",
        ),
        (
            "rule",
            {"conditions": ["water above 18 degrees"], "conclusion": "silverfin stop spawning"},
            "if water above 18 degrees then silverfin stop spawning",
        ),
    ],
)
def test_each_kind_validates_and_has_canonical_text(kind, fields, text):
    unit = ReasoningUnit(kind=kind, evidence=EVIDENCE, passage_id="p1", **fields)
    assert unit.text == text
    assert unit.id.startswith("u") and len(unit.id) == 16


@pytest.mark.parametrize(
    ("kind", "fields", "missing"),
    [
        ("entity-fact", {"subject": "Orrin Dam", "predicate": "built in"}, "object"),
        ("entity-type", {"object": "dam"}, "subject"),
        ("relation", {"subject": "Orrin Dam", "object": "Hessa Varn"}, "predicate"),
        ("causal-edge", {"source_state": "glacier melt"}, "target_state"),
        ("rule", {"conclusion": "silverfin stop spawning"}, "conditions"),
    ],
)
def test_missing_required_field_is_rejected(kind, fields, missing):
    with pytest.raises(ValidationError, match=missing):
        ReasoningUnit(kind=kind, evidence=EVIDENCE, **fields)


def test_unknown_kind_and_empty_evidence_are_rejected():
    with pytest.raises(ValidationError):
        ReasoningUnit(kind="opinion", subject="a", predicate="b", object="c", evidence=EVIDENCE)
    with pytest.raises(ValidationError, match="evidence"):
        ReasoningUnit(kind="entity-type", subject="a", object="b", evidence="  ")


def test_ids_are_stable_and_depend_on_passage():
    args = {"kind": "entity-type", "subject": "Orrin Dam", "object": "dam", "evidence": EVIDENCE}
    assert ReasoningUnit(passage_id="p1", **args).id == ReasoningUnit(passage_id="p1", **args).id
    assert ReasoningUnit(passage_id="p1", **args).id != ReasoningUnit(passage_id="p2", **args).id


def test_causal_edge_is_a_sarg_triple_and_negation_shows():
    unit = ReasoningUnit(
        kind="causal-edge",
        source_state="glacier retreat",
        predicate="reduces",
        target_state="river flow",
        evidence=EVIDENCE,
        polarity="negative",
    )
    assert unit.edge == ("glacier retreat", "reduces", "river flow")
    assert "not" in unit.text
    assert entity_key("The Orrin Dam's") == "orrin dam"
