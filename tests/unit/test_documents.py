import json
import shutil
import zipfile
from pathlib import Path

from resin.indexes.documents import SECTION_BREAK, Document, make_passages, split_sentences
from resin.indexes.reading import load_documents


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
    assert sorted(d.id for d in docs) == ["a", "b", "x1", "x2", "z"]  # bad.jsonl's good line
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
    import resin.indexes.reading as reading

    monkeypatch.setattr(reading, "MAX_FILE_BYTES", 1000)
    (tmp_path / "big.txt").write_text("word " * 400, encoding="utf-8")
    docs, errors = load_documents([tmp_path])
    assert not docs and "over the 1,000-byte limit" in str(errors[0])


# --- PDF, HTML and DOCX -------------------------------------------------------------------------
DOCUMENTS = Path(__file__).resolve().parents[1] / "documents"


def write_docx(path: Path) -> Path:
    from docx import Document as WordDocument

    word = WordDocument()
    word.core_properties.title = "Lindmoor"
    word.add_paragraph("Lindmoor is a college town in the hills.")
    word.add_heading("Engineering school", level=1)
    word.add_paragraph("Hessa Varn studied engineering in Lindmoor.")
    word.add_paragraph("")
    word.add_paragraph("The school trained the builders of the Orrin Dam.")
    word.save(str(path))
    return path


def test_pdf_html_and_docx_are_read_as_text(tmp_path):
    write_docx(tmp_path / "lindmoor.docx")
    docs, errors = load_documents(
        [DOCUMENTS / "orrin-dam.pdf", DOCUMENTS / "caldmere.html", tmp_path / "lindmoor.docx"]
    )
    assert not errors
    pdf, html, docx = docs
    assert (pdf.id, pdf.title) == ("orrin-dam", "The Orrin Dam")
    assert "designed by Hessa Varn in 1911." in pdf.text and "born in the port town" in pdf.text
    assert html.title == "Caldmere"
    for hidden in ("tracker", "font-family", "editor's comment", "Enable JavaScript", "<"):
        assert hidden not in html.text
    sentences = split_sentences(html.text.replace(SECTION_BREAK, "\n\n"))
    assert "Caldmere is a port town at the mouth of the Tessel River." in sentences
    assert "Founded by fishermen." in sentences and "Walled in 1620." in sentences
    assert docx.title == "Lindmoor" and "studied engineering" in docx.text

    # a heading starts a passage even when the passage has room for more
    assert [p.text.split(".")[0] for p in make_passages(html, max_chars=5000)] == [
        "Caldmere Caldmere is a port town at the mouth of the Tessel River",
        "History The town grew when the Salt Ledger Road reached the coast",
    ]
    docx_passages = make_passages(docx, max_chars=5000)
    assert [p.text for p in docx_passages] == [
        "Lindmoor is a college town in the hills.",
        "Engineering school Hessa Varn studied engineering in Lindmoor. "
        "The school trained the builders of the Orrin Dam.",
    ]
    # pages of a PDF are paragraphs, not sections: one passage when it fits
    assert len(make_passages(pdf, max_chars=5000)) == 1


def bad_documents(folder: Path) -> dict[str, str]:
    """Files that must each be refused by name, and the reason each must give."""
    from pypdf import PdfReader, PdfWriter

    folder.mkdir()
    encrypted = PdfWriter(clone_from=PdfReader(DOCUMENTS / "orrin-dam.pdf"))
    encrypted.encrypt(user_password="secret", owner_password="owner", algorithm="RC4-128")
    encrypted.write(folder / "locked.pdf")
    blank = PdfWriter()
    blank.add_blank_page(width=612, height=792)
    blank.write(folder / "scan.pdf")
    (folder / "broken.pdf").write_bytes(b"%PDF-1.4\n1 0 obj <<")
    (folder / "garbage.html").write_bytes(b"\x00\x01\x02\x89PNG\r\n\x1a\n")
    (folder / "only-script.html").write_text(
        "<html><head><title>T</title><script>var x = 1;</script></head><body>  </body>"
    )
    with zipfile.ZipFile(folder / "not-word.docx", "w") as archive:
        archive.writestr("notes.txt", "This zip holds no Word document.")
    (folder / "sealed.docx").write_bytes(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 512)
    (folder / "picture.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    (folder / "empty.pdf").write_bytes(b"")
    return {
        "locked.pdf": "encrypted",
        "scan.pdf": "no text layer",
        "broken.pdf": "unreadable",
        "garbage.html": "unreadable",
        "only-script.html": "empty",
        "not-word.docx": "unreadable",
        "sealed.docx": "encrypted",
        "picture.png": "unsupported type",
        "empty.pdf": "empty",
    }


def test_bad_pdf_html_and_docx_files_are_refused_by_name_and_good_ones_kept(tmp_path):
    folder = tmp_path / "docs"
    expected = bad_documents(folder)
    shutil.copy(DOCUMENTS / "orrin-dam.pdf", folder)
    shutil.copy(DOCUMENTS / "caldmere.html", folder)
    write_docx(folder / "lindmoor.docx")
    (folder / ".hidden.txt").write_text("A hidden file is not a document.")
    # an unclosed paragraph is still read, as a browser would
    (folder / "unclosed.htm").write_text("<html><body><p>Sedge Flats flood every spring.<p>Then")
    docs, errors = load_documents([folder, folder / "locked.pdf"])  # named twice: one error
    assert sorted(d.id for d in docs) == ["caldmere", "lindmoor", "orrin-dam", "unclosed"]
    assert len(errors) == len(expected)
    for name, reason in expected.items():
        about = [e for e in errors if Path(str(e).split(":")[0]).name == name]
        assert len(about) == 1 and about[0].reason == reason, (name, [str(e) for e in about])
    messages = "\n".join(map(str, errors))
    assert "the PDF has no text layer" in messages and "password" in messages
    assert "unsupported file type '.png'" in messages
