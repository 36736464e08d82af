"""Loaders: markdown, text, HTML and PDF in; wrong types and oversized files out, with clear messages."""

from pathlib import Path

import pytest

from knowledge.ingest import chunk_document
from knowledge.loaders import LoaderError, check_file, collect_files, load_document


def _pdf_bytes(pages: list[str]) -> bytes:
    """A minimal valid PDF with one line of Helvetica text per page (handwritten, correct xref)."""
    objects: list[bytes] = []
    n_pages = len(pages)
    kids = " ".join(f"{3 + 2 * i} 0 R" for i in range(n_pages))
    objects.append(b"<< /Type /Catalog /Pages 2 0 R >>")
    objects.append(f"<< /Type /Pages /Kids [{kids}] /Count {n_pages} >>".encode())
    font_id = 3 + 2 * n_pages
    for i, text in enumerate(pages):
        content_id = 4 + 2 * i
        objects.append(
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents {content_id} 0 R "
            f"/Resources << /Font << /F1 {font_id} 0 R >> >> >>".encode()
        )
        stream = f"BT /F1 12 Tf 72 720 Td ({text}) Tj ET".encode()
        objects.append(b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream")
    objects.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    for offset in offsets:
        out += f"{offset:010d} 00000 n \n".encode()
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    return bytes(out)


def test_markdown_front_matter(tmp_path: Path):
    path = tmp_path / "note.md"
    path.write_text(
        "---\nid: my-note.en\ntitle: My note\nlang: en\ntags: [psu, power]\nsources: [https://example.org]\n---\n\n"
        "## Power\n\nA 1600 W PSU suits two cards.\n",
        encoding="utf-8",
    )
    doc = load_document(path)
    assert (doc.doc_id, doc.title, doc.lang, doc.format) == ("my-note.en", "My note", "en", "md")
    assert doc.tags == ["psu", "power"] and doc.sources == ["https://example.org"]
    assert not doc.text.startswith("---")
    assert chunk_document(doc)[0].section_path == ["Power"]


def test_markdown_without_front_matter_takes_title_from_heading_and_detects_chinese(tmp_path: Path):
    path = tmp_path / "显存笔记.md"
    path.write_text("# 显存笔记\n\n## 量化\n\n4-bit 量化能把 70B 模型放进两张 24GB 显卡。\n", encoding="utf-8")
    doc = load_document(path)
    assert doc.title == "显存笔记" and doc.lang == "zh"
    assert doc.doc_id.startswith("显存笔记-")  # stem plus a short path hash


def test_broken_front_matter_is_a_clear_error(tmp_path: Path):
    path = tmp_path / "bad.md"
    path.write_text("---\ntitle: [unclosed\n---\nbody\n", encoding="utf-8")
    with pytest.raises(LoaderError, match=r"bad YAML front matter in .*bad\.md"):
        load_document(path)


def test_text_in_gb18030_and_title_from_first_line(tmp_path: Path):
    path = tmp_path / "guide.txt"
    path.write_bytes("选卡指南\n显存决定能跑多大的模型。带宽决定生成速度。\n".encode("gb18030"))
    doc = load_document(path)
    assert doc.title == "选卡指南" and doc.lang == "zh" and doc.format == "txt"
    assert "带宽决定生成速度。" in doc.text


def test_html_becomes_sections_and_drops_scripts(tmp_path: Path):
    path = tmp_path / "page.html"
    path.write_text(
        """<html lang="en"><head><title>Cooling guide</title><script>var tracking = 1;</script></head>
        <body><nav>Home | About</nav><h1>Cooling</h1><p>Blower cards exhaust heat out of the case.</p>
        <h2>Fans</h2><ul><li>Front intake</li><li>Rear exhaust</li></ul>
        <table><tr><th>card</th><th>watts</th></tr><tr><td>4090</td><td>450</td></tr></table>
        <footer>copyright</footer></body></html>""",
        encoding="utf-8",
    )
    doc = load_document(path)
    assert doc.title == "Cooling guide" and doc.lang == "en" and doc.format == "html"
    assert "tracking" not in doc.text and "Home | About" not in doc.text and "copyright" not in doc.text
    chunks = chunk_document(doc)
    assert [c.section_path for c in chunks] == [["Cooling"], ["Cooling", "Fans"]]
    assert "- Front intake" in chunks[1].text and "| 4090 | 450 |" in chunks[1].text


def test_html_lang_attribute_marks_chinese(tmp_path: Path):
    path = tmp_path / "zh.htm"
    path.write_text('<html lang="zh-CN"><body><h2>电源</h2><p>两张 4090 建议 1600W 电源。</p></body></html>', "utf-8")
    doc = load_document(path)
    assert doc.lang == "zh" and chunk_document(doc)[0].section_path == ["电源"]


def test_pdf_pages_become_sections(tmp_path: Path):
    path = tmp_path / "specs.pdf"
    path.write_bytes(_pdf_bytes(["The H100 SXM has 80 GB of HBM3.", "NVLink 4 gives 900 GB/s per GPU."]))
    doc = load_document(path)
    assert doc.format == "pdf" and doc.lang == "en" and doc.pages is not None and len(doc.pages) == 2
    chunks = chunk_document(doc)
    assert [c.section_path for c in chunks] == [["page 1"], ["page 2"]]
    assert "80 GB of HBM3" in chunks[0].text and "900 GB/s" in chunks[1].text


def test_pdf_without_text_is_rejected(tmp_path: Path):
    from pypdf import PdfWriter

    writer = PdfWriter()
    writer.add_blank_page(width=612, height=792)
    path = tmp_path / "scan.pdf"
    with path.open("wb") as fh:
        writer.write(fh)
    with pytest.raises(LoaderError, match=r"no extractable text .*OCR"):
        load_document(path)


def test_truncated_pdf_is_rejected(tmp_path: Path):
    path = tmp_path / "broken.pdf"
    path.write_bytes(b"%PDF-1.4\n1 0 obj\n<< /Type /Catalog")
    with pytest.raises(LoaderError, match=r"broken\.pdf"):
        load_document(path)


def test_unsupported_type_names_the_accepted_ones(tmp_path: Path):
    path = tmp_path / "report.docx"
    path.write_bytes(b"PK\x03\x04 not really a docx")
    with pytest.raises(LoaderError) as err:
        load_document(path)
    message = str(err.value)
    assert "unsupported file type '.docx'" in message and "report.docx" in message
    for suffix in (".md", ".txt", ".html", ".pdf"):
        assert suffix in message


def test_oversized_file_is_rejected_with_the_limit_and_the_fix(tmp_path: Path):
    path = tmp_path / "huge.txt"
    path.write_text("显存。" * 200_000, encoding="utf-8")  # about 1.8 MB
    with pytest.raises(LoaderError) as err:
        check_file(path, max_mb=1)
    message = str(err.value)
    assert "huge.txt is 1.8 MB, over the 1 MB limit" in message and "--max-mb" in message
    assert check_file(path, max_mb=5) == "txt"


def test_default_limit_is_5_mb(tmp_path: Path):
    path = tmp_path / "big.md"
    path.write_bytes(b"a" * 5_100_000)
    with pytest.raises(LoaderError, match="over the 5 MB limit"):
        load_document(path)


def test_missing_and_empty_files(tmp_path: Path):
    with pytest.raises(LoaderError, match="no such file"):
        load_document(tmp_path / "nope.md")
    empty = tmp_path / "empty.txt"
    empty.write_text("  \n", encoding="utf-8")
    with pytest.raises(LoaderError, match="contains no text"):
        load_document(empty)


def test_folders_expand_to_supported_files_and_note_the_rest(tmp_path: Path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "a.md").write_text("# A\n\ntext\n", encoding="utf-8")
    (tmp_path / "sub" / "b.txt").write_text("text", encoding="utf-8")
    (tmp_path / "sub" / "c.xlsx").write_bytes(b"x")
    (tmp_path / ".hidden").mkdir()
    (tmp_path / ".hidden" / "d.md").write_text("hidden", encoding="utf-8")
    files, skipped = collect_files([tmp_path])
    assert [f.name for f in files] == ["a.md", "b.txt"]
    assert len(skipped) == 1 and "c.xlsx" in skipped[0]
    with pytest.raises(LoaderError, match="unsupported"):
        collect_files([tmp_path / "sub" / "c.xlsx"])  # named explicitly: an error, not a note
