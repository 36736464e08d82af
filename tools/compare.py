"""compare_gpus: 2-4 GPUs, or methods (full / LoRA / QLoRA), or precisions (FP8 / BF16 ...) for one workload.

Every row is computed by the calculators: memory per GPU and the GPU count by the one fit rule
(`estimate_vram(gpu=...)` -> `VramResult.fit`), speed on that count (`estimate_speed`), prices from the price
book, the link between GPUs and ECC from the catalog. The verdict follows the recommendation policy
(tools/advice.py): between cards, the fewest cards at a similar price, CUDA first for training, then speed
for the money; between ways of running one job, the highest-quality way on the fewest cards (the cheapest
way that works), where a near-lossless cheaper way (FP8, QLoRA) also leads when it is clearly faster.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, Field, model_validator

from tools import advice
from tools.advice import Persona
from tools.capacity import CapacityRequest, CapacityWay, largest_model
from tools.catalog import GpuSpec, LinkKind, catalog, resolve_gpu
from tools.compare_focus import Focus, bottleneck
from tools.errors import AdvisorError
from tools.models import resolve_model
from tools.notes import Note, note
from tools.precision import resolve_precision
from tools.prices import Currency, Market, PriceBook, load_prices, purchase_price, tco_defaults, used_purchase_price
from tools.sizing import GpuFit
from tools.speed import SpeedRequest, SpeedResult, estimate_speed
from tools.vram import VramRequest, VramResult, estimate_vram

Method = Literal["inference", "full", "lora", "qlora"]
Axis = Literal["gpus", "methods", "precisions", "cards"]
Basis = Literal["buy", "rent"]
MAX_ROWS = 8
# No GPU named: a row is sized on the smallest of these that holds it on one card (16, 24, 48 and 80 GB classes),
# else on as many of the last as it needs.
REFERENCE_GPUS = ("rtx-4060-ti-16gb", "rtx-4090", "rtx-a6000", "h100-sxm")
_METHOD_QUALITY = {"full": 0, "lora": 1, "qlora": 2, "inference": 0}
_MAX_OTHER_NOTES = 4
_NEAR_TIE_PCT = 10  # speeds this close (same memory, same count) make two options a near tie
_SHORT_CONTEXT = 4096  # one person's chat fits a shorter context before it takes more cards than a PC holds
_PROMPT_GAP = 3.0  # prompt processing this many times faster or slower is a difference a user feels
_TRAINING_GAP = 1.3  # another card this much faster at dense BF16 changes the advice for someone who fine-tunes
_MARGIN = 0.02  # a price or cost this close to another's is no difference worth a reason
_ROOM_TO_GROW = 1.25  # cards with no job weighed on memory when one holds this much more (8 vs 12 GB, 12 vs 16)


class CompareRequest(BaseModel):
    """What to compare (GPUs, methods or precisions) for one workload, and how to price it."""

    workload: VramRequest | None = Field(
        default=None,
        description="The job (model, mode, precision, context, batch...); its gpu and num_gpus are ignored, each "
        "row sets its own. Without it only the cards are compared (memory, bandwidth, price)",
    )
    gpus: list[str] = Field(
        default_factory=list,
        max_length=4,
        description="GPUs to compare, fuzzy ('4090', 'A100 80G', 'MI300X'); one GPU with methods or precisions; "
        "none: each row is sized on reference cards",
    )
    counts: dict[str, int] = Field(
        default_factory=dict,
        description="Cards per GPU the user has or proposes, keyed by a name in `gpus` ('2x 4090' -> {'4090': 2}); "
        "default: as many as the job needs",
    )
    methods: list[Method] = Field(
        default_factory=list, max_length=4, description="Compare these ways of running the job: full vs lora vs qlora"
    )
    precisions: list[str] = Field(
        default_factory=list, max_length=4, description="Compare these weight formats: fp8 vs bf16, awq vs q4_k_m"
    )
    currency: Currency = "USD"
    market: Market | None = Field(
        default=None, description="cn: China (Chinese GPU clouds, export controls); default cn for CNY, else global"
    )
    basis: Basis | None = Field(
        default=None,
        description="What the verdict's cost weighs: buying the cards or renting them (default: buy when every "
        "card has a purchase price, else rent)",
    )
    hours_per_month: float | None = Field(
        default=None, gt=0, le=744, description="Busy hours a month, for the monthly rent (default: half the month)"
    )
    training_tokens: float | None = Field(
        default=None, gt=0, le=1e13, description="Training: tokens in one run (dataset tokens x epochs), for its cost"
    )
    budget: float | None = Field(
        default=None,
        gt=0,
        description="Up-front budget for the cards, in `currency`: an option over it is never the pick while one "
        "within it fits (it is shown with how much it is over)",
    )
    preference: Literal["cheapest", "fastest", "balanced"] = "balanced"
    owned: list[str] = Field(
        default_factory=list,
        description="GPUs the user already has ('I have a 5090; would two 2080 Ti be better?'): one that does the job "
        "stays the pick unless another is clearly faster at the job's bottleneck",
    )
    persona: Persona | None = Field(
        default=None, description="individual, team or company: the price band in which fewer cards win"
    )
    also_trains: Method | None = Field(
        default=None,
        description="No workload given, but the user also fine-tunes: say how much faster a card trains "
        "(dense BF16 compute), not only how fast it decodes (bandwidth)",
    )
    focus: Focus | None = Field(
        default=None,
        description="The job's bottleneck the comparison leads with: decode (one user's generation: memory "
        "bandwidth), prefill (long prompts: compute), training (dense BF16 compute and memory) or serving (memory "
        "for the KV cache and batched throughput); default: training for a training workload, else decode",
    )
    method_open: bool = Field(
        default=False,
        description="The fine-tuning method was not named ('fine-tune 65B'): where LoRA does not fit every option "
        "at the counts named, every option is sized for QLoRA, the cheapest way that works",
    )
    sizes: bool = Field(
        default=True,
        description="No workload given: also the largest model each option runs (4-bit, 16-bit) or fine-tunes "
        "(QLoRA, LoRA), from largest_model",
    )

    @model_validator(mode="after")
    def _check(self) -> CompareRequest:
        if (self.methods or self.precisions) and self.workload is None:
            raise ValueError("comparing methods or precisions needs the workload: give workload.model (or params_b)")
        if not self.gpus and self.workload is None:
            raise ValueError("name 1-4 GPUs to compare, or give a workload with methods or precisions to compare")
        rows = max(1, len(self.gpus)) * max(1, len(self.methods)) * max(1, len(self.precisions))
        if rows > MAX_ROWS:
            raise ValueError(
                f"that is {rows} rows; compare at most {MAX_ROWS} at once (fewer GPUs, methods or formats)"
            )
        stray = [name for name in self.counts if name not in self.gpus]
        if stray:
            raise ValueError(f"counts name GPUs that are not in gpus: {', '.join(stray)}")
        if any(n < 1 or n > 512 for n in self.counts.values()):
            raise ValueError("counts must be between 1 and 512 GPUs")
        for p in self.precisions:
            resolve_precision(p)  # an unknown format fails here, with the accepted names
        return self


class CompareRow(BaseModel):
    """One option: a GPU (x count) running the job one way, every figure computed."""

    label: str = Field(description="e.g. '2 x NVIDIA H100 SXM5 80GB', 'lora on 1 x NVIDIA GeForce RTX 4090'")
    gpu: str
    gpu_id: str
    mode: str | None = Field(description="inference, full, lora or qlora; None when no workload was given")
    precision: str | None = Field(description="Weight format the row runs in")
    count_asked: int | None = Field(description="Cards the user named for this GPU")
    context_tokens: int | None = Field(default=None, description="Tokens per sequence (training: sequence length)")
    batch: int | None = Field(default=None, description="Concurrent sequences, or the micro-batch in training")
    count: int | None = Field(
        description="Cards the speed and cost are for: the count asked when it fits, else the fewest that fit; "
        "None: it fits on no number of these cards"
    )
    fit: GpuFit | None = Field(description="The one fit rule (estimate_vram with gpu=) on count_asked, or on one")
    memory_per_gpu_gib: float | None = Field(description="Memory per GPU on `count`")
    headroom_gib: float | None = Field(description="Usable memory per GPU left over on `count`")
    vram_gib: float
    memory_type: str
    bandwidth_gbs: float
    bf16_tflops: float | None
    fp8_tflops: float | None
    tokens_per_s: float | None = Field(description="Decode tokens/s of all sequences, or training tokens/s, on count")
    tokens_per_s_per_user: float | None = Field(description="Inference: decode tokens/s of one sequence")
    speed_bound: str | None = None
    layer_split: bool = Field(
        default=False, description="Inference on several cards split by layers (one after another): one card's pace"
    )
    prefill_tokens_per_s: float | None = Field(
        default=None, description="Inference: prompt processing speed (sets the wait before the first token)"
    )
    ttft_s: float | None = Field(default=None, description="Inference: time to first token for a full-context prompt")
    run_hours: float | None = Field(default=None, description="Training: hours for training_tokens")
    price_each: float | None = Field(description="Purchase price per card (new street price, else used market)")
    price_basis: str | None = None
    price_used: bool = Field(default=False, description="The price is a used-market one (discontinued or unofficial)")
    cards_cost: float | None = Field(description="price_each x count")
    over_budget_by: float | None = Field(default=None, description="cards_cost - budget, when over the budget")
    rent_per_gpu_hour: float | None = None
    rent_per_hour: float | None = Field(description="All `count` GPUs, median on-demand")
    rent_per_month: float | None = Field(description="rent_per_hour x hours_per_month")
    cost_per_1m_tokens: float | None = Field(
        description="Rent per hour / tokens per hour x 1M (decode tokens at the stated concurrency, or training tokens)"
    )
    run_cost: float | None = Field(default=None, description="Training: rented cost of training_tokens")
    link_kind: LinkKind
    link_gbs: float | None
    ecc: bool | None
    compute_tflops: float | None = Field(
        default=None, description="Dense BF16 tensor TFLOPS of all `count` cards (FP16, else FP32, where no BF16)"
    )
    weighed: float | None = Field(
        default=None,
        description="What the verdict weighs for this row when it is not decode speed: compute (training, "
        "prefill), prompt tokens/s (prefill), or all cards' bandwidth (serving)",
    )
    sizes: list[CapacityWay] = Field(
        default_factory=list,
        description="No workload: the largest model this option runs or fine-tunes, per way (largest_model)",
    )
    notes: list[Note] = Field(default_factory=list, description="What to know about this option")
    error: str | None = Field(default=None, description="Why this row could not be computed")


class OtherRow(BaseModel):
    """A row the verdict did not pick, and how it differs from the pick."""

    index: int
    label: str
    notes: list[Note]


class CompareVerdict(BaseModel):
    bottleneck: Note | None = Field(
        default=None, description="The options side by side on the job's bottleneck: the sentence that leads"
    )
    pick: int | None = Field(description="Index of the row to pick; None when nothing fits")
    label: str | None
    gpu: str | None = Field(default=None, description="The picked row's GPU")
    gpu_id: str | None = None
    reasons: list[Note]
    others: list[OtherRow]
    order: list[int] = Field(description="Rows best first (rows that could not be computed or fit nowhere last)")


class CompareResult(BaseModel):
    axis: Axis = Field(description="What varies between rows: gpus, methods, precisions, or cards (no workload)")
    focus: Focus = Field(default="decode", description="The bottleneck the verdict weighs")
    model: str | None
    mode: str | None = Field(description="The workload's mode (rows may differ on the methods axis)")
    context_tokens: int | None
    batch: int | None
    currency: Currency
    market: Market
    basis: Basis
    hours_per_month: float
    rows: list[CompareRow]
    verdict: CompareVerdict
    assumptions: list[Note]
    warnings: list[Note]


# ---- the rows -----------------------------------------------------------------------------------------------


@dataclass
class _Job:
    """What every row of one request shares."""

    req: CompareRequest
    book: PriceBook
    market: Market
    hours: float
    personal: bool
    notes: list[Note]  # assumptions the rows added (defaults taken)
    focus: Focus = "decode"
    fitted: dict | None = None  # the workload change that makes every option fit as named (format or method)


@dataclass
class _Target:
    gpu: GpuSpec | None  # None: the reference cards
    asked: int | None


@dataclass
class _Variant:
    method: Method | None
    precision: str | None


def _axis(req: CompareRequest) -> Axis:
    if req.workload is None:
        return "cards"
    if len(req.gpus) > 1 or not (req.methods or req.precisions):
        return "gpus"
    return "methods" if len(req.methods) > 1 or not req.precisions else "precisions"


def _targets(req: CompareRequest) -> list[_Target]:
    if not req.gpus:
        return [_Target(None, None)]
    counts = {resolve_gpu(name)[0].id: n for name, n in req.counts.items()}
    out: list[_Target] = []
    for name in req.gpus:
        gpu = resolve_gpu(name)[0]
        if all(t.gpu is None or t.gpu.id != gpu.id for t in out):
            # "M4 Max 128G 和 双3090": a Mac is one machine, so when the other options are counted it is counted
            # as one too and every option is sized as the user named it (no count: as many as the job needs)
            whole = counts and gpu.vendor == "apple"
            out.append(_Target(gpu, counts.get(gpu.id) or (1 if whole else None)))
    return out


def _personal(req: CompareRequest, targets: list[_Target]) -> bool:
    """One person's local use: no datacenter card named, one or two sequences, no team or company."""
    w = req.workload
    datacenter = any(t.gpu is not None and t.gpu.segment == "datacenter" for t in targets)
    return req.persona in (None, "individual") and w is not None and w.batch <= 2 and not datacenter


def _method_takes(method: str, precision: str) -> bool:
    kind = resolve_precision(precision).kind
    if method in ("full", "lora"):
        return kind == "float"
    return kind == "int" if method == "qlora" else True


def _variant_workload(job: _Job, v: _Variant) -> VramRequest:
    """The workload as this row runs it: its method and format, with the defaults an expert assumes."""
    w = job.req.workload
    assert w is not None
    update: dict = {"gpu": None, "tp": None, "pp": 1, "num_gpus": 1}
    mode = v.method or w.mode
    if v.method:
        update["mode"] = v.method
        if w.precision and not v.precision and not _method_takes(v.method, w.precision):
            update["precision"] = None  # QLoRA's 4-bit base is no format for LoRA, and the other way round
    if "context_tokens" not in w.model_fields_set:  # not stated: a training sequence, a chat, or a served conversation
        update["context_tokens"] = advice.default_context(mode, personal=job.personal)
    if mode != "inference" and "grad_checkpointing" not in w.model_fields_set:
        update["grad_checkpointing"] = True  # what fine-tuning recipes turn on (the answer states it)
    if v.precision:
        update["precision"] = v.precision
    if job.fitted and not (v.method or v.precision):
        update.update(job.fitted)
        mode = update.get("mode", mode)
    if mode == "inference" and update.get("precision", w.precision) is None:
        key = "personal_inference" if job.personal else "serving"
        update["precision"] = advice.policy()["default_precision"][key]
        native = _native_precision(w) if key == "serving" else None
        if native is not None:
            # the publisher's own weights (DeepSeek-V3's FP8): upcasting them to bf16 doubles the cards for nothing,
            # and the sizing elsewhere in the answer uses the native format
            key, update["precision"] = "native", native
        job.notes.append(note(f"default_precision_{key}", precision=update["precision"]))
    return w.model_copy(update=update)


def _native_precision(w: VramRequest) -> str | None:
    """The format a registry model's weights are published in when it is not 16-bit (fp8), else None."""
    if not w.model:
        return None
    try:
        arch, _ = resolve_model(w.model)
    except (AdvisorError, ValueError):
        return None
    return arch.native_precision


def _on_reference(vw: VramRequest) -> tuple[GpuSpec, VramResult]:
    """The smallest reference card that holds the job on one card, else the largest one (with its count)."""
    found: tuple[GpuSpec, VramResult] | None = None
    for gid in REFERENCE_GPUS:
        found = catalog()[gid], estimate_vram(vw.model_copy(update={"gpu": gid, "num_gpus": 1}))
        if found[1].fit is not None and found[1].fit.fits:
            break
    assert found is not None
    return found


def _count(fit: GpuFit, asked: int | None, gpu: GpuSpec) -> int | None:
    """The count asked when it fits, else the fewest that fit (one chip cannot be combined with another)."""
    count = fit.num_gpus if asked and fit.fits else fit.gpus_needed
    if count and count > 1 and gpu.link_kind == "none":
        return None
    return count


def _speed(job: _Job, vw: VramRequest, v: VramResult, gpu: GpuSpec, count: int) -> SpeedResult | None:
    ref = vw.model_dump(include={"model", "params_b", "config_path", "arch"}, exclude_none=True)
    shared = dict(
        ref, gpu=gpu.id, num_gpus=count, precision=v.precision, context_tokens=vw.context_tokens, batch=vw.batch
    )
    try:
        if vw.mode == "inference":
            return estimate_speed(SpeedRequest(**shared, kv_dtype=vw.kv_dtype))
        return estimate_speed(
            SpeedRequest(
                **shared,
                mode="training",
                method=vw.mode,
                grad_checkpointing=vw.grad_checkpointing,
                training_tokens=job.req.training_tokens,
            )
        )
    except (AdvisorError, ValueError):
        return None


def _card_fields(job: _Job, gpu: GpuSpec, count: int | None) -> dict:
    """Catalog facts and prices of `count` cards (one when the count is unknown)."""
    n = count or 1
    cur = job.req.currency
    bought = purchase_price(gpu, cur, job.book)
    used = None if bought else used_purchase_price(gpu, cur, job.book)
    price, basis = bought or used or (None, None)
    rent = job.book.typical(gpu, "on_demand", cur, market=job.market)
    hourly = rent[0] * n if rent else None
    return dict(
        gpu=gpu.name,
        gpu_id=gpu.id,
        vram_gib=gpu.usable_memory_gib,
        memory_type=gpu.memory_type,
        bandwidth_gbs=gpu.bandwidth_gbs,
        bf16_tflops=gpu.bf16_tflops,
        fp8_tflops=gpu.fp8_fp32acc_tflops or gpu.fp8_tflops,
        price_each=round(price, 2) if price else None,
        price_basis=basis,
        price_used=bool(used) or gpu.discontinued,
        cards_cost=round(price * n, 2) if price else None,
        over_budget_by=_over(job, price * n if price else None),
        rent_per_gpu_hour=round(rent[0], 4) if rent else None,
        rent_per_hour=round(hourly, 4) if hourly else None,
        rent_per_month=round(hourly * job.hours, 2) if hourly else None,
        link_kind=gpu.link_kind,
        link_gbs=gpu.link_gbs,
        ecc=gpu.ecc,
        compute_tflops=round(_card_tflops(gpu) * n, 1) if _card_tflops(gpu) else None,
    )


def _card_tflops(gpu: GpuSpec) -> float | None:
    """Dense tensor TFLOPS a training run uses: BF16, else FP16 (Volta, Turing), else FP32 (older, Apple)."""
    return gpu.bf16_tflops or gpu.fp16_fp32acc_tflops or gpu.fp16_tflops or gpu.fp32_tflops


def _over(job: _Job, cost: float | None) -> float | None:
    budget = job.req.budget
    return round(cost - budget, 2) if budget is not None and cost is not None and cost > budget + 1e-9 else None


def _speed_fields(job: _Job, speed: SpeedResult | None, rent_per_hour: float | None) -> dict:
    if speed is None:
        return dict(tokens_per_s=None, tokens_per_s_per_user=None, cost_per_1m_tokens=None)
    training = speed.training_tokens_per_s is not None
    tps = speed.training_tokens_per_s if training else speed.decode_tokens_per_s_total
    per_1m = rent_per_hour / (tps * 3600) * 1e6 if rent_per_hour and tps else None
    hours = speed.time_to_train_hours
    return dict(
        tokens_per_s=tps,
        tokens_per_s_per_user=None if training else speed.decode_tokens_per_s,
        speed_bound=speed.bound,
        layer_split=not training and speed.parallel == "pipeline" and speed.num_gpus > 1,
        prefill_tokens_per_s=None if training else speed.prefill_tokens_per_s,
        ttft_s=None if training else speed.ttft_s,
        cost_per_1m_tokens=round(per_1m, 4) if per_1m else None,
        run_hours=hours,
        run_cost=round(hours * rent_per_hour, 2) if hours and rent_per_hour else None,
    )


def _label(gpu: GpuSpec, count: int | None, v: _Variant, vw: VramRequest | None) -> str:
    cards = f"{count or 1} x {gpu.name}"
    if v.method or v.precision:
        way = " ".join(x for x in (v.method, v.precision or (vw.precision if vw else None)) if x)
        return f"{way} on {cards}"
    return cards


def _row(job: _Job, t: _Target, v: _Variant) -> CompareRow:
    """One option, computed; an estimate that fails (an impossible format for a method) is a row with an error."""
    gpu = t.gpu or catalog()[REFERENCE_GPUS[0]]
    vw = None
    try:
        vw = _variant_workload(job, v)
        return _sized_row(job, t, v, vw)
    except (AdvisorError, ValueError) as exc:
        mode = v.method or (job.req.workload.mode if job.req.workload else None)
        return CompareRow(
            label=_label(gpu, t.asked, v, vw),
            mode=mode,
            precision=v.precision,
            count_asked=t.asked,
            count=None,
            fit=None,
            memory_per_gpu_gib=None,
            headroom_gib=None,
            tokens_per_s=None,
            tokens_per_s_per_user=None,
            cost_per_1m_tokens=None,
            error=str(exc),
            **_card_fields(job, gpu, t.asked),
        )


_SERVER_GPUS = 8  # GPUs in one server (the 8-GPU HGX / PCIe box every sizing in the answers assumes)


def _home_limit(job: _Job) -> int | None:
    """One person's PC takes this many cards (advice.yaml personas.individual.max_gpus); None: no limit."""
    return advice.persona_rules("individual").max_gpus if job.personal else None


def _shorter_for_home(job: _Job, t: _Target, vw: VramRequest, count: int | None) -> VramRequest | None:
    """One person's chat at the default context that needs more cards than a home PC takes: the cheapest
    way that works is a shorter context (advice.md §5), when the context was not stated."""
    # "一张4090还是两张3090" for a 72B at 4-bit: the count the user named is the limit (a shorter context that lets
    # it hold the model beats sizing more cards than they proposed)
    limit = t.asked or _home_limit(job)
    stated = "context_tokens" in (job.req.workload.model_fields_set if job.req.workload else set())
    if limit is None or stated or t.gpu is None or count is None or count <= limit:
        return None
    if vw.mode != "inference" or vw.context_tokens <= _SHORT_CONTEXT:
        return None
    return vw.model_copy(update={"context_tokens": _SHORT_CONTEXT})


def _sized_row(job: _Job, t: _Target, v: _Variant, vw: VramRequest) -> CompareRow:
    if t.gpu is not None:
        gpu, est = t.gpu, estimate_vram(vw.model_copy(update={"gpu": t.gpu.id, "num_gpus": t.asked or 1}))
    else:
        gpu, est = _on_reference(vw)
    fit = est.fit
    assert fit is not None  # estimate_vram sizes for the GPU it is given
    count = _count(fit, t.asked, gpu)
    shorter = _shorter_for_home(job, t, vw, count)
    if shorter is not None:
        short_est = estimate_vram(shorter.model_copy(update={"gpu": gpu.id, "num_gpus": t.asked or 1}))
        assert short_est.fit is not None
        short_count = _count(short_est.fit, t.asked, gpu)
        if short_count is not None and short_count < (count or 0):
            vw, est, fit, count = shorter, short_est, short_est.fit, short_count
            job.notes.append(note("cmp_shorter_context_home", gpu=gpu.name, tokens=_SHORT_CONTEXT, count=count))
    per_gpu = None if count is None else (fit.per_gpu_gib if count == fit.num_gpus else fit.per_gpu_gib_needed)
    card = _card_fields(job, gpu, count)
    speed = _speed(job, vw, est, gpu, count) if count else None
    row = CompareRow(
        label=_label(gpu, count or t.asked, v, vw),
        mode=vw.mode,
        precision=est.precision,
        context_tokens=vw.context_tokens,
        batch=vw.batch,
        count_asked=t.asked,
        count=count,
        fit=fit,
        memory_per_gpu_gib=per_gpu,
        headroom_gib=round(fit.usable_gib_per_gpu - per_gpu, 2) if per_gpu is not None else None,
        **card,
        **_speed_fields(job, speed, card["rent_per_hour"]),
    )
    row.notes = _caveats(job, row, gpu, est, speed) + _sharded(vw, gpu, row)
    return row


def _sharded(vw: VramRequest, gpu: GpuSpec, row: CompareRow) -> list[Note]:
    """A fine-tune that fits several cards only because the weights are spread over them: plain data parallel
    (DDP, the default of most training scripts) keeps a whole copy on every card and does not fit."""
    if vw.mode == "inference" or (row.count or 1) < 2 or row.fit is None:
        return []
    try:
        one = estimate_vram(vw.model_copy(update={"gpu": gpu.id, "num_gpus": 1})).per_gpu_gib
    except (AdvisorError, ValueError):
        return []
    if one <= row.fit.usable_gib_per_gpu:
        return []
    return [note("cmp_sharded_training", count=row.count or 2, one=one, usable=row.fit.usable_gib_per_gpu)]


def _caveats(job: _Job, row: CompareRow, gpu: GpuSpec, est: VramResult, speed: SpeedResult | None) -> list[Note]:
    """What to know about this option before choosing it."""
    out: list[Note] = []
    fit = row.fit
    if fit is not None and row.count_asked and not fit.fits:
        if fit.gpus_needed is None:  # no count holds it (e.g. heads that do not divide): say so, not "needs None"
            out.append(note("cmp_not_fits_asked_none", count=row.count_asked, gpu=gpu.name))
        else:
            out.append(note("cmp_not_fits_asked", count=row.count_asked, gpu=gpu.name, needed=fit.gpus_needed))
    if row.count is None and gpu.link_kind == "none" and fit is not None and not fit.fits:  # a Mac does not pool
        out.append(note("cmp_one_chip", gpu=gpu.name))
    if est.precision == "fp8" and not row.fp8_tflops:
        out.append(note("cmp_no_fp8", gpu=gpu.name))
    out += _kernel_notes(row, gpu)
    out += _platform_notes(job, row, gpu)
    if (row.count or 0) > 1 and gpu.link_kind == "pcie":
        out.append(note("pcie_only_multi_gpu", count=row.count))
    limit = _home_limit(job)
    if limit is not None and (row.count or 0) > limit and not row.count_asked:
        out.append(note("cmp_over_home_limit", count=row.count or 0, limit=limit))
    return out


def _kernel_notes(row: CompareRow, gpu: GpuSpec) -> list[Note]:
    """A 4-bit GPU format on a card older than Ampere runs on slower kernels (no Marlin): why two cards with
    similar bandwidth can differ several times in practice (check_support's vLLM rule for the format)."""
    if row.mode != "inference" or row.precision not in ("gptq", "awq") or gpu.vendor != "nvidia":
        return []
    from tools.support import SupportRequest, check_support

    try:
        r = check_support(SupportRequest(engine="vllm", gpu=gpu.id, precision=row.precision))
    except (AdvisorError, ValueError):
        return []
    slow = [n for n in r.why if n.code in ("sup_gptq_plain", "sup_awq_turing")]
    return slow or ([r.why[0]] if r.verdict == "no" and r.why else [])


def _platform_notes(job: _Job, row: CompareRow, gpu: GpuSpec) -> list[Note]:
    """The platform, the card's provenance and where it can be bought."""
    out: list[Note] = []
    if gpu.vendor == "amd":
        out.append(note("rocm_inference" if row.mode in (None, "inference") else "rocm_training"))
    if gpu.vendor == "apple":
        out.append(note("apple_inference"))
    if gpu.unofficial:
        out.append(note("unofficial_card"))
    if job.market == "cn" and gpu.cn_availability == "export_controlled":
        out.append(note("cmp_not_sold_new_cn", gpu=gpu.name))
    if row.price_used and row.price_each:
        out += [note("cmp_used_price", gpu=gpu.name), note("used_card_checks")]
    return out


def _card_row(job: _Job, t: _Target) -> CompareRow:
    """A card with no workload: its facts and prices only."""
    assert t.gpu is not None
    g = t.gpu
    row = CompareRow(
        label=f"{t.asked or 1} x {g.name}",
        mode=None,
        precision=None,
        count_asked=t.asked,
        count=t.asked or 1,
        fit=None,
        memory_per_gpu_gib=None,
        headroom_gib=None,
        tokens_per_s=None,
        tokens_per_s_per_user=None,
        cost_per_1m_tokens=None,
        **_card_fields(job, g, t.asked or 1),
    )
    row.notes = _platform_notes(job, row, g)
    if job.req.sizes:
        row.sizes = _sizes(job, g, t.asked or 1)
    return row


def _sizes(job: _Job, gpu: GpuSpec, count: int) -> list[CapacityWay]:
    """The largest model these cards fine-tune (training) or run (otherwise), from largest_model: two ways."""
    mode = "finetune" if job.focus == "training" else "inference"
    try:
        ways = largest_model(CapacityRequest(gpu=gpu.id, num_gpus=count, mode=mode, with_finetune=False)).ways
    except (AdvisorError, ValueError):
        return []
    for way in ways:
        way.examples = way.examples[:1]
    return [w for w in ways if w.max_params_b][:2]


# ---- the verdict --------------------------------------------------------------------------------------------


def _basis(req: CompareRequest, rows: list[CompareRow]) -> Basis:
    """Buy, unless renting is what is asked, a card has no purchase price, or the job is a training run (a run is
    priced in GPU-hours: a faster card at a higher rent can cost less per run)."""
    if req.basis:
        return req.basis
    live = [r for r in rows if r.error is None]
    rentable = all(r.rent_per_hour for r in live)
    training = any(r.mode not in (None, "inference") for r in live)
    if rentable and (training or not all(r.price_each for r in live)):
        return "rent"
    return "buy"


def _cost(r: CompareRow, basis: Basis) -> float:
    value = r.cards_cost if basis == "buy" else r.rent_per_hour
    return value if value else math.inf  # no price: never the value pick on price


def _speed_of(r: CompareRow, axis: Axis) -> float | None:
    """What the verdict weighs: the focus's figure when set (compute, prompt tokens/s), else tokens/s, or memory
    bandwidth when no workload was given (decode speed follows it)."""
    if r.weighed is not None:
        return r.weighed
    return r.bandwidth_gbs if axis == "cards" else r.tokens_per_s


def _weigh(rows: list[CompareRow], axis: Axis, focus: Focus) -> None:
    """Set each row's weighed figure for the job's bottleneck (advice.md §9): training and long prompts are
    compute-bound, serving wants every card's bandwidth, one user's decode the bandwidth (the default)."""
    for r in rows:
        if axis == "cards" and focus in ("training", "prefill"):
            r.weighed = r.compute_tflops
        elif axis == "cards" and focus == "serving":
            r.weighed = r.bandwidth_gbs * (r.count or 1)
        elif axis == "cards" and focus == "memory":
            r.weighed = r.vram_gib * (r.count or 1)
        elif axis == "gpus" and focus == "prefill" and r.prefill_tokens_per_s:
            r.weighed = r.prefill_tokens_per_s


def _quality(r: CompareRow) -> tuple[int, float]:
    """Higher-quality ways first: full before LoRA before QLoRA, more bits per weight first."""
    bits = resolve_precision(r.precision).bits if r.precision else 16
    return _METHOD_QUALITY.get(r.mode or "inference", 0), -bits


def _family(r: CompareRow) -> str | None:
    """The cheaper way a row is, in advice.yaml's terms (may_lead): qlora, fp8 or a 4-bit format (awq)."""
    if r.mode == "qlora":
        return "qlora"
    if r.precision is None:
        return None
    p = resolve_precision(r.precision)
    return "fp8" if p.kind == "float8" else ("awq" if p.bits <= 5 else None)


def _brim(r: CompareRow) -> bool:
    """Fills its cards past advice.yaml brim_share of the usable memory."""
    if r.fit is None or r.memory_per_gpu_gib is None:
        return False
    return r.memory_per_gpu_gib > advice.brim_share() * r.fit.usable_gib_per_gpu


def _ecosystem(r: CompareRow, training: bool) -> int:
    gpu = catalog().get(r.gpu_id)
    return advice.ecosystem_rank(gpu, training) if gpu else 1


def _rank_cards(job: _Job, rows: list[CompareRow], live: list[int], axis: Axis, basis: Basis) -> list[int]:
    """Between cards: the policy's ranking (advice.rank), rows given in quality order so ties keep quality."""
    # a training job, sized or only named as the focus ("which is better to train this on?")
    training = job.focus == "training" or any(rows[i].mode not in (None, "inference") for i in live)
    persona: Persona = job.req.persona or advice.persona_from_budget(None, job.req.currency)
    ranked = advice.rank(
        (
            advice.Ranked(
                key=str(i),
                count=rows[i].count or 1,
                cost=_cost(rows[i], basis),
                tokens_per_s=_speed_of(rows[i], axis),
                per_user_tokens_per_s=rows[i].tokens_per_s_per_user,
                ecosystem=_ecosystem(rows[i], training),
                training=training,
                brim=_brim(rows[i]),
            )
            for i in sorted(live, key=lambda i: _quality(rows[i]))
        ),
        job.req.preference,
        persona,
    )
    return [int(k) for k in ranked]


def _rank_ways(job: _Job, rows: list[CompareRow], live: list[int]) -> list[int]:
    """Between ways of running one job: the cheapest way that works (advice.md §5). The highest-quality way
    leads; a cheaper way takes the lead when it needs fewer cards, or, where the policy lets it lead (FP8,
    QLoRA, 4-bit for one person), when it is clearly faster on as many cards."""
    by_quality = sorted(live, key=lambda i: (_quality(rows[i]), rows[i].count or 0))
    lead = by_quality[0]
    for i in by_quality[1:]:
        r, best = rows[i], rows[lead]
        leaders = advice.may_lead(best.mode or "inference", job.personal)
        fewer = (r.count or 0) < (best.count or 0)
        faster = (r.tokens_per_s or 0) >= (best.tokens_per_s or 0) * advice.faster_margin()
        # Speed buys nothing once the better way already feels fast (per user, or per run for training).
        slow = best.mode not in (None, "inference") or (
            (best.tokens_per_s_per_user or 0) < advice.comfortable_tokens_per_s()
        )
        faster = faster and slow
        if fewer or (r.count == best.count and _family(r) in leaders and faster):
            lead = i
    return [lead, *sorted((i for i in live if i != lead), key=lambda i: (rows[i].count or 0, _quality(rows[i])))]


def _within(job: _Job, r: CompareRow) -> bool:
    budget = job.req.budget
    return budget is None or (r.cards_cost is not None and r.cards_cost <= budget + 1e-9)


def _support_ended(r: CompareRow) -> bool:
    """A card no current driver, CUDA or engine build supports (Kepler: K80): whatever it costs, it is no pick."""
    from tools.card_risk import generation_of

    gpu = catalog().get(r.gpu_id)
    row = generation_of(gpu) if gpu is not None else None
    return row is not None and row.get("support") == "ended"


def _order(job: _Job, rows: list[CompareRow], axis: Axis, basis: Basis) -> list[int]:
    """Rows best first: those within the budget ranked by the policy, then those over it, the least over first;
    a rig bigger than a home PC takes comes last for one person; a card out of support goes after every card
    current software runs on (a $40 K80 is cheap because nothing current runs on it)."""
    live = [i for i, r in enumerate(rows) if r.error is None and r.count is not None]
    ended = [i for i in live if _support_ended(rows[i])]
    if ended and len(ended) < len(live):
        return [*_order_among(job, rows, [i for i in live if i not in ended], axis, basis), *ended]
    return _order_among(job, rows, live, axis, basis)


def _order_among(job: _Job, rows: list[CompareRow], live: list[int], axis: Axis, basis: Basis) -> list[int]:
    short = [i for i in live if _short_as_named(rows[i])]
    if short and len(short) < len(live) and not _serves_several(job):  # serving: more cards buy room for users
        # "one 5090 or two 3090s for a 70B": a setup that does not hold the job at the count proposed is no pick
        # while another does (sizing it bigger than proposed is another purchase); it goes last, said why
        return [*_order_among(job, rows, [i for i in live if i not in short], axis, basis), *short]
    limit = _home_limit(job)
    too_big = [i for i in live if limit is not None and (rows[i].count or 0) > limit and not rows[i].count_asked]
    if too_big and len(too_big) < len(live):
        return [*_order_live(job, rows, [i for i in live if i not in too_big], axis, basis), *too_big]
    # A job that spans several servers on one card and fewer on another: the more servers, the more inter-node
    # network, parallelism and failure points (64 x 4090 over 8 PCIe boxes for DeepSeek-V3 is no pick against
    # 2 H100 servers), so the card that needs more servers goes after it whatever its price. Counts the user named
    # stay where the policy ranks them.
    servers = {i: -(-(rows[i].count or 0) // _SERVER_GPUS) for i in live}
    fewest = min(servers.values(), default=1)
    sprawl = [i for i in live if servers[i] > max(1, fewest) and not rows[i].count_asked]
    if sprawl and len(sprawl) < len(live):
        rest = _order_live(job, rows, [i for i in live if i not in sprawl], axis, basis)
        return [*rest, *sorted(sprawl, key=lambda i: servers[i])]
    return _order_live(job, rows, live, axis, basis)


def _order_live(job: _Job, rows: list[CompareRow], live: list[int], axis: Axis, basis: Basis) -> list[int]:
    within = [i for i in live if _within(job, rows[i])]
    over = sorted((i for i in live if i not in within), key=lambda i: rows[i].over_budget_by or math.inf)
    if not within:
        return over
    if axis in ("methods", "precisions"):
        return [*_rank_ways(job, rows, within), *over]
    return [*_rank_cards(job, rows, within, axis, basis), *over]


def _pct(a: float | None, b: float | None) -> float | None:
    """How much bigger a is than b, in per cent (None when either is unknown)."""
    return (a / b - 1) * 100 if a and b else None


def _fit_reason(p: CompareRow) -> Note | None:
    if p.memory_per_gpu_gib is None or p.fit is None:
        return None
    shared = dict(gpu=p.gpu, need=p.memory_per_gpu_gib, usable=p.fit.usable_gib_per_gpu)
    return note("fits_one_card", **shared) if p.count == 1 else note("fits_on", count=p.count, **shared)


def _quality_reason(p: CompareRow) -> Note:
    if p.mode in ("full", "lora", "qlora"):
        return note(f"cmp_quality_{p.mode}")
    family = _family(p)
    if family == "fp8":
        return note("cmp_quality_fp8")
    if p.precision and resolve_precision(p.precision).kind != "float":
        return note("cmp_quality_quantized", precision=p.precision)
    return note("cmp_quality_16bit", precision=p.precision or "bf16")


def _value(r: CompareRow, axis: Axis, basis: Basis) -> float:
    """Money per unit of speed (lower is better); unknown price or speed: none."""
    speed = _speed_of(r, axis)
    return _cost(r, basis) / speed if speed else math.inf


def _superlatives(job: _Job, rows: list[CompareRow], order: list[int], axis: Axis, basis: Basis) -> list[Note]:
    """Where the pick is the best of the options that fit: speed, price, price per token, room."""
    p, others = rows[order[0]], [rows[i] for i in order[1:]]
    if not others:
        return []
    out: list[Note] = []
    best_other = max(others, key=lambda r: _speed_of(r, axis) or 0)
    ahead = _pct(_speed_of(p, axis), _speed_of(best_other, axis))
    if ahead is not None and ahead >= 5 and job.focus != "memory":  # memory weighed: cmp_cards_most_memory says it
        key = "cmp_cards_fastest" if axis == "cards" else ("cmp_fastest_times" if ahead >= 100 else "cmp_fastest")
        if axis == "cards" and job.focus in ("training", "prefill"):
            key = "cmp_cards_fastest_compute"
        out.append(
            note(
                key,
                tps=p.tokens_per_s or 0,
                bw=p.bandwidth_gbs,
                pct=ahead,
                times=ahead / 100 + 1,
                tflops=p.weighed or 0,
            )
        )
    if _cost(p, basis) < min(_cost(r, basis) for r in others) * (1 - _MARGIN):
        cost = p.cards_cost if basis == "buy" else p.rent_per_hour
        out.append(note(f"cmp_cheapest_{basis}", cost=cost, currency=job.req.currency))
    elif not out and _value(p, axis, basis) < min(_value(r, axis, basis) for r in others) * (1 - _MARGIN):
        out.append(note("cmp_cards_value" if axis == "cards" else "cmp_best_value"))
    per_token = [r.cost_per_1m_tokens for r in others if r.cost_per_1m_tokens]
    if p.cost_per_1m_tokens and per_token and p.cost_per_1m_tokens < min(per_token) * (1 - _MARGIN):
        out.append(note("cmp_cheapest_per_token", cost=p.cost_per_1m_tokens, currency=job.req.currency))
    if axis == "cards" and p.vram_gib > max(r.vram_gib for r in others):
        out.append(note("cmp_cards_most_memory", gib=p.vram_gib))
    room = [r.headroom_gib for r in others if r.headroom_gib is not None]
    if axis == "gpus" and p.headroom_gib is not None and room and p.headroom_gib >= max(room) + 4:
        out.append(note("cmp_most_headroom", gib=p.headroom_gib))
    return out


def _near_tie(p: CompareRow, nxt: CompareRow | None, axis: Axis) -> Note | None:
    """Two cards that do the job about equally well: say so first, the price decides."""
    if nxt is None or axis not in ("gpus", "cards") or p.count != nxt.count or abs(p.vram_gib - nxt.vram_gib) >= 1:
        return None
    gap = _pct(_speed_of(p, axis), _speed_of(nxt, axis))
    if gap is None or abs(gap) >= _NEAR_TIE_PCT:
        return None
    return note("cmp_near_tie", pct=max(1.0, round(abs(gap))))


def _all_fit(rows: list[CompareRow], order: list[int], axis: Axis) -> Note | None:
    """When every card does the job ("is X enough or do I need Y?"), say so before why one is better."""
    live = [rows[i] for i in order]
    if axis != "gpus" or len(live) < 2 or len(live) < len(rows):
        return None
    return note("cmp_all_fit") if all(r.fit is not None and r.fit.fits for r in live) else None


def _budget_reason(job: _Job, p: CompareRow) -> Note | None:
    budget, cur = job.req.budget, job.req.currency
    if budget is None or p.cards_cost is None:
        return None
    if p.over_budget_by:
        return note("cmp_all_over_budget", budget=budget, amount=p.over_budget_by, currency=cur)
    return note("within_budget_gpus", spend=p.cards_cost, budget=budget, currency=cur)


def _vendor(r: CompareRow) -> str | None:
    gpu = catalog().get(r.gpu_id)
    return gpu.vendor if gpu else None


def _switch_gain(job: _Job, own: CompareRow, others: list[CompareRow]) -> Note | None:
    """ "I have a 3060; would a 4090 be worth it for Qwen2.5-14B?": the owned card stays the pick while it does the
    job (it costs nothing more), but when another card that holds the job is clearly faster (`_SWITCH_GAIN`), what
    the switch buys (x speed, more memory) and its price is the verdict's other half: the user's need decides."""
    fast = [
        r
        for r in others
        if r.count and r.tokens_per_s and own.tokens_per_s and r.tokens_per_s >= own.tokens_per_s * _SWITCH_GAIN
    ]
    if not fast or own.mode not in (None, "inference"):
        return None
    r = max(fast, key=lambda x: x.tokens_per_s or 0.0)
    own_tps, r_tps = own.tokens_per_s or 0.0, r.tokens_per_s or 0.0
    more = max(0.0, r.vram_gib * (r.count or 1) - own.vram_gib * (own.count or 1))
    return note(
        "cmp_owned_switch_gain" if r.cards_cost else "cmp_owned_switch_gain_unpriced",
        gpu=r.gpu if r.count == 1 else f"{r.count} × {r.gpu}",
        owned=own.gpu,
        times=r_tps / own_tps,
        fast=r_tps,
        own=own_tps,
        more=more,
        cost=r.cards_cost or 0.0,
        currency=job.req.currency,
    )


_MAC_ROOM = 2.0  # a smaller Mac of the same chip is enough when it holds twice the job (room for longer context)


def _more_than_needed(job: _Job, p: CompareRow) -> Note | None:
    """ "I have an M1 Air; should I get a maxed-out M3 Max 128GB?": a Mac's memory is fixed at purchase and priced
    by the configuration, so when the pick holds the job many times over, the smallest configuration of the same
    chip that holds it twice over is named: the extra memory pays only for bigger models."""
    gpu = catalog().get(p.gpu_id)
    if gpu is None or gpu.vendor != "apple" or (p.count or 1) != 1 or not p.memory_per_gpu_gib:
        return None
    if job.req.owned and p.gpu_id in {resolve_gpu(name)[0].id for name in job.req.owned}:
        return None  # owned: nothing to configure
    chip = p.gpu_id.rsplit("-", 1)[0]  # "apple-m3-max-128gb" -> "apple-m3-max"
    need = p.memory_per_gpu_gib * _MAC_ROOM
    smaller = [
        g
        for g in catalog().values()
        if g.id.rsplit("-", 1)[0] == chip and g.usable_memory_gib >= need and g.vram_gib * 2 <= gpu.vram_gib
    ]
    if not smaller:
        return None
    s = min(smaller, key=lambda g: g.vram_gib)
    return note(
        "cmp_mac_more_than_needed",
        gpu=p.gpu,
        vram=gpu.vram_gib,
        need=p.memory_per_gpu_gib,
        smaller=s.name,
    )


def _named_short(job: _Job, rows: list[CompareRow], order: list[int]) -> Note | None:
    """A setup the user proposed that does not hold the job at the count named, said before the pick."""
    if _serves_several(job):
        return None  # serving: more cards buy room for users
    p = rows[order[0]]
    short = next((r for r in (rows[i] for i in order[1:]) if _short_as_named(r)), None)
    if short is not None and not _short_as_named(p):
        return note("cmp_named_short", gpu=short.gpu, asked=short.count_asked, count=short.count)
    if len(order) > 1 and all(_short_as_named(rows[i]) for i in order):
        # "dual 3090 or a 2nd 4090 — would either let me fine-tune 65B?": every setup named falls short, and the
        # pick's count is one the user did not propose, so that comes first (not a silent "Pick: 4 ×")
        return note("cmp_none_as_named", gpu=p.gpu, asked=p.count_asked, count=p.count)
    return None


def _pick_reasons(job: _Job, rows: list[CompareRow], order: list[int], axis: Axis, basis: Basis) -> list[Note]:
    p = rows[order[0]]
    nxt = rows[order[1]] if len(order) > 1 else None
    firsts = (
        _more_than_needed(job, p),  # "get a maxed-out Mac?": the configuration that is enough comes first
        _fewer_hold_it(p),
        _near_tie(p, nxt, axis),
        _all_fit(rows, order, axis),
        _fit_reason(p),
        _budget_reason(job, p),
    )
    out = [n for n in firsts if n]
    if job.req.owned and p.gpu_id in {resolve_gpu(name)[0].id for name in job.req.owned}:
        out.insert(0, note("cmp_pick_owned", gpu=p.gpu))  # "I have a 5090": keeping it is the first reason
        gain = _switch_gain(job, p, [rows[i] for i in order[1:]])
        if gain is not None:
            out.insert(1, gain)
    short = _named_short(job, rows, order)
    if short is not None:
        out.insert(0, short)
    mac = next((r for r in (rows[i] for i in order[1:]) if _vendor(r) == "apple"), None)
    if mac is not None and _vendor(p) != "apple" and _serves_several(job):
        out.insert(0, note("cmp_mac_one_user", gpu=mac.gpu))  # advice.md §9: a Mac is one person's machine
    ended = next((catalog().get(rows[i].gpu_id) for i in order[1:] if _support_ended(rows[i])), None)
    if ended is not None and not _support_ended(p):  # "K80 or 3090?": why the cheap card loses comes first
        out.insert(0, note("cmp_pick_over_ended", gpu=ended.name, cc=ended.compute_capability or "-"))
    if axis in ("methods", "precisions"):
        out.append(_quality_reason(p))
    if axis != "cards" and nxt is not None and p.count and nxt.count and p.count < nxt.count:
        code = "cmp_one_card_enough" if p.count == 1 else "cmp_fewer_cards"
        out.append(note(code, count=p.count, other=nxt.count))
    out += _superlatives(job, rows, order, axis, basis)
    others = [rows[i] for i in order[1:]]
    out.append(_training_gap(job, p, others, axis))
    slowest_prompts = [g for g in (_prompt_gap(p, r) for r in others) if g and g.code == "cmp_prompts_slower"]
    if slowest_prompts:  # the pick's own catch: long prompts wait
        out.append(note("cmp_pick_prompts_slower", **slowest_prompts[0].params))
    training = p.mode not in (None, "inference")
    if training and _vendor(p) == "nvidia" and any(_vendor(r) != "nvidia" for r in others):
        out.append(note("cuda_for_training"))
    if p.ecc and any(not r.ecc for r in others):
        out.append(note("cmp_pick_ecc"))
    if (p.count or 1) > 1 and p.link_kind in ("nvlink", "infinity_fabric", "ethernet"):
        out.append(_link_note(p))
    return [n for n in out if n]


_STACKS = {"amd": "ROCm", "intel": "oneAPI / SYCL", "apple": "Metal"}


def _pick_despite(job: _Job, rows: list[CompareRow], order: list[int], axis: Axis) -> Note | None:
    """The lead's comparison names another option best on the job's bottleneck: what made the pick win anyway comes
    first, so the lead does not read as the other card's case ("memory decides ... the 7900 XTX has 24 GB" under
    "Pick: 4080 SUPER"). The ranking's own reasons: the other fills its cards to the brim, or its software stack."""
    from tools.compare_focus import leader

    best = leader(rows, order, job.focus, cards=axis == "cards")
    if best is None or best == order[0]:
        return None
    p, other = rows[order[0]], rows[best]
    if _brim(other) and not _brim(p) and other.fit is not None and other.memory_per_gpu_gib is not None:
        return note(
            "cmp_pick_despite_brim",
            pick=p.gpu,
            other=other.gpu,
            need=other.memory_per_gpu_gib,
            usable=other.fit.usable_gib_per_gpu,
        )
    training = job.focus == "training" or p.mode not in (None, "inference")
    if _ecosystem(p, training) < _ecosystem(other, training):
        stack = _STACKS.get(_vendor(other) or "", "its own stack")
        return note("cmp_pick_despite_cuda", pick=p.gpu, other=other.gpu, stack=stack)
    return None


def _link_note(p: CompareRow) -> Note:
    """How the pick's cards talk. A card whose NVLink is a bridge of fixed width (the 3090's joins two) links only
    that many: more cards than that talk over PCIe between the bridged groups (platforms.yaml `nvlink_bridges`)."""
    from tools._data import load_yaml

    bridge = load_yaml("platforms.yaml").get("nvlink_bridges", {}).get("cards", {}).get(p.gpu_id) or {}
    group = int(bridge.get("max_gpus") or 0)
    if p.link_kind == "nvlink" and group and (p.count or 1) > group:
        return note("cmp_link_nvlink_bridged", count=p.count, group=group, gbs=p.link_gbs or 0)
    return note(f"cmp_link_{p.link_kind}", count=p.count, gbs=p.link_gbs or 0)


def _short_as_named(r: CompareRow) -> bool:
    """The user named this setup's count and it does not hold the job: more cards than proposed were sized."""
    return bool(r.count_asked and r.count and r.count > r.count_asked)


def _serves_several(job: _Job) -> bool:
    """Several people use the machine at once: the serving bottleneck, or more than one concurrent sequence."""
    w = job.req.workload
    return job.focus == "serving" or (w is not None and w.mode == "inference" and w.batch > 1)


def _fewer_hold_it(p: CompareRow) -> Note | None:
    """The pick is the count the user named ("8张4090"), but fewer of those cards already hold the job: say so first
    (the same sentence recommend_gpus uses), the extra cards buy speed, not the ability to run it."""
    needed = p.fit.gpus_needed if p.fit is not None else None
    if not (p.count_asked and needed and needed < p.count_asked):
        return None
    return note("fewer_cards_hold_it", count=needed, gpu=p.gpu, asked=p.count_asked)


def _prompt_gap(r: CompareRow, p: CompareRow) -> Note | None:
    """Prompt processing (prefill) is compute-bound: Apple chips and small cards decode fine but make a
    long prompt wait; worth saying when it differs this much (the wait before the first token)."""
    if not r.prefill_tokens_per_s or not p.prefill_tokens_per_s or r.ttft_s is None or p.ttft_s is None:
        return None
    ratio = r.prefill_tokens_per_s / p.prefill_tokens_per_s
    if 1 / _PROMPT_GAP < ratio < _PROMPT_GAP:
        return None
    code = "cmp_prompts_faster" if ratio > 1 else "cmp_prompts_slower"
    return note(
        code,
        times=max(ratio, 1 / ratio),
        tps=r.prefill_tokens_per_s,
        other=p.prefill_tokens_per_s,
        ttft=r.ttft_s,
        tokens=r.context_tokens or 0,
    )


def _training_gap(job: _Job, p: CompareRow, others: list[CompareRow], axis: Axis) -> Note | None:
    """Cards that decode alike can train very differently: compute, not bandwidth, sets fine-tuning speed."""
    if not job.req.also_trains or job.focus == "training" or axis != "cards" or not p.bf16_tflops or not others:
        return None
    fastest = max(others, key=lambda r: r.bf16_tflops or 0)
    times = (fastest.bf16_tflops or 0) / p.bf16_tflops
    if times < _TRAINING_GAP:
        return None
    method = job.req.also_trains
    return note(
        "cmp_training_gap", method=method, gpu=fastest.gpu, times=times, tflops=fastest.bf16_tflops, own=p.bf16_tflops
    )


def _cost_diff(job: _Job, r: CompareRow, p: CompareRow, basis: Basis) -> Note | None:
    mine, theirs = _cost(r, basis), _cost(p, basis)
    if math.isinf(mine) or math.isinf(theirs) or abs(mine - theirs) < _MARGIN * theirs:
        return None
    code = ("costs_more" if mine > theirs else "costs_less") if basis == "buy" else None
    code = code or ("cmp_rent_more" if mine > theirs else "cmp_rent_less")
    return note(code, amount=abs(mine - theirs), currency=job.req.currency)


def _way_diff(r: CompareRow, p: CompareRow) -> Note | None:
    """What a different way of running the job trades: quality one way or the other."""
    if _quality(r) < _quality(p):
        return note("cmp_offers_quality")
    if r.mode == "qlora" and p.mode != "qlora":
        return note("qlora_tradeoff")
    if r.precision and r.precision != p.precision and resolve_precision(r.precision).kind != "float":
        return note("quantized_weights", precision=r.precision)
    return None


def _below_chat_speed(r: CompareRow) -> bool:
    return r.tokens_per_s_per_user is not None and r.tokens_per_s_per_user < advice.min_chat_speed()


def _other_notes(job: _Job, r: CompareRow, p: CompareRow, axis: Axis, basis: Basis) -> list[Note]:
    """How a row the verdict did not pick differs from the pick."""
    if r.error:
        return [note("cmp_error", text=r.error)]
    if r.count is None:
        return [note("cmp_fits_nowhere")]
    out: list[Note] = []
    if _support_ended(r) and not _support_ended(p):
        out.append(note("cmp_support_ended"))
    if _below_chat_speed(r) and not _below_chat_speed(p):  # both below it: no difference, the gap in % says it
        out.append(note("cmp_too_slow", tps=r.tokens_per_s_per_user, floor=advice.min_chat_speed()))
    if p.count and r.count > p.count:
        out.append(note("cmp_needs_more_cards", count=r.count))
    out.append(_prompt_gap(r, p))
    if axis in ("methods", "precisions"):
        out.append(_way_diff(r, p))
    out.append(_cost_diff(job, r, p, basis))
    if r.over_budget_by:
        out.append(note("over_budget", amount=r.over_budget_by, currency=job.req.currency))
    ratio = _speed_gap(job, r, p, axis)
    if ratio is not None and ratio >= 100:
        out.append(note("cmp_times_faster", times=ratio / 100 + 1))
    elif ratio is not None and abs(ratio) >= 5:
        out.append(note("faster_by" if ratio > 0 else "slower_by", pct=abs(ratio)))
    room = r.vram_gib * r.count - p.vram_gib * (p.count or 1)
    if axis in ("gpus", "cards") and abs(room) >= 4:
        out.append(note("more_memory" if room > 0 else "less_memory", gib=abs(room)))
    if r.ecc != p.ecc and axis in ("gpus", "cards"):
        out.append(note("cmp_has_ecc" if r.ecc else "cmp_no_ecc"))
    return [n for n in out if n][:_MAX_OTHER_NOTES]


def _speed_gap(job: _Job, r: CompareRow, p: CompareRow, axis: Axis) -> float | None:
    """How much faster (+%) or slower (-%) a row is than the pick; weighed on memory, still decode speed (bandwidth)."""
    if job.focus == "memory":
        return _pct(r.bandwidth_gbs, p.bandwidth_gbs)
    return _pct(_speed_of(r, axis), _speed_of(p, axis))


_SWITCH_GAIN = 1.25  # how much faster another card must be at the job's bottleneck to replace one the user has


def _keep_owned(job: _Job, rows: list[CompareRow], order: list[int], axis: Axis) -> list[int]:
    """A card the user already has costs nothing more (advice.md §9: their hardware is the question): when it does
    the job it stays the pick, unless the ranked pick is clearly faster at the job's bottleneck; a cheaper card
    that is no faster is no reason to switch."""
    owned = {resolve_gpu(name)[0].id for name in job.req.owned}
    mine = [i for i in order if rows[i].gpu_id in owned]
    if not mine or order[0] in mine:
        return order
    pick, own = _speed_of(rows[order[0]], axis), _speed_of(rows[mine[0]], axis)
    if pick and own and pick >= own * _SWITCH_GAIN:
        return order
    return [mine[0], *(i for i in order if i != mine[0])]


def _verdict(job: _Job, rows: list[CompareRow], axis: Axis, basis: Basis) -> CompareVerdict:
    order = _keep_owned(job, rows, _order(job, rows, axis, basis), axis)
    rest = [i for i in range(len(rows)) if i not in order]
    if not order:
        others = [
            OtherRow(index=i, label=r.label, notes=_other_notes(job, r, r, axis, basis)) for i, r in enumerate(rows)
        ]
        return CompareVerdict(pick=None, label=None, reasons=[note("cmp_nothing_fits")], others=others, order=rest)
    p = rows[order[0]]
    others = [
        OtherRow(index=i, label=rows[i].label, notes=_other_notes(job, rows[i], p, axis, basis))
        for i in [*order[1:], *rest]
    ]
    lead = bottleneck(rows, order, job.focus, cards=axis == "cards") if axis in ("cards", "gpus") else None
    despite = _pick_despite(job, rows, order, axis) if lead is not None else None
    return CompareVerdict(
        bottleneck=lead,
        pick=order[0],
        label=p.label,
        gpu=p.gpu,
        gpu_id=p.gpu_id,
        reasons=[n for n in (despite, *_pick_reasons(job, rows, order, axis, basis)) if n],
        others=others,
        order=[*order, *rest],
    )


# ---- the tool -----------------------------------------------------------------------------------------------


def _assumptions(job: _Job, rows: list[CompareRow], axis: Axis, basis: Basis) -> list[Note]:
    req, w = job.req, job.req.workload
    out: list[Note] = []
    if axis == "cards":
        out.append(note("cmp_no_workload"))
    else:
        fit = next((r.fit for r in rows if r.fit is not None), None)
        out.append(note("fit_rule", headroom=fit.headroom, engine=fit.engine) if fit else note("fit_rule_default"))
    if w is not None and "context_tokens" not in w.model_fields_set:
        training = w.mode != "inference"
        code = "default_context_training" if training else "default_context"
        out.append(note(code, tokens=advice.default_context(w.mode, personal=job.personal)))
    out += list({n.code: n for n in job.notes}.values())
    if not req.gpus and w is not None:
        names = ", ".join(catalog()[g].name for g in REFERENCE_GPUS)
        out.append(note("cmp_reference_cards", cards=names))
    out.append(note(f"cmp_ranking_{'ways' if axis in ('methods', 'precisions') else 'cards'}"))
    out.append(note(f"cmp_basis_{basis}"))
    if any(r.cost_per_1m_tokens for r in rows):
        out.append(note("cmp_cost_per_token"))
    if any((r.count or 1) > 1 for r in rows):
        out.append(note("multi_gpu_layout"))
    if any(r.rent_per_month for r in rows):
        out.append(note("rent_hours", hours=job.hours))
    if job.market == "cn":
        out.append(note("market_cn"))
    return out


def _warnings(job: _Job, rows: list[CompareRow]) -> list[Note]:
    """What about the workload itself makes every row less certain."""
    w = job.req.workload
    if w is None:
        return []
    arch = w.resolve()[0]
    out: list[Note] = []
    if arch.generic and w.params_b is not None:
        out.append(note("cmp_generic_model", params_b=round(arch.params / 1e9, 1)))
    longest = max((r.context_tokens or 0 for r in rows), default=0)
    if arch.max_context and longest > arch.max_context:
        out.append(note("cmp_context_too_long", model=arch.name, context=longest, max=arch.max_context))
    if any(r.error is None and r.count is None for r in rows):
        out.append(note("cmp_some_fit_nowhere"))
    return out


def compare_gpus(req: CompareRequest) -> CompareResult:
    """Every option computed (fit, memory, speed, prices, cost per 1M tokens, link, ECC), then a verdict."""
    targets = _targets(req)
    axis = _axis(req)
    job = _Job(
        req=req,
        book=load_prices(),
        market=req.market or ("cn" if req.currency == "CNY" else "global"),
        hours=req.hours_per_month or tco_defaults()["hours_per_month"] * 0.5,
        personal=_personal(req, targets),
        notes=[],
        focus=_focus(req),
    )
    if axis == "cards":
        _same_count(job, targets)
        rows = [_card_row(job, t) for t in targets]
    else:
        methods: list[Method | None] = list(req.methods) or [None]
        precisions: list[str | None] = list(req.precisions) or [None]
        if axis == "gpus" and not (req.methods or req.precisions):
            job.fitted = _fitted(job, targets)
        rows = [_row(job, t, _Variant(m, p)) for t in targets for m in methods for p in precisions]
    job.focus = _room_to_grow(job, rows, axis)
    _weigh(rows, axis, job.focus)
    basis = _basis(req, rows)
    w = req.workload
    return CompareResult(
        axis=axis,
        model=w.resolve()[0].name if w else None,
        mode=w.mode if w else None,
        context_tokens=next((r.context_tokens for r in rows if r.context_tokens), None),
        batch=w.batch if w else None,
        currency=req.currency,
        market=job.market,
        basis=basis,
        hours_per_month=round(job.hours, 1),
        rows=rows,
        focus=job.focus,
        verdict=_verdict(job, rows, axis, basis),
        assumptions=_assumptions(job, rows, axis, basis),
        warnings=_warnings(job, rows),
    )


def _fitted(job: _Job, targets: list[_Target]) -> dict | None:
    """The setups as the user named them ("4x A6000 vs 2x A100 for a 120B", "dual 3090 or two 4090s to fine-tune
    65B"): when the default format (or, the method left open, LoRA) does not fit every one of them, the highest-
    quality way that fits them all, so each is compared on the cards named (advice.md §5: the cheapest way that
    works). None: the defaults fit, or no way fits them all, or a count was not named."""
    w = job.req.workload
    if w is None or any(t.gpu is None or not t.asked for t in targets):
        return None
    if w.mode == "inference" and w.precision is None:
        ladder = [{}, *({"precision": p} for p in advice.policy().get("fit_ladder", ["fp8", "int8", "awq"]))]
    elif w.mode == "lora" and job.req.method_open:
        ladder = [{}, {"mode": "qlora", "precision": None}]
    else:
        return None
    fitting: list[int] = []
    for way in ladder:
        fitting.append(sum(_fits_as_named(job, t, way) for t in targets))
        if fitting[-1] == len(targets):
            if way:
                job.notes.append(note("cmp_fitted_way", way=_way_name(way)))
            return way or None
    if max(fitting) and fitting[0] == max(fitting):
        # "一张3090还是两张3060 12G" for a 32B: the default format holds the 3090 as named and the 3060s fall just
        # short; a cheaper format that fits neither would only change the user's counts (2x 3090 vs 4x 3060)
        return None
    cheapest = ladder[-1]  # nothing fits them all as named: the cheapest way needs the fewest cards
    job.notes.append(note("cmp_fitted_way_none", way=_way_name(cheapest)))
    return cheapest


def _way_name(way: dict) -> str:
    named = {"int8_wo": "INT8", "awq": "4-bit (AWQ)", "fp8": "FP8"}.get(way.get("precision") or "")
    return named or str(way.get("mode", ""))


def _fits_as_named(job: _Job, t: _Target, way: dict) -> bool:
    assert t.gpu is not None and t.asked
    if way.get("precision") == "fp8" and not (t.gpu.fp8_tflops or t.gpu.fp8_fp32acc_tflops):
        return False  # FP8 weights need FP8 hardware to be worth it (Ada, Hopper, Blackwell, MI300)
    try:
        vw = _variant_workload(job, _Variant(None, None)).model_copy(update=way)
        est = estimate_vram(vw.model_copy(update={"gpu": t.gpu.id, "num_gpus": t.asked}))
    except (AdvisorError, ValueError):
        return False
    return est.fit is not None and est.fit.fits


def _focus(req: CompareRequest) -> Focus:
    """The bottleneck asked, else training for a training job (or a user who also fine-tunes), else decode."""
    if req.focus:
        return req.focus
    if req.workload is not None and req.workload.mode != "inference":
        return "training"
    return "decode"


def _room_to_grow(job: _Job, rows: list[CompareRow], axis: Axis) -> Focus:
    """Cards weighed with no job to size ("3060 Ti 8G 还是 3060 12G", "4060 Ti 16GB or 4070 12GB for AI?"): with no
    stated job there is no tokens/s to buy, so value is memory per money, room to grow (advice.md §4, 5), as long as
    the memory differs enough to change what the cards run; speed asked for, a bottleneck named, or memory alike
    (3090 vs 4090) keep the verdict on bandwidth."""
    req = job.req
    if axis != "cards" or req.focus or job.focus != "decode" or req.preference == "fastest" or req.also_trains:
        return job.focus
    memory = [r.vram_gib * (r.count or 1) for r in rows if r.error is None]
    if len(memory) < 2 or max(memory) < min(memory) * _ROOM_TO_GROW:
        return job.focus
    return "memory"


def _same_count(job: _Job, targets: list[_Target]) -> None:
    """Cards with no job, a count given for some only ("8张H20 比 A100"): compare like for like, at that count."""
    given = [t.asked for t in targets if t.asked]
    if not given or len(given) == len(targets):
        return
    n = max(given)
    for t in targets:
        t.asked = t.asked or n
    job.notes.append(note("cmp_same_count", count=n))
