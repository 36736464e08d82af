"""`make bench`: measured latencies written to bench/results.json and printed as a table.

Benchmarks live here rather than as timed assertions in unit tests, so a slow CI machine never turns
a correct change red. Each section records p50/p95 over repeated calls.

Sections: the first answer on a fresh data directory (evals/bench_first.py), calculators, CLI start-up,
terminal questions start to exit (`gpu-advisor ask` with and without dense retrieval and `gpu-advisor
search`, next to `gpu-advisor vram`), retrieval (cold ingest, no-change re-ingest, queries), the offline
chat turn end to end, a bounded load test of the web app over loopback, and peak memory (RSS). Nothing
touches the user's data directory: the knowledge store lives in temporary directories, and so does the
cache (GPU_ADVISOR_CACHE_DIR).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import json
import os
import platform
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

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
    from tools.gpu_search import FindGpusRequest, find_gpus
    from tools.recommend import RecommendRequest, recommend_gpus
    from tools.speed import SpeedRequest, estimate_speed
    from tools.tco import TcoRequest, calculate_tco
    from tools.vram import VramRequest, estimate_vram

    vram_req = VramRequest(model="llama-3.1-70b", precision="q4_k_m", context_tokens=8192, batch=4)
    train_req = VramRequest(model="qwen2.5-7b", mode="qlora", context_tokens=2048, grad_checkpointing=True)
    speed_req = SpeedRequest(model="llama-3.1-70b", gpu="H100 SXM", num_gpus=4, batch=32, context_tokens=8192)
    find_req = FindGpusRequest(min_vram_gib=24, need_bf16=True, sort_by="bf16_tflops_per_dollar")
    tco_req = TcoRequest(gpu="4090", num_gpus=4, horizon_years=3, utilization=0.5)
    local_req = RecommendRequest(workload=VramRequest(model="qwen2.5-7b", mode="lora"), budget=15000, currency="CNY")
    serve_req = RecommendRequest(
        workload=VramRequest(model="llama-3.1-70b", context_tokens=8192, batch=50), deployment="either"
    )
    slow_n = max(10, n // 6)  # recommend tries many (GPU x count) options per call
    return {
        "vram_inference": {**time_calls(lambda: estimate_vram(vram_req), n), "target_p50_ms": 1.0},
        "vram_qlora": {**time_calls(lambda: estimate_vram(train_req), n), "target_p50_ms": 1.0},
        "speed": time_calls(lambda: estimate_speed(speed_req), n),
        "find_gpus": time_calls(lambda: find_gpus(find_req), n),
        "tco": time_calls(lambda: calculate_tco(tco_req), n),
        "recommend_local": {**time_calls(lambda: recommend_gpus(local_req), slow_n), "target_p50_ms": 50.0},
        "recommend_serving": {**time_calls(lambda: recommend_gpus(serve_req), slow_n), "target_p50_ms": 50.0},
    }


def bench_cli_startup(repeats: int) -> dict:
    """Wall time of `gpu-advisor vram ...` in a fresh process, and the heavy packages it imported."""
    import compileall

    exe = Path(sys.executable).with_name("gpu-advisor")
    cmd = [str(exe), "vram", "--model", "llama-3.1-8b", "--json"]
    # Bytecode as an installed wheel has it (pip compiles at install). Without it, an environment with
    # PYTHONDONTWRITEBYTECODE=1 recompiles our sources on every start and measures the compiler instead.
    root = Path(__file__).resolve().parents[1]
    for package in ("assistant", "tools", "knowledge"):
        compileall.compile_dir(root / package, quiet=1)
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


# Terminal commands timed start to exit, each in a fresh process. The knowledge store holds only the bundled
# guides, except for the `with_documents` store, which adds one user document: `search_guides` then always
# fuses BM25 with the dense side (knowledge/retrieval.py, mode auto). Which path each ran is read back from
# its --json output, so a changed guide cannot silently move a case to the other path.
NVLINK_ZH = "RTX 4090 支持 NVLink 吗？"
TERMINAL_CASES: dict[str, dict[str, Any]] = {
    "vram": {"args": ["vram", "--model", "llama-3.1-8b", "--json"], "target_ms": 1000},
    "ask_bm25": {"args": ["ask", NVLINK_ZH], "target_ms": 3000},
    "ask_dense": {"args": ["ask", NVLINK_ZH], "target_ms": 8000, "store": "with_documents"},
    "search": {"args": ["search", "4090 能不能用 NVLink 连两张卡"], "target_ms": 3000},
    "search_dense": {"args": ["search", "rack power feeds"], "target_ms": 8000, "store": "with_documents"},
}
RACK_NOTES = "# Rack notes\n\n## Power\n\nEach rack gets two 32 A feeds at 230 V; an 8-GPU node draws about 4 kW.\n"


def _retrieval_path(exe: Path, args: list[str], env: dict[str, str]) -> str | None:
    """Which retrieval a terminal command ran: 'bm25' or 'hybrid' (from its --json output); None for vram."""
    if args[0] not in ("ask", "search"):
        return None
    out = subprocess.run([str(exe), *args, "--json"], capture_output=True, text=True, env=env, check=True)
    data = json.loads(out.stdout)
    if args[0] == "search":
        return data["searched_as"]
    passages = [p for c in data["tool_calls"] if c["name"] == "search_guides" for p in (c["result"] or {})["passages"]]
    return "hybrid" if any(p.get("dense_rank") for p in passages) else "bm25"


def bench_terminal(guides_dir: Path, repeats: int) -> dict:
    """Start-to-exit wall time of terminal commands, in rounds (each round runs every case once, so a busy
    moment of the machine slows all of them alike), after one warm-up run of each."""
    exe = Path(sys.executable).with_name("gpu-advisor")
    stores = {"guides": guides_dir, "with_documents": guides_dir.with_name("with-documents")}
    shutil.rmtree(stores["with_documents"], ignore_errors=True)
    shutil.copytree(guides_dir, stores["with_documents"], ignore=shutil.ignore_patterns("locks"))
    doc = stores["with_documents"] / "rack-notes.md"
    doc.write_text(RACK_NOTES, encoding="utf-8")
    env_of = {name: {**os.environ, "GPU_ADVISOR_DATA_DIR": str(path)} for name, path in stores.items()}
    subprocess.run([str(exe), "ingest", str(doc)], check=True, capture_output=True, env=env_of["with_documents"])
    samples: dict[str, list[float]] = {name: [] for name in TERMINAL_CASES}
    for round_ in range(repeats + 1):  # round 0 warms up (bytecode, page cache, the jieba word index)
        for name, case in TERMINAL_CASES.items():
            start = time.perf_counter()
            subprocess.run(
                [str(exe), *case["args"]], check=True, capture_output=True, env=env_of[case.get("store", "guides")]
            )
            if round_:
                samples[name].append((time.perf_counter() - start) * 1000)
    return {
        name: {
            **_percentiles(samples[name]),
            "target_ms": case["target_ms"],
            "retrieval": _retrieval_path(exe, case["args"], env_of[case.get("store", "guides")]),
            "command": "gpu-advisor " + " ".join(case["args"]),
        }
        for name, case in TERMINAL_CASES.items()
    }


def _guides_store(tmp: Path, chat_dir: Path) -> Path:
    """A data dir holding the ingested guides: a copy of the chat bench's, or a fresh `gpu-advisor ingest --guides`."""
    target = tmp / "terminal-data"
    if chat_dir.exists():
        shutil.copytree(chat_dir, target, ignore=shutil.ignore_patterns("locks"))
    else:
        exe = Path(sys.executable).with_name("gpu-advisor")
        env = {**os.environ, "GPU_ADVISOR_DATA_DIR": str(target)}
        subprocess.run([str(exe), "ingest", "--guides"], check=True, capture_output=True, env=env)
    return target


def peak_rss_mib() -> float:
    """Peak resident memory of this process so far (Linux reports ru_maxrss in KiB)."""
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


def bench_retrieval_section() -> dict:
    """Cold ingest of the bundled guides, no-change re-ingest and query latency (evals.bench_retrieval)."""
    from evals.bench_retrieval import bench_retrieval

    with tempfile.TemporaryDirectory(prefix="gpu-advisor-bench-") as tmp:
        result = bench_retrieval(tmp)
    hybrid = result["query_latency"].get("hybrid", {})
    result["target_query_p50_ms"] = 50.0
    result["query_p50_ms"], result["query_p95_ms"] = hybrid.get("p50_ms"), hybrid.get("p95_ms")
    return result


# Realistic first questions, both languages, every kind of turn the offline planner plans.
CHAT_QUESTIONS = [
    "预算 1.5 万，想本地 LoRA 微调 Qwen2.5-7B，买什么卡？",
    "Serve Llama-3.1-70B to 50 concurrent users at 8k context: how many H100s, and what tokens/s?",
    "4 张 4090 和 1 张 A100 80G 做 13B 微调，哪个划算？三年自购 vs 租云？",
    "Does the RTX 4090 support BF16? NVLink?",
    "Qwen2.5-7B QLoRA 微调需要多少显存？",
    "How much VRAM does DeepSeek-V3 need in FP8 at 32k context on 8 GPUs?",
    "Qwen2.5-7B 在 4090 上推理速度多少？",
    "What power supply do I need for 2x RTX 3090?",
    "什么是 KV cache，为什么长上下文吃显存？",
    "I have $3k, which GPU should I buy to run Llama-3.1-8B locally?",
]


def bench_chat(data_dir: Path, rounds: int) -> dict:
    """Offline chat turns end to end (planner, tools, retrieval, grounding), warm, each in a fresh session."""
    os.environ["GPU_ADVISOR_DATA_DIR"] = str(data_dir)
    from assistant.advisor import Advisor
    from assistant.settings import Settings

    advisor = Advisor(Settings(_env_file=None, provider="offline"))
    start = time.perf_counter()
    advisor.ask("bench-setup", "What is NVLink?")  # ingests the guides into data_dir and loads the model
    setup_s = time.perf_counter() - start
    for i, question in enumerate(CHAT_QUESTIONS):  # warm-up: every code path once
        advisor.ask(f"bench-warm-{i}", question)
    samples: list[float] = []
    per_question: dict[str, list[float]] = {q: [] for q in CHAT_QUESTIONS}
    without_tools = 0
    for r in range(rounds):
        for i, question in enumerate(CHAT_QUESTIONS):
            start = time.perf_counter()
            final = advisor.ask(f"bench-{r}-{i}", question)
            elapsed = (time.perf_counter() - start) * 1000
            samples.append(elapsed)
            per_question[question].append(elapsed)
            without_tools += not final.tool_calls
    return {
        **_percentiles(samples),
        "target_p50_ms": 300.0,
        "setup_s": round(setup_s, 1),
        "turns_without_tool_calls": without_tools,
        "per_question_p50_ms": {q: round(statistics.median(v), 1) for q, v in per_question.items()},
    }


# ---- web app under load -------------------------------------------------------------------------------------

# One conversation per session: a first question about its own model, then two what-ifs that must keep it.
_MODELS = [
    "qwen2.5-7b", "qwen2.5-14b", "qwen2.5-32b", "qwen2.5-3b", "qwen2.5-1.5b", "llama-3.1-8b", "llama-3.1-70b",
    "llama-3.2-3b", "qwen3-8b", "qwen3-14b", "qwen3-32b", "mistral-7b-v0.3", "gemma-2-9b", "gemma-2-27b",
    "phi-4", "yi-34b", "glm-4-9b", "internlm2.5-7b", "baichuan2-13b", "qwen3-4b",
]  # fmt: skip


def _conversation(i: int, name: str, variant: int = 0, ui_lang: str = "en") -> list[tuple[str, str]]:
    """(message, a line the scenario panel must show afterwards) x 3, alternating languages by session.
    Each `variant` words the first question differently, so no run reuses another's cached query. The panel
    speaks the interface's language (`ui_lang`: the load client sends no Accept-Language, so English)."""
    from tools.notes import label

    qlora, lora = (f"**: {label('method', m, ui_lang)}\n" for m in ("qlora", "lora"))  # as the panel names them
    if i % 2:
        first = ["{} QLoRA 微调需要多少显存？", "用 QLoRA 微调 {} 要多大显存？", "{} 做 QLoRA 微调，显存要多少？"]
        return [
            (first[variant % len(first)].format(name), qlora),
            ("如果换成 LoRA 呢？", lora),
            ("那用两张卡呢", "**: 2\n"),
        ]
    first = [
        "How much memory to QLoRA fine-tune {}?",
        "What VRAM does a QLoRA fine-tune of {} need?",
        "QLoRA fine-tuning {}: how much GPU memory?",
    ]
    return [
        (first[variant % len(first)].format(name), qlora),
        ("what if I use LoRA instead?", lora),
        ("and with two GPUs?", "**: 2\n"),
    ]


_TURN_SECONDS = re.compile(r"· ([0-9.]+) s")


def _wait_http(url: str, proc: subprocess.Popen, timeout_s: float) -> None:
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the web app exited with code {proc.returncode}")
        try:
            opener.open(url, timeout=2).close()
            return
        except OSError:
            time.sleep(0.3)
    raise RuntimeError(f"the web app did not answer at {url} within {timeout_s:g} s")


def _proc_peak_rss_mib(pid: int) -> float | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return round(int(line.split()[1]) / 1024, 1)
    except OSError:
        return None
    return None


def _proc_cpu_s(pid: int) -> float | None:
    """User + system CPU seconds of a process so far (Linux)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return None


def _children(pid: int) -> list[int]:
    try:
        return [int(c) for task in Path(f"/proc/{pid}/task").iterdir() for c in (task / "children").read_text().split()]
    except OSError:
        return []


def _tree_cpu_s(pid: int) -> dict[str, float | None]:
    """CPU seconds of the app's process and of its child processes (the assistant process)."""
    kids = [c for c in (_proc_cpu_s(k) for k in _children(pid)) if c is not None]
    return {"server": _proc_cpu_s(pid), "children": sum(kids) if kids else 0.0}


# How long a simulated user waits between turns in the paced run (seeded per session). Far shorter than
# reading an answer takes, so this is still a heavy load; the burst run (no wait) is the stress figure.
THINK_S = (1.0, 3.0)


def bench_web_load(data_dir: Path, sessions: int = 20, turns: int = 3, timeout_s: float = 120) -> dict:
    """A bounded load test: `gpu-advisor chat` on a loopback port, `sessions` concurrent sessions, each a
    `turns`-turn conversation whose scenario panel must show its own model (session isolation). Run twice
    against one server: "paced" (users wait THINK_S between turns) and "burst" (all sessions start
    together and never wait). Sessions speak Gradio's queue protocol (evals/gradio_sse.py)."""
    from evals.gradio_sse import GradioSession

    os.environ.setdefault("NO_PROXY", "127.0.0.1,localhost")
    from assistant.web import free_port

    port = free_port()
    url = f"http://127.0.0.1:{port}/"
    env = {**os.environ, "GPU_ADVISOR_DATA_DIR": str(data_dir), "GRADIO_ANALYTICS_ENABLED": "False"}
    exe = Path(sys.executable).with_name("gpu-advisor")
    proc = subprocess.Popen(
        [str(exe), "chat", "--host", "127.0.0.1", "--port", str(port)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        start = time.perf_counter()
        _wait_http(url + "config", proc, timeout_s)
        with GradioSession(url) as warm:
            warm.call("/chat", "What is NVLink?", [])  # the app loads its embedding model once
            config = warm.config
        startup_s = time.perf_counter() - start
        paced = _load_run(url, config, proc.pid, sessions, turns, THINK_S, timeout_s, seed=1)
        burst = _load_run(url, config, proc.pid, sessions, turns, (0.0, 0.0), timeout_s, seed=2)
        return {
            **paced,
            "startup_s": round(startup_s, 1),
            "burst": burst,
            "app_peak_rss_mib": _proc_peak_rss_mib(proc.pid),
            "assistant_process_peak_rss_mib": max(
                (r for r in (_proc_peak_rss_mib(k) for k in _children(proc.pid)) if r is not None), default=None
            ),
        }
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()


@dataclass
class _LoadStats:
    """What the sessions of one load run measured; they record from their own threads."""

    latencies: list[float] = field(default_factory=list)
    by_turn: dict[int, list[float]] = field(default_factory=dict)  # in the burst, every first turn arrives at once
    advisor_ms: list[float] = field(default_factory=list)  # the Advisor's own share of each turn, as the app reports
    errors: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def error(self, message: str) -> None:
        """Record a failed page load or turn."""
        with self.lock:
            self.errors.append(message)

    def record(self, turn: int, elapsed_ms: float, turn_line: str) -> None:
        """Record one answered turn; `turn_line` is the app's "#2 · offline · 0.07 s · ..." line."""
        inside = _TURN_SECONDS.search(turn_line)
        with self.lock:
            self.latencies.append(elapsed_ms)
            self.by_turn.setdefault(turn, []).append(elapsed_ms)
            if inside:
                self.advisor_ms.append(float(inside.group(1)) * 1000)


def _shows_only(scenario: str, name: str, names: list[str], must_show: str) -> bool:
    """Tell whether a session's scenario panel shows its own model and expected line, and no other session's model."""
    others = [n for n in names if n != name and f"**: {n}\n" in scenario]
    return f"**: {name}\n" in scenario and must_show in scenario and not others


def _load_run(
    url: str,
    config: dict,
    pid: int,
    sessions: int,
    turns: int,
    think_s: tuple[float, float],
    timeout_s: float,
    seed: int,
) -> dict:
    """`sessions` sessions open the page, wait for each other, then hold their conversations at once."""
    import random

    from evals.gradio_sse import GradioSession
    from tools.models import resolve_model

    sessions = min(sessions, len(_MODELS))  # one distinct model per session, so isolation is checkable
    names = [resolve_model(m)[0].name for m in _MODELS[:sessions]]
    stats = _LoadStats()
    isolated = [False] * sessions
    marks: dict[str, float | None] = {}

    def all_open() -> None:  # runs once, when every session has loaded its page: the timed part starts
        marks.update(wall=time.perf_counter(), client=time.process_time(), **_tree_cpu_s(pid))

    barrier = threading.Barrier(sessions, action=all_open)

    def session(i: int) -> None:
        name = names[i]
        pause = random.Random(seed * 1000 + i)
        history: list = []
        ok = True
        with GradioSession(url, config=config, timeout_s=timeout_s) as client:
            try:
                client.open()  # the page loads before the user types (not timed)
            except Exception as exc:
                stats.error(f"session {i}: page load: {type(exc).__name__}: {str(exc)[:200]}")
            with contextlib.suppress(threading.BrokenBarrierError):  # start together; a failed peer is not fatal
                barrier.wait(timeout=timeout_s)
            for turn, (message, must_show) in enumerate(_conversation(i, name, seed)[:turns], start=1):
                if think_s[1] > 0:  # paced: users arrive spread over one think time, then think between turns
                    time.sleep(pause.uniform(0.0 if turn == 1 else think_s[0], think_s[1]))
                t0 = time.perf_counter()
                try:
                    out = client.call("/chat", message, history)
                except Exception as exc:
                    stats.error(f"session {i}: {type(exc).__name__}: {str(exc)[:200]}")
                    return
                elapsed = (time.perf_counter() - t0) * 1000
                history, scenario = out[0], str(out[2])
                ok = ok and _shows_only(scenario, name, names, must_show)
                stats.record(turn, elapsed, str(out[-1]))
        isolated[i] = ok

    threads = [threading.Thread(target=session, args=(i,), daemon=True) for i in range(sessions)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout_s * turns)
    wall_s = time.perf_counter() - (marks.get("wall") or time.perf_counter())
    after, client_cpu = _tree_cpu_s(pid), time.process_time()
    latencies = stats.latencies
    done = len(latencies) or 1

    def per_turn_ms(key: str) -> float | None:
        a, b = marks.get(key), after.get(key)
        return round((b - a) * 1000 / done, 1) if a is not None and b is not None else None

    return {
        "sessions": sessions,
        "turns_per_session": turns,
        "think_time_s": list(think_s),
        "turns_completed": len(latencies),
        "errors": len(stats.errors),
        "error_samples": stats.errors[:5],
        "sessions_isolated": sum(isolated),
        "throughput_turns_per_s": round(len(latencies) / wall_s, 2) if wall_s else None,
        "wall_s": round(wall_s, 2),
        **(_percentiles(latencies) if latencies else {}),
        "target_p95_ms": 2000.0,
        "by_turn": {str(k): _percentiles(v) for k, v in sorted(stats.by_turn.items())},
        "advisor_share": _percentiles(stats.advisor_ms) if stats.advisor_ms else None,
        "web_cpu_ms_per_turn": per_turn_ms("server"),
        "assistant_process_cpu_ms_per_turn": per_turn_ms("children"),
        "client_cpu_ms_per_turn": round((client_cpu - (marks.get("client") or 0.0)) * 1000 / done, 1),
        "cpus": os.cpu_count(),
    }


def _latency_rows(results: dict) -> list[tuple[str, dict]]:
    rows = [*results["calculators"].items(), ("cli_startup (vram)", results["cli_startup"])]
    for name, row in results.get("terminal", {}).items():
        rows.append((f"terminal {name} ({row['retrieval'] or '-'})", {**row, "target_p50_ms": row["target_ms"]}))
    if "retrieval" in results:
        for mode, row in results["retrieval"]["query_latency"].items():
            rows.append((f"retrieval query ({mode})", {**row, "target_p50_ms": 50.0 if mode == "hybrid" else None}))
    if "chat" in results:
        rows.append(("chat turn (offline, warm)", results["chat"]))
    if results.get("web_load", {}).get("p50_ms") is not None:
        rows.append(("web turn, 20 users paced", {**results["web_load"], "target_p50_ms": "p95 2000"}))
        if results["web_load"].get("burst", {}).get("p50_ms") is not None:
            rows.append(("web turn, 20 users burst", {**results["web_load"]["burst"], "target_p50_ms": "p95 2000"}))
    return rows


def _print_table(results: dict) -> None:
    print(f"{'benchmark':32s} {'p50 ms':>10s} {'p95 ms':>10s} {'target':>10s}")
    for name, row in _latency_rows(results):
        target = row.get("target_p50_ms")
        print(f"{name:32s} {row['p50_ms']:10.3f} {row['p95_ms']:10.3f} {target if target else '-':>10}")
    print(f"heavy imports on the CLI start-up path: {results['cli_startup']['heavy_imports'] or 'none'}")
    if "retrieval" in results:
        r = results["retrieval"]
        print(
            f"retrieval: {r['documents']} guides / {r['chunks']} chunks; cold ingest {r['ingest_cold_s']} s "
            f"({r['ingest_cold_chunks_per_s']} chunks/s), no-change re-ingest {r['ingest_noop_s']} s"
        )
    if "web_load" in results:
        w = results["web_load"]
        if "skipped" in w:
            print(f"web load: skipped ({w['skipped']})")
        else:
            for label, run in (("paced", w), ("burst", w.get("burst") or {})):
                if not run:
                    continue
                print(
                    f"web load ({label}, think {run['think_time_s'][0]:g}-{run['think_time_s'][1]:g} s): "
                    f"{run['sessions']} sessions x {run['turns_per_session']} turns, {run['turns_completed']} done, "
                    f"{run['errors']} errors, {run['sessions_isolated']}/{run['sessions']} isolated, "
                    f"{run['throughput_turns_per_s']} turns/s, p95 {run.get('p95_ms', '-')} ms (target 2000); "
                    f"CPU per turn: web {run['web_cpu_ms_per_turn']} ms, assistant process "
                    f"{run['assistant_process_cpu_ms_per_turn']} ms, load client {run['client_cpu_ms_per_turn']} ms"
                )
            print(
                f"  peak RSS: web server {w['app_peak_rss_mib']} MiB, "
                f"assistant process {w.get('assistant_process_peak_rss_mib')} MiB"
            )
    if "first_answer" in results:
        ask, web = results["first_answer"]["ask"], results["first_answer"]["web"]
        answer = web["first_answer_after_page_load"]
        print(
            f"first answer on a fresh data directory: ask {ask['median_ms']} ms median, {ask['max_ms']} max "
            f"(target {ask['target_ms']}; {ask['cold_machine_ms']} ms with nothing prepared); web "
            f"{answer['median_ms']} ms after the page load, {answer['max_ms']} max (target {answer['target_ms']}), "
            f"address printed after {web['until_address_printed_ms']} ms"
        )
    print(f"peak RSS of the bench process: {results['peak_rss_mib']} MiB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="bench/results.json")
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--startups", type=int, default=10)
    parser.add_argument("--chat-rounds", type=int, default=5, help="Rounds over the 10 chat questions")
    parser.add_argument("--sessions", type=int, default=20, help="Concurrent web sessions in the load test")
    parser.add_argument("--terminal-rounds", type=int, default=5, help="Rounds over the terminal commands")
    parser.add_argument(
        "--skip",
        nargs="*",
        default=[],
        choices=["first", "retrieval", "chat", "web", "terminal"],
        help="Sections to skip",
    )
    parser.add_argument("--first-rounds", type=int, default=3, help="Fresh data directories for the first answer")
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")
    os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
    results: dict[str, Any] = {
        "machine": {"python": platform.python_version(), "cpus": os.cpu_count(), "platform": platform.platform()},
        "calculators": bench_calculators(args.calls),
        "cli_startup": bench_cli_startup(args.startups),
    }
    if "first" not in args.skip:  # before the rest: nothing of ours is loaded or cached yet
        from evals.bench_first import bench_first_answer

        results["first_answer"] = bench_first_answer(args.first_rounds)
    tmp = Path(tempfile.mkdtemp(prefix="gpu-advisor-bench-"))
    os.environ["GPU_ADVISOR_CACHE_DIR"] = str(tmp / "cache")
    try:
        chat_dir = tmp / "chat-data"
        if "chat" not in args.skip:
            results["chat"] = bench_chat(chat_dir, args.chat_rounds)
        if "terminal" not in args.skip:
            results["terminal"] = bench_terminal(_guides_store(tmp, chat_dir), args.terminal_rounds)
        if "web" not in args.skip:
            if importlib.util.find_spec("assistant.web") is None or importlib.util.find_spec("gradio_client") is None:
                results["web_load"] = {"skipped": "assistant.web or gradio_client is not installed"}
            else:
                web_dir = tmp / "web-data"
                if chat_dir.exists():  # reuse the ingested guides rather than embedding them again
                    shutil.copytree(chat_dir, web_dir, ignore=shutil.ignore_patterns("locks"))
                results["web_load"] = bench_web_load(web_dir, sessions=args.sessions)
        if "retrieval" not in args.skip:
            results["retrieval"] = bench_retrieval_section()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    results["peak_rss_mib"] = peak_rss_mib()
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(results, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    _print_table(results)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
