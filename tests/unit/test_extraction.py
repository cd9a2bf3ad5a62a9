import json

from resin.indexes.documents import Document, make_passages
from resin.indexes.extraction import ExtractionOutput, extract_passage, match_sentences
from resin.testing.chat import ScriptedChatModel

from ..conftest import units_json

TEXT = (
    "The Orrin Dam was designed by Hessa Varn. It was finished in 1911. "
    "Glacier melt raises the flow of the Tessel River."
)


def passage():
    return make_passages(Document(id="orrin", title="Orrin Dam", text=TEXT))[0]


def test_quote_matching_is_fuzzy_but_not_loose():
    p = passage()
    assert match_sentences("The Orrin Dam was designed by Hessa Varn.", p) == [p.sentences[0].id]
    # small differences: case, punctuation, one changed word
    assert match_sentences("the orrin dam was designed by hessa varn", p) == [p.sentences[0].id]
    assert match_sentences("The Orrin dam was designed by Hesa Varn", p) == [p.sentences[0].id]
    # a quote spanning two sentences maps to both ids
    both = match_sentences(
        "It was finished in 1911. Glacier melt raises the flow of the Tessel River.", p
    )
    assert both == [p.sentences[1].id, p.sentences[2].id]
    assert match_sentences("The Orrin Dam was designed by Oren Thale in 1850.", p) == []
    assert match_sentences("dam", p) == []


def test_fabricated_quote_and_unnamed_names_are_dropped():
    p = passage()
    model = ScriptedChatModel(
        responses=[
            units_json(
                {
                    "quote": "The Orrin Dam was designed by Hessa Varn.",
                    "kind": "relation",
                    "subject": "Orrin Dam",
                    "predicate": "designed by",
                    "object": "Hessa Varn",
                },
                # fabricated: this sentence is not in the passage
                {
                    "quote": "The Orrin Dam is owned by the city of Caldmere.",
                    "kind": "relation",
                    "subject": "Orrin Dam",
                    "predicate": "owned by",
                    "object": "Caldmere",
                },
                # a real quote, but the object is not in it
                {
                    "quote": "The Orrin Dam was designed by Hessa Varn.",
                    "kind": "relation",
                    "subject": "Orrin Dam",
                    "predicate": "feeds",
                    "object": "Brannock Mill",
                },
                # a tautology
                {
                    "quote": "It was finished in 1911.",
                    "kind": "entity-type",
                    "subject": "1911",
                    "predicate": "is a",
                    "object": "1911",
                },
                # invalid: no object, and an unknown kind
                {
                    "quote": "It was finished in 1911.",
                    "kind": "relation",
                    "subject": "x",
                    "predicate": "y",
                },
                {
                    "quote": "It was finished in 1911.",
                    "kind": "opinion",
                    "subject": "x",
                    "predicate": "y",
                    "object": "z",
                },
                # tolerant of case and punctuation; a causal edge with a negated predicate
                {
                    "quote": "glacier melt raises the flow of the tessel river",
                    "kind": "causal-edge",
                    "subject": "Glacier melt",
                    "predicate": "does not lower",
                    "object": "flow of the Tessel River",
                },
                # a rule: condition → conclusion
                {
                    "quote": "Glacier melt raises the flow of the Tessel River.",
                    "kind": "rule",
                    "subject": "glacier melt",
                    "predicate": "then",
                    "object": "Tessel River flow rises",
                },
            )
        ]
    )
    result = extract_passage(model, p)
    assert result.ok
    assert (result.proposed, result.ungrounded, result.invalid) == (8, 3, 2)
    assert [u.kind for u in result.units] == ["relation", "causal-edge", "rule"]
    relation, causal, rule = result.units
    assert relation.sentence_ids == [p.sentences[0].id] and relation.passage_id == p.id
    # code replaces the model's quote with the exact source sentence
    assert causal.evidence == "Glacier melt raises the flow of the Tessel River."
    assert causal.edge == ("Glacier melt", "does not lower", "flow of the Tessel River")
    assert causal.polarity == "negative"
    assert rule.conditions == ["glacier melt"] and rule.conclusion == "Tessel River flow rises"


def test_a_quote_that_runs_past_its_sentence_grounds_to_that_sentence():
    p = passage()
    run_on = "The Orrin Dam was designed by Hessa Varn. It was"
    model = ScriptedChatModel(
        responses=[
            units_json(
                {
                    "quote": run_on,
                    "kind": "entity-fact",
                    "subject": "Orrin Dam",
                    "predicate": "designed by",
                    "object": "Hessa Varn",
                },
                {
                    "quote": run_on,
                    "kind": "entity-fact",
                    "subject": "Orrin Dam",
                    "predicate": "finished in",
                    "object": "1911",
                },
            )
        ]
    )
    result = extract_passage(model, p)
    # the first sentence holds both names of the first unit; "1911" is not in it
    assert [u.sentence_ids for u in result.units] == [[p.sentences[0].id]]
    assert result.ungrounded == 1


def test_schema_is_requested_and_malformed_output_is_retried_once_then_reported():
    p = passage()
    model = ScriptedChatModel(responses=["not json", '{"units": [ {"kind": "relation"'])
    result = extract_passage(model, p)
    assert not result.ok and "unparseable" in result.error
    assert len(model.calls) == 2
    fmt = model.calls[0][1]["response_format"]
    assert fmt["type"] == "json_schema"
    schema = fmt["json_schema"]["schema"]
    assert schema["properties"]["units"]["maxItems"] == 3
    assert set(schema["$defs"]["UnitDraft"]["properties"]) == set(
        ExtractionOutput.model_fields["units"].annotation.__args__[0].model_fields
    )

    model = ScriptedChatModel(responses=["```json\n{oops", json.dumps({"units": []})])
    assert extract_passage(model, p).ok


def test_backend_errors_fail_the_passage_without_raising():
    class Broken(ScriptedChatModel):
        def _generate(self, *args, **kwargs):
            raise ConnectionError("server went away")

    result = extract_passage(Broken(), passage())
    assert not result.ok and "server went away" in result.error


def test_huge_unit_lists_are_capped():
    p = passage()
    unit = {
        "quote": "The Orrin Dam was designed by Hessa Varn.",
        "kind": "relation",
        "subject": "Orrin Dam",
        "predicate": "designed by",
        "object": "Hessa Varn",
    }
    result = extract_passage(ScriptedChatModel(responses=[units_json(*[unit] * 500)]), p)
    # the first 24 are checked (and deduplicated to one unit); the rest count as invalid unread
    assert result.ok and len(result.units) == 1 and result.proposed == 500
    assert result.invalid == 500 - 24


def test_a_quote_cut_at_the_length_cap_grounds_to_the_sentence_it_opens():
    long = Document(
        id="d2",
        title="Tessel Road",
        text=(
            "The Tessel Road was paved with granite from the Greywell quarries in the dry summer "
            "of 1884. The road was widened in 1930."
        ),
    )
    p = make_passages(long, 1500)[0]
    cut = "The Tessel Road was paved with granite from the Greywell"  # < half the sentence
    assert match_sentences(cut, p) == [p.sentences[0].id]
    assert match_sentences("The Tessel Road was paved with granit from the Greywel", p) == [
        p.sentences[0].id
    ]
    # an opening that no sentence has, and a fragment from a sentence's middle, ground nowhere
    assert match_sentences("The Tessel Road was paved with basalt from Lindmoor", p) == []
    assert match_sentences("from the Greywell quarries in the dry", p) == []


def test_a_raw_newline_inside_a_json_string_is_parsed():
    p = passage()
    raw = (
        '{"units":[{"quote":"The Orrin Dam was designed\nby Hessa Varn.","kind":"relation",'
        '"subject":"Orrin Dam","predicate":"designed by","object":"Hessa Varn"}]}'
    )
    result = extract_passage(ScriptedChatModel(responses=[raw]), p)
    assert result.ok, result.error
    assert [u.sentence_ids for u in result.units] == [[p.sentences[0].id]]


def test_an_object_left_in_the_predicate_is_split_out_only_if_the_sentence_holds_it():
    doc = Document(
        id="caldmere",
        title="Caldmere",
        text="Caldmere is a port town at the mouth of the Tessel River. It was founded in 1620.",
    )
    p = make_passages(doc)[0]
    quote = "Caldmere is a port town at the mouth of the Tessel River."

    def draft(predicate, obj):
        return {
            "quote": quote,
            "kind": "entity-fact",
            "subject": "Caldmere",
            "predicate": predicate,
            "object": obj,
        }

    model = ScriptedChatModel(
        responses=[
            units_json(
                # misspelt object, the claim's remainder in the predicate: split and kept
                draft("is a port town at the mouth of the Tessel River.", "Caldmundere"),
                # X-is-X with a predicate the sentence does not hold: dropped
                draft("is a fishing village", "Caldmere"),
                # a one-word predicate leaves nothing to split: dropped
                draft("is", "Caldmere"),
            )
        ]
    )
    result = extract_passage(model, p)
    assert [(u.subject, u.predicate, u.object) for u in result.units] == [
        ("Caldmere", "is", "a port town at the mouth of the Tessel River")
    ]
    assert result.units[0].evidence == quote
    assert result.ungrounded == 2
