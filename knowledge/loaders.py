"""Read documents from disk: markdown with front matter, plain text, HTML and PDF.

Every loader returns a `Document` whose `text` the chunker understands (markdown for .md and .html,
plain text for .txt, one text per page for .pdf). Anything else, and anything over the size limit, is
refused with a message that says what to do.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import TYPE_CHECKING, Literal

import yaml
from pydantic import BaseModel, Field

from knowledge.text import detect_lang
from tools.errors import AdvisorError

if TYPE_CHECKING:
    from bs4 import Tag

DEFAULT_MAX_DOC_MB = 5.0
SUFFIXES: dict[str, str] = {
    ".md": "md",
    ".markdown": "md",
    ".txt": "txt",
    ".text": "txt",
    ".html": "html",
    ".htm": "html",
    ".pdf": "pdf",
}
_FRONT_MATTER_RE = re.compile(r"\A---\s*\n(.*?)\n---\s*(?:\n|\Z)", re.S)


class LoaderError(AdvisorError):
    """A document that cannot be ingested; the message names the file and the fix."""


class Document(BaseModel):
    """One source document, normalized for chunking."""

    doc_id: str = Field(description="Stable id: front-matter id, else file stem plus a short path hash")
    title: str
    lang: str = Field(description="'zh' or 'en' (front matter, HTML lang, or detected)")
    source: str = Field(description="Where the text came from (file path)")
    format: Literal["md", "txt", "html", "pdf"]
    text: str = Field(description="Markdown (md, html) or plain text (txt, pdf pages joined)")
    pages: list[str] | None = Field(default=None, description="PDF: text per page")
    topic: str | None = None
    tags: list[str] = Field(default_factory=list)
    sources: list[str] = Field(default_factory=list)


def supported_suffixes() -> str:
    """Human list of the accepted extensions."""
    return ", ".join(SUFFIXES)


def check_file(path: Path, max_mb: float = DEFAULT_MAX_DOC_MB) -> str:
    """Return the format of `path`, or raise LoaderError saying why it cannot be ingested."""
    if not path.exists():
        raise LoaderError(f"no such file: {path}")
    if not path.is_file():
        raise LoaderError(f"not a regular file: {path}")
    fmt = SUFFIXES.get(path.suffix.lower())
    if fmt is None:
        kind = f"'{path.suffix}'" if path.suffix else "(no extension)"
        raise LoaderError(
            f"unsupported file type {kind} for {path} — GPU Advisor ingests {supported_suffixes()}; "
            "convert the document to one of these first"
        )
    size_mb = path.stat().st_size / 1e6
    if size_mb > max_mb:
        raise LoaderError(
            f"{path} is {size_mb:.1f} MB, over the {max_mb:g} MB limit for one document — split it into "
            "smaller files, or raise the limit (--max-mb, or GPU_ADVISOR_MAX_DOC_MB)"
        )
    return fmt


def load_document(path: str | Path, max_mb: float = DEFAULT_MAX_DOC_MB, doc_id: str | None = None) -> Document:
    """Load one md/txt/html/pdf file into a Document."""
    path = Path(path).expanduser()
    fmt = check_file(path, max_mb)
    loader = {"md": _load_markdown, "txt": _load_text, "html": _load_html, "pdf": _load_pdf}[fmt]
    doc = loader(path)
    if not doc.text.strip():
        raise LoaderError(f"{path} contains no text to index")
    if doc_id:
        doc.doc_id = doc_id
    return doc


def default_doc_id(path: Path) -> str:
    """File stem plus a short hash of the absolute path, so two notes.md in different folders differ."""
    stem = re.sub(r"[^\w.-]+", "-", path.stem.lower()).strip("-") or "doc"
    digest = hashlib.sha1(str(path.resolve()).encode()).hexdigest()[:6]
    return f"{stem}-{digest}"


def read_text(path: Path) -> str:
    """Decode a text file: UTF-8 (with or without BOM), then GB18030 (common for Chinese files)."""
    raw = path.read_bytes()
    for encoding in ("utf-8-sig", "gb18030"):
        try:
            return raw.decode(encoding).replace("\r\n", "\n").replace("\r", "\n")
        except UnicodeDecodeError:
            continue
    return raw.decode("utf-8", errors="replace")


def split_front_matter(text: str, source: str = "") -> tuple[dict, str]:
    """Separate YAML front matter from a markdown body."""
    match = _FRONT_MATTER_RE.match(text)
    if not match:
        return {}, text
    try:
        meta = yaml.safe_load(match.group(1)) or {}
    except yaml.YAMLError as exc:
        raise LoaderError(f"bad YAML front matter in {source or 'document'}: {exc}".splitlines()[0]) from None
    if not isinstance(meta, dict):
        raise LoaderError(f"front matter in {source or 'document'} must be a mapping of key: value lines")
    return meta, text[match.end() :]


def _first_heading(markdown: str) -> str | None:
    match = re.search(r"^#\s+(.+?)\s*#*\s*$", markdown, re.M)
    return match.group(1).strip() if match else None


def _as_list(value) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    return [str(v) for v in value]


def _load_markdown(path: Path) -> Document:
    meta, body = split_front_matter(read_text(path), str(path))
    title = str(meta.get("title") or _first_heading(body) or path.stem)
    return Document(
        doc_id=str(meta.get("id") or default_doc_id(path)),
        title=title,
        lang=str(meta.get("lang") or detect_lang(body)),
        source=str(path.resolve()),
        format="md",
        text=body,
        topic=meta.get("topic"),
        tags=_as_list(meta.get("tags")),
        sources=_as_list(meta.get("sources")),
    )


def _load_text(path: Path) -> Document:
    text = read_text(path).strip()
    first_line = text.split("\n", 1)[0].strip()
    # A short first line followed by more text is a title; a one-line article has none.
    title = first_line if "\n" in text and len(first_line) <= 80 else path.stem
    return Document(
        doc_id=default_doc_id(path),
        title=title,
        lang=detect_lang(text),
        source=str(path.resolve()),
        format="txt",
        text=text,
    )


_SKIP_TAGS = {"script", "style", "noscript", "nav", "footer", "header", "aside", "form", "svg", "iframe", "template"}
_HEADINGS = {f"h{i}": i for i in range(1, 7)}
_BLOCKS = {"p", "li", "dt", "dd", "blockquote", "figcaption", "caption", "pre", "table"}
# Elements that start a new block; anything else (a, b, span, code...) is inline text.
_STRUCTURE = (
    _BLOCKS
    | set(_HEADINGS)
    | {
        "div",
        "section",
        "article",
        "main",
        "ul",
        "ol",
        "dl",
        "figure",
        "hr",
        "br",
        "body",
        "html",
        "details",
        "summary",
        "address",
    }
    | _SKIP_TAGS
)


def html_to_markdown(html: str) -> tuple[str, str | None, str | None]:
    """Convert HTML to heading-structured markdown; returns (markdown, title, lang attribute)."""
    from bs4 import BeautifulSoup, Tag

    soup = BeautifulSoup(html, "html.parser")
    title = soup.title.get_text(" ", strip=True) if soup.title else None
    html_tag = soup.find("html")
    lang = html_tag.get("lang") if isinstance(html_tag, Tag) else None
    out: list[str] = []
    _walk(soup.body or soup, out)
    return "\n\n".join(out), title, lang


def _walk(node: Tag, out: list[str]) -> None:
    """Append the markdown blocks of `node`'s children to `out`."""
    from bs4 import NavigableString, Tag

    inline: list[str] = []  # running text of inline content (text, <a>, <b>, <span>...) between blocks
    for child in node.children:
        if not isinstance(child, Tag):
            if type(child) is NavigableString:  # not a comment, doctype or CDATA
                inline.append(str(child))
            continue
        if child.name in _SKIP_TAGS or child.name == "title":
            continue
        if child.name not in _STRUCTURE and not child.find(list(_STRUCTURE)):
            inline.append(child.get_text(" "))
            continue
        _flush_inline(inline, out)
        _write_block(child, out)
    _flush_inline(inline, out)


def _flush_inline(inline: list[str], out: list[str]) -> None:
    """Append the inline run collected so far to `out` as one paragraph, and start a new run."""
    text = re.sub(r"\s+", " ", " ".join(inline)).strip()
    if text:
        out.append(text)
    inline.clear()


def _write_block(block: Tag, out: list[str]) -> None:
    """Append one block element to `out` as markdown, descending into containers."""
    if block.name in _HEADINGS:
        heading = _text_of(block)
        if heading:
            out.append("#" * _HEADINGS[block.name] + " " + heading)
    elif block.name == "table":
        out.append(_table_md(block))
    elif block.name == "pre":
        out.append("```\n" + block.get_text().strip("\n") + "\n```")
    elif block.name in _BLOCKS and not block.find(list(_BLOCKS | set(_HEADINGS))):
        text = _text_of(block)
        if text:
            out.append(("- " if block.name == "li" else "") + text)
    else:
        _walk(block, out)


def _text_of(node: Tag) -> str:
    """Return the element's text with runs of whitespace collapsed."""
    return re.sub(r"\s+", " ", node.get_text(" ", strip=True)).strip()


def _table_md(table: Tag) -> str:
    """Render a table as a markdown pipe table, its first row as the header."""
    rows = []
    for tr in table.find_all("tr"):
        cells = [_text_of(c).replace("|", "/") for c in tr.find_all(["th", "td"])]
        if cells:
            rows.append("| " + " | ".join(cells) + " |")
    if rows:
        width = rows[0].count("|") - 1
        rows.insert(1, "|" + "---|" * width)
    return "\n".join(rows)


def _load_html(path: Path) -> Document:
    markdown, title, lang_attr = html_to_markdown(read_text(path))
    lang = "zh" if lang_attr and lang_attr.lower().startswith("zh") else None
    return Document(
        doc_id=default_doc_id(path),
        title=title or _first_heading(markdown) or path.stem,
        lang=lang or detect_lang(markdown),
        source=str(path.resolve()),
        format="html",
        text=markdown,
    )


def _unwrap_pdf_lines(text: str) -> str:
    """Join the hard-wrapped lines of a PDF page into running text."""
    out = ""
    for line in (ln.strip() for ln in text.split("\n")):
        if not line:
            out += "\n\n"
            continue
        if not out or out.endswith("\n"):
            out += line
        elif out.endswith("-") and line[:1].islower():
            out = out[:-1] + line
        elif re.match(f"[{_CJK_RANGE}]", out[-1]) and re.match(f"[{_CJK_RANGE}]", line[:1]):
            out += line
        else:
            out += " " + line
    return out.strip()


_CJK_RANGE = "\u3400-\u9fff\uff00-\uffef\u3000-\u303f"


def _load_pdf(path: Path) -> Document:
    from pypdf import PdfReader
    from pypdf.errors import PdfReadError

    try:
        reader = PdfReader(str(path))
        if reader.is_encrypted and not reader.decrypt(""):
            raise LoaderError(f"{path} is password-protected — save an unencrypted copy and ingest that")
        pages = [_unwrap_pdf_lines(page.extract_text() or "") for page in reader.pages]
        meta_title = reader.metadata.title if reader.metadata else None
    except LoaderError:
        raise
    except (PdfReadError, ValueError, KeyError, OSError) as exc:
        raise LoaderError(f"could not read PDF {path}: {exc} — is the file complete and really a PDF?") from None
    if not any(p.strip() for p in pages):
        raise LoaderError(f"{path} has no extractable text (a scanned PDF?) — run OCR on it first")
    text = "\n\n".join(p for p in pages if p.strip())
    return Document(
        doc_id=default_doc_id(path),
        title=str(meta_title).strip() if meta_title and str(meta_title).strip() else path.stem,
        lang=detect_lang(text),
        source=str(path.resolve()),
        format="pdf",
        text=text,
        pages=pages,
    )


def collect_files(paths: list[str | Path], max_mb: float = DEFAULT_MAX_DOC_MB) -> tuple[list[Path], list[str]]:
    """Expand directories to the supported files inside them; returns (files, notes about skipped files).

    A file named explicitly must be ingestible (else LoaderError); inside a directory, unsupported files are
    skipped with a note.
    """
    files: list[Path] = []
    skipped: list[str] = []
    for raw in paths:
        path = Path(raw).expanduser()
        if path.is_dir():
            for child in sorted(p for p in path.rglob("*") if p.is_file()):
                if any(part.startswith(".") for part in child.relative_to(path).parts):
                    continue
                try:
                    check_file(child, max_mb)
                except LoaderError as exc:
                    skipped.append(str(exc))
                    continue
                files.append(child)
        else:
            check_file(path, max_mb)
            files.append(path)
    return files, skipped
