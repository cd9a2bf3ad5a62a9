"""Documents → passages → sentences, each with an id derived from content.

Re-reading the same text yields the same ids, which is what makes indexing idempotent:
every store upserts by these ids and the extraction cache is keyed by the passage hash.

Text comes from .txt, .md and .jsonl files, from the text layer of .pdf files (pypdf), the
visible text of .html/.htm pages (BeautifulSoup) and the paragraphs of .docx files (python-docx),
whose readers are in `resin.indexes.formats`. A heading in HTML or DOCX starts a new passage.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

TEXT_SUFFIXES = (".txt", ".md", ".jsonl")
SUPPORTED_SUFFIXES = (*TEXT_SUFFIXES, ".pdf", ".html", ".htm", ".docx")
MAX_FILE_BYTES = 20 * 1024 * 1024
# PDF and DOCX files carry images and fonts besides their text.
MAX_PACKED_FILE_BYTES = 200 * 1024 * 1024
# Between two sections of a document (a heading starts one): no passage spans it.
SECTION_BREAK = "\f"
MAX_DOCUMENT_CHARS = 2_000_000
# The reason of a `.jsonl` line that is not indexed while the file's other lines are.
BAD_LINE = "bad line"
MAX_SENTENCE_CHARS = 1000
# ~350 tokens: a typical document section is one passage, so the extraction prompt's fixed part
# (~150 tokens) is paid once per section, not once per paragraph.
DEFAULT_PASSAGE_CHARS = 1500

# A sentence ends at . ! or ? followed by whitespace and an upper-case letter, digit or quote;
# common abbreviations are protected so "Dr. Varn" stays one sentence.
_ABBREVIATIONS = (
    "Mr",
    "Mrs",
    "Ms",
    "Dr",
    "St",
    "Prof",
    "Jr",
    "Sr",
    "vs",
    "etc",
    "e.g",
    "i.e",
    "No",
)
# A closing quote or bracket after the punctuation stays with its sentence.
_SENTENCE_END = re.compile(r"(?:(?<=[.!?])|(?<=[.!?][\"')\]]))\s+(?=[\"'(\[]?[A-Z0-9])")
_ABBREV_TAIL = re.compile(r"(?:^|\s)(?:" + "|".join(re.escape(a) for a in _ABBREVIATIONS) + r")\.$")
_INITIAL_TAIL = re.compile(r"(?:^|\s)[A-Z]\.$")
# Longer than any abbreviation plus the space before it: the tails above are matched on this many
# characters, not on the whole pending sentence (which made "J. J. J. …" quadratic).
_TAIL_CHARS = 12
# A run of characters with no space longer than a sentence (a line of base64, minified data) is
# no text anyone reads or cites: it keeps its opening, as one sentence, marked as cut.
_LONG_RUN = re.compile(rf"\S{{{MAX_SENTENCE_CHARS + 1},}}")
_CUT = "…"
# Chat markup: role tags (<system>, </user>, <|im_start|>assistant, [INST]) anywhere, and a role
# name opening a line ("SYSTEM:", "User:"). Each is a sentence of its own, so it never joins, or
# is cited inside, a sentence of fact.
_ROLES = "system|user|assistant|human|developer|tool"
_MARKUP = re.compile(
    rf"<\|[\w-]{{1,32}}\|>(?:[ \t]*(?:{_ROLES})\b)?|</?(?:{_ROLES})[ \t]*>|\[/?INST\]"
    rf"|^[ \t]*(?:{_ROLES})[ \t]*:",
    re.I | re.M,
)


class DocumentError(ValueError):
    """A file or record that cannot be indexed; the message names the file and the problem.

    `reason` is the short kind of problem the `resin index` summary counts files by.
    """

    def __init__(self, message: str, reason: str = "unreadable") -> None:
        super().__init__(message)
        self.reason = reason


def content_hash(*parts: str, length: int = 16) -> str:
    """Return a short, stable hex digest of the given strings."""
    digest = hashlib.sha1("\x1f".join(parts).encode("utf-8")).hexdigest()
    return digest[:length]


@dataclass(frozen=True)
class Sentence:
    """One sentence of a passage; its id is the passage id plus its position."""

    id: str
    text: str


@dataclass(frozen=True)
class Passage:
    """A sentence-aligned slice of a document: the unit of extraction and of retrieval."""

    id: str
    doc_id: str
    title: str
    position: int
    text: str
    sentences: tuple[Sentence, ...]

    @property
    def hash(self) -> str:
        """Content hash used as the extraction cache key."""
        return content_hash(self.title, self.text)


@dataclass(frozen=True)
class Document:
    """A source document as read from a file or a JSONL record."""

    id: str
    title: str
    text: str
    source: str = ""
    hash: str = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "hash", content_hash(self.id, self.title, self.text))

    @property
    def content(self) -> str:
        """The hash of what the document says, whatever its id (the same file from two folders)."""
        return content_hash(self.title, self.text)


def _wrap(sentence: str, max_chars: int = MAX_SENTENCE_CHARS) -> list[str]:
    """Cut a sentence longer than `max_chars` at spaces (hard cuts when it has none)."""
    if len(sentence) <= max_chars:
        return [sentence]
    pieces, start = [], 0
    while len(sentence) - start > max_chars:
        cut = sentence.rfind(" ", start + 1, start + max_chars + 1)
        if cut <= start:
            cut = start + max_chars
        pieces.append(sentence[start:cut].rstrip())
        start = cut + (sentence[cut] == " ")
    pieces.append(sentence[start:])
    return [p for p in pieces if p]


def long_runs(text: str) -> list[int]:
    """The lengths of the runs without a space that `split_sentences` cuts to their opening."""
    return [m.end() - m.start() for m in _LONG_RUN.finditer(text)]


def _segments(block: str) -> Iterator[str]:
    """A block's text between chat markup, and each piece of markup on its own."""
    start = 0
    for match in _MARKUP.finditer(block):
        yield block[start : match.start()]
        yield match.group()
        start = match.end()
    yield block[start:]


def split_sentences(text: str) -> list[str]:
    """Split text into sentences on end punctuation, keeping abbreviations and initials intact.

    A "sentence" longer than `MAX_SENTENCE_CHARS` (a line with no end punctuation) is cut at
    spaces, so no passage, and no prompt or quote match built from one, grows without bound; a
    run with no space that long keeps only its opening (`long_runs`). Chat markup (`_MARKUP`)
    ends the sentence before it and is a sentence of its own.
    """
    pieces: list[str] = []
    for block in re.split(r"\n\s*\n", text):
        block = _LONG_RUN.sub(lambda m: m.group()[: MAX_SENTENCE_CHARS - len(_CUT)] + _CUT, block)
        for segment in _segments(block):
            pieces.extend(_sentences(" ".join(segment.split())))
    return pieces


def _sentences(block: str) -> list[str]:
    """The sentences of one run of text (whitespace already folded)."""
    pieces: list[str] = []
    start = 0
    for match in _SENTENCE_END.finditer(block):
        tail = block[max(start, match.start() - _TAIL_CHARS) : match.start()]
        if _ABBREV_TAIL.search(tail) or _INITIAL_TAIL.search(tail):
            continue
        pieces.extend(_wrap(block[start : match.start()].rstrip()))
        start = match.end()
    tail = block[start:].strip()
    if tail:
        pieces.extend(_wrap(tail))
    return [p for p in pieces if p.strip()]


def make_passages(doc: Document, max_chars: int = 800) -> list[Passage]:
    """Group a document's sentences into passages of at most `max_chars` (a sentence never splits).

    A passage never spans a `SECTION_BREAK`.
    """
    groups: list[list[str]] = []
    for section in doc.text.split(SECTION_BREAK):
        current: list[str] = []
        size = 0
        for sentence in split_sentences(section):
            if current and size + len(sentence) + 1 > max_chars:
                groups.append(current)
                current, size = [], 0
            current.append(sentence)
            size += len(sentence) + 1
        if current:
            groups.append(current)
    passages = []
    for position, group in enumerate(groups):
        text = " ".join(group)
        pid = "p" + content_hash(doc.id, str(position), text, length=15)
        passages.append(
            Passage(
                id=pid,
                doc_id=doc.id,
                title=doc.title,
                position=position,
                text=text,
                sentences=tuple(Sentence(f"{pid}:{i}", s) for i, s in enumerate(group)),
            )
        )
    return passages


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
    # late: indexes.formats imports this module's DocumentError and SECTION_BREAK
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
