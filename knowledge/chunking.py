"""Split documents into retrieval passages: by markdown heading, then by block, then by sentence.

Sizes are measured in "units" that treat languages fairly: one English word counts 1, one CJK character
counts 0.6 (a Chinese character carries a bit more than half a word). A passage holds at most
`max_units` (about 110 English words, or about 180 Chinese characters): short enough that the embedding
model sees nearly all of it within its 128-token window, long enough to answer a question on its own.
Plain text with no headings or line breaks (a pasted article on one line) is split at sentence ends —
。！？ and .!? — into passages that overlap by a sentence or so, so a fact on a boundary is retrievable
from either side.
"""

from __future__ import annotations

import re

from pydantic import BaseModel, Field

MAX_UNITS = 110
OVERLAP_UNITS = 30
MIN_UNITS = 25
# Stored with every collection: a different chunker means different chunks, so re-ingest from scratch.
# Bump the leading number when the splitting logic changes; the sizes are part of it automatically.
CHUNKER_VERSION = f"1/{MAX_UNITS}/{OVERLAP_UNITS}/{MIN_UNITS}"

_CJK = r"\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u3040-\u30ff\uac00-\ud7af"
_CJK_RE = re.compile(f"[{_CJK}]")
_WORD_RE = re.compile(f"[^\\s{_CJK}]+")
_HEADING_RE = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")
_FENCE_RE = re.compile(r"^\s*(```|~~~)")
_CLOSERS = "”’」』）)】》\"'"
# A sentence ends after CJK terminal punctuation (plus closing quotes), or after .!? followed by a space
# or the end of the text; decimals (3.5) and common abbreviations (e.g., vs.) are not sentence ends.
_SENTENCE_END_RE = re.compile(
    f"(?:[。！？!?]+[{re.escape(_CLOSERS)}]*)|(?:(?<!\\be\\.g)(?<!\\bi\\.e)(?<!\\bvs)"
    f"(?<!\\betc)(?<!\\bapprox)(?<!\\bNo)\\.+[{re.escape(_CLOSERS)}]*(?=\\s|$))"
)
_SOFT_BREAK_RE = re.compile(r"(?<=[，,、：:；;])")


class TextChunk(BaseModel):
    """One passage of a document with the heading path it sits under."""

    section_path: list[str] = Field(default_factory=list, description="Headings from the top level down")
    text: str


def text_units(text: str) -> float:
    """Size of `text` in units: English words count 1, CJK characters 0.6."""
    return len(_CJK_RE.findall(text)) * 0.6 + len(_WORD_RE.findall(text))


def split_sentences(text: str) -> list[str]:
    """Split text into sentences at 。！？ / .!? boundaries and line breaks; keep the punctuation."""
    sentences: list[str] = []
    for line in re.split(r"\n+", text):
        start = 0
        for match in _SENTENCE_END_RE.finditer(line):
            piece = line[start : match.end()].strip()
            if piece:
                sentences.append(piece)
            start = match.end()
        tail = line[start:].strip()
        if tail:
            sentences.append(tail)
    return sentences


def _hard_split(sentence: str, max_units: float) -> list[str]:
    """Break one over-long sentence at commas, then at a fixed width, so no piece exceeds the limit."""
    pieces: list[str] = []
    current = ""
    for part in _SOFT_BREAK_RE.split(sentence):
        if not part:
            continue
        if current and text_units(current + part) > max_units:
            pieces.append(current)
            current = ""
        current += part
    if current:
        pieces.append(current)
    out: list[str] = []
    for piece in pieces:
        while text_units(piece) > max_units:
            cut = _cut_index(piece, max_units)
            out.append(piece[:cut])
            piece = piece[cut:]
        if piece.strip():
            out.append(piece)
    return [p.strip() for p in out if p.strip()]


def _cut_index(text: str, max_units: float) -> int:
    """Index at which `text` reaches `max_units`, moved back to a space when one is near."""
    units = 0.0
    for i, ch in enumerate(text):
        units += 0.6 if _CJK_RE.match(ch) else (0.2 if not ch.isspace() else 0.0)
        if units >= max_units:
            space = text.rfind(" ", max(0, i - 40), i)
            return space if space > 0 else max(i, 1)
    return len(text)


def pack_sentences(
    sentences: list[str], max_units: float = MAX_UNITS, overlap_units: float = OVERLAP_UNITS
) -> list[str]:
    """Greedily pack sentences into passages of at most `max_units`, carrying a small overlap forward."""
    return _pack(sentences, max_units, overlap_units, _join)


def _pack(pieces_in: list[str], max_units: float, overlap_units: float, join) -> list[str]:
    """Pack pieces into passages; over-long pieces are cut first; the last pieces overlap the next passage."""
    flat: list[str] = []
    for piece in pieces_in:
        flat.extend(_hard_split(piece, max_units) if text_units(piece) > max_units else [piece])
    units = [text_units(p) for p in flat]
    passages: list[str] = []
    current: list[int] = []
    carried = 0  # how many pieces at the start of `current` repeat the end of the previous passage
    size = 0.0
    for i, u in enumerate(units):
        if current and size + u > max_units:
            passages.append(join([flat[j] for j in current]))
            carry: list[int] = []
            carry_size = 0.0
            for j in reversed(current):
                if carry_size + units[j] > overlap_units or carry_size + units[j] + u > max_units:
                    break
                carry.insert(0, j)
                carry_size += units[j]
            current, size, carried = carry, carry_size, len(carry)
        current.append(i)
        size += u
    fresh = current[carried:]
    if fresh:
        fresh_size = sum(units[j] for j in fresh)
        # A tiny tail reads better appended to the previous passage than on its own.
        if passages and fresh_size < MIN_UNITS and text_units(passages[-1]) + fresh_size <= max_units * 1.25:
            passages[-1] = join([passages[-1], *(flat[j] for j in fresh)])
        else:
            passages.append(join([flat[j] for j in current]))
    return passages


_CJK_PUNCT = "。，、！？；：“”‘’「」『』（）【】《》"


def _join(parts) -> str:
    """Join sentences: no space between two CJK sentences, one space otherwise."""
    out = ""
    for part in parts:
        if out and not (_is_cjkish(out[-1]) and _is_cjkish(part[0])):
            out += " "
        out += part
    return out


def _is_cjkish(ch: str) -> bool:
    return bool(_CJK_RE.match(ch)) or ch in _CJK_PUNCT


def chunk_plain_text(
    text: str, max_units: float = MAX_UNITS, overlap_units: float = OVERLAP_UNITS, section_path: list[str] | None = None
) -> list[TextChunk]:
    """Chunk text that has no markdown structure: paragraphs if there are any, sentences always."""
    paragraphs = [p.strip() for p in re.split(r"\n\s*\n", text) if p.strip()]
    sentences = [s for p in paragraphs for s in split_sentences(p)]
    return [
        TextChunk(section_path=list(section_path or []), text=p)
        for p in pack_sentences(sentences, max_units, overlap_units)
    ]


def _blocks(lines: list[str]) -> list[tuple[str, str]]:
    """Group a section's lines into blocks: ("code"|"table"|"text", text)."""
    blocks: list[tuple[str, str]] = []
    buf: list[str] = []
    kind = "text"

    def flush() -> None:
        nonlocal buf, kind
        body = "\n".join(buf).strip("\n")
        if body.strip():
            blocks.append((kind, body))
        buf, kind = [], "text"

    in_fence = False
    for line in lines:
        if in_fence:
            buf.append(line)
            if _FENCE_RE.match(line):
                in_fence = False
                flush()
            continue
        if _FENCE_RE.match(line):
            flush()
            kind, in_fence = "code", True
            buf.append(line)
            continue
        is_table = line.lstrip().startswith("|")
        if not line.strip():
            flush()
        elif is_table != (kind == "table") and buf:
            flush()
            kind = "table" if is_table else "text"
            buf.append(line)
        else:
            kind = "table" if is_table else kind
            buf.append(line)
    flush()
    return blocks


def _split_block(kind: str, body: str, max_units: float, overlap_units: float) -> list[str]:
    """Split one block that is too large: tables by rows (repeating the header), code by lines."""
    if kind == "text":
        lines = [line for line in body.split("\n") if line.strip()]
        if len(lines) > 1:
            # Keep list items and lines intact; only a line that is too long is split into sentences.
            pieces = [s for line in lines for s in ([line] if text_units(line) <= max_units else split_sentences(line))]
            return _pack(pieces, max_units, overlap_units, "\n".join)
        return pack_sentences(split_sentences(body), max_units, overlap_units)
    lines = body.split("\n")
    header = (
        lines[:2] if kind == "table" and len(lines) > 2 and set(lines[1].replace("|", "").strip()) <= set("-: ") else []
    )
    rows = lines[len(header) :]
    pieces: list[str] = []
    current: list[str] = []
    for row in rows:
        if current and text_units("\n".join(header + current + [row])) > max_units:
            pieces.append("\n".join(header + current))
            current = []
        current.append(row)
    if current:
        pieces.append("\n".join(header + current))
    return pieces


def _pack_blocks(blocks: list[tuple[str, str]], max_units: float, overlap_units: float) -> list[str]:
    """Pack consecutive blocks into passages; oversized blocks are split on their own."""
    passages: list[str] = []
    current: list[str] = []
    size = 0.0
    for kind, body in blocks:
        u = text_units(body)
        if u > max_units:
            pieces = _split_block(kind, body, max_units - min(size, MIN_UNITS * 2), overlap_units)
            if current and size <= MIN_UNITS * 2:
                # A short lead-in ("Figures below are per GPU:") belongs with what it introduces.
                pieces[0] = "\n\n".join([*current, pieces[0]])
            elif current:
                passages.append("\n\n".join(current))
            passages.extend(pieces)
            current, size = [], 0.0
            continue
        lead_in = size < MIN_UNITS and size + u <= max_units * 1.25
        if current and size + u > max_units and not lead_in:
            passages.append("\n\n".join(current))
            current, size = [], 0.0
        current.append(body)
        size += u
    if current:
        if passages and size < MIN_UNITS and text_units(passages[-1]) + size <= max_units * 1.25:
            passages[-1] = passages[-1] + "\n\n" + "\n\n".join(current)
        else:
            passages.append("\n\n".join(current))
    return passages


def markdown_sections(text: str) -> list[tuple[list[str], list[str]]]:
    """Return (heading path, body lines) for every section of a markdown text, in order."""
    sections: list[tuple[list[str], list[str]]] = []
    stack: list[tuple[int, str]] = []
    body: list[str] = []
    in_fence = False

    def close() -> None:
        if any(line.strip() for line in body):
            sections.append(([title for _, title in stack], list(body)))

    for line in text.splitlines():
        if _FENCE_RE.match(line):
            in_fence = not in_fence
        match = None if in_fence else _HEADING_RE.match(line)
        if match:
            close()
            body = []
            level = len(match.group(1))
            while stack and stack[-1][0] >= level:
                stack.pop()
            stack.append((level, _clean_heading(match.group(2))))
        else:
            body.append(line)
    close()
    return sections


def _clean_heading(title: str) -> str:
    """Drop markdown emphasis and links from a heading."""
    title = re.sub(r"\[([^\]]+)\]\([^)]*\)", r"\1", title)
    return re.sub(r"[*`]+", "", title).strip()


def chunk_markdown(text: str, max_units: float = MAX_UNITS, overlap_units: float = OVERLAP_UNITS) -> list[TextChunk]:
    """Chunk markdown by heading; every passage carries the path of headings above it."""
    chunks: list[TextChunk] = []
    for path, lines in markdown_sections(text):
        blocks = _blocks(lines)
        if len(blocks) == 1 and blocks[0][0] == "text" and "\n" not in blocks[0][1].strip():
            # One long line (a pasted article): sentence splitting is the only structure there is.
            passages = pack_sentences(split_sentences(blocks[0][1]), max_units, overlap_units)
        else:
            passages = _pack_blocks(blocks, max_units, overlap_units)
        chunks.extend(TextChunk(section_path=path, text=p) for p in passages if p.strip())
    return chunks


def join_passages(texts: list[str]) -> str:
    """Join consecutive passages of one section back into its text, without the overlap chunking added.

    `_pack` carries the last sentences (or lines) of a passage into the next one, and a table split by rows
    repeats its header; a quote built from several passages would otherwise say those twice."""
    out = ""
    for text in texts:
        text = text.strip()
        if not out:
            out = text
            continue
        header = _continued_table_header(out, text)
        if header:
            out += "\n" + text[len(header) :].lstrip("\n")
            continue
        cut = _overlap(out, text)
        rest = text[cut:].lstrip()
        if not rest:
            continue
        # The carried piece ended a line in both passages when the next one goes on after a line break.
        sep = "\n" if cut and text[cut : cut + 1] == "\n" else ("" if cut and _is_cjkish(rest[0]) else " ")
        out += (sep if cut else "\n\n") + rest
    return out


_ENDS = "。！？.!?；;:：" + _CLOSERS


def _overlap(before: str, after: str) -> int:
    """Length of the longest start of `after` that also ends `before`, cut at sentence or line ends on both
    sides (a CJK character alone is no boundary: 模型。 and 型。 must not match)."""
    for k in range(min(len(before), len(after)), 3, -1):
        head = after[:k]
        if not before.endswith(head):
            continue
        ends = (
            k == len(after) or after[k] == "\n" or (head[-1] in _ENDS and (after[k].isspace() or _is_cjkish(after[k])))
        )
        start = len(before) - k
        starts = start == 0 or before[start - 1] == "\n" or (before[start - 1].isspace() or before[start - 1] in _ENDS)
        if ends and starts:
            return k
    return 0


def _continued_table_header(before: str, after: str) -> str:
    """The header rows (titles and separator) `after` repeats from the table `before` ends in, or ''."""
    lines = after.split("\n")
    if len(lines) < 3 or not lines[0].lstrip().startswith("|") or set(lines[1].replace("|", "").strip()) - set("-: "):
        return ""
    table: list[str] = []  # the rows of the table `before` ends in, top first
    for line in reversed(before.rstrip().split("\n")):
        if not line.lstrip().startswith("|"):
            break
        table.insert(0, line)
    return "\n".join(lines[:2]) if table[:2] == lines[:2] else ""
