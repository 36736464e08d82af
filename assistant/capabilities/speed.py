"""Speed: decode / prefill tokens per second, or training throughput, on named GPUs."""

from __future__ import annotations

from typing import ClassVar

from pydantic import BaseModel

from assistant.capabilities.base import Capability, Outcome, Plan, PlanContext, ToolCall, Turn
from assistant.capabilities.memory import first_vram, hardware_lines, sized_lines, sizing_calls
from assistant.capabilities.speed_lead import said
from assistant.capabilities.workload import specs_args, speed_args, vram_args
from assistant.strings import Writer
from assistant.toolset import ToolName
from tools.notes import Note, note, render_all
from tools.speed import SpeedResult
from tools.vram import VramResult


def time_lead(w: Writer, r: SpeedResult, count_said: bool = True) -> None:
    """How long the run takes, first: the hours (and days), the tokens and the training speed they come from. A run
    far past a month on cards the user did not count ("预训练 7B 2T tokens 要几张 H100、多久") leads with the cards
    that finish it in about a month: compute, not the memory minimum, is the count an expert gives."""
    if r.scale_out_gpus and not count_said:
        scale_out_line(w, r)
    hours = r.time_to_train_hours or 0
    days = w.t("train_days_part", days=r.time_to_train_days or hours / 24) if hours >= 36 else ""
    # a run under an hour keeps two significant figures ("0.013 hours"), never "0 hours"
    shown = float(f"{hours:.2g}") if hours < 1 else round(hours, 1) if hours < 10 else round(hours)
    if r.num_gpus > 1 and r.gpu_hours_to_train:  # "how many GPU hours": the hours times the cards, what runs cost
        gh = r.gpu_hours_to_train
        gpu_hours = f"{gh:g}" if gh < 10 else f"{gh:,.0f}"  # "740,803", never "7.40803e+05"
        days += w.t("train_gpu_hours_part", n=r.num_gpus, hours=shown, gpu_hours=gpu_hours)
    w.say(
        "train_time_lead",
        hours=shown,
        days=days,
        model=r.model,
        method=w.label("method", r.method),
        n=r.num_gpus,
        gpu=r.gpu,
        tokens=_short(r.tokens_to_train) if (r.tokens_to_train or 0) >= 1e9 else f"{r.tokens_to_train or 0:,.0f}",
        tps=r.training_tokens_per_s or 0,
        context=r.context_tokens,
    )
    data = [a for a in r.assumptions if a.code.startswith("speed_dataset_tokens") or a.code == "speed_tokens_epochs"]
    for a in data[:1]:
        w.add(a.render(w.lang)[:1].upper() + a.render(w.lang)[1:] + ("." if w.lang == "en" else "。"))
    flops_line(w, r)
    if count_said:
        scale_out_line(w, r)


def _short(x: float) -> str:
    """A big count as the field writes it: 2T, 400B, 1.1e23."""
    for scale, unit in ((1e12, "T"), (1e9, "B"), (1e6, "M")):
        if x >= scale:
            return f"{x / scale:.3g}{unit}"
    return f"{x:,.0f}"


def flops_line(w: Writer, r: SpeedResult) -> None:
    """A run of a billion tokens or more: the 6·N·D arithmetic its hours come from, with the MFU assumed."""
    basis = next((a for a in r.assumptions if a.code == "speed_training"), None)
    tokens, flops = r.tokens_to_train or 0, r.training_flops
    if basis is not None and flops and tokens >= 1e9 and r.peak_tflops and r.training_mfu and r.bound == "compute":
        mantissa, exponent = f"{flops:.2g}".split("e")
        w.say(
            "train_time_method",
            per_param=float(basis.params["per_param"]),
            params=round(float(basis.params["active_b"]), 2),
            tokens=_short(tokens),
            flops=f"{mantissa}e{int(exponent)}",
            n=r.num_gpus,
            tflops=r.peak_tflops,
            mfu=r.training_mfu,
        )


def scale_out_line(w: Writer, r: SpeedResult) -> None:
    """A run far past a month on these cards: the cards that finish it in about a month (tools/speed.py)."""
    if r.scale_out_gpus and r.scale_out_days and r.gpu_hours_to_train:
        w.say(
            "train_time_scale_out",
            gpus=r.scale_out_gpus,
            gpu=r.gpu,
            days=r.scale_out_days,
            gpu_hours=r.gpu_hours_to_train,
        )


def speed_lines(w: Writer, r: SpeedResult, time_said: bool = False, line: bool = True, notes: bool = True) -> None:
    """The speed sentence (`line`) and its assumptions and warnings (`notes`): a speed that leads says its sentence
    first and its notes after the fit verdict that backs it, so the verdict stays in the first lines."""
    if line:
        _speed_sentence(w, r, time_said)
    if notes:
        w.bullets("assumptions_head", render_all(_unsaid_dtype(w, r), w.lang), limit=5)
        w.bullets("warnings_head", render_all(r.warnings, w.lang))


def _unsaid_dtype(w: Writer, r: SpeedResult) -> list[Note]:
    """The assumptions, less the dtype a card without BF16 trains in when the memory part said it already."""
    said = w.text()
    return [
        a
        for a in r.assumptions
        if not a.code.startswith("speed_train_dtype_")
        or note("vram_" + a.code.removeprefix("speed_"), gpu=r.gpu).render(w.lang) not in said
    ]


def _speed_sentence(w: Writer, r: SpeedResult, time_said: bool) -> None:
    bound = w.label("bound", r.bound)
    if r.training_tokens_per_s is not None:
        hours = r.time_to_train_hours
        time_part = w.t("train_time_part", hours=hours) if hours is not None and not time_said else ""
        w.say(
            "train_speed_line",
            model=r.model,
            method=w.label("method", r.method),
            precision=r.precision,
            n=r.num_gpus,
            gpu=r.gpu,
            tps=r.training_tokens_per_s,
            time_part=time_part,
            bound=bound,
        )
    else:
        w.say(
            "speed_line",
            model=r.model,
            n=r.num_gpus,
            gpu=r.gpu,
            precision=r.precision,
            decode=r.decode_tokens_per_s,
            total=r.decode_tokens_per_s_total,
            batch=r.batch,
            context=r.context_tokens,
            ttft=r.ttft_s or 0,
            prefill=r.prefill_tokens_per_s or 0,
            bound=bound,
            per_minute=_per_minute(w, r),
        )


def _per_minute(w: Writer, r: SpeedResult) -> str:
    """ "每分钟多少 token", "tokens per minute": the same decode rate per minute, beside tokens/s (else nothing)."""
    if not w.per_minute or r.decode_tokens_per_min is None:
        return ""
    several = r.batch > 1 and r.decode_tokens_per_min_total != r.decode_tokens_per_min
    total = w.t("speed_per_minute_total", total=r.decode_tokens_per_min_total, batch=r.batch) if several else ""
    return w.t("speed_per_minute", per_min=r.decode_tokens_per_min, total=total)


def _fits_then_speed(w: Writer, turn: Turn, results: list[VramResult]) -> bool:
    """ "How fast can I run a 30B on my 3090?" asked beside a fit: one estimate that fits the cards says so, and its
    tokens/s follows right after that verdict (speed_lead.py), before the memory figures. False: nothing said."""
    from assistant.capabilities.memory import memory_lines, verdict
    from assistant.capabilities.speed_lead import lead_speed

    r = results[0] if len(results) == 1 else None
    if r is None or r.fit is None or not r.fit.fits:
        return False
    verdict(w, r)
    lead_speed(w, turn, r)
    memory_lines(w, r, lead=False)
    return True


def runs(turn: Turn, r: SpeedResult) -> bool:
    """Whether a speed belongs in the answer: not for cards the turn's own estimate says the job does not fit
    (a speed on them would contradict the verdict)."""
    mode = r.method if r.method != "inference" else "inference"
    for _, v in turn.results(VramResult):
        if v.fit is None or v.fit.gpu != r.gpu or v.num_gpus != r.num_gpus:
            continue
        if v.model == r.model and v.precision == r.precision and v.mode == mode and not v.fit.fits:
            return False
    return True


class Speed(Capability):
    intent = "speed"
    owns = (ToolName.ESTIMATE_SPEED,)
    scenario_fields: ClassVar[dict[ToolName, dict[str, str]]] = {
        ToolName.ESTIMATE_SPEED: {
            "model": "model",
            "params_b": "params_b",
            "gpu": "gpu",
            "num_gpus": "num_gpus",
            "precision": "precision",
            "context_tokens": "context_tokens",
            "batch": "batch",
            "dataset_samples": "dataset_samples",
            "sample_tokens": "sample_tokens",
            "training_tokens": "dataset_tokens",
            "epochs": "epochs",
            "method": "mode",  # a training run's method is the job's (an inference call carries none)
        }
    }
    needs_model = True
    guides_topic = "memory bandwidth decode speed tokens per second"

    def topic(self, ctx: PlanContext) -> str | None:
        """Several users at once read like batching and KV cache, not one stream's bandwidth ceiling."""
        if (ctx.scenario.batch or 1) > 1:
            return "concurrent users batch throughput KV cache 并发"
        return self.guides_topic

    def plan(self, ctx: PlanContext) -> None:
        if not ctx.parsed.gpu_mentions and len(ctx.previous.gpus) > 1:
            ctx.hand_over(self.intent, "compare")  # "which one runs it faster?" after comparing cards
            return
        from assistant.capabilities.fit import personal_note, personal_scenario, published_fits  # fit imports us

        s = ctx.scenario
        # "B580 跑 14B 速度怎么样": one person's card the published weights do not fit is timed in the 4-bit build its
        # owner runs, on that card (never BF16 on four of them); weights that fit are timed as published
        local = personal_scenario(s, ctx.parsed) if s.gpu and not s.gpu_mix else None
        local = local if local is not None and published_fits(s) is None else None
        if not s.gpu:
            ctx.need("need_gpu")
        elif local is not None:  # "B580 跑 14B 速度怎么样": one person's card, timed in the format it runs
            ctx.add(self.intent, ToolName.ESTIMATE_VRAM, **vram_args(local))
            ctx.add(self.intent, ToolName.ESTIMATE_SPEED, **speed_args(local))
            ctx.second_round.append("cheaper_way")
            ctx.notes.append(personal_note(local))
        elif s.num_gpus is None and not ctx.parsed.owns_hardware:  # size the count first, then estimate speed on it
            ctx.add(self.intent, ToolName.ESTIMATE_VRAM, **vram_args(s, 1))
            ctx.add(self.intent, ToolName.GPU_SPECS, **specs_args(s, [s.gpu]))
            ctx.second_round.append(self.intent)
        else:  # on the cards the user named or owns ("I have a 3090": one): the memory verdict first (a speed only
            # where the job fits)
            ctx.add(self.intent, ToolName.ESTIMATE_VRAM, **vram_args(s))
            ctx.add(self.intent, ToolName.ESTIMATE_SPEED, **speed_args(s))
            ctx.second_round.append("cheaper_way")

    def second_round(self, plan: Plan, outcomes: list[Outcome]) -> list[ToolCall]:
        return sizing_calls(plan, first_vram(outcomes), self.intent, then_speed=True)

    def render(self, w: Writer, turn: Turn) -> None:
        results = turn.own(self.intent, VramResult)
        parts = {(r.model, r.mode): [r] for r in results}
        if len(parts) > 1 and "fit" not in turn.plan.intents:  # "8B 32B 72B 的运行效率": each size, its speed
            from assistant.capabilities.card_needed import parts_summary

            parts_summary(w, turn, list(parts.values()))
        timed = [r for r in turn.own(self.intent, SpeedResult) if r.time_to_train_hours and runs(turn, r)]
        for r in timed[:1]:
            time_lead(w, r, count_said=bool(turn.parsed.num_gpus))  # "how long will it take": the hours lead
        speeds = [r for r in turn.own(self.intent, SpeedResult) if runs(turn, r)]
        # "how many tokens/s on an L4?", asked alone, on one card that holds the job: the speed is the answer and
        # leads, the memory verdict backs it. So too on the count the user named when the cards split each token's
        # work (tensor parallel: "推理耗时多久，8 卡 A100 呢"), where every card named adds speed; a note that fewer
        # would hold it follows. Where the verdict carries news (a count sized for the job, cards that only take
        # turns on a layer split, no fit) or hours were asked, the verdict or the hours lead.
        alone = turn.plan.intents == [self.intent] and bool(results)
        named = turn.plan.scenario.num_gpus
        split = bool(speeds) and all(r.parallel == "tensor" for r in speeds)
        one = all(
            r.fit is not None and r.fit.fits and (r.fit.num_gpus == 1 or (split and r.fit.num_gpus == named))
            for r in results
        )
        first = bool(speeds) and not timed and alone and one
        for r in speeds if first else []:
            speed_lines(w, r, time_said=False, notes=False)
        for i, r in turn.own_indexed(self.intent, SpeedResult) if first else []:
            if runs(turn, r):
                turn.shown.add(i)  # the speed that leads is said: no verdict repeats it
        said_here = hardware_lines(w, turn, results, detail=False)
        if not said_here and not (not first and _fits_then_speed(w, turn, results)):
            sized_lines(w, results)
        for r in speeds if first else []:
            speed_lines(w, r, line=False)  # the leading speed's assumptions, after the verdict that backs it
        for r in [] if first else speeds:
            speed_lines(w, r, time_said=bool(timed), line=not said(turn, r))

    def phase(self, turn: Turn) -> int:
        """A run far past a month on cards the user did not count, with the time asked: the cards that finish it in
        about a month and the hours lead, before the memory minimum (which would take years)."""
        long_run = any(r.scale_out_gpus for r in turn.own(self.intent, SpeedResult))
        return -2 if long_run and turn.parsed.asks_time and not turn.parsed.num_gpus else self.render_phase

    def summary(self, tool: ToolName, result: BaseModel, lang: str) -> str:
        if not isinstance(result, SpeedResult):
            return str(tool)
        if result.training_tokens_per_s is not None:
            return f"{result.training_tokens_per_s} training tokens/s on {result.gpu}"
        return f"{result.decode_tokens_per_s} tokens/s per sequence on {result.gpu}"
