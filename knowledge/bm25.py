"""BM25 scores from postings lists: rank_bm25's Okapi scores, without its per-query loop over every document.

`rank_bm25.BM25Okapi.get_scores` builds a term-frequency array by asking every document's dict for every
query term — pure Python, ~5 ms per search over the bundled guides and growing with the corpus, on the
path of every chat turn. Here each term's contribution is precomputed once per corpus (documents holding
the term, and their score terms), so a query adds a few short arrays. The arithmetic is rank_bm25's, in
the same order, so scores are identical (tests/test_knowledge_retrieval.py compares them).

Two things keep a fresh process (`gpu-advisor ask`, `gpu-advisor search`) from paying seconds before its
first BM25 query:
- `save_corpus`/`load_corpus`: each generation's chunks with their BM25 tokens in one JSON file next to
  the store, so the corpus needs neither Chroma nor re-tokenizing (generations are immutable, so the file
  never goes stale; a tokenizer signature guards against a changed glossary or tokenizer).
- `use_word_index`: jieba's dictionary (350k words, 2-3 s to load on a 2-core machine) answered from a
  SQLite file one word at a time. jieba segments a text by looking up substrings of it, so a query needs a
  few hundred look-ups and gets exactly the segmentation the full dictionary gives.
"""

from __future__ import annotations

import json
import logging
import os
import sqlite3
import threading
import zipfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from tools._data import user_cache_dir

CORPUS_FORMAT = 1
INDEX_FORMAT = 1
log = logging.getLogger(__name__)


class PostingsBM25:
    """Okapi BM25 (rank_bm25's parameters and idf) over tokenized documents.

    The postings are kept as flat arrays (a term's documents and their score contributions, sliced by
    offsets), so an index can be saved and loaded with numpy instead of being rebuilt in every process.
    """

    def __init__(self, corpus: Sequence[Sequence[str]], k1: float = 1.5, b: float = 0.75, epsilon: float = 0.25):
        from rank_bm25 import BM25Okapi

        okapi = BM25Okapi([list(doc) for doc in corpus], k1=k1, b=b, epsilon=epsilon)
        doc_len = np.array(okapi.doc_len)
        norm = okapi.k1 * (1 - okapi.b + okapi.b * doc_len / okapi.avgdl)
        docs: dict[str, list[int]] = {}
        freqs: dict[str, list[int]] = {}
        for i, counts in enumerate(okapi.doc_freqs):
            for term, f in counts.items():
                docs.setdefault(term, []).append(i)
                freqs.setdefault(term, []).append(f)
        terms = list(docs)
        idx = np.array([i for t in terms for i in docs[t]], dtype=np.int64)
        f = np.array([x for t in terms for x in freqs[t]], dtype=np.float64)
        idf = np.repeat([okapi.idf.get(t) or 0.0 for t in terms], [len(docs[t]) for t in terms])
        offsets = np.cumsum([0, *(len(docs[t]) for t in terms)], dtype=np.int64)
        self._set(okapi.corpus_size, terms, offsets, idx, idf * (f * (okapi.k1 + 1) / (f + norm[idx])))

    def _set(self, size: int, terms: list[str], offsets: np.ndarray, idx: np.ndarray, weights: np.ndarray) -> None:
        self.size = size
        self._row = {t: r for r, t in enumerate(terms)}
        self._offsets, self._idx, self._weights = offsets, idx, weights

    def get_scores(self, query: Sequence[str]) -> np.ndarray:
        """One score per document; a term repeated in the query counts again, as in rank_bm25."""
        scores = np.zeros(self.size)
        for term in query:
            r = self._row.get(term)
            if r is not None:
                lo, hi = self._offsets[r], self._offsets[r + 1]
                scores[self._idx[lo:hi]] += self._weights[lo:hi]
        return scores

    def save(self, path: Path, source: str) -> None:
        """Write the index atomically, tagged with `source` (what it was built from); failures cost speed only."""
        tmp = path.with_name(f"{path.name}.{os.getpid()}.{threading.get_ident()}.tmp.npz")
        try:
            np.savez(
                tmp,
                meta=np.array([str(INDEX_FORMAT), source, str(self.size)]),
                terms=np.array(list(self._row), dtype=str),
                offsets=self._offsets,
                idx=self._idx,
                weights=self._weights,
            )
            os.replace(tmp, path)
        except (OSError, ValueError):
            log.debug("could not save the BM25 index %s", path, exc_info=True)
        finally:
            tmp.unlink(missing_ok=True)

    @classmethod
    def load(cls, path: Path, source: str) -> PostingsBM25 | None:
        """The index saved at `path` if it was built from `source`, else None."""
        try:
            with np.load(path, allow_pickle=False) as data:
                fmt, saved_from, size = (str(x) for x in data["meta"])
                if fmt != str(INDEX_FORMAT) or saved_from != source:
                    return None
                index = cls.__new__(cls)
                index._set(int(size), data["terms"].tolist(), data["offsets"], data["idx"], data["weights"])
                return index
        except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile):  # missing, torn or from elsewhere
            return None


# ---- a generation's tokenized corpus, kept on disk ------------------------------------------------------------


def save_corpus(path: Path, signature: str, corpus: dict[str, list]) -> None:
    """Write `corpus` (ids, texts, metas, tokens: parallel lists) atomically; a failure only costs speed."""
    payload = {"format": CORPUS_FORMAT, "signature": signature, **corpus}
    tmp = path.with_name(f"{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tmp.open("w", encoding="utf-8") as fh:
            json.dump(payload, fh, ensure_ascii=False, separators=(",", ":"))
        os.replace(tmp, path)
    except OSError:
        log.debug("could not save the BM25 corpus %s", path, exc_info=True)
    finally:
        tmp.unlink(missing_ok=True)


def load_corpus(path: Path, signature: str) -> dict[str, list] | None:
    """The corpus saved at `path`, or None when it is missing, unreadable or from another tokenizer."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    keys = ("ids", "texts", "metas", "tokens")
    if not isinstance(data, dict) or data.get("format") != CORPUS_FORMAT or data.get("signature") != signature:
        return None
    if not all(isinstance(data.get(k), list) for k in keys) or len({len(data[k]) for k in keys}) != 1:
        return None
    return {k: data[k] for k in keys}


# ---- jieba's dictionary, looked up on demand ---------------------------------------------------------------


def word_index_path() -> Path:
    """Where the SQLite copy of jieba's dictionary lives: a cache shared by every data directory."""
    import jieba

    return user_cache_dir() / f"jieba-words-{jieba.__version__}.sqlite"


def build_word_index(path: Path, freq: dict[str, int], total: int) -> bool:
    """Write jieba's word table (every word and prefix with its frequency) to `path`; False when it cannot."""
    tmp = path.with_name(f"{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp.unlink(missing_ok=True)
        conn = sqlite3.connect(tmp)
        try:
            conn.execute("CREATE TABLE words (word TEXT PRIMARY KEY, freq INTEGER NOT NULL) WITHOUT ROWID")
            conn.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL)")
            conn.executemany("INSERT INTO words VALUES (?, ?)", freq.items())
            conn.execute("INSERT INTO meta VALUES ('total', ?)", (total,))
            conn.commit()
        finally:
            conn.close()
        os.replace(tmp, path)
        return True
    except (OSError, sqlite3.Error):
        log.debug("could not write the word index %s", path, exc_info=True)
        return False
    finally:
        tmp.unlink(missing_ok=True)


_MISSING = object()


class LazyFreq:
    """jieba's `FREQ` table answered from the SQLite word index, one word at a time, with a cache.

    A bulk job (tokenizing a whole corpus) would make hundreds of thousands of look-ups: past BULK of
    them the whole table is read into memory once, which is what jieba itself would have done.
    """

    BULK = 20_000

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn
        self._known: dict[str, Any] = {}  # word -> freq, or None when the dictionary lacks it
        self._added: dict[str, int] = {}  # words jieba.add_word set in this process; they win
        self._lookups = 0
        self._all = False
        self._lock = threading.Lock()

    def _freq(self, word: str) -> int | None:
        if word in self._added:
            return self._added[word]
        known = self._known.get(word, _MISSING)
        if known is not _MISSING or self._all:
            return None if known is _MISSING else known
        with self._lock:
            self._lookups += 1
            if self._lookups > self.BULK:
                self._known = dict(self._conn.execute("SELECT word, freq FROM words"))
                self._all = True
                return self._known.get(word)
            row = self._conn.execute("SELECT freq FROM words WHERE word = ?", (word,)).fetchone()
        value = None if row is None else row[0]
        self._known[word] = value
        return value

    def __contains__(self, word: object) -> bool:
        return isinstance(word, str) and self._freq(word) is not None

    def __getitem__(self, word: str) -> int:
        value = self._freq(word)
        if value is None:
            raise KeyError(word)
        return value

    def get(self, word: str, default: Any = None) -> Any:
        value = self._freq(word)
        return default if value is None else value

    def __setitem__(self, word: str, freq: int) -> None:
        self._added[word] = freq


def use_word_index(path: Path | None = None) -> bool:
    """Let jieba's default tokenizer read its dictionary from the word index instead of loading it whole.

    Builds the index first when it is missing (loading the dictionary once, as jieba would anyway).
    Returns True when jieba now answers from the index; False leaves jieba as it was (already loaded, or
    no index could be written), which is always correct, only slower to start.
    """
    import jieba

    dt = jieba.dt
    with dt.lock:
        if dt.initialized:
            return isinstance(dt.FREQ, LazyFreq)
        path = path or word_index_path()
        if not path.is_file():
            jieba.setLogLevel(logging.WARNING)
            dt.initialize()
            # Written beside the work that follows (the first question on a new machine waits for neither): a
            # copy of the pristine table, before anyone adds words; not a daemon, so exiting waits for the file.
            pristine = dict(dt.FREQ)
            threading.Thread(target=build_word_index, args=(path, pristine, dt.total), name="word-index").start()
            return False
        try:
            conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, check_same_thread=False)
            total = conn.execute("SELECT value FROM meta WHERE key = 'total'").fetchone()[0]
        except (sqlite3.Error, TypeError):
            return False
        dt.FREQ, dt.total, dt.initialized = LazyFreq(conn), total, True
        return True
