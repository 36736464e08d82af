"""recommend_gpus: what to buy or rent for a workload, ranked and labelled the way an expert advises.

The answer is a primary pick with its reasons, two or three labelled alternatives (cheaper or used,
faster, rent, or the method you asked for) with what each gives up, and what stretching the budget buys.
Hard constraints are enforced here, so no caller can present an option over the budget as within it:
the budget (cards only, or the whole machine), the number of cards, local or cloud, vendor, ECC/NVLink.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from tools import advice
from tools.advice import Condition, Persona
from tools.catalog import GpuSpec, catalog, resolve_gpu
from tools.errors import AdvisorError
from tools.notes import Note, note
from tools.precision import resolve_precision
from tools.prices import (
    Currency,
    bundled_prices,
    purchase_price,
    tco_defaults,
    used_price_range,
    used_purchase_price,
)
from tools.sizing import COUNTS, counts_for, engine_for, headroom_for, headroom_or_default, usable_gib
from tools.speed import SpeedRequest, SpeedResult, estimate_speed
from tools.tco import TcoRequest, calculate_tco
from tools.vram import VramRequest, estimate_vram, shared_estimates

Variant = Literal["asked", "lora", "qlora", "fp8", "awq"]
VARIANT_ORDER: tuple[Variant, ...] = ("asked", "lora", "qlora", "fp8", "awq")  # gentlest change first
Label = Literal["primary", "as_asked", "cheaper", "used", "faster", "rent", "stretch"]
MAX_GPUS = 16


class RecommendRequest(BaseModel):
    """A workload plus who asks, the budget and the constraints."""

    workload: VramRequest = Field(description="The memory workload (model, mode, precision, context, batch...)")
    budget: float | None = Field(default=None, gt=0, description="Up-front purchase budget, in `currency`")
    budget_includes_host: bool = Field(
        default=False, description='The budget covers the whole machine ("整机"); by default only the GPUs ("买什么卡")'
    )
    monthly_budget: float | None = Field(default=None, gt=0, description="Monthly budget for renting")
    currency: Currency = "CNY"
    market: Literal["global", "cn"] | None = Field(
        default=None, description="cn: China (no export-controlled cards new; Chinese GPU clouds); default cn for CNY"
    )
    deployment: Literal["local", "cloud", "either"] = Field(
        default="either", description="local: buy (renting still shown as an alternative); cloud: rent"
    )
    rent_alternative: bool = Field(default=True, description="Show renting as an alternative to buying")
    persona: Persona | None = Field(
        default=None, description="individual (home, student), team (lab, workstation), company (production)"
    )
    preference: Literal["cheapest", "fastest", "balanced"] = "balanced"
    max_gpus: int | None = Field(
        default=None, ge=1, le=MAX_GPUS, description='Most cards of one type ("一张卡" = 1); default by persona'
    )
    num_gpus: int | None = Field(
        default=None,
        ge=1,
        le=MAX_GPUS,
        description='Exactly this many cards of one type ("如果用 2 张卡呢"); default: the fewest that hold it',
    )
    require_nvlink: bool = False
    require_ecc: bool = False
    vendors: list[Literal["nvidia", "amd", "intel", "apple"]] = Field(
        default_factory=lambda: ["nvidia", "amd", "apple"]
    )
    gpus: list[str] = Field(
        default_factory=list, max_length=16, description="Only these GPUs (fuzzy names); empty: the whole catalog"
    )
    include_used: bool = Field(default=True, description="Offer used cards where the persona would buy them")
    method_flexible: bool = Field(
        default=True, description="May propose a cheaper method (QLoRA for LoRA, 4-bit for 16-bit) that fits"
    )
    users: int | None = Field(
        default=None, ge=1, le=10_000_000, description="Named users; a share of them is active at once"
    )
    shared_by: int | None = Field(
        default=None,
        ge=1,
        le=10_000,
        description="A team's budget for one shared machine: the people who share it (jobs run side by side)",
    )
    serving: bool = Field(
        default=False, description="Serving other people (16-bit weights, rented around the clock), not one's chat"
    )
    min_card_gib: float | None = Field(
        default=None, ge=0, le=1024, description="Smallest card memory wanted (e.g. 16 for Stable Diffusion too)"
    )
    min_tokens_per_s: float | None = Field(
        default=None, gt=0, le=100_000, description="Per-user decode speed wanted ('5 tokens/s or more'): slower last"
    )
    hours_per_month: float | None = Field(default=None, gt=0, le=744, description="Busy hours a month (rent pricing)")
    utilization: float = Field(default=0.5, gt=0, le=1, description="Busy share of the month, when hours are not given")
    horizon_years: float = Field(default=3, gt=0, le=10, description="Period over which costs are compared")
    headroom: float | None = Field(
        default=None, ge=0, lt=0.9, description="Share of GPU memory kept free (default: the engine's, tools/sizing.py)"
    )
    limit: int = Field(default=8, ge=1, le=50, description="Options listed in `options`")


class Pick(BaseModel):
    """One way to run the workload: a GPU x count, bought new or used or rented, with its method."""

    label: Label | None = None
    gpu: str
    gpu_id: str
    count: int
    deployment: Literal["local", "cloud"]
    condition: Condition
    unofficial: bool = False
    variant: Variant = Field(description="'asked', or the cheaper method or precision this option uses")
    mode: str
    precision: str
    memory_per_gpu_gib: float
    usable_gib_per_gpu: float
    gpu_memory_gib: float
    tokens_per_s: float | None = Field(description="Decode tokens/s across all sequences, or training tokens/s")
    tokens_per_s_per_user: float | None = Field(description="Inference: decode tokens/s of one sequence")
    price_each: float | None = Field(description="Per GPU (new street price, used range midpoint)")
    price_basis: str | None
    price_range: tuple[float, float, str] | None = Field(
        default=None, description="Used: the dated market range (low, high, date) in `currency`, indicative"
    )
    gpu_cost: float | None = Field(description="The cards: price_each x count")
    machine_cost: float | None = Field(description="Cards plus the rest of the machine")
    spend: float = Field(description="What counts against the budget (cards or machine), or rent a month")
    hourly: float | None = Field(description="Rent: all the GPUs per hour")
    monthly: float = Field(description="Rent at the busy hours; owning: power and upkeep a month")
    cost_over_horizon: float
    currency: Currency
    within_budget: bool | None = Field(description="None when no budget applies to this option")
    over_budget_by: float | None = None
    nvlink: bool
    jobs_at_once: int = Field(default=1, description="A team's shared machine: the job run this many times at once")
    board_for: int | None = Field(
        default=None, description="A full server board bought for a job that needs only this many of its GPUs"
    )
    reasons: list[Note] = Field(default_factory=list)
    gives_up: list[Note] = Field(default_factory=list)
    warnings: list[Note] = Field(default_factory=list)

    @property
    def key(self) -> str:
        return f"{self.variant}|{self.gpu_id}|{self.condition}"


class Need(BaseModel):
    """The workload's memory on one GPU, one way of running it (what the answer quotes before the cards)."""

    mode: str
    precision: str
    context_tokens: int
    batch: int
    gib: float
    card: str | None = Field(
        default=None, description="The smallest common card that holds it (advice.yaml reference_cards), by name"
    )
    cards: int | None = Field(default=None, description="How many of `card` (several of the biggest when none does)")


class RecommendResult(BaseModel):
    model: str = Field(description="The model, as the registry spells it")
    needs: list[Need] = Field(
        default_factory=list,
        description="Memory on one GPU: as asked (16-bit too, when a 4-bit default applied), "
        "and each cheaper way considered",
    )
    workload: str
    sized_workload: VramRequest = Field(description="The workload after the policy's defaults")
    persona: Persona
    persona_source: Literal["stated", "budget", "serving"]
    market: Literal["global", "cn"]
    currency: Currency
    budget: float | None
    budget_covers: Literal["gpus", "machine"]
    hours_per_month: float
    primary: Pick | None
    alternatives: list[Pick]
    stretch: Pick | None = Field(description="What going over the budget would buy, and by how much")
    options: list[Pick] = Field(description="Options within the constraints, best first")
    considered: int
    nothing_fits: bool
    suggestions: list[Note]
    assumptions: list[Note]
    warnings: list[Note]


# ---- the workload as the policy sizes it ---------------------------------------------------------------


def _sized_workload(req: RecommendRequest, persona: Persona) -> tuple[VramRequest, list[Note]]:
    """Concurrency from named users, and the default precision an expert assumes for inference."""
    w, notes = req.workload, []
    update: dict = {"gpu": None}
    if req.users and w.mode == "inference":
        batch = advice.concurrent_from_users(req.users)
        update["batch"] = batch
        notes.append(note("concurrency_from_users", users=req.users, share=advice.concurrent_share(), batch=batch))
    personal = persona == "individual" and update.get("batch", w.batch) <= 2 and not req.serving
    if w.mode == "inference" and w.precision is None:
        key = "personal_inference" if personal else "serving"
        update["precision"] = advice.policy()["default_precision"][key]
        if personal and w.engine and engine_for(w.engine) != "llama.cpp":
            update["precision"] = "awq"  # the engine the user runs loads no GGUF file: its 4-bit is AWQ
        notes.append(note(f"default_precision_{key}", precision=update["precision"]))
    if "context_tokens" not in w.model_fields_set:  # not stated: what an expert assumes for this job
        tokens = advice.default_context(w.mode, personal)
        update["context_tokens"] = tokens
        notes.append(note("default_context_training" if w.mode != "inference" else "default_context", tokens=tokens))
    return w.model_copy(update=update), notes


def _variants(req: RecommendRequest, w: VramRequest) -> list[tuple[Variant, VramRequest]]:
    """The workload as asked, then the cheaper ways that still do the job (advice.md §5)."""
    out: list[tuple[Variant, VramRequest]] = [("asked", w)]
    if not req.method_flexible:
        return out
    cfg = advice.policy()
    for mode in cfg["cheaper_methods"].get(w.mode, []):
        out.append((mode, w.model_copy(update={"mode": mode, "precision": None})))
    if w.mode == "inference" and w.precision in ("bf16", "fp16", "fp32"):
        out += [(p, w.model_copy(update={"precision": p})) for p in cfg["cheaper_precisions"]]
    return out


def _memory_by_count(w: VramRequest, counts: tuple[int, ...]) -> dict[int, float]:
    """Per-GPU memory on each count of GPUs (it does not depend on which GPU)."""
    out: dict[int, float] = {}
    for n in counts:
        try:
            out[n] = estimate_vram(w.model_copy(update={"num_gpus": n, "tp": None if w.mode == "inference" else w.tp}))
        except (AdvisorError, ValueError):
            continue
    return {n: r.per_gpu_gib for n, r in out.items()}  # type: ignore[attr-defined]


def _speed(w: VramRequest, gpu: GpuSpec, n: int) -> SpeedResult | None:
    ref = w.model_dump(include={"model", "params_b", "config_path", "arch"})
    shared = dict(ref, gpu=gpu.id, num_gpus=n, precision=w.precision, context_tokens=w.context_tokens, batch=w.batch)
    try:
        if w.mode == "inference":
            return estimate_speed(SpeedRequest(**shared, kv_dtype=w.kv_dtype))
        return estimate_speed(
            SpeedRequest(**shared, mode="training", method=w.mode, grad_checkpointing=w.grad_checkpointing)
        )
    except (AdvisorError, ValueError):
        return None


# ---- options ---------------------------------------------------------------------------------------------


class _Context(BaseModel):
    """What every option of one request shares."""

    req: RecommendRequest
    persona: Persona
    market: Literal["global", "cn"]
    max_gpus: int
    hours: float
    headroom: float
    engine: str = "vllm"  # whose headroom the fit rule uses (tools/sizing.py engine_for)
    widened: bool = False  # the persona's fallback segments are in (nothing in its own fit the budget)
    sized: VramRequest | None = None  # the workload as sized (defaults applied)
    # no budget stated: what this buyer usually spends on the cards; options within it lead (advice.yaml)
    soft_budget: float | None = None


def _cards(ctx: _Context) -> tuple[list[GpuSpec], bool]:
    """Cards to size, and whether the user named them (named cards skip the persona's filters)."""
    req = ctx.req
    if req.gpus:
        return list({g.id: g for g in (resolve_gpu(name)[0] for name in req.gpus)}.values()), True
    return list(catalog().values()), False


def _passes(ctx: _Context, gpu: GpuSpec, named: bool) -> bool:
    """Hard constraints on the card: vendor, ECC, NVLink, and training only where a training stack runs."""
    req = ctx.req
    if not named and gpu.vendor not in req.vendors:
        return False
    if req.require_nvlink and not gpu.nvlink:
        return False
    if (req.require_ecc or advice.persona_rules(ctx.persona).require_ecc) and not gpu.ecc:
        return False
    if req.min_card_gib is not None and gpu.usable_memory_gib < req.min_card_gib:
        return False
    return not (gpu.segment == "apple" and req.workload.mode != "inference")  # no CUDA training stack


def _options(ctx: _Context, w: VramRequest) -> tuple[list[Pick], int, list[Need]]:
    """Every (card x count, bought new / used / rented) that holds the workload or a cheaper way of it, and
    the memory each way needs on one GPU."""
    cards, named = _cards(ctx)
    options: list[Pick] = []
    needs: list[Need] = []
    considered = 0
    for variant, vw in _variants(ctx.req, w):
        memory = _memory_by_count(vw, tuple(sorted({1, *_counts(ctx)})))  # one GPU's need is always reported
        if 1 in memory:
            needs.append(_with_card(ctx, vw, _need(vw, memory[1])))
        for gpu in cards:
            if not _passes(ctx, gpu, named) or (variant == "fp8" and not (gpu.fp8_tflops or gpu.fp8_fp32acc_tflops)):
                continue
            considered += 1
            count = _count_for(ctx, gpu, memory)
            if count is not None:
                options += _conditions(ctx, gpu, named, variant, vw.model_copy(update={"num_gpus": count}), memory)
    for o in options:
        o.warnings = _caveats(o, w.mode)
    return options, considered, needs


def _need(w: VramRequest, gib: float) -> Need:
    precision = w.precision or ("nf4_dq" if w.mode == "qlora" else "bf16")
    return Need(mode=w.mode, precision=precision, context_tokens=w.context_tokens, batch=w.batch, gib=gib)


def _with_card(ctx: _Context, w: VramRequest, need: Need) -> Need:
    """The need in the cards people know: the smallest common card that holds it, else how many 80 GB cards
    ("bf16 133 GiB: 2 x H100"), whatever the buyer's own candidates are (advice.yaml reference_cards)."""
    headroom = headroom_for(engine_for(w.engine, w.mode, resolve_precision(need.precision).kind))
    fp8 = need.precision.startswith("fp8")
    for card_id in advice.reference_cards(ctx.market):
        card = catalog()[card_id]
        if fp8 and not (card.fp8_tflops or card.fp8_fp32acc_tflops):
            continue  # FP8 weights need FP8 tensor cores (Ada, Hopper, Blackwell): not an A100
        if need.gib <= usable_gib(card, headroom) + 1e-9:
            return need.model_copy(update={"card": card.name, "cards": 1})
    big = catalog()[advice.reference_multi_card(ctx.market)]
    memory = _memory_by_count(w, tuple(n for n in COUNTS if 1 < n <= MAX_GPUS))
    n = next((n for n, gib in sorted(memory.items()) if gib <= usable_gib(big, headroom) + 1e-9), None)
    return need.model_copy(update={"card": big.name, "cards": n}) if n else need


def _full_precision_need(ctx: _Context, req: RecommendRequest, sized: VramRequest) -> Need | None:
    """When a 4-bit default was applied, what 16-bit would need: the reason the default exists."""
    if sized.mode != "inference" or req.workload.precision is not None or sized.precision == "bf16":
        return None
    full = sized.model_copy(update={"precision": "bf16", "num_gpus": 1, "tp": None})
    return _with_card(ctx, full, _need(full, estimate_vram(full).per_gpu_gib))


def _counts(ctx: _Context) -> tuple[int, ...]:
    """The card counts to size: the one asked for, else 1, 2, 4 ... up to the most allowed."""
    if ctx.req.num_gpus is not None:
        return (ctx.req.num_gpus,)
    return tuple(n for n in counts_for(ctx.engine) if n <= ctx.max_gpus)  # the fit rule's counts (llama.cpp: any)


def _count_for(ctx: _Context, gpu: GpuSpec, memory: dict[int, float]) -> int | None:
    """The fewest of `gpu` that hold the workload (or the count asked for): the one fit rule (tools/sizing.py)."""
    usable = usable_gib(gpu, ctx.headroom)
    most = 1 if gpu.whole_machine else ctx.max_gpus  # one Mac / Jetson: memory does not pool
    allowed = _counts(ctx)
    fits = (n for n, need in sorted(memory.items()) if n in allowed and n <= most and need <= usable + 1e-9)
    return next(fits, None)


def _fewest(ctx: _Context, p: Pick) -> int | None:
    """With an exact count asked for: the fewest of that card that would already hold the workload."""
    gpu = catalog().get(p.gpu_id)
    if ctx.req.num_gpus is None or gpu is None or p.count == 1:
        return None
    w = (ctx.sized or ctx.req.workload).model_copy(update={"mode": p.mode, "precision": p.precision})
    memory = _memory_by_count(w, tuple(n for n in COUNTS if n < p.count))
    free = ctx.model_copy(update={"req": ctx.req.model_copy(update={"num_gpus": None}), "max_gpus": p.count - 1})
    return _count_for(free, gpu, memory)


def _conditions(
    ctx: _Context, gpu: GpuSpec, named: bool, variant: Variant, w: VramRequest, memory: dict[int, float]
) -> list[Pick]:
    """The same GPU x count bought new, bought used and rented, where each is possible."""
    n = w.num_gpus
    speed = _speed(w, gpu, n)
    base = dict(
        gpu=gpu.name,
        gpu_id=gpu.id,
        count=n,
        unofficial=gpu.unofficial,
        variant=variant,
        mode=w.mode,
        precision=speed.precision if speed else (w.precision or "bf16"),
        memory_per_gpu_gib=memory[n],
        usable_gib_per_gpu=round(usable_gib(gpu, ctx.headroom), 2),
        gpu_memory_gib=gpu.usable_memory_gib,
        tokens_per_s=_total_speed(speed),
        tokens_per_s_per_user=speed.decode_tokens_per_s if speed and w.mode == "inference" else None,
        currency=ctx.req.currency,
        nvlink=gpu.nvlink,
    )
    out = []
    if advice.eligible_card(gpu, ctx.persona, named, ctx.widened, count=n):
        out += [p for p in (_bought(ctx, gpu, "new", base), _bought(ctx, gpu, "used", base)) if p]
    rented = _rented(ctx, gpu, base)
    return [*out, rented] if rented else out


def _total_speed(speed: SpeedResult | None) -> float | None:
    if speed is None:
        return None
    return speed.training_tokens_per_s if speed.training_tokens_per_s is not None else speed.decode_tokens_per_s_total


def _bought(ctx: _Context, gpu: GpuSpec, condition: Condition, base: dict) -> Pick | None:
    req = ctx.req
    server_board = gpu.form_factor in ("sxm", "oam")
    if req.deployment == "cloud" or gpu.form_factor == "superchip" or (server_board and ctx.persona != "company"):
        return None  # SXM/OAM boards come as vendor servers (a company purchase); superchips as whole racks
    found = _price(ctx, gpu, condition)
    if not found:
        return None
    each, basis = found
    n = base["count"]
    if server_board:  # bought as one server with a full baseboard, even when the job needs fewer GPUs
        n = max(n, advice.policy()["server_board_gpus"])
        base = {**base, "count": n, "board_for": base["count"] if base["count"] < n else None}
    tco = calculate_tco(
        TcoRequest(
            gpu=gpu.id,
            num_gpus=n,
            currency=req.currency,
            utilization=ctx.hours / tco_defaults()["hours_per_month"],
            horizon_years=req.horizon_years,
            gpu_price=each,
        )
    )
    spend = tco.upfront if req.budget_includes_host else each * n
    return Pick(
        **base,
        deployment="local",
        condition=condition,
        price_each=round(each, 2),
        price_basis=basis,
        price_range=used_price_range(gpu, req.currency, bundled_prices()) if condition == "used" else None,
        gpu_cost=round(each * n, 2),
        machine_cost=round(tco.upfront, 2),
        spend=round(spend, 2),
        hourly=None,
        monthly=round(tco.power_monthly + tco.maintenance_monthly, 2),
        cost_over_horizon=tco.buy_total,
        within_budget=None if req.budget is None else spend <= req.budget,
        over_budget_by=round(spend - req.budget, 2) if req.budget is not None and spend > req.budget else None,
    )


def _price(ctx: _Context, gpu: GpuSpec, condition: Condition) -> tuple[float, str] | None:
    """New: the street price, where the card is still made and can be bought in the market. Used: the dated
    used-market range (a discontinued card's street price is one), where the persona buys used."""
    req = ctx.req
    if condition == "new":
        if gpu.discontinued or not advice.buyable_in(gpu, ctx.market):
            return None
        return purchase_price(gpu, req.currency, bundled_prices())
    if not (req.include_used and advice.persona_rules(ctx.persona).used):
        return None
    if gpu.used_price is None and gpu.discontinued:
        found = purchase_price(gpu, req.currency, bundled_prices())
    else:
        found = used_purchase_price(gpu, req.currency, bundled_prices())
    if found and not gpu.unofficial and not ctx.req.gpus and _new_card_as_big(ctx, gpu, found[0]):  # named: theirs
        return None  # a used card is worth its risk only for memory no new card gives at that price
    return found


def _new_card_as_big(ctx: _Context, gpu: GpuSpec, used_price: float) -> bool:
    """Whether a new card of the same vendor the buyer would take, with at least this card's memory, costs no
    more than it does used (a used RTX 3080 12GB against a new RTX 3060 12GB; the used RTX 3090 has none)."""
    for other in catalog().values():
        if other.vendor != gpu.vendor or other.id == gpu.id or other.usable_memory_gib < gpu.usable_memory_gib:
            continue
        if other.discontinued or not advice.buyable_in(other, ctx.market) or other.unofficial:
            continue
        if not advice.eligible_card(other, ctx.persona, False, ctx.widened):
            continue
        new = purchase_price(other, ctx.req.currency, bundled_prices())
        if new is not None and new[0] <= used_price:
            return True
    return False


def _rented(ctx: _Context, gpu: GpuSpec, base: dict) -> Pick | None:
    req = ctx.req
    if (req.deployment == "local" and not req.rent_alternative) or gpu.unofficial:
        return None
    rate = bundled_prices().typical(gpu, "on_demand", req.currency, market=ctx.market)
    if not rate:
        return None
    n = base["count"]
    hourly = rate[0] * n
    monthly = hourly * ctx.hours
    providers = sorted({r.provider for r in rate[1]})
    return Pick(
        **base,
        deployment="cloud",
        condition="rent",
        price_each=round(rate[0], 4),
        price_basis=f"median on-demand of {', '.join(providers[:4])}",
        gpu_cost=None,
        machine_cost=None,
        spend=round(monthly, 2),
        hourly=round(hourly, 4),
        monthly=round(monthly, 2),
        cost_over_horizon=round(monthly * round(req.horizon_years * 12), 2),
        within_budget=None if req.monthly_budget is None else monthly <= req.monthly_budget,
        over_budget_by=(
            round(monthly - req.monthly_budget, 2)
            if req.monthly_budget is not None and monthly > req.monthly_budget
            else None
        ),
    )


def _caveats(o: Pick, mode: str) -> list[Note]:
    """What to know about the platform before buying it."""
    gpu = catalog().get(o.gpu_id)
    out: list[Note] = []
    if gpu is not None and gpu.vendor == "amd":
        out.append(note("rocm_training" if mode != "inference" else "rocm_inference"))
    if gpu is not None and gpu.vendor == "apple":
        out.append(note("apple_inference"))
    if o.unofficial:
        out.append(note("unofficial_card"))
    if o.condition == "used":
        out.append(note("used_card_checks"))
    if o.count > 1 and o.deployment == "local" and not o.nvlink:
        out.append(note("pcie_only_multi_gpu", count=o.count))
    return out


# ---- choosing: a primary pick, labelled alternatives, what a bigger budget buys ---------------------------


def _ranked(ctx: _Context, picks: list[Pick]) -> list[Pick]:
    by_key = {p.key: p for p in picks}
    keys = advice.rank(
        (
            advice.Ranked(
                key=p.key,
                count=p.count,
                cost=p.spend,
                tokens_per_s=p.tokens_per_s,
                per_user_tokens_per_s=p.tokens_per_s_per_user,
                ecosystem=_ecosystem(ctx, p),
                tight=_tight(p),
                training=p.mode != "inference",
                brim=p.memory_per_gpu_gib > advice.brim_share() * p.usable_gib_per_gpu,
                cramped=_cramped(ctx, p),
            )
            for p in picks
        ),
        ctx.req.preference,
        ctx.persona,
        (ctx.req.budget or ctx.soft_budget) if ctx.req.deployment != "cloud" else ctx.req.monthly_budget,
        ctx.req.min_tokens_per_s if ctx.req.workload.mode == "inference" else None,
    )
    return [by_key[k] for k in keys]


def _too_slow(ctx: _Context, p: Pick) -> bool:
    """Below a usable speed per user (or the user's own target), or a fine-tune too slow to finish (advice.py)."""
    wanted = ctx.req.min_tokens_per_s if ctx.req.workload.mode == "inference" else None
    training = p.mode != "inference"
    ranked = advice.Ranked(
        key=p.key,
        count=p.count,
        cost=p.spend,
        tokens_per_s=p.tokens_per_s,
        per_user_tokens_per_s=p.tokens_per_s_per_user,
        ecosystem=0,
        training=training,
    )
    return ranked.too_slow(wanted)


def _serving(ctx: _Context) -> bool:
    """Several concurrent inference sequences: a service, which keeps memory free for bursts (advice.yaml
    serving_free_share)."""
    w = ctx.sized or ctx.req.workload
    return w.mode == "inference" and (w.batch or 1) > 1


def _cramped(ctx: _Context, p: Pick) -> bool:
    """A service option leaving less than serving_free_share of its usable memory free for bursts."""
    return _serving(ctx) and p.memory_per_gpu_gib > (1 - advice.serving_free_share()) * p.usable_gib_per_gpu


def _tight(p: Pick) -> bool:
    """Filled to the brim: a longer prompt or a driver update tips it over (advice.yaml tight_share)."""
    return p.memory_per_gpu_gib > advice.tight_share() * p.usable_gib_per_gpu


def _ecosystem(ctx: _Context, p: Pick) -> int:
    training = ctx.req.workload.mode != "inference"
    return advice.ecosystem_rank(catalog()[p.gpu_id], training) if p.gpu_id in catalog() else 1


def _lead(ctx: _Context, pool: list[Pick]) -> Pick | None:
    """The best option as asked; a cheaper way leads when it needs fewer cards ("bf16 LoRA needs two cards,
    QLoRA fits one": lead with QLoRA and say what it costs), trying the gentlest first (LoRA before QLoRA,
    FP8 before 4-bit)."""
    best: dict[str, Pick] = {}
    for p in _ranked(ctx, pool):
        best.setdefault(p.variant, p)
    asked = best.get("asked")
    w = ctx.req.workload
    leaders = advice.may_lead(w.mode, ctx.persona == "individual" and w.batch <= 2)
    if w.mode == "inference" and w.precision is not None:
        leaders = []  # a precision the user chose is kept; cheaper ones are only offered as alternatives
    for variant in VARIANT_ORDER[1:]:
        option = best.get(variant)
        if option is not None and (asked is None or (variant in leaders and option.count < asked.count)):
            if asked is not None and _cramped(ctx, option) and not _cramped(ctx, asked):
                continue  # fewer cards with no room for a service's bursts do not lead a roomy rig
            return option
    return asked


def _low_hours(ctx: _Context) -> bool:
    return ctx.req.hours_per_month is not None and ctx.req.hours_per_month < advice.policy()["rent_below_hours"]


def _choose(ctx: _Context, options: list[Pick]) -> tuple[Pick | None, list[Pick], Pick | None, list[Pick]]:
    req = ctx.req
    buys = [o for o in options if o.deployment == "local"]
    rents = [o for o in options if o.deployment == "cloud" and o.within_budget is not False]
    in_budget = [o for o in buys if o.within_budget is not False]
    rent_first = req.deployment == "cloud" or (req.deployment == "either" and (_low_hours(ctx) or not in_budget))
    pool = rents if rent_first and rents else in_budget
    listed = {"local": in_budget, "cloud": rents}.get(req.deployment, in_budget + rents)
    # no budget said: what this buyer usually spends leads, when it does the job (a usable speed per user)
    usual = [
        o
        for o in pool
        if o.deployment == "local"
        and o.spend <= (ctx.soft_budget or 0)
        and not _too_slow(ctx, o)
        and not _cramped(ctx, o)
    ]
    primary = _lead(ctx, usual or pool)
    if primary is None:
        return None, [], _stretch(ctx, buys, None), _ranked(ctx, listed)
    primary = _labelled(_shared(ctx, primary, pool) or primary, "primary")  # a team's budget: one shared machine
    alternatives = _alternatives(ctx, primary, pool, rents)
    return primary, alternatives, _stretch(ctx, buys, primary), _ranked(ctx, listed)


def team_jobs(ctx: _Context) -> int:
    """Jobs a team's shared machine runs at once: one per person up to the persona's most cards (a lab of five
    shares a 4-card workstation through a job queue). 1 where it is not a team buying with a budget, or the
    cards are already fixed ("一张卡", "两张 3090", named cards)."""
    req = ctx.req
    if not req.shared_by or ctx.persona != "team" or req.budget is None or req.deployment == "cloud":
        return 1
    if req.num_gpus or req.max_gpus or req.gpus:
        return 1
    return min(ctx.max_gpus, req.shared_by)


def _shared(ctx: _Context, primary: Pick, pool: list[Pick]) -> Pick | None:
    """A team's budget buys one shared machine (advice.md §3: 2-4 x 24 GB or 1-2 x 48 GB in one workstation), not
    one person's card: the same job, run as many times at once as the budget and the box allow, the most jobs at
    once first, then the usual ranking. None: one job's cards are all the budget buys."""
    jobs_wanted = team_jobs(ctx)
    if jobs_wanted < 2 or primary.deployment != "local":
        return None
    found: list[tuple[int, Pick]] = []
    for o in pool:
        gpu = catalog().get(o.gpu_id)
        if gpu is None or o.deployment != "local" or (o.variant, o.precision) != (primary.variant, primary.precision):
            continue
        if gpu.form_factor == "soc" or gpu.segment == "apple":
            continue  # sold as whole computers (DGX Spark, a Mac): several are several boxes, not one machine
        for jobs in range(min(jobs_wanted, ctx.max_gpus // o.count), 1, -1):
            if not advice.eligible_card(gpu, ctx.persona, False, ctx.widened, count=o.count * jobs):
                continue
            base = o.model_dump(include=_BASE_FIELDS) | {
                "count": o.count * jobs,
                "tokens_per_s": round(o.tokens_per_s * jobs, 1) if o.tokens_per_s else None,
            }
            p = _bought(ctx, gpu, o.condition, base)
            # a box for several cards is bought with them: the host fits the budget too (tco_defaults host_cost)
            if p is not None and p.within_budget and (p.machine_cost or p.spend) <= (ctx.req.budget or 0):
                found.append((jobs, p.model_copy(update={"jobs_at_once": jobs, "warnings": _caveats(p, p.mode)})))
                break
    if not found:
        return None
    most = max(jobs for jobs, _ in found)
    return _ranked(ctx, [p for jobs, p in found if jobs == most])[0]


_BASE_FIELDS = {  # what a card x count shares with the same card bought several times over
    "gpu",
    "gpu_id",
    "unofficial",
    "variant",
    "mode",
    "precision",
    "memory_per_gpu_gib",
    "usable_gib_per_gpu",
    "gpu_memory_gib",
    "tokens_per_s_per_user",
    "currency",
    "nvlink",
}


def _labelled(p: Pick, label: Label) -> Pick:
    return p.model_copy(update={"label": label}, deep=True)


def _alternatives(ctx: _Context, primary: Pick, pool: list[Pick], rents: list[Pick]) -> list[Pick]:
    """Cheaper or used, the method as asked, faster, rent: each a different card or way, best first."""
    ranked = _ranked(ctx, pool)
    others = [p for p in ranked if p.gpu_id != primary.gpu_id or p.condition != primary.condition]
    if primary.mode != "inference":  # a fine-tune that picked CUDA is not offered ROCm as the cheaper way
        others = [p for p in others if _ecosystem(ctx, p) <= _ecosystem(ctx, primary)]
    picks: list[Pick] = []
    if primary.variant != "asked":
        asked = next((p for p in ranked if p.variant == "asked"), None)
        if asked:
            picks.append(_labelled(asked, "as_asked"))
    # a cheaper way has at most twice the cards: eight small cards are not a cheaper version of two big ones;
    # and room to work in: a card filled to the brim is no alternative
    roomy = [p for p in others if p.count <= 2 * primary.count and (_tight(primary) or not _tight(p))]
    # and one that still does the job: a cheaper box at 3 tokens/s per user is no alternative for a service
    roomy = [p for p in roomy if _too_slow(ctx, primary) or not _too_slow(ctx, p)]
    cheap = [p for p in roomy if p.spend < primary.spend * 0.85]
    # a used card at up to the pick's price is the classic alternative: more memory for the money (a used 3090)
    used_ok = primary.condition == "new"
    used = (
        next((p for p in roomy if p.condition == "used" and p.spend <= primary.spend * 1.1), None) if used_ok else None
    )
    if used or cheap:
        picks.append(_labelled(used or cheap[0], "used" if used else "cheaper"))
    if primary.deployment == "local" and rents:
        picks.append(_labelled(min(rents, key=lambda p: p.monthly), "rent"))
    margin = (primary.tokens_per_s or 0) * advice.faster_margin()
    # no budget said: what one person spends bounds the faster option too (not a $8,600 workstation card next to
    # a used 3090), and for anyone a faster option is at most a price step up (not an H200 beside an L4)
    ceiling = max(ctx.soft_budget or 0, primary.spend) if ctx.soft_budget else None
    if ceiling is None and ctx.req.budget is None:
        ceiling = primary.spend * advice.similar_price_factor(ctx.persona)
    faster = [
        p
        for p in others
        if (p.tokens_per_s or 0) >= margin
        and (ceiling is None or p.deployment == "cloud" or p.spend <= ceiling)
        and p.deployment == primary.deployment
        and p.count <= primary.count
        and _ecosystem(ctx, p) <= _ecosystem(ctx, primary)  # not ROCm for a fine-tune that picked CUDA
    ]
    if faster:
        picks.append(_labelled(max(faster, key=lambda p: p.tokens_per_s or 0), "faster"))
    unique: list[Pick] = []
    for p in picks:
        if all(p.key != q.key for q in unique) and p.key != primary.key:
            unique.append(p)
    return unique[:3]


def _stretch(ctx: _Context, buys: list[Pick], primary: Pick | None) -> Pick | None:
    """The smallest step over the budget that buys something clearly better: the method as asked where
    the pick had to change it, fewer cards, or more speed."""
    if ctx.req.budget is None:
        return None
    over = [o for o in buys if o.within_budget is False and o.count <= ctx.max_gpus]

    def better(o: Pick) -> bool:
        if primary is None:
            return True
        as_asked = primary.variant != "asked" and o.variant == "asked"
        faster = (o.tokens_per_s or 0) >= (primary.tokens_per_s or 0) * advice.faster_margin()
        same_way = o.variant == primary.variant and o.count <= primary.count  # more cards is not a better buy
        return as_asked or o.count < primary.count or (faster and same_way)

    worth = [o for o in _ranked(ctx, over) if better(o)]
    if not worth:
        return None
    return _labelled(min(worth, key=lambda o: o.over_budget_by or 0), "stretch")


# ---- explaining: reasons for the pick, what each alternative gives up -------------------------------------


def _reasons(ctx: _Context, p: Pick, lead: bool = True) -> list[Note]:
    """Why this option: it fits, how (a cheaper method), the budget, used or rented; for the lead also the
    platform's merits."""
    req, out = ctx.req, []
    out.append(
        note("fits_on", count=p.count, gpu=p.gpu, need=p.memory_per_gpu_gib, usable=p.usable_gib_per_gpu)
        if p.count > 1 or p.deployment == "cloud"
        else note("fits_one_card", gpu=p.gpu, need=p.memory_per_gpu_gib, usable=p.usable_gib_per_gpu)
    )
    if p.variant != "asked":
        out.append(note(f"cheaper_way_{p.variant}", asked=req.workload.mode, count=p.count))
        if p.variant == "qlora":  # the cheaper way leads: what it costs is said with it
            out.append(note("qlora_tradeoff"))
    out += _budget_reasons(req, p)
    if p.condition == "used" and p.price_range is not None:
        low, high, date = p.price_range
        code = "used_value" if date else "used_value_estimated"  # no date: no dated sale was found, an estimate
        out.append(note(code, price=p.price_each, low=low, high=high, date=date, currency=p.currency))
    if req.num_gpus is not None:
        out.append(note("exact_cards", count=req.num_gpus))
        if (fewest := _fewest(ctx, p)) is not None:
            out.append(note("fewer_cards_hold_it", count=fewest, gpu=p.gpu, asked=p.count))
    elif req.max_gpus is not None and p.deployment == "local":
        out.append(note("max_cards", count=req.max_gpus))
    if p.deployment == "cloud":
        out.append(note("rent_at_hours", hourly=p.hourly, monthly=p.monthly, hours=ctx.hours, currency=p.currency))
        if req.shared_by and req.shared_by > 1:  # people who split the rent: each one's month
            each = round(p.monthly / req.shared_by, 2)
            out.append(note("rent_split_each", people=req.shared_by, each=each, currency=p.currency))
    gpu = catalog().get(p.gpu_id)
    if not lead:
        return out
    out += _speed_wanted(req, p)
    if gpu is not None and req.workload.mode != "inference" and gpu.vendor == "nvidia":
        out.append(note("cuda_for_training"))
    if gpu is not None and gpu.ecc and advice.persona_rules(ctx.persona).require_ecc:
        out.append(note("ecc_for_production"))
    return out


def _budget_reasons(req: RecommendRequest, p: Pick) -> list[Note]:
    """The spend against the budget; for a team's shared machine first how it serves the people, and the whole
    box (the host for its cards included) against the budget."""
    out: list[Note] = []
    if p.jobs_at_once > 1:
        people = [note("team_shared_people", users=req.shared_by)] if req.users else []
        out.append(note("team_shared_jobs", jobs=p.jobs_at_once, per=p.count // p.jobs_at_once, people=people))
        if not req.budget_includes_host and p.machine_cost:
            money = {"spend": p.spend, "machine": p.machine_cost, "budget": req.budget, "currency": p.currency}
            return [*out, note("team_machine_total", count=p.count, **money)]
    if p.within_budget and p.deployment == "local" and req.budget is not None:
        scope = "machine" if req.budget_includes_host else "gpus"
        out.append(note(f"within_budget_{scope}", spend=p.spend, budget=req.budget, currency=p.currency))
    return out


def _speed_wanted(req: RecommendRequest, p: Pick) -> list[Note]:
    """ "5 tokens/s or more": whether the pick reaches the speed the user wants."""
    wanted, tps = req.min_tokens_per_s, p.tokens_per_s_per_user
    if not wanted or not tps:
        return []
    return [note("meets_speed" if tps >= wanted else "misses_speed", tps=tps, wanted=wanted)]


def _gives_up(ctx: _Context, p: Pick, primary: Pick) -> list[Note]:
    out: list[Note] = []
    diff = p.spend - primary.spend
    if p.deployment == primary.deployment and abs(diff) >= 0.02 * primary.spend:
        out.append(note("costs_more" if diff > 0 else "costs_less", amount=abs(diff), currency=p.currency))
    if p.tokens_per_s and primary.tokens_per_s and abs(p.tokens_per_s / primary.tokens_per_s - 1) >= 0.05:
        ratio = p.tokens_per_s / primary.tokens_per_s
        out.append(note("slower_by" if ratio < 1 else "faster_by", pct=abs(ratio - 1) * 100))
    room = p.gpu_memory_gib * p.count - primary.gpu_memory_gib * primary.count
    if abs(room) >= 4:
        out.append(note("less_memory" if room < 0 else "more_memory", gib=abs(room)))
    if p.variant == "qlora" and primary.variant != "qlora":
        out.append(note("qlora_tradeoff"))
    if p.variant in ("awq", "fp8") and primary.variant != p.variant:
        out.append(note("quantized_weights", precision=p.precision))
    if p.deployment == "cloud" and primary.deployment == "local":
        out.append(note("rent_recurring", monthly=p.monthly, hours=ctx.hours, currency=p.currency))
    if p.over_budget_by:
        out.append(note("over_budget", amount=p.over_budget_by, currency=p.currency))
    return out


def _explained(ctx: _Context, primary: Pick, alternatives: list[Pick], stretch: Pick | None) -> None:
    primary.reasons = _reasons(ctx, primary)
    for p in [*alternatives, *([stretch] if stretch else [])]:
        p.reasons = _reasons(ctx, p, lead=False)
        p.gives_up = _gives_up(ctx, p, primary)


def _suggest(ctx: _Context, stretch: Pick | None) -> list[Note]:
    """When nothing fits: which single change would make something fit, each with an example."""
    req, w = ctx.req, ctx.req.workload
    tries: list[tuple[str, dict[str, int], RecommendRequest]] = []
    if w.batch > 1 or req.users:
        fewer = max(1, w.batch // 4)
        lighter = w.model_copy(update={"batch": fewer})
        tries.append(
            ("suggest_fewer_users", {"batch": fewer}, req.model_copy(update={"workload": lighter, "users": None}))
        )
    if (ctx.sized or w).context_tokens > 4096:  # the context as sized: a default 8k for local inference too
        shorter = w.model_copy(update={"context_tokens": 4096})
        tries.append(("suggest_shorter_context", {"tokens": 4096}, req.model_copy(update={"workload": shorter})))
    if req.num_gpus is not None:  # the count was a what-if: let it go
        tries.append(("suggest_any_count", {}, req.model_copy(update={"num_gpus": None, "max_gpus": None})))
    elif req.num_gpus is None and ctx.max_gpus < MAX_GPUS:
        more = min(MAX_GPUS, ctx.max_gpus * 2)
        tries.append(("suggest_more_gpus", {"most": more}, req.model_copy(update={"max_gpus": more})))
    if (req.budget or req.monthly_budget) and stretch is None:  # a stretch option already says what more buys
        tries.append(("suggest_more_budget", {}, req.model_copy(update={"budget": None, "monthly_budget": None})))
    if req.deployment != "either":
        tries.append(("suggest_either_place", {}, req.model_copy(update={"deployment": "either"})))
    out = []
    for code, params, alt in tries:
        p = recommend_gpus(alt.model_copy(update={"limit": 1}), suggest=False).primary
        if p is not None:
            code = "suggest_rent_instead" if p.deployment == "cloud" and code == "suggest_either_place" else code
            out.append(note(code, **params, count=p.count, gpu=p.gpu, spend=p.spend, currency=p.currency))
    return out or [note("suggest_nothing")]


def _assumptions(ctx: _Context, sized: list[Note], persona_source: str) -> list[Note]:
    req = ctx.req
    out = [note(f"persona_{ctx.persona}", source=persona_source)]
    if persona_source == "serving" and ctx.sized is not None:  # why a team's server with no budget said
        out.insert(0, note("persona_serving", batch=ctx.sized.batch))
    if req.budget is not None:
        scope = "machine" if req.budget_includes_host else "gpus"
        out.append(note(f"budget_covers_{scope}", budget=req.budget, currency=req.currency))
    out += sized
    out.append(note("fit_rule", headroom=ctx.headroom, engine=ctx.engine))
    if _serving(ctx):  # a service is ranked with room for bursts: say so
        out.append(note("serving_free_share", share=advice.serving_free_share()))
    if ctx.max_gpus > 1:  # "一张卡": no option has several cards, so how they split work is not an assumption
        out.append(note("multi_gpu_layout"))
    out.append(note("rent_hours", hours=ctx.hours))
    if ctx.market == "cn":
        out.append(note("market_cn"))
    out.append(note("costs_basis", currency=req.currency, years=req.horizon_years))
    return out


# ---- the tool ----------------------------------------------------------------------------------------------


def _widen(ctx: _Context, options: list[Pick]) -> Note | None:
    """Why the persona's fallback segments are in, if they are: nothing it buys fits the budget (a company under
    ¥50万); or, with no budget said, all it buys is a whole 8-GPU server for a job one or two of its GPUs hold (30
    users of a 14B on an HGX H20 board in China): a PCIe server with one or two professional cards does it too."""
    if ctx.req.deployment == "cloud" or not advice.persona_rules(ctx.persona).fallback_segments:
        return None
    own = [o for o in options if o.deployment == "local" and o.within_budget is not False]
    if not own:
        return note("rec_widened")
    # the options that may lead: the way asked (or a gentler way that may lead on fewer cards, FP8), at a usable
    # speed per user (an L4 at 8 tokens/s per user is no option for 50 users; an L4 at 4-bit does not lead)
    w = ctx.sized or ctx.req.workload
    leaders = [] if w.precision and ctx.req.workload.precision else advice.may_lead(w.mode, False)
    own = [o for o in own if (o.variant == "asked" or o.variant in leaders) and not _too_slow(ctx, o)]
    few = advice.policy()["board_oversized_at_most"]
    if own and ctx.req.budget is None and all(o.board_for is not None and o.board_for <= few for o in own):
        board = min(own, key=lambda o: o.spend)
        return note(
            "rec_widened_board",
            gpu=board.gpu,
            count=board.count,
            need=board.board_for,
            spend=board.spend,
            currency=board.currency,
        )
    return None


def recommend_gpus(req: RecommendRequest, suggest: bool = True) -> RecommendResult:
    """What to buy or rent: a primary pick, labelled alternatives, the stretch option, all within the rules."""
    with shared_estimates():  # one workload sized on many cards and counts: each distinct request once
        result = _recommend(req, suggest)
        return _buyer_for_full(req, result, suggest) or result


def _buyer_for_full(req: RecommendRequest, result: RecommendResult, suggest: bool) -> RecommendResult | None:
    """A full fine-tune that no personal rig holds as asked ("70B SFT without peft", "全参微调 70B"): the method
    was chosen, so it is sized for the buyer who can run it (a team's box, else servers), not swapped for LoRA;
    the cheaper methods stay in the answer as what a PC could do instead."""
    if req.persona is not None or req.budget is not None or req.monthly_budget is not None:
        return None
    if req.workload.mode != "full" or req.deployment == "cloud" or result.persona != "individual":
        return None
    if result.primary is None or result.primary.mode == "full":
        return None
    for persona in advice.policy()["full_fine_tune_buyers"]:
        found = _recommend(req.model_copy(update={"persona": persona}), suggest)
        if found.primary is not None and found.primary.mode == "full":
            found.assumptions.insert(0, note("persona_full_fine_tune", persona=persona))
            return found
    return None


def _recommend(req: RecommendRequest, suggest: bool) -> RecommendResult:
    stated = req.persona is not None
    persona: Persona = req.persona or advice.persona_from_budget(req.budget, req.currency)
    w = req.workload
    concurrent = advice.concurrent_from_users(req.users) if req.users and w.mode == "inference" else w.batch
    service = not stated and persona == "individual" and w.mode == "inference" and advice.shared_service(concurrent)
    if service:  # "100 concurrent users, what GPU?": a shared service is a team's server, not one person's PC
        persona = "team"
    # a service runs around the clock; otherwise the stated hours or the busy share of the month
    busy = 1.0 if req.serving and req.hours_per_month is None else req.utilization
    hours = req.hours_per_month or tco_defaults()["hours_per_month"] * busy
    ctx = _Context(
        req=req,
        persona=persona,
        market=req.market or ("cn" if req.currency == "CNY" else "global"),
        max_gpus=req.num_gpus or req.max_gpus or advice.persona_rules(persona).max_gpus,
        hours=hours,
        headroom=headroom_or_default(req.headroom),
    )
    sized, sized_notes = _sized_workload(req, persona)
    if req.budget is None and req.monthly_budget is None and req.deployment != "cloud" and not req.gpus:
        soft = advice.unstated_budget(persona, req.currency)
        if soft is not None:
            ctx = ctx.model_copy(update={"soft_budget": soft})
            sized_notes = [*sized_notes, note("unstated_budget", budget=soft, currency=req.currency)]
    engine = engine_for(sized.engine, sized.mode, resolve_precision(sized.precision or "bf16").kind)
    headroom = req.headroom if req.headroom is not None else headroom_for(engine)
    ctx = ctx.model_copy(update={"sized": sized, "headroom": headroom, "engine": engine})
    options, considered, needs = _options(ctx, sized)
    widened = _widen(ctx, options)
    if widened:
        ctx = ctx.model_copy(update={"widened": True})
        options, considered, needs = _options(ctx, sized)
        sized_notes = [*sized_notes, widened]
    full = _full_precision_need(ctx, req, sized)
    primary, alternatives, stretch, ranked = _choose(ctx, options)
    if primary is not None:
        _explained(ctx, primary, alternatives, stretch)
    elif stretch is not None:
        stretch.reasons = _reasons(ctx, stretch)
    probe = estimate_vram(sized)
    nothing = primary is None
    return RecommendResult(
        model=probe.model,
        needs=[*([full] if full else []), *needs],
        workload=f"{probe.model}, {probe.mode}, {probe.precision}, {probe.context_tokens:,} tokens x {probe.batch}",
        sized_workload=sized,
        persona=persona,
        persona_source="stated" if stated else ("serving" if service else "budget"),
        market=ctx.market,
        currency=req.currency,
        budget=req.budget,
        budget_covers="machine" if req.budget_includes_host else "gpus",
        hours_per_month=round(hours, 1),
        primary=primary,
        alternatives=alternatives,
        stretch=stretch,
        options=ranked[: req.limit],
        considered=considered,
        nothing_fits=nothing,
        suggestions=_suggest(ctx, stretch) if nothing and suggest else [],
        assumptions=_assumptions(ctx, sized_notes, "stated" if stated else ("serving" if service else "budget")),
        warnings=list(probe.warnings),
    )
