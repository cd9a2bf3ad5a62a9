"""Bad input files each give one clear error naming the file; every other document is indexed."""

import time

from resin.evals.checks.bad_inputs import write_bad_inputs
from resin.indexes.build import Builder
from resin.indexes.documents import split_sentences
from resin.indexes.reading import load_documents
from resin.testing.chat import ScriptedChatModel, heuristic_reply

EXPECTED_ERRORS = {
    "empty.txt": "file is empty",
    "blank.md": "file is empty",
    "binary.txt": "looks binary (NUL bytes)",
    "latin1.txt": "not valid UTF-8",
    "title-only.md": "no text after the title",
    "malformed.jsonl": "malformed.jsonl:2: malformed JSON",
    "not-objects.jsonl": "expected an object with a string 'text'",
    "dup-in-file.jsonl": "duplicate document id 'twin'",
    "huge-line.txt": "-byte limit",
    "unsupported.pptx": "unsupported file type '.pptx'",
    "truncated.pdf": "not a readable PDF",
    "pipe.txt": "not a regular file",
    "missing.md": "no such file or folder",
    "zz-dup-across.jsonl": "duplicate document id 'good'",
}


def test_bad_files_give_one_clear_error_each_and_the_rest_is_indexed(tmp_path, open_index):
    folder = tmp_path / "inputs"
    bad, good = write_bad_inputs(folder)
    named = [p for p in bad if p.parent.name == "named"]
    started = time.monotonic()
    docs, errors = load_documents([folder, *named])
    assert time.monotonic() - started < 10  # the 50 MB line is refused by size, never read
    assert {p.name for p in bad} == set(EXPECTED_ERRORS)
    assert len(errors) == len(bad)
    for name, needle in EXPECTED_ERRORS.items():
        about = [str(e) for e in errors if f"{name}" in str(e)]
        assert len(about) == 1 and needle in about[0], (name, about)
    ids = {d.id for d in docs}
    assert len(docs) == good and {"good", "good-crlf", "../../etc/passwd", '{"$ne": null}'} <= ids
    assert next(d for d in docs if d.id == "good-crlf").text.startswith("Hessa")  # BOM dropped

    index = open_index(tmp_path / "index")
    report = Builder(index, ScriptedChatModel(responder=heuristic_reply)).run(docs)
    assert report.documents_indexed == good and not report.failed_passages and report.units
    assert all(r.complete for r in index.catalog.documents())
    # a single line with no sentence end is cut into bounded passages, not one giant passage
    long_pids = index.catalog.doc_passage_ids("long-line")
    assert len(long_pids) > 10
    assert max(len(p.text) for p in index.catalog.passages(long_pids)) <= 1000
    # ids with path, SQL, glob or filter syntax are only names: delete works, nothing escapes
    for doc_id in ids:
        assert Builder(index, None).delete(doc_id), doc_id
    assert not index.catalog.documents() and index.vectors.count("passages") == 0
    assert index.vectors.count("units") == 0 and index.graph.node_count() == 0
    assert {p.name for p in tmp_path.iterdir()} == {"inputs", "index"}


def test_sentences_keep_closing_quotes_and_brackets():
    text = 'He said "Go." Then he left (see the map.) Next came [the flood.] After that, rain.'
    assert split_sentences(text) == [
        'He said "Go."',
        "Then he left (see the map.)",
        "Next came [the flood.]",
        "After that, rain.",
    ]
