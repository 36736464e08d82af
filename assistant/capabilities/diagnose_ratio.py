"""Two runs set against each other: a factor the user states between two cards with no speeds ("my V100 is 5x slower
than my A100", "A100 要10小时，3090 不到1小时"), against the factor the hardware predicts (tools/diagnose/ratio.py);
and two speeds measured on the same card in two runs (two engines, apps or builds: "llamafile 26 tokens/s, llama.cpp
51 on the same RTX 2080"), where the faster run shows what the card does; and a speed with no model named that is under
what any model filling the card would reach ("8*V100, 一个step就需要10s+"). The verdict leads."""

from __future__ import annotations

import re
from typing import Any

from assistant.strings import Writer
from assistant.understanding import ParsedQuery
from tools.diagnose import DiagnoseResult

_SAME = 1.3  # within 30%: the hardware (or the card) explains the gap
# engines and apps a run is made with: two of them named beside two speeds on one card are two runs of the same job
_RUNNERS = re.compile(
    r"llama\.?cpp|llamafile|lm ?studio|ollama|vllm|sglang|transformers|exllama\w*|koboldcpp|text-generation-webui"
    r"|oobabooga|lmdeploy|tensorrt|tgi|mlc|jan\b|gpt4all|llama-cpp-python|dflash",
    re.I,
)
_SMALL = 1.5  # a gap under 1.5x ("only 20% faster") is said as a shortfall of the faster card
_PAST = 1.2  # a run this far past the full-bandwidth bound read a lighter build


def _num(x: float) -> str:
    return f"{x:.2g}" if x < 10 else (f"{x:.3g}" if x < 100 else f"{x:,.0f}")


def stated_ratio_args(args: dict[str, Any], q: ParsedQuery) -> None:
    """The factor stated between two cards (the faster card is the comparison), or the second speed measured on the
    same card in another run."""
    if q.rate_per_minute and args.get("measured_tokens_per_s"):  # "600 tokens a minute": the rate as stated
        args["measured_tokens_per_min"] = round(args["measured_tokens_per_s"] * 60, 2)
    if (
        q.slower_ratio
        and q.faster_gpu
        and args.get("gpu") == q.slower_gpu
        and not args.get("other_measured_tokens_per_s")
    ):
        args |= {"stated_ratio": q.slower_ratio, "other_gpu": q.faster_gpu}
        args["other_num_gpus"] = q.gpu_counts.get(q.faster_gpu, 1)
        return
    speeds, cards = q.measured_speeds, {g for g in q.measured_speed_gpus if g}
    one_card = len(set(q.gpu_mentions)) <= 1 and len(cards) <= 1
    if len(speeds) < 2 or not one_card or "other_gpu" in args or q.target_tokens_per_s is not None:
        return
    runners = {m.group(0).lower().replace(" ", "").replace(".", "") for m in _RUNNERS.finditer(q.text)}
    if len(runners) < 2:
        return  # no second engine or app named: not two runs of one job ("a 34B model achieves 14")
    a = speeds[0]
    i = max(range(1, len(speeds)), key=lambda j: max(a, speeds[j]) / min(a, speeds[j]) if a > 0 < speeds[j] else 0.0)
    b = speeds[i]  # the other run: the speed most unlike the first, not a repeat of it
    models = q.measured_speed_models
    if i < len(models) and models[i] not in (None, args.get("model")):
        return  # another model's speed ("qwen-7b-chat 是 60+"): no run of this job
    if a > 0 and b > 0 and max(a, b) / min(a, b) >= _SAME:
        args["other_run_tokens_per_s"] = b


def ratio_lead(w: Writer, r: DiagnoseResult) -> bool:
    """The lead for a stated factor or for another run on the same card; False when neither applies."""
    return _stated(w, r) or _other_run(w, r) or _under_floor(w, r)


def _under_floor(w: Writer, r: DiagnoseResult) -> bool:
    """No model named, a speed under what even a model filling the GPUs decodes at: far below the card, said first."""
    first = r.causes[0] if r.causes else None
    if first is None or first.id != "weights_in_ram" or not r.measured_tokens_per_s or not r.gpu or r.other_gpu:
        return False  # (another card measured beside it: the two cards' bandwidths lead)
    floor = first.why.params.get("floor")
    if not isinstance(floor, (int, float)):
        return False
    w.say("diag_lead_under_floor", measured=_num(r.measured_tokens_per_s), gpu=r.gpu, floor=floor)
    return True


def _stated(w: Writer, r: DiagnoseResult) -> bool:
    hw, stated, basis, values = r.hardware_ratio, r.stated_ratio, r.hardware_basis, r.hardware_values
    if not (hw and stated and basis and values and r.gpu and r.other_gpu):
        return False
    mine, theirs = values
    numbers = dict(stated=stated, slow=r.gpu, fast=r.other_gpu, mine=mine, theirs=theirs, ratio=hw)
    numbers |= dict(basis=w.t(f"diag_basis_{basis}"), unit=w.t(f"diag_unit_{basis}"))
    if hw * _SAME < 1 or (hw < 1 and stated > _SAME):
        w.say("diag_lead_ratio_inverted", **numbers)  # the card said slower is the stronger (or an equal) one
    elif stated > hw * _SAME:
        w.say("diag_lead_ratio_more", **numbers)
    elif stated * _SAME < hw and stated < _SMALL:
        # "only 20% faster": a small gap noted is the faster card falling short; a big one ("2x slower") that the
        # hardware predicts even bigger is expected
        w.say("diag_lead_ratio_less", **numbers)
    else:
        w.say("diag_lead_ratio_match", **numbers)
    return True


def _other_run(w: Writer, r: DiagnoseResult) -> bool:
    """The same card measured faster in another run, within what it allows: that run shows the card is fine."""
    other, mine, ceiling = r.other_run_tokens_per_s, r.measured_tokens_per_s, r.ceiling_tokens_per_s
    if not (other and mine and ceiling and r.gpu and r.model) or r.ceiling_source != "gpu":
        return False
    slow, fast = min(mine, other), max(mine, other)
    if fast > (r.peak_tokens_per_s or ceiling) * _PAST or fast < slow * _SAME:
        return False  # a lighter build in the faster run (said after the verdict), or the two runs agree
    precision = w.label("format", r.precision or "")
    numbers = dict(slow_m=_num(slow), fast_m=_num(fast), ceiling=_num(ceiling), gpu=r.gpu, model=r.model)
    w.say("diag_lead_other_run", precision=precision, **numbers)
    return True


def other_run_line(w: Writer, r: DiagnoseResult) -> None:
    """After the verdict: another run faster than this format allows on the card ran a lighter build."""
    other, peak = r.other_run_tokens_per_s, r.peak_tokens_per_s or r.ceiling_tokens_per_s
    if not (other and peak and r.measured_tokens_per_s) or other <= peak * _PAST or r.ceiling_source != "gpu":
        return
    w.say("diag_other_run_lighter", fast_m=_num(other), peak=_num(peak), precision=w.label("format", r.precision or ""))
