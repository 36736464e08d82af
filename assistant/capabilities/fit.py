"""Fit: what a model can do on GPUs the user has — best precision, longest context, concurrent users."""

from __future__ import annotations

from typing import ClassVar

from pydantic import BaseModel

from assistant.capabilities.base import Capability, PlanContext, Turn
from assistant.capabilities.blocked import job_blocked, memory_only_verdict
from assistant.capabilities.fit_concurrency import concurrency_fit, concurrency_lead
from assistant.capabilities.inference_split import split_how
from assistant.capabilities.memory import hardware_lines, memory_lines, verdict
from assistant.capabilities.speed import runs, speed_lines
from assistant.capabilities.speed_lead import lead_speed, said
from assistant.capabilities.workload import (
    capped_context,
    mix_args,
    specs_args,
    speed_args,
    vram_args,
    workload_args,
)
from assistant.scenario import Scenario
from assistant.strings import Writer
from assistant.toolset import ToolName
from assistant.understanding import ParsedQuery
from tools import advice
from tools.catalog import GpuSpec
from tools.fit import FitResult
from tools.notes import Note, note, render_all
from tools.speed import SpeedResult
from tools.vram import VramResult


def fit_lines(w: Writer, r: FitResult, asked: str | None = None) -> None:
    """What fits; `asked`: the format the user named ("70b q4"), answered yes or no first."""
    if r.best_precision is None:
        w.say("fit_none", model=r.model, n=r.num_gpus, gpu=r.gpu, limiting=r.limiting.render(w.lang))
        return
    w.say(
        "fit_line_asked" if asked and asked == r.best_precision else "fit_line",
        model=r.model,
        n=r.num_gpus,
        gpu=r.gpu,
        usable=r.usable_gib_per_gpu,
        precision=r.best_precision,
        max_context=r.max_context,
        context=r.memory_at_answer.context_tokens if r.memory_at_answer else 0,
        need=r.memory_at_answer.per_gpu_gib if r.memory_at_answer else 0,
        seqs=w.t(
            "fit_seqs_one" if r.max_concurrent_sequences == 1 else "fit_seqs", max_seq=r.max_concurrent_sequences or 0
        ),
        limiting=r.limiting.render(w.lang),
    )
    w.bullets("warnings_head", render_all(r.warnings, w.lang), limit=3)


def _options_lead(w: Writer, turn: Turn, first: VramResult | None) -> None:
    """ "3090或4090 单卡可以推理 13B 4-bit 吗", "2x 3090 or one 4090 for 70B?": yes or no for each option, in one
    sentence, before the first option's detail (an option that does not fit says how many of its cards would).
    `first`: the one model and job asked (None when there are several: parts_summary leads then)."""
    if first is None:
        return
    options: dict[tuple[str, int], VramResult] = {}
    for r in [first, *turn.own("fit_option", VramResult)]:
        if r.fit is not None and r.model == first.model and r.mode == first.mode:
            options.setdefault((r.fit.gpu_id, r.fit.num_gpus), r)
    if len(options) < 2:
        return
    items = []
    for r in options.values():
        f = r.fit
        assert f is not None
        fields = {"n": f.num_gpus, "gpu": f.gpu, "need": f.per_gpu_gib, "usable": f.usable_gib_per_gpu}
        if f.fits:
            items.append(w.t("option_fits", **fields))
        else:
            more = w.t("option_needs_more", needed=f.gpus_needed) if f.gpus_needed else ""
            items.append(w.t("option_not_fits", **fields, more=more))
    w.say("options_summary", model=first.model, items=("；" if w.lang == "zh" else "; ").join(items))


def _personal(s: Scenario) -> bool:
    """One person's local use: one or two desk-side cards, no precision chosen, one or two conversations (eight
    cards are a server: they run the model as published)."""
    from tools.catalog import resolve_gpu
    from tools.errors import AdvisorError
    from tools.sizing import engine_key

    if s.precision or (s.batch or 1) > 2 or s.serving or s.users or (s.num_gpus or 1) > 2:
        return False
    if s.engine and engine_key(s.engine) != "llama.cpp":
        return False  # vLLM / SGLang run the published weights or an AWQ/GPTQ build, not a GGUF file
    try:
        gpu, _ = resolve_gpu(s.gpu or "")
    except AdvisorError:
        return False
    # an old data-center card (no BF16: P40, M40, P100, V100) is bought used for one person's desk, and runs GGUF
    old_datacenter = gpu.segment == "datacenter" and not gpu.has_bf16
    return gpu.segment in ("consumer", "workstation", "apple") or old_datacenter


def _shorter_context(turn: Turn, first: VramResult) -> tuple[int, VramResult] | None:
    """The same model and format at a shorter context that fits, when the context was a default: the answer
    to "can I run it" is then yes, at that context."""
    if turn.parsed.context_tokens is not None or first.fit is None or first.fit.fits or first.num_gpus != 1:
        return None
    for i, r in turn.own_indexed("cheaper_way", VramResult):
        same_way = r.precision == first.precision and r.mode == first.mode and r.num_gpus == first.num_gpus
        if same_way and r.fit is not None and r.fit.fits and r.context_tokens < first.context_tokens:
            return i, r
    return None


def _after_lead(w: Writer, turn: Turn, sized: list[VramResult]) -> None:
    _mixed_line(w, turn)
    _published_line(w, turn, sized)


def _native(model: str) -> str | None:
    """The format a model's official weights ship in when it is not 16-bit (DeepSeek-V3: FP8; gpt-oss: MXFP4)."""
    from tools.errors import AdvisorError
    from tools.model_match import match_model

    try:
        return match_model(model).arch.native_precision
    except AdvisorError:
        return None


def _published_line(w: Writer, turn: Turn, sized: list[VramResult]) -> None:
    """ "2080Ti 能跑 Baichuan-13B 吗" asks about the model as published: when a quantized format answered it because
    the published 16-bit weights do not fit the card, say so with their size."""
    first = sized[0] if sized else None
    if first is None or first.fit is None or first.mode != "inference" or _native(first.model):
        return
    for r in turn.own("fit", FitResult):
        top = r.top_precision
        if top and r.top_weights_gib and top not in r.precisions_that_fit and top != first.precision:
            w.say(
                "fit_published_too_big",
                precision=top,
                weights=r.top_weights_gib,
                gpu=first.fit.gpu,
                vram=first.fit.capacity_gib,
                usable=first.fit.usable_gib_per_gpu,
            )
            return


def mixed_cards(q: ParsedQuery) -> list[GpuSpec]:
    """The different cards of one machine ("1张RTX5000ADA 32G+1张V100 32G"), smallest memory first; [] otherwise."""
    from tools.catalog import catalog

    if not q.gpus_together or len(q.gpu_mentions) < 2:
        return []
    cards = [catalog()[g] for g in q.gpu_mentions if g in catalog()]
    return sorted(cards, key=lambda g: (g.vram_gib, g.bandwidth_gbs)) if len(cards) > 1 else []


def _pool(ctx: PlanContext) -> None:
    """Cards of different models in one machine: when the biggest alone holds the job, it runs there alone (a split
    would only add the slower card to every token); otherwise they are sized as one pool: all of them, each as small
    as the smallest (a layer split puts about the same share on each), so the scenario holds the smallest card and
    the total count."""
    cards = mixed_cards(ctx.parsed)
    if not cards or ctx.scenario.gpu != ctx.parsed.gpu:
        return
    big = cards[-1]
    alone = ctx.scenario.model_copy(update={"gpu": big.id, "num_gpus": ctx.parsed.gpu_counts.get(big.id, 1)})
    if _fits(alone):
        ctx.scenario.gpu, ctx.scenario.num_gpus = alone.gpu, alone.num_gpus
        return
    ctx.scenario.gpu = cards[0].id
    ctx.scenario.gpu_mix = [g.id for g in cards for _ in range(ctx.parsed.gpu_counts.get(g.id, 1))]
    ctx.scenario.num_gpus = len(ctx.scenario.gpu_mix)


def _fits(s: Scenario) -> bool:
    """Whether the job, sized as plan_fit sizes it (one person's 4-bit GGUF, else as asked), fits the scenario's
    cards: the planner's one look at a number, to choose which cards the answer is about."""
    from tools.errors import AdvisorError
    from tools.vram import VramRequest, estimate_vram

    if _personal(s):
        context = s.context_tokens or capped_context(s, advice.default_context("inference", personal=True))
        s = s.model_copy(update={"precision": _personal_format(s), "context_tokens": context})
    try:
        fit = estimate_vram(VramRequest(**vram_args(s))).fit
    except (AdvisorError, ValueError):
        return False
    return fit is not None and fit.fits


def _mixed_line(w: Writer, turn: Turn) -> None:
    """Two different cards: the bigger alone when it holds the model (pinned to it); otherwise no tensor parallel
    across them, the layers split, and the slower card sets the pace."""
    cards = mixed_cards(turn.parsed)
    if not cards:
        return
    slow = min(cards, key=lambda g: g.bandwidth_gbs)
    names = ("、" if w.lang == "zh" else ", ").join(g.name for g in cards)
    big = cards[-1]
    if turn.plan.scenario.gpu == big.id and big.id != slow.id:
        w.say("mixed_cards_one_enough", big=big.name, big_gbs=big.bandwidth_gbs, slow=slow.name, gbs=slow.bandwidth_gbs)
        return
    w.say("mixed_cards", n=len(cards), cards=names, slow=slow.name, gbs=slow.bandwidth_gbs)


def other_hardware(ctx: PlanContext) -> list[Scenario]:
    """The other GPU setups a fit question offers as alternatives ("8 张 4090 或者 6 张 V100"), each with its own
    count; none for a part of the question about another model, or for cards that are one machine together."""
    s, q = ctx.scenario, ctx.parsed
    # two different cards that are not one machine ("RTX 8000 和 A6000 能跑吗") are each asked about, as with "or"
    apart = q.gpus_alternative or not (q.gpus_together or q.owns_hardware)
    if len(q.gpu_mentions) < 2 or not apart or s.gpu != q.gpu or (q.model and s.model != q.model):
        return []
    if q.job_cards:  # "微调用 A100，推理用 4090": each card is its own job's (plan.other_parts), no alternative
        return []
    return [s.model_copy(update={"gpu": g, "num_gpus": q.gpu_counts.get(g)}) for g in q.gpu_mentions[1:3] if g != s.gpu]


def plan_fit(ctx: PlanContext, s: Scenario, owner: str) -> None:
    """The calls that answer "does it run on these cards" for scenario `s`, owned by `owner`."""
    w = workload_args(s)
    if w["mode"] != "inference":  # training: the memory estimate sized for that GPU answers it
        ctx.add(owner, ToolName.ESTIMATE_VRAM, **vram_args(s))
        ctx.add(owner, ToolName.GPU_SPECS, **specs_args(s, [s.gpu or ""]))
        return
    ref = {k: w[k] for k in ("model", "params_b") if k in w}
    precision = {"precision": s.precision} if s.precision else {}
    # "how many users can it serve at once" is not one person's chat: sized as a batching server runs it
    personal = _personal(s) and not ctx.parsed.asks_concurrency
    if personal:
        _personal_defaults(ctx, s, owner)
    else:  # the job as asked (the format named, else as published) on these cards: the verdict comes first
        ctx.add(owner, ToolName.ESTIMATE_VRAM, **vram_args(s))
    ctx.add(
        owner,
        ToolName.FIT_ON_GPU,
        **ref,
        gpu=s.gpu,
        num_gpus=s.num_gpus or 1,
        **mix_args(s, s.num_gpus or 1),
        # one context per answer: a personal chat's default when the personal estimate above used it
        context_tokens=s.context_tokens or capped_context(s, advice.default_context("inference", personal=personal)),
        **precision,
        **({"engine": s.engine or _personal_engine(s)} if s.engine or personal else {}),
        # "how many users can it serve" with no format named is asked of the model as published: its count at the
        # published precision leads (a few at BF16), quantization is the lever the answer offers, not the default
        **({"spare_room": False} if ctx.parsed.asks_concurrency and not s.precision else {}),
    )


def _personal_engine(s: Scenario) -> str:
    """The engine that runs one person's local format (llama.cpp / Ollama for GGUF), so the fit check below the
    personal estimate leaves the same headroom that estimate did."""
    from tools.precision import resolve_precision
    from tools.sizing import engine_for

    return engine_for(None, "inference", resolve_precision(_personal_format(s)).kind)


def _personal_format(s: Scenario) -> str:
    """One person's local format: the usual 4-bit GGUF, or the model's own format when it already ships in 4 bits
    (gpt-oss: MXFP4), as Ollama and llama.cpp serve it. Quantized only when needed: two cards of one's own that
    hold the model as published (2x A4000 16GB and an 11B vision model in BF16) run it so, split over both."""
    from tools.errors import AdvisorError
    from tools.model_match import match_model
    from tools.precision import resolve_precision

    default = str(advice.policy()["default_precision"]["personal_inference"])
    try:
        native = match_model(s.model).arch.native_precision if s.model else None
    except AdvisorError:
        return default
    if native and resolve_precision(native).bits <= 4.5:
        return native
    return _published_on_own_cards(s) or default


def _published_on_own_cards(s: Scenario) -> str | None:
    """The published format (the model's own, else BF16) when the user's two or more cards hold it, split as vLLM or
    Transformers split it, at a personal chat's context; None otherwise (one card: the 4-bit build people run)."""
    return published_fits(s) if (s.num_gpus or 1) >= 2 and not s.gpu_mix else None


def published_fits(s: Scenario) -> str | None:
    """The published format (the model's own, else BF16) when the scenario's cards (one if no count) hold it at a
    personal chat's context; None when only a quantized build would."""
    from tools.errors import AdvisorError
    from tools.vram import VramRequest, estimate_vram

    context = s.context_tokens or capped_context(s, advice.default_context("inference", personal=True))
    try:
        r = estimate_vram(VramRequest(**vram_args(s.model_copy(update={"precision": None, "context_tokens": context}))))
    except (AdvisorError, ValueError):
        return None
    return r.precision if r.fit is not None and r.fit.fits else None


def personal_scenario(s: Scenario, parsed: ParsedQuery) -> Scenario | None:
    """One person's local run as it is run (advice.md §2: the format above, a personal chat's 8k context), the one
    default every capability sizes such a question with ("B580 跑 14B 速度怎么样" too); None when the scenario is no
    person's own desk-side cards, a format was named, or how many users it serves is asked."""
    if (s.mode or "inference") != "inference" or not _personal(s) or parsed.asks_concurrency:
        return None
    context = s.context_tokens or capped_context(s, advice.default_context("inference", personal=True))
    return s.model_copy(update={"precision": _personal_format(s), "context_tokens": context})


def _personal_defaults(ctx: PlanContext, s: Scenario, owner: str) -> None:
    """ "4060 Ti 跑 14B 够不够": one person's local chat runs a 4-bit GGUF at 8k (advice.md §2): size and
    time exactly that first, then say what else fits."""
    local = personal_scenario(s, ctx.parsed) or s
    ctx.add(owner, ToolName.ESTIMATE_VRAM, **vram_args(local))
    ctx.add(owner, ToolName.ESTIMATE_SPEED, **speed_args(local))
    ctx.notes.append(personal_note(local))


def personal_note(local: Scenario) -> Note:
    """What the personal default assumed: the 4-bit build, or the published weights on the user's own cards."""
    from tools.precision import resolve_precision

    if resolve_precision(local.precision or "bf16").bits >= 8:
        return note("default_precision_own_cards", precision=local.precision, n=local.num_gpus or 1)
    return note("default_precision_personal_inference", precision=local.precision)


class Fit(Capability):
    intent = "fit"
    owns = (ToolName.FIT_ON_GPU,)
    scenario_fields: ClassVar[dict[ToolName, dict[str, str]]] = {
        ToolName.FIT_ON_GPU: {
            "model": "model",
            "params_b": "params_b",
            "gpu": "gpu",
            "num_gpus": "num_gpus",
            "gpu_mix": "gpu_mix",
            "precision": "precision",
            "context_tokens": "context_tokens",
        }
    }
    needs_model = True
    guides_topic = "KV cache context length concurrent users GPU memory"

    def topic(self, ctx: PlanContext) -> str | None:
        """Training on the card reads like training memory, not serving; a modded card's risks are a topic."""
        from assistant.capabilities.memory import TOPICS
        from tools.catalog import catalog

        card = catalog().get(ctx.scenario.gpu or "")
        if card is not None and card.unofficial:  # "魔改 4090 48G 靠谱吗": whether to trust the card comes first
            return "modified memory mod card warranty risk 魔改 改装 保修"
        mode = ctx.scenario.mode or "inference"
        if mode != "inference":
            return TOPICS.get(mode, TOPICS["full"])
        personal = _personal(ctx.scenario)
        return "VRAM capacity weights bytes per parameter 4-bit quantization" if personal else self.guides_topic

    def plan(self, ctx: PlanContext) -> None:
        from assistant.capabilities.fewer_four_bit import plan_fewer

        s = ctx.scenario
        if not s.gpu:
            ctx.need("need_gpu")
            return
        ctx.second_round.append("cheaper_way")  # if it does not fit: the next cheaper way that might
        _pool(ctx)
        plan_fit(ctx, s, self.intent)
        plan_fewer(ctx)  # "g5.48xlarge is expensive": the 4-bit build on fewer of these cards
        if cards := mixed_cards(ctx.parsed):  # the bandwidths the mixed-cards line quotes
            ctx.add(self.intent, ToolName.GPU_SPECS, **specs_args(s, [g.id for g in cards]))
        for option in other_hardware(ctx):  # "8 张 4090 或者 6 张 V100 能运行吗": each option answered
            plan_fit(ctx, option, "fit_option")

    def render(self, w: Writer, turn: Turn) -> None:
        from assistant.capabilities.fewer_four_bit import fewer_at_four_bit

        concurrency_lead(w, turn)  # "how many users can it serve?": the number leads
        sized = turn.own(self.intent, VramResult)
        # "能跑 14b 的微调吗？能跑 72b 的微调吗？", "微调与推理": each model and job, in one lead paragraph
        parts = {(r.model, r.mode): [r] for r in reversed(sized)}
        _options_lead(w, turn, sized[0] if len(parts) == 1 else None)
        if len(parts) > 1:
            from assistant.capabilities.card_needed import parts_summary

            parts_summary(w, turn, [parts[k] for k in dict.fromkeys((r.model, r.mode) for r in sized)])
        if hardware_lines(w, turn, sized, after_lead=lambda: _after_lead(w, turn, sized)):
            # the user's own cards: the way that fits them leads
            for r in turn.own(self.intent, SpeedResult):
                if runs(turn, r):
                    speed_lines(w, r, line=not said(turn, r))
            return
        shorter = _shorter_context(turn, sized[0]) if sized else None
        if shorter is not None:  # "48G 卡跑 70B": yes, at 4k; the default 8k is just over
            i, r = shorter
            turn.shown.add(i)
            assert r.fit is not None
            w.say(
                "fits_shorter_context",
                model=r.model,
                precision=r.precision,
                context=r.context_tokens,
                need=r.per_gpu_gib,
                gpu=r.fit.gpu,
                usable=r.fit.usable_gib_per_gpu,
                default_context=sized[0].context_tokens,
                default_need=sized[0].per_gpu_gib,
            )
        blocked = job_blocked(turn)  # the engine does not run on this card: the numbers are what memory allows
        for i, r in enumerate(sized):
            if i == 0 and shorter is None:
                memory_only_verdict(w, r) if blocked else verdict(w, r)
                lead_speed(w, turn, r)  # "does it fit, and how fast?": the speed second, engine permitting
                _mixed_line(w, turn)
                if not blocked:  # "g5.48xlarge is expensive": the 4-bit build on fewer of these cards
                    fewer_at_four_bit(w, turn, r)
                    split_how(w, turn)  # "两张卡显存能合起来用吗": how the engine splits it over them
            memory_lines(w, r, detail=i == len(sized) - 1, lead=False)
        _published_line(w, turn, sized)
        for r in turn.own(self.intent, SpeedResult):
            if runs(turn, r) and not blocked:  # no speed for a card the engine does not run on
                speed_lines(w, r, line=not said(turn, r))
        for r in turn.own(self.intent, FitResult):
            fit_lines(w, r, asked=None if blocked else turn.plan.scenario.precision)

    def phase(self, turn: Turn) -> int:
        """ "How many users can one 4090 serve with Qwen2.5-32B?": the number of conversations leads, before the
        memory figures another intent of the question wrote."""
        return -1 if concurrency_fit(turn) is not None else self.render_phase

    def summary(self, tool: ToolName, result: BaseModel, lang: str) -> str:
        if not isinstance(result, FitResult):
            return str(tool)
        return f"best {result.best_precision}, max context {result.max_context}"


class FitOption(Capability):
    """Another hardware option of the same fit question ("8 张 4090 或者 6 张 V100 能运行吗"), answered after the
    first the same way. Fit plans its calls; they describe an option, not the user's setup, so they never change
    the conversation's scenario."""

    intent = "fit_option"
    cites_guides = False

    def render(self, w: Writer, turn: Turn) -> None:
        sized = turn.own(self.intent, VramResult)
        for k, r in enumerate(sized):
            memory_lines(w, r, detail=k == len(sized) - 1)
        for s in turn.own(self.intent, SpeedResult):
            if runs(turn, s):
                speed_lines(w, s)
        for f in turn.own(self.intent, FitResult):
            fit_lines(w, f)

    def records(self, tool: ToolName) -> bool:
        return False  # an option the user weighs, not (yet) their setup
