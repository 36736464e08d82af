"""Mac or PC: an Apple-silicon Mac weighed against an x86 PC with a discrete GPU for running models locally
("Mac mini vs x86 + discrete GPU for ~$2k?", "Mac Studio 还是攒一台 4090 主机", "an old GPU for the PoC, or a Mac
with 192 GB?").

What decides it is the model's memory (knowledge/data/advice.yaml, reference/advice.md "Apple silicon"): for one
user running models up to what a 24 GB card holds (~32B at 4-bit), a PC with one used RTX 3090 (advice.yaml
pc_reference_gpu) is faster per dollar, far faster at prompt processing, and runs CUDA for fine-tuning; a Mac wins
when the model needs more memory than one or two such cards hold (70B+ at 4-bit on 64-192 GB of unified memory),
or for a quiet, low-power box. The answer sizes one model on both: the user's, else the biggest common model the
card holds at 4-bit; the Mac is the one named (with its memory), else the smallest Mac holding the RAM asked for,
else the Mac mini's largest (M4 Pro 64 GB).
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel

from assistant.capabilities.base import Capability, PlanContext, R, Turn
from assistant.capabilities.ram import _tiers
from assistant.strings import Writer
from assistant.toolset import ToolName
from tools import advice
from tools.catalog import GpuSpec, catalog, resolve_gpu
from tools.speed import SpeedResult
from tools.vram import VramResult

_FORMAT = "q4_k_m"  # what llama.cpp / Ollama / LM Studio run on either machine
_MAC_DEFAULT = "apple-m4-pro-64gb"  # the largest Mac mini: the Mac people weigh against a PC when none is sized


def _apple(gpu: GpuSpec | None) -> bool:
    return gpu is not None and gpu.segment == "apple"


def _unified_gb(gpu: GpuSpec) -> float:
    """A Mac's whole unified memory, as sold (its row id ends in it); vram_gib is the share the GPU may wire."""
    m = re.search(r"-(\d+)gb$", gpu.id)
    return float(m.group(1)) if m else gpu.vram_gib


def _mac_for(ram_gib: float | None) -> str:
    """The cheapest Mac sold with at least the memory asked for ("a Mac with >= 192 GB"), else the Mac mini's top."""
    if not ram_gib:
        return _MAC_DEFAULT
    macs = [g for g in catalog().values() if _apple(g) and _unified_gb(g) >= ram_gib and g.price_usd]
    return min(macs, key=lambda g: (g.price_usd or 0, _unified_gb(g))).id if macs else _MAC_DEFAULT


def _cards_holding(args: dict[str, Any], pc: str, most: int = 2) -> int:
    """How many of the PC's card (one or two, what a desktop takes) hold the model under llama.cpp; 0: neither."""
    from tools.sizing import fits, headroom_for
    from tools.vram import VramRequest, estimate_vram

    room = headroom_for("llama.cpp")
    for n in range(1, most + 1):
        if fits(estimate_vram(VramRequest(**args, num_gpus=n)).per_gpu_gib, catalog()[pc], room):
            return n
    return 0


def _served(turn: Turn, intent: str, kind: type[R]) -> list[R]:
    """The results of the calls planned here, shared ones included (a card's memory another part sized too)."""
    return [o.result for o in turn.outcomes if o.call.serves(intent) and isinstance(o.result, kind)]


class MacOrPc(Capability):
    intent = "mac_or_pc"
    cites_guides = False

    def plan(self, ctx: PlanContext) -> None:
        s, p = ctx.scenario, ctx.parsed
        if (s.mode or "inference") != "inference" or p.symptom or "diagnose" in ctx.intents:
            return
        named = [catalog()[g] for g in p.gpu_mentions if g in catalog()]
        macs = [g for g in named if _apple(g)]
        cards = [g for g in named if not _apple(g)]
        said_mac = bool(macs) or "mac" in p.diagnose_flags
        budget = p.budget is not None
        buying = budget or p.buy_or_rent == "buy" or bool({"recommend", "build", "catalog"} & set(ctx.intents))
        # the PC side: a PC, an x86 box or a discrete card named as the other machine ("Mac Studio 还是攒一台
        # 4090 主机"), or a card named beside a Mac with a budget; "does the M2 Ultra run 65B as fast as an A6000?"
        # compares two cards. A Mac in use (owned, or a measured run: "M1 Pro 慢，换别的 GPU 会快吗") is sized or
        # diagnosed as it is, unless a budget says a machine is being bought
        pc_side = p.pc_alternative or (bool(cards) and (budget or bool({"recommend", "build"} & set(ctx.intents))))
        in_use = (p.owns_hardware or "speed" in p.intents) and not budget
        if not (said_mac and pc_side and (buying or p.pc_alternative)) or in_use:
            return
        pc = cards[0].id if cards else advice.pc_reference_gpu()  # "Mac Studio 还是 4090 主机": the card named
        mac = macs[0].id if macs else _mac_for(p.ram_gib)
        ref = {"model": s.model} if s.model else {"params_b": s.params_b} if s.params_b else None
        if ref is None:
            ref = {"model": _tiers(catalog()[pc].usable_memory_gib, p.model_family)[0]}
        tokens = advice.default_context("inference", personal=True)
        args = dict(**ref, precision=_FORMAT, context_tokens=tokens)
        n = _cards_holding(args, pc)
        if n != 1 and _cards_holding(args, advice.pc_reference_gpu()) == 1:
            # "a 3060 12 GB or similar": the used 24 GB card that holds it, and the card named measured against it
            ctx.add(self.intent, ToolName.ESTIMATE_VRAM, **args, mode="inference", num_gpus=1, gpu=pc)
            pc, n = advice.pc_reference_gpu(), 1
        ctx.add(self.intent, ToolName.ESTIMATE_VRAM, **args, mode="inference", num_gpus=1, gpu=pc)  # the model's memory
        if n:  # the PC's speed on as many of its cards as hold the model (one or two), never on one that does not
            ctx.add(self.intent, ToolName.ESTIMATE_SPEED, **args, gpu=pc, num_gpus=n)
        if _cards_holding(args, mac, most=1):  # a Mac too small for it is said so, with no speed
            ctx.add(self.intent, ToolName.ESTIMATE_SPEED, **args, gpu=mac)
        else:
            ctx.add(self.intent, ToolName.ESTIMATE_VRAM, **args, mode="inference", num_gpus=1, gpu=mac)

    def records(self, tool: ToolName) -> bool:
        return False  # a reference model on both machines, not the user's workload

    def phase(self, turn: Turn) -> int:
        return -3  # "a Mac or a PC?" is the question: the verdict leads

    def render(self, w: Writer, turn: Turn) -> None:
        vrams = [r for r in _served(turn, self.intent, VramResult) if r.fit is not None]
        cards = [r for r in vrams if not _apple(catalog()[r.fit.gpu_id])]  # type: ignore[union-attr]
        vram = cards[-1] if cards else None  # the card weighed; a card named that does not hold it comes first
        named = cards[0] if len(cards) > 1 else None
        small_mac = next((r for r in vrams if _apple(catalog()[r.fit.gpu_id])), None)  # type: ignore[union-attr]
        speeds = list(_served(turn, self.intent, SpeedResult))
        pc = next((r for r in speeds if not _apple(resolve_gpu(r.gpu)[0])), None)
        mac = next((r for r in speeds if _apple(resolve_gpu(r.gpu)[0])), None)
        if vram is None or vram.fit is None or (mac is None and small_mac is None):
            return
        card = catalog()[vram.fit.gpu_id]
        if mac is None:  # the Mac named does not hold the model the card runs
            if pc is not None and pc.num_gpus == 1 and small_mac is not None and small_mac.fit is not None:
                w.say(
                    "mac_or_pc_mac_small",
                    model=vram.model,
                    precision=vram.precision,
                    need=vram.per_gpu_gib,
                    pc=card.name,
                    pc_gib=card.vram_gib,
                    pc_tps=pc.decode_tokens_per_s or 0,
                    mac=small_mac.fit.gpu,
                    mac_cap=small_mac.fit.capacity_gib,
                )
                if named is not None and named.fit is not None:
                    w.say(
                        "mac_or_pc_named_small", gpu=named.fit.gpu, cap=named.fit.capacity_gib, need=named.per_gpu_gib
                    )
                w.say("mac_or_pc_mac_when")
            return
        mac_spec = resolve_gpu(mac.gpu)[0]
        used = card.id == advice.pc_reference_gpu()  # the reference card is bought used; a card named, new
        args = dict(
            model=vram.model,
            precision=vram.precision,
            need=vram.per_gpu_gib,
            pc=card.name,
            pc_gib=card.vram_gib,
            mac=mac.gpu,
            mac_gib=_unified_gb(mac_spec),
            pc_tps=pc.decode_tokens_per_s or 0 if pc else 0,
            mac_tps=mac.decode_tokens_per_s or 0,
            pc_pp=pc.prefill_tokens_per_s or 0 if pc else 0,
            mac_pp=mac.prefill_tokens_per_s or 0,
        )
        if pc is not None and pc.num_gpus == 1:
            w.say("mac_or_pc_pc_lead" if used else "mac_or_pc_card_lead", **args)
            if named is not None and named.fit is not None:
                w.say("mac_or_pc_named_small", gpu=named.fit.gpu, cap=named.fit.capacity_gib, need=named.per_gpu_gib)
            if args["pc_pp"] and args["mac_pp"]:  # a chip with no published FP16 figure has no prefill estimate
                w.say("mac_or_pc_prompts", **args)
            w.say("mac_or_pc_mac_when", **args)
        elif pc is not None and mac.fits_in_memory:
            w.say("mac_or_pc_two_cards", **args)  # 70B at 4-bit: two 24 GB cards, or one Mac
        elif mac.fits_in_memory:
            w.say("mac_or_pc_mac_lead", **args)
        else:
            w.say("mac_or_pc_neither", **args)

    def summary(self, tool: ToolName, result: BaseModel, lang: str) -> str:
        if isinstance(result, SpeedResult):
            return f"{result.gpu}: {result.decode_tokens_per_s} tokens/s"
        return str(tool)
