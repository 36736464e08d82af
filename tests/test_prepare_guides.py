"""`gpu-advisor ask` on a fresh data directory prepares the guides in a second process (knowledge/retrieval.py
`prepare_guides`): a guide search waits for it under PREPARING_LOCK, then finds the guides ingested and their BM25
corpus saved, so it neither ingests again nor opens Chroma to build the corpus."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

from knowledge.retrieval import PREPARING_LOCK, Retriever
from knowledge.store import KnowledgeConfig, KnowledgeStore

REPO = Path(__file__).resolve().parents[1]


def test_a_search_waits_for_the_preparing_process_and_reuses_its_work(tmp_path: Path) -> None:
    data = tmp_path / "data"
    env = {**os.environ, "GPU_ADVISOR_DATA_DIR": str(data)}
    config = KnowledgeConfig(data_dir=data)
    store = KnowledgeStore(config)
    held, release = threading.Event(), threading.Event()

    def hold_then_prepare() -> None:  # the other process, as `ask` starts it: holds the lock while it works
        with store.lock(PREPARING_LOCK):
            held.set()
            release.wait(60)
            code = "from knowledge.ingest import ingest_guides; ingest_guides()"
            subprocess.run([sys.executable, "-c", code], env=env, cwd=REPO, check=True)
            retriever = Retriever(config, auto_ingest_guides=False)
            retriever.refresh()
            retriever.search("GPU", k=1, mode="bm25")  # saves the corpus, as prepare_guides does

    preparer = threading.Thread(target=hold_then_prepare)
    preparer.start()
    assert held.wait(30)
    searcher = Retriever(config)
    found: list = []
    search = threading.Thread(target=lambda: found.append(searcher.search("4090 NVLink", k=3, mode="bm25")))
    search.start()
    search.join(4.0)  # long enough for a search that did not wait to have ingested the guides itself (~2 s)
    assert search.is_alive(), "the search did not wait for the guides being prepared"
    assert store.read_manifest("guides") is None  # nothing ingested while the other process holds the lock
    release.set()
    preparer.join(120)
    search.join(120)
    assert found and found[0], "no passages after the guides were prepared"
    assert searcher.guides_current()
    assert len(store.generations("guides")) == 1, store.generations("guides")  # prepared once, not again
