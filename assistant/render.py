"""Human-readable tables for calculator results, and assistant answers, in the terminal (rich)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from assistant.render_options import MAX_CELL_LINES, print_options
from tools.notes import Note
from tools.speed import SpeedResult
from tools.vram import VramResult


def print_table(
    console: Console,
    title: str | None,
    columns: Sequence[tuple[str, str]],
    rows: Sequence[Sequence[str]],
    whole: int | None = 0,
    max_lines: int = MAX_CELL_LINES,
    head: int | None = None,
) -> None:
    """Print `rows` under `columns` ((header, justify) pairs) without cutting a word, a number or a header.

    Column `whole` (an id) stays on one line; the others wrap at spaces into at most `max_lines` lines. When
    that does not fit the terminal even with light borders, each row becomes a block headed by column `head`
    (by default the id, else the first column).
    """
    head = head if head is not None else whole if whole is not None else 0
    print_options(console, title, columns, rows, whole=whole, head=head, max_lines=max_lines)


def _notes(console: Console, assumptions: Sequence[Note | str], warnings: Sequence[Note | str]) -> None:
    """Warnings, then assumptions: the calculator commands print in English (a note's text)."""
    for w in warnings:
        console.print(_hanging("warning:", _text(w), "yellow", ""))
    console.print("[dim]assumptions:[/]")
    for a in assumptions:
        console.print(_hanging("  -", _text(a), "dim", "dim"))


def _hanging(mark: str, text: str, mark_style: str, style: str) -> Table:
    """`mark text` with the text's wrapped lines under its first word, not under the mark (an 80-column list)."""
    grid = Table.grid(padding=(0, 1))
    grid.add_column(no_wrap=True)
    grid.add_column()
    grid.add_row(Text(mark, style=mark_style), Text(text, style=style))
    return grid


def _text(item: Note | str) -> str:
    return item.text if isinstance(item, Note) else item


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


def offload(console: Console, r: Any) -> None:
    where = f"{r.num_gpus}x {r.gpu}" if r.gpu else "CPU only"
    table = Table(title=f"{r.model} ({r.precision}) on {where} + {r.ram.memory.upper()}", header_style="bold")
    table.add_column("metric")
    table.add_column("value", justify="right")
    rows = [
        ("layout", r.strategy),
        ("layers on GPU", f"{r.layers_on_gpu} of {r.layers_total}"),
        ("on GPU (GiB)", f"{r.on_gpu_gib:,.1f} of {r.gpu_gib_available:,.1f}"),
        ("in RAM (GiB)", f"{r.in_ram_gib:,.1f}"),
        ("RAM needed (GiB)", f"{r.ram_needed_gib:,.1f}" + (f" of {r.ram_gib:g}" if r.ram_gib else "")),
        ("RAM bandwidth (GB/s, peak / in decode)", f"{r.ram.peak_gbs:,.0f} / {r.ram.effective_gbs:,.0f}"),
        ("decode tokens/s", f"{r.decode_tokens_per_s:,.2f}"),
    ]
    if r.gpu_only_tokens_per_s:
        rows.append(("if it all fit on the GPU", f"{r.gpu_only_tokens_per_s:,.1f}"))
    for label, value in rows:
        table.add_row(label, value)
    console.print(table)
    _notes(console, r.assumptions, r.warnings)


def diagnose(console: Console, r: Any) -> None:
    """The ceiling against the measured number, then the causes with their fixes and sources."""
    where = f"{r.num_gpus}x {r.gpu}" if r.gpu else "no GPU named"
    title = f"{r.model or 'no model named'} ({r.precision or '-'}) on {where}: {r.symptom}"
    table = Table(title=title, header_style="bold")
    table.add_column("metric")
    table.add_column("value", justify="right")
    rows = [("verdict", r.verdict), ("ceiling (tokens/s)", _num(r.ceiling_tokens_per_s)), ("bound", r.bound or "-")]
    rows += [("measured (tokens/s)", _num(r.measured_tokens_per_s)), ("ceiling / measured", _num(r.gap))]
    if r.memory_per_gpu_gib is not None:
        rows.append(("memory per GPU (GiB)", f"{r.memory_per_gpu_gib:,.1f} of {_num(r.usable_gib_per_gpu)}"))
    if r.offload_strategy:
        rows.append(("in RAM (GiB)", f"{r.in_ram_gib:,.1f} ({r.offload_strategy}, {_num(r.ram_effective_gbs)} GB/s)"))
    for label, value in rows:
        table.add_row(label, value)
    console.print(table)
    for i, cause in enumerate(r.causes, 1):
        console.print(f"[bold]{i}. {cause.id}[/]: {_text(cause.why)}\n   [green]fix:[/] {_text(cause.fix)}")
        for source in cause.sources[:2]:
            console.print(f"   [dim]{source.url} ({source.date})[/]")
    _notes(console, r.assumptions, r.warnings)


def models(console: Console, rows: Sequence[Any]) -> None:
    """The model registry: ids whole, the architecture in one column that wraps."""
    table_rows = []
    for a in rows:
        shape = [
            f"{a.num_layers} layers",
            f"hidden {a.hidden_size}",
            f"{a.num_attention_heads}/{a.num_key_value_heads} heads",
        ]
        if a.mla:
            shape.append("MLA")
        if a.moe:
            shape.append(f"MoE {a.moe.num_experts}e top-{a.moe.experts_per_token}")
        table_rows.append(
            [
                a.id,
                f"{a.params / 1e9:.2f}",
                f"{a.active_params / 1e9:.2f}",
                f"{a.max_context:,}" if a.max_context else "-",
                ", ".join(shape),
            ]
        )
    columns = [("id", "left"), ("params (B)", "right"), ("active (B)", "right"), ("context", "right")]
    print_table(console, f"{len(rows)} models", [*columns, ("architecture (heads: query/KV)", "left")], table_rows)


def gpus(console: Console, r) -> None:
    title = f"{r.matched} GPUs match" + (f" (showing {len(r.gpus)})" if r.matched > len(r.gpus) else "")
    headers = ("GPU", "GiB", "GB/s", "BF16 TF", "FP8 TF", "NVLink", "ECC", "TDP W", "price", "per GiB")
    rows = [
        [
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
        ]
        for g in r.gpus
    ]
    columns = [(h, "left" if h == "GPU" else "right") for h in headers]
    print_table(console, title, columns, rows, whole=None)  # names wrap between words, never inside one
    _notes(console, r.assumptions, r.warnings)


def gpu_specs(console: Console, r) -> None:
    from assistant.render_options import short_gpu_names

    columns = [("spec", "left"), *((short_gpu_names(g.name), "right") for g in r.gpus)]
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
    rows = [[label, *(_num(getattr(g, key)).replace("_", " ") for g in r.gpus)] for label, key in fields]
    print_table(console, "GPU comparison (dense tensor TFLOPS)", columns, rows, whole=None)
    for d in r.differences:
        console.print(f"- {_text(d)}")
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


def capacity(console: Console, r: Any) -> None:
    """The largest model per way of running it, with the registry models that fit."""
    where = f"{r.num_gpus}x {r.gpu}" if r.gpu else f"{r.num_gpus}x a {r.capacity_gib:g} GB card"
    headers = ("way", "format", "engine", "largest (B params)", "GiB per GPU", "models that fit (GiB per GPU)")
    rows = []
    for w in r.ways:
        way = w.mode if w.mode != "inference" else f"inference {w.bits}-bit"
        size = f"{w.max_params_b:g}" if w.max_params_b is not None else "none"
        at = f"{w.per_gpu_gib_at_max:,.1f} of {w.usable_gib_per_gpu:,.1f}" if w.per_gpu_gib_at_max else "-"
        models = ", ".join(f"{e.model} ({e.per_gpu_gib:.1f})" for e in w.examples) or "-"
        rows.append([way, w.precision, w.engine, size, at, models])
    columns = [(h, "right" if h in ("largest (B params)", "GiB per GPU") else "left") for h in headers]
    print_table(console, f"Largest model on {where}", columns, rows, whole=None)
    if r.offload is not None:
        o = r.offload
        console.print(
            f"with {o.ram_gib:g} GB RAM (CPU offload, {o.strategy}): {o.model} ({o.precision}) "
            f"{o.on_gpu_gib:.1f} GiB on GPU + {o.in_ram_gib:.1f} GiB in RAM, about {o.decode_tokens_per_s:.1f} tokens/s"
        )
    _notes(console, r.assumptions, r.warnings)


def tco(console: Console, r) -> None:
    c = r.currency
    console.print(
        f"[bold]{r.num_gpus}x {r.gpu}[/] over {r.horizon_months} months, {r.busy_hours_per_month:,.0f} busy hours/month"
    )
    headers = ("option", f"up front ({c})", f"per month ({c})", f"total ({c})", "break-even h/month")
    rows = [["buy", f"{r.upfront:,.0f}", f"{r.power_monthly + r.maintenance_monthly:,.0f}", f"{r.buy_total:,.0f}", "-"]]
    for o in r.rent:
        rows.append(
            [
                f"rent {o.kind.replace('_', ' ')} ({o.price_per_gpu_hour:,.2f}/GPU-h)",
                "0",
                f"{o.monthly:,.0f}",
                f"{o.total:,.0f}",
                _num(o.break_even_hours_per_month),
            ]
        )
    print_table(console, None, [(h, "left" if h == "option" else "right") for h in headers], rows, whole=None)
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
        rows = []
        for p in picks:
            cost = f"{money(p.hourly or 0, p.currency)}/h" if p.deployment == "cloud" else money(p.spend, p.currency)
            rows.append(
                [
                    (p.label or "").replace("_", " "),
                    f"{p.count}x {p.gpu} ({p.condition}, {p.mode} {p.precision})",
                    f"{p.memory_per_gpu_gib:.1f} of {p.usable_gib_per_gpu:g}",
                    _num(p.tokens_per_s),
                    cost,
                    "; ".join(n.text.rstrip(".") for n in p.gives_up)  # sentences joined as one list
                    or "; ".join(n.text.rstrip(".") for n in p.reasons[:2]),
                ]
            )
        headers = ("", "option", "GiB/GPU", "tokens/s", "cost", "why / trade-off")
        print_table(console, None, [(h, "left") for h in headers], rows, whole=None, head=1)
    _notes(console, [n.text for n in r.assumptions], [n.text for n in r.warnings])


# ---- assistant answers ------------------------------------------------------------------------------------------


_VERDICT_STYLE = {"yes": "green", "no": "red", "caveat": "yellow"}


def support(console: Console, r: Any) -> None:
    """A check_support verdict: the verdict, why, what instead, caveats, assumptions and the dated sources."""
    target = r.compute_capability or r.gfx_target
    where = f"{r.gpu} ({target})" if target else r.gpu
    style = _VERDICT_STYLE.get(r.verdict, "bold")
    console.print(f"[bold]{r.engine_name}[/] on [bold]{where}[/]: [{style}]{r.verdict}[/]")
    for n in [*r.why, *([r.card] if r.card else [])]:
        console.print(f"  - {_text(n)}")
    if r.instead:
        console.print("[bold]instead:[/]")
        for n in r.instead:
            console.print(f"  - {_text(n)}")
    _notes(console, r.assumptions, r.warnings)
    console.print("[dim]sources:[/]")
    for src in r.sources:
        console.print(f"[dim]  - {src.url} ({src.date})[/]")


def answer(console: Console, final: Any, tool_calls: bool = True) -> None:
    """An assistant answer: a short line per tool call, the text (its tables fit the terminal), then each
    source once in a numbered list."""
    from assistant.citations import without_sources
    from assistant.render_markdown import print_markdown
    from assistant.render_tools import tool_call_line
    from assistant.strings import catalog

    if tool_calls:
        cited = [c.section for c in final.citations]
        for call in final.tool_calls:
            result = getattr(call, "result", None)
            console.print(tool_call_line(call.name, call.args, final.language, result, cited))
    print_markdown(console, without_sources(final.answer))
    if final.citations:
        console.print()
        console.print(Text(catalog()["sources_head"][final.language], style="bold"))
        for c in final.citations:
            where = " — ".join(x for x in (c.title, c.section) if x)
            console.print(Text(f"[{c.n}] {where} ({c.doc_id})"))


def _num(value) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float | int):
        return f"{value:,.0f}" if value >= 100 else f"{value:g}"
    return str(value)
