"""Hybrid retrieval: Chroma dense search fused with BM25 by reciprocal rank fusion.

The embedding model (MiniLM) reads English well and Chinese hardly at all, so Chinese queries lean on
BM25 over jieba tokens; a zh<->en glossary (knowledge/data/glossary.yaml) adds the other language's
terms, which lets the dense side see English words for a Chinese question and lets BM25 match the
English terms Chinese guides use (NVLink, LoRA). Passages in the query's language are preferred.

Mode `auto` (what the assistant's `search_guides` and `gpu-advisor search` use) starts with BM25 alone
when only the bundled guides are searched, and keeps its ranking when the top passage scores at least
`confident_ratio` (1.05) times the next one; otherwise it adds the dense side and fuses (hybrid). User
documents are always searched hybrid: they are not in the evaluation, their wording is unknown, and
paraphrase is where the dense side earns its keep. On evals/retrieval.yaml (35 questions per language):

    mode     Recall@5 en/zh   MRR en/zh     answered by BM25 alone
    bm25     1.000/1.000      0.883/0.861   all
    hybrid   0.971/1.000      0.900/0.848   none
    auto     1.000/1.000      0.912/0.860   70%

so auto is at least as good as the fusion on every metric, and most questions need neither the embedding
model nor Chroma: each generation's chunks and BM25 tokens are read from a file (knowledge/bm25.py), and
Chroma opens only when a dense query needs it. A fresh `gpu-advisor ask` then spends ~0.2 s on retrieval.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any, Literal

from knowledge.bm25 import PostingsBM25, load_corpus, save_corpus, use_word_index
from knowledge.embeddings import Embedder, get_embedder
from knowledge.passage import Passage
from knowledge.store import GUIDES, KnowledgeConfig, KnowledgeStore, StoreError
from knowledge.text import add_words, detect_lang, tokenize
from tools._data import read_yaml

Mode = Literal["auto", "hybrid", "dense", "bm25"]
MODES: tuple[str, ...] = ("auto", "hybrid", "dense", "bm25")
GLOSSARY_PATH = Path(__file__).resolve().parent / "data" / "glossary.yaml"


class Glossary:
    """zh<->en domain terms; `expand` returns the terms a query should also be searched with."""

    def __init__(self, entries: list[tuple[list[str], list[str]]]) -> None:
        self.entries = entries
        self._en_patterns = [
            [
                re.compile(r"(?<![a-z0-9])" + re.escape(t.lower()).replace(r"\ ", r"[\s-]+") + r"(?![a-z0-9])")
                for t in en
            ]
            for _, en in entries
        ]

    @classmethod
    def load(cls, path: Path = GLOSSARY_PATH) -> Glossary:
        data = read_yaml(path) or {}
        entries = [
            ([str(t) for t in e.get("zh", [])], [str(t) for t in e.get("en", [])]) for e in data.get("terms", [])
        ]
        return cls(entries)

    @property
    def zh_terms(self) -> list[str]:
        return [t for zh, _ in self.entries for t in zh]

    def matches(self, query: str) -> list[int]:
        """Indexes of entries with a term in `query`."""
        low = query.lower()
        hits = []
        for i, (zh, _) in enumerate(self.entries):
            if any(t.lower() in low for t in zh) or any(p.search(low) for p in self._en_patterns[i]):
                hits.append(i)
        return hits

    def expand(self, query: str) -> tuple[list[str], list[str]]:
        """(Chinese terms, English terms) of every entry the query touches, minus what it already says."""
        low = query.lower()
        zh_out: list[str] = []
        en_out: list[str] = []
        for i in self.matches(query):
            zh, en = self.entries[i]
            zh_out += [t for t in zh if t.lower() not in low and t not in zh_out]
            en_out += [t for t in en if t.lower() not in low and t not in en_out]
        return zh_out, en_out


@cache
def default_glossary() -> Glossary:
    glossary = Glossary.load()
    add_words(glossary.zh_terms)
    return glossary


@cache
def tokenizer_signature() -> str:
    """Changes whenever BM25 tokens could: the glossary (its words join jieba's), the tokenizer, jieba."""
    import jieba

    from knowledge import text

    h = hashlib.sha256(GLOSSARY_PATH.read_bytes())
    h.update(Path(text.__file__).read_bytes())
    h.update(jieba.__version__.encode())
    return h.hexdigest()[:16]


@dataclass
class _Corpus:
    """Every live chunk of the searched collections, with its BM25 index."""

    key: tuple[str, ...]
    ids: list[tuple[str, str]] = field(default_factory=list)  # (generation, chunk id)
    texts: list[str] = field(default_factory=list)
    metas: list[dict[str, Any]] = field(default_factory=list)
    collections: list[str] = field(default_factory=list)
    index: dict[tuple[str, str], int] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)  # chunks per generation (generations are immutable)
    bm25: Any = None


class Retriever:
    """Search the knowledge base; safe to share between threads."""

    def __init__(
        self,
        config: KnowledgeConfig | None = None,
        *,
        store: KnowledgeStore | None = None,
        embedder: Embedder | None = None,
        glossary: Glossary | None = None,
        auto_ingest_guides: bool = True,
        candidates: int = 40,
        rrf_k: int = 60,
        dense_weight: float = 1.0,
        bm25_weight: float = 1.0,
        expansion_weight: float = 0.5,
        other_lang_weight: float = 0.5,
        confident_ratio: float = 1.05,
    ) -> None:
        self.store = store or KnowledgeStore(config or KnowledgeConfig())
        self.embedder = embedder or get_embedder(self.store.config.embed_model)
        use_word_index()  # before the glossary adds its words: queries then skip loading jieba's dictionary
        self.glossary = glossary or default_glossary()
        self.auto_ingest_guides = auto_ingest_guides
        self.candidates = candidates
        self.rrf_k = rrf_k
        self.dense_weight = dense_weight
        self.bm25_weight = bm25_weight
        self.expansion_weight = expansion_weight
        self.other_lang_weight = other_lang_weight
        self.confident_ratio = confident_ratio
        self._lock = threading.RLock()
        self._version: tuple | None = None
        self._live: dict[str, str] = {}  # logical collection -> live generation
        self._cols: dict[str, Any] = {}
        self._broken: dict[str, str] = {}  # logical collection -> why it cannot be searched
        self._corpus: _Corpus | None = None
        self._guides_checked = False
        self._query_vectors: OrderedDict[str, list[float]] = OrderedDict()

    # -- state -----------------------------------------------------------------------------------------

    def _ensure_guides(self) -> None:
        if self._guides_checked or not self.auto_ingest_guides:
            return
        from knowledge.ingest import guides_need_ingest, ingest_guides

        if not self.guides_current() and not getattr(_preparing, "here", False):
            with self.store.lock(PREPARING_LOCK):  # another process may be preparing them (`prepare_guides`): wait
                pass
        if not self.guides_current() and guides_need_ingest(self.store, self.embedder):
            ingest_guides(store=self.store, embedder=self.embedder)
        self._guides_checked = True

    def guides_current(self) -> bool:
        """Whether the guides are ingested, current and saved for BM25, checked without opening Chroma
        (a saved corpus is written only from a complete generation). False means: ask guides_need_ingest."""
        from knowledge.ingest import guides_digest

        manifest = self.store.read_manifest(GUIDES)
        return (
            manifest is not None
            and manifest.source_digest == guides_digest()
            and manifest.embed_model == self.embedder.signature
            and self.store.corpus_path(manifest.generation).is_file()
        )

    def refresh(self, force: bool = False) -> None:
        """Re-read the manifests when they changed (another process may have ingested)."""
        with self._lock:
            self._ensure_guides()
            version = self.store.manifest_version()
            if not force and version == self._version:
                return
            live: dict[str, str] = {}
            broken: dict[str, str] = {}
            for name in self.store.collection_names():
                manifest = self.store.read_manifest(name)
                if manifest is None:
                    continue
                col = self._cols.get(manifest.generation)
                if col is None and not self.store.corpus_path(manifest.generation).is_file():
                    col = self.store.generation(manifest.generation)  # else opened when a dense query needs it
                    if col is None:
                        broken[name] = self._missing(name, manifest.generation)
                        continue
                if manifest.embed_model != self.embedder.signature:
                    broken[name] = (
                        f"knowledge collection '{name}' was embedded with '{manifest.embed_model}' but the configured "
                        f"model is '{self.embedder.signature}' — re-ingest it with --force, or set "
                        "GPU_ADVISOR_EMBED_MODEL back"
                    )
                else:
                    if col is not None:
                        self._cols[manifest.generation] = col
                    live[name] = manifest.generation
            self._cols = {g: c for g, c in self._cols.items() if g in live.values()}
            self._live = live
            self._broken = broken
            self._version = version

    def _missing(self, name: str, generation: str) -> str:
        return (
            f"knowledge collection '{name}' points at '{generation}', which is missing from the store at "
            f"{self.store.location} — re-ingest it (`gpu-advisor ingest --guides` or "
            f"`gpu-advisor ingest PATH... --collection {name}`)"
        )

    def _open(self, name: str, generation: str) -> Any:
        """The Chroma collection of `generation` (of logical collection `name`), opened on first need."""
        col = self._cols.get(generation)
        if col is None:
            col = self.store.generation(generation)
            if col is None:
                raise StoreError(self._missing(name, generation))
            self._cols[generation] = col
        return col

    def _generation_corpus(self, name: str) -> dict[str, list]:
        """Chunks of the live generation of `name` with their BM25 tokens: from its saved file, else from Chroma."""
        path = self.store.corpus_path(self._live[name])
        part = load_corpus(path, tokenizer_signature())
        if part is None:
            got = self._open(name, self._live[name]).get(include=["documents", "metadatas"])
            metas = list(got["metadatas"])
            texts = list(got["documents"])
            tokens = [
                tokenize(" ".join((m.get("title", ""), m.get("section", ""), t)))
                for m, t in zip(metas, texts, strict=True)
            ]
            part = {"ids": list(got["ids"]), "texts": texts, "metas": metas, "tokens": tokens}
            save_corpus(path, tokenizer_signature(), part)
        return part

    def _corpus_for(self, names: list[str]) -> _Corpus:
        key = tuple(sorted(self._live[n] for n in names))
        with self._lock:
            if self._corpus is not None and self._corpus.key == key:
                return self._corpus
            corpus = _Corpus(key=key)
            tokens: list[list[str]] = []
            for name in sorted(names):
                generation = self._live[name]
                part = self._generation_corpus(name)
                for chunk_id, text, meta, toks in zip(
                    part["ids"], part["texts"], part["metas"], part["tokens"], strict=True
                ):
                    corpus.index[(generation, chunk_id)] = len(corpus.ids)
                    corpus.ids.append((generation, chunk_id))
                    corpus.texts.append(text)
                    corpus.metas.append(meta)
                    corpus.collections.append(name)
                    tokens.append(toks)
                corpus.counts[generation] = len(part["ids"])
            corpus.bm25 = self._index(key, tokens) if tokens else None
            self._corpus = corpus
            return corpus

    def _index(self, key: tuple[str, ...], tokens: list[list[str]]) -> PostingsBM25:
        """The BM25 index of one generation from its saved file (built from that generation's saved corpus),
        else built now; indexes over several collections are built each time (they are searched rarely)."""
        corpus_file = self.store.corpus_path(key[0]) if len(key) == 1 else None
        try:
            stat = corpus_file.stat() if corpus_file else None
        except OSError:
            stat = None
        if corpus_file is None or stat is None:
            return PostingsBM25(tokens)
        path, source = self.store.postings_path(key[0]), f"{stat.st_size}:{stat.st_mtime_ns}:{len(tokens)}"
        index = PostingsBM25.load(path, source)
        if index is None:
            index = PostingsBM25(tokens)
            index.save(path, source)
        return index

    def index(self) -> list[str]:
        """Load every live collection's corpus now (saving its file), so the next process starts fast."""
        with self._lock:
            self.refresh()
            names = sorted(self._live)
            if names:
                self._corpus_for(names)
            return names

    # -- search ----------------------------------------------------------------------------------------

    def search(
        self,
        query: str,
        k: int = 5,
        mode: Mode = "hybrid",
        collections: list[str] | None = None,
        lang: str | None = None,
    ) -> list[Passage]:
        """Top-k passages for `query` (mode auto, hybrid, dense or bm25), preferring the query's language."""
        query = query.strip()
        if not query:
            raise ValueError("empty query — ask something, e.g. 'does the RTX 4090 support NVLink?'")
        if mode not in MODES:
            raise ValueError(f"unknown search mode '{mode}' — use one of {', '.join(MODES)}")
        if k < 1:
            raise ValueError("k must be at least 1")
        for attempt in range(2):
            try:
                return self._search(query, k, mode, collections, lang or detect_lang(query))
            except StoreError:
                raise
            except Exception as exc:
                # A generation can disappear between reading the manifest and querying it (a concurrent
                # ingest garbage-collected it); re-read the manifests once and try again.
                if attempt or not _looks_missing(exc):
                    raise
                self.refresh(force=True)
        raise AssertionError("unreachable")

    def section_passages(self, passages: list[Passage]) -> list[Passage]:
        """The other passages of the sections `passages` belong to, in the guide's order: a concept's section
        quoted from its start (its definition) even where the search found its second half."""
        wanted = {(p.collection, p.doc_id, p.section) for p in passages}
        have = {p.chunk_id for p in passages}
        with self._lock:
            names = self._scope(sorted({p.collection for p in passages}))
            corpus = self._corpus_for(names) if names else None
        if corpus is None:
            return []
        rest = [
            self._passage(corpus, i, 0.0, None, None)
            for i, meta in enumerate(corpus.metas)
            if (corpus.collections[i], str(meta.get("doc_id", "")), str(meta.get("section", ""))) in wanted
            and corpus.ids[i][1] not in have
        ]
        return sorted(rest, key=lambda p: (p.doc_id, p.position))

    def _scope(self, collections: list[str] | None) -> list[str]:
        """The live collections to search; raises when one of them, or the guides, cannot be searched."""
        with self._lock:
            self.refresh()
            live = self._live
            wanted = collections or sorted(set(live) | set(self._broken))
            for name in wanted:
                if name in self._broken:  # say so rather than silently search less
                    raise StoreError(self._broken[name])
            if self._guides_checked and GUIDES not in live and (collections is None or GUIDES in collections):
                # The guides were there when this process started: the data directory was deleted or
                # emptied under it. Chroma keeps the old files open, so only a restart rebuilds cleanly.
                raise StoreError(
                    f"the guides have disappeared from the knowledge store at {self.store.location} (was the data "
                    "directory deleted while the app was running?) — restart the app, which ingests them again, "
                    "or run `gpu-advisor ingest --guides`"
                )
            return [n for n in wanted if n in live]

    def _search(self, query: str, k: int, mode: str, collections: list[str] | None, qlang: str) -> list[Passage]:
        with self._lock:
            names = self._scope(collections)
            live = {n: self._live[n] for n in names}
            corpus = self._corpus_for(names) if names else None
        if corpus is None or not corpus.ids:
            return []
        if mode == "auto" and not set(names) <= {GUIDES}:
            mode = "hybrid"  # user documents are searched with the fusion (see the module docstring)
        zh_terms, en_terms = self.glossary.expand(query)
        bm25 = self._bm25(query, zh_terms + en_terms, corpus) if mode != "dense" else []
        dense: list[tuple[int, float]] = []
        if mode == "auto" and self._confident(self._rank(dict(bm25), corpus, qlang)):
            mode = "fused"  # the fusion of BM25's list alone: hybrid's scale and its firm language preference
        elif mode in ("auto", "hybrid", "dense"):
            dense = self._dense(query, en_terms, self._generations(live), corpus)
            mode = "fused" if mode != "dense" else mode
        if mode == "fused":
            scores: dict[int, float] = {}
            for ranking, weight in ((dense, self.dense_weight), (bm25, self.bm25_weight)):
                for rank, (i, _) in enumerate(ranking, start=1):
                    scores[i] = scores.get(i, 0.0) + weight / (self.rrf_k + rank)
        else:
            scores = dict(dense or bm25)
        return self._passages(corpus, self._rank(scores, corpus, qlang)[:k], dense, bm25)

    def _rank(self, scores: dict[int, float], corpus: _Corpus, qlang: str) -> list[tuple[int, float]]:
        """Best first, passages in another language than the query's weighted down."""
        weighted = {
            i: s * (self.other_lang_weight if corpus.metas[i].get("lang") != qlang else 1.0) for i, s in scores.items()
        }
        return sorted(weighted.items(), key=lambda kv: (-kv[1], kv[0]))

    def _confident(self, ranked: list[tuple[int, float]]) -> bool:
        """BM25's top passage stands clear of the next one (mode auto then skips the dense side)."""
        if len(ranked) < 2:
            return bool(ranked)
        return ranked[1][1] <= 0 or ranked[0][1] >= self.confident_ratio * ranked[1][1]

    def _passages(
        self,
        corpus: _Corpus,
        ranked: list[tuple[int, float]],
        dense: list[tuple[int, float]],
        bm25: list[tuple[int, float]],
    ) -> list[Passage]:
        dense_rank = {i: r for r, (i, _) in enumerate(dense, start=1)}
        bm25_rank = {i: r for r, (i, _) in enumerate(bm25, start=1)}
        return [self._passage(corpus, i, s, dense_rank.get(i), bm25_rank.get(i)) for i, s in ranked]

    def _generations(self, live: dict[str, str]) -> list[tuple[str, Any]]:
        """(generation, Chroma collection) of each searched collection, opened on first need."""
        with self._lock:
            return [(generation, self._open(name, generation)) for name, generation in live.items()]

    def _dense(
        self, query: str, en_terms: list[str], generations: list[tuple[str, Any]], corpus: _Corpus
    ) -> list[tuple[int, float]]:
        # The model reads Latin script only: give it the English glossary terms of a Chinese question.
        text = query if not en_terms else f"{query} ({', '.join(en_terms)})"
        readable = getattr(self.embedder, "readable", None)
        if readable is not None and not readable(text):
            return []  # nothing in the query the model can read
        vector = self._query_vector(text)
        hits: list[tuple[int, float]] = []
        for generation, col in generations:
            n = min(self.candidates, corpus.counts.get(generation, 0))
            if n == 0:
                continue
            got = col.query(query_embeddings=[vector], n_results=n, include=["distances"])
            for chunk_id, distance in zip(got["ids"][0], got["distances"][0], strict=True):
                i = corpus.index.get((generation, chunk_id))
                if i is not None:
                    hits.append((i, 1.0 - float(distance)))
        hits.sort(key=lambda h: -h[1])
        return hits[: self.candidates]

    def _query_vector(self, text: str) -> list[float]:
        """Embed a query, remembering the last few hundred (follow-up turns and evals repeat them)."""
        with self._lock:
            if text in self._query_vectors:
                self._query_vectors.move_to_end(text)
                return self._query_vectors[text]
        vector = self.embedder.embed([text])[0]
        with self._lock:
            self._query_vectors[text] = vector
            while len(self._query_vectors) > 512:
                self._query_vectors.popitem(last=False)
        return vector

    def clear_query_cache(self) -> None:
        with self._lock:
            self._query_vectors.clear()

    def _bm25(self, query: str, expansion: list[str], corpus: _Corpus) -> list[tuple[int, float]]:
        if corpus.bm25 is None:
            return []
        tokens = tokenize(query)
        extra = [t for t in dict.fromkeys(tokenize(" ".join(expansion))) if t not in tokens]
        scores = corpus.bm25.get_scores(tokens) if tokens else 0.0
        if extra:
            scores = scores + self.expansion_weight * corpus.bm25.get_scores(extra)
        if isinstance(scores, float):
            return []
        order = sorted(range(len(scores)), key=lambda i: -scores[i])[: self.candidates]
        return [(i, float(scores[i])) for i in order if scores[i] > 0]

    @staticmethod
    def _passage(corpus: _Corpus, i: int, score: float, dense_rank: int | None, bm25_rank: int | None) -> Passage:
        meta = corpus.metas[i]
        try:
            path = json.loads(meta.get("section_path") or "[]")
        except ValueError:
            path = [meta.get("section", "")] if meta.get("section") else []
        return Passage(
            doc_id=str(meta.get("doc_id", "")),
            title=str(meta.get("title", "")),
            section=str(meta.get("section", "")),
            section_path=path,
            lang=str(meta.get("lang", "")),
            source=str(meta.get("source", "")),
            text=corpus.texts[i],
            score=round(score, 6),
            chunk_id=corpus.ids[i][1],
            collection=corpus.collections[i],
            dense_rank=dense_rank,
            bm25_rank=bm25_rank,
        )


def _looks_missing(exc: Exception) -> bool:
    text = f"{type(exc).__name__} {exc}".lower()
    return "notfound" in text or "does not exist" in text or "not found" in text


_shared: dict[tuple, Retriever] = {}
_shared_lock = threading.Lock()


def get_retriever(config: KnowledgeConfig | None = None) -> Retriever:
    """One Retriever per store configuration per process (it caches the BM25 index and the model)."""
    config = config or KnowledgeConfig()
    key = (str(config.data_dir), config.chroma_url, config.embed_model)
    with _shared_lock:
        if key not in _shared:
            _shared[key] = Retriever(config)
        return _shared[key]


# Held by `prepare_guides` from the guides' ingest until their BM25 corpus is saved, so a search in another process
# waits for both and then reads the saved corpus (an ingest's own lock ends before the corpus is written).
PREPARING_LOCK = "guides-preparing"
_preparing = threading.local()  # set while this thread holds PREPARING_LOCK: its own search must not wait on it


def prepare_guides(config: KnowledgeConfig | None = None) -> None:
    """Make the guides searchable in a data directory (ingest, then the saved BM25 corpus). `gpu-advisor ask` runs
    this in a second process when the data directory is fresh, so it overlaps with loading the assistant."""
    retriever = get_retriever(config)
    _preparing.here = True
    try:
        with retriever.store.lock(PREPARING_LOCK):
            retriever.search("GPU", k=1, mode="bm25")  # refresh (ingest when needed), then the BM25 corpus saved
    finally:
        _preparing.here = False


def search(
    query: str, k: int = 5, mode: Mode = "auto", config: KnowledgeConfig | None = None, **kwargs: Any
) -> list[Passage]:
    """Search the knowledge base, mode auto by default (the guides are ingested automatically the first time)."""
    return get_retriever(config).search(query, k=k, mode=mode, **kwargs)


def section_passages(passages: list[Passage], config: KnowledgeConfig | None = None) -> list[Passage]:
    """The other passages of the sections found (Retriever.section_passages)."""
    return get_retriever(config).section_passages(passages) if passages else []


__all__ = [
    "GUIDES",
    "MODES",
    "Glossary",
    "Passage",
    "Retriever",
    "get_retriever",
    "prepare_guides",
    "search",
    "section_passages",
]
