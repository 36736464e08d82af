"""The card a job needs when the user named none ("需要多大的 GPU", "what GPU do I need for Llama 70B in bf16"):
the smallest of the common cards (advice.yaml reference_cards) that holds the memory estimate, else how many of
the card clusters are sized in. Memory answers call on it in their second round; its estimate names a card the
user did not choose, so it never changes the conversation's scenario.
"""

from __future__ import annotations

from assistant.capabilities.base import Capability, Outcome, Plan, ToolCall, Turn
from assistant.capabilities.workload import offload_args
from assistant.strings import Writer
from assistant.toolset import ToolName
from tools import advice
from tools.speed import SpeedResult
from tools.vram import VramResult


def reference_card(r: VramResult) -> str:
    """The smallest common card that holds an estimate (advice.yaml reference_cards), else the biggest one, whose
    count the sizing rule then finds."""
    from tools.catalog import catalog
    from tools.precision import resolve_precision
    from tools.sizing import engine_for, fits, headroom_for

    cards = advice.reference_cards()
    headroom = headroom_for(engine_for(None, r.mode, resolve_precision(r.precision).kind))
    return next((c for c in cards if fits(r.per_gpu_gib, catalog()[c], headroom)), advice.reference_multi_card())


def card_needed(w: Writer, r: VramResult) -> None:
    """The card a job needs when the user named none: one of the smallest common card, or how many of the biggest."""
    fit = r.fit
    assert fit is not None
    shared = dict(gpu=fit.gpu, usable=fit.usable_gib_per_gpu, need=r.per_gpu_gib, engine=w.label("engine", fit.engine))
    smaller = _smaller_card(fit.gpu_id)
    if fit.fits and smaller:  # "一张 RTX A6000 … 小一档的 RTX 4090 放不下": the card people own, named
        w.say("card_needed_one_smaller", smaller=smaller, **shared)
    elif fit.fits:
        w.say("card_needed_one", **shared)
    elif fit.gpus_needed:
        w.say("card_needed_n", n=fit.gpus_needed, one=r.per_gpu_gib, **shared)


def _smaller_card(gpu_id: str) -> str | None:
    """The common card one size below `gpu_id` on the reference ladder (advice.yaml reference_cards), by name."""
    from tools.catalog import catalog

    for market in ("", "cn"):
        cards = advice.reference_cards(market)
        if gpu_id in cards[1:]:
            return catalog()[cards[cards.index(gpu_id) - 1]].name
    return None


class CardNeeded(Capability):
    intent = "card_needed"
    cites_guides = False
    render_phase = 1  # after the memory figure it sizes a card for

    def phase(self, turn: Turn) -> int:
        """A training job no one card holds, asked in resources rather than memory ("全量微调 72B 需要多少资源", "how
        much GPU do I need to full fine-tune a 70B?"): the count of cards leads; the one-card figure (over 1 TiB for
        a 70B) would read as a per-card need. Asked in memory words ("需要多少显存"), the figure keeps the lead."""
        if "vram" in turn.parsed.topics_mentioned or turn.plan.scenario.mode in (None, "inference"):
            return self.render_phase
        sized = [r for r in turn.own(self.intent, VramResult) if r.fit is not None]
        # one job only: with several ("13B and 70B"), the parts summary names each model and leads
        return -1 if len(sized) == 1 and not sized[0].fit.fits else self.render_phase

    def second_round(self, plan: Plan, outcomes: list[Outcome]) -> list[ToolCall]:
        if plan.scenario.gpu:
            return []
        calls = []
        for o in outcomes:  # each model and job sized ("7B and 70B": a card for each)
            if o.call.owner in ("training", "training_lead"):
                continue  # the other methods of a fine-tune size their own cards (capabilities/training.py)
            if isinstance(o.result, VramResult) and o.result.fit is None and o.call.name == ToolName.ESTIMATE_VRAM:
                card = reference_card(o.result)
                args = {**o.call.args, "gpu": card}  # on the count named ("8 GPUs"), if any
                calls.append(ToolCall(name=ToolName.ESTIMATE_VRAM, args=args, owner=self.intent))
                asked = any(x.call.owner == "offload" for x in outcomes)  # the offload answer already ran it
                if o.result.mode == "inference" and card == advice.reference_multi_card() and len(calls) == 1:
                    calls += [] if asked else [_from_ram(plan, o.result)]  # no one card holds it: RAM alone
                if o.result.mode == "inference" and o.result.context_tokens >= advice.long_context_tokens():
                    speed = {k: args[k] for k in ("model", "params_b", "precision", "context_tokens") if k in args}
                    calls.append(ToolCall(name=ToolName.ESTIMATE_SPEED, args={**speed, "gpu": card}, owner=self.intent))
        return calls

    def render(self, w: Writer, turn: Turn) -> None:
        for i, r in turn.own_indexed(self.intent, VramResult):
            if r.fit is not None and i not in turn.shown:
                turn.shown.add(i)
                card_needed(w, r)
        _ram_lines(w, turn)
        for sp in turn.own(self.intent, SpeedResult):  # a very long prompt: the wait before the first token
            if sp.ttft_s:
                minutes = sp.ttft_s / 60
                w.say(
                    "prefill_long",
                    context=sp.context_tokens,
                    minutes=minutes,
                    gpu=sp.gpu,
                    n=sp.num_gpus,
                    tps=sp.prefill_tokens_per_s or 0,
                )

    def records(self, tool: ToolName) -> bool:
        return False  # a card the user did not name: an example, not the scenario


def _from_ram(plan: Plan, r: VramResult) -> ToolCall:
    """A model no single card holds, run by llama.cpp from system RAM on the CPU (a GGUF file: the format sized
    when it is one, else Q4_K_M): the RAM it takes and its tokens/s, the way without a GPU cluster."""
    from tools.precision import resolve_precision

    precision = r.precision if resolve_precision(r.precision).kind == "gguf" or r.precision == "mxfp4" else "q4_k_m"
    s = plan.scenario.model_copy(update={"gpu": None, "num_gpus": None})
    return ToolCall(name=ToolName.ESTIMATE_OFFLOAD, args=offload_args(s, precision=precision), owner="card_needed")


def _ram_lines(w: Writer, turn: Turn) -> None:
    """The run from RAM, after the cards (once)."""
    from assistant.capabilities.offload import offload_lines
    from tools.offload import OffloadResult

    for i, o in turn.own_indexed("card_needed", OffloadResult):
        if i not in turn.shown:
            turn.shown.add(i)
            offload_lines(w, o, lead_key="offload_way")


def card_for(turn: Turn, r: VramResult) -> tuple[int, VramResult] | None:
    """The card-needed estimate of the same workload as `r`."""
    for i, c in turn.own_indexed("card_needed", VramResult):
        if c.model == r.model and c.mode == r.mode and c.precision == r.precision:
            return i, c
    return None


def card_lines(w: Writer, turn: Turn, r: VramResult) -> None:
    """The card `r`'s workload needs, right after its estimate (once)."""
    found = card_for(turn, r)
    if found is not None and found[0] not in turn.shown and found[1].fit is not None:
        turn.shown.add(found[0])
        card_needed(w, found[1])


def parts_summary(w: Writer, turn: Turn, groups: list[list[VramResult]]) -> None:
    """Several models or jobs in one question: each one's memory and the card it needs, in one lead paragraph."""
    from assistant.capabilities.methods_lead import methods_in_parts  # methods_lead imports memory, which imports us

    items = []
    for results in groups:
        r = results[-1]
        found = card_for(turn, results[0])
        card = found[1].fit if found is not None else r.fit
        label = w.t("part_label", model=r.model, method=w.label("method", r.mode), precision=r.precision)
        methods = methods_in_parts(w, turn, r.model) if r.mode in _TRAINING else None
        if methods:  # a fine-tune with no method named: each method's count, not the assumed LoRA's alone
            gpu = card.gpu if card is not None and turn.plan.scenario.gpu else None
            key = "part_methods_on" if gpu else "part_methods"
            items.append(w.t(key, model=r.model, gpu=gpu, items=methods))
            continue
        size = turn.parsed.stated_capacity_gib
        if card is None and size and r.fit is None:  # "can these two run with 48GB of video memory": each against it
            key = "part_fits_capacity" if _fits_size(r, size) else "part_not_fits_capacity"
            items.append(w.t(key, part=label, need=r.per_gpu_gib, vram=size))
        elif card is None:
            items.append(w.t("part_memory", part=label, need=r.per_gpu_gib))
        elif card.fits and card.num_gpus > 1:  # sized on the user's cards: a per-GPU figure, not one card's
            items.append(w.t("part_on_cards", part=label, need=card.per_gpu_gib, n=card.num_gpus, gpu=card.gpu))
        elif card.fits:
            items.append(w.t("part_one_card", part=label, need=card.per_gpu_gib, gpu=card.gpu))
        elif card.gpus_needed:
            items.append(w.t("part_n_cards", part=label, need=r.per_gpu_gib, n=card.gpus_needed, gpu=card.gpu))
        else:
            items.append(w.t("part_memory", part=label, need=r.per_gpu_gib))
        four_bit = _four_bit_of(turn, r)  # "the Code Llama models": the 4-bit figure most people run, beside
        if four_bit is not None:
            items[-1] += w.t("part_four_bit", precision=four_bit.precision, need=four_bit.per_gpu_gib)
        items[-1] += _part_speed(w, turn, r)
    w.say("parts_summary", items=("；" if w.lang == "zh" else "; ").join(items))
    _rent_for_out_of_reach(w, turn, groups)


_TRAINING = ("full", "lora", "qlora")


def _part_speed(w: Writer, turn: Turn, r: VramResult) -> str:
    """ "8B 32B 72B 的运行效率": a part's decode speed on the cards it fits, when the question asked how fast (the
    speed capability sized each part, planner/plan.py _EVERY_PART); said once, here."""
    from assistant.capabilities.speed import runs
    from assistant.capabilities.speed_lead import asked

    if not asked(turn) or r.fit is None or not r.fit.fits or r.mode != "inference":
        return ""
    for i, s in turn.results(SpeedResult):
        same = (s.model, s.precision, s.gpu, s.num_gpus) == (r.model, r.precision, r.fit.gpu, r.num_gpus)
        if same and i not in turn.shown and s.decode_tokens_per_s is not None and runs(turn, s):
            turn.shown.add(i)
            per_min = w.t("part_speed_per_minute", per_min=s.decode_tokens_per_min) if w.per_minute else ""
            return w.t("part_speed", decode=s.decode_tokens_per_s) + per_min
    return ""


def _fits_size(r: VramResult, capacity_gib: float) -> bool:
    """Whether `r` fits a card of the size the user named, with the headroom of the engine its format runs on."""
    from tools.precision import resolve_precision
    from tools.sizing import engine_for, fits_capacity, headroom_for

    engine = engine_for(None, r.mode, resolve_precision(r.precision).kind)
    return fits_capacity(r.per_gpu_gib, capacity_gib, headroom_for(engine))


_BIG_CARD_GIB = 70.0  # an 80 GB data-center card's usable memory is above this; consumer and 48 GB cards are not


def _rent_for_out_of_reach(w: Writer, turn: Turn, groups: list[list[VramResult]]) -> None:
    """ "能跑 13b 的微调吗？能跑 72b 的微调吗？" on 2 x 4090: a training part that needs many times the cards the
    user plans (16 x 4090 for a 72B) is no reason to buy 16 of them; an expert says it is out of reach on these
    cards and rents 80 GB cards (A100 / H100) by the hour for that run."""
    for results in groups:
        r = results[-1]
        found = card_for(turn, results[0])
        card = found[1].fit if found is not None else r.fit
        if card is None or card.fits or r.mode not in _TRAINING or card.capacity_gib >= _BIG_CARD_GIB:
            continue
        # QLoRA's 4-bit base is about a quarter of bf16 LoRA's: under 8 times the cards, QLoRA may still fit them
        if card.gpus_needed is not None and card.gpus_needed < max(8, 8 * card.num_gpus):
            continue
        if _qlora_fits(turn, r):
            continue  # "split a 65B over 2 x 3090 to fine-tune": QLoRA on their cards is the answer, not renting
        method = w.label("method", r.mode)
        if card.gpus_needed is None:
            w.say("part_out_of_reach_none", model=r.model, method=method, gpu=card.gpu)
        else:
            w.say("part_out_of_reach", model=r.model, method=method, n=card.gpus_needed, gpu=card.gpu)
        return  # once: the biggest part that is out of reach says it for the rest


def _qlora_fits(turn: Turn, r: VramResult) -> bool:
    """Whether QLoRA of the same model, sized in this turn, fits the same cards."""
    return any(
        v.model == r.model and v.mode == "qlora" and v.num_gpus == r.num_gpus and v.fit is not None and v.fit.fits
        for _, v in turn.results(VramResult)
    )


def _four_bit_of(turn: Turn, r: VramResult) -> VramResult | None:
    """The same model at 4-bit, sized beside a family's parts (card_count.py), when the part is not 4-bit already."""
    if r.precision != "bf16" and r.precision != "fp16":
        return None
    return next((c for c in turn.own("card_count", VramResult) if c.model == r.model and c.fit is None), None)
