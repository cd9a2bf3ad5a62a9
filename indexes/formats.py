"""Readers of the packed formats: the text of PDF, HTML and DOCX files, and their titles.

Each needs a library (pypdf, BeautifulSoup, python-docx) that is imported only when a file of its
kind is read, and each turns that library's many failures into one `DocumentError` naming the
file; `resin.indexes.documents.read_file` picks the reader by the file's suffix.
"""

from __future__ import annotations

import logging
import re
from pathlib import Path

from resin.indexes.documents import SECTION_BREAK, DocumentError
from resin.indexes.reading import stem_title


def read_pdf(path: Path) -> tuple[str, str]:
    """The text layer of every page (pages apart as paragraphs) and the PDF's title, if it has one.

    An encrypted PDF is read only when it opens with the empty password (as viewers do).
    """
    from pypdf import PdfReader

    # pypdf logs what it repairs or gives up on; the error below names the file and the cause.
    logging.getLogger("pypdf").setLevel(logging.ERROR)
    try:
        reader = PdfReader(path)
        if reader.is_encrypted and not reader.decrypt(""):
            raise DocumentError(f"{path}: the PDF is encrypted (a password is needed)", "encrypted")
        pages = [page.extract_text() or "" for page in reader.pages]
        title = reader.metadata.title if reader.metadata else None
    except DocumentError:
        raise
    except Exception as exc:  # noqa: BLE001 - pypdf raises many kinds on broken files
        if "cryptography" in str(exc) or "AES" in str(exc):
            raise DocumentError(f"{path}: the PDF is encrypted ({exc})", "encrypted") from exc
        raise DocumentError(
            f"{path}: not a readable PDF ({type(exc).__name__}: {str(exc)[:200]})"
        ) from exc
    text = "\n\n".join(p.strip() for p in pages if p.strip())
    if not text:
        raise DocumentError(
            f"{path}: the PDF has no text layer ({len(pages)} pages of images, e.g. a scan); "
            "run OCR on it first",
            "no text layer",
        )
    return (str(title).strip() if title and str(title).strip() else stem_title(path)), text


# Elements whose text a reader never sees, and the site's navigation links.
_SKIPPED = ("script", "style", "noscript", "template", "head", "svg", "iframe", "object", "nav")
_BLOCKS = (
    "p", "div", "li", "ul", "ol", "dl", "dt", "dd", "br", "tr", "td", "th", "table", "section",
    "article", "aside", "header", "footer", "nav", "main", "blockquote", "pre", "figcaption",
    "hr", "form", "fieldset", "address",
)  # fmt: skip
_HEADINGS = ("h1", "h2", "h3", "h4", "h5", "h6")


def read_html(path: Path, data: bytes) -> tuple[str, str]:
    """The visible text of a page (blocks as paragraphs, headings as section starts), its <title>.

    Parsed leniently, as a browser would: unclosed tags still give their text.
    """
    if b"\x00" in data[:8192]:
        raise DocumentError(f"{path}: looks binary (NUL bytes), not HTML")
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(data, "html.parser")
    title = soup.title.get_text(" ", strip=True) if soup.title else ""
    for skipped in soup.find_all(_SKIPPED):
        skipped.decompose()
    for tag in soup.find_all(_BLOCKS):
        tag.insert_before("\n\n")
        tag.insert_after("\n\n")
    for tag in soup.find_all(_HEADINGS):
        tag.insert_before(SECTION_BREAK)
        tag.insert_after("\n\n")
    text = re.sub(r"\n[ \t\n]*\n", "\n\n", soup.get_text()).strip()
    if not any(c.isalnum() for c in text):
        raise DocumentError(f"{path}: no visible text in the HTML", "empty")
    return title or stem_title(path), text


def read_docx(path: Path) -> tuple[str, str]:
    """Paragraph text of a Word document (each heading starts a section) and its title."""
    import zipfile

    from docx import Document as open_docx
    from docx.opc.exceptions import PackageNotFoundError

    with path.open("rb") as fh:
        magic = fh.read(4)
    if magic == b"\xd0\xcf\x11\xe0":  # an OLE container: what Word writes when it encrypts
        raise DocumentError(
            f"{path}: encrypted (or an old binary .doc saved as .docx)", "encrypted"
        )
    try:
        document = open_docx(str(path))
    except (PackageNotFoundError, zipfile.BadZipFile, KeyError, ValueError) as exc:
        raise DocumentError(f"{path}: not a Word document ({str(exc)[:200]})") from exc
    except Exception as exc:  # noqa: BLE001 - broken XML inside the zip, among others
        raise DocumentError(
            f"{path}: not a readable Word document ({type(exc).__name__}: {str(exc)[:200]})"
        ) from exc
    parts: list[str] = []
    title = (document.core_properties.title or "").strip()
    for paragraph in document.paragraphs:
        text = paragraph.text.strip()
        style = paragraph.style.name if paragraph.style is not None else ""
        if not text:
            continue
        if style == "Title" and not title:
            title = text
        elif style.startswith("Heading") or style == "Title":
            parts.append(SECTION_BREAK + text)
        else:
            parts.append(text)
    return title or stem_title(path), "\n\n".join(parts)
