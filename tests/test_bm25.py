"""PostingsBM25 gives rank_bm25's Okapi scores exactly (the retriever swapped one for the other for speed)."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st
from rank_bm25 import BM25Okapi

from knowledge.bm25 import PostingsBM25
from knowledge.text import tokenize

WORDS = st.sampled_from(["gpu", "vram", "nvlink", "4090", "lora", "显存", "带宽", "kv", "cache", "a", "the"])
DOCS = st.lists(st.lists(WORDS, min_size=1, max_size=30), min_size=1, max_size=25)


@given(docs=DOCS, query=st.lists(st.one_of(WORDS, st.just("absent")), max_size=8))
def test_scores_are_identical_to_rank_bm25(docs: list[list[str]], query: list[str]) -> None:
    expected = BM25Okapi(docs).get_scores(query)
    got = PostingsBM25(docs).get_scores(query)
    assert got.shape == (len(docs),)
    assert np.array_equal(got, expected)  # bit for bit: same arithmetic, same order


def test_real_guide_text_ranks_like_rank_bm25() -> None:
    texts = [
        "The RTX 4090 has no NVLink connector; two cards talk over PCIe.",
        "KV cache grows with context length, layers and KV heads; GQA shrinks it.",
        "QLoRA keeps the base model in 4-bit NF4 and trains LoRA adapters in BF16.",
        "RTX 4090 不支持 NVLink，两张卡之间走 PCIe。",
        "显存带宽决定解码速度：每生成一个 token 都要读一遍权重。",
    ]
    docs = [tokenize(t) for t in texts]
    for query in ("does the 4090 support nvlink", "4090 支持 NVLink 吗", "解码速度 带宽", "QLoRA memory"):
        q = tokenize(query)
        expected = BM25Okapi(docs).get_scores(q)
        got = PostingsBM25(docs).get_scores(q)
        assert np.array_equal(got, expected)
        assert int(np.argmax(got)) == int(np.argmax(expected))


def test_a_query_with_no_known_term_scores_zero_everywhere() -> None:
    bm25 = PostingsBM25([["gpu", "vram"], ["nvlink"]])
    assert not bm25.get_scores(["unknown"]).any()
    assert not bm25.get_scores([]).any()


@given(docs=DOCS, query=st.lists(WORDS, max_size=8))
def test_a_saved_index_loads_back_with_the_same_scores(tmp_path_factory, docs: list[list[str]], query: list[str]):
    path = tmp_path_factory.mktemp("bm25") / "g.postings.npz"
    built = PostingsBM25(docs)
    built.save(path, source="corpus-v1")
    loaded = PostingsBM25.load(path, source="corpus-v1")
    assert loaded is not None and np.array_equal(loaded.get_scores(query), built.get_scores(query))


def test_an_index_saved_from_another_corpus_or_torn_is_not_used(tmp_path) -> None:
    path = tmp_path / "g.postings.npz"
    PostingsBM25([["gpu", "vram"], ["nvlink"]]).save(path, source="corpus-v1")
    assert PostingsBM25.load(path, source="corpus-v2") is None  # the corpus file changed since
    path.write_bytes(path.read_bytes()[:40])
    assert PostingsBM25.load(path, source="corpus-v1") is None
    assert PostingsBM25.load(tmp_path / "missing.npz", source="corpus-v1") is None
