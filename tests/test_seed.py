"""The shipped guide vectors (knowledge/seed.py): in step with the guides, equal to the model's own, used on a fresh
store so the first question does not wait ~20 s for the guides to be embedded."""

from __future__ import annotations

from pathlib import Path

from knowledge.embeddings import get_embedder
from knowledge.ingest import chunk_document, ingest_guides, load_guides
from knowledge.seed import SEED_PATH, seed_vectors
from knowledge.store import KnowledgeConfig, KnowledgeStore


def _default():
    return get_embedder(KnowledgeConfig().embed_model)


def test_the_seed_holds_every_bundled_guide_chunk() -> None:
    seed = seed_vectors(_default().signature)
    hashes = {r.hash for doc in load_guides() for r in chunk_document(doc)}
    stale = hashes - set(seed)
    assert not stale, f"{len(stale)} guide chunks have no shipped vector: run `python -m knowledge.seed`"


def test_a_shipped_vector_is_the_models_own() -> None:
    embedder = _default()
    seed = seed_vectors(embedder.signature)
    records = [r for doc in load_guides()[:2] for r in chunk_document(doc)][:3]
    fresh = embedder.embed([r.embed_text for r in records])
    for record, vector in zip(records, fresh, strict=True):
        dot = sum(a * b for a, b in zip(seed[record.hash], vector, strict=True))
        assert dot > 0.9999, (record.id, dot)


class _MustNotEmbed:
    """The default model's signature; embedding anything fails the test."""

    def __init__(self, signature: str) -> None:
        self.signature = signature
        self.texts: list[str] = []

    def embed(self, texts: list[str]) -> list[list[float]]:
        self.texts += texts
        raise AssertionError(f"embedded {len(texts)} texts the seed holds")


def test_a_fresh_store_copies_the_guides_vectors_instead_of_embedding(tmp_path: Path) -> None:
    store = KnowledgeStore(KnowledgeConfig(data_dir=tmp_path / "data"))
    embedder = _MustNotEmbed(_default().signature)
    report = ingest_guides(store=store, embedder=embedder)  # type: ignore[arg-type]
    assert report.chunks_embedded == 0 and report.chunks_reused == report.chunks_total > 500


def test_another_model_gets_no_shipped_vectors() -> None:
    assert seed_vectors("some-other-model@256") == {}
    assert SEED_PATH.exists()
