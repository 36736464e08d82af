"""Specs: one GPU's checked facts, and the user's claims about it confirmed or corrected."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from assistant.capabilities.base import Capability, PlanContext, Turn
from assistant.planner.parse import ParsedQuery
from assistant.scenario import Scenario
from assistant.strings import Writer, catalog
from assistant.toolset import ToolName
from tools.gpu_search import GpuRow, GpuSpecsResult

_MIN_TFLOPS = 20  # smaller "T" numbers are not tensor throughput claims


def num(value: float | None) -> str:
    return "-" if value is None else f"{value:g}"


def price_text(w: Writer, g: GpuRow) -> str:
    return w.t("price_word", price=g.price, currency=g.currency) if g.price else w.t("no_price")


def yes_no(w: Writer, value: Any) -> str:
    return w.t("yes_word") if value else w.t("no_word")


def _nvlink(w: Writer, g: GpuRow) -> str:
    return (num(g.nvlink_gbs) + " GB/s") if g.nvlink else w.t("no_word")


def _fp8(w: Writer, g: GpuRow) -> str:
    return num(g.fp8_tflops) if g.fp8_tflops else w.t("none_word")


def _tflops_claims(w: Writer, g: GpuRow, quoted: list[float]) -> None:
    """A TFLOPS figure the user quotes: dense, the with-sparsity headline, or neither."""
    dense = {"BF16": g.bf16_tflops, "FP16": g.fp16_fp16acc_tflops or g.fp16_tflops, "FP8": g.fp8_tflops}
    for value in quoted:
        if value < _MIN_TFLOPS:
            continue
        exact = next((k for k, d in dense.items() if d and abs(value - d) / d < 0.02), None)
        sparse = next((k for k, d in dense.items() if d and abs(value - 2 * d) / (2 * d) < 0.02), None)
        if exact:
            w.say("tflops_dense", value=value, prec=exact, name=g.name)
        elif sparse:
            w.say("tflops_sparse", value=value, prec=sparse, dense=dense[sparse], name=g.name)
        else:
            w.say("tflops_unknown", value=value, name=g.name, bf16=num(g.bf16_tflops), fp8=num(g.fp8_tflops))


def _bandwidth_claims(w: Writer, g: GpuRow, parsed: ParsedQuery) -> None:
    """A GB/s figure the user quotes: NVLink when they talk about NVLink, else memory bandwidth."""
    about_link = "nvlink" in parsed.topics_mentioned
    for value in parsed.quoted_gbs:
        link = g.nvlink_gbs
        if about_link and link and abs(value - link) / link > 0.02:
            w.say("nvlink_value_false", value=value, name=g.name, actual=link)
        elif not about_link and abs(value - g.bandwidth_gbs) / g.bandwidth_gbs > 0.02:
            w.say("bandwidth_value_false", value=value, name=g.name, actual=g.bandwidth_gbs)


def _vram_claims(w: Writer, g: GpuRow, parsed: ParsedQuery) -> None:
    if parsed.quoted_gbs:
        return  # "600 GB/s" was a link speed, handled above
    for claim in parsed.claims:
        asserted = claim.asserted
        if claim.topic != "vram" or isinstance(asserted, bool) or not isinstance(asserted, float | int):
            continue
        if abs(float(asserted) - g.vram_gib) > 0.5 and (not claim.gpu or claim.gpu == g.id):
            w.say("vram_value_false", value=float(asserted), name=g.name, actual=g.vram_gib)


def _feature_claims(w: Writer, g: GpuRow, parsed: ParsedQuery) -> None:
    truth = {
        "bf16": bool(g.bf16_tflops),
        "nvlink": g.nvlink,
        "fp8": bool(g.fp8_tflops),
        "ecc": bool(g.ecc),
        "mig": g.mig,
    }
    for claim in parsed.claims:
        if claim.gpu and claim.gpu != g.id:
            continue
        if claim.topic == "nvlink" and parsed.quoted_gbs:
            continue  # a quoted NVLink speed is checked as a number
        key = f"{claim.topic}_{str(claim.asserted).lower()}"
        fact = truth.get(claim.topic)
        if fact is None or key not in catalog()["claim_text"]:
            continue
        said = catalog()["claim_text"][key][w.lang].format(name=g.name)
        w.say("claim_true" if fact == claim.asserted else "claim_false", claim=said)


def _answers(w: Writer, g: GpuRow, asks: list[str]) -> None:
    if "bf16" in asks:
        w.say("ask_bf16_yes", name=g.name, bf16=g.bf16_tflops) if g.bf16_tflops else w.say("ask_bf16_no", name=g.name)
    if "nvlink" in asks:
        w.say("ask_nvlink_yes", nvlink_gbs=g.nvlink_gbs or 0) if g.nvlink else w.say("ask_nvlink_no", name=g.name)
    if "fp8" in asks:
        w.say("ask_fp8_yes", fp8=g.fp8_tflops) if g.fp8_tflops else w.say("ask_fp8_no", name=g.name)
    if "ecc" in asks:
        w.say("ask_ecc", value=yes_no(w, g.ecc))
    if "mig" in asks:
        w.say("ask_mig", value=yes_no(w, g.mig))


def gpu_info_lines(w: Writer, spec: GpuSpecsResult, parsed: ParsedQuery) -> None:
    for g in spec.gpus:
        w.say(
            "gpu_info_head",
            name=g.name,
            vram=g.usable_gib,
            mem=g.memory_type,
            bw=g.bandwidth_gbs,
            bf16=num(g.bf16_tflops),
            fp8=_fp8(w, g),
            nvlink=_nvlink(w, g),
            ecc=yes_no(w, g.ecc),
            mig=yes_no(w, g.mig),
            tdp=num(g.tdp_w),
        )
        _feature_claims(w, g, parsed)
        _tflops_claims(w, g, parsed.quoted_tflops)
        _bandwidth_claims(w, g, parsed)
        _vram_claims(w, g, parsed)
        _answers(w, g, parsed.asks or [c.topic for c in parsed.claims])


def compare_rows(w: Writer, spec: GpuSpecsResult) -> list[str]:
    return [
        w.t(
            "compare_row",
            name=g.name,
            vram=g.usable_gib,
            mem=g.memory_type,
            bw=g.bandwidth_gbs,
            bf16=num(g.bf16_tflops),
            fp8=_fp8(w, g),
            nvlink=_nvlink(w, g),
            ecc=yes_no(w, g.ecc),
            price=price_text(w, g),
        )
        for g in spec.gpus
    ]


class Specs(Capability):
    intent = "gpu_info"
    owns = (ToolName.GPU_SPECS,)
    render_phase = 2  # facts about the card come after the numbers computed for the workload

    def topic(self, ctx: PlanContext) -> str | None:
        return " ".join(ctx.parsed.concept_terms) or None

    def plan(self, ctx: PlanContext) -> None:
        s = ctx.scenario
        names = ctx.parsed.gpu_mentions or ([s.gpu] if s.gpu else [])
        if not names:
            ctx.need("need_gpu")
            return
        ctx.add(self.intent, ToolName.GPU_SPECS, names=names)

    def active(self, turn: Turn) -> bool:
        # a claim or question about a card is answered whichever capability looked the card up
        p = turn.parsed
        return self.intent in turn.plan.intents or bool(p.claims or p.asks)

    def render(self, w: Writer, turn: Turn) -> None:
        for i, spec in turn.results(GpuSpecsResult):
            if i not in turn.shown:
                gpu_info_lines(w, spec, turn.parsed)
                turn.shown.add(i)

    def apply(self, scenario: Scenario, tool: ToolName, args: dict[str, Any]) -> None:
        names = args.get("names") or []
        if len(names) == 1:
            scenario.gpu = names[0]
        elif len(names) > 1:
            scenario.gpus = list(names)  # the cards being compared: "which one is faster?" refers to them

    def summary(self, tool: ToolName, result: BaseModel, lang: str) -> str:
        if not isinstance(result, GpuSpecsResult):
            return str(tool)
        return ", ".join(g.name for g in result.gpus[:4])
