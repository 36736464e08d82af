"""What a card is for, where it can be bought: "国内还能买到 H100 吗", "is the H20 any good for training?".

Two verdicts a spec sheet alone does not give. Export controls: a card that cannot be bought new in China,
and the China-market variants that can (the catalog's `cn_availability`). Training or inference: a card's
dense BF16 compute against the reference training card (advice.yaml `training_reference_gpu`); decode is
memory-bound, so a card with high bandwidth and little compute serves well and trains slowly.
"""

from __future__ import annotations

from assistant.strings import Writer
from assistant.understanding import ParsedQuery
from tools import advice
from tools.catalog import GpuSpec, catalog, resolve_gpu
from tools.errors import AdvisorError
from tools.gpu_search import GpuRow, GpuSpecsResult

_MAX_VARIANTS = 3
_INFERENCE_CARD_SHARE = 0.4  # under this share of the reference card's compute, training is the weak side


def in_china(parsed: ParsedQuery) -> bool:
    return parsed.in_china or parsed.language == "zh"


def _spec(name: str) -> GpuSpec | None:
    try:
        return resolve_gpu(name)[0]
    except AdvisorError:
        return None


def china_variants(gpu: GpuSpec) -> list[str]:
    """The China-market cards of the same segment, newest first: what can be bought instead."""
    found = [g for g in catalog().values() if g.cn_availability == "china_market" and g.segment == gpu.segment]
    found.sort(key=lambda g: (-(g.launch_year or 0), -g.bandwidth_gbs))
    return [g.id for g in found[:_MAX_VARIANTS]]


def extra_cards(parsed: ParsedQuery, names: list[str]) -> list[str]:
    """Cards to look up beside the ones named: the China variants of a controlled card, the reference."""
    extra: list[str] = []
    specs = [g for g in (_spec(n) for n in names) if g is not None]
    if parsed.asks_availability and in_china(parsed):
        for g in specs:
            if g.cn_availability == "export_controlled":
                extra += china_variants(g)
    if parsed.asks_training_fit:
        extra.append(advice.training_reference_gpu())
    ids = {g.id for g in specs}
    return [e for e in dict.fromkeys(extra) if e not in ids]


def _card_item(w: Writer, g: GpuRow) -> str:
    return w.t(
        "card_brief", name=g.name, vram=g.vram_gib, mem=g.memory_type, bw=g.bandwidth_gbs, bf16=g.bf16_tflops or 0
    )


def _availability(w: Writer, named: GpuRow, rows: list[GpuRow], parsed: ParsedQuery) -> GpuRow:
    """Says whether the card is sold in China; returns the card the rest of the answer is about."""
    if not (parsed.asks_availability and in_china(parsed)):
        return named
    if named.cn_availability != "export_controlled":
        w.say("cn_sold", name=named.name)
        return named
    variants = [r for r in rows if r.cn_availability == "china_market"]
    items = ("；" if w.lang == "zh" else "; ").join(_card_item(w, g) for g in variants)
    w.say("cn_not_sold_new", name=named.name, variants=items)
    return variants[0] if variants else named


def _training_fit(w: Writer, card: GpuRow, rows: list[GpuRow]) -> None:
    ref_id = advice.training_reference_gpu()
    ref = next((r for r in rows if r.id == ref_id), None)
    if ref is None or not ref.bf16_tflops or not card.bf16_tflops:
        return
    share = card.bf16_tflops / ref.bf16_tflops
    key = "use_inference_card" if share < _INFERENCE_CARD_SHARE else "use_trains_well"
    w.say(
        key,
        name=card.name,
        bw=card.bandwidth_gbs,
        vram=card.vram_gib,
        bf16=card.bf16_tflops,
        ref=ref.name,
        ref_bf16=ref.bf16_tflops,
        pct=share * 100,
        times=1 / share,
    )


def use_lines(w: Writer, spec: GpuSpecsResult, parsed: ParsedQuery) -> None:
    """The verdicts first: can it be bought here, and is it for training or for inference."""
    if not spec.gpus or not (parsed.asks_training_fit or parsed.asks_availability):
        return
    card = _availability(w, spec.gpus[0], spec.gpus, parsed)
    if parsed.asks_training_fit and card.id != advice.training_reference_gpu():
        _training_fit(w, card, spec.gpus)
