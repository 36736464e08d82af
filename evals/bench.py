"""`make bench`: measured latencies written to bench/results.json and printed as a table.

Benchmarks live here rather than as timed assertions in unit tests, so a slow CI machine never turns
a correct change red. Each section records p50/p95 over repeated calls.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

HEAVY = ("torch", "chromadb", "gradio", "langchain", "sentence_transformers", "transformers")


def _percentiles(samples_ms: list[float]) -> dict[str, float]:
    ordered = sorted(samples_ms)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return {"p50_ms": round(statistics.median(ordered), 4), "p95_ms": round(p95, 4), "n": len(ordered)}


def time_calls(fn: Callable[[], object], n: int, warmup: int = 3) -> dict[str, float]:
    """Time `n` calls of `fn` after a warm-up."""
    for _ in range(warmup):
        fn()
    samples = []
    for _ in range(n):
        start = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - start) * 1000)
    return _percentiles(samples)


def bench_calculators(n: int) -> dict[str, dict]:
    from tools.speed import SpeedRequest, estimate_speed
    from tools.vram import VramRequest, estimate_vram

    vram_req = VramRequest(model="llama-3.1-70b", precision="q4_k_m", context_tokens=8192, batch=4)
    train_req = VramRequest(model="qwen2.5-7b", mode="qlora", context_tokens=2048, grad_checkpointing=True)
    speed_req = SpeedRequest(model="llama-3.1-70b", gpu="H100 SXM", num_gpus=4, batch=32, context_tokens=8192)
    return {
        "vram_inference": {**time_calls(lambda: estimate_vram(vram_req), n), "target_p50_ms": 1.0},
        "vram_qlora": {**time_calls(lambda: estimate_vram(train_req), n), "target_p50_ms": 1.0},
        "speed": time_calls(lambda: estimate_speed(speed_req), n),
    }


def bench_cli_startup(repeats: int) -> dict:
    """Wall time of `gpu-advisor vram ...` in a fresh process, and the heavy packages it imported."""
    exe = Path(sys.executable).with_name("gpu-advisor")
    cmd = [str(exe), "vram", "--model", "llama-3.1-8b", "--json"]
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        subprocess.run(cmd, check=True, capture_output=True)
        samples.append((time.perf_counter() - start) * 1000)
    trace = subprocess.run(cmd, capture_output=True, text=True, env={**os.environ, "PYTHONPROFILEIMPORTTIME": "1"})
    modules = {line.rsplit("|", 1)[-1].strip().split(".")[0] for line in trace.stderr.splitlines() if "|" in line}
    return {
        **_percentiles(samples),
        "target_p50_ms": 1000,
        "heavy_imports": sorted(modules & set(HEAVY)),
        "modules_imported": len(modules),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", default="bench/results.json")
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--startups", type=int, default=10)
    args = parser.parse_args()
    results = {
        "machine": {"python": platform.python_version(), "cpus": os.cpu_count(), "platform": platform.platform()},
        "calculators": bench_calculators(args.calls),
        "cli_startup": bench_cli_startup(args.startups),
    }
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    print(f"{'benchmark':28s} {'p50 ms':>10s} {'p95 ms':>10s} {'target':>10s}")
    rows = [*results["calculators"].items(), ("cli_startup (vram)", results["cli_startup"])]
    for name, row in rows:
        target = row.get("target_p50_ms")
        print(f"{name:28s} {row['p50_ms']:10.3f} {row['p95_ms']:10.3f} {target if target else '-':>10}")
    print(f"heavy imports on the CLI start-up path: {results['cli_startup']['heavy_imports'] or 'none'}")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
