"""Chunking: heading paths, block packing, sentence splitting of one-line articles, CJK sizes."""

import itertools
import re
from pathlib import Path

import pytest

from knowledge.chunking import (
    MAX_UNITS,
    chunk_markdown,
    chunk_plain_text,
    markdown_sections,
    split_sentences,
    text_units,
)
from knowledge.ingest import chunk_document, load_guides
from knowledge.loaders import load_document

SEEDS = Path(__file__).resolve().parents[2] / "shared" / "seeds"  # ../shared/seeds next to the repository
SEED_ONE_LINE = SEEDS / "000_613a67a7f9eb240d.txt"
ENDS = tuple("。！？.!?")
needs_seeds = pytest.mark.skipif(not SEED_ONE_LINE.exists(), reason="../shared/seeds not present")


def _one_line_article() -> str:
    """A Chinese guide flattened into one line without markup, like text pasted from a web page."""
    text = (Path(__file__).resolve().parents[1] / "knowledge/guides/training-memory.zh.md").read_text(encoding="utf-8")
    body = text.split("---", 2)[2]
    body = re.sub(r"^#+ .*$|^\|.*$", "", body, flags=re.M)
    return re.sub(r"\s*\n\s*", "", body.replace("**", ""))


def test_sections_carry_the_heading_path():
    text = (
        "Intro line before any heading.\n\n# Guide\n\n## Power\n\nPSU sizing text.\n\n### Transients\n\n"
        "Spikes text.\n\n## Cooling\n\nFans text.\n"
    )
    paths = [path for path, _ in markdown_sections(text)]
    assert paths == [[], ["Guide", "Power"], ["Guide", "Power", "Transients"], ["Guide", "Cooling"]]
    chunks = chunk_markdown(text)
    assert [c.section_path for c in chunks] == paths
    assert chunks[2].text == "Spikes text."


def test_heading_inside_code_fence_is_not_a_section():
    text = "## Setup\n\n```bash\n# install the driver\nsudo apt install nvidia-driver\n```\n\nThen reboot.\n"
    chunks = chunk_markdown(text)
    assert [c.section_path for c in chunks] == [["Setup"]]
    assert "# install the driver" in chunks[0].text


def test_heading_markup_is_cleaned_but_underscores_kept():
    chunks = chunk_markdown("## **Q4_K_M** vs `Q8_0`\n\nBody.\n")
    assert chunks[0].section_path == ["Q4_K_M vs Q8_0"]


def test_long_table_splits_by_rows_and_repeats_the_header():
    rows = "\n".join(
        f"| GPU {i} | {i * 10} GB | a fairly long note about card number {i} and its quirks |" for i in range(60)
    )
    text = f"## Cards\n\nThe table below lists cards:\n\n| name | memory | note |\n|---|---|---|\n{rows}\n"
    chunks = chunk_markdown(text)
    assert len(chunks) > 2
    for chunk in chunks:
        assert "| name | memory | note |\n|---|---|---|" in chunk.text
        assert text_units(chunk.text) <= MAX_UNITS * 1.25
    assert chunks[0].text.startswith("The table below lists cards:")  # the lead-in stays with the table
    body_rows = [line for c in chunks for line in c.text.splitlines() if line.startswith("| GPU")]
    assert len(body_rows) == 60  # no row lost or duplicated


def test_sentence_splitting_handles_cjk_and_latin_punctuation():
    text = "显存不够怎么办？先量化！再看带宽。It costs 3.5 USD/h, e.g. on spot. Really? Yes."
    assert split_sentences(text) == [
        "显存不够怎么办？",
        "先量化！",
        "再看带宽。",
        "It costs 3.5 USD/h, e.g. on spot.",
        "Really?",
        "Yes.",
    ]


def _check_sentence_passages(raw: str) -> None:
    chunks = chunk_plain_text(raw)
    assert len(chunks) >= 5
    sizes = [text_units(c.text) for c in chunks]
    assert max(sizes) <= MAX_UNITS * 1.25
    assert min(sizes[:-1]) >= MAX_UNITS * 0.4  # sensible passages, not fragments
    ends_at_sentence = sum(c.text.rstrip("”’」』）) ").endswith(ENDS) for c in chunks[:-1])
    assert ends_at_sentence >= 0.8 * (len(chunks) - 1)
    # Consecutive passages overlap by a sentence or so.
    overlapping = sum(1 for a, b in itertools.pairwise(chunks) if b.text[:12] in a.text)
    assert overlapping >= 0.6 * (len(chunks) - 1)
    # Nothing is lost: every sentence of the article lands in some passage.
    joined = "".join(c.text for c in chunks)
    for sentence in split_sentences(raw)[::7]:
        assert sentence[:20] in joined


@needs_seeds
def test_one_line_chinese_seed_is_split_at_sentence_ends():
    raw = SEED_ONE_LINE.read_text(encoding="utf-8")
    assert "\n" not in raw.strip() and len(raw.encode()) > 15_000  # the messy input this is about
    assert 15 <= len(chunk_plain_text(raw)) <= 80
    _check_sentence_passages(raw)


def test_one_line_article_is_split_at_sentence_ends():
    raw = _one_line_article()
    assert "\n" not in raw and len(raw) > 1500
    _check_sentence_passages(raw)


@needs_seeds
def test_seed_files_load_and_chunk_as_plain_text():
    for path in sorted(SEEDS.glob("*.txt")):
        doc = load_document(path)
        assert doc.lang == "zh" and doc.format == "txt"
        records = chunk_document(doc)
        assert records and all(text_units(r.text) <= MAX_UNITS * 1.25 for r in records)
        assert len({r.hash for r in records}) == len(records)


def test_cjk_units_count_characters_lighter_than_words():
    assert text_units("four plain english words") == 4
    assert abs(text_units("显存带宽") - 2.4) < 1e-9
    assert text_units("用 NVLink 连两张 4090") == text_units("用连两张") + 2


def test_over_long_sentence_without_punctuation_is_cut():
    sentence = "我们关心的不是游戏帧数而是大模型训练时的显存占用" * 30  # no punctuation at all
    chunks = chunk_plain_text(sentence)
    assert len(chunks) > 1
    assert all(text_units(c.text) <= MAX_UNITS for c in chunks)


def test_guides_chunk_into_sized_passages_with_sections():
    records = [r for doc in load_guides() for r in chunk_document(doc)]
    assert len({r.doc_id for r in records}) == 40
    assert all(r.section_path for r in records)  # every guide passage sits under a heading
    assert all(text_units(r.text) <= MAX_UNITS * 2 for r in records)
    assert len({r.id for r in records}) == len(records)
    langs = {r.doc_id: r.lang for r in records}
    assert all(langs[d] == d.rsplit(".", 1)[1] for d in langs)
