"""Knowledge-base benchmarks: full guide ingest from an empty store, no-change re-ingest, query latency.

    python -m evals.bench_retrieval [--out FILE]

`bench_retrieval(tmp_dir)` returns a JSON-able dict; the data lives under `tmp_dir` and is removed after.
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any


def _percentiles(samples_ms: list[float]) -> dict[str, float]:
    ordered = sorted(samples_ms)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return {"p50_ms": round(statistics.median(ordered), 2), "p95_ms": round(p95, 2), "n": len(ordered)}


def _cpu_s() -> float:
    """CPU seconds this process has used (all threads): steadier than wall time on a shared machine."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def bench_retrieval(
    tmp_dir: str | Path, modes: tuple[str, ...] = ("auto", "hybrid", "bm25", "dense")
) -> dict[str, Any]:
    """Time a cold ingest of the bundled guides, a no-change re-ingest, and queries in each mode."""
    from evals.retrieval_eval import load_queries
    from knowledge.embeddings import get_embedder
    from knowledge.ingest import ingest_guides
    from knowledge.retrieval import Retriever
    from knowledge.store import KnowledgeConfig, KnowledgeStore

    data_dir = Path(tmp_dir) / "bench-knowledge"
    shutil.rmtree(data_dir, ignore_errors=True)
    try:
        store = KnowledgeStore(KnowledgeConfig(data_dir=data_dir))
        embedder = get_embedder(store.config.embed_model)
        start = time.perf_counter()
        embedder.embed(["warm-up"])  # loads the model unless this process already has it
        model_load_s = time.perf_counter() - start

        start, cpu = time.perf_counter(), _cpu_s()
        cold = ingest_guides(store=store, embedder=embedder)
        ingest_cold_s, ingest_cold_cpu_s = time.perf_counter() - start, _cpu_s() - cpu
        start = time.perf_counter()
        again = ingest_guides(store=store, embedder=embedder)
        ingest_noop_s = time.perf_counter() - start
        assert again.chunks_embedded == 0, "no-change re-ingest embedded something"

        retriever = Retriever(store=store, embedder=embedder)
        queries = [q.q for q in load_queries()]
        start = time.perf_counter()
        retriever.search(queries[0], k=5)  # builds the BM25 index and loads jieba
        first_query_s = time.perf_counter() - start
        latency: dict[str, dict[str, float]] = {}
        for mode in modes:
            retriever.clear_query_cache()
            samples = []
            for query in queries:
                start = time.perf_counter()
                retriever.search(query, k=5, mode=mode)
                samples.append((time.perf_counter() - start) * 1000)
            latency[mode] = _percentiles(samples)
        return {
            "embed_model": embedder.signature,
            "documents": len(cold.added),
            "chunks": cold.chunks_total,
            "model_load_s": round(model_load_s, 2),
            "ingest_cold_s": round(ingest_cold_s, 2),
            "ingest_cold_cpu_s": round(ingest_cold_cpu_s, 2),
            "ingest_cold_chunks_per_s": round(cold.chunks_total / ingest_cold_s, 1),
            "ingest_noop_s": round(ingest_noop_s, 3),
            "first_query_s": round(first_query_s, 2),
            "query_latency": latency,
        }
    finally:
        shutil.rmtree(data_dir, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, help="Also write the result as JSON to this file")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="gpu-advisor-bench-") as tmp:
        result = bench_retrieval(tmp)
    text = json.dumps(result, indent=2)
    print(text)
    if args.out:
        args.out.write_text(text + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
