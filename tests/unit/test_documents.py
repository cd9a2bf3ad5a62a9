import json

from indexes.documents import Document, load_documents, make_passages, split_sentences


def test_sentences_keep_abbreviations_and_initials():
    text = "Dr. Hessa Varn built it in 1911. J. R. Moss disagreed! Was it safe? Yes."
    assert split_sentences(text) == [
        "Dr. Hessa Varn built it in 1911.",
        "J. R. Moss disagreed!",
        "Was it safe?",
        "Yes.",
    ]


def test_passage_and_sentence_ids_are_stable_and_content_derived():
    doc = Document(id="d1", title="T", text="One sentence here. " * 80)
    first, again = make_passages(doc, max_chars=300), make_passages(doc, max_chars=300)
    assert [p.id for p in first] == [p.id for p in again] and len(first) > 3
    assert all(len(p.text) <= 300 for p in first)
    assert first[0].sentences[1].id == f"{first[0].id}:1"
    changed = make_passages(Document(id="d1", title="T", text="Another text. " * 80), max_chars=300)
    assert {p.id for p in changed}.isdisjoint(p.id for p in first)


def test_loads_txt_md_jsonl_and_reports_bad_files(tmp_path):
    (tmp_path / "a.md").write_text("# Orrin Dam\n\nThe dam is old.\n", encoding="utf-8")
    (tmp_path / "b.txt").write_text("Plain text document.", encoding="utf-8")
    (tmp_path / "c.jsonl").write_text(
        json.dumps({"id": "x1", "title": "X", "text": "X is a thing."})
        + "\n"
        + json.dumps({"id": "x2", "title": "Y", "text": "Y too."})
        + "\n",
        encoding="utf-8",
    )
    (tmp_path / "empty.txt").write_text("   \n", encoding="utf-8")
    (tmp_path / "binary.txt").write_bytes(b"\x00\x01\x02abc")
    (tmp_path / "latin.txt").write_bytes("caf\xe9".encode("latin-1"))
    (tmp_path / "bad.jsonl").write_text('{"id": "z", "text": "ok"}\n{broken\n', encoding="utf-8")
    docs, errors = load_documents([tmp_path, tmp_path / "missing.md"])
    assert sorted(d.id for d in docs) == ["a", "b", "x1", "x2"]
    assert next(d for d in docs if d.id == "a").title == "Orrin Dam"
    messages = "\n".join(map(str, errors))
    for needle in (
        "empty.txt: file is empty",
        "binary.txt: looks binary",
        "latin.txt: not valid UTF-8",
        "bad.jsonl:2: malformed JSON",
        "missing.md: no such file",
    ):
        assert needle in messages
    assert len(errors) == 5


def test_oversized_file_is_refused(tmp_path, monkeypatch):
    import indexes.documents as documents

    monkeypatch.setattr(documents, "MAX_FILE_BYTES", 1000)
    (tmp_path / "big.txt").write_text("word " * 400, encoding="utf-8")
    docs, errors = load_documents([tmp_path])
    assert not docs and "over the 1,000-byte limit" in str(errors[0])
