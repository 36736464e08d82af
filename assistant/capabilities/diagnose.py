"""Diagnose: "why is it slow / why does it OOM" on hardware the user names (advice.md §9).

The verdict leads: the measured number against the computed ceiling ("4.5 tokens/s 基本就是上限", "25x below what the
hardware allows: this is software, not the card"), then the causes that apply, most likely first, each with what
to change, then where maintainers explain them. The numbers and the causes come from tools/diagnose.py.
"""

from __future__ import annotations

import re
from typing import Any, ClassVar

from pydantic import BaseModel

from assistant.capabilities.base import Capability, Outcome, Plan, PlanContext, ToolCall, Turn
from assistant.capabilities.diagnose_more import mac_prompt, more_cards, more_cards_line, tight_weights
from assistant.capabilities.diagnose_ratio import other_run_line, ratio_lead, stated_ratio_args
from assistant.capabilities.diagnose_way import fit_way
from assistant.capabilities.memory import memory_lines
from assistant.scenario import Scenario
from assistant.strings import Writer
from assistant.toolset import ToolName
from assistant.understanding import ParsedQuery
from assistant.understanding.ranked import behind_card, job_mode
from tools.catalog import catalog
from tools.diagnose import DiagnoseResult
from tools.notes import render_all
from tools.precision import resolve_precision
from tools.speed import SpeedResult
from tools.vram import VramResult

# support_subjects (knowledge/data/support.yaml ids) that are the engine a job runs under, in the order they win
_ENGINES = (
    "vllm",
    "sglang",
    "tensorrt_llm",
    "exllamav2",
    "exllamav3",
    "ollama",
    "llama_cpp",
    "mlx",
    "transformers",
    "deepspeed",
)
_TRAINING = ("full", "lora", "qlora")
_MAX_SOURCES = 4
_IMPLAUSIBLE = 0.5  # measured over twice the ceiling: the number was read as something it is not


def _num(x: float) -> str:
    """A speed as people write it: 0.017, 4.5, 71, 1,200 (two or three significant digits: it is an estimate)."""
    return f"{x:.2g}" if x < 10 else (f"{x:.3g}" if x < 100 else f"{x:,.0f}")


def diagnose_args(s: Scenario, q: ParsedQuery) -> dict[str, Any]:
    """diagnose arguments: the scenario's model and hardware plus what this message reports."""
    slower = q.slower_gpu or _slower_card(q) or _inverted_card(q)  # "V100 比 A100 慢5倍": the V100's run
    gpu = slower or _speed_card(q) or _own_gpu(q) or s.gpu
    count = (q.gpu_counts.get(slower) or 1) if slower else s.num_gpus
    s = s.model_copy(update={"gpu": gpu, "num_gpus": count, "model": _measured_model(s, q)})
    args = _job_args(s, q)
    for arg, value in (("precision", s.precision), ("context_tokens", s.context_tokens), ("batch", s.batch)):
        if value:
            args[arg] = value
    if q.symptom == "oom" and len(q.precisions_mentioned) > 1:
        # "the AWQ build works, the fp16 one runs out of memory": the format that runs out is the heaviest named,
        # and the others named are the first fixes to try
        args["precision"] = max(q.precisions_mentioned, key=lambda p: resolve_precision(p).bits)
        args["other_precisions"] = [p for p in q.precisions_mentioned if p != args["precision"]]
    elif len(q.precisions_mentioned) > 1 and s.mode not in _TRAINING:
        # "slow with f16 or q8_0": the lightest named is the best case, and the one its log shows; with the machine's
        # RAM stated ("4-bit and Q2_K both crawl, 256G RAM") the heaviest, whose fit in that RAM decides the speed
        pick = max if s.ram_gib and q.symptom in (None, "slow", "cpu_fallback") else min
        args["precision"] = pick(q.precisions_mentioned, key=lambda p: resolve_precision(p).bits)
    if s.mode in _TRAINING or q.measured_seconds_per_step:
        args |= {"mode": "training", "method": s.mode if s.mode in _TRAINING else "lora"}
    engine = _engine(s, q)
    if engine:
        args["engine"] = engine
    flags = [*q.diagnose_flags, *(["bitsandbytes"] if "bitsandbytes" in q.support_subjects else [])]
    run_on = catalog().get(gpu) if gpu else None
    if slower and run_on is not None and run_on.vendor != "apple":
        flags = [f for f in flags if f != "mac"]  # "my M2 MacBook is faster than the T4": the Mac is the reference
    if flags:
        args["flags"] = list(dict.fromkeys(flags))
    args["symptom"] = q.symptom or ("memory_high" if q.measured_memory_gib else "slow")
    _measured_args(args, q)
    _run_time_args(args, s, q)
    _mixed_args(args, q)
    _log_args(args, q)
    spec = catalog().get(gpu) if gpu else None
    if spec is not None and spec.form_factor == "soc":
        # a Mac's memory is the GPU's: a CPU platform named beside it ("Xeon 6 似乎速度更快") is another machine the
        # user weighs, not host RAM this one offloads to
        return args
    for arg, value in (("ram_gib", s.ram_gib), ("memory", s.ram_type), ("machine", s.machine)):
        if value:
            args[arg] = value
    return args


def _job_args(s: Scenario, q: ParsedQuery) -> dict[str, Any]:
    """The model and the hardware: the GPU and its count, or the card's memory when no GPU is named."""
    args: dict[str, Any] = {}
    if s.model or s.params_b:
        args |= {"model": s.model} if s.model else {"params_b": s.params_b}
    if s.gpu:
        args |= {"gpu": s.gpu, "num_gpus": s.num_gpus or 1}
    elif q.num_gpus:
        args["num_gpus"] = q.num_gpus
    if not s.gpu and q.stated_capacity_gib:
        args["card_gib"] = q.stated_capacity_gib  # "a 24G card", an OOM log's "total capacity of 23.65 GiB"
    return args


def _engine(s: Scenario, q: ParsedQuery) -> str | None:
    """The engine this message names, else the one the conversation ran under (kept across follow-ups)."""
    engine = next((e for e in _ENGINES if e in q.support_subjects), None) or next(iter(q.diagnose_engines), None)
    if engine == "transformers" and "tgi" in q.diagnose_engines:
        engine = "tgi"  # TGI's own settings (HF_MODEL_ID beside MAX_BATCH_PREFILL_TOKENS): TGI serves the model
    return engine or (s.engine if s.engine not in (None, "training") else None)


def _measured_model(s: Scenario, q: ParsedQuery) -> str | None:
    """Of two models named, the one the first speed is about: "7 tokens/s, is that normal? qwen-7b-chat does 60+ on
    the same card ... Qwen-14B-Chat-Int4": the other model has its own speed, so the question is the one without."""
    owned = {m for m in q.measured_speed_models if m}
    if not q.measured_speed_models or q.measured_speed_models[0] is not None or s.model not in owned:
        return s.model
    rest = [m for m in q.models_mentioned if m not in owned]
    return rest[0] if len(rest) == 1 else s.model


def _speed_card(q: ParsedQuery) -> str | None:
    """Of several cards named, the one the only speed stated was measured on ("the A100 gets 30 tok/s but both my
    3090 and 4090 get over 45"): the run the question is about, whoever owns which card."""
    cards = [g for g in q.measured_speed_gpus if g]
    return cards[0] if len(q.gpu_mentions) > 1 and len(q.measured_speeds) == len(cards) == 1 else None


def _own_gpu(q: ParsedQuery) -> str | None:
    """Of two cards named, the one the user calls theirs ("别人的 2080 Ti 比我的 3090 快", "faster than my 3090")."""
    if len(q.gpu_mentions) < 2:
        return None
    for gpu in q.gpu_mentions:
        digits = re.search(r"\d{3,4}", gpu)
        mine = rf"(?:我的|我这|\bmy|\bmine)\W{{0,3}}[^，。,.;；]{{0,12}}{digits.group(0)}" if digits else None
        if mine and re.search(mine, q.text, re.I):
            return gpu
    return None


_BANDWIDTH_CLEAR = 1.3  # one card's memory bandwidth this much above another's: it should decode clearly faster


def _inverted_card(q: ParsedQuery) -> str | None:
    """Of cards measured on the same job, the one with clearly more memory bandwidth that measured slower ("我的 4090
    60 tokens/s，公司的 H100 才 45"): the run the question is about, whoever owns which card."""
    by_card = [(gpu, speed, catalog().get(gpu)) for gpu, speed in _speeds_by_card(q).items()]
    cards = [(gpu, speed, spec.bandwidth_gbs) for gpu, speed, spec in by_card if spec is not None]
    slow = [a for a in cards for b in cards if a[1] < b[1] and a[2] > b[2] * _BANDWIDTH_CLEAR]
    return max(slow, key=lambda c: c[2])[0] if slow else None


# "slower on the DGX Spark than on my Mac", "3060 比 4090 慢": the card after "than" / "比" is the one measured against
_THAN = re.compile(r"(?:\bthan|比)\s*(?P<ref>[^,，。.;；?？!！]{1,40})", re.I)


def _slower_card(q: ParsedQuery) -> str | None:
    """Of two cards said to differ in speed with no speeds given, the slower one: the card after "than" / "比" is
    the reference, slower or faster as the comparative word says ("A 比 B 慢": A; "faster on B than on A": A)."""
    if q.symptom != "slow" or q.measured_speeds or q.measured_tokens_per_s is not None:
        return None
    behind = behind_card(q.text, q.gpu_mentions, job_mode(q))  # "the A800 is not as fast as the 3090", "A100 慢于 4090"
    if behind is not None or len(q.gpu_mentions) != 2:
        return behind
    m = _THAN.search(q.text)
    if m is None:
        return None
    fragment = m.group("ref").lower()
    ref = next((g for g in q.gpu_mentions if _named_in(g, fragment)), None)
    if ref is None:
        return None
    other = next(g for g in q.gpu_mentions if g != ref)
    before = re.split(r"[,，。.;；?？!！]", q.text[max(0, m.start() - 80) : m.start()])[-1].lower()  # its clause
    after = fragment
    word = "slower" if "slower" in before else "faster" if "faster" in before else None
    if m.group(0).startswith("比"):
        word = "slower" if "慢" in after else "faster" if "快" in after else None
    if word is None:
        return None
    return other if word == "slower" else ref


def _named_in(gpu_id: str, fragment: str) -> bool:
    spec = catalog().get(gpu_id)
    names = [gpu_id, *(spec.aliases if spec else [])]
    return any(re.search(rf"(?<![a-z0-9]){re.escape(n.lower())}(?![0-9])", fragment) for n in names)


def _measured_args(args: dict[str, Any], q: ParsedQuery) -> None:
    """The numbers measured; two speeds and two cards named are one measurement per card: each speed belongs to the
    card named last before it ("on the 3090 about 15 tokens/s, on the P40 0.5"), else they go in the order written.
    Another card named without its own speed ("1 张 A100 就还可以", "别人的 2080 Ti 比我的 3090 快") is the
    comparison: the same job's ceiling on it."""
    others = [g for g in q.gpu_mentions if g != args.get("gpu")]
    if q.measured_speeds:
        args["measured_tokens_per_s"] = q.measured_speeds[0]
        by_card = _speeds_by_card(q)
        own = args.get("gpu")
        if own in by_card and len(by_card) > 1:
            other = next(g for g in by_card if g != own)
            args |= {"measured_tokens_per_s": by_card[own], "other_gpu": other}
            args["other_measured_tokens_per_s"] = by_card[other]
        elif len(set(q.measured_speeds)) > 1 and len(q.gpu_mentions) > 1:  # one speed said for two cards is no pair
            args |= {"other_gpu": q.gpu_mentions[1], "other_measured_tokens_per_s": q.measured_speeds[1]}
    # "training on the V100 is slower than on the 3080 Ti": a training run said slower than on one other card is
    # weighed against that card's tensor math (no speed: no ceiling, only the cards' figures)
    paired = "mode" not in args or (q.symptom == "slow" and len(q.gpu_mentions) == 2)
    if "other_gpu" not in args and others and args.get("gpu") and paired:
        args |= {"other_gpu": others[0], "other_num_gpus": q.gpu_counts.get(others[0], 1)}
    for arg in ("measured_seconds_per_step", "target_tokens_per_s", "measured_memory_gib"):
        if getattr(q, arg) is not None:
            args[arg] = getattr(q, arg)
    stated_ratio_args(args, q)


def _run_time_args(args: dict[str, Any], s: Scenario, q: ParsedQuery) -> None:
    """A training run's stated time ("88 hours, is this normal?") and the data it covers: the tool sets the hours
    against what the data takes at the ceiling."""
    if args.get("mode") != "training" or q.measured_hours is None:
        return
    args["measured_hours"] = q.measured_hours
    data = dict(epochs=s.epochs, train_tokens=s.dataset_tokens, dataset_samples=s.dataset_samples)
    if s.dataset_samples and not s.dataset_tokens:
        data["sample_tokens"] = s.sample_tokens
    args |= {k: v for k, v in data.items() if v}


def _mixed_args(args: dict[str, Any], q: ParsedQuery) -> None:
    """Two different cards of one machine ("I have a 3090 and a 2060"): the job is the bigger card's, the slower one
    is what a split adds, and a second speed measured is the split's, not the other card's alone."""
    from assistant.capabilities.fit import mixed_cards

    cards = mixed_cards(q)
    if not cards or args.get("mode") == "training":
        return
    big, slow = cards[-1], min(cards, key=lambda g: g.bandwidth_gbs)
    if big.id == slow.id:
        return
    args |= {"gpu": big.id, "num_gpus": q.gpu_counts.get(big.id, 1), "other_gpu": slow.id, "other_num_gpus": 1}
    args.pop("other_measured_tokens_per_s", None)
    if q.measured_speeds:
        args["measured_tokens_per_s"] = _speeds_by_card(q).get(big.id, q.measured_speeds[0])
    args["flags"] = [*args.get("flags", []), "mixed_cards"]


def _speeds_by_card(q: ParsedQuery) -> dict[str, float]:
    """The first speed stated after each card's name, by card."""
    out: dict[str, float] = {}
    for speed, gpu in zip(q.measured_speeds, q.measured_speed_gpus, strict=False):
        if gpu is not None and gpu not in out:
            out[gpu] = speed
    return out


def _log_args(args: dict[str, Any], q: ParsedQuery) -> None:
    """What a pasted log says: the prompt speed, the layers that reached the GPU, another process's memory."""
    log = q.run_log
    for arg, value in (
        ("measured_prefill_tokens_per_s", log.prefill_tokens_per_s),
        ("gpu_layers_loaded", log.layers_on_gpu),
        ("oom_gpu", log.oom_gpu),
        ("other_process_gib", log.others_gib),
    ):
        if value is not None:
            args[arg] = value


def _reason(w: Writer, r: DiagnoseResult) -> str:
    """What sets the ceiling, in one clause: RAM bandwidth when the model is partly in RAM, else the GPUs."""
    ceiling = _num(r.ceiling_tokens_per_s or 0)
    if r.ceiling_source == "offload" and r.ram_memory:
        key = "diag_reason_experts" if r.offload_strategy == "experts" else "diag_reason_layers"
        ram = dict(memory=r.ram_memory, channels=r.ram_channels, gbs=r.ram_effective_gbs or 0)
        where = w.t("offload_on_gpus", n=r.num_gpus, gpu=r.gpu) if r.gpu else w.t("offload_cpu_only")
        return w.t(key, where=where, model=r.model, in_ram=r.in_ram_gib or 0, ceiling=ceiling, **ram)
    if r.mode == "training":
        method = w.label("method", r.method or "lora")
        return w.t("diag_reason_training", n=r.num_gpus, gpu=r.gpu, model=r.model, method=method, ceiling=ceiling)
    precision = w.label("format", r.precision or "")
    bandwidth = r.gpu_bandwidth_gbs or 0
    return w.t(
        "diag_reason_gpu",
        n=r.num_gpus,
        gpu=r.gpu,
        bandwidth=bandwidth,
        model=r.model,
        precision=precision,
        ceiling=ceiling,
    )


def _two_cards(w: Writer, r: DiagnoseResult) -> bool:
    """Two cards measured on the same job: the bandwidth ratio against the measured one leads."""
    m_a, m_b, c_a, c_b = (
        r.measured_tokens_per_s,
        r.other_measured_tokens_per_s,
        r.ceiling_tokens_per_s,
        r.other_ceiling_tokens_per_s,
    )
    if not (m_a and m_b and c_a and c_b and r.bandwidth_ratio and r.other_gpu):
        return False
    cards = dict(
        a_gpu=r.gpu, a_measured=_num(m_a), a_ceiling=c_a, b_gpu=r.other_gpu, b_measured=_num(m_b), b_ceiling=c_b
    )
    faster_card_other = r.bandwidth_ratio >= 1
    fast, slow = (r.other_gpu, r.gpu) if faster_card_other else (r.gpu, r.other_gpu)
    ratio = r.bandwidth_ratio if faster_card_other else 1 / r.bandwidth_ratio
    measured_faster_other = m_b > m_a
    gbs = (r.gpu_bandwidth_gbs, r.other_bandwidth_gbs)
    if measured_faster_other != faster_card_other:
        w.say("diag_lead_two_cards_inverted", fast=fast, slow=slow, ratio=ratio, **cards)
    elif (r.measured_ratio or 1) * _SAME_RATIO < ratio and gbs[0] and gbs[1]:
        # "43 tokens/s on the A10, only 51 on the A100": the faster card is the one far below its ceiling
        fast_gbs, slow_gbs = (gbs[1], gbs[0]) if faster_card_other else gbs
        w.say("diag_lead_two_cards_short", fast=fast, slow=slow, fast_gbs=fast_gbs, slow_gbs=slow_gbs, **cards)
    else:
        w.say("diag_lead_two_cards", mratio=r.measured_ratio or 1, ratio=ratio, **cards)
    return True


_SAME_RATIO = 1.3  # measured within 30% of the bandwidth ratio: the hardware explains the gap


def _two_cards_plain(w: Writer, r: DiagnoseResult) -> bool:
    """Two cards measured on the same job with no model to compute ceilings for ("A100 40 tokens/s, 4090 and L40
    over 50"): their memory bandwidth alone says which should decode faster, and by how much."""
    m_a, m_b, gbs_a, gbs_b = (
        r.measured_tokens_per_s,
        r.other_measured_tokens_per_s,
        r.gpu_bandwidth_gbs,
        r.other_bandwidth_gbs,
    )
    if not (m_a and m_b and gbs_a and gbs_b and r.other_gpu and r.gpu and r.measured_ratio) or r.mode == "training":
        return False
    cards = dict(a_gpu=r.gpu, a_measured=_num(m_a), a_gbs=gbs_a, b_gpu=r.other_gpu, b_measured=_num(m_b), b_gbs=gbs_b)
    faster_other = gbs_b >= gbs_a
    fast, slow = (r.other_gpu, r.gpu) if faster_other else (r.gpu, r.other_gpu)
    ratio = max(gbs_a, gbs_b) / min(gbs_a, gbs_b)
    if (m_b > m_a) != faster_other and ratio > _SAME_RATIO:
        w.say("diag_lead_two_cards_inverted_plain", fast=fast, slow=slow, **cards)
    elif r.measured_ratio > ratio * _SAME_RATIO:
        w.say("diag_lead_two_cards_plain", mratio=r.measured_ratio, **cards)
    else:
        w.say("diag_lead_two_cards_match_plain", mratio=r.measured_ratio, **cards)
    return True


def _two_cards_training(w: Writer, r: DiagnoseResult) -> bool:
    """A training run said slower on one card than on another, no step times to compare ("mixed-precision training
    on the V100 is slower than on the 3080 Ti"): the cards' dense 16-bit tensor math says whether the hardware
    explains it; a card clearly ahead on it yet slower is a run that does not use its tensor cores."""
    tf_a, tf_b = r.gpu_tensor_tflops, r.other_tensor_tflops
    if r.symptom != "slow" or r.mode != "training" or not (tf_a and tf_b and r.gpu and r.other_gpu):
        return False
    if r.measured_tokens_per_s or r.other_measured_tokens_per_s or tf_a < tf_b * _SAME_RATIO:
        return False
    w.say("diag_lead_two_cards_training_inverted", slow=r.gpu, slow_tf=tf_a, fast=r.other_gpu, fast_tf=tf_b)
    return True


def _two_cards_unmeasured(w: Writer, r: DiagnoseResult) -> bool:
    """One card said to be slower than another on the same job, no speeds or model given ("Ollama is slower on
    the DGX Spark than on a Mac Studio M3 Ultra, bug?"): their memory bandwidth says whether the hardware explains
    it. The card the diagnosis is about (the first named, or the user's) is the one reported slower."""
    gbs_a, gbs_b = r.gpu_bandwidth_gbs, r.other_bandwidth_gbs
    if r.symptom != "slow" or r.mode == "training" or not (gbs_a and gbs_b and r.gpu and r.other_gpu):
        return False
    if r.measured_tokens_per_s or r.other_measured_tokens_per_s:
        return False
    cards = dict(slow=r.gpu, slow_gbs=gbs_a, fast=r.other_gpu, fast_gbs=gbs_b)
    if gbs_b > gbs_a * _SAME_RATIO:
        w.say("diag_lead_two_cards_bandwidth", ratio=gbs_b / gbs_a, **cards)
    else:
        w.say("diag_lead_two_cards_bandwidth_inverted", **cards)
    return True


# The lead already says what these causes say: no second sentence naming them
_SAID_BY_LEAD = {"does_not_fit", "fits_but_oom", "vllm_preallocates"}


def _head(w: Writer, r: DiagnoseResult, skip: set[str] = _SAID_BY_LEAD) -> str | None:
    """The first cause in one clause, unless the lead already said it."""
    first = r.causes[0] if r.causes else None
    if first is None or first.head is None or first.id in skip:
        return None
    return first.head.render(w.lang)


_MEMORY_CAUSES = (
    "fp32_default_load",
    "mps_fp32",
    "vllm_preallocates",
    "tgi_preallocates",
    "lmdeploy_preallocates",
    "reference_example_kv",
)


def _stock_gb(gpu: str) -> float:
    """The memory the card a mod was made from shipped with (22 GB 2080 Ti: 11)."""
    from tools.card_risk import stock_of
    from tools.catalog import resolve_gpu

    return stock_of(resolve_gpu(gpu)[0]).vram_gib


def _memory_lead(w: Writer, r: DiagnoseResult, memory: VramResult | None = None) -> set[str] | None:
    """An out-of-memory or a memory surprise: what the job needs against the card, or vLLM's preallocation. The
    causes the sentence already states come back (None: no memory lead)."""
    precision = w.label("format", r.precision or "")
    first = r.causes[0].id if r.causes else None
    ids = {c.id for c in r.causes}
    weights = memory.breakdown_gib.get("weights") if memory is not None else None
    if r.symptom == "oom" and r.memory_per_gpu_gib is not None and r.fits is not None and r.usable_gib_per_gpu:
        need = dict(need=r.memory_per_gpu_gib, usable=r.usable_gib_per_gpu)
        if first in ("fp32_default_load", "mps_fp32") and r.memory_16bit_per_gpu_gib and not r.fits:
            w.say("diag_lead_oom_fp32", model=r.model, half=r.memory_16bit_per_gpu_gib, **need)
            return {first}
        # vLLM with no tensor-parallel size on several cards (vllm_no_tp) is the same verdict: loaded on one GPU
        if (first == "vllm_no_tp" or "one_gpu_loaded" in ids) and r.memory_one_gpu_gib:
            # the weights in all, when known: what the user's own sum ("the model is 18G") is set against
            key, more = (
                ("diag_lead_oom_one_gpu_weights", {"weights": weights})
                if weights and r.gpu  # a card said only by its size ("两张8g的卡"): no name to put in the sentence
                else ("diag_lead_oom_one_gpu", {})
            )
            w.say(key, n=r.num_gpus, one=r.memory_one_gpu_gib, gpu=r.gpu, **more, **need)
            return {"one_gpu_loaded"}  # vllm_no_tp's own clause (the missing setting) still follows
        card = "" if r.gpu else "_card"  # no GPU named, its memory stated ("24G 的卡", an OOM log)
        if r.fits and first == "modded_memory" and r.gpu:
            w.say("diag_lead_oom_modded", gpu=r.gpu, stock=_stock_gb(r.gpu), **need)
            return {first}
        if r.fits:
            w.say("diag_lead_oom_fits" + card, gpu=r.gpu, **need)
        else:
            lead = w.t("diag_lead_oom_not_fits" + card, model=r.model, precision=precision, gpu=r.gpu, **need)
            way = fit_way(w, r)  # the format that fits, in the same breath
            if way:  # one bold lead: "**... usable. In FP8 it fits: ...**"
                lead = lead.removesuffix("**") + (" " if w.lang == "en" else "") + way.removeprefix("**")
            w.add(lead)
            _weights_over_all(w, r, weights)
        return set()
    if first == "vllm_preallocates":
        _lead_vllm(w, r)
        return set()
    said_memory = r.symptom == "memory_high" or first in _MEMORY_CAUSES
    if said_memory and r.measured_memory_gib and r.memory_per_gpu_gib:
        expected = r.memory_per_gpu_gib
        w.say("diag_lead_memory", measured=r.measured_memory_gib, expected=expected, model=r.model, precision=precision)
        return set()
    return None


def _weights_over_all(w: Writer, r: DiagnoseResult, weights: float | None) -> None:
    """Several cards whose memory together is less than the weights alone ("24*4 G?" for a 116 GiB AWQ): the sum the
    user made, and that no flag or context makes it fit."""
    from tools.catalog import resolve_gpu
    from tools.errors import AdvisorError

    if not r.gpu or r.num_gpus < 2 or not weights or not r.usable_gib_per_gpu:
        return
    try:
        spec = resolve_gpu(r.gpu)[0]
    except (AdvisorError, ValueError):
        return
    if weights > r.num_gpus * r.usable_gib_per_gpu:
        w.say("diag_weights_over_all", n=r.num_gpus, vram=spec.vram_gib, weights=weights)


def _lead(w: Writer, r: DiagnoseResult, memory: VramResult | None = None) -> None:
    """The verdict first (the measured number against the ceiling, or the memory against what the job needs), then
    the most likely cause in one sentence."""
    said = _verdict_lead(w, r, memory)
    if said is not None:
        head = _head(w, r, _SAID_BY_LEAD | said)
        if head:
            w.say("diag_head_line", head=head)
    elif (head := _head(w, r, set())) is not None:
        w.say("diag_lead_head", head=head)  # no number to compare: the most likely cause leads
    elif r.causes:
        w.say("diag_lead_generic")
    if r.symptom == "killed" and r.fits and r.gpu and r.memory_per_gpu_gib and r.usable_gib_per_gpu:
        # a kill while loading on a card that holds the job: the card is cleared in the same breath
        w.say("diag_killed_fits", model=r.model, gpu=r.gpu, need=r.memory_per_gpu_gib, usable=r.usable_gib_per_gpu)
    _power_fits(w, r)


def _power_fits(w: Writer, r: DiagnoseResult) -> None:
    """A machine that reboots under load on a card that holds the job: the memory is cleared right after the power
    supply leads ("会死机重启，显卡4080，chatglm-6b-int4": not a memory problem)."""
    if r.symptom != "crash" or not r.causes or r.causes[0].id != "crash_power":
        return
    if r.fits and r.gpu and r.model and r.memory_per_gpu_gib and r.usable_gib_per_gpu:
        w.say("diag_crash_fits", model=r.model, gpu=r.gpu, need=r.memory_per_gpu_gib, usable=r.usable_gib_per_gpu)


def _verdict_lead(w: Writer, r: DiagnoseResult, memory: VramResult | None = None) -> set[str] | None:
    """The verdict sentence, when there is a number to state it with, and the causes it already states (None: no
    number to lead with)."""
    said = _memory_lead(w, r, memory)
    if said is not None:
        return said
    if r.symptom in ("slow_load", "killed", "crash", "one_gpu_used"):
        # the load time is the disk's; a kill or a crash has no number to state; "only one GPU is used" asks why
        # the other cards sit idle, not about a speed: the cause leads
        return None
    if r.causes and r.causes[0].id == "mac_gpu_share":
        return None  # a ceiling on the GPU means nothing for a model the Mac's GPU cannot hold: the cause leads
    if r.symptom == "memory_high" and r.measured_tokens_per_s is None:
        return None  # "the card shows full": no speed was asked about, so the memory's cause leads, not a ceiling
    if r.symptom == "multi_gpu_slower" and r.scaling and r.single_gpu_tokens_per_s and r.ceiling_tokens_per_s:
        ceiling, single = _num(r.ceiling_tokens_per_s), _num(r.single_gpu_tokens_per_s)
        w.say("diag_lead_multi_gpu", n=r.num_gpus, gpu=r.gpu, scaling=r.scaling, ceiling=ceiling, single=single)
        return set()
    if ratio_lead(w, r):  # "5x slower than the A100", or the same card faster in another run: the factor leads
        return set()
    if r.verdict == "no_ceiling" or r.ceiling_tokens_per_s is None:
        return set() if _two_cards_plain(w, r) or _two_cards_unmeasured(w, r) or _two_cards_training(w, r) else None
    if not _two_cards(w, r):
        _speed_verdict(w, r)
        if r.ceiling_source == "offload" and r.verdict in ("at_ceiling", "not_measured"):
            return {"partial_offload"}  # the lead already says it does not fit and runs partly from RAM
    return set()


def _ceiling(r: DiagnoseResult) -> float:
    return r.ceiling_tokens_per_s or 0.0


def _good_run(w: Writer, r: DiagnoseResult, measured: str) -> bool:
    """Above the typical value and under the bandwidth bound: a well-tuned run, said as such, never a problem."""
    if not (r.verdict == "at_ceiling" and r.peak_tokens_per_s and (r.measured_tokens_per_s or 0) > 1.1 * _ceiling(r)):
        return False
    numbers = dict(peak=_num(r.peak_tokens_per_s), ceiling=_num(_ceiling(r)), mbu=r.peak_share_pct)
    w.say("diag_lead_over_typical", measured=measured, gpu=r.gpu, bandwidth=r.gpu_bandwidth_gbs or 0, **numbers)
    return True


def _host_bound(w: Writer, r: DiagnoseResult) -> bool:
    """A faster card named slower on a small model, no speeds: the host's per-token costs lead, as when measured."""
    if not (r.verdict == "not_measured" and r.other_gpu and r.causes and r.causes[0].id == "small_model_overhead"):
        return False
    mem_ms = r.causes[0].why.params.get("mem_ms") or 0
    w.say("diag_lead_host_bound", gpu=r.gpu, other=r.other_gpu, model=r.model, mem_ms=mem_ms)
    return True


def _tokens(x: float) -> str:
    """A training token count as people say it: 41M, 1.2B."""
    return f"{x / 1e9:.2g}B" if x >= 1e9 else f"{x / 1e6:.3g}M"


def _hours_verdict(w: Writer, r: DiagnoseResult) -> bool:
    """A training run's stated hours: against the hours its data takes at the ceiling, or, with no data size, the
    tokens an epoch those hours cover, for the user to hold against their dataset."""
    if r.mode != "training" or not r.measured_hours:
        return False
    reason, hours = _reason(w, r), _num(r.measured_hours)
    if r.implied_tokens:
        if r.epochs and r.hours_per_epoch and r.implied_tokens_per_epoch:
            per_epoch = dict(per_epoch=_tokens(r.implied_tokens_per_epoch), per_epoch_h=r.hours_per_epoch)
            w.say("diag_lead_hours_epochs", hours=hours, epochs=r.epochs, reason=reason, **per_epoch)
        else:
            w.say("diag_lead_hours_total", hours=hours, reason=reason, tokens=_tokens(r.implied_tokens))
        return True
    if not (r.hours_at_ceiling and r.tokens_to_train and r.gap):
        return False
    numbers = dict(hours=hours, computed=_num(r.hours_at_ceiling), tokens=_tokens(r.tokens_to_train), reason=reason)
    key = {"far_below": "diag_lead_hours_far", "below": "diag_lead_hours_below"}.get(r.verdict, "diag_lead_hours_ok")
    w.say(key, gap=r.gap, **numbers)
    return True


def _speed_verdict(w: Writer, r: DiagnoseResult) -> None:
    """The measured speed against the ceiling (or the ceiling alone, with whether it fits)."""
    if _hours_verdict(w, r):
        return
    measured = _num(r.measured_tokens_per_s or 0)
    target = ""
    if r.target_tokens_per_s:
        key = "diag_target_in" if r.target_reachable else "diag_target_out"
        target = w.t(key, target=_num(r.target_tokens_per_s))
    if r.verdict == "above" and r.gap and r.gap < _IMPLAUSIBLE:
        key = "diag_lead_above_reading" + ("" if r.mode == "training" else "_inference")
        w.say(key, measured=measured, times=1 / r.gap, reason=_reason(w, r))
    elif r.verdict == "at_ceiling" and r.ceiling_source == "offload":
        w.say("diag_lead_offload_at_ceiling", measured=measured, target=target, reason=_reason(w, r))
    elif _good_run(w, r, measured) or _host_bound(w, r):
        return
    elif r.verdict in ("at_ceiling", "above"):
        w.say("diag_lead_at_ceiling", measured=measured, target=target, reason=_reason(w, r))
    elif r.verdict == "far_below":
        w.say("diag_lead_far_below", gap=r.gap or 0, reason=_reason(w, r), measured=measured)
    elif r.verdict == "below":
        w.say("diag_lead_below", measured=measured, gap=r.gap or 0, target=target, reason=_reason(w, r))
    elif r.ceiling_source == "offload" and not r.gpu:  # no GPU: RAM bandwidth, not the cores, sets the speed
        w.say("diag_lead_not_measured_cpu_only", reason=_reason(w, r))
    elif r.ceiling_source == "offload":
        w.say("diag_lead_not_measured_offload", reason=_reason(w, r))
    elif r.fits and r.memory_per_gpu_gib and r.usable_gib_per_gpu:
        memory = dict(need=r.memory_per_gpu_gib, usable=r.usable_gib_per_gpu)
        w.say("diag_lead_not_measured_fits", reason=_reason(w, r), **memory)
    else:
        w.say("diag_lead_ceiling_only", reason=_reason(w, r))


def _lead_vllm(w: Writer, r: DiagnoseResult) -> None:
    """vLLM's memory is its preallocation: the lead says so, with the card's numbers when they are known."""
    params = r.causes[0].why.params
    detail = params.get("detail")
    card = detail[0].params if isinstance(detail, list) and detail else None
    if card and r.measured_memory_gib and r.memory_per_gpu_gib:
        numbers = dict(measured=_num(r.measured_memory_gib), expected=r.memory_per_gpu_gib, util=params["util"])
        w.say("diag_lead_vllm_expected", model=r.model, **numbers, **card)
    else:
        w.say("diag_lead_vllm_expected_plain", util=params["util"])


def _no_cause_key(r: DiagnoseResult) -> str:
    """What to say when no cause applies: what to check, for the kind of run it is."""
    training = r.mode == "training"
    if r.ceiling_source == "offload" and not r.gpu and not training:
        return "diag_no_cause_cpu_only"  # "CPU 吃不满": the cores wait on RAM; what makes a CPU run faster
    key = "diag_no_cause_training" if training else "diag_no_cause"
    if training and r.implied_tokens:
        key = "diag_no_cause_training_hours"  # no data size: no gap known, what would make one
    if r.symptom == "oom" and r.model is None:
        key = "diag_no_cause_oom"  # no model to size: what an out-of-memory is made of, and what to lower
    elif not (r.measured_tokens_per_s or r.implied_tokens or r.stated_ratio):  # a factor stated is a measurement
        key = "diag_no_cause_unmeasured"
    return key


def diagnose_lines(
    w: Writer,
    r: DiagnoseResult,
    memory: VramResult | None = None,
    others: list[VramResult] | None = None,
    more: list[tuple[str, float]] | None = None,
    ram_gib: float | None = None,
    prompt: SpeedResult | None = None,
) -> None:
    """Verdict, causes with their fixes, the memory as loaded (for a memory problem), the comparison on one card,
    further cards measured, sources, assumptions."""
    _lead(w, r, memory)
    other_run_line(w, r)  # a faster run elsewhere on the same card, past this format's bound: a lighter build
    more_cards_line(w, r, more or [], _num)
    if r.causes:
        lines = [
            w.t("diag_cause_line", i=i, why=c.why.render(w.lang), fix=c.fix.render(w.lang))
            for i, c in enumerate(r.causes, 1)
        ]
        w.add("\n".join(lines))
    elif r.verdict not in ("at_ceiling", "above"):  # at the ceiling there is no gap to explain
        w.say(_no_cause_key(r))
    tight_weights(w, r, memory)
    if memory is not None and r.symptom in ("oom", "memory_high"):
        memory_lines(w, memory, detail=False, lead=False)  # where the memory goes: weights, KV cache, overhead
    if r.single_gpu_tokens_per_s and r.num_gpus > 1 and r.gpu and r.symptom != "multi_gpu_slower":
        w.say("diag_single_gpu", gpu=r.gpu, single=_num(r.single_gpu_tokens_per_s))
    if r.other_gpu and r.other_ceiling_tokens_per_s and not r.other_measured_tokens_per_s:
        other = dict(n=r.other_num_gpus or 1, gpu=r.other_gpu, ceiling=_num(r.other_ceiling_tokens_per_s))
        if r.other_bandwidth_gbs:  # the two cards' bandwidths side by side: the gap the hardware allows
            w.say("diag_other_card_bw", gbs=r.other_bandwidth_gbs, **other)
        else:
            w.say("diag_other_card", **other)
    for m in others or []:
        _other_model_line(w, m, ram_gib)
    if prompt is not None and prompt.prefill_tokens_per_s and prompt.ttft_s:  # a Mac: the prompt is where it loses
        w.say("diag_mac_prompt", pp=prompt.prefill_tokens_per_s, context=prompt.context_tokens, ttft=prompt.ttft_s)
    seen: list[str] = []
    for cause in r.causes:
        seen += [w.t("diag_source_line", url=s.url, date=s.date) for s in cause.sources[:2] if s.url.startswith("http")]
    sources = list(dict.fromkeys(seen))[:_MAX_SOURCES]
    if sources:
        w.add(w.t("diag_sources_head") + "\n" + "\n".join(f"- {line}" for line in sources))
    w.bullets("assumptions_head", render_all(r.assumptions, w.lang), limit=4)
    w.bullets("warnings_head", render_all(r.warnings, w.lang))


_OTHER_MODELS = 2
_RAM_USABLE = 0.85  # the share of RAM a model may take beside the OS and the apps


def other_models_args(args: dict[str, Any], q: ParsedQuery) -> list[dict[str, Any]]:
    """Other models the message names beside the one diagnosed ("I also tried Llama2 70B on my other PC's 4060 Ti"):
    each one's memory, on the other card named when there is exactly one, else on the same hardware."""
    model, gpu = args.get("model"), args.get("gpu")
    if model and not gpu and args.get("ram_gib") and args.get("mode") != "training":
        # CPU only, RAM stated ("i5 + 16GB, 8b is slow, 70b too"): each other model's size against that RAM
        ctx = args.get("context_tokens") or 4096
        gguf = args.get("engine") in ("llama_cpp", "llama.cpp", "ollama") or "cpu_only" in args.get("flags", [])
        precision = args.get("precision") or ("q4_k_m" if gguf else None)  # as the diagnosis assumes (ceilings.py)
        p = {"precision": precision} if precision else {}
        return [dict(model=m, context_tokens=ctx, **p) for m in q.models_mentioned if m != model][:_OTHER_MODELS]
    if not model or not gpu or args.get("mode") == "training":
        return []
    others = [g for g in q.gpu_mentions if g != gpu]
    card = others[0] if len(others) == 1 else gpu
    n = q.gpu_counts.get(card, 1) if card != gpu else args.get("num_gpus", 1)
    precision = args.get("precision")
    out = []
    for other in [m for m in q.models_mentioned if m != model][:_OTHER_MODELS]:
        call = dict(model=other, context_tokens=args.get("context_tokens") or 4096, gpu=card, num_gpus=n)
        out.append(call | ({"precision": precision} if precision else {}))
    return out


def _other_model_line(w: Writer, m: VramResult, ram_gib: float | None = None) -> None:
    """One line for another model named: what it needs against the card it was named with (or, on a CPU-only
    machine, against its RAM)."""
    if m.fit is None and ram_gib:
        key = "diag_other_model_ram_fits" if m.total_gib <= ram_gib * _RAM_USABLE else "diag_other_model_ram_not_fits"
        w.say(key, model=m.model, precision=w.label("format", m.precision), need=m.total_gib, ram=ram_gib)
        return
    if m.fit is None:
        return
    fit = dict(need=m.per_gpu_gib, usable=m.fit.usable_gib_per_gpu, n=m.fit.num_gpus, gpu=m.fit.gpu)
    precision = w.label("format", m.precision)
    w.say(
        "diag_other_model_fits" if m.fit.fits else "diag_other_model_not_fits",
        model=m.model,
        precision=precision,
        **fit,
    )


class Diagnose(Capability):
    intent = "diagnose"
    owns = (ToolName.DIAGNOSE,)
    scenario_fields: ClassVar[dict[ToolName, dict[str, str]]] = {
        ToolName.DIAGNOSE: {
            "model": "model",
            "params_b": "params_b",
            "gpu": "gpu",
            "num_gpus": "num_gpus",
            "precision": "precision",
            "context_tokens": "context_tokens",
            "ram_gib": "ram_gib",
            "memory": "ram_type",
            "machine": "machine",
        }
    }
    guides_topic = "performance pitfalls slow tokens per second MBU PCIe offload precision 速度慢 排查"

    def plan(self, ctx: PlanContext) -> None:
        args = diagnose_args(ctx.scenario, ctx.parsed)
        if not ({"model", "params_b", "gpu", "engine", "flags"} & set(args)):
            ctx.need("need_diagnose_details")
            return
        ctx.add(self.intent, ToolName.DIAGNOSE, **args)
        for other in other_models_args(args, ctx.parsed):
            ctx.add(self.intent, ToolName.ESTIMATE_VRAM, **other)
        ctx.second_round.append(self.intent)  # the calculations it rests on, as calls of their own

    def second_round(self, plan: Plan, outcomes: list[Outcome]) -> list[ToolCall]:
        """The memory and ceiling estimates the diagnosis computed, as the calculators' own calls: the answer
        shows their breakdown and a reader sees which calculation every number comes from."""
        return [
            ToolCall(name=ToolName(c.tool), args=c.args, owner=self.intent)
            for o in outcomes
            if o.call.owner == self.intent and isinstance(o.result, DiagnoseResult)
            for c in o.result.calculations
        ]

    def render(self, w: Writer, turn: Turn) -> None:
        memory = turn.own(self.intent, VramResult)
        calls = [o.call.args for o in turn.outcomes if o.call.owner == self.intent and o.call.name == ToolName.DIAGNOSE]
        for i, r in enumerate(turn.own(self.intent, DiagnoseResult)):
            own = [m for m in memory if m.model == r.model]
            more = more_cards(_speeds_by_card(turn.parsed), calls[i]) if i < len(calls) else []
            ram = calls[i].get("ram_gib") if i < len(calls) and not r.gpu else None  # CPU only: other models vs RAM
            prompt = mac_prompt(r, calls[i] if i < len(calls) else {}, turn.own(self.intent, SpeedResult))
            diagnose_lines(w, r, own[0] if own else None, [m for m in memory if m.model != r.model], more, ram, prompt)

    def summary(self, tool: ToolName, result: BaseModel, lang: str) -> str:
        if not isinstance(result, DiagnoseResult):
            return str(tool)
        first = result.causes[0].id if result.causes else "no cause found"
        if result.ceiling_tokens_per_s is None:
            return f"{result.symptom}: {first}"
        return f"ceiling {result.ceiling_tokens_per_s} tokens/s ({result.verdict}); first cause: {first}"
