"""The first minute of a new user, for `make bench`: the first answer on a fresh data directory.

Each round starts from an empty data directory, on a machine as `make venv` leaves it (the package installed and
its cache prepared by `python -m assistant.prepare_cache`; the bench uses a cache of its own). Two ways in, as the
README gives them:

- `gpu-advisor ask "<question>"`: start to exit, target 5 s (the guides are indexed from the shipped vectors
  on the way, knowledge/seed.py);
- `gpu-advisor chat`: how long until it prints its address (it prepares the guides and warms up first, with a
  progress line), then, as a user does once the address is there, the page is loaded and the first question
  asked; target: that answer within 3 s of the page load.

`ask` is also timed once with an empty cache too (`cold_machine_ms`: nothing prepared, as after a bare
`pip install`), reported without a target. The machine's page cache is warm, as it is for a user who just installed.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

FIRST_QUESTION = "在家用一张卡跑 Qwen2.5-14B 推理，显存要多少？"  # a sizing question that also searches the guides
ASK_TARGET_MS = 5000
WEB_TARGET_MS = 3000
READY_LINE = "is running on"


def _fresh_env(root: Path, cache: Path | None = None) -> dict[str, str]:
    return {
        **os.environ,
        "GPU_ADVISOR_DATA_DIR": str(root / "data"),
        "GPU_ADVISOR_CACHE_DIR": str(cache or root / "cache"),
        "GRADIO_ANALYTICS_ENABLED": "False",
        "NO_PROXY": "127.0.0.1,localhost",
    }


def _summary(samples: list[float], target_ms: int) -> dict[str, Any]:
    return {
        "samples_ms": [round(s) for s in samples],
        "median_ms": round(statistics.median(samples)),
        "max_ms": round(max(samples)),
        "target_ms": target_ms,
        "within_target": max(samples) <= target_ms,
    }


def _timed_ask(exe: Path, cache: Path | None) -> float:
    root = Path(tempfile.mkdtemp(prefix="gpu-advisor-first-ask-"))
    try:
        start = time.perf_counter()
        subprocess.run([str(exe), "ask", FIRST_QUESTION], check=True, capture_output=True, env=_fresh_env(root, cache))
        return (time.perf_counter() - start) * 1000
    finally:
        shutil.rmtree(root, ignore_errors=True)


def first_ask(exe: Path, rounds: int, cache: Path) -> dict[str, Any]:
    samples = [_timed_ask(exe, cache) for _ in range(rounds)]
    return {
        **_summary(samples, ASK_TARGET_MS),
        "cold_machine_ms": round(_timed_ask(exe, None)),
        "command": f"gpu-advisor ask {FIRST_QUESTION!r}",
    }


def _until_ready(proc: subprocess.Popen, timeout_s: float) -> list[str]:
    """The lines the app printed up to its address (read on a thread, so a silent app cannot hang us)."""
    lines: list[str] = []
    ready = threading.Event()

    def read() -> None:
        for line in proc.stdout:  # type: ignore[union-attr]
            lines.append(line.rstrip())
            if READY_LINE in line:
                ready.set()
        ready.set()

    threading.Thread(target=read, daemon=True).start()
    if not ready.wait(timeout_s) or not any(READY_LINE in line for line in lines):
        raise RuntimeError(f"`gpu-advisor chat` did not print its address within {timeout_s:g} s: {lines}")
    return lines


def first_web_answer(exe: Path, rounds: int, cache: Path, timeout_s: float = 180) -> dict[str, Any]:
    from assistant.web import free_port
    from evals.gradio_sse import GradioSession

    ready_ms, page_ms, answer_ms, progress = [], [], [], []
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    for _ in range(rounds):
        root = Path(tempfile.mkdtemp(prefix="gpu-advisor-first-web-"))
        port = free_port()
        url = f"http://127.0.0.1:{port}/"
        start = time.perf_counter()
        proc = subprocess.Popen(
            [str(exe), "chat", "--port", str(port)],
            env={**_fresh_env(root, cache), "PYTHONUNBUFFERED": "1"},
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        try:
            lines = _until_ready(proc, timeout_s)
            ready_ms.append((time.perf_counter() - start) * 1000)
            progress = [line for line in lines if READY_LINE not in line and line.startswith("Preparing")]
            loaded = time.perf_counter()
            opener.open(url, timeout=30).read()
            page_ms.append((time.perf_counter() - loaded) * 1000)
            with GradioSession(url) as session:
                outputs = session.call("/chat", FIRST_QUESTION, [])
            answer_ms.append((time.perf_counter() - loaded) * 1000)
            if "GiB" not in json.dumps(outputs, ensure_ascii=False):  # timed an error message, not an answer
                raise RuntimeError(f"the first answer holds no memory figure: {str(outputs)[:300]}")
        finally:
            proc.terminate()
            try:
                proc.wait(15)
            except subprocess.TimeoutExpired:
                proc.kill()
            shutil.rmtree(root, ignore_errors=True)
    return {
        "first_answer_after_page_load": _summary(answer_ms, WEB_TARGET_MS),
        "page_load_ms": [round(s) for s in page_ms],
        "until_address_printed_ms": [round(s) for s in ready_ms],
        "progress_lines": progress,
        "question": FIRST_QUESTION,
    }


def bench_first_answer(rounds: int) -> dict[str, Any]:
    exe = Path(sys.executable).with_name("gpu-advisor")
    cache = Path(tempfile.mkdtemp(prefix="gpu-advisor-first-cache-"))
    try:
        env = {**os.environ, "GPU_ADVISOR_CACHE_DIR": str(cache)}
        subprocess.run([sys.executable, "-m", "assistant.prepare_cache"], check=True, capture_output=True, env=env)
        return {"ask": first_ask(exe, rounds, cache), "web": first_web_answer(exe, rounds, cache)}
    finally:
        shutil.rmtree(cache, ignore_errors=True)
