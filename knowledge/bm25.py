"""BM25 scores from postings lists: rank_bm25's Okapi scores, without its per-query loop over every document.

`rank_bm25.BM25Okapi.get_scores` builds a term-frequency array by asking every document's dict for every
query term — pure Python, ~5 ms per search over the bundled guides and growing with the corpus, on the
path of every chat turn. Here each term's contribution is precomputed once per corpus (documents holding
the term, and their score terms), so a query adds a few short arrays. The arithmetic is rank_bm25's, in
the same order, so scores are identical (tests/test_knowledge_retrieval.py compares them).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


class PostingsBM25:
    """Okapi BM25 (rank_bm25's parameters and idf) over tokenized documents."""

    def __init__(self, corpus: Sequence[Sequence[str]], k1: float = 1.5, b: float = 0.75, epsilon: float = 0.25):
        from rank_bm25 import BM25Okapi

        okapi = BM25Okapi([list(doc) for doc in corpus], k1=k1, b=b, epsilon=epsilon)
        self.size = okapi.corpus_size
        doc_len = np.array(okapi.doc_len)
        norm = okapi.k1 * (1 - okapi.b + okapi.b * doc_len / okapi.avgdl)
        docs: dict[str, list[int]] = {}
        freqs: dict[str, list[int]] = {}
        for i, counts in enumerate(okapi.doc_freqs):
            for term, f in counts.items():
                docs.setdefault(term, []).append(i)
                freqs.setdefault(term, []).append(f)
        self._postings: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        for term, where in docs.items():
            idx = np.array(where, dtype=np.int64)
            f = np.array(freqs[term], dtype=np.float64)
            idf = okapi.idf.get(term) or 0
            self._postings[term] = (idx, idf * (f * (okapi.k1 + 1) / (f + norm[idx])))

    def get_scores(self, query: Sequence[str]) -> np.ndarray:
        """One score per document; a term repeated in the query counts again, as in rank_bm25."""
        scores = np.zeros(self.size)
        for term in query:
            hit = self._postings.get(term)
            if hit is not None:
                scores[hit[0]] += hit[1]
        return scores
