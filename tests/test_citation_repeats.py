"""A quote merged from several passages of one section says each sentence once (issue 21, item 5).

Chunking carries the last sentences or lines of a passage into the next one, and a table split by rows repeats
its header (knowledge/chunking.py); `join_passages` takes both back out when a citation merges the passages.
"""

import collections
import re
import uuid

import pytest

from knowledge.chunking import join_passages, markdown_sections, split_sentences
from knowledge.ingest import chunk_document, load_guides


def _repeated(text: str) -> list[str]:
    """Sentences said more than once (a table's separator row is not a sentence)."""
    sentences = [s for s in split_sentences(text) if set(s.replace("|", "").strip()) - set("-: ")]
    return [s for s, n in collections.Counter(sentences).items() if n > 1]


def _squeeze(text: str) -> str:
    return re.sub(r"\s+", "", text)


def _guide_sections() -> list[tuple[str, tuple[str, ...], list[str], str]]:
    """(doc, heading path, its passages, the section's own text) for every bundled markdown guide section."""
    out = []
    for doc in load_guides():
        if doc.format != "md":
            continue
        passages: dict[tuple[str, ...], list[str]] = collections.defaultdict(list)
        for record in chunk_document(doc):
            passages[tuple(record.section_path)].append(record.text)
        body = {tuple(path): "\n".join(lines) for path, lines in markdown_sections(doc.text)}
        out.extend((doc.doc_id, path, texts, body[path]) for path, texts in passages.items())
    return out


def test_every_guide_section_merges_back_to_its_own_text_without_a_repeat() -> None:
    sections = _guide_sections()
    split = [s for s in sections if len(s[2]) > 1]
    # The guides have sections long enough to split, and plain joining repeats sentences in some of them:
    # otherwise this test could not fail.
    assert len(split) > 50
    assert sum(bool(_repeated("\n\n".join(texts))) for _, _, texts, _ in split) > 20
    for doc, path, texts, body in sections:
        merged = join_passages(texts)
        assert not _repeated(merged), (doc, path, _repeated(merged))
        assert _squeeze(merged) == _squeeze(body), (doc, path)  # nothing lost, nothing out of order


@pytest.mark.parametrize(
    ("passages", "merged"),
    [
        (
            ["One sentence here. Two is carried.", "Two is carried. Three is new."],
            "One sentence here. Two is carried. Three is new.",
        ),
        (["第一句话。第二句被带过来。", "第二句被带过来。第三句是新的。"], "第一句话。第二句被带过来。第三句是新的。"),
        (["- item one\n- item two", "- item two\n- item three"], "- item one\n- item two\n- item three"),
        (
            ["| GPU | GiB |\n|---|---|\n| A | 24 |", "| GPU | GiB |\n|---|---|\n| B | 48 |"],
            "| GPU | GiB |\n|---|---|\n| A | 24 |\n| B | 48 |",
        ),
        # Passages that are not neighbours share nothing: kept whole, a paragraph apart.
        (["First part ends.", "Far later part."], "First part ends.\n\nFar later part."),
        # A CJK character alone is no sentence boundary: "型。" ends both but is not a carried sentence.
        (["这是一个大模型。", "型。后面的话。"], "这是一个大模型。\n\n型。后面的话。"),
        # Two different tables in one section each keep their header.
        (
            ["| A | B |\n|---|---|\n| 1 | 2 |", "| C | D |\n|---|---|\n| 3 | 4 |"],
            "| A | B |\n|---|---|\n| 1 | 2 |\n\n| C | D |\n|---|---|\n| 3 | 4 |",
        ),
    ],
)
def test_join_passages(passages: list[str], merged: str) -> None:
    assert join_passages(passages) == merged


@pytest.mark.parametrize(
    "question",
    [
        "What memory bandwidth does each Apple chip have?",
        "M4 Max 的内存带宽是多少",
        "Is the A800 just an A100 with slower NVLink?",
        "RTX 4090D 和 5090D 有什么区别",
    ],
)
def test_an_answers_citations_repeat_no_sentence(advisor, question: str) -> None:
    final = advisor.ask(f"t-{uuid.uuid4().hex[:8]}", question)
    found = [
        p for call in final.tool_calls if call.name == "search_guides" and call.result for p in call.result.passages
    ]
    rest = [
        p
        for call in final.tool_calls
        if call.name == "search_guides" and call.result
        for p in call.result.section_passages
    ]
    by_section = collections.Counter(
        (p.doc_id, p.section or "") for p in {p.chunk_id: p for p in [*found, *rest]}.values()
    )
    cited = {(c.doc_id, c.section): c for c in final.citations}
    assert any(by_section[key] > 1 for key in cited), "no citation merges passages: the check below proves nothing"
    for citation in final.citations:
        assert not _repeated(citation.text), (citation.section, _repeated(citation.text))
