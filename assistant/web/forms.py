"""The Calculators tab: form values -> tool request -> markdown, charts and the full result.

Each `run_*` takes plain values (what Gradio components hold), calls one calculator in tools/ and
never raises: a bad input becomes a one-line message a person can act on.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pandas as pd
from pydantic import ValidationError

from assistant.errors import describe_error
from assistant.web.charts import Chart, gpu_memory_chart, gpu_price_chart, memory_chart, tco_chart
from assistant.web.i18n import t
from tools.errors import AdvisorError


@dataclass
class CalcOutput:
    markdown: str
    charts: dict[str, Chart] = field(default_factory=dict)
    table: pd.DataFrame | None = None
    data: dict[str, Any] = field(default_factory=dict)


def _safe(fn: Callable[..., CalcOutput]) -> Callable[..., CalcOutput]:
    def wrapper(lang: str, *args: Any, **kwargs: Any) -> CalcOutput:
        try:
            return fn(lang, *args, **kwargs)
        except (AdvisorError, ValidationError, ValueError, TypeError, KeyError) as exc:
            return CalcOutput(markdown=t(lang, "calc_error", message=describe_error(exc)))

    wrapper.__name__ = fn.__name__
    wrapper.__doc__ = fn.__doc__
    return wrapper


def _blank(value: Any) -> Any:
    """Empty text boxes and cleared numbers mean 'not given'."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    return value.strip() if isinstance(value, str) else value


def _int(value: Any) -> int | None:
    """A positive whole number, or None: a cleared Gradio Number arrives as 0, which means 'not given' here."""
    value = _blank(value)
    return None if value is None or float(value) <= 0 else int(float(value))


def _float(value: Any) -> float | None:
    """A positive number, or None for empty / 0 (see `_int`)."""
    value = _blank(value)
    return None if value is None or float(value) <= 0 else float(value)


def _notes(lang: str, assumptions: list[str], warnings: list[str]) -> str:
    out = ""
    if warnings:
        out += f"\n\n**{t(lang, 'r_warnings')}**\n" + "\n".join(f"- {w}" for w in warnings)
    if assumptions:
        items = "\n".join(f"- {a}" for a in assumptions)
        out += f"\n\n<details><summary>{t(lang, 'assumptions')}</summary>\n\n{items}\n\n</details>"
    return out


def _model_ref(model: Any, params_b: Any) -> dict[str, Any]:
    model = _blank(model)
    return {"model": model} if model else {"params_b": _float(params_b)}


def gpu_capacity(name: str | None) -> tuple[str, float] | None:
    """Short name and usable memory (GiB) of a GPU by fuzzy name, or None when unknown."""
    if not _blank(name):
        return None
    from tools.catalog import resolve_gpu
    from tools.gpu_search import gpu_row

    try:
        gpu, _ = resolve_gpu(str(name))
    except (AdvisorError, ValueError):
        return None
    return short_gpu_name(gpu.name), gpu_row(gpu, "USD").usable_gib


def short_gpu_name(name: str) -> str:
    """'NVIDIA GeForce RTX 4090' -> 'RTX 4090': what people type and what the chat understands."""
    for prefix in ("NVIDIA GeForce ", "NVIDIA Tesla ", "NVIDIA ", "AMD Instinct ", "AMD Radeon ", "AMD ", "Intel "):
        if name.startswith(prefix):
            return name[len(prefix) :]
    return name


def model_display(name: str | None) -> str | None:
    """The registry's spelling of a model ('qwen2.5-7b' -> 'Qwen2.5-7B'), or None when unknown."""
    if not _blank(name):
        return None
    from tools.models import resolve_model

    try:
        return resolve_model(str(name))[0].name
    except (AdvisorError, ValueError):
        return None


def scenario_names(summary: dict[str, Any]) -> dict[str, str]:
    """Display names for the scenario panel's model and GPU slots."""
    names = {}
    if model := model_display(summary.get("model")):
        names["model"] = model
    if gpu := gpu_capacity(summary.get("gpu")):
        names["gpu"] = gpu[0]
    return names


def gpu_choices() -> list[str]:
    from tools.catalog import catalog

    return [short_gpu_name(g.name) for g in catalog().values()]


def model_choices() -> list[str]:
    from tools.models import registry

    return [m.name for m in registry().values()]


def reference_capacities(vram: dict[str, Any]) -> list[tuple[str, float]]:
    """Cards to draw next to a memory estimate when no GPU was named: the smallest common card that fits, and 80 GB."""
    need = float(vram.get("per_gpu_gib") or 0)
    cards = [("RTX 4090", 24.0), ("RTX 5090", 32.0), ("RTX 6000 Ada", 48.0), ("H100 80GB", 80.0), ("H200", 141.0)]
    fitting = [c for c in cards if c[1] >= need]
    picks = [cards[0]] if not fitting or fitting[0] == cards[0] else [cards[0], fitting[0]]
    if fitting and fitting[0][1] < 80:
        picks.append(cards[3])
    return list(dict.fromkeys(picks))


# --- memory ------------------------------------------------------------------------------------------------


@_safe
def run_vram(
    lang: str,
    model: str | None,
    params_b: float | None,
    mode: str,
    precision: str | None,
    kv_dtype: str | None,
    context_tokens: float | None,
    batch: float | None,
    num_gpus: float | None,
    grad_checkpointing: bool,
    optimizer: str | None,
    zero_stage: Any,
    lora_rank: float | None,
    compare_gpu: str | None,
) -> CalcOutput:
    """GPU memory for a workload, stacked against a card."""
    from tools.vram import VramRequest, estimate_vram

    args: dict[str, Any] = _model_ref(model, params_b) | {"mode": mode or "inference"}
    for key, value in (
        ("precision", _blank(precision)),
        ("kv_dtype", _blank(kv_dtype)),
        ("context_tokens", _int(context_tokens)),
        ("batch", _int(batch)),
        ("num_gpus", _int(num_gpus)),
        ("optimizer", _blank(optimizer)),
        ("zero_stage", int(zero_stage) if _blank(zero_stage) is not None else None),
        ("lora_rank", _int(lora_rank)),
    ):
        if value is not None:
            args[key] = value
    args["grad_checkpointing"] = bool(grad_checkpointing)
    result = estimate_vram(VramRequest(**args)).model_dump(mode="json")
    return vram_output(lang, result, compare_gpu)


def vram_output(lang: str, result: dict[str, Any], compare_gpu: str | None = None) -> CalcOutput:
    md = t(
        lang,
        "r_vram_head",
        model=result["model"],
        mode=t(lang, f"mode.{result['mode']}"),
        precision=result["precision"],
        context=result["context_tokens"],
        batch=result["batch"],
        per_gpu=result["per_gpu_gib"],
        total=result["total_gib"],
        n=result["num_gpus"],
    )
    rows = [f"| {t(lang, 'r_component')} | {t(lang, 'r_gib_per_gpu')} |", "|---|---:|"]
    rows += [f"| {t(lang, 'component.' + k)} | {v:.2f} |" for k, v in result["per_gpu_breakdown_gib"].items() if v]
    md += "\n\n" + "\n".join(rows)
    capacity = gpu_capacity(compare_gpu)
    if capacity:
        name, gib = capacity
        need = result["per_gpu_gib"]
        md += "\n\n" + (
            t(lang, "r_fits", gpu=name, vram=gib, spare=gib - need)
            if need <= gib
            else t(lang, "r_not_fits", gpu=name, vram=gib, over=need - gib)
        )
    md += _notes(lang, result["assumptions"], result["warnings"])
    capacities = [capacity] if capacity else reference_capacities(result)
    return CalcOutput(markdown=md, charts={"memory": memory_chart(result, capacities, lang)}, data=result)


# --- speed -------------------------------------------------------------------------------------------------


@_safe
def run_speed(
    lang: str,
    model: str | None,
    params_b: float | None,
    gpu: str,
    num_gpus: float | None,
    workload: str,
    method: str | None,
    precision: str | None,
    context_tokens: float | None,
    batch: float | None,
) -> CalcOutput:
    """Decode/prefill (inference) or training tokens/s on named GPUs."""
    from tools.speed import SpeedRequest, estimate_speed

    args: dict[str, Any] = _model_ref(model, params_b) | {"gpu": _blank(gpu) or "", "mode": workload or "inference"}
    for key, value in (
        ("num_gpus", _int(num_gpus)),
        ("precision", _blank(precision)),
        ("context_tokens", _int(context_tokens)),
        ("batch", _int(batch)),
    ):
        if value is not None:
            args[key] = value
    if args["mode"] == "training":
        args["method"] = method or "full"
        args["grad_checkpointing"] = args["method"] in ("lora", "qlora")
    r = estimate_speed(SpeedRequest(**args)).model_dump(mode="json")
    bound = (
        t(lang, f"bound.{r['bound']}")
        if f"{r['bound']}" in ("memory-bandwidth", "compute", "interconnect")
        else r["bound"]
    )
    if r.get("training_tokens_per_s") is not None:
        md = t(
            lang,
            "r_speed_training",
            model=r["model"],
            method=t(lang, f"mode.{args['method']}"),
            n=r["num_gpus"],
            gpu=r["gpu"],
            tps=r["training_tokens_per_s"],
            bound=bound,
            mem=r["memory_per_gpu_gib"],
            cap=r["gpu_memory_gib"],
        )
    else:
        md = t(
            lang,
            "r_speed_inference",
            model=r["model"],
            n=r["num_gpus"],
            gpu=r["gpu"],
            precision=r["precision"],
            decode=r["decode_tokens_per_s"] or 0,
            total=r["decode_tokens_per_s_total"] or 0,
            batch=r["batch"],
            prefill=r["prefill_tokens_per_s"] or 0,
            ttft=r["ttft_s"] or 0,
            bound=bound,
            mem=r["memory_per_gpu_gib"],
            cap=r["gpu_memory_gib"],
        )
    if not r["fits_in_memory"]:
        md += "\n\n" + t(lang, "r_not_in_memory")
    md += _notes(lang, r["assumptions"], r["warnings"])
    return CalcOutput(markdown=md, data=r)


# --- catalog -----------------------------------------------------------------------------------------------

GPU_TABLE_COLUMNS = (
    "name",
    "segment",
    "vram_gib",
    "bandwidth_gbs",
    "bf16_tflops",
    "fp8_tflops",
    "nvlink",
    "tdp_w",
    "price",
    "price_per_gib",
)
FEATURES = ("bf16", "fp8", "nvlink", "ecc", "mig")


@_safe
def run_gpus(
    lang: str,
    min_vram_gib: float | None,
    max_price: float | None,
    currency: str,
    vendor: str | None,
    segment: str | None,
    features: list[str] | None,
    sort_by: str,
    limit: float | None,
) -> CalcOutput:
    """Filter and rank the GPU catalog; chart price vs BF16 TFLOPS and memory vs bandwidth."""
    from tools.gpu_search import FindGpusRequest, find_gpus

    args: dict[str, Any] = {
        "currency": currency or "USD",
        "sort_by": sort_by or "price_per_gib",
        "limit": _int(limit) or 20,
    }
    for key, value in (
        ("min_vram_gib", _float(min_vram_gib)),
        ("max_price", _float(max_price)),
        ("vendor", _blank(vendor)),
        ("segment", _blank(segment)),
    ):
        if value is not None:
            args[key] = value
    for feature in features or []:
        if feature in FEATURES:
            args[f"need_{feature}"] = True
    result = find_gpus(FindGpusRequest(**args)).model_dump(mode="json")
    return gpus_output(lang, result["gpus"], args["currency"], result)


def gpus_output(lang: str, rows: list[dict[str, Any]], currency: str, data: dict[str, Any] | None = None) -> CalcOutput:
    table = pd.DataFrame([{t(lang, f"col.{c}"): r.get(c) for c in GPU_TABLE_COLUMNS} for r in rows])
    md = f"**{t(lang, 'gpus_table')}**: {len(rows)}"
    if data:
        md += _notes(lang, data.get("assumptions", []), data.get("warnings", []))
    charts = {"price": gpu_price_chart(rows, currency, lang), "memory": gpu_memory_chart(rows, lang)}
    return CalcOutput(markdown=md, charts=charts, table=table, data=data or {"gpus": rows})


def empty_table(lang: str, columns: tuple[str, ...]) -> pd.DataFrame:
    """A table with headers only, shown before the first calculation."""
    return pd.DataFrame(columns=[t(lang, f"col.{c}") for c in columns])


def catalog_rows(currency: str = "USD") -> list[dict[str, Any]]:
    """Every GPU of the catalog as find_gpus rows, for the default comparison charts."""
    from tools.gpu_search import FindGpusRequest, find_gpus

    return find_gpus(FindGpusRequest(currency=currency, limit=100, sort_by="bf16_tflops")).model_dump(mode="json")[
        "gpus"
    ]


# --- buy vs rent -------------------------------------------------------------------------------------------


@_safe
def run_tco(
    lang: str,
    gpu: str,
    num_gpus: float | None,
    horizon_years: float | None,
    utilization: float | None,
    currency: str,
    gpu_price: float | None,
    electricity_price: float | None,
    cloud_price: float | None,
) -> CalcOutput:
    """Buy vs rent over a horizon, with the cumulative cost chart and the break-even month."""
    from tools.tco import TcoRequest, calculate_tco

    args: dict[str, Any] = {"gpu": _blank(gpu) or "", "currency": currency or "USD"}
    for key, value in (
        ("num_gpus", _int(num_gpus)),
        ("horizon_years", _float(horizon_years)),
        ("utilization", _float(utilization)),
        ("gpu_price", _float(gpu_price)),
        ("electricity_price_per_kwh", _float(electricity_price)),
        ("cloud_price_per_gpu_hour", _float(cloud_price)),
    ):
        if value is not None:
            args[key] = value
    return tco_output(lang, calculate_tco(TcoRequest(**args)).model_dump(mode="json"))


def tco_output(lang: str, r: dict[str, Any]) -> CalcOutput:
    cur = r["currency"]
    md = t(
        lang,
        "r_tco",
        n=r["num_gpus"],
        gpu=r["gpu"],
        months=r["horizon_months"],
        busy=r["busy_hours_per_month"],
        buy=r["buy_total"],
        cur=cur,
        upfront=r["upfront"],
        resale=r["resale_value"],
        cheapest=r["cheapest"],
    )
    month = r.get("break_even_month")
    md += " " + (t(lang, "r_break_even", month=month) if month is not None else t(lang, "r_no_break_even"))
    rows = [
        f"| {t(lang, 'r_rent_kind')} | {t(lang, 'r_per_hour')} | {t(lang, 'r_monthly')} | {t(lang, 'r_total')} "
        f"| {t(lang, 'r_break_even_hours')} |",
        "|---|---:|---:|---:|---:|",
    ]
    for o in r["rent"]:
        hours = "-" if o["break_even_hours_per_month"] is None else f"{o['break_even_hours_per_month']:,.0f}"
        rows.append(
            f"| {o['kind']} | {o['price_per_gpu_hour']:,.2f} | {o['monthly']:,.0f} | {o['total']:,.0f} | {hours} |"
        )
    md += "\n\n" + "\n".join(rows) + _notes(lang, r["assumptions"], r["warnings"])
    return CalcOutput(markdown=md, charts={"tco": tco_chart(r, lang)}, data=r)


# --- recommend ---------------------------------------------------------------------------------------------

OPTION_COLUMNS = (
    "gpu",
    "count",
    "deployment",
    "memory_per_gpu_gib",
    "gpu_memory_gib",
    "tokens_per_s",
    "upfront",
    "monthly",
    "cost_over_horizon",
    "why",
)


@_safe
def run_recommend(
    lang: str,
    model: str | None,
    params_b: float | None,
    mode: str,
    precision: str | None,
    context_tokens: float | None,
    batch: float | None,
    budget: float | None,
    monthly_budget: float | None,
    currency: str,
    deployment: str,
    preference: str,
) -> CalcOutput:
    """Ranked GPU x count options for a workload and budget."""
    from tools.recommend import RecommendRequest, recommend_gpus

    workload: dict[str, Any] = _model_ref(model, params_b) | {"mode": mode or "inference"}
    for key, value in (
        ("precision", _blank(precision)),
        ("context_tokens", _int(context_tokens)),
        ("batch", _int(batch)),
    ):
        if value is not None:
            workload[key] = value
    if workload["mode"] in ("lora", "qlora"):
        workload["grad_checkpointing"] = True
    args: dict[str, Any] = {
        "workload": workload,
        "currency": currency or "CNY",
        "deployment": deployment or "either",
        "preference": preference or "balanced",
    }
    for key, value in (("budget", _float(budget)), ("monthly_budget", _float(monthly_budget))):
        if value is not None:
            args[key] = value
    return recommend_output(lang, recommend_gpus(RecommendRequest(**args)).model_dump(mode="json"))


def recommend_output(lang: str, r: dict[str, Any]) -> CalcOutput:
    md = f"**{r['workload']}**"
    if r["nothing_fits"]:
        md += "\n\n" + t(lang, "r_nothing_fits")
    if r["suggestions"]:
        md += f"\n\n**{t(lang, 'r_suggestions')}**\n" + "\n".join(f"- {s}" for s in r["suggestions"])
    md += _notes(lang, r["assumptions"], r["warnings"])
    table = pd.DataFrame([{t(lang, f"col.{c}"): o.get(c) for c in OPTION_COLUMNS} for o in r["options"]])
    return CalcOutput(markdown=md, table=table, data=r)


# --- workstation -------------------------------------------------------------------------------------------


@_safe
def run_build(lang: str, gpu: str, num_gpus: float | None, use: str) -> CalcOutput:
    """Power supply, RAM, CPU, PCIe lanes, slots, NVLink and cooling for an N-GPU machine."""
    from tools.workstation import WorkstationRequest, plan_workstation

    p = plan_workstation(
        WorkstationRequest(gpu=_blank(gpu) or "", num_gpus=_int(num_gpus) or 1, use=use or "inference")
    ).model_dump(mode="json")

    def w(value: float | None) -> str | None:
        return None if value is None else f"{value:,.0f} W"

    platform = p.get("platform")
    rows = [
        ("build_kind", p["build_kind"]),
        ("platform", platform and f"{platform['name']} ({platform['cpu_lanes_usable']} CPU lanes)"),
        ("gpu_power", p["gpu_power_w"] and f"{p['num_gpus']} × {p['gpu_power_w']:,.0f} W = {p['gpu_total_w']:,.0f} W"),
        ("steady_load", w(p["steady_load_w"])),
        ("psu", p["psu_layout"] + (f" (≥ {p['psu_required_w']:,.0f} W)" if p["psu_required_w"] else "")),
        ("wall_power", w(p["wall_power_w"])),
        ("connectors", ", ".join(f"{n} × {kind}" for kind, n in p["power_connectors"].items()) or None),
        ("ram", p["system_ram_gib"] and f"{p['system_ram_gib']} GiB"),
        ("cpu_cores", p["cpu_cores"] and str(p["cpu_cores"])),
        ("pcie", p["pcie_lanes_needed"] and f"{p['pcie_lanes_needed']} (x{p['pcie_link_width']} per GPU)"),
        ("slots", p["slots_needed"] and f"{p['slots_needed']} ({p['gpu_slots']}-slot cards)"),
        ("nvlink", p["nvlink_note"]),
        ("cooling", "; ".join(p["cooling_notes"]) or None),
    ]
    md = f"**{p['num_gpus']} × {p['gpu']}**\n\n| {t(lang, 'build.item')} | {t(lang, 'build.plan')} |\n|---|---|\n"
    md += "\n".join(f"| {t(lang, 'build.' + k)} | {str(v).replace('|', '/')} |" for k, v in rows if v)
    md += _notes(lang, p["assumptions"], p["warnings"])
    return CalcOutput(markdown=md, data=p)
