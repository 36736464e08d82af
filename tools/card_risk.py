"""assess_card: what an expert says about an old, modified or multi-GPU card before anyone relies on it.

"I just bought 10 P40s", "M40 or M60 for Ollama?", "P40 报错不支持半精度", "V100 能微调吗（没有 flash-attn）",
"魔改 3080 20G 用到 12G 就崩": the verdict for the job (it runs, with what; it trains, how; not worth buying;
a modified card to test first) leads, then the facts that decide it: architecture and compute capability, tensor
cores, the FP16 rate, BF16 and FlashAttention-2, engine support, the end of driver/CUDA support, GPUs per board,
passive cooling, a decode speed for the model asked about, and better cards for the same money.

Facts: knowledge/data/card_risks.yaml (generations, boards), gpus.yaml (the card), support.yaml (engines, through
check_support). Pure: no network, no global state beyond the cached data files.
"""

from __future__ import annotations

import contextlib
import re
from dataclasses import dataclass
from functools import cache
from typing import Any, Literal

from pydantic import BaseModel, Field

from tools._data import load_yaml
from tools.boards import device_for
from tools.catalog import GpuSpec, catalog, resolve_gpu
from tools.errors import AdvisorError
from tools.notes import Note, note
from tools.prices import load_prices, purchase_price, used_price_range, used_purchase_price
from tools.workstation import install_notes

Job = Literal["inference", "training", "buy"]
RiskClass = Literal["unsupported", "legacy", "pascal", "pre_bf16", "modded", "no_cuda_training", "rocm_dropped", "none"]
_MAX_GPUS = 4


class CardRiskRequest(BaseModel):
    """An old, modified or multi-GPU card and what the user wants to do with it."""

    gpus: list[str] = Field(
        min_length=1, max_length=_MAX_GPUS, description="GPU names, fuzzy ('P40', 'M40', 'Tesla M60', 'V100')"
    )
    job: Job = Field(
        default="inference",
        description="inference: run models on it; training: fine-tune on it; buy: thinking of buying it",
    )
    num_gpus: int = Field(default=1, ge=1, le=512, description="How many of the (first) card the user has")
    owned: bool = Field(default=False, description="The user already has the cards ('I just bought 10')")
    buying: bool = Field(
        default=False,
        description="The user is thinking of buying the cards for the job ('contemplating picking up M10s to train')",
    )
    stated_vram_gib: float | None = Field(
        default=None, gt=0, le=1024, description="Memory the user says the (first) card has: '3080 20G' (a mod?)"
    )
    model: str | None = Field(default=None, max_length=200, description="Model for the speed example (registry)")
    params_b: float | None = Field(default=None, gt=0, le=20_000, description="Or its size in billions")
    architecture_asked: bool = Field(
        default=False,
        description="The user quotes an architecture requirement or asks about BF16 / FlashAttention "
        "('docs say Ampere or Hopper'): say what the card lacks even for inference",
    )
    currency: Literal["USD", "CNY"] = "USD"
    reference_gpu: str | None = Field(
        default=None,
        max_length=100,
        description="An NVIDIA card the user weighs against this one ('Mac Studio or 8 × 4090 for fine-tuning?'): "
        "a slow-training verdict measures against it instead of the datacenter reference",
    )
    failing: bool = Field(
        default=False, description="The user reports the card crashing or erroring ('卡死', 'illegal memory access')"
    )


class CardFacts(BaseModel):
    """One card as the assessment sees it."""

    gpu: str
    gpu_id: str
    architecture: str
    compute_capability: str | None
    generation: str | None = Field(description="card_risks.yaml generation id; None: newer than Turing or not NVIDIA")
    risk: RiskClass
    vram_gib: float
    bandwidth_gbs: float
    board_gpus: int = Field(default=1, description="GPUs on one board (Tesla M60: 2, M10: 4)")


class CardRiskResult(BaseModel):
    """The verdict for the job on these cards, the facts behind it, what to do, and better buys."""

    job: Job
    cards: list[CardFacts]
    risk: RiskClass = Field(description="The class of the lead card: what kind of trap it is")
    lead: Note | None = Field(description="The sentence an expert leads with; None: nothing to warn about")
    facts: list[Note] = Field(default_factory=list)
    instead: list[Note] = Field(default_factory=list, description="What to do on this card")
    alternatives: list[Note] = Field(default_factory=list, description="Better cards to buy instead, priced")
    alternatives_cost_more: bool = Field(
        default=False,
        description="The better cards cost clearly more than this one (a $40 K80 against a $215 RTX 3060): they "
        "are worth the extra money, not 'about the same money'",
    )
    decode_tokens_per_s: float | None = Field(default=None, description="The speed example, per GPU")
    assumptions: list[Note] = Field(default_factory=list)
    sources: list[str] = Field(default_factory=list, description="Source ids (card_risks.yaml or support.yaml)")


@cache
def table() -> dict[str, Any]:
    """knowledge/data/card_risks.yaml."""
    return load_yaml("card_risks.yaml")


def generation_of(gpu: GpuSpec) -> dict[str, Any] | None:
    """The card_risks.yaml generation row of an NVIDIA card (None: newer, unknown or not NVIDIA)."""
    cc = _cc(gpu)
    if cc is None:
        return None
    for row in table()["generations"]:
        if row.get("cc_min", 0) <= cc < row.get("cc_below", 99):
            return row
    return None


def _cc(gpu: GpuSpec) -> float | None:
    text = gpu.compute_capability or ""
    if gpu.vendor != "nvidia" or not re.fullmatch(r"\d+\.\d", text):
        return None
    return float(text)


def modded(gpu: GpuSpec, stated_vram_gib: float | None) -> bool:
    """A memory-modified card: a catalog row for a mod (the 22 GB 2080 Ti), or more memory than the card ever
    shipped with ("3080 20G（魔改版）")."""
    if gpu.unofficial:
        return gpu.id in table()["mods"]
    return bool(stated_vram_gib and stated_vram_gib > gpu.vram_gib + 0.5)


def stock_of(gpu: GpuSpec) -> GpuSpec:
    """The card a memory mod was made from (its stock memory), or the card itself."""
    base = table()["mods"].get(gpu.id)
    return catalog().get(base, gpu) if base else gpu


def rocm_dropped(gpu: GpuSpec) -> bool:
    """An AMD card current ROCm no longer supports (check_support's ROCm verdict)."""
    if gpu.vendor != "amd" or not gpu.compute_capability:
        return False
    from tools.support import SupportRequest, check_support

    try:
        return check_support(SupportRequest(engine="rocm", gpu=gpu.id)).verdict == "no"
    except AdvisorError:
        return False


def risky(gpu_id: str, job: Job, architecture_asked: bool = False, stated_vram_gib: float | None = None) -> bool:
    """Whether an expert would warn before this card is used for `job` (the parser asks before planning)."""
    gpu = catalog().get(gpu_id)
    if gpu is None:
        return False
    if modded(gpu, stated_vram_gib):
        return True
    if gpu.vendor == "apple":
        return job == "training"  # a fine machine to run models on, a slow one to train them on
    if rocm_dropped(gpu):
        return True
    gen = generation_of(gpu)
    if gen is None:
        return False
    return gen["class"] != "pre_bf16" or job == "training" or architecture_asked


# ---- the tool ---------------------------------------------------------------------------------------


@dataclass
class _Card:
    spec: GpuSpec
    gen: dict[str, Any] | None
    risk: RiskClass


def assess_card(req: CardRiskRequest) -> CardRiskResult:
    """The verdict for the job on the cards, the facts behind it, what to do instead, better buys."""
    cards = [_card(name, req.stated_vram_gib if i == 0 else None, req.job) for i, name in enumerate(req.gpus)]
    # a card nothing current runs on leads ("why are T4, K80, V100 not supported?": the K80, Kepler, is the answer)
    dead = [c for c in cards if c.risk in ("unsupported", "rocm_dropped")]
    lead_card = dead[0] if dead else next((c for c in cards if c.risk != "none"), cards[0])
    group = [c for c in cards if c.risk == lead_card.risk and _same_gen(c, lead_card)]
    sources: list[str] = []
    facts: list[Note] = []
    for c in cards:
        if c.risk != "none":
            facts += _facts(req, c)
            sources += list((c.gen or {}).get("sources", []))
            sources += list(table()["board_sources"].get(c.spec.id, []))
    speed, speed_note = _speed(req, lead_card)
    if speed_note is not None:
        facts.append(speed_note)
    if lead_card.risk == "modded":
        sources.append("memtest_vulkan")
    if lead_card.risk == "rocm_dropped":
        sources += list(table()["rocm_dropped"]["sources"])
    return CardRiskResult(
        job=req.job,
        cards=[_facts_model(c) for c in cards],
        risk=lead_card.risk,
        lead=_lead(req, lead_card, group),
        facts=_dedupe(facts),
        instead=_instead(req, lead_card),
        alternatives=_alternatives(req, lead_card),
        alternatives_cost_more=_alternatives_cost_more(req, lead_card),
        decode_tokens_per_s=speed,
        assumptions=[note("risk_as_of", as_of=str(table()["as_of"]))],
        sources=list(dict.fromkeys(sources)),
    )


def _card(name: str, stated: float | None, job: Job) -> _Card:
    spec = resolve_gpu(name)[0]
    gen = generation_of(spec)
    if modded(spec, stated):
        return _Card(spec, gen, "modded")
    if spec.vendor == "apple" and job == "training":
        return _Card(spec, None, "no_cuda_training")
    if rocm_dropped(spec):
        return _Card(spec, None, "rocm_dropped")
    return _Card(spec, gen, gen["class"] if gen else "none")


def _same_gen(a: _Card, b: _Card) -> bool:
    return (a.gen or {}).get("id") == (b.gen or {}).get("id")


def _facts_model(c: _Card) -> CardFacts:
    return CardFacts(
        gpu=c.spec.name,
        gpu_id=c.spec.id,
        architecture=c.spec.architecture,
        compute_capability=c.spec.compute_capability,
        generation=(c.gen or {}).get("id"),
        risk=c.risk,
        vram_gib=c.spec.vram_gib,
        bandwidth_gbs=c.spec.bandwidth_gbs,
        board_gpus=c.spec.gpus_per_board,
    )


def _arch(spec: GpuSpec) -> str:
    """'Pascal (GP102)' -> 'Pascal': the generation people name."""
    return re.sub(r"\s*\(.*\)$", "", spec.architecture)


def _names(cards: list[_Card]) -> list[Note]:
    return [note("risk_name", gpu=c.spec.name) for c in cards]


def _fp16(c: _Card) -> Note:
    kind = (c.gen or {}).get("fp16", "none")
    return note(f"risk_fp16_{kind}", gpu=c.spec.name, fp32=c.spec.fp32_tflops or 0.0)


_SAME_MONEY = 1.5  # a replacement within this factor of the card's own price is "about the same money"


def _price(gpu: GpuSpec, currency: str) -> float | None:
    book = load_prices()
    bought = purchase_price(gpu, currency, book) or used_purchase_price(gpu, currency, book)
    return bought[0] if bought else None


def _alternatives_cost_more(req: CardRiskRequest, c: _Card) -> bool:
    """Whether even the cheapest replacement costs clearly more than the card (K80 $40, M40 $85 against a $215 RTX
    3060): then they are the better buy for more money, never "for about the same money"."""
    own = _price(c.spec, req.currency)
    alts = [p for p in (_price(catalog()[i], req.currency) for i in _alt_ids(c)) if p]
    return bool(own and alts and min(alts) > _SAME_MONEY * own)


def _lead(req: CardRiskRequest, c: _Card, group: list[_Card]) -> Note | None:
    spec = c.spec
    shared: dict[str, Any] = dict(gpus=_names(group), arch=_arch(spec), cc=spec.compute_capability or "-")
    if c.risk == "modded":
        base = stock_of(spec)
        stated = req.stated_vram_gib or spec.vram_gib
        code = "risk_lead_modded" if req.failing else "risk_lead_modded_buy"
        return note(code, gpu=base.name, stock=base.vram_gib, stated=stated)
    if c.risk == "rocm_dropped":
        return note(
            "risk_lead_rocm_dropped", gpus=_names(group), arch=_arch(spec), target=spec.compute_capability or "-"
        )
    if c.risk == "unsupported":
        return note("risk_lead_unsupported", **shared)
    if c.risk == "no_cuda_training":
        ref = _reference(req, "datacenter_reference")
        return note(
            "risk_lead_apple_training" if spec.fp32_tflops else "risk_lead_apple_training_nofp32",  # none published
            gpus=_names(group),
            fp32=spec.fp32_tflops or 0.0,
            ref_gpu=ref.name,
            ref_tflops=ref.bf16_tflops,
        )
    if req.job == "training" and c.risk in ("legacy", "pascal"):
        ref = _reference(req, "training_reference")
        # cards still to be bought for training: whether they are worth buying is the verdict, not that they can
        code = "risk_lead_train_skip" if req.buying and not req.owned and _alt_ids(c) else "risk_lead_train_slow"
        fp32 = spec.fp32_tflops or 0.0
        return note(code, **shared, fp32=fp32, ref_gpu=ref.name, ref_tflops=ref.bf16_tflops, alts=_alt_names(c))
    if c.risk == "pre_bf16":
        return note("risk_lead_train_fp16" if req.job == "training" else "risk_lead_infer_fp16", **shared)
    if c.risk == "legacy" and not req.owned:
        code = "risk_lead_skip_pricier" if _alternatives_cost_more(req, c) else "risk_lead_skip"
        return note(code, **shared, alts=_alt_names(c))
    if c.risk == "legacy":
        return note("risk_lead_owned_slow", **shared, n=req.num_gpus)
    if c.risk == "pascal" and req.job == "buy" and not req.owned:
        return note("risk_lead_pascal_buy", **shared, fp16=[_fp16(c)], alts=_alt_names(c))
    if c.risk == "pascal":
        code = "risk_lead_llamacpp_owned" if req.owned and req.num_gpus > 1 else "risk_lead_llamacpp"
        return note(code, **shared, fp16=[_fp16(c)], n=req.num_gpus)
    return None


def _reference(req: CardRiskRequest, default: str) -> GpuSpec:
    """What a slow card's training compute is measured against: the NVIDIA card the user weighs it against
    ("Mac Studio 192G or 8 × 4090?" -> the 4090), else the table's reference."""
    if req.reference_gpu:
        spec = resolve_gpu(req.reference_gpu)[0]
        if spec.vendor == "nvidia" and spec.bf16_tflops:
            return spec
    return catalog()[table()[default]]


def _facts(req: CardRiskRequest, c: _Card) -> list[Note]:
    spec, gen = c.spec, c.gen or {}
    out = [
        note(
            "risk_fact_card",
            gpu=spec.name,
            arch=_arch(spec),
            cc=spec.compute_capability or "-",
            vram=spec.vram_gib,
            gbs=spec.bandwidth_gbs,
            year=spec.launch_year or 0,
        )
    ]
    if c.risk == "no_cuda_training":
        return _apple_facts(spec)
    price = _used_price(req, spec)  # "P40 还值得买吗": what it costs second-hand, dated, beside what it is
    if c.risk == "rocm_dropped":
        amd = _rocm_facts(spec)
        return [*amd[:1], *price, *amd[1:]]
    out += price
    device = device_for(spec)
    if device is not None:
        out.append(
            note("risk_fact_board", gpu=spec.name, n=spec.gpus_per_board, gib=device.vram_gib, gbs=device.bandwidth_gbs)
        )
    if c.risk == "modded":
        return [*out, note("risk_fact_modded_warranty", gpu=spec.name)]
    if gen.get("fp16") != "tensor":
        out += [note("risk_fact_no_tensor", fp32=spec.fp32_tflops or 0.0), note("risk_fact_fp16", fp16=[_fp16(c)])]
    if not spec.has_bf16:  # P40 and GTX 10xx train in FP32: their FP16 runs at 1/64 rate (GpuSpec.compute_dtype)
        fp32 = spec.vendor == "nvidia" and spec.compute_dtype("bf16") == "fp32-vector"
        out.append(note("risk_fact_no_bf16_fa2_fp32" if fp32 else "risk_fact_no_bf16_fa2", gpu=spec.name))
    out += _engine_facts(spec)
    out.append(note(f"risk_fact_support_{gen.get('support', 'current')}"))
    if spec.cooling == "passive":
        out.append(note("risk_fact_passive", gpu=spec.name, tdp=spec.tdp_w or 0.0))
        out += install_notes(spec)  # its EPS12V plug and the BIOS setting it needs to start at all
    if req.owned and req.num_gpus > 1 and req.job != "training" and c.risk in ("pascal", "legacy"):
        out.append(note("risk_fact_many", n=req.num_gpus, gpu=spec.name, gib=spec.vram_gib))
    return [n for n in out if n.code != "risk_fact_support_current"]


def _used_price(req: CardRiskRequest, spec: GpuSpec) -> list[Note]:
    """The card's dated second-hand range in the user's currency, when buying it is the question."""
    if req.job != "buy" and not req.buying:
        return []
    found = used_price_range(spec, req.currency, load_prices())
    if found is None:
        return []
    low, high, date = found
    prices = [p for p in (spec.used_price, spec.street_price if spec.discontinued else None) if p is not None]
    native = any(p.cny if req.currency == "CNY" else p.usd for p in prices)
    code = "risk_fact_used_price" if native else "risk_fact_used_price_converted"
    code += "_one" if low == high else ""
    code = code if date else "risk_fact_used_price_estimated"  # no dated sale found: an estimate, said as one
    extra = {} if native else {"unit": "USD" if req.currency == "CNY" else "CNY"}
    return [note(code, gpu=spec.name, low=low, high=high, date=date or "-", currency=req.currency, **extra)]


def _rocm_facts(spec: GpuSpec) -> list[Note]:
    """An AMD card ROCm dropped: the card, ROCm's verdict and the reason (check_support), the cooling."""
    from tools.support import SupportRequest, check_support

    out = [note("risk_fact_amd_card", gpu=spec.name, target=spec.compute_capability or "-", vram=spec.vram_gib,
                gbs=spec.bandwidth_gbs, year=spec.launch_year or 0)]  # fmt: skip
    with contextlib.suppress(AdvisorError):
        out += check_support(SupportRequest(engine="rocm", gpu=spec.id)).why[:1]
    device = device_for(spec)
    if device is not None:  # "Radeon Pro Duo": two GPUs of 16 GB, not one of 32
        out.append(
            note("risk_fact_board", gpu=spec.name, n=spec.gpus_per_board, gib=device.vram_gib, gbs=device.bandwidth_gbs)
        )
    if spec.cooling == "passive":
        out.append(note("risk_fact_passive", gpu=spec.name, tdp=spec.tdp_w or 0.0))
    return out


def _apple_facts(spec: GpuSpec) -> list[Note]:
    """Apple silicon for training: memory, compute, and what the CUDA training stack has there (check_support)."""
    from tools.support import SupportRequest, check_support

    out = [
        note(
            "risk_fact_apple" if spec.fp32_tflops else "risk_fact_apple_nofp32",
            gpu=spec.name,
            vram=spec.vram_gib,
            gbs=spec.bandwidth_gbs,
            fp32=spec.fp32_tflops or 0,
        )
    ]
    for subject in ("flash_attention_2", "bitsandbytes", "mlx"):
        try:
            out += check_support(SupportRequest(engine=subject, gpu=spec.id)).why[:1]
        except AdvisorError:
            continue
    return out


def _engine_facts(spec: GpuSpec) -> list[Note]:
    """vLLM on this card, as check_support rules it (its first reason)."""
    from tools.support import SupportRequest, check_support

    try:
        r = check_support(SupportRequest(engine="vllm", gpu=spec.id))
    except AdvisorError:
        return []
    return r.why[:1] if r.verdict != "yes" else []


def _model_label(model: str) -> str:
    from tools.model_match import match_model

    try:
        return match_model(model).arch.name
    except AdvisorError:
        return model


def _instead(req: CardRiskRequest, c: _Card) -> list[Note]:
    if c.risk == "modded":
        stock = stock_of(c.spec).vram_gib
        out = [note("risk_do_memtest", stated=req.stated_vram_gib or c.spec.vram_gib, stock=stock)]
        if req.model:  # "ran DeepSeek V3.1 on it before, so the card is fine": only up to the memory that run used
            out.append(note("risk_do_earlier_run", model=_model_label(req.model), stock=stock))
        return out
    if c.risk == "rocm_dropped":
        older = [note("sup_use_old_rocm")] if c.spec.compute_capability == "gfx906" else []  # the note is gfx906's
        return [note("sup_use_llamacpp_vulkan"), *older]
    if c.risk == "pre_bf16":  # BF16 asked about or a training job: how to run each without it
        fp16 = [note("risk_do_fp16_inference")] if req.architecture_asked and req.job != "training" else []
        return [*fp16, note("risk_do_fp16_training")] if req.job == "training" or req.architecture_asked else []
    if c.risk == "no_cuda_training":
        return [note("risk_do_apple_training", gpu=catalog()[table()["datacenter_reference"]].name)]
    if c.risk in ("pascal", "legacy", "unsupported"):
        # a card out of every current CUDA stack runs GGUF models only on the CPU (Ollama needs 5.0+)
        out = [note("risk_do_cpu_fallback" if c.risk == "unsupported" else "risk_do_gguf")]
        if req.job == "training":
            out.append(note("risk_do_train_small"))
        return out
    return []


def _alt_ids(c: _Card) -> list[str]:
    """The replacements for the card: only cards whose support is current (Turing or newer), so a card out of
    support is never replaced by one that is itself losing it (a P40 for a K80)."""
    ids = table()["rocm_dropped"]["alternatives"] if c.risk == "rocm_dropped" else (c.gen or {}).get("alternatives", [])
    return [i for i in ids if i in catalog() and supported_now(catalog()[i])]


def supported_now(gpu: GpuSpec) -> bool:
    """Whether current drivers, CUDA and PyTorch wheels keep supporting the card (no generation row: newer)."""
    row = generation_of(gpu)
    return row is None or row.get("support") == "current"


def _alt_names(c: _Card) -> list[Note]:
    ids = _alt_ids(c)
    return [note("risk_name", gpu=catalog()[i].name) for i in ids if i in catalog()]


def _alternatives(req: CardRiskRequest, c: _Card) -> list[Note]:
    """Better cards for about the same money, with their memory, bandwidth and price, when buying is on the table."""
    if c.risk not in ("legacy", "unsupported") and not (req.job == "buy" and c.risk in ("pascal", "rocm_dropped")):
        return []
    book = load_prices()
    out = []
    for gid in _alt_ids(c):
        alt = catalog().get(gid)
        if alt is None:
            continue
        bought = purchase_price(alt, req.currency, book)
        used = None if bought else used_purchase_price(alt, req.currency, book)
        price = (bought or used or (None, None))[0]
        shared = dict(gpu=alt.name, vram=alt.vram_gib, gbs=alt.bandwidth_gbs)
        if price:
            out.append(note("risk_alternative", **shared, price=round(price), currency=req.currency))
        else:
            out.append(note("risk_alternative_unpriced", **shared))
    return out


def _speed(req: CardRiskRequest, c: _Card) -> tuple[float | None, Note | None]:
    """A decode speed on one GPU of the card for the model asked about, in the format the card runs well."""
    if req.job == "training" or c.risk not in ("pascal", "legacy") or not (req.model or req.params_b):
        return None, None  # the speed that decides is llama.cpp's on a card vLLM-class engines skip
    from tools.speed import SpeedRequest, estimate_speed

    fmt = str(table()["example_format"])
    ref = {"model": req.model} if req.model else {"params_b": req.params_b}
    try:
        r = estimate_speed(SpeedRequest(**ref, gpu=c.spec.id, precision=fmt, engine="llama.cpp"))
    except (AdvisorError, ValueError):
        return None, None
    device = device_for(c.spec)
    gbs = device.bandwidth_gbs if device is not None else c.spec.bandwidth_gbs
    tps = (r.decode_tokens_per_s or 0.0) * gbs / c.spec.bandwidth_gbs  # bandwidth-bound: one GPU of a board reads alone
    return round(tps, 1), note(
        "risk_fact_speed",
        model=r.model,
        precision=fmt.upper(),
        tps=tps,
        gbs=gbs,
        gpu=c.spec.name,
        gib=r.memory_per_gpu_gib,
    )


def _dedupe(notes: list[Note]) -> list[Note]:
    seen: set[str] = set()
    out = []
    for n in notes:
        if n.text not in seen:
            seen.add(n.text)
            out.append(n)
    return out
