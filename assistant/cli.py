"""`gpu-advisor` command line: every calculator as a subcommand with human tables or --json.

Start-up stays light: calculators import only pydantic, yaml, rapidfuzz, typer and rich; the chat stack
(langchain, chromadb, gradio, torch) is imported inside the commands that need it.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer
from pydantic import BaseModel, ValidationError
from rich.console import Console

from assistant.errors import describe_error
from tools.errors import AdvisorError

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    help="GPU Advisor (选卡助手): GPU memory, speed and cost for LLM inference and training.",
)
console = Console()

ModelOpt = Annotated[str | None, typer.Option("--model", "-m", help="Model name (fuzzy): llama3-70b, qwen2.5-7b")]
ParamsOpt = Annotated[float | None, typer.Option("--params", help="Parameter count in billions (generic architecture)")]
ConfigOpt = Annotated[str | None, typer.Option("--config", help="Path to a Hugging Face config.json")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print the result as JSON")]


def _run(build: Callable[[], BaseModel], show: Callable[[Console, Any], None], as_json: bool) -> None:
    """Compute, then print a table or JSON; errors become one clear line and exit code 2."""
    try:
        result = build()
    except (AdvisorError, ValidationError, ValueError) as exc:
        message = describe_error(exc)
        if as_json:
            print(json.dumps({"error": message}, ensure_ascii=False))
        else:
            console.print(f"[red]error:[/] {message}")
        raise typer.Exit(2) from None
    if as_json:
        print(json.dumps(result.model_dump(mode="json"), ensure_ascii=False, indent=2))
    else:
        show(console, result)


@app.command()
def vram(
    model: ModelOpt = None,
    params: ParamsOpt = None,
    config: ConfigOpt = None,
    mode: Annotated[str, typer.Option(help="inference | full | lora | qlora")] = "inference",
    precision: Annotated[
        str | None, typer.Option(help="bf16 fp16 fp8 int8 nf4 nf4_dq awq gptq q4_k_m q8_0 ...")
    ] = None,
    kv_dtype: Annotated[str | None, typer.Option("--kv-dtype", help="fp16 bf16 fp8 int8 q8_0 q4_0")] = None,
    context: Annotated[int, typer.Option(help="Tokens per sequence (training: sequence length)")] = 4096,
    batch: Annotated[int, typer.Option(help="Concurrent sequences (training: micro-batch)")] = 1,
    gpus: Annotated[int, typer.Option(help="Number of GPUs")] = 1,
    tp: Annotated[int | None, typer.Option(help="Tensor-parallel degree")] = None,
    pp: Annotated[int, typer.Option(help="Pipeline-parallel stages")] = 1,
    zero: Annotated[
        int | None, typer.Option(help="ZeRO stage 0-3 (default: 3 when training on several GPUs, else 0)")
    ] = None,
    optimizer: Annotated[str, typer.Option(help="adamw | adamw_no_master | adamw_bf16 | adamw8bit | sgd")] = "adamw",
    grad_checkpointing: Annotated[bool, typer.Option("--grad-checkpointing", help="Recompute activations")] = False,
    lora_rank: Annotated[int, typer.Option("--lora-rank")] = 16,
    lora_targets: Annotated[str, typer.Option("--lora-targets", help="all | attention")] = "all",
    offload: Annotated[str, typer.Option(help="none | optimizer | optimizer_and_params")] = "none",
    overhead: Annotated[float | None, typer.Option(help="GiB per GPU for CUDA context/workspace")] = None,
    gpu: Annotated[
        str | None, typer.Option("--gpu", "-g", help="Size for this GPU: does it fit, how many are needed")
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """Estimate GPU memory for inference, full fine-tuning, LoRA or QLoRA."""
    from assistant import render
    from tools.boards import expand_gpu
    from tools.vram import VramRequest, estimate_vram

    gpu, gpus = expand_gpu("estimate_vram", gpu, gpus)  # a K80 is sized as its two 12 GB GPUs (tools/boards.py)

    def build() -> BaseModel:
        return estimate_vram(
            VramRequest(
                model=model,
                params_b=params,
                config_path=config,
                mode=mode,
                precision=precision,
                kv_dtype=kv_dtype,
                context_tokens=context,
                batch=batch,
                num_gpus=gpus,
                tp=tp,
                pp=pp,
                zero_stage=zero,
                optimizer=optimizer,
                grad_checkpointing=grad_checkpointing,
                lora_rank=lora_rank,
                lora_targets=lora_targets,
                cpu_offload=offload,
                overhead_gib=overhead,
                gpu=gpu,
            )
        )

    _run(build, render.vram, as_json)


@app.command()
def speed(
    gpu: Annotated[str, typer.Option("--gpu", "-g", help="GPU name (fuzzy): 4090, 'A100 80G', 'H100 SXM'")],
    model: ModelOpt = None,
    params: ParamsOpt = None,
    config: ConfigOpt = None,
    gpus: Annotated[int, typer.Option(help="Number of GPUs")] = 1,
    parallel: Annotated[str | None, typer.Option(help="tensor | pipeline | data")] = None,
    mode: Annotated[str, typer.Option(help="inference | training")] = "inference",
    method: Annotated[str, typer.Option(help="Training method: full | lora | qlora")] = "full",
    precision: Annotated[str | None, typer.Option(help="Weight format")] = None,
    kv_dtype: Annotated[str | None, typer.Option("--kv-dtype")] = None,
    context: Annotated[int, typer.Option(help="Prompt/context tokens (training: sequence length)")] = 4096,
    batch: Annotated[int, typer.Option(help="Concurrent sequences (training: micro-batch per GPU)")] = 1,
    mbu: Annotated[float | None, typer.Option(help="Decode memory-bandwidth utilisation 0-1")] = None,
    mfu: Annotated[float | None, typer.Option(help="Prefill (or training) FLOPs utilisation 0-1")] = None,
    grad_checkpointing: Annotated[bool, typer.Option("--grad-checkpointing")] = False,
    train_tokens: Annotated[float | None, typer.Option("--train-tokens", help="Tokens to train on")] = None,
    as_json: JsonOpt = False,
) -> None:
    """Estimate decode/prefill tokens/s, time to first token, or training throughput."""
    from assistant import render
    from tools.boards import expand_gpu
    from tools.speed import SpeedRequest, estimate_speed

    gpu, gpus = expand_gpu("estimate_speed", gpu, gpus)  # a K80 is sized as its two 12 GB GPUs (tools/boards.py)

    def build() -> BaseModel:
        return estimate_speed(
            SpeedRequest(
                model=model,
                params_b=params,
                config_path=config,
                gpu=gpu,
                num_gpus=gpus,
                parallel=parallel,
                mode=mode,
                method=method,
                precision=precision,
                kv_dtype=kv_dtype,
                context_tokens=context,
                batch=batch,
                memory_efficiency=mbu,
                prefill_mfu=mfu if mode == "inference" else None,
                training_mfu=mfu if mode == "training" else None,
                grad_checkpointing=grad_checkpointing,
                training_tokens=train_tokens,
            )
        )

    _run(build, render.speed, as_json)


@app.command()
def offload(
    model: ModelOpt = None,
    params: ParamsOpt = None,
    config: ConfigOpt = None,
    gpu: Annotated[str | None, typer.Option("--gpu", "-g", help="GPU name (fuzzy); none: CPU only")] = None,
    gpus: Annotated[int, typer.Option(help="Number of GPUs")] = 1,
    vram: Annotated[float | None, typer.Option("--vram", help="A card known only by its memory, GB (no --gpu)")] = None,
    precision: Annotated[str | None, typer.Option(help="Weight format (default Q4_K_M)")] = None,
    context: Annotated[int, typer.Option(help="Context tokens")] = 4096,
    ram: Annotated[float | None, typer.Option("--ram", help="System RAM the machine has, GiB")] = None,
    memory: Annotated[str | None, typer.Option(help="RAM type: ddr4, ddr5, ddr5-6000 ...")] = None,
    channels: Annotated[int | None, typer.Option(help="Memory channels populated")] = None,
    machine: Annotated[str | None, typer.Option(help="desktop, hedt, workstation, server, server_2s ...")] = None,
    strategy: Annotated[str, typer.Option(help="auto | layers | experts | cpu")] = "auto",
    as_json: JsonOpt = False,
) -> None:
    """CPU offload: a model partly or wholly in system RAM; decode tokens/s from RAM bandwidth."""
    from assistant import render
    from tools.offload import OffloadRequest, estimate_offload

    def build() -> BaseModel:
        return estimate_offload(
            OffloadRequest(
                model=model,
                params_b=params,
                config_path=config,
                gpu=gpu,
                num_gpus=gpus,
                vram_gib=vram,
                precision=precision,
                context_tokens=context,
                ram_gib=ram,
                memory=memory,
                channels=channels,
                machine=machine,
                strategy=strategy,  # type: ignore[arg-type]  # validated by the request model
            )
        )

    _run(build, render.offload, as_json)


@app.command()
def models(
    query: Annotated[str | None, typer.Argument(help="Filter by (fuzzy) name or family")] = None,
    as_json: JsonOpt = False,
) -> None:
    """List the model registry (architectures from config.json, parameter counts computed)."""
    from tools.models import registry, resolve_model

    rows = list(registry().values())
    if query:
        q = query.lower()
        picked = [a for a in rows if q in a.id or q == a.family]
        if not picked:
            try:
                picked = [resolve_model(query)[0]]
            except AdvisorError as exc:
                console.print(f"[red]error:[/] {exc}")
                raise typer.Exit(2) from None
        rows = picked
    if as_json:
        print(
            json.dumps(
                [
                    {
                        **a.model_dump(mode="json"),
                        "params_b": round(a.params / 1e9, 3),
                        "active_params_b": round(a.active_params / 1e9, 3),
                    }
                    for a in rows
                ],
                ensure_ascii=False,
                indent=2,
            )
        )
        return
    from assistant import render

    render.models(console, rows)


CurrencyOpt = Annotated[str, typer.Option(help="CNY or USD")]


@app.command()
def gpus(
    min_vram: Annotated[float | None, typer.Option("--min-vram", help="Minimum memory in GiB")] = None,
    max_price: Annotated[float | None, typer.Option("--max-price", help="Per GPU, in --currency")] = None,
    currency: CurrencyOpt = "USD",
    vendor: Annotated[str | None, typer.Option(help="nvidia | amd | intel | apple")] = None,
    segment: Annotated[str | None, typer.Option(help="consumer | workstation | datacenter | apple")] = None,
    bf16: Annotated[bool, typer.Option("--bf16", help="Needs BF16 tensor cores")] = False,
    fp8: Annotated[bool, typer.Option("--fp8", help="Needs FP8 tensor cores")] = False,
    nvlink: Annotated[bool, typer.Option("--nvlink")] = False,
    ecc: Annotated[bool, typer.Option("--ecc")] = False,
    mig: Annotated[bool, typer.Option("--mig")] = False,
    form_factor: Annotated[str | None, typer.Option("--form-factor", help="pcie | sxm | oam | superchip | soc")] = None,
    sort: Annotated[
        str, typer.Option(help="price_per_gib | bf16_tflops_per_dollar | bandwidth | vram | bf16_tflops | price")
    ] = "price_per_gib",
    limit: Annotated[int, typer.Option()] = 15,
    as_json: JsonOpt = False,
) -> None:
    """Filter and rank the GPU catalog."""
    from assistant import render
    from tools.gpu_search import FindGpusRequest, find_gpus

    def build() -> BaseModel:
        return find_gpus(
            FindGpusRequest(
                min_vram_gib=min_vram,
                max_price=max_price,
                currency=currency,
                vendor=vendor,
                segment=segment,
                need_bf16=bf16,
                need_fp8=fp8,
                need_nvlink=nvlink,
                need_ecc=ecc,
                need_mig=mig,
                form_factor=form_factor,
                sort_by=sort,
                limit=limit,
            )
        )

    _run(build, render.gpus, as_json)


@app.command()
def gpu(
    names: Annotated[list[str], typer.Argument(help="One or more GPU names: 4090 'A100 80G' 'H100 SXM'")],
    currency: CurrencyOpt = "USD",
    as_json: JsonOpt = False,
) -> None:
    """Show one GPU's checked specs, or compare several side by side."""
    from assistant import render
    from tools.gpu_search import GpuSpecsRequest, gpu_specs

    def build() -> BaseModel:
        return gpu_specs(GpuSpecsRequest(names=names, currency=currency))

    if as_json and len(names) == 1:
        try:
            row = gpu_specs(GpuSpecsRequest(names=names, currency=currency)).gpus[0]
        except (AdvisorError, ValidationError, ValueError) as exc:
            print(json.dumps({"error": describe_error(exc)}, ensure_ascii=False))
            raise typer.Exit(2) from None
        print(json.dumps(row.model_dump(mode="json"), ensure_ascii=False, indent=2))
        return
    _run(build, render.gpu_specs, as_json)


@app.command()
def support(
    engine: Annotated[
        str, typer.Argument(help="Engine, library, kernel or feature: vllm, llama.cpp, ollama, flash-attention-2, bf16")
    ],
    gpu: Annotated[str, typer.Option("--gpu", "-g", help="GPU name, family or target: P40, 'RTX 40 series', gfx906")],
    precision: Annotated[
        str | None, typer.Option(help="Weight format to check with the engine: awq gptq fp8 bf16 int8 nf4 q4_k_m")
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """Will an engine, kernel, library or feature run on a GPU: yes / no / caveat, why, what instead, sources."""
    from assistant import render
    from tools.support import SupportRequest, check_support

    def build() -> BaseModel:
        return check_support(SupportRequest(engine=engine, gpu=gpu, precision=precision))

    _run(build, render.support, as_json)


@app.command()
def fit(
    gpu: Annotated[str, typer.Option("--gpu", "-g", help="GPU name (fuzzy)")],
    model: ModelOpt = None,
    params: ParamsOpt = None,
    config: ConfigOpt = None,
    gpus: Annotated[int, typer.Option(help="Number of GPUs")] = 1,
    precision: Annotated[str | None, typer.Option(help="Fix the weight format (default: best that fits)")] = None,
    kv_dtype: Annotated[str | None, typer.Option("--kv-dtype")] = None,
    context: Annotated[int, typer.Option(help="Context for the concurrency answer")] = 4096,
    mem_util: Annotated[float, typer.Option("--mem-util", help="Usable share of GPU memory")] = 0.9,
    as_json: JsonOpt = False,
) -> None:
    """What fits: best precision, longest context and most concurrent sequences on given GPUs."""
    from assistant import render
    from tools.boards import expand_gpu
    from tools.fit import FitRequest, fit_on_gpu

    gpu, gpus = expand_gpu("fit_on_gpu", gpu, gpus)  # a K80 is sized as its two 12 GB GPUs (tools/boards.py)

    def build() -> BaseModel:
        return fit_on_gpu(
            FitRequest(
                model=model,
                params_b=params,
                config_path=config,
                gpu=gpu,
                num_gpus=gpus,
                precision=precision,
                kv_dtype=kv_dtype,
                context_tokens=context,
                memory_utilization=mem_util,
            )
        )

    _run(build, render.fit, as_json)


@app.command()
def diagnose(
    model: ModelOpt = None,
    params: ParamsOpt = None,
    gpu: Annotated[str | None, typer.Option("--gpu", "-g", help="GPU name (fuzzy)")] = None,
    gpus: Annotated[int, typer.Option(help="Number of GPUs")] = 1,
    precision: Annotated[str | None, typer.Option(help="Weight format as run: bf16, awq, gptq, q4_k_m ...")] = None,
    context: Annotated[int | None, typer.Option(help="Context tokens (default 4096)")] = None,
    engine: Annotated[str | None, typer.Option(help="vllm, ollama, llama.cpp, transformers, auto-gptq ...")] = None,
    flag: Annotated[
        list[str] | None, typer.Option("--flag", help="A setting named (repeatable): enforce_eager, data_parallel ...")
    ] = None,
    symptom: Annotated[str, typer.Option(help="slow | oom | memory_high | multi_gpu_slower | cpu_fallback")] = "slow",
    measured: Annotated[float | None, typer.Option("--measured", help="Decode tokens/s measured")] = None,
    target: Annotated[float | None, typer.Option("--target", help="Tokens/s wanted")] = None,
    memory_used: Annotated[float | None, typer.Option("--memory-used", help="Memory seen in use, GiB")] = None,
    training: Annotated[bool, typer.Option("--training", help="A training job (default: inference)")] = False,
    seconds_per_step: Annotated[float | None, typer.Option("--seconds-per-step", help="Training s/it")] = None,
    other_gpu: Annotated[str | None, typer.Option(help="Another card the same job was measured on")] = None,
    other_measured: Annotated[float | None, typer.Option(help="Tokens/s measured on the other card")] = None,
    ram: Annotated[float | None, typer.Option("--ram", help="System RAM the machine has, GiB")] = None,
    memory: Annotated[str | None, typer.Option(help="RAM type: ddr4, ddr5, ddr5-6000 ...")] = None,
    channels: Annotated[int | None, typer.Option(help="Memory channels populated")] = None,
    as_json: JsonOpt = False,
) -> None:
    """Why is it slow / why does it OOM: the computed ceiling against the measured number, then the causes."""
    from assistant import render
    from tools.diagnose import DiagnoseRequest
    from tools.diagnose import diagnose as run_diagnosis

    def build() -> BaseModel:
        return run_diagnosis(
            DiagnoseRequest(
                model=model,
                params_b=params,
                gpu=gpu,
                num_gpus=gpus,
                precision=precision,
                context_tokens=context,
                mode="training" if training or seconds_per_step else "inference",
                engine=engine,
                flags=flag or [],
                symptom=symptom,  # type: ignore[arg-type]  # validated by the request model
                measured_tokens_per_s=measured,
                measured_seconds_per_step=seconds_per_step,
                target_tokens_per_s=target,
                measured_memory_gib=memory_used,
                other_gpu=other_gpu,
                other_measured_tokens_per_s=other_measured,
                ram_gib=ram,
                memory=memory,
                channels=channels,
            )
        )

    _run(build, render.diagnose, as_json)


@app.command()
def capacity(
    gpu: Annotated[str | None, typer.Option("--gpu", "-g", help="GPU name (fuzzy)")] = None,
    vram: Annotated[float | None, typer.Option("--vram", help="A card's memory in GB, instead of --gpu")] = None,
    gpus: Annotated[int, typer.Option(help="Number of GPUs")] = 1,
    mode: Annotated[str, typer.Option(help="inference | finetune | full | lora | qlora")] = "inference",
    precision: Annotated[str | None, typer.Option(help="Size only this format (q4_k_m, awq, fp8, bf16 ...)")] = None,
    context: Annotated[int | None, typer.Option(help="Context (inference) or sequence length (training)")] = None,
    family: Annotated[str | None, typer.Option(help="Name examples from this family only: llama, qwen ...")] = None,
    engine: Annotated[str | None, typer.Option(help="vllm, llama.cpp / ollama, sglang ...")] = None,
    ram: Annotated[float | None, typer.Option("--ram", help="System RAM in GB: CPU offload example")] = None,
    memory: Annotated[str | None, typer.Option(help="RAM type for the offload example: ddr4, ddr5 ...")] = None,
    as_json: JsonOpt = False,
) -> None:
    """The biggest model given GPUs run or fine-tune: per way (16/8/4-bit, full/LoRA/QLoRA), with real models."""
    from assistant import render
    from tools.boards import expand_gpu
    from tools.capacity import CapacityRequest, largest_model

    gpu, gpus = expand_gpu("largest_model", gpu, gpus)  # a K80 is sized as its two 12 GB GPUs (tools/boards.py)

    def build() -> BaseModel:
        return largest_model(
            CapacityRequest(
                gpu=gpu,
                vram_gib=vram,
                num_gpus=gpus,
                mode=mode,  # type: ignore[arg-type]  # validated by the request model
                precision=precision,
                context_tokens=context,
                family=family,
                engine=engine,
                ram_gib=ram,
                ram_type=memory,
            )
        )

    _run(build, render.capacity, as_json)


@app.command()
def tco(
    gpu: Annotated[str, typer.Option("--gpu", "-g", help="GPU name (fuzzy)")],
    gpus: Annotated[int, typer.Option(help="Number of GPUs")] = 1,
    years: Annotated[float, typer.Option(help="Horizon in years")] = 3,
    utilization: Annotated[float, typer.Option(help="Busy share of the month, 0-1")] = 0.5,
    currency: CurrencyOpt = "CNY",
    rate: Annotated[float | None, typer.Option("--cny-per-usd", help="Exchange rate")] = None,
    gpu_price: Annotated[float | None, typer.Option("--gpu-price", help="Your price per GPU")] = None,
    host_cost: Annotated[float | None, typer.Option("--host-cost", help="Rest of the machine")] = None,
    electricity: Annotated[float | None, typer.Option("--electricity", help="Price per kWh")] = None,
    pue: Annotated[float | None, typer.Option(help="Facility PUE")] = None,
    resale: Annotated[float | None, typer.Option(help="Resale share of the GPU price at the end, 0-1")] = None,
    cloud_price: Annotated[
        float | None, typer.Option("--cloud-price", help="Your on-demand price per GPU-hour")
    ] = None,
    prices: Annotated[str | None, typer.Option("--prices", help="Your own prices.yaml")] = None,
    throughput: Annotated[float | None, typer.Option(help="Tokens/s, for cost per million tokens")] = None,
    as_json: JsonOpt = False,
) -> None:
    """Buy versus rent: totals, monthly costs, break-even hours and cost per million tokens."""
    from assistant import render
    from tools.tco import TcoRequest, calculate_tco

    def build() -> BaseModel:
        return calculate_tco(
            TcoRequest(
                gpu=gpu,
                num_gpus=gpus,
                horizon_years=years,
                utilization=utilization,
                currency=currency,
                cny_per_usd=rate,
                gpu_price=gpu_price,
                host_cost=host_cost,
                electricity_price_per_kwh=electricity,
                pue=pue,
                resale_share=resale,
                cloud_price_per_gpu_hour=cloud_price,
                prices_file=prices,
                throughput_tokens_per_s=throughput,
            )
        )

    _run(build, render.tco, as_json)


@app.command()
def rent(
    gpu: Annotated[str | None, typer.Option("--gpu", "-g", help="GPU name (fuzzy)")] = None,
    gpus: Annotated[int, typer.Option(help="Number of GPUs")] = 1,
    need: Annotated[float | None, typer.Option("--need", help="Or: GiB the job needs, all GPUs together")] = None,
    currency: CurrencyOpt = "CNY",
    market: Annotated[str | None, typer.Option(help="cn or global (default: cn for CNY)")] = None,
    provider: Annotated[str | None, typer.Option(help="Only this provider: AWS, AutoDL, RunPod ...")] = None,
    hours: Annotated[float | None, typer.Option(help="Length of the job in hours, for its cost")] = None,
    limit: Annotated[int, typer.Option(help="How many offers")] = 5,
    prices: Annotated[str | None, typer.Option("--prices", help="Your own prices.yaml")] = None,
    as_json: JsonOpt = False,
) -> None:
    """Where to rent a GPU: dated offers cheapest first, billing, storage and free tiers."""
    from assistant import render_cost
    from tools.rent import RentRequest, rent_providers

    def build() -> BaseModel:
        return rent_providers(
            RentRequest(
                gpu=gpu,
                num_gpus=gpus,
                need_gib=need,
                currency=currency,  # type: ignore[arg-type]  # validated by the request model
                market=market,  # type: ignore[arg-type]
                provider=provider,
                hours=hours,
                limit=limit,
                prices_file=prices,
            )
        )

    _run(build, render_cost.rent, as_json)


@app.command(name="api")
def api_cmd(
    requests: Annotated[float | None, typer.Option("--requests", help="Requests a day")] = None,
    input_tokens: Annotated[int | None, typer.Option("--input-tokens", help="Prompt tokens per request")] = None,
    output_tokens: Annotated[int | None, typer.Option("--output-tokens", help="Output tokens per request")] = None,
    tokens: Annotated[float | None, typer.Option("--tokens", help="Or: tokens a month (input + output)")] = None,
    bill: Annotated[float | None, typer.Option("--bill", help="Or: your API bill a month")] = None,
    api: Annotated[str | None, typer.Option(help="API to price: deepseek, openai, claude, gpt-5.4-mini ...")] = None,
    model: ModelOpt = None,
    params: ParamsOpt = None,
    gpu: Annotated[str | None, typer.Option("--gpu", "-g", help="Your GPU (default: cheapest rental)")] = None,
    gpus: Annotated[int | None, typer.Option(help="GPUs per server")] = None,
    precision: Annotated[str | None, typer.Option(help="Self-hosted weight format (default awq)")] = None,
    hours: Annotated[float, typer.Option(help="Hours a day the service is up")] = 24,
    currency: CurrencyOpt = "CNY",
    as_json: JsonOpt = False,
) -> None:
    """API or your own GPU: monthly cost of a token volume both ways, and the break-even volume."""
    from assistant import render_cost
    from tools.api_cost import ApiCostRequest, compare_api

    def build() -> BaseModel:
        return compare_api(
            ApiCostRequest(
                requests_per_day=requests,
                input_tokens_per_request=input_tokens,
                output_tokens_per_request=output_tokens,
                tokens_per_month=tokens,
                monthly_bill=bill,
                api=api,
                model=model,
                params_b=params,
                gpu=gpu,
                num_gpus=gpus,
                precision=precision,
                hours_per_day=hours,
                currency=currency,  # type: ignore[arg-type]  # validated by the request model
            )
        )

    _run(build, render_cost.api_cost, as_json)


@app.command()
def recommend(
    model: ModelOpt = None,
    params: ParamsOpt = None,
    mode: Annotated[str, typer.Option(help="inference | full | lora | qlora")] = "inference",
    precision: Annotated[str | None, typer.Option(help="Default: 4-bit for personal inference, else bf16")] = None,
    context: Annotated[
        int | None, typer.Option(help="Tokens per sequence (default: 8k personal chat, 4k serving, 2k training)")
    ] = None,
    batch: Annotated[int, typer.Option(help="Concurrent sequences (training: micro-batch)")] = 1,
    users: Annotated[int | None, typer.Option(help="Named users (a share of them is active at once)")] = None,
    budget: Annotated[float | None, typer.Option(help="Up-front budget for buying (the cards)")] = None,
    whole_machine: Annotated[
        bool, typer.Option("--whole-machine", help="The budget covers the whole machine, not only the cards")
    ] = False,
    persona: Annotated[str | None, typer.Option(help="individual | team | company (default: by budget)")] = None,
    hours: Annotated[float | None, typer.Option("--hours", help="Busy hours a month (rent pricing)")] = None,
    monthly_budget: Annotated[
        float | None, typer.Option("--monthly-budget", help="Budget per month for renting")
    ] = None,
    currency: CurrencyOpt = "CNY",
    deployment: Annotated[str, typer.Option(help="local | cloud | either")] = "either",
    prefer: Annotated[str, typer.Option(help="cheapest | fastest | balanced")] = "balanced",
    max_gpus: Annotated[int | None, typer.Option("--max-gpus", help="Most cards (default: by persona)")] = None,
    nvlink: Annotated[bool, typer.Option("--nvlink", help="Require NVLink")] = False,
    ecc: Annotated[bool, typer.Option("--ecc", help="Require ECC")] = False,
    grad_checkpointing: Annotated[
        bool, typer.Option("--grad-checkpointing/--no-grad-checkpointing", help="Training recomputes activations")
    ] = True,
    limit: Annotated[int, typer.Option()] = 8,
    as_json: JsonOpt = False,
) -> None:
    """Ranked GPU options (type x count, local or cloud) that fit a workload and budget."""
    from assistant import render
    from tools.recommend import RecommendRequest, recommend_gpus
    from tools.vram import VramRequest

    def build() -> BaseModel:
        stated = {"context_tokens": context} if context is not None else {}  # unstated: the policy's default
        workload = VramRequest(
            model=model,
            params_b=params,
            mode=mode,
            precision=precision,
            batch=batch,
            grad_checkpointing=grad_checkpointing and mode != "inference",
            **stated,
        )
        return recommend_gpus(
            RecommendRequest(
                workload=workload,
                budget=budget,
                budget_includes_host=whole_machine,
                persona=persona,
                users=users,
                hours_per_month=hours,
                monthly_budget=monthly_budget,
                currency=currency,
                deployment=deployment,
                preference=prefer,
                max_gpus=max_gpus,
                require_nvlink=nvlink,
                require_ecc=ecc,
                limit=limit,
            )
        )

    _run(build, render.recommend, as_json)


@app.command()
def build(
    gpu: Annotated[str, typer.Option("--gpu", "-g", help="GPU name (fuzzy)")],
    gpus: Annotated[int, typer.Option(help="Number of GPUs")] = 1,
    use: Annotated[str, typer.Option(help="inference | training")] = "inference",
    cpu_tdp: Annotated[float | None, typer.Option("--cpu-tdp", help="CPU power in W")] = None,
    power_limit: Annotated[float | None, typer.Option("--power-limit", help="Per-GPU power cap in W")] = None,
    circuit: Annotated[str | None, typer.Option(help="us_120v_15a | cn_220v_10a | eu_230v_16a ...")] = None,
    as_json: JsonOpt = False,
) -> None:
    """Plan a workstation for N GPUs: PSU, RAM, CPU, PCIe lanes, slots, NVLink bridge, cooling."""
    from assistant.render_workstation import workstation
    from tools.workstation import WorkstationRequest, plan_workstation

    def build_plan() -> BaseModel:
        return plan_workstation(
            WorkstationRequest(
                gpu=gpu, num_gpus=gpus, use=use, cpu_tdp_w=cpu_tdp, gpu_power_limit_w=power_limit, circuit=circuit
            )
        )

    _run(build_plan, workstation, as_json)


ProviderOpt = Annotated[str | None, typer.Option("--model", "-m", help="offline | openai:MODEL | ollama:MODEL")]


def _settings(provider: str | None, base_url: str | None, api_key: str | None):
    from assistant.settings import settings_from

    overrides = {k: v for k, v in {"provider": provider, "base_url": base_url, "api_key": api_key}.items() if v}
    return settings_from(overrides)


@app.command()
def ask(
    question: Annotated[str, typer.Argument(help="Your question, in Chinese or English")],
    provider: ProviderOpt = None,
    session: Annotated[
        str | None,
        typer.Option(help="Session name: the conversation is saved, and a later `ask --session NAME` continues it"),
    ] = None,
    base_url: Annotated[str | None, typer.Option("--base-url", help="OpenAI-compatible endpoint")] = None,
    api_key: Annotated[str | None, typer.Option("--api-key", help="API key (or GPU_ADVISOR_API_KEY)")] = None,
    as_json: JsonOpt = False,
    proposal: Annotated[
        Path | None, typer.Option("--proposal", help="Also write a purchase proposal: .md, .pdf, .xlsx or .csv")
    ] = None,
) -> None:
    """Ask one question; prints the answer with its tool calls and sources."""
    _prepare_guides_meanwhile()
    from assistant.advisor import Advisor

    settings = _settings(provider, base_url, api_key)
    if session is None:  # a one-off question: nothing to continue, nothing to save
        settings = settings.model_copy(update={"sessions_url": "memory"})
    import logging

    logging.getLogger("assistant.advisor").addHandler(logging.NullHandler())  # a store notice is printed once, below
    advisor = Advisor(settings)
    final = advisor.ask(session or "cli", question)
    if advisor.sessions_notice:
        print(f"warning: {advisor.sessions_notice}", file=sys.stderr)
    written = None
    if proposal is not None:  # written now, said after the answer (stderr: stdout stays the answer or its JSON)
        from assistant.cli_proposal import after_ask, report

        written = after_ask(advisor, session or "cli", proposal)
    if as_json:
        print(
            json.dumps(
                {
                    "answer": final.answer,
                    "language": final.language,
                    "provider": final.provider,
                    "tool_calls": [t.model_dump(mode="json") for t in final.tool_calls],
                    "citations": [c.model_dump(mode="json") for c in final.citations],
                    "grounding": final.grounding.model_dump(),
                    "consistency": final.consistency.model_dump(),
                    "scenario": final.scenario.summary(),
                    "quick_replies": [r.model_dump() for r in final.quick_replies],
                },
                ensure_ascii=False,
                indent=2,
            )
        )
        if written is not None:
            report(written)
        return
    from assistant import render

    render.answer(console, final)
    if final.grounding.untraceable:
        console.print(f"[yellow]untraceable numbers:[/] {', '.join(final.grounding.untraceable)}")
    for contradiction in final.consistency.contradictions:
        console.print(f"[yellow]inconsistent:[/] {contradiction}")
    if written is not None:
        report(written)


def _prepare_guides_meanwhile() -> None:
    """In a fresh data directory, prepare the guides (copy the shipped vectors, save the BM25 corpus) in a second
    process while this one loads the assistant: on two cores the first answer then waits for neither. The guide
    search waits for that process (knowledge/retrieval.py `prepare_guides`); if it fails, the search prepares them."""
    import atexit
    import os
    import subprocess

    from knowledge.retrieval import get_retriever

    try:
        if get_retriever().guides_current():
            return
    except Exception:  # the search reports whatever is wrong with the store
        return
    code = "from knowledge.retrieval import prepare_guides; prepare_guides()"
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL, "stdin": subprocess.DEVNULL}
    preparer = subprocess.Popen([sys.executable, "-c", code], env=dict(os.environ), **quiet)
    # reaped before this process exits (an answer that searched nothing may finish first): no orphan, no warning
    atexit.register(_reap, preparer)


def _reap(process: Any) -> None:
    import contextlib

    with contextlib.suppress(Exception):  # it outlived the answer by two minutes: left to finish on its own
        process.wait(timeout=120)


@app.command()
def chat(
    terminal: Annotated[bool, typer.Option("--terminal", help="Chat in this terminal instead of the web UI")] = False,
    provider: ProviderOpt = None,
    host: Annotated[str, typer.Option(help="Web UI bind address")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Web UI port")] = 7860,
    auth: Annotated[str | None, typer.Option(help="user:password for the web UI")] = None,
    share: Annotated[bool, typer.Option("--share", help="Create a public Gradio share link (off by default)")] = False,
    in_process: Annotated[
        bool,
        typer.Option(
            "--in-process", help="Run the assistant inside the web server's process (less memory, slower under load)"
        ),
    ] = False,
) -> None:
    """Chat with GPU Advisor: the web UI on 127.0.0.1:7860, or --terminal."""
    settings = _settings(provider, None, None)
    if not terminal:
        from assistant.web import serve

        serve(settings=settings, host=host, port=port, auth=auth, share=share, in_process=in_process)
        return
    from assistant.cli_chat import run as chat_in_terminal

    chat_in_terminal(console, settings)


@app.command(name="eval")
def eval_cmd(
    scenarios: Annotated[
        list[str] | None, typer.Option("--scenarios", help="Scenario file or folder (repeatable)")
    ] = None,
    provider: ProviderOpt = None,
    base_url: Annotated[str | None, typer.Option("--base-url", help="OpenAI-compatible endpoint")] = None,
    api_key: Annotated[str | None, typer.Option("--api-key", help="API key (or GPU_ADVISOR_API_KEY)")] = None,
    min_pass: Annotated[float, typer.Option("--min-pass", help="Exit non-zero below this pass rate")] = 0.0,
    max_untraceable: Annotated[int | None, typer.Option("--max-untraceable", help="Fail above this many")] = None,
    report: Annotated[str | None, typer.Option(help="Write a markdown report here")] = None,
    extras: Annotated[bool, typer.Option("--extras/--no-extras", help="Also retrieval metrics and references")] = True,
    as_json: JsonOpt = False,
) -> None:
    """Run golden scenarios through the assistant and score them (plus retrieval and estimator references)."""
    from assistant.advisor import Advisor
    from evals.runner import report_markdown, run_eval

    settings = _settings(provider, base_url, api_key)
    try:
        unsaved = settings.model_copy(update={"sessions_url": "memory"})  # eval sessions are not the user's
        result = run_eval(scenarios or None, provider=settings.provider, advisor=Advisor(unsaved))
    except (FileNotFoundError, ValueError) as exc:
        console.print(f"[red]error:[/] {exc}")
        raise typer.Exit(2) from None
    sections: dict[str, str] = {}
    extra_json: dict[str, object] = {}
    if extras:
        from evals.references import report_markdown as references_md
        from evals.references import run as run_references
        from evals.references import summary as references_summary
        from evals.retrieval_eval import evaluate_retrieval

        retrieval = evaluate_retrieval()
        rows = ["| mode | lang | Recall@5 | MRR |", "|---|---|---|---|"]
        rows += [f"| {m.mode} | {m.lang} | {m.recall_at_5:.3f} | {m.mrr:.3f} |" for m in retrieval.metrics]
        sections["Retrieval (evals/retrieval.yaml)"] = "\n".join(rows)
        checks = run_references()
        sections["Estimator references (evals/references.yaml)"] = references_md(checks)
        extra_json = {
            "retrieval": [m.model_dump() for m in retrieval.metrics],
            "references": references_summary(checks),
        }
    text = report_markdown(result, sections)
    if report:
        from pathlib import Path

        Path(report).write_text(text, encoding="utf-8")
    if as_json:
        data = result.model_dump(mode="json") | extra_json
        print(json.dumps(data, ensure_ascii=False, indent=2))
    else:
        console.print(
            f"scenarios passed {result.passed}/{result.total} ({result.pass_rate:.1%}); untraceable numbers "
            f"{result.untraceable_numbers}; turn latency p50 {result.latency_ms_p50:.0f} ms"
            + (f"; report: {report}" if report else "")
        )
        for name, row in result.by_category.items():
            console.print(f"  {name}: {row['passed']:g}/{row['total']:g}")
    failing = result.pass_rate < min_pass or (
        max_untraceable is not None and result.untraceable_numbers > max_untraceable
    )
    if failing:
        raise typer.Exit(1)


@app.command()
def references(
    as_json: JsonOpt = False,
    report: Annotated[str | None, typer.Option(help="Also write the markdown report to this file")] = None,
) -> None:
    """Compare the estimators with published reference figures (evals/references.yaml)."""
    from evals.references import report_markdown, run, summary

    checks = run()
    if report:
        from pathlib import Path

        Path(report).write_text(report_markdown(checks) + "\n", encoding="utf-8")
    if as_json:
        print(json.dumps({"summary": summary(checks), "results": [c.model_dump() for c in checks]}, indent=2))
    else:
        from rich.markdown import Markdown

        console.print(Markdown(report_markdown(checks)))
        for kind, row in summary(checks).items():
            console.print(
                f"{kind}: {row['pass']}/{row['n']} within tolerance, {row['explained']} explained, "
                f"{row['fail']} failing; median |error| {row['median_abs_error']}"
            )
    if any(c.status in ("fail", "error") for c in checks):
        raise typer.Exit(1)


from assistant.cli_knowledge import register as register_knowledge  # noqa: E402  (ingest, search)
from assistant.cli_proposal import register as register_proposal  # noqa: E402  (proposal --session --out)
from assistant.cli_sessions import register as register_sessions  # noqa: E402  (sessions list|show|delete)

register_knowledge(app)
register_sessions(app)
register_proposal(app)


def main() -> None:
    """Console-script entry point."""
    try:
        app()
    except KeyboardInterrupt:
        sys.exit(130)
