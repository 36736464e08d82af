"""Server mode: the same ingest and search against a real `chroma run` server started by the test."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_knowledge_support import HashEmbedder, sample_docs

from knowledge.ingest import ingest_paths
from knowledge.retrieval import Retriever
from knowledge.store import MANIFEST_COLLECTION, KnowledgeConfig, KnowledgeStore, StoreError

CHROMA = shutil.which("chroma", path=str(Path(sys.executable).parent)) or shutil.which("chroma")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="module")
def chroma_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    if CHROMA is None:
        pytest.skip("the `chroma` command is not installed")
    path = tmp_path_factory.mktemp("chroma-server")
    port = _free_port()
    log = (path / "server.log").open("w")
    proc = subprocess.Popen(
        [CHROMA, "run", "--path", str(path / "db"), "--host", "127.0.0.1", "--port", str(port)],
        stdout=log,
        stderr=subprocess.STDOUT,
        env={**os.environ, "ANONYMIZED_TELEMETRY": "False"},
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"{url}/api/v2/heartbeat", timeout=1) as resp:
                    if resp.status == 200:
                        break
            except OSError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"chroma server did not start: {(path / 'server.log').read_text()[-2000:]}")
            time.sleep(0.2)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()


def test_ingest_and_search_through_a_chroma_server(chroma_url: str, tmp_path: Path):
    docs = sample_docs(tmp_path / "docs")
    config = KnowledgeConfig(data_dir=tmp_path / "local", chroma_url=chroma_url)
    store = KnowledgeStore(config)
    embedder = HashEmbedder()
    assert store.server_mode and store.location == chroma_url

    first = ingest_paths([tmp_path / "docs"], store=store, embedder=embedder)
    assert sorted(first.added) == ["alpha", "beta", "gamma"] and first.chunks_embedded == 6
    retriever = Retriever(store=store, embedder=embedder, auto_ingest_guides=False)
    hit = retriever.search("infiniband 400 gigabits", k=1)[0]
    assert hit.doc_id == "beta" and hit.section == "Network" and hit.collection == "user"
    assert retriever.search("涡轮风扇", k=1)[0].doc_id == "gamma"

    # The manifest lives in the server (no local manifest files), and unchanged documents cost nothing.
    assert not (tmp_path / "local" / "manifests").exists()
    assert MANIFEST_COLLECTION in {c.name for c in store.client.list_collections()}
    calls = embedder.calls
    again = ingest_paths([tmp_path / "docs"], store=store, embedder=embedder)
    assert not again.changed and embedder.calls == calls and again.generation == first.generation

    # An update switches generations in the server; another client sees it.
    docs["beta"].write_text(docs["beta"].read_text(encoding="utf-8").replace("400", "800"), encoding="utf-8")
    update = ingest_paths([tmp_path / "docs"], store=store, embedder=embedder)
    assert update.updated == ["beta"] and update.chunks_embedded == 1
    other = Retriever(
        store=KnowledgeStore(KnowledgeConfig(data_dir=tmp_path / "other", chroma_url=chroma_url)),
        embedder=HashEmbedder(),
        auto_ingest_guides=False,
    )
    assert "800 gigabits" in other.search("beta infiniband gigabits", k=1)[0].text
    assert sorted(store.generations("user")) == sorted([first.generation, update.generation])


def test_unreachable_server_is_a_clear_error(tmp_path: Path):
    url = f"http://127.0.0.1:{_free_port()}"
    store = KnowledgeStore(KnowledgeConfig(data_dir=tmp_path, chroma_url=url))
    with pytest.raises(StoreError, match=f"cannot reach the Chroma server at {url}.*chroma run"):
        store.read_manifest("guides")


def test_chroma_url_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    monkeypatch.setenv("GPU_ADVISOR_CHROMA_URL", "http://chroma.internal:8000")
    monkeypatch.setenv("GPU_ADVISOR_DATA_DIR", str(tmp_path / "kb"))
    config = KnowledgeConfig()
    assert config.chroma_url == "http://chroma.internal:8000" and config.data_dir == tmp_path / "kb"
    monkeypatch.delenv("GPU_ADVISOR_CHROMA_URL")
    monkeypatch.delenv("GPU_ADVISOR_DATA_DIR")
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    config = KnowledgeConfig()
    assert config.chroma_url is None and config.data_dir == tmp_path / ".local" / "share" / "gpu-advisor"
