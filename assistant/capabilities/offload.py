"""Offload: a model bigger than the GPU memory, run partly from system RAM (or on the CPU alone).

Asked directly ("64G 内存 + 一张 4060Ti 能跑 Mixtral 吗", "CPU only, how fast?") or as one of the ways a job that
does not fit the user's own GPUs can still run (assistant/capabilities/cheaper.py): where the weights live, the
RAM it needs against the RAM the user has, and tokens/s from RAM bandwidth (tools/offload.py).
"""

from __future__ import annotations

from typing import ClassVar

from pydantic import BaseModel

from assistant.capabilities.base import Capability, PlanContext, Turn
from assistant.capabilities.workload import offload_args
from assistant.strings import Writer
from assistant.toolset import ToolName
from tools import advice
from tools.advice import min_chat_speed
from tools.notes import Note, render_all
from tools.offload import OffloadResult


def offload_lines(w: Writer, r: OffloadResult, lead_key: str = "offload_line", tail: bool = True) -> None:
    """Where the model lives and how fast it decodes, verdict first; the RAM it needs against what there is (the
    tail: `offload_tail`, which a caller with more to say in the lead's paragraph writes later)."""
    where = w.t("offload_on_gpus", n=r.num_gpus, gpu=r.gpu) if r.gpu else w.t("offload_cpu_only")
    if r.mixed_gpus:  # different cards: each named ("3080 10GB + 2080 Ti 22GB")
        where = w.t("offload_on_mixed", cards=(" + " if w.lang == "en" else "、").join(r.mixed_gpus))
    ram = w.t("offload_ram", memory=r.ram.memory.upper(), channels=r.ram.channels, gbs=r.ram.effective_gbs)
    faster = w.t("offload_if_all_on_gpu", tps=r.gpu_only_tokens_per_s) if r.gpu_only_tokens_per_s else ""
    if lead_key == "offload_line" and r.decode_tokens_per_s >= min_chat_speed():
        lead_key = "offload_line_usable"  # 40 tokens/s from RAM is no "slowly"
    if lead_key == "offload_way" and r.strategy == "cpu":
        lead_key = "offload_cpu_way"
    own_lead = lead_key in ("offload_line", "offload_line_usable")
    short = r.fits_in_ram is False and own_lead  # "a 70B with 16GB RAM": the RAM is the verdict
    if short:
        w.say("offload_ram_short_lead", have=r.ram_gib or 0, need=r.ram_needed_gib, where=where, **_said(r, ram))
    elif own_lead and r.strategy == "cpu":  # no GPU: no layout to name, "0 GiB on the GPUs" says nothing
        pace = w.t("offload_pace_slow") if r.decode_tokens_per_s < min_chat_speed() else ""
        w.say("offload_cpu_line", pace=pace, **_said(r, ram))
    else:
        w.say(
            "offload_gpu_only" if r.strategy == "gpu_only" else lead_key,
            model=r.model,
            precision=r.precision.upper(),  # Q4_K_M, MXFP4: a format as engineers write it
            where=where,
            n=r.num_gpus,
            gpu=r.gpu,
            layout=w.label("offload_layout", r.strategy),
            on_gpu=r.on_gpu_gib,
            in_ram=r.in_ram_gib,
            layers=r.layers_on_gpu,
            total=r.layers_total,
            ram=ram,
            tps=r.decode_tokens_per_s,
            faster=faster,
        )
    if tail:
        offload_tail(w, r, said_short=short)


def _own(turn: Turn) -> list[tuple[int, OffloadResult]]:
    """This capability's offload results, each marked shown (said once: a fit or memory lead does not repeat it)."""
    out = list(turn.own_indexed("offload", OffloadResult))
    turn.shown.update(i for i, _ in out)
    return out


def _whole(args: dict) -> bool:
    """The model as asked fits the user's cards whole (no split to make)."""
    from tools.errors import AdvisorError
    from tools.offload import OffloadRequest, estimate_offload

    try:
        return estimate_offload(OffloadRequest(**args)).strategy == "gpu_only"
    except (AdvisorError, ValueError):
        return False


def _examples(ctx: PlanContext, whole: bool = True) -> None:
    """No model named, a card (or a card size) is: the reference models of advice.yaml `reference_model_by_memory`,
    smallest first, on that card with the rest in RAM: the biggest that fits whole, then up to two that need the
    split (llama.cpp -ngl / Ollama num_gpu), each with its tokens/s."""
    from tools.errors import AdvisorError
    from tools.offload import OffloadRequest, estimate_offload

    s, size = ctx.scenario, ctx.parsed.stated_capacity_gib
    if not (s.gpu or size):
        ctx.need("need_model")
        return
    card = {"gpu": s.gpu, "num_gpus": s.num_gpus or 1} if s.gpu else {"vram_gib": size}
    ram = ctx.parsed.ram_gib or s.ram_gib
    card |= {"ram_gib": ram} if ram else {}
    rows = sorted(advice.policy()["reference_model_by_memory"], key=lambda r: r["min_gib"])
    fits, split = None, []
    for row in rows:
        args = {"model": row["model"], "precision": "q4_k_m", **card}
        try:
            r = estimate_offload(OffloadRequest(**args))
        except (AdvisorError, ValueError):
            continue
        if r.strategy == "gpu_only":
            fits = args
        elif len(split) < 2:
            split.append(args)
    for args in ([fits] if fits and whole else []) + split:
        ctx.add("offload", ToolName.ESTIMATE_OFFLOAD, **args)


def _example_lines(w: Writer, results: list[OffloadResult]) -> None:
    """The layer split explained on the user's card, then each reference model: whole on the card, or split."""
    split = [r for r in results if r.strategy not in ("gpu_only", "cpu")]
    if not split:
        return
    gpu = split[0].gpu or ""
    w.say("offload_layers_howto", gpu=gpu, n=split[0].num_gpus)
    for r in results:
        ram = w.t("offload_ram", memory=r.ram.memory.upper(), channels=r.ram.channels, gbs=r.ram.effective_gbs)
        if r.strategy == "gpu_only":
            w.say(
                "offload_example_whole",
                model=r.model,
                precision=r.precision.upper(),
                on_gpu=r.on_gpu_gib,
                tps=r.decode_tokens_per_s,
            )
        else:
            w.say(
                "offload_example_split",
                model=r.model,
                precision=r.precision.upper(),
                layers=r.layers_on_gpu,
                total=r.layers_total,
                in_ram=r.in_ram_gib,
                need=r.ram_needed_gib,
                tps=r.decode_tokens_per_s,
                ram=ram,
            )
    w.bullets("assumptions_head", render_all(_arithmetic(split[-1]), w.lang), limit=4)


def lower_line(w: Writer, r: OffloadResult) -> None:
    """The lower llama.cpp level whose split fits the RAM stated."""
    w.say(
        "offload_lower_fits_cpu" if r.strategy == "cpu" else "offload_lower_fits",
        precision=r.precision.upper(),
        model=r.model,
        need=r.ram_needed_gib,
        on_gpu=r.on_gpu_gib,
        in_ram=r.in_ram_gib,
        tps=r.decode_tokens_per_s,
    )


_ARITHMETIC = ("offload_ram_stated", "offload_ram_default", "offload_layout_", "offload_decode_time", "offload_card")


def _arithmetic(r: OffloadResult) -> list[Note]:
    """The offload result's own arithmetic: the RAM's bandwidth (channels × transfer rate), where the layers or
    experts went, and the bytes each token reads from each side over its bandwidth."""
    return [a for a in r.assumptions if a.code.startswith(_ARITHMETIC)]


def _said(r: OffloadResult, ram: str) -> dict[str, object]:
    return dict(model=r.model, precision=r.precision.upper(), in_ram=r.in_ram_gib, tps=r.decode_tokens_per_s, ram=ram)


def offload_tail(w: Writer, r: OffloadResult, said_short: bool = False) -> None:
    """The RAM the split needs against the RAM there is (unless the lead said it is short), and the warnings."""
    if r.strategy != "gpu_only" and not said_short:
        if r.fits_in_ram is False:
            w.say("offload_ram_short_line", need=r.ram_needed_gib, have=r.ram_gib or 0)
        elif r.ram_gib:
            w.say("offload_ram_ok_line", need=r.ram_needed_gib, have=r.ram_gib)
        else:
            w.say("offload_ram_need_line", need=r.ram_needed_gib)
    w.bullets("warnings_head", render_all([x for x in r.warnings if x.code != "offload_ram_short"], w.lang))


class Offload(Capability):
    intent = "offload"
    owns = (ToolName.ESTIMATE_OFFLOAD,)
    scenario_fields: ClassVar[dict[ToolName, dict[str, str]]] = {
        ToolName.ESTIMATE_OFFLOAD: {
            "model": "model",
            "params_b": "params_b",
            "gpu": "gpu",
            "num_gpus": "num_gpus",
            "context_tokens": "context_tokens",
            "ram_gib": "ram_gib",
            "memory": "ram_type",
            "machine": "machine",
        }
    }
    guides_topic = "CPU offload system RAM memory bandwidth llama.cpp layers experts"

    def plan(self, ctx: PlanContext) -> None:
        from assistant.capabilities.cheaper import offload_within_ram

        if not ctx.has_model and ctx.parsed.min_vram_gib and ctx.scenario.gpu:
            ctx.hand_over(self.intent, "capacity")  # "it needs 15GB; can I offload from my 8GB card?": the need leads
            return
        if not ctx.has_model:
            _examples(ctx)  # "low VRAM mode? move layers to system RAM on my 3060": the models it then runs
            return
        args = offload_args(ctx.scenario)
        ctx.add(self.intent, ToolName.ESTIMATE_OFFLOAD, **args)
        if args.get("gpu") and _whole(args):  # "move layers to RAM? my 3060 runs 7B models": the bigger ones split
            _examples(ctx, whole=False)
        lower = offload_within_ram(args)
        if lower is not None:  # "2 × L40 and 256 GB for R1": the 4-bit split needs more RAM; the level that fits it
            ctx.add(self.intent, ToolName.ESTIMATE_OFFLOAD, **lower)
        ram = ctx.scenario.ram_gib
        if ram and not args.get("gpu") and not ctx.parsed.stated_capacity_gib:
            # "a 70B with 16GB RAM": what that RAM holds on the CPU, said when the model does not fit it
            from assistant.capabilities.memory import own_series

            holds = {"cpu_ram_gib": ram, "with_finetune": False}
            ctx.add(self.intent, ToolName.LARGEST_MODEL, **holds, **own_series(ctx.scenario, holds))

    def render(self, w: Writer, turn: Turn) -> None:
        from tools.capacity import CapacityResult

        if not turn.plan.scenario.model and not turn.plan.scenario.params_b:
            _example_lines(w, [r for _, r in _own(turn)])
            return

        results = [r for _, r in _own(turn)]
        first = results[0] if results else None
        if first is not None and first.strategy == "gpu_only" and len(results) > 1:
            offload_lines(w, first)  # it fits whole: no split; the bigger models that would need one follow
            _example_lines(w, results[1:])
            return
        if first is not None:  # said once: a fit or memory lead does not repeat it
            offload_lines(w, first, tail=False)
        short = first is not None and first.fits_in_ram is False
        for i, c in turn.own_indexed(self.intent, CapacityResult):
            turn.shown.add(i)
            way = next((x for x in c.ways if x.mode == "inference" and x.max_params_b and x.examples), None)
            if short and way is not None and c.cpu_ram_gib:  # a smaller model at 4-bit before a 2-bit file
                top = way.examples[0]
                holds = dict(max_b=way.max_params_b, example=top.model, example_gib=top.per_gpu_gib)
                w.say("offload_ram_holds", have=c.cpu_ram_gib, **holds)
        for r in results[1:]:
            if r.fits_in_ram:
                lower_line(w, r)
        if first is not None:
            offload_tail(w, first, said_short=short)
        if first is not None and first.strategy != "gpu_only":  # the offload arithmetic, as the tool did it
            w.bullets("assumptions_head", render_all(_arithmetic(first), w.lang), limit=4)

    def summary(self, tool: ToolName, result: BaseModel, lang: str) -> str:
        if not isinstance(result, OffloadResult):
            return str(tool)
        return f"{result.decode_tokens_per_s} tokens/s, {result.in_ram_gib} GiB in RAM ({result.strategy})"
