"""A fresh process answers from the guides fast: saved BM25 corpora, jieba's dictionary on demand, mode auto.

Storage tests embed with the fast HashEmbedder; the CLI tests use the suite's real guide store.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from test_knowledge_support import HashEmbedder, sample_docs

from knowledge.bm25 import load_corpus, save_corpus
from knowledge.ingest import ingest_paths, sync_collection
from knowledge.loaders import load_document
from knowledge.retrieval import Retriever, tokenizer_signature
from knowledge.store import GUIDES, KnowledgeConfig, KnowledgeStore

REPO = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).with_name("gpu-advisor")
HEAVY = {"torch", "chromadb", "sentence_transformers", "transformers"}


def _guides_store(tmp_path: Path) -> tuple[KnowledgeStore, HashEmbedder, str]:
    """A store whose 'guides' collection holds the three sample documents (standing in for the guides)."""
    store = KnowledgeStore(KnowledgeConfig(data_dir=tmp_path / "data"))
    embedder = HashEmbedder()
    docs = [load_document(p) for p in sample_docs(tmp_path / "docs").values()]
    report = sync_collection(store, embedder, GUIDES, docs, replace=True)
    return store, embedder, report.generation


def _fresh(store: KnowledgeStore, embedder: HashEmbedder, **kwargs) -> Retriever:
    """A retriever as a new process builds it: its own store object, nothing opened yet."""
    return Retriever(store=KnowledgeStore(store.config), embedder=embedder, auto_ingest_guides=False, **kwargs)


def test_a_saved_corpus_answers_bm25_without_opening_chroma(tmp_path: Path) -> None:
    store, embedder, generation = _guides_store(tmp_path)
    first = _fresh(store, embedder).search("infiniband gigabits", k=2, mode="bm25")
    assert store.corpus_path(generation).is_file()  # written by the first search (read from Chroma)

    later = _fresh(store, embedder)
    again = later.search("infiniband gigabits", k=2, mode="bm25")
    assert [p.model_dump() for p in again] == [p.model_dump() for p in first]
    assert again[0].doc_id == "beta"
    assert later.store._client is None  # Chroma never opened


def test_auto_is_bm25_when_confident_and_hybrid_otherwise(tmp_path: Path) -> None:
    store, embedder, _ = _guides_store(tmp_path)
    _fresh(store, embedder).index()
    calls = embedder.calls

    confident = _fresh(store, embedder)
    hits = confident.search("infiniband gigabits", k=3, mode="auto")
    assert hits[0].doc_id == "beta" and all(p.dense_rank is None for p in hits)
    assert embedder.calls == calls and confident.store._client is None

    unsure = _fresh(store, embedder, confident_ratio=1e9)  # BM25 never sure of two hits: the dense side joins
    hits = unsure.search("alpha power memory", k=3, mode="auto")
    assert hits[0].doc_id == "alpha" and any(p.dense_rank for p in hits)
    assert embedder.calls == calls + 1


def test_auto_searches_user_documents_hybrid(tmp_path: Path) -> None:
    store, embedder, _ = _guides_store(tmp_path)
    notes = tmp_path / "docs" / "rack.md"
    notes.write_text("# Rack\n\n## Power\n\nEach rack gets two 32 amp feeds.\n", encoding="utf-8")
    ingest_paths([notes], store=store, embedder=embedder)
    retriever = _fresh(store, embedder)
    assert any(p.dense_rank for p in retriever.search("rack amp feeds", k=3, mode="auto"))
    only_guides = retriever.search("infiniband gigabits", k=3, mode="auto", collections=[GUIDES])
    assert all(p.dense_rank is None for p in only_guides)


def test_a_bad_corpus_file_is_ignored_and_rewritten(tmp_path: Path) -> None:
    store, embedder, generation = _guides_store(tmp_path)
    path = store.corpus_path(generation)
    path.parent.mkdir(parents=True)
    path.write_text('{"format": 1, "signature": "x", "ids": [', encoding="utf-8")
    hits = _fresh(store, embedder).search("infiniband gigabits", k=1, mode="bm25")
    assert hits[0].doc_id == "beta"
    assert load_corpus(path, tokenizer_signature()) is not None


def test_corpus_files_are_checked_and_dropped_with_their_generation(tmp_path: Path) -> None:
    path = tmp_path / "bm25" / "g.json"
    corpus = {"ids": ["a#0"], "texts": ["alpha"], "metas": [{"doc_id": "a"}], "tokens": [["alpha"]]}
    save_corpus(path, "sig", corpus)
    assert load_corpus(path, "sig") == corpus
    assert load_corpus(path, "other tokenizer") is None
    save_corpus(path, "sig", {**corpus, "tokens": []})  # lists of different lengths
    assert load_corpus(path, "sig") is None

    store, embedder, generation = _guides_store(tmp_path / "kb")
    _fresh(store, embedder).index()
    assert store.corpus_path(generation).is_file()
    store.drop_generation(generation)
    assert not store.corpus_path(generation).exists()


SEGMENT = """
import json, sys
from knowledge import bm25
from knowledge.retrieval import default_glossary
from knowledge.text import tokenize
from evals.retrieval_eval import load_queries
lazy = bm25.use_word_index()
default_glossary()
texts = [q.q for q in load_queries()] + [open("knowledge/guides/interconnect.zh.md", encoding="utf-8").read()]
print(json.dumps({"lazy": lazy, "tokens": [tokenize(t) for t in texts]}, ensure_ascii=False))
"""


def test_the_word_index_segments_exactly_like_jiebas_full_dictionary(tmp_path: Path) -> None:
    env = {**os.environ, "GPU_ADVISOR_CACHE_DIR": str(tmp_path / "cache")}

    def run() -> dict:
        out = subprocess.run([sys.executable, "-c", SEGMENT], capture_output=True, text=True, cwd=REPO, env=env)
        assert out.returncode == 0, out.stderr
        return json.loads(out.stdout)

    full = run()  # no index yet: jieba loads its dictionary whole, and the index is written
    assert not full["lazy"] and list((tmp_path / "cache").glob("jieba-words-*.sqlite"))
    lazy = run()
    assert lazy["lazy"]
    assert lazy["tokens"] == full["tokens"]


def _imported(stderr: str) -> set[str]:
    return {line.rsplit("|", 1)[-1].strip().split(".")[0] for line in stderr.splitlines() if "|" in line}


@pytest.fixture(scope="module")
def guide_store(knowledge_dir: Path) -> Path:
    """The suite's store with the real guides, their BM25 corpus saved (as `gpu-advisor ingest` leaves it)."""
    Retriever(KnowledgeConfig(data_dir=knowledge_dir)).index()
    return knowledge_dir


def _cli(data_dir: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "GPU_ADVISOR_DATA_DIR": str(data_dir), "PYTHONPROFILEIMPORTTIME": "1"}
    return subprocess.run([str(BIN), *args], capture_output=True, text=True, timeout=120, env=env)


def test_cli_search_on_the_guides_opens_neither_chroma_nor_torch(guide_store: Path) -> None:
    out = _cli(guide_store, "search", "4090 能不能用 NVLink 连两张卡", "--mode", "bm25", "-c", "guides", "--json")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["passages"][0]["doc_id"] == "interconnect.zh"
    assert not _imported(out.stderr) & HEAVY


def test_cli_ask_never_imports_torch(guide_store: Path) -> None:
    out = _cli(guide_store, "ask", "RTX 4090 支持 NVLink 吗？", "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    passages = [p for c in data["tool_calls"] if c["name"] == "search_guides" for p in c["result"]["passages"]]
    assert passages and data["citations"]
    heavy = _imported(out.stderr) & HEAVY
    # A query is embedded in numpy when the dense side is needed at all; Chroma opens only then.
    allowed = {"chromadb"} if any(p["dense_rank"] for p in passages) else set()
    assert heavy <= allowed, heavy
