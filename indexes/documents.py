"""Documents → passages → sentences, each with an id derived from content.

Re-reading the same text yields the same ids, which is what makes indexing idempotent:
every store upserts by these ids and the extraction cache is keyed by the passage hash.

Files are read into documents by `resin.indexes.reading`. A heading in HTML or DOCX starts a
new passage (`SECTION_BREAK`).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator
from dataclasses import dataclass, field

# Between two sections of a document (a heading starts one): no passage spans it.
SECTION_BREAK = "\f"
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
