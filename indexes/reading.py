"""Files → documents: which files are read, how, and within which limits.

Text comes from .txt, .md and .jsonl files, from the text layer of .pdf files (pypdf), the
visible text of .html/.htm pages (BeautifulSoup) and the paragraphs of .docx files (python-docx),
whose readers are in `resin.indexes.formats`. A file that cannot be read is a `DocumentError`
naming it; the other files are still read.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from resin.indexes.documents import Document, DocumentError, content_hash

TEXT_SUFFIXES = (".txt", ".md", ".jsonl")
SUPPORTED_SUFFIXES = (*TEXT_SUFFIXES, ".pdf", ".html", ".htm", ".docx")
MAX_FILE_BYTES = 20 * 1024 * 1024
# PDF and DOCX files carry images and fonts besides their text.
MAX_PACKED_FILE_BYTES = 200 * 1024 * 1024
MAX_DOCUMENT_CHARS = 2_000_000
# The reason of a `.jsonl` line that is not indexed while the file's other lines are.
BAD_LINE = "bad line"


def _decode(path: Path, data: bytes) -> str:
    if not data.strip():
        raise DocumentError(f"{path}: file is empty", "empty")
    if b"\x00" in data[:8192]:
        raise DocumentError(f"{path}: looks binary (NUL bytes), not text")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise DocumentError(f"{path}: not valid UTF-8 (byte {exc.start})") from exc


def _heading(text: str) -> tuple[str, str] | None:
    """A leading Markdown heading and the text after it, if the text opens with one."""
    lines = text.lstrip().splitlines()
    if lines and lines[0].startswith("#"):
        return lines[0].lstrip("#").strip(), "\n".join(lines[1:])
    return None


def _title_of(path: Path, text: str) -> tuple[str, str]:
    """Take a leading Markdown heading as the title, else the file name."""
    return _heading(text) or (stem_title(path), text)


def _check_size(doc_id: str, source: str, text: str) -> None:
    if len(text) > MAX_DOCUMENT_CHARS:
        raise DocumentError(
            f"{source}: document {doc_id!r} has {len(text):,} characters, over the "
            f"{MAX_DOCUMENT_CHARS:,} limit; split it into smaller documents"
        )


def read_file(
    path: Path, root: Path | None = None, line_errors: list[DocumentError] | None = None
) -> list[Document]:
    """Read one supported file into documents, raising `DocumentError` on bad input.

    A `.jsonl` file is read line by line: with `line_errors`, a bad line is added there and the
    other lines are read; without, the first bad line is raised.
    """
    # late: indexes.formats imports this module's stem_title
    from resin.indexes.formats import read_docx, read_html, read_pdf

    suffix = path.suffix.lower()
    if suffix not in SUPPORTED_SUFFIXES:
        raise DocumentError(
            f"{path}: unsupported file type {path.suffix!r} (use {', '.join(SUPPORTED_SUFFIXES)})",
            "unsupported type",
        )
    if not path.is_file():
        raise DocumentError(f"{path}: not a regular file")
    size = path.stat().st_size
    limit = MAX_FILE_BYTES if suffix not in (".pdf", ".docx") else MAX_PACKED_FILE_BYTES
    if size > limit:
        raise DocumentError(f"{path}: {size:,} bytes is over the {limit:,}-byte limit", "too large")
    if size == 0:
        raise DocumentError(f"{path}: file is empty", "empty")
    if suffix == ".pdf":
        title, body = read_pdf(path)
    elif suffix == ".docx":
        title, body = read_docx(path)
    elif suffix in (".html", ".htm"):
        title, body = read_html(path, path.read_bytes())
    else:
        text = _decode(path, path.read_bytes())
        if suffix == ".jsonl":
            return _read_jsonl(path, text, line_errors)
        title, body = _title_of(path, text)
    rel = path.relative_to(root) if root and path.is_relative_to(root) else Path(path.name)
    doc_id = rel.with_suffix("").as_posix()
    _check_size(doc_id, str(path), body)
    if not body.strip():
        raise DocumentError(f"{path}: no text after the title", "empty")
    return [Document(id=doc_id, title=title, text=body, source=str(path))]


def text_document(text: str, title: str | None = None, doc_id: str | None = None) -> Document:
    """A document from a string: titled by its leading Markdown heading, else its opening words.

    The id is the text's content hash unless given, so the same text indexed twice is one
    document; a text with nothing to index is a `DocumentError`.
    """
    body = text
    if title is None:
        words = text.split()
        title, body = _heading(text) or (" ".join(words[:8]) + (" …" * (len(words) > 8)), text)
    doc_id = doc_id or f"text-{content_hash(title, body, length=12)}"
    _check_size(doc_id, "text", body)
    if not body.strip():
        raise DocumentError(f"text {doc_id!r}: nothing to index", "empty")
    return Document(id=doc_id, title=title, text=body, source="text")


def stem_title(path: Path) -> str:
    """A title made of a file's name: "salt-ledger_road.md" → "salt ledger road"."""
    return path.stem.replace("_", " ").replace("-", " ")


def jsonl_records(
    path: Path,
    text: str,
    error: type[ValueError] = DocumentError,
    bad_line: Callable[[ValueError], None] | None = None,
) -> Iterator[tuple[int, Any]]:
    """(line number, decoded value) of each non-blank line; `error` names a malformed one.

    The error is raised, or with `bad_line` handed to it and the next line read.
    """
    for lineno, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            yield lineno, json.loads(line)
        except json.JSONDecodeError as exc:
            problem = error(f"{path}:{lineno}: malformed JSON ({exc.msg})")
            if bad_line is None:
                raise problem from exc
            bad_line(problem)


def _read_jsonl(path: Path, text: str, line_errors: list[DocumentError] | None) -> list[Document]:
    """The documents of a JSONL file's good lines; each bad line is one error naming it."""
    documents: list[Document] = []
    seen: set[str] = set()

    def bad(problem: object) -> None:
        error = DocumentError(str(problem), BAD_LINE)
        if line_errors is None:
            raise error
        line_errors.append(error)

    for lineno, record in jsonl_records(path, text, bad_line=bad):
        where = f"{path}:{lineno}"
        if not isinstance(record, dict) or not isinstance(record.get("text"), str):
            bad(f"{where}: expected an object with a string 'text'")
            continue
        doc_id = str(record.get("id") or record.get("title") or f"{path.stem}-{lineno}")
        if doc_id in seen:
            bad(f"{where}: duplicate document id {doc_id!r}")
            continue
        if not record["text"].strip():
            bad(f"{where}: document {doc_id!r} has empty text")
            continue
        try:
            _check_size(doc_id, where, record["text"])
        except DocumentError as exc:
            bad(exc)
            continue
        seen.add(doc_id)
        title = str(record.get("title") or doc_id)
        documents.append(Document(id=doc_id, title=title, text=record["text"], source=where))
    return documents


def iter_files(paths: Iterable[str | Path]) -> Iterator[tuple[Path, Path | None]]:
    """Yield (file, root folder) for every file under the given paths, sorted, each once.

    Every file of a folder is yielded, so one that cannot be indexed is named, not passed over;
    hidden files and folders (".git", ".DS_Store") are left out.
    """
    seen: set[Path] = set()
    for raw in paths:
        path = Path(raw)
        found: list[tuple[Path, Path | None]]
        if path.is_dir():
            found = [
                (child, path)
                for child in sorted(path.rglob("*"))
                if child.is_file()
                and not any(part.startswith(".") for part in child.relative_to(path).parts)
            ]
        else:
            found = [(path, None)]
        for file, root in found:
            key = file.resolve()
            if key not in seen:
                seen.add(key)
                yield file, root


def load_documents(paths: Iterable[str | Path]) -> tuple[list[Document], list[DocumentError]]:
    """Load every document under `paths`; bad files and bad lines become errors, the rest loads."""
    documents: list[Document] = []
    errors: list[DocumentError] = []
    seen: dict[str, str] = {}
    for path, root in iter_files(paths):
        try:
            if not path.exists():
                raise DocumentError(f"{path}: no such file or folder", "missing")
            for doc in read_file(path, root, errors):
                if doc.id in seen:
                    errors.append(
                        DocumentError(
                            f"{doc.source}: duplicate document id {doc.id!r} "
                            f"(also in {seen[doc.id]})",
                            BAD_LINE if path.suffix.lower() == ".jsonl" else "duplicate id",
                        )
                    )
                    continue
                seen[doc.id] = doc.source
                documents.append(doc)
        except DocumentError as exc:
            errors.append(exc)
        except OSError as exc:
            errors.append(DocumentError(f"{path}: cannot read ({exc.strerror})"))
    return documents, errors
