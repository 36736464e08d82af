"""What one training job costs on rented GPUs: hours from the speed estimate x the hourly price.

"The A10G Large is $0.0525/minute: how much will fine-tuning Llama-2-7B cost?", "租 4090 微调 Qwen2.5-7B 要花多少钱":
the cost question of someone who rents for one job, not buy vs rent. First round: the training speed and hours
(estimate_speed, for the dataset's tokens when given, else for 10 million tokens, about one epoch of an
Alpaca-size instruction set). Second round: the job priced at the user's own hourly price and at the cheapest
dated offers for the card (rent_providers with the hours), so every figure comes from a tool.
"""

from __future__ import annotations

from typing import Any

from assistant.capabilities.base import Outcome, Plan, PlanContext, ToolCall, Turn
from assistant.capabilities.speed import flops_line
from assistant.capabilities.workload import speed_args, workload_args
from assistant.scenario import Scenario
from assistant.strings import Writer
from assistant.toolset import ToolName
from tools.boards import boards_for, card_name
from tools.notes import Note, money, note, render_all
from tools.rent import RentResult
from tools.speed import SpeedResult

_PER_TOKENS = 10_000_000  # without a dataset size: the price of 10M training tokens (about one Alpaca epoch)
# Pretraining with no token count: the compute-optimal budget of about 20 tokens per parameter (Hoffmann et al.
# 2022, "Training Compute-Optimal Large Language Models", arXiv:2203.15556), what "train a 1B model" usually means
_PRETRAIN_TOKENS_PER_PARAM = 20
# Pretraining with no card named: priced on the datacenter card it is usually rented on, against the consumer card
# people ask about ("can I do it on a consumer GPU?"): the hours on each say which is practical
PRETRAIN_CARDS = ["a100-80gb-sxm", "rtx-4090"]


def is_job_question(ctx: PlanContext) -> bool:
    """A fine-tune on named GPUs with a price stated, a dataset to train on, or asked how long it takes: its cost
    is the question."""
    s, parsed = ctx.scenario, ctx.parsed
    training = (s.mode or "inference") != "inference"
    # a price, a run to price, or a pretraining run (its cost is the question: "what does training a 1B model cost?")
    job = s.cloud_price or parsed.asks_time or s.dataset_tokens or s.dataset_samples or parsed.pretrain
    # "how much would it cost to fine-tune Llama-2-7B on an A100?": the price of the run itself is asked (no budget
    # to spend, nothing to buy), so the run is priced (for the assumed tokens, stated)
    # "what does it cost to fine-tune Llama-3.1-8B?" with no card named is asked as where it rents cheapest
    # (understanding/intents.py): a price was still asked, so the run is priced, not listed ("where can I rent a GPU
    # to fine-tune it?" names no price and keeps the listing)
    priced = "cost" in parsed.intents or ("rent_where" in parsed.intents and "price" in parsed.topics_mentioned)
    asks_price = priced and parsed.budget is None and parsed.buy_or_rent in (None, "rent")
    return training and ctx.has_model and bool(job or asks_price) and parsed.buy_or_rent != "compare"


def plan_job(ctx: PlanContext, owner: str, names: list[str]) -> None:
    s, parsed = ctx.scenario, ctx.parsed
    for gid in names[:2]:
        count = parsed.gpu_counts.get(gid) or (s.num_gpus if gid == s.gpu and s.num_gpus else None)
        count = count or fewest_that_hold(s, gid)
        args = speed_args(s.model_copy(update={"gpu": gid, "num_gpus": count}))
        if not any(k in args for k in ("training_tokens", "dataset_samples")):
            args["training_tokens"] = _pretrain_tokens(ctx) or _PER_TOKENS
        ctx.add(owner, ToolName.ESTIMATE_SPEED, **args)
    ctx.second_round.append(owner)


def fewest_that_hold(s: Scenario, gid: str) -> int:
    """No count stated: the run is priced on the fewest of these cards that hold it (sharded), not on one card the
    job does not fit ("how many H100s to train Llama-3.1-70B, efficient in time and cost": 4 for LoRA, not 1)."""
    from tools.errors import AdvisorError
    from tools.vram import VramRequest, estimate_vram

    try:
        fit = estimate_vram(VramRequest(**workload_args(s), gpu=gid, num_gpus=1)).fit
    except (AdvisorError, ValueError, TypeError):
        return 1
    return fit.gpus_needed if fit and not fit.fits and fit.gpus_needed else 1


def _pretrain_tokens(ctx: PlanContext) -> int | None:
    """A pretraining run's tokens when none were said: what a published model was trained on ("pretrain GPT-2 with
    nanoGPT's defaults": ~295B tokens, not 2.5B), else ~20 per parameter; stated in the answer's notes."""
    s = ctx.scenario
    if not ctx.parsed.pretrain:
        return None
    params_b = s.params_b
    if s.model:
        from tools.errors import AdvisorError
        from tools.model_match import match_model

        try:
            arch = match_model(s.model).arch
        except AdvisorError:
            arch = None
        if arch is not None and arch.pretrain_tokens_b and not arch.generic:
            return _noted(ctx, note("pretrain_tokens_model", tokens_b=arch.pretrain_tokens_b, model=arch.name))
        if arch is not None:
            params_b = params_b or arch.official_params_b  # "Mistral 1b": a scaled layout says its size
    if not params_b:
        return None
    tokens = int(params_b * 1e9 * _PRETRAIN_TOKENS_PER_PARAM)
    return _noted(ctx, note("pretrain_tokens_assumed", tokens_b=tokens / 1e9, per_param=_PRETRAIN_TOKENS_PER_PARAM))


def _noted(ctx: PlanContext, note_: Note) -> int:
    """The tokens a pretraining note states, the note added to the answer once."""
    if note_ not in ctx.notes:
        ctx.notes.append(note_)
    return int(float(note_.params["tokens_b"]) * 1e9)


def _job_speed(o: Outcome, owner: str) -> bool:
    """A training run's speed this owner prices: its own call, or the same call planned first by another capability
    ("用 8 张 A100 全参微调，要多久、多少钱": speed planned the run, so the shared call carries speed's name)."""
    shared = o.call.name == ToolName.ESTIMATE_SPEED and o.call.args.get("mode") == "training"
    return isinstance(o.result, SpeedResult) and (o.call.owner == owner or shared)


def job_speeds(turn: Turn, owner: str) -> list[SpeedResult]:
    """The training runs `owner` priced: those with a rental result of the owner for their card."""
    # a rental priced for a run's hours (job_calls), not a plain listing of the card ("where can I rent a 4090?")
    priced = {r.gpu for r in turn.own(owner, RentResult) if any(o.job_cost is not None for o in r.offers)}
    mine = sorted((o for o in turn.outcomes if _job_speed(o, owner)), key=lambda o: o.call.owner != owner)
    found: dict[str, SpeedResult] = {}
    for o in mine:
        r = o.result
        if isinstance(r, SpeedResult) and card_name(r.gpu) in priced and r.gpu not in found:
            found[r.gpu] = r  # one run per card: the owner's own call first, a shared one else
    return list(found.values())


def job_calls(plan: Plan, outcomes: list[Outcome], owner: str) -> list[ToolCall]:
    """The job priced for its hours: at the user's price, and where the card rents cheapest."""
    s = plan.scenario
    calls = []
    seen: set[str] = set()
    for o in outcomes:
        r = o.result
        if not _job_speed(o, owner) or not isinstance(r, SpeedResult) or not r.time_to_train_hours:
            continue
        if o.call.args["gpu"] in seen:
            continue
        seen.add(o.call.args["gpu"])
        if not r.fits_in_memory:
            # the user's cards do not hold the run (a full fine-tune of Gemma-3-4B on 2 x T4): where the memory it
            # needs rents cheapest, not a price for a run those cards cannot do
            need = round(r.memory_per_gpu_gib * r.num_gpus, 1)
            calls.append(
                ToolCall(
                    name=ToolName.RENT_PROVIDERS,
                    args={
                        "need_gib": need,
                        "model": r.model,
                        "precision": r.precision,
                        "currency": s.currency or "USD",
                        "limit": 3,
                    },
                    owner=owner,
                )
            )
            continue
        args: dict[str, Any] = {
            "gpu": o.call.args["gpu"],
            "num_gpus": boards_for(o.call.args["gpu"], r.num_gpus),  # a board's GPUs were sized: rent the boards
            "currency": s.currency or "USD",
            "hours": round(r.time_to_train_hours, 2),
            "limit": 3,
        }
        if s.cloud_price:
            args["price_per_gpu_hour"] = s.cloud_price
        elif s.rent_provider:
            args["provider"] = s.rent_provider  # "在 AutoDL 上租": that provider's price
        calls.append(ToolCall(name=ToolName.RENT_PROVIDERS, args=args, owner=owner))
    return calls


def _far_past_a_month(speed: SpeedResult) -> bool:
    """A run whose wall-clock time is past twice scale_out_days (the speed tool's own bound for a long run)."""
    from tools.vram import defaults

    days = speed.time_to_train_days
    return days is None or days > 2 * defaults()["speed"]["scale_out_days"]


def _first_cost(rents: dict[str, RentResult], speed: SpeedResult) -> float:
    """A priced run's cost at its card's first offer; an unpriced one sorts last."""
    rent = rents.get(card_name(speed.gpu))
    first = rent.offers[0] if rent and rent.offers else None
    return first.job_cost if first is not None and first.job_cost is not None else float("inf")


def job_lines(w: Writer, turn: Turn, owner: str) -> None:
    """Per card: the job's hours and cost at the first price (the user's, else the cheapest dated offer)."""
    s = turn.plan.scenario
    rents = {r.gpu: r for r in turn.own(owner, RentResult)}
    speeds = job_speeds(turn, owner)
    if not turn.parsed.gpu_mentions:
        # cards we chose (PRETRAIN_CARDS): the cheapest whole run leads ("训练 MiniMind 26M": a rented 4090 for
        # under ¥1 before an A100 for ¥2), the cheapest way that works. A run far past a month (twice the speed
        # tool's scale_out_days) is no way that works: it sorts after, and runs that are all that long keep the
        # order chosen (the datacenter card first). Cards the user named keep the user's order.
        speeds.sort(key=lambda sp: (_far_past_a_month(sp), 0.0 if _far_past_a_month(sp) else _first_cost(rents, sp)))
    for speed in speeds:
        rent = rents.get(card_name(speed.gpu))  # a multi-GPU board is sized per GPU, rented as the board
        first = rent.offers[0] if rent and rent.offers else None
        if not speed.time_to_train_hours or first is None or first.job_cost is None or rent is None:
            continue
        if not speed.fits_in_memory:
            continue  # a full fine-tune of Gemma-3-4B on 2 x T4: its memory's rental is listed below instead
        cur = rent.currency
        where = "" if first.yours else w.t("job_where", provider=first.provider, date=first.date)
        fields: dict[str, Any] = {
            "method": w.label("method", speed.method),
            "model": speed.model,
            "n": speed.num_gpus,
            "gpu": speed.gpu,
            "rate": money(first.price_per_hour, cur),
            "where": where,
            "tps": speed.training_tokens_per_s or 0,
            "hours": speed.time_to_train_hours,
            "cost": money(first.job_cost, cur),
        }
        # no dataset named: the 10M-token yardstick (a pretraining run is priced whole, for its assumed tokens)
        per_tokens = not (s.dataset_tokens or s.dataset_samples or turn.parsed.pretrain)
        pretrain = turn.parsed.pretrain and speed.method == "full"
        fields["unit"] = w.label("job_cost_unit", "one" if speed.num_gpus == 1 else "many")
        w.say("job_cost_pretrain" if pretrain else "job_cost_per_tokens" if per_tokens else "job_cost_run", **fields)
        flops_line(w, speed)  # a run of a billion tokens or more: the 6·N·D arithmetic its hours come from
        cheaper = [o for o in rent.offers if not o.yours and o.job_cost is not None and o.job_cost < first.job_cost]
        if first.yours and cheaper:
            o = cheaper[0]
            w.say(
                "job_cheaper",
                provider=o.provider,
                rate=money(o.price_per_hour, cur),
                cost=money(o.job_cost or 0, cur),
                date=o.date,
            )
        if w.t("job_stop_tip") not in w.lines:
            w.say("job_stop_tip")  # once, after the run that leads (a second card's run needs no second reminder)
        w.bullets("assumptions_head", render_all(speed.assumptions, w.lang), limit=3)
    needed = next((r for r in turn.own(owner, RentResult) if r.gpu is None and r.need_gib and r.offers), None)
    if needed is not None and any(not sp.fits_in_memory for sp in speeds):
        from assistant.capabilities.rent import rent_lines  # rent.py imports this module

        job = next(sp.method for sp in speeds if not sp.fits_in_memory)
        rent_lines(w, needed, job=job)  # the user's cards do not hold the run: where the memory it needs rents
