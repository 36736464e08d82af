"""Ingestion: content hashes, idempotency, updates and deletes, crash safety, concurrency, broken stores.

These tests are about storage, so they embed with the fast lexical HashEmbedder; retrieval quality with
the real model is tested in test_knowledge_retrieval.py.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from test_knowledge_support import HashEmbedder, sample_docs, write_doc

from knowledge.ingest import ingest_paths
from knowledge.loaders import LoaderError
from knowledge.retrieval import Retriever
from knowledge.store import KnowledgeConfig, KnowledgeStore, StoreError

TESTS_DIR = Path(__file__).resolve().parent
REPO = TESTS_DIR.parent


def _kb(tmp_path: Path, embedder: HashEmbedder | None = None) -> tuple[KnowledgeStore, HashEmbedder, Retriever]:
    store = KnowledgeStore(KnowledgeConfig(data_dir=tmp_path / "data"))
    embedder = embedder or HashEmbedder()
    return store, embedder, Retriever(store=store, embedder=embedder, auto_ingest_guides=False)


def _top_doc(retriever: Retriever, query: str, mode: str = "hybrid") -> str | None:
    passages = retriever.search(query, k=1, mode=mode)
    return passages[0].doc_id if passages else None


def test_first_ingest_embeds_everything_and_records_hashes(tmp_path: Path):
    docs = sample_docs(tmp_path / "docs")
    store, embedder, retriever = _kb(tmp_path)
    report = ingest_paths([tmp_path / "docs"], store=store, embedder=embedder)
    assert sorted(report.added) == ["alpha", "beta", "gamma"]
    assert report.chunks_embedded == report.chunks_total == 6 and embedder.texts_embedded == 6
    manifest = store.read_manifest("user")
    assert manifest is not None and manifest.generation == report.generation
    entry = manifest.docs["alpha"]
    assert len(entry.chunk_hashes) == 2 and len(entry.doc_hash) == 24 and entry.source == str(docs["alpha"])
    got = store.generation(report.generation).get(include=["metadatas"])
    meta = {m["section"]: m for m in got["metadatas"]}
    assert meta["Power"]["doc_id"] == "alpha" and meta["Power"]["lang"] == "en"
    assert meta["Power"]["chunk_hash"] in entry.chunk_hashes and meta["散热"]["lang"] == "zh"
    assert _top_doc(retriever, "infiniband 400 gigabits") == "beta"
    assert _top_doc(retriever, "涡轮风扇 进风") == "gamma"


def test_second_ingest_of_unchanged_documents_embeds_nothing(tmp_path: Path):
    sample_docs(tmp_path / "docs")
    store, embedder, _ = _kb(tmp_path)
    first = ingest_paths([tmp_path / "docs"], store=store, embedder=embedder)
    calls = embedder.calls
    collections_before = sorted(c.name for c in store.client.list_collections())
    second = ingest_paths([tmp_path / "docs"], store=store, embedder=embedder)
    assert embedder.calls == calls  # no embedding work at all
    assert not second.changed and second.chunks_embedded == 0
    assert sorted(second.unchanged) == ["alpha", "beta", "gamma"]
    assert second.generation == first.generation
    assert sorted(c.name for c in store.client.list_collections()) == collections_before  # nothing written


def test_changed_document_re_embeds_only_changed_chunks(tmp_path: Path):
    docs = sample_docs(tmp_path / "docs")
    store, embedder, retriever = _kb(tmp_path)
    first = ingest_paths([tmp_path / "docs"], store=store, embedder=embedder)
    text = docs["alpha"].read_text(encoding="utf-8")
    docs["alpha"].write_text(text.replace("450 watts", "575 watts with transient spikes"), encoding="utf-8")
    before = embedder.texts_embedded
    report = ingest_paths([tmp_path / "docs"], store=store, embedder=embedder)
    assert report.updated == ["alpha"] and sorted(report.unchanged) == ["beta", "gamma"]
    assert report.chunks_embedded == 1 and embedder.texts_embedded - before == 1  # only the Power section
    assert report.chunks_reused == 5 and report.generation != first.generation
    hit = retriever.search("transient spikes watts", k=1)[0]
    assert hit.doc_id == "alpha" and "575 watts" in hit.text and hit.section == "Power"
    assert all("450 watts" not in p.text for p in retriever.search("alpha 450 watts", k=6))


def test_deleted_document_is_removed(tmp_path: Path):
    docs = sample_docs(tmp_path / "docs")
    store, embedder, retriever = _kb(tmp_path)
    ingest_paths([tmp_path / "docs"], store=store, embedder=embedder)
    assert _top_doc(retriever, "infiniband") == "beta"
    docs["beta"].unlink()
    report = ingest_paths([tmp_path / "docs"], store=store, embedder=embedder)
    assert report.removed == ["beta"] and report.chunks_embedded == 0 and report.chunks_total == 4
    assert "beta" not in store.read_manifest("user").docs
    assert all(p.doc_id != "beta" for p in retriever.search("infiniband cluster checkpoints", k=10))


def test_merge_keeps_other_documents_and_replace_drops_them(tmp_path: Path):
    docs = sample_docs(tmp_path / "docs")
    store, embedder, _ = _kb(tmp_path)
    ingest_paths([docs["alpha"], docs["beta"]], store=store, embedder=embedder)
    report = ingest_paths([docs["gamma"]], store=store, embedder=embedder)
    assert report.added == ["gamma"] and sorted(report.unchanged) == ["alpha", "beta"]
    assert report.chunks_embedded == 2  # carried documents keep their stored vectors
    report = ingest_paths([docs["gamma"]], store=store, embedder=embedder, replace=True)
    assert sorted(report.removed) == ["alpha", "beta"] and list(store.read_manifest("user").docs) == ["gamma"]


def test_superseded_generations_are_garbage_collected(tmp_path: Path):
    docs = sample_docs(tmp_path / "docs")
    store, embedder, _ = _kb(tmp_path)
    generations = []
    for i in range(4):
        docs["alpha"].write_text(docs["alpha"].read_text(encoding="utf-8") + f"\nRevision {i}.\n", encoding="utf-8")
        generations.append(ingest_paths([tmp_path / "docs"], store=store, embedder=embedder).generation)
    # The live generation and the one before it (for readers mid-query) remain; older ones are gone.
    assert sorted(store.generations("user")) == sorted(generations[-2:])


def test_collection_names_and_duplicate_ids_are_checked(tmp_path: Path):
    docs = sample_docs(tmp_path / "docs")
    store, embedder, _ = _kb(tmp_path)
    with pytest.raises(StoreError, match="invalid collection name 'ab'"):
        ingest_paths([docs["alpha"]], store=store, embedder=embedder, collection="ab")
    with pytest.raises(ValueError, match="bundled guides"):
        ingest_paths([docs["alpha"]], store=store, embedder=embedder, collection="guides")
    twin = write_doc(tmp_path / "other", "alpha-copy.md", "Alpha again", "## X\n\ntext\n", doc_id="alpha")
    with pytest.raises(ValueError, match="two documents share the id 'alpha'"):
        ingest_paths([docs["alpha"], twin], store=store, embedder=embedder)
    assert store.read_manifest("user") is None  # nothing was committed


_KILLED_INGEST = """
import sys
sys.path.insert(0, {tests!r})
from test_knowledge_support import HashEmbedder
from knowledge.ingest import ingest_paths
from knowledge.loaders import LoaderError
from knowledge.store import KnowledgeConfig

def progress(stage, done, total):
    if stage == "embed" and done:
        print("embedded", done, total, flush=True)

ingest_paths([{docs!r}], KnowledgeConfig(data_dir={data!r}), embedder=HashEmbedder(delay_s=0.5), progress=progress)
print("finished", flush=True)
"""


def test_killed_ingest_leaves_the_previous_store_usable(tmp_path: Path):
    docs = sample_docs(tmp_path / "docs")
    store, embedder, _ = _kb(tmp_path)
    live = ingest_paths([tmp_path / "docs"], store=store, embedder=embedder).generation

    # Change a document and add 120 new ones, then kill the ingest while it is embedding.
    docs["alpha"].write_text(docs["alpha"].read_text(encoding="utf-8").replace("450", "999"), encoding="utf-8")
    for i in range(120):
        write_doc(tmp_path / "docs" / "bulk", f"bulk{i}.md", f"Bulk {i}", f"## Part\n\nzebracorn note number {i}.\n")
    script = _KILLED_INGEST.format(tests=str(TESTS_DIR), docs=str(tmp_path / "docs"), data=str(tmp_path / "data"))
    proc = subprocess.Popen(
        [sys.executable, "-c", script], cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        line = proc.stdout.readline()
        assert line.startswith("embedded"), f"ingest did not start embedding: {line!r} {proc.stderr.read()}"
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.kill()
        proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL

    # The half-written generation exists, but the manifest still points at the previous one.
    assert store.read_manifest("user").generation == live
    assert len(store.generations("user")) == 2
    retriever = Retriever(store=store, embedder=HashEmbedder(), auto_ingest_guides=False)
    hit = retriever.search("alpha card draws watts power supply", k=1)[0]
    assert hit.doc_id == "alpha" and "450 watts" in hit.text
    assert all("zebracorn" not in p.text for p in retriever.search("zebracorn note", k=5))
    assert {p.doc_id for p in retriever.search("infiniband 涡轮", k=10)} >= {"beta", "gamma"}

    # A re-run completes, picks up every change and removes the leftover generation.
    report = ingest_paths([tmp_path / "docs"], store=store, embedder=embedder)
    assert report.updated == ["alpha"] and len(report.added) == 120
    assert sorted(store.generations("user")) == sorted([live, report.generation])
    assert "zebracorn" in retriever.search("zebracorn note number 7", k=1)[0].text
    assert "999 watts" in retriever.search("alpha card draws watts", k=1)[0].text


def test_concurrent_ingest_and_queries(tmp_path: Path):
    docs = sample_docs(tmp_path / "docs")
    store, embedder, retriever = _kb(tmp_path)
    ingest_paths([tmp_path / "docs"], store=store, embedder=embedder)
    errors: list[BaseException] = []
    answers: list[str] = []
    done = threading.Event()

    def writer() -> None:
        try:
            for i in range(5):
                body = re.sub(r"\d+ gigabits", f"{400 + i} gigabits", docs["beta"].read_text(encoding="utf-8"))
                docs["beta"].write_text(body, encoding="utf-8")
                ingest_paths([tmp_path / "docs"], store=store, embedder=HashEmbedder(delay_s=0.05))
        except BaseException as exc:  # surfaced below
            errors.append(exc)
        finally:
            done.set()

    thread = threading.Thread(target=writer)
    thread.start()
    while not done.is_set() or not answers:
        try:
            passages = retriever.search("beta cluster infiniband gigabits", k=3)
            assert passages and passages[0].doc_id == "beta"
            answers.append(passages[0].text)
        except BaseException as exc:
            errors.append(exc)
            break
    thread.join(timeout=60)
    assert not errors, errors
    assert len(answers) >= 3
    assert "404 gigabits" in retriever.search("beta cluster infiniband gigabits", k=1)[0].text


def test_data_dir_that_is_a_file_is_a_clear_error(tmp_path: Path):
    path = tmp_path / "data"
    path.write_text("not a folder", encoding="utf-8")
    store = KnowledgeStore(KnowledgeConfig(data_dir=path))
    with pytest.raises(StoreError, match="is a file, not a directory"):
        store.read_manifest("guides")


def test_missing_data_dir_is_created(tmp_path: Path):
    docs = sample_docs(tmp_path / "docs")
    store, embedder, retriever = _kb(tmp_path / "does" / "not" / "exist")
    ingest_paths([docs["beta"]], store=store, embedder=embedder)
    assert _top_doc(retriever, "infiniband") == "beta"


def test_corrupt_chroma_database_is_a_clear_error(tmp_path: Path):
    (tmp_path / "data" / "chroma").mkdir(parents=True)
    (tmp_path / "data" / "chroma" / "chroma.sqlite3").write_bytes(os.urandom(4096))
    docs = sample_docs(tmp_path / "docs")
    store, embedder, _ = _kb(tmp_path)
    with pytest.raises(StoreError) as err:
        ingest_paths([docs["alpha"]], store=store, embedder=embedder)
    message = str(err.value)
    assert "is unreadable" in message and str(tmp_path / "data" / "chroma") in message
    assert "gpu-advisor ingest --guides" in message


def test_corrupt_manifest_is_a_clear_error(tmp_path: Path):
    docs = sample_docs(tmp_path / "docs")
    store, embedder, retriever = _kb(tmp_path)
    ingest_paths([docs["alpha"]], store=store, embedder=embedder)
    (tmp_path / "data" / "manifests" / "user.json").write_text("{ truncated", encoding="utf-8")
    with pytest.raises(StoreError, match=r"manifest .*user\.json is corrupt — delete it and re-ingest"):
        retriever.search("alpha")


def test_manifest_pointing_at_a_missing_collection_is_a_clear_error(tmp_path: Path):
    docs = sample_docs(tmp_path / "docs")
    store, embedder, _ = _kb(tmp_path)
    report = ingest_paths([docs["alpha"]], store=store, embedder=embedder)
    store.drop_generation(report.generation)
    ingest_paths([docs["beta"]], store=store, embedder=embedder, collection="notes")
    retriever = Retriever(store=store, embedder=embedder, auto_ingest_guides=False)
    with pytest.raises(StoreError, match=r"missing from the store .*re-ingest"):
        retriever.search("alpha")
    assert retriever.search("infiniband", k=1, collections=["notes"])[0].doc_id == "beta"  # others still work
    # Re-ingesting repairs it (nothing reusable, so everything is embedded again).
    report = ingest_paths([docs["alpha"]], store=store, embedder=embedder)
    assert report.chunks_embedded == 2
    assert _top_doc(retriever, "alpha memory") == "alpha"


def test_model_change_is_detected(tmp_path: Path):
    docs = sample_docs(tmp_path / "docs")
    store, embedder, _ = _kb(tmp_path)
    ingest_paths([docs["alpha"]], store=store, embedder=embedder)
    other = HashEmbedder(dim=128)
    with pytest.raises(StoreError, match="embedded with 'test-hash-256' but the configured model is 'test-hash-128'"):
        Retriever(store=store, embedder=other, auto_ingest_guides=False).search("alpha")
    report = ingest_paths([docs["alpha"]], store=store, embedder=other)
    assert report.chunks_embedded == 2  # a different model means new vectors for everything


def test_manifest_file_is_replaced_atomically(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    docs = sample_docs(tmp_path / "docs")
    store, embedder, _ = _kb(tmp_path)
    ingest_paths([docs["alpha"]], store=store, embedder=embedder)
    path = tmp_path / "data" / "manifests" / "user.json"
    before = path.read_text(encoding="utf-8")

    def crash(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", crash)
    with pytest.raises(OSError, match="disk full"):
        ingest_paths([docs["alpha"], docs["beta"]], store=store, embedder=embedder)
    assert path.read_text(encoding="utf-8") == before  # the live manifest was never half-written
    assert json.loads(before)["docs"].keys() == {"alpha"}
    monkeypatch.undo()
    assert ingest_paths([docs["alpha"], docs["beta"]], store=store, embedder=embedder).added == ["beta"]
    assert not list(path.parent.glob("*.tmp"))


def test_unreadable_file_in_a_folder_is_skipped_but_a_named_one_fails(tmp_path: Path):
    sample_docs(tmp_path / "docs")
    broken = tmp_path / "docs" / "broken.pdf"
    broken.write_bytes(b"%PDF-1.4 truncated")
    store, embedder, _ = _kb(tmp_path)
    report = ingest_paths([tmp_path / "docs"], store=store, embedder=embedder)
    assert sorted(report.added) == ["alpha", "beta", "gamma"]
    assert len(report.skipped) == 1 and "broken.pdf" in report.skipped[0]
    with pytest.raises(LoaderError, match=r"broken\.pdf"):
        ingest_paths([broken], store=store, embedder=embedder)


def test_empty_collection_searches_cleanly(tmp_path: Path):
    docs = sample_docs(tmp_path / "docs")
    store, embedder, retriever = _kb(tmp_path)
    ingest_paths([docs["alpha"]], store=store, embedder=embedder)
    docs["alpha"].unlink()
    report = ingest_paths([], store=store, embedder=embedder)
    assert report.removed == ["alpha"] and report.chunks_total == 0
    assert retriever.search("alpha") == []
