"""estimate_offload: a model that does not fit in GPU memory, run partly (or wholly) from system RAM.

Decode reads every weight it uses once per token, so a token costs (bytes read from GPU memory / GPU
bandwidth) + (bytes read from RAM / RAM bandwidth); RAM is 10-40x slower, so what stays in RAM decides the
speed. Three layouts, as llama.cpp and ktransformers run them:
- layers: as many whole layers (weights and their KV cache) as fit on the GPUs, the rest on the CPU
  (llama.cpp `-ngl N`);
- experts (MoE): attention, shared experts, dense layers and the KV cache on the GPU, routed experts in RAM
  (llama.cpp `--cpu-moe` / `-ot exps=CPU`, ktransformers), each token reading only its active experts;
- cpu: no GPU, everything from RAM.
Bandwidth figures and the decode share are data (knowledge/data/system_memory.yaml).
"""

from __future__ import annotations

from functools import cache
from typing import Literal

from pydantic import BaseModel, Field

from tools._data import load_yaml
from tools.catalog import resolve_gpu_noted
from tools.errors import AdvisorError
from tools.models import ModelArch
from tools.notes import Note, note
from tools.precision import resolve_precision, weight_bits_by_group
from tools.sizing import headroom_for, mixed_usable, usable_of
from tools.vram import GIB, VramRequest, estimate_vram
from tools.vram import defaults as speed_defaults
from tools.workload import ModelRef

Strategy = Literal["gpu_only", "layers", "experts", "cpu"]
_RUNTIME_RAM_GIB = 2.0  # the OS, the runtime and llama.cpp's own buffers next to the weights in RAM


@cache
def memory_table() -> dict:
    return load_yaml("system_memory.yaml")


def layers_only_engines() -> frozenset[str]:
    """Engines, as people name them, that offload whole layers only (no MoE experts-in-RAM split)."""
    return frozenset(str(e).lower() for e in memory_table().get("layers_only_engines", []))


class OffloadRequest(ModelRef):
    """A model on some GPUs (or none) plus system RAM."""

    precision: str | None = Field(default=None, description="Weight format (default Q4_K_M, what llama.cpp runs)")
    context_tokens: int = Field(default=4096, ge=1, le=10_000_000)
    gpu: str | None = Field(default=None, description="GPU name (fuzzy); none: CPU only")
    vram_gib: float | None = Field(
        default=None, gt=0, le=1024, description="A card named only by its memory ('12G显存'), when no gpu is given"
    )
    num_gpus: int = Field(default=1, ge=1, le=64)
    gpu_mix: list[str] | None = Field(
        default=None,
        max_length=64,
        description="Different GPUs in one machine, one name per card (with gpu, their smallest): their memory adds "
        "up (llama.cpp --tensor-split); num_gpus is their number",
    )
    ram_gib: float | None = Field(default=None, gt=0, le=65536, description="System RAM the machine has")
    memory: str | None = Field(
        default=None, description="RAM type: 'ddr4', 'ddr5', 'ddr5-6000', 'ddr4-3200' (default: the machine's)"
    )
    channels: int | None = Field(default=None, ge=1, le=48, description="Memory channels populated")
    machine: str | None = Field(
        default=None,
        description="desktop, desktop_ddr4, hedt, workstation, server, server_2s, old_server, server_ddr4",
    )
    strategy: Literal["auto", "layers", "experts", "cpu"] = Field(
        default="auto", description="auto: everything on the GPU if it fits, else experts in RAM for MoE, else layers"
    )


def runtime_ram_gib() -> float:
    """RAM the OS, the runtime and llama.cpp's buffers take beside the weights."""
    return _RUNTIME_RAM_GIB


def _card_size_bandwidth(vram_gib: float) -> float:
    """A card known only by its memory: the slowest consumer card of that size in the catalog (the GPU's share of
    an offloaded model's time is small; RAM bandwidth decides it), else the slowest consumer card at all. A Jetson
    module is a whole computer sharing its LPDDR5 with the CPU, no card a PC user means by "a 16 GB GPU"."""
    from tools.catalog import catalog

    consumer = [g for g in catalog().values() if g.segment == "consumer" and not g.whole_machine]
    same = [g.bandwidth_gbs for g in consumer if abs(g.vram_gib - vram_gib) < 0.5]
    return min(same) if same else min(g.bandwidth_gbs for g in consumer)


class RamSpec(BaseModel):
    memory: str
    channels: int
    sockets: int
    peak_gbs: float
    effective_gbs: float


class OffloadResult(BaseModel):
    """Where the model lives and how fast it decodes one sequence."""

    model: str
    precision: str
    context_tokens: int
    strategy: Strategy
    gpu: str | None
    num_gpus: int
    weights_gib: float
    kv_cache_gib: float
    gpu_gib_available: float = Field(description="GPU memory usable for the model, all GPUs")
    mixed_gpus: list[str] = Field(default=[], description="Different cards (gpu_mix) by name; gpu: the smallest")
    on_gpu_gib: float
    in_ram_gib: float = Field(description="Model bytes held in system RAM")
    ram_needed_gib: float = Field(description="System RAM the run needs (model part plus OS and runtime)")
    ram_gib: float | None = Field(description="System RAM the user has, when stated")
    fits_in_ram: bool | None
    platform_holds_ram: bool = Field(
        default=True, description="False: the machine class sized cannot hold the RAM needed (a desktop for 364 GiB)"
    )
    layers_on_gpu: int
    layers_total: int
    ram: RamSpec
    decode_tokens_per_s: float
    gpu_only_tokens_per_s: float | None = Field(description="If everything were on the GPU (for comparison)")
    assumptions: list[Note]
    warnings: list[Note]


def ram_spec(req: OffloadRequest, needed_gib: float = 0.0) -> tuple[RamSpec, list[Note]]:
    """The RAM's bandwidth: from the type and channels given, else the machine class, else the smallest current
    machine class that holds `needed_gib` (a desktop takes 192 GB; 380 GiB of DeepSeek needs a server)."""
    t = memory_table()
    generation = (req.memory or "").lower()[:4]
    if req.machine or req.channels:
        machine_key = req.machine or t["default_machine"]
    else:  # the machine that takes the RAM stated or needed ("256GD4" is no desktop)
        machine_key = _machine_for(max(needed_gib, req.ram_gib or 0.0), generation or "ddr5")
    machine = t["machines"].get(machine_key)
    if machine is None:
        raise AdvisorError(f"unknown machine '{req.machine}' — use one of: {', '.join(t['machines'])}")
    memory = (req.memory or machine["memory"]).lower().replace(" ", "")
    if memory in t["default_speed"] and str(machine["memory"]).startswith(memory):
        memory = machine["memory"]  # "DDR4" on a Xeon server: the server's DDR4 speed, not a desktop's
    memory = t["default_speed"].get(memory, memory)
    if memory not in t["memory_types"]:
        raise AdvisorError(
            f"unknown memory type '{req.memory}' — use ddr4, ddr5 or one of: {', '.join(t['memory_types'])}"
        )
    channels = req.channels or machine["channels"]
    sockets = int(machine.get("sockets", 1))
    peak = t["memory_types"][memory]["mt_s"] * 8 * channels / 1000
    share = t["decode_bandwidth_share"] * (t["numa_share"] if sockets > 1 else 1.0)
    spec = RamSpec(memory=memory, channels=channels, sockets=sockets, peak_gbs=peak, effective_gbs=peak * share)
    said = req.memory or req.channels or req.machine
    code = "offload_ram_stated" if said else "offload_ram_default"
    mt_s = int(t["memory_types"][memory]["mt_s"])
    params = dict(memory=memory.upper(), channels=channels, mt_s=mt_s, peak=peak, share=share, effective=peak * share)
    return spec, [note(code, machine=machine_key, **params)]


def _over_platform(req: OffloadRequest, ram_needed: float, channels: int) -> list[Note]:
    """A plan on a named machine class (or a 2-channel board) whose RAM that class cannot hold: 362 GiB of
    DeepSeek on a desktop that takes 192-256 GB on its 4 DIMM slots is no plan, whatever its speed works out to."""
    machines = memory_table()["machines"]
    key = req.machine or ("desktop" if req.channels is not None and req.channels <= 2 else None)
    cap = machines.get(key, {}).get("max_ram_gib") if key else None
    if cap is None or ram_needed <= cap:
        return []
    return [note("offload_ram_over_platform", need=ram_needed, channels=channels, max=cap)]


def _machine_for(needed_gib: float, generation: str) -> str:
    """The default machine, or the first class of `auto_machines` (of that memory generation) whose `max_ram_gib`
    holds `needed_gib`."""
    t = memory_table()
    machines = t["machines"]
    default = t["default_machine"]
    if needed_gib <= machines[default]["max_ram_gib"] and generation != "ddr4":
        return default
    classes = t["auto_machines"].get(generation) or t["auto_machines"]["ddr5"]
    return next((k for k in classes if needed_gib <= machines[k]["max_ram_gib"]), classes[-1])


def _groups_bytes(arch: ModelArch, precision_name: str) -> tuple[float, float, float]:
    """(bytes of every layer except routed experts, bytes of routed experts, bytes outside the layers)."""
    precision = resolve_precision(precision_name)
    bits = weight_bits_by_group(arch, precision)
    groups = arch.param_groups()
    outside = sum(groups[g] * bits[g] for g in ("embed", "lm_head", "extra")) / 8
    experts = 0.0
    for lin in arch.linears():
        if lin.kind == "expert":
            experts += lin.params * bits.get(f"ffn_{lin.name}", 16.0) / 8
    total = sum(n * bits[g] for g, n in groups.items()) / 8
    return total - outside - experts, experts, outside


def estimate_offload(req: OffloadRequest) -> OffloadResult:
    """Place the model on the GPUs and in RAM, and time one decoded token."""
    arch, assumptions = req.resolve()
    precision = req.precision or req.weight_format("inference")[0] or "q4_k_m"
    base = estimate_vram(
        VramRequest(
            model=req.model,
            params_b=req.params_b,
            config_path=req.config_path,
            arch=req.arch,
            precision=precision,
            context_tokens=req.context_tokens,
            num_gpus=1,
        )
    )
    seen = {a.code for a in assumptions} | {"vram_units"}
    assumptions += [a for a in base.assumptions if a.code not in seen][:4]
    warnings: list[Note] = []
    layer_bytes, expert_bytes, outside = _groups_bytes(arch, base.precision)
    kv = base.breakdown_gib["kv_cache"] * GIB
    buffers = (base.breakdown_gib["activations"] + base.breakdown_gib["overhead"]) * GIB
    n_layers = arch.num_layers
    active_share = arch.moe.experts_per_token / arch.moe.num_experts if arch.moe else 1.0
    gpu_name, gpu_bw, available, mixed = None, 0.0, 0.0, []
    if req.gpu:
        gpu, read_as = resolve_gpu_noted(req.gpu)
        assumptions += [read_as] if read_as else []
        gpu_name, gpu_bw = gpu.name, gpu.bandwidth_gbs
        usable = usable_of(gpu.usable_memory_gib, headroom_for("llama.cpp")) * req.num_gpus
        mix = [resolve_gpu_noted(g)[0] for g in req.gpu_mix or []]
        if len(mix) == req.num_gpus and len({g.id for g in mix}) > 1:  # different cards: their memory adds up
            usable = mixed_usable(mix, headroom_for("llama.cpp"))[1] * req.num_gpus
            mixed = [g.name for g in mix]
        available = max(0.0, usable * GIB - buffers * req.num_gpus)
    elif req.vram_gib:
        gpu_name, gpu_bw = f"{req.vram_gib:g} GB GPU", _card_size_bandwidth(req.vram_gib)
        assumptions.append(note("offload_card_size", gib=req.vram_gib, gbs=gpu_bw))
        usable = usable_of(req.vram_gib, headroom_for("llama.cpp")) * req.num_gpus
        available = max(0.0, usable * GIB - buffers * req.num_gpus)
    eff_gpu = speed_defaults()["speed"]["memory_efficiency"]["quantized"]
    everything = layer_bytes + expert_bytes + outside + kv
    strategy, on_gpu, layers_on_gpu = _place(req, arch, available, everything, layer_bytes, expert_bytes, outside, kv)
    # bytes each token reads, from each side
    read_gpu, read_ram = _reads(strategy, arch, layer_bytes, expert_bytes, outside, kv, layers_on_gpu, active_share)
    ram, ram_notes = ram_spec(req, max(0.0, everything - on_gpu) / GIB + _RUNTIME_RAM_GIB)
    assumptions += ram_notes
    seconds = (
        read_ram / (ram.effective_gbs * 1e9)
        + (read_gpu / (gpu_bw * 1e9 * eff_gpu) if read_gpu else 0.0)
        + _launch_seconds(arch)
    )
    gpu_only = None
    if gpu_bw:
        all_read = layer_bytes + expert_bytes * active_share + kv + outside * 0.5
        gpu_only = 1 / (all_read / (gpu_bw * 1e9 * eff_gpu) + _launch_seconds(arch))
    in_ram = max(0.0, everything - on_gpu)
    ram_needed = in_ram / GIB + _RUNTIME_RAM_GIB
    fits_in_ram = None if req.ram_gib is None else ram_needed <= req.ram_gib
    if fits_in_ram is False:
        warnings.append(note("offload_ram_short", need=ram_needed, have=req.ram_gib))
    over_platform = _over_platform(req, ram_needed, ram.channels)
    warnings += over_platform
    assumptions.append(
        note(
            f"offload_layout_{strategy}", on_gpu=on_gpu / GIB, in_ram=in_ram / GIB, layers=layers_on_gpu, total=n_layers
        )
    )
    if strategy != "gpu_only":
        warnings.append(note("offload_prefill_slow"))
        assumptions.append(_timing_note(read_ram, ram.effective_gbs, read_gpu, gpu_bw * eff_gpu, _launch_seconds(arch)))
    return OffloadResult(
        model=arch.name,
        precision=base.precision,
        context_tokens=req.context_tokens,
        strategy=strategy,
        gpu=gpu_name,
        num_gpus=req.num_gpus if gpu_name else 0,
        mixed_gpus=mixed,
        weights_gib=round((layer_bytes + expert_bytes + outside) / GIB, 2),
        kv_cache_gib=round(kv / GIB, 2),
        gpu_gib_available=round(available / GIB, 2),
        on_gpu_gib=round(on_gpu / GIB, 2),
        in_ram_gib=round(in_ram / GIB, 2),
        ram_needed_gib=round(ram_needed, 1),
        ram_gib=req.ram_gib,
        fits_in_ram=fits_in_ram,
        platform_holds_ram=not over_platform,
        layers_on_gpu=layers_on_gpu,
        layers_total=n_layers,
        ram=ram,
        decode_tokens_per_s=round(1 / seconds, 2) if seconds else 0.0,
        gpu_only_tokens_per_s=round(gpu_only, 1) if gpu_only else None,
        assumptions=assumptions,
        warnings=warnings,
    )


def _timing_note(read_ram: float, ram_gbs: float, read_gpu: float, gpu_gbs: float, fixed_s: float) -> Note:
    """The arithmetic of the decode figure, shown in the assumptions: each side's bytes per token over its bandwidth
    in decode, plus the fixed per-layer time (the same sum estimate_offload times a token with)."""
    ram_s = read_ram / (ram_gbs * 1e9)
    gpu_s = read_gpu / (gpu_gbs * 1e9) if read_gpu else 0.0
    total = ram_s + gpu_s + fixed_s
    timing = dict(ram_read=read_ram / 1e9, ram_gbs=ram_gbs, ram_ms=ram_s * 1e3, fixed_ms=fixed_s * 1e3)
    timing |= dict(total_ms=total * 1e3, tps=round(1 / total, 2))  # rounded as the result's decode figure
    if not read_gpu:
        return note("offload_decode_time_cpu", **timing)
    return note("offload_decode_time", gpu_read=read_gpu / 1e9, gpu_gbs=gpu_gbs, gpu_ms=gpu_s * 1e3, **timing)


def _launch_seconds(arch: ModelArch) -> float:
    """Fixed time per layer and token (kernel launches, MoE routing): llama.cpp's row of the speed engines."""
    engine = speed_defaults()["speed"]["engines"]["llama.cpp"]
    moe = arch.moe_layers
    return ((arch.num_layers - moe) * engine["per_layer_overhead_ms"] + moe * engine["moe_layer_overhead_ms"]) / 1000


def _place(
    req: OffloadRequest,
    arch: ModelArch,
    available: float,
    everything: float,
    layer_bytes: float,
    expert_bytes: float,
    outside: float,
    kv: float,
) -> tuple[Strategy, float, int]:
    """(layout, bytes on the GPUs, whole layers on the GPUs)."""
    n = arch.num_layers
    if available <= 0 or req.strategy == "cpu":
        return "cpu", 0.0, 0
    if everything <= available:  # "ollama" asks for layers; a model that fits whole needs no split at all
        return "gpu_only", everything, n
    if arch.moe and req.strategy in ("auto", "experts"):
        dense_part = layer_bytes + outside + kv
        if dense_part <= available:
            # what is left takes whole layers' experts too (llama.cpp --n-cpu-moe keeps the rest in RAM)
            per_layer_experts = expert_bytes / max(1, arch.moe_layers)
            extra_layers = min(arch.moe_layers, int((available - dense_part) // per_layer_experts))
            return "experts", dense_part + extra_layers * per_layer_experts, extra_layers
    per_layer = (layer_bytes + expert_bytes + kv) / n
    room = available - outside  # the output head goes to the GPU with the first offloaded layer
    layers = max(0, min(n, int(room // per_layer))) if room > 0 else 0
    if layers == 0:
        return "cpu", 0.0, 0
    return "layers", layers * per_layer + outside, layers


def _reads(
    strategy: Strategy,
    arch: ModelArch,
    layer_bytes: float,
    expert_bytes: float,
    outside: float,
    kv: float,
    layers_on_gpu: int,
    active_share: float,
) -> tuple[float, float]:
    """Bytes one decoded token reads from GPU memory and from RAM (the embedding table: one row, ignored;
    the output head: all of it)."""
    head = outside * 0.5 if not arch.tie_word_embeddings else outside
    experts_read = expert_bytes * active_share
    if strategy == "gpu_only":
        return layer_bytes + experts_read + kv + head, 0.0
    if strategy == "cpu":
        return 0.0, layer_bytes + experts_read + kv + head
    if strategy == "experts":
        moe_layers = max(1, arch.moe_layers)
        on_gpu_experts = experts_read * layers_on_gpu / moe_layers
        return layer_bytes + kv + head + on_gpu_experts, experts_read - on_gpu_experts
    share = layers_on_gpu / arch.num_layers
    per_token_layers = layer_bytes + experts_read + kv
    return per_token_layers * share + head, per_token_layers * (1 - share)
