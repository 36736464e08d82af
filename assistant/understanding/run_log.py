"""Pasted logs: what the run itself printed, read before any other slot reads its numbers.

llama.cpp's timings ("prompt eval time = ... 36.00 tokens per second", "eval time = ... 10.44 tokens per second"),
Ollama's --verbose rates and vLLM's metrics line state the prefill and the decode speed apart; llama.cpp's load log
says how many layers reached the GPU ("offloaded 0/83 layers to GPU"); PyTorch's out-of-memory message names the card
that ran out, its capacity, what was free and what this process held, so the rest is another process's. Wording lives
in knowledge/data/lexicon.yaml (`diagnosis.logs`). A log's "load time" is no complaint about loading (`noise`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from assistant.understanding.lexicon import lexicon_raw
from assistant.understanding.patterns import _c
from assistant.understanding.text import _State

_UNIT_GIB = {"kib": 1 / 2**20, "mib": 1 / 1024, "gib": 1.0}
# less than this unaccounted for is the CUDA context, cuBLAS/NCCL workspaces (tensor parallel) and the Windows WDDM
# reserve, not another process: "(GPU 3; 14.76 GiB total; 84.75 MiB free; 13.66 GiB reserved)" on a 4-way TGI shard
# leaves 1.0 GiB, "10.00 GiB total; 0 bytes free; 8.82 GiB reserved" on Windows 1.2 GiB
_OTHERS_MIN_GIB = 1.5


@dataclass(frozen=True)
class _LogRx:
    prefill: tuple[re.Pattern[str], ...]
    decode: tuple[re.Pattern[str], ...]
    noise: re.Pattern[str]
    layers: re.Pattern[str]
    oom: tuple[re.Pattern[str], ...]
    engines: tuple[tuple[str, re.Pattern[str]], ...]


@cache
def _rx() -> _LogRx:
    d = lexicon_raw()["diagnosis"]["logs"]
    return _LogRx(
        prefill=tuple(_c(p) for p in d["prefill"]),
        decode=tuple(_c(p) for p in d["decode"]),
        noise=_c("|".join(f"(?:{p})" for p in d["noise"])),
        layers=_c(d["layers"]),
        oom=tuple(_c(p) for p in d["oom"]),
        engines=tuple((key, _c("|".join(f"(?:{p})" for p in pats))) for key, pats in d["engines"].items()),
    )


def log_noise() -> re.Pattern[str]:
    """The lines of a pasted log that state no complaint ("load time = 14164.26 ms")."""
    return _rx().noise


def _speed(st: _State, patterns: tuple[re.Pattern[str], ...]) -> float | None:
    """The first speed one of the patterns states, its span masked."""
    for pattern in patterns:
        m = pattern.search(st.t.view)
        if m:
            st.t.take(m.start(), m.end())
            value = float(m.group("v"))
            return value if value > 0 else None
    return None


def _gib(value: str, unit: str) -> float:
    return float(value) * _UNIT_GIB[unit.lower()]


def _oom(st: _State) -> None:
    """The card an out-of-memory message names, its capacity, and what another process holds on it."""
    log = st.q.run_log
    for pattern in _rx().oom:
        m = pattern.search(st.t.view)
        if not m:
            continue
        st.t.take(m.start(), m.end())
        capacity, free = float(m.group("c")), _gib(m.group("f"), m.group("fu"))
        log.oom_gpu = int(m.group("i"))
        if st.q.stated_capacity_gib is None:
            st.q.stated_capacity_gib = capacity  # the card the job is measured against when no GPU is named
        if m.group("p"):
            others = capacity - free - _gib(m.group("p"), m.group("pu"))
            log.others_gib = round(others, 1) if others >= _OTHERS_MIN_GIB else None
        return


def _run_log(st: _State) -> None:
    """Speeds, layers on the GPU and an out-of-memory message from a pasted log (spans masked)."""
    log = st.q.run_log
    log.prefill_tokens_per_s = _speed(st, _rx().prefill)
    decode = _speed(st, _rx().decode)
    if decode is not None:
        st.q.measured_speeds = [decode]  # the generation speed the log states comes first
        st.q.measured_tokens_per_s = decode
    if m := _rx().layers.search(st.t.view):
        st.t.take(m.start(), m.end())
        log.layers_on_gpu, log.layers_total = int(m.group("k")), int(m.group("n"))
    _oom(st)
    _log_engine(st)
    for m in list(_rx().noise.finditer(st.t.view)):
        st.t.take(m.start(), m.end())


def _log_engine(st: _State) -> None:
    """The engine whose own log lines were pasted ("INFO ... [model_runner.py:1110] Model loading took 14.2 GB"), when
    the message names none: a P40 owner pasting vLLM's log is asking about vLLM (a named engine read later wins)."""
    for key, pattern in _rx().engines:
        if pattern.search(st.t.text):
            st.q.engine, st.q.engine_name, st.log_engine = key, key, key
            return
