"""What the run itself reports and how the engine lays the model out: a log's prompt speed and its layers on the GPU,
memory another process holds, tensor parallel and the heads it must divide, a long prompt's one-pass peak in
Transformers, an image model. Each adds facts the causes test and the numbers their sentences quote."""

from __future__ import annotations

import re

from tools.diagnose.schema import TP_ENGINES, table
from tools.diagnose.state import Run
from tools.models import ModelArch

_GIB = 2**30
_BYTES_16BIT = 2


def signal_facts(run: Run) -> set[str]:
    """The facts of this module, their numbers written into run.values."""
    return _log_facts(run) | _layout_facts(run) | _prompt_facts(run)


def _log_facts(run: Run) -> set[str]:
    """A log's prompt speed far under the GPU's (CPU speed), no layers on the GPU, another process's memory."""
    req, v, out = run.req, run.values, set()
    measured = req.measured_prefill_tokens_per_s
    ceiling = run.speed.prefill_tokens_per_s if run.speed is not None and req.mode == "inference" else None
    if measured and ceiling:
        v.update(prefill_measured=measured, prefill_ceiling=ceiling, prefill_gap=ceiling / measured)
        if ceiling / measured >= table()["huge_gap"]:
            out.add("prefill_cpu")  # prompt processing at CPU speed: the GPU is not doing the work
    if req.gpu_layers_loaded == 0:
        out.add("zero_gpu_layers")
    if run.arch is not None:
        on_gpu = run.offload.layers_on_gpu if run.offload is not None else run.arch.num_layers
        v.update(layers=run.arch.num_layers, fit_layers=on_gpu)
    if req.other_process_gib is not None and req.other_process_gib >= table()["others_min_gib"]:
        out.add("others_hold")
        v.update(others=req.other_process_gib, oom_gpu=req.oom_gpu)
    return out


def _layout_facts(run: Run) -> set[str]:
    """Tensor parallel: whether the GPUs divide the heads, the largest count that does, and whether it was asked."""
    req, arch, v, out = run.req, run.arch, run.values, set()
    n = req.num_gpus
    tp_engine = run.engine in TP_ENGINES
    if arch is None or n < 2 or req.mode != "inference" or not (tp_engine or "tensor_parallel" in run.flags):
        return out
    heads, kv = arch.num_attention_heads, arch.num_key_value_heads
    # vLLM: the query heads divide by TP; KV heads divide by it, or it by them (each KV head is then replicated)
    tp_ok = max(d for d in range(1, n + 1) if heads % d == 0 and (kv % d == 0 or d % kv == 0))
    v.update(heads=heads, kv_heads=kv, tp_ok=tp_ok)
    if tp_ok < n:
        out.add("heads_not_divisible")
    told = run.flags & {"tensor_parallel", "pipeline_parallel"}
    if tp_engine and not told:
        out.add("no_tp_setting")
    if "tensor_parallel" in run.flags or (tp_engine and "pipeline_parallel" not in run.flags and tp_ok == n):
        out.add("tp_split")  # every layer ends in an all-reduce between the cards
    return out


def _prompt_facts(run: Run) -> set[str]:
    """A long prompt's one-pass temporaries in Transformers (eager attention scores, logits for every position),
    and an image model (vLLM profiles its largest image at startup)."""
    arch, v, out = run.arch, run.values, set()
    if arch is None or run.req.mode != "inference":
        return out
    scores, logits = scores_logits(arch, run.context, run.req.batch)
    v.update(scores_gib=scores, logits_gib=logits, vocab=arch.vocab_size, heads=arch.num_attention_heads)
    if run.req.context_tokens and max(scores, logits) >= table()["prefill_peak_gib"]:
        out.add("prefill_peak")  # only a prompt length the user stated: the default 4k is no evidence of a long one
    if re.search(table()["vision_model"], f"{arch.id} {arch.name} {arch.series or ''}", re.I):
        out.add("vision")
    if re.search(table()["reasoning_model"], arch.id, re.I):
        out.add("reasoning")  # it writes its thinking before every answer
    return out


def scores_logits(arch: ModelArch, context: int, batch: int) -> tuple[float, float]:
    """GiB of one layer's attention scores (eager attention) and of the logits for every prompt position."""
    scores = batch * arch.num_attention_heads * context**2 * _BYTES_16BIT / _GIB
    logits = batch * context * arch.vocab_size * _BYTES_16BIT / _GIB
    return scores, logits
