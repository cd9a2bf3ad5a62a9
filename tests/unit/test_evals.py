"""The eval harness: data loaders, the runner end to end, reports (metrics: test_metrics.py)."""

import json
from pathlib import Path

import pytest

from resin.evals import metrics
from resin.evals.data import (
    DataError,
    detect_format,
    load_dataset,
    sentence_index,
)
from resin.evals.systems import SYSTEMS, parse_systems
from resin.indexes.documents import make_passages

SHARED_DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data"


# --- loaders ------------------------------------------------------------------------------------
def _write_jsonl(path: Path, records: list[dict]) -> Path:
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n", encoding="utf-8")
    return path


def _para(title, sentences, supporting, with_sentences=True):
    p = {"title": title, "text": "".join(sentences), "is_supporting": supporting}
    if with_sentences:
        p["sentences"] = sentences
    return p


def hotpot_records():
    shared = _para("Kestrel Mill", ["The Kestrel Mill grinds flour."], False)
    return [
        {
            "id": "q1",
            "dataset": "synthetic",
            "question": "In which city was the designer of the Orrin Dam born?",
            "answers": ["Caldmere"],
            "type": "bridge",
            "paragraphs": [
                _para(
                    "Orrin Dam", ["The Orrin Dam was designed by Hessa Varn.", " It is tall."], True
                ),
                _para("Hessa Varn", ["Hessa Varn was born in Caldmere."], True),
                shared,
            ],
            "supporting_facts": [["Orrin Dam", 0], ["Hessa Varn", 0]],
        },
        {
            "id": "q2",
            "dataset": "synthetic",
            "question": "Which river does the Tessel Bridge cross?",
            "answers": ["the Sedge River"],
            "type": "bridge",
            "paragraphs": [
                _para("Tessel Bridge", ["The Tessel Bridge crosses the Sedge River."], True, False),
                shared,
                _para("Orrin Dam", ["A different Orrin Dam text."], False),
            ],
            "supporting_facts": [["Tessel Bridge", 0]],
            "chain": {"decomposition": ["extra fields are ignored"]},
        },
        {
            "id": "q3",
            "dataset": "synthetic",
            "question": "Is the Brannock Mine older than the Ysolde Station?",
            "answers": ["yes"],
            "type": "comparison",
            "paragraphs": [
                _para("Brannock Mine", ["The Brannock Mine opened in 1820."], True),
                _para("Ysolde Station", ["The Ysolde Station opened in 1901."], True),
            ],
            "supporting_facts": [["Brannock Mine", 0], ["Ysolde Station", 0]],
        },
    ]


def test_normalized_loader_builds_the_union_corpus(tmp_path):
    path = _write_jsonl(tmp_path / "tiny.jsonl", hotpot_records())
    assert detect_format(path) == "normalized"
    data = load_dataset(path)
    assert [q.id for q in data.questions] == ["q1", "q2", "q3"]
    # 8 paragraphs, one duplicate (Kestrel Mill) → 7 documents; the two Orrin Dam texts differ
    assert len(data.documents) == 7
    ids = {d.id for d in data.documents}
    assert "Kestrel Mill" in ids and "Hessa Varn" in ids
    assert sum(i.startswith("Orrin Dam#") for i in ids) == 2
    q1 = data.questions[0]
    assert q1.answers == ["Caldmere"]
    assert len(q1.gold_keys) == 2 and "Hessa Varn" in q1.gold_keys
    assert q1.gold_sentence_ids[1] == "Hessa Varn::0"
    # a paragraph without sentences gives no gold sentence ids to index into
    assert data.questions[1].gold_sentence_ids == []
    # one paragraph per passage
    assert all(len(make_passages(d, data.passage_chars)) == 1 for d in data.documents)


def test_limit_samples_and_subset_adds_distractors(tmp_path):
    path = _write_jsonl(tmp_path / "tiny.jsonl", hotpot_records())
    one = load_dataset(path, limit=1, seed=3)
    assert len(one.questions) == 1
    assert {d.id for d in one.documents} == set(one.questions[0].own_keys)
    again = load_dataset(path, limit=1, seed=3)
    assert again.questions[0].id == one.questions[0].id
    sub = load_dataset(path, limit=1, seed=3, subset=True)
    q = sub.questions[0]
    gold, own = set(q.gold_keys), set(q.own_keys)
    ids = {d.id for d in sub.documents}
    extra = ids - gold
    assert gold <= ids
    assert len(extra) == len(gold)
    # the question's own non-gold paragraphs are the first distractors taken
    assert own - gold <= extra or extra <= own - gold
    assert "subset" in sub.notes[0]


def test_sentence_index_maps_pieces_back_to_dataset_sentences(tmp_path):
    path = _write_jsonl(tmp_path / "tiny.jsonl", hotpot_records())
    data = load_dataset(path)
    mapping = sentence_index(data.documents, data.doc_sentences, data.passage_chars)
    orrin = next(d for d in data.documents if d.id.startswith("Orrin Dam") and "tall" in d.text)
    passage = make_passages(orrin, data.passage_chars)[0]
    assert [mapping[s.id] for s in passage.sentences] == [f"{orrin.id}::0", f"{orrin.id}::1"]


def test_qasc_style_questions_use_the_fact_pool_beside_them(tmp_path):
    question = {
        "id": "c1",
        "dataset": "qasc",
        "question": "Climate is generally described in terms of what?",
        "answers": ["local weather conditions"],
        "choices": [
            {"text": "sand", "label": "A"},
            {"text": "local weather conditions", "label": "B"},
        ],
        "answer_key": "B",
        "paragraphs": [],
        "supporting_facts": [["F1", None], ["F2", None]],
        "chain": {"fact1": "Climate is described by temperature.", "fact2": "Weather is local."},
    }
    path = _write_jsonl(tmp_path / "qasc_dev.jsonl", [question])
    without_pool = load_dataset(path)
    assert {d.id for d in without_pool.documents} == {"F1", "F2"}
    _write_jsonl(
        tmp_path / "qasc_gold_fact_pool.jsonl",
        [
            {"fact_id": "F1", "text": "Climate is described by temperature."},
            {"fact_id": "F2", "text": "Weather is local."},
            {"fact_id": "F3", "text": "Sand is made of rock."},
        ],
    )
    data = load_dataset(path)
    q = data.questions[0]
    assert q.choices == ["sand", "local weather conditions"] and q.answer_choice == 1
    assert q.gold_keys == ["F1", "F2"] and q.gold_sentence_ids == ["F1::0", "F2::0"]
    assert {d.id for d in data.documents} == {"F1", "F2", "F3"}
    assert data.has_choices


def test_holisqa_loader_maps_context_sentences(tmp_path):
    folder = tmp_path / "biology"
    folder.mkdir()
    sentences = [
        ("S1", "A1", 0, "Drought threatens forests worldwide."),
        ("S2", "A1", 1, "Dr. Varn measured 1820 trees. Growth fell by half."),
        ("S3", "A1", 2, "Deciduous species recovered faster."),
        ("S4", "A2", 0, "Compound 4l reduced cyst growth."),
    ]
    _write_jsonl(
        folder / "sentences.jsonl",
        [{"sentence_id": s, "article_id": a, "sent_idx": i, "text": t} for s, a, i, t in sentences],
    )
    _write_jsonl(
        folder / "articles.jsonl",
        [{"article_id": "A1", "title": "Drought"}, {"article_id": "A2", "title": "ADPKD"}],
    )
    qa = _write_jsonl(
        folder / "qa.jsonl",
        [
            {
                "qa_id": "QA1",
                "question": "How did growth respond to drought?",
                "answer": "Growth fell by half.",
                "context_sentence_ids": ["S2", "S3"],
            }
        ],
    )
    assert detect_format(qa) == "holisqa"
    data = load_dataset(qa)
    q = data.questions[0]
    assert q.gold_keys == ["A1"] and q.gold_sentence_ids == ["S2", "S3"]
    assert {d.id: d.title for d in data.documents} == {"A1": "Drought", "A2": "ADPKD"}
    # tiny passages: every piece is its own passage, and each maps to its dataset sentence
    doc = next(d for d in data.documents if d.id == "A1")
    mapping = sentence_index(data.documents, data.doc_sentences, 10)
    pieces = [s.id for p in make_passages(doc, 10) for s in p.sentences]
    assert [mapping[p] for p in pieces] == ["S1", "S2", "S2", "S3"]


def test_official_hotpotqa_json(tmp_path):
    items = [
        {
            "_id": "h1",
            "question": "Who designed the Orrin Dam?",
            "answer": "Hessa Varn",
            "type": "bridge",
            "context": [
                ["Orrin Dam", ["The Orrin Dam was designed by Hessa Varn.", " It is tall."]],
                ["Kestrel Mill", ["The Kestrel Mill grinds flour."]],
            ],
            "supporting_facts": [["Orrin Dam", 0]],
        }
    ]
    path = tmp_path / "hotpot_dev_distractor_v1.json"
    path.write_text(json.dumps(items), encoding="utf-8")
    assert detect_format(path) == "hotpotqa-official"
    data = load_dataset(path)
    q = data.questions[0]
    assert (q.id, q.answers, q.gold_keys) == ("h1", ["Hessa Varn"], ["Orrin Dam"])
    assert q.gold_sentence_ids == ["Orrin Dam::0"]
    assert len(data.documents) == 2


def test_bad_input_is_named(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "x", "question": "q?"}\nnot json\n', encoding="utf-8")
    with pytest.raises(DataError, match="bad.jsonl:2"):
        load_dataset(bad)
    with pytest.raises(ValueError, match="unknown system"):
        parse_systems("dense,telepathy")
    assert parse_systems("agent,dense") == ["dense", "agent"]
    assert parse_systems("all") == list(SYSTEMS)


# --- the runner, end to end with the fake model -------------------------------------------------
@pytest.fixture(scope="module")
def smoke_run(tmp_path_factory):
    from resin.evals.cli import main

    root = tmp_path_factory.mktemp("evalsmoke")
    data = _write_jsonl(root / "tiny.jsonl", hotpot_records())
    out = root / "out"
    argv = ["eval", "--data", str(data), "--systems", "all", "--limit", "3"]
    argv += ["--model", "fake", "--out", str(out), "--quiet"]
    assert main(argv) == 0
    return out, argv


def test_smoke_run_writes_every_report(smoke_run):
    out, _ = smoke_run
    summary = (out / "summary.md").read_text(encoding="utf-8")
    rows = [line for line in summary.splitlines() if line.startswith("| ")][1:]
    assert [r.split("|")[1].strip() for r in rows] == list(SYSTEMS)
    report = json.loads((out / "results.json").read_text(encoding="utf-8"))
    assert list(report["systems"]) == list(SYSTEMS)
    assert all(fig["questions"] == 3 and fig["errors"] == 0 for fig in report["systems"].values())
    assert report["systems"]["dense"]["recall@5"] is not None
    assert report["systems"]["none"]["recall@5"] is None
    assert report["build"]["units"] > 0  # the parser extracted units (--extract nlp, the default)
    assert (out / "plot.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    for name in SYSTEMS:
        traces = (out / "traces" / f"{name}.jsonl").read_text(encoding="utf-8").splitlines()
        assert len(traces) == 3
        trace = json.loads(traces[0])
        for key in ("plan", "hops", "evidence", "chains", "answer"):
            assert key in trace
    agent = json.loads((out / "traces" / "agent.jsonl").read_text().splitlines()[0])
    assert agent["plan"] and agent["evidence"] and agent["answer"]


def test_smoke_run_resumes_without_redoing_work(smoke_run):
    from resin.evals.cli import main

    out, argv = smoke_run
    before = {p.name: p.read_text() for p in (out / "results").glob("*.jsonl")}
    assert main(argv) == 0
    after = {p.name: p.read_text() for p in (out / "results").glob("*.jsonl")}
    assert before == after
    changed = [a if a != "3" else "2" for a in argv]  # another sample: refused
    assert main(changed) == 2


def test_answers_in_flight_at_once_give_the_rows_of_a_sequential_run(smoke_run, tmp_path):
    from resin.evals.cli import main

    out, argv = smoke_run
    again = tmp_path / "concurrent"
    argv = [str(again) if a == str(out) else a for a in argv]
    argv[argv.index("all")] = "dense,agent"
    assert main([*argv, "--concurrency", "3"]) == 0

    def rows(folder, name):
        lines = (folder / "results" / f"{name}.jsonl").read_text().splitlines()
        return [
            {k: v for k, v in json.loads(line).items() if k not in ("latency", "stages")}
            for line in lines
        ]

    for name in ("dense", "agent"):
        assert rows(again, name) == rows(out, name)


# --- real data (skipped where ../shared/data is absent) ----------------------------------------
@pytest.mark.skipif(not SHARED_DATA.exists(), reason="no ../shared/data beside the checkout")
def test_loaders_on_the_shared_data():
    hotpot = load_dataset(SHARED_DATA / "hotpotqa" / "hotpotqa_dev_300.jsonl")
    assert len(hotpot.questions) == 300 and len(hotpot.documents) == 2973
    assert all(len(q.gold_keys) == 2 for q in hotpot.questions)
    qasc = load_dataset(SHARED_DATA / "qasc" / "qasc_dev_926.jsonl", limit=20)
    assert len(qasc.documents) == 7671 and all(q.choices for q in qasc.questions)
    holis = load_dataset(SHARED_DATA / "holisqa" / "medicine" / "qa.jsonl", limit=20)
    mapping = sentence_index(holis.documents, holis.doc_sentences, holis.passage_chars)
    mapped = set(mapping.values())
    assert all(s in mapped for q in holis.questions for s in q.gold_sentence_ids)


def test_an_unfinished_run_is_compared_on_the_questions_every_system_answered():
    from resin.evals.report import paired

    def row(qid, f1, error=""):
        return {
            "id": qid,
            "f1": f1,
            "prompt_tokens": 1,
            "completion_tokens": 1,
            "latency": 1.0,
            "error": error,
        }

    rows_of = {
        "dense": [row("a", 1.0), row("b", 0.0), row("c", 0.0)],
        "agent": [row("a", 0.5), row("b", 1.0), row("c", 0.0, error="boom")],
    }
    figures = paired(rows_of, {})
    assert figures["questions"] == 2  # c failed for the agent: left out for both
    assert figures["systems"]["dense"]["f1"] == 50.0
    assert figures["systems"]["agent"]["f1"] == 75.0
    assert paired({"dense": rows_of["dense"], "bm25": rows_of["dense"]}, {}) == {}


def test_read_f1_scores_the_answer_with_its_supporting_sentences_not_the_sources():
    from resin.evals.data import Question
    from resin.evals.scoring import Corpus, score
    from resin.evals.systems import Outcome
    from resin.indexes.embeddings import make_embedder

    gold = "Silverfin stop spawning when the river water rises above 18 degrees in summer"
    message = (
        "stops spawning\n\n- If the water temperature rises above 18 degrees, the silverfin "
        'stops spawning. [1]\n\nSources:\n- [1] Silverfin: "If the water temperature rises '
        'above 18 degrees, the silverfin stops spawning."'
    )
    q = Question(id="h", question="What happens to the silverfin in a warm summer?", answers=[gold])
    corpus = Corpus(passages=[], doc_of={}, sentences_of={}, dataset_sentence={})
    embedder = make_embedder("minilm")
    row = score(q, Outcome("stops spawning", trace={"message": message}), corpus, embedder, False)
    read = "stops spawning If the water temperature rises above 18 degrees, the silverfin stops spawning."
    assert row["read_f1"] == pytest.approx(metrics.f1(read, [gold]))
    assert row["read_f1"] > row["f1"] > 0
    empty = score(
        q, Outcome("", trace={"message": "I could not find this."}), corpus, embedder, False
    )
    assert empty["read_f1"] == 0.0


def test_answer_mode_is_part_of_the_run_and_of_its_command(tmp_path):
    import argparse

    from resin.evals.cli import command_line, register
    from resin.evals.runner import RunConfig, fingerprint

    parser = argparse.ArgumentParser()
    register(parser.add_subparsers())
    args = parser.parse_args(
        ["eval", "--data", "d.jsonl", "--out", "o", "--answer-mode", "choices"]
    )
    assert "--answer-mode choices" in command_line(args)
    data = load_dataset(_write_jsonl(tmp_path / "tiny.jsonl", hotpot_records()))
    auto = fingerprint(RunConfig(data="d", out="o"), data, 1500)
    picked = fingerprint(RunConfig(data="d", out="o", answer_mode="choices"), data, 1500)
    assert "answer_mode" not in auto and picked["answer_mode"] == "choices"
    served = fingerprint(RunConfig(data="d", out="o", database="postgresql://h/db"), data, 1500)
    assert "served_from" not in auto and served["served_from"] == "postgresql"
    args = parser.parse_args(
        ["eval", "--data", "d.jsonl", "--out", "o", "--database", "postgresql://u:pw@h/db"]
    )
    assert "--database 'postgresql://u:***@h/db'" in command_line(args)
    assert "pw" not in command_line(args)
