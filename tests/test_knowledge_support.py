"""Helpers shared by the knowledge tests (no tests here): a fast lexical embedder and document writers.

`HashEmbedder` stands in for the sentence-transformers model where a test is about storage, not about
semantics (idempotency, crash safety, concurrency, server mode): it hashes words into a fixed-size vector,
so dense search still ranks by word overlap, it counts its calls, and it can be slowed down so a test can
kill an ingest in the middle of embedding. It is importable from a subprocess by file path.
"""

from __future__ import annotations

import hashlib
import math
import re
import time
from pathlib import Path


class HashEmbedder:
    """Deterministic bag-of-words embedder (hashed, L2-normalized)."""

    def __init__(self, dim: int = 256, delay_s: float = 0.0) -> None:
        self.name = "test-hash"
        self.signature = f"test-hash-{dim}"
        self.dim = dim
        self.delay_s = delay_s
        self.calls = 0
        self.texts_embedded = 0

    def _vector(self, text: str) -> list[float]:
        vec = [0.0] * self.dim
        for token in re.findall(r"\w+", text.lower()):
            vec[int(hashlib.sha1(token.encode()).hexdigest()[:8], 16) % self.dim] += 1.0
        norm = math.sqrt(sum(v * v for v in vec)) or 1.0
        if not any(vec):
            vec[0] = norm = 1.0
        return [v / norm for v in vec]

    def embed(self, texts: list[str]) -> list[list[float]]:
        self.calls += 1
        self.texts_embedded += len(texts)
        if self.delay_s:
            time.sleep(self.delay_s)
        return [self._vector(t) for t in texts]


def write_doc(folder: Path, name: str, title: str, body: str, lang: str = "en", doc_id: str | None = None) -> Path:
    """Write a small markdown document with front matter."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    meta = f"---\nid: {doc_id or Path(name).stem}\ntitle: {title}\nlang: {lang}\n---\n\n"
    path.write_text(meta + body, encoding="utf-8")
    return path


def sample_docs(folder: Path) -> dict[str, Path]:
    """Three small documents with distinctive words in every section."""
    return {
        "alpha": write_doc(
            folder,
            "alpha.md",
            "Alpha cards",
            "## Power\n\nThe alpha card draws 450 watts under load and needs a strong power supply.\n\n"
            "## Memory\n\nAlpha carries 24 gigabytes of fast memory, plenty for a quantized 13B model.\n",
        ),
        "beta": write_doc(
            folder,
            "beta.md",
            "Beta cluster",
            "## Network\n\nThe beta cluster links nodes with infiniband at 400 gigabits per second.\n\n"
            "## Storage\n\nBeta keeps checkpoints on a parallel filesystem next to the racks.\n",
        ),
        "gamma": write_doc(
            folder,
            "gamma.md",
            "伽马笔记",
            "## 散热\n\n伽马工作站使用涡轮风扇，机箱前面进风，后面出风。\n\n"
            "## 电源\n\n两张显卡需要一千六百瓦的电源。\n",
            lang="zh",
        ),
    }
