"""Query embeddings without torch: the numpy BERT agrees with sentence-transformers on the bundled model."""

from __future__ import annotations

import math

import pytest

from knowledge.embeddings import DEFAULT_MODEL, NumpyBert, SentenceTransformerEmbedder

TEXTS = [
    "does the RTX 4090 support NVLink or do two of them only talk over PCIe",
    "RTX 4090 NVLink (interconnect, multi-GPU)",
    "x",
    "memory bandwidth decides decode speed " * 40,  # longer than the 128-token window: truncated alike
]


def test_numpy_query_vectors_match_sentence_transformers() -> None:
    light = SentenceTransformerEmbedder(DEFAULT_MODEL)
    quick = [light.embed([t])[0] for t in TEXTS]
    assert not light.loaded  # one text is a query: no sentence-transformers, no torch

    reference = SentenceTransformerEmbedder(DEFAULT_MODEL)
    full = reference.embed(TEXTS)  # a batch: sentence-transformers
    assert reference.loaded
    for a, b in zip(quick, full, strict=True):
        assert math.isclose(sum(x * y for x, y in zip(a, b, strict=True)), 1.0, abs_tol=1e-5)
        assert max(abs(x - y) for x, y in zip(a, b, strict=True)) < 1e-5


def test_reads_cjk_is_answered_without_loading_the_model() -> None:
    embedder = SentenceTransformerEmbedder(DEFAULT_MODEL)
    assert embedder.reads_cjk is False  # MiniLM's vocabulary maps Chinese to [UNK]
    assert embedder.readable("RTX 4090 支持 NVLink 吗") == "RTX 4090 NVLink"
    assert not embedder.loaded


def test_only_plain_bert_mean_pooling_models_run_in_numpy(tmp_path) -> None:
    assert NumpyBert.load(tmp_path, 128) is None  # no modules.json: sentence-transformers decides
    (tmp_path / "modules.json").write_text('[{"path": "", "type": "sentence_transformers.models.Transformer"}]')
    assert NumpyBert.load(tmp_path, 128) is None


@pytest.mark.parametrize("name", [DEFAULT_MODEL])
def test_the_bundled_model_runs_in_numpy(name: str) -> None:
    embedder = SentenceTransformerEmbedder(name)
    model = embedder._light_model()
    assert model is not None and model.layers == 6 and model.heads == 12
