"""Specs: one GPU's checked facts, and the user's claims about it confirmed or corrected."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from assistant.capabilities.base import Capability, PlanContext, Turn
from assistant.capabilities.card_use import extra_cards, use_lines
from assistant.capabilities.compare import COMPARE_SHOWS
from assistant.capabilities.named_cards import INTENT as NAMED_CARDS
from assistant.capabilities.workload import specs_args
from assistant.scenario import Scenario
from assistant.strings import Writer
from assistant.strings import catalog as strings
from assistant.toolset import ToolName
from assistant.understanding import ParsedQuery
from assistant.understanding.card_size import far_too_big_for_card
from tools.advice import reference_models
from tools.gpu_search import GpuRow, GpuSpecsResult
from tools.notes import money, note
from tools.tco import TcoResult
from tools.vram import VramResult

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


def _dense_figures(g: GpuRow) -> dict[str, float]:
    """Every dense tensor figure the card's spec sheet prints, by kind (tflops_kind labels): GeForce cards
    print FP16 and FP8 twice, at FP16 accumulate (the headline) and at FP32 accumulate (what training uses)."""
    figures = {
        "bf16": g.bf16_tflops,
        "fp16": g.fp16_tflops,
        "fp16_fp16acc": g.fp16_fp16acc_tflops,
        "fp8": g.fp8_tflops,
        "fp8_fp16acc": g.fp8_fp16acc_tflops,
    }
    return {k: v for k, v in figures.items() if v}


def _tflops_claims(w: Writer, g: GpuRow, parsed: ParsedQuery) -> None:
    """A TFLOPS figure the user quotes: dense, a with-sparsity headline (2x a dense figure), or neither; and,
    when the question is about training, the figure training speed is estimated from."""
    dense = _dense_figures(g)
    for value in parsed.quoted_tflops:
        if value < _MIN_TFLOPS:
            continue
        exact = next((k for k, d in dense.items() if abs(value - d) / d < 0.02), None)
        sparse = next((k for k, d in dense.items() if abs(value - 2 * d) / (2 * d) < 0.02), None)
        if exact:
            w.say("tflops_dense", value=value, prec=w.label("tflops_kind", exact), name=g.name)
        elif sparse:
            w.say("tflops_sparse", value=value, prec=w.label("tflops_kind", sparse), dense=dense[sparse], name=g.name)
        else:
            w.say("tflops_unknown", value=value, name=g.name, bf16=num(g.bf16_tflops), fp8=num(g.fp8_tflops))
        training = parsed.mode not in (None, "inference") or parsed.fine_tune_unspecified or parsed.pretrain
        if training and exact != "bf16" and g.bf16_tflops:
            w.say("tflops_for_training", bf16=g.bf16_tflops, value=value)


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
        "bf16": g.has_bf16,
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
        if fact is None or key not in strings()["claim_text"]:
            continue
        said = strings()["claim_text"][key][w.lang].format(name=g.name)
        w.say("claim_true" if fact == claim.asserted else "claim_false", claim=said)


def _answers(w: Writer, g: GpuRow, asks: list[str]) -> None:
    if "bf16" in asks:
        if g.bf16_tflops:
            w.say("ask_bf16_yes", name=g.name, bf16=g.bf16_tflops)
        else:  # the A10G: BF16 by its architecture, no published rate
            w.say("ask_bf16_yes_unrated", name=g.name) if g.has_bf16 else w.say("ask_bf16_no", name=g.name)
    if "nvlink" in asks:
        w.say("ask_nvlink_yes", nvlink_gbs=g.nvlink_gbs or 0) if g.nvlink else w.say("ask_nvlink_no", name=g.name)
    if "fp8" in asks:
        w.say("ask_fp8_yes", fp8=g.fp8_tflops) if g.fp8_tflops else w.say("ask_fp8_no", name=g.name)
    if "ecc" in asks:
        w.say("ask_ecc", value=yes_no(w, g.ecc))
    if "mig" in asks:
        w.say("ask_mig", value=yes_no(w, g.mig))


def _link_needed(w: Writer, spec: GpuSpecsResult, parsed: ParsedQuery) -> None:
    """ "Do I need NVLink to split a 70B across two 3090s?": the verdict for the job, then the card's link."""
    if "nvlink" not in parsed.asks or not parsed.asks_if_needed or not spec.gpus:
        return
    g = spec.gpus[0]
    bridge = (
        w.t("nvlink_bridge_yes", name=g.name, gbs=g.nvlink_gbs or 0)
        if g.nvlink
        else w.t("nvlink_bridge_no", name=g.name)
    )
    training = parsed.mode not in (None, "inference")
    w.say("nvlink_training_helps" if training else "nvlink_not_needed_inference", bridge=bridge)


def gpu_info_lines(w: Writer, spec: GpuSpecsResult, parsed: ParsedQuery) -> None:
    _link_needed(w, spec, parsed)
    use_lines(w, spec, parsed)
    for g in spec.gpus:
        # a claim the user raised is answered first (verdict first), the card's sheet follows
        _feature_claims(w, g, parsed)
        _tflops_claims(w, g, parsed)
        _bandwidth_claims(w, g, parsed)
        _vram_claims(w, g, parsed)
        fp16_only = not g.bf16_tflops and not g.has_bf16 and bool(g.fp16_tflops)  # V100, 2080 Ti: FP16, not BF16
        w.say(
            "gpu_info_head_fp16" if fp16_only else "gpu_info_head",
            name=g.name,
            vram=g.usable_gib,
            mem=g.memory_type,
            bw=g.bandwidth_gbs,
            **({"fp16": num(g.fp16_tflops)} if fp16_only else {"bf16": num(g.bf16_tflops)}),
            fp8=_fp8(w, g),
            nvlink=_nvlink(w, g),
            ecc=yes_no(w, g.ecc),
            mig=yes_no(w, g.mig),
            tdp=num(g.tdp_w),
        )
        asks = [a for a in parsed.asks if not (a == "nvlink" and parsed.asks_if_needed)]  # said in the verdict
        _answers(w, g, asks or [c.topic for c in parsed.claims])


def buying_used_for_model(p: ParsedQuery) -> bool:
    """Buying a named card second-hand to run a named model (not a card the user already owns)."""
    used = bool(p.used_market and p.gpu_mentions and (p.model or p.params_b) and not p.owns_hardware)
    # a model several times the card's memory (DeepSeek-V3, one A800) is no purchase of that one card
    return used and not far_too_big_for_card(p)


def _run_fields(w: Writer, r: VramResult) -> dict[str, Any]:
    """How a run on the used card was sized: the format for inference, the method and format for training."""
    fmt = w.label("format", r.precision)
    how = fmt if r.mode == "inference" else f"{w.label('method', r.mode)}{'，' if w.lang == 'zh' else ', '}{fmt}"
    return {"model": r.model, "how": how, "context": r.context_tokens, "need": r.per_gpu_gib}


def used_lines(w: Writer, spec: GpuSpecsResult, runs: list[VramResult], rent_first: bool = False) -> None:
    """Buying second-hand: the dated used price, what the card runs, what to check before paying. Under a lead that
    says rent (`rent_first`: the cost comparison finds renting cheaper), the block is what to know *if* the user buys
    anyway, not a second verdict ("worth buying") against the first."""
    for g in spec.gpus:
        if len(spec.gpus) > 1 and g.price is not None and not g.unofficial:
            continue  # "used 3090 vs new 4090": the card on sale new is not the second-hand one
        tried = [r for r in runs if r.fit is not None and r.fit.gpu_id == g.id]
        fits = [r for r in tried if r.fit is not None and r.fit.fits]
        fit = fits[0] if fits else (tried[0] if tried else None)  # the biggest model that fits, else the smallest
        price = ""
        if g.used_price_range:
            low, high = g.used_price_range
            key = "used_price" if g.used_price_date else "used_price_estimated"  # no date: no dated sale was found
            price = w.t(key, low=money(low, g.currency), high=money(high, g.currency), date=g.used_price_date)
        w.say("used_head_if_buying" if rent_first else "used_head", name=g.name, vram=g.vram_gib, price=price)
        if fit is not None and fit.fit is not None:
            key = "used_runs" if fit.fit.fits else "used_runs_not"
            key += "_n" if fit.fit.fits and fit.num_gpus > 1 else ""  # "on 16 of them", never as if on one
            w.say(key, **_run_fields(w, fit), usable=fit.fit.usable_gib_per_gpu, n=fit.num_gpus)
        for bigger in (r for r in tried if r is not fit and r.fit is not None and not r.fit.fits):
            w.say("used_runs_not", **_run_fields(w, bigger), usable=bigger.fit.usable_gib_per_gpu)
        w.add(note("used_card_checks").render(w.lang))
        if g.unofficial:
            w.add(note("unofficial_card").render(w.lang))


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
        names = [*names, *extra_cards(ctx.parsed, names)][:8]  # China variants, the training reference
        ctx.add(self.intent, ToolName.GPU_SPECS, **specs_args(s, names))
        if ctx.parsed.used_market and not ctx.has_model:
            for name in names[:2]:  # "二手 3090 能买吗": what the card runs is the figure that matters
                self._what_it_runs(ctx, name)

    def _what_it_runs(self, ctx: PlanContext, name: str) -> None:
        from tools.catalog import resolve_gpu
        from tools.errors import AdvisorError

        try:
            gpu, _ = resolve_gpu(name)
        except AdvisorError:
            return
        for ref in reference_models(gpu.usable_memory_gib):  # the tier the card's memory suggests, and the one below
            args = {"model": ref, "precision": "q4_k_m", "context_tokens": 8192, "batch": 1, "gpu": name}
            ctx.add(self.intent, ToolName.ESTIMATE_VRAM, **args)

    def phase(self, turn: Turn) -> int:
        """A second-hand card asked about for a named model ("想买二手 V100 跑 Qwen2.5-14B，靠谱吗"): whether it is
        worth buying and what to check lead; the model's fit backs it."""
        return -2 if buying_used_for_model(turn.parsed) else self.render_phase

    def active(self, turn: Turn) -> bool:
        # a claim or question about a card is answered whichever capability looked the card up
        p = turn.parsed
        compared = "compare" in turn.plan.intents and set(p.asks) <= COMPARE_SHOWS
        return self.intent in turn.plan.intents or bool(p.claims or (p.asks and not compared))

    def render(self, w: Writer, turn: Turn) -> None:
        for i, spec in turn.results(GpuSpecsResult):
            if i not in turn.shown and turn.outcomes[i].call.owner != NAMED_CARDS:  # placed in one line there
                if turn.parsed.used_market:
                    rent_first = any(t.rent and t.cheapest != "buy" for _, t in turn.results(TcoResult))
                    # the user's model on the card when one is named ("a used mining 3090 for Llama 3 8B?"), else
                    # the examples this part sized
                    runs = turn.own(self.intent, VramResult) or [r for _, r in turn.results(VramResult)]
                    used_lines(w, spec, runs, rent_first)
                gpu_info_lines(w, spec, turn.parsed)
                turn.shown.add(i)

    def records(self, tool: ToolName) -> bool:
        return tool != ToolName.ESTIMATE_VRAM  # "what a used 3090 runs" is an example, not the user's model

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
