"""Human-readable tables for calculator results (rich)."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from tools.speed import SpeedResult
from tools.vram import VramResult


def _notes(console: Console, assumptions: list[str], warnings: list[str]) -> None:
    for w in warnings:
        console.print(f"[yellow]warning:[/] {w}")
    console.print("[dim]assumptions:[/]")
    for a in assumptions:
        console.print(f"[dim]  - {a}[/]")


def vram(console: Console, r: VramResult) -> None:
    title = f"{r.model} — {r.mode}, {r.precision}, {r.context_tokens:,} tokens x {r.batch}"
    table = Table(title=title, show_header=True, header_style="bold")
    table.add_column("component")
    table.add_column("per GPU (GiB)", justify="right")
    table.add_column(f"total over {r.num_gpus} GPU(s) (GiB)", justify="right")
    for key, value in r.per_gpu_breakdown_gib.items():
        if value or key in ("weights", "overhead"):
            table.add_row(key, f"{value:,.2f}", f"{r.breakdown_gib[key]:,.2f}")
    table.add_row("[bold]total", f"[bold]{r.per_gpu_gib:,.2f}", f"[bold]{r.total_gib:,.2f}")
    console.print(table)
    console.print(
        f"parameters {r.params_b:g}B (active {r.active_params_b:g}B), {r.weight_bits_per_param:g} bits/weight; "
        f"tp={r.tp} pp={r.pp} dp={r.dp}" + (f"; CPU offload {r.cpu_offload_gib:g} GiB" if r.cpu_offload_gib else "")
    )
    _notes(console, r.assumptions, r.warnings)


def speed(console: Console, r: SpeedResult) -> None:
    table = Table(
        title=f"{r.model} on {r.num_gpus}x {r.gpu} ({r.parallel} parallel, {r.precision})", header_style="bold"
    )
    table.add_column("metric")
    table.add_column("value", justify="right")
    rows = [
        ("decode tokens/s per sequence", r.decode_tokens_per_s),
        (f"decode tokens/s total ({r.batch} sequences)", r.decode_tokens_per_s_total),
        ("time per output token (ms)", r.time_per_output_token_ms),
        ("prefill tokens/s", r.prefill_tokens_per_s),
        (f"time to first token, {r.context_tokens:,}-token prompt (s)", r.ttft_s),
        ("training tokens/s", r.training_tokens_per_s),
        ("time to train (hours)", r.time_to_train_hours),
    ]
    for label, value in rows:
        if value is not None:
            table.add_row(label, f"{value:,.2f}" if value < 100 else f"{value:,.0f}")
    table.add_row("bound by", r.bound)
    table.add_row(
        "memory per GPU (GiB)",
        f"{r.memory_per_gpu_gib:,.1f} of {r.gpu_memory_gib:g}" + ("" if r.fits_in_memory else " [red](does not fit)"),
    )
    console.print(table)
    _notes(console, r.assumptions, r.warnings)


def gpus(console: Console, r) -> None:
    table = Table(
        title=f"{r.matched} GPUs match" + (f" (showing {len(r.gpus)})" if r.matched > len(r.gpus) else ""),
        header_style="bold",
    )
    for col in ("GPU", "GiB", "GB/s", "BF16 TF", "FP8 TF", "NVLink", "ECC", "TDP W", "price", "per GiB"):
        table.add_column(col, justify="left" if col == "GPU" else "right")
    for g in r.gpus:
        table.add_row(
            g.name.replace("NVIDIA ", ""),
            f"{g.usable_gib:g}",
            f"{g.bandwidth_gbs:,.0f}",
            _num(g.bf16_tflops),
            _num(g.fp8_tflops),
            f"{g.nvlink_gbs:g}" if g.nvlink and g.nvlink_gbs else ("yes" if g.nvlink else "-"),
            "yes" if g.ecc else "-",
            _num(g.tdp_w),
            f"{g.price:,.0f} {g.currency}" if g.price else "-",
            f"{g.price_per_gib:,.0f}" if g.price_per_gib else "-",
        )
    console.print(table)
    _notes(console, r.assumptions, r.warnings)


def gpu_specs(console: Console, r) -> None:
    table = Table(title="GPU comparison (dense tensor TFLOPS)", header_style="bold")
    table.add_column("spec")
    for g in r.gpus:
        table.add_column(g.name.replace("NVIDIA ", ""), justify="right")
    fields = [
        ("memory (GiB)", "vram_gib"),
        ("memory type", "memory_type"),
        ("bandwidth (GB/s)", "bandwidth_gbs"),
        ("FP16 TFLOPS", "fp16_tflops"),
        ("BF16 TFLOPS", "bf16_tflops"),
        ("FP8 TFLOPS", "fp8_tflops"),
        ("NVLink (GB/s)", "nvlink_gbs"),
        ("ECC", "ecc"),
        ("MIG", "mig"),
        ("TDP (W)", "tdp_w"),
        ("form factor", "form_factor"),
        ("price", "price"),
        ("verified", "verified"),
    ]
    for label, key in fields:
        table.add_row(label, *[_num(getattr(g, key)) for g in r.gpus])
    console.print(table)
    for d in r.differences:
        console.print(f"- {d}")
    _notes(console, r.assumptions, r.warnings)


def fit(console: Console, r) -> None:
    console.print(f"[bold]{r.model}[/] on {r.num_gpus}x {r.gpu} ({r.usable_gib_per_gpu:g} GiB usable per GPU)")
    console.print(
        f"  best precision that fits: [bold]{r.best_precision or 'none'}[/]"
        + (f" (also: {', '.join(r.precisions_that_fit[1:])})" if len(r.precisions_that_fit) > 1 else "")
    )
    if r.max_context:
        console.print(f"  longest context at batch 1: [bold]{r.max_context:,}[/] tokens")
    if r.max_concurrent_sequences:
        ctx = r.memory_at_answer.context_tokens if r.memory_at_answer else 0
        console.print(f"  most concurrent sequences at {ctx:,} tokens: [bold]{r.max_concurrent_sequences:,}[/]")
    console.print(f"  limiting factor: {r.limiting_factor}")
    _notes(console, r.assumptions, r.warnings)


def tco(console: Console, r) -> None:
    c = r.currency
    console.print(
        f"[bold]{r.num_gpus}x {r.gpu}[/] over {r.horizon_months} months, {r.busy_hours_per_month:,.0f} busy hours/month"
    )
    table = Table(header_style="bold")
    for col in ("option", f"up front ({c})", f"per month ({c})", f"total ({c})", "break-even h/month"):
        table.add_column(col, justify="left" if col == "option" else "right")
    table.add_row(
        "buy", f"{r.upfront:,.0f}", f"{r.power_monthly + r.maintenance_monthly:,.0f}", f"{r.buy_total:,.0f}", "-"
    )
    for o in r.rent:
        table.add_row(
            f"rent {o.kind.replace('_', ' ')} ({o.price_per_gpu_hour:,.2f}/GPU-h)",
            "0",
            f"{o.monthly:,.0f}",
            f"{o.total:,.0f}",
            _num(o.break_even_hours_per_month),
        )
    console.print(table)
    console.print(
        f"cheapest over the horizon: [bold]{r.cheapest.replace('_', ' ')}[/]"
        + (f"; on-demand rent passes owning in month {r.break_even_month}" if r.break_even_month else "")
    )
    _notes(console, r.assumptions, r.warnings)


def recommend(console: Console, r) -> None:
    from tools.notes import money

    console.print(f"[bold]{r.workload}[/] — {r.persona}, {r.market} market")
    picks = [p for p in (r.primary, *r.alternatives, r.stretch) if p is not None]
    if r.nothing_fits:
        console.print("[red]nothing fits within the constraints[/]")
        for s in r.suggestions:
            console.print(f"  - {s.text}")
    if picks:
        table = Table(header_style="bold")
        for col in ("", "option", "GiB/GPU", "tokens/s", "cost", "gives up"):
            table.add_column(col, overflow="fold")
        for p in picks:
            cost = f"{money(p.hourly or 0, p.currency)}/h" if p.deployment == "cloud" else money(p.spend, p.currency)
            table.add_row(
                p.label or "",
                f"{p.count}x {p.gpu} ({p.condition}, {p.mode} {p.precision})",
                f"{p.memory_per_gpu_gib:.1f} of {p.usable_gib_per_gpu:g}",
                _num(p.tokens_per_s),
                cost,
                "; ".join(n.text for n in p.gives_up) or "; ".join(n.text for n in p.reasons[:2]),
            )
        console.print(table)
    _notes(console, [n.text for n in r.assumptions], [n.text for n in r.warnings])


def _num(value) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float | int):
        return f"{value:,.0f}" if value >= 100 else f"{value:g}"
    return str(value)
