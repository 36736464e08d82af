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
