"""Compare: 2-4 named GPUs, or methods (full / LoRA / QLoRA), or precisions (FP8 / BF16) for one workload.

`compare_gpus` (tools/compare.py) computes every option and the verdict; this module turns the question into
its arguments and writes the verdict first, then how the other options differ, then the table.
"""

from __future__ import annotations

import re
from typing import Any, ClassVar

from pydantic import BaseModel

from assistant.capabilities.add_pair import pairs_lead, plan_pairs
from assistant.capabilities.base import Capability, PlanContext, Turn
from assistant.capabilities.workload import workload_args
from assistant.scenario import Scenario
from assistant.strings import Writer
from assistant.toolset import ToolName
from assistant.understanding.ranked import bottleneck, expected_pair
from tools import advice
from tools.capacity import CapacityResult
from tools.catalog import catalog
from tools.compare import CompareResult, CompareRow
from tools.notes import Note, money, note
from tools.prices import tco_defaults

MAX_GPUS = 4
_MAX_REASONS = 5
# reasons said before the bottleneck sentence: why a cheaper card loses, or why the pick wins though another option
# leads on the bottleneck (tools/compare.py _pick_despite)
_FIRST_REASONS = ("cmp_pick_over_ended", "cmp_named_short")
_MAX_NOTES = 6
_FOLDED = ("memory", "fit", "speed")  # question types a comparison already answers for every option


# What the comparison table shows for every card: asking about these is asking to compare them.
COMPARE_SHOWS = frozenset({"price", "vram", "bandwidth", "tflops", "bf16", "fp8", "nvlink", "ecc"})


def _owned(owned: str | None, names: list[str], counts: dict[str, int]) -> dict[str, Any]:
    """ "I have a 5090; would a pair of 2080 Ti be better?": the card they have is weighed at the one they have (not
    at the other's count) and stays the pick unless another is clearly faster (compare_gpus `owned`)."""
    if owned not in names:
        return {}
    if counts and owned not in counts:
        counts[owned] = 1
    return {"owned": [owned]}


def compare_args(ctx: PlanContext, names: list[str], methods: list[str], precisions: list[str]) -> dict[str, Any]:
    """The question as compare_gpus arguments: the cards (with the counts named), the ways, the workload."""
    s, parsed = ctx.scenario, ctx.parsed
    args: dict[str, Any] = {"gpus": names, "currency": s.currency or "USD"}
    counts = {g: parsed.gpu_counts[g] for g in names if parsed.gpu_counts.get(g)}
    if len(names) == 1 and not counts and s.num_gpus:
        counts = {names[0]: s.num_gpus}  # "on 2x H100": the count the scenario already holds
    args.update(_owned(parsed.owned_gpu, names, counts))
    if counts:
        args["counts"] = counts
    if ctx.has_model:
        workload = workload_args(s)
        if s.context_tokens is None:
            # not stated: the context another part of this answer was sized at (one answer, one context),
            # else the tool takes the expert's default per row and says so
            sized = next((c.args["context_tokens"] for c in ctx.calls if "context_tokens" in c.args), None)
            if sized is None:
                workload.pop("context_tokens")
            else:
                workload["context_tokens"] = sized
        if precisions:
            workload.pop("precision", None)
        args["workload"] = workload
    elif trains := [m for m in parsed.modes_mentioned if m != "inference"]:
        args["also_trains"] = trains[0]  # "inference + a bit of QLoRA", no model: compute matters too
    if methods:
        args["methods"] = methods
    if precisions:
        args["precisions"] = precisions
    if parsed.focus and not (methods or precisions):
        args["focus"] = parsed.focus  # the job's bottleneck leads: prompt processing, training, serving
    elif parsed.adds_to_owned and not ctx.has_model and not (methods or precisions):
        args |= _joining(parsed.owned_gpu, names, s.preference)
    _method_open(ctx, args, names, counts, methods)
    return args | _money_args(ctx)


def _joining(owned: str | None, names: list[str], preference: str | None) -> dict[str, Any]:
    """Cards to add to one kept, no job named: the pair pools its memory either way, and every token passes through
    both cards, so a card slower than the one kept drags down what the user runs today. Bandwidth decides; when at
    most one option keeps the pace, the fastest is the pick (value per money would pick the card that drags)."""
    from tools.catalog import catalog

    cards = catalog()
    if owned not in cards:
        return {}
    keeps = [g for g in names if g in cards and cards[g].bandwidth_gbs >= cards[owned].bandwidth_gbs]
    out: dict[str, Any] = {"focus": "decode"}
    if len(keeps) <= 1 and not preference:
        out["preference"] = "fastest"
    return out


def _method_open(
    ctx: PlanContext, args: dict[str, Any], names: list[str], counts: dict[str, int], methods: list[str]
) -> None:
    """ "Fine-tune 65B" on the cards named, no method said: QLoRA where LoRA does not fit them (the tool decides), and
    QLoRA outright when the 16-bit weights alone outgrow every option (advice.md §2)."""
    parsed = ctx.parsed
    if not (ctx.has_model and parsed.fine_tune_unspecified and parsed.mode is None and not methods):
        return
    args["method_open"] = True
    if _weights_exceed_cards(ctx, names, counts):
        args["workload"] |= {"mode": "qlora"}
        args["workload"].pop("precision", None)


def _money_args(ctx: PlanContext) -> dict[str, Any]:
    """How the options are priced: the hours rented, buying or renting, the budget for the cards, who asks."""
    s, parsed = ctx.scenario, ctx.parsed
    args: dict[str, Any] = {slot: getattr(s, slot) for slot in ("preference", "persona") if getattr(s, slot)}
    if s.utilization is not None:
        args["hours_per_month"] = round(s.utilization * tco_defaults()["hours_per_month"], 1)
    if s.deployment in ("cloud", "local") or parsed.buy_or_rent in ("buy", "rent"):
        rent = s.deployment == "cloud" or parsed.buy_or_rent == "rent"
        args["basis"] = "rent" if rent else "buy"  # what the costs compare: the hourly rent or the cards
    if s.budget is not None and s.budget_scope != "machine":  # the budget for the cards: a hard limit
        args["budget"] = s.budget
    if "speed" in parsed.intents and len(parsed.gpu_mentions) > 1 and not {"preference", "budget"} & set(args):
        args["preference"] = "fastest"  # "H100 vs A100, which is faster?": the faster card leads, not the cheaper
    return args


def _ways(ctx: PlanContext) -> tuple[list[str], list[str]]:
    """The methods (two or more training methods) and precisions (two or more formats) the message compares."""
    parsed = ctx.parsed
    methods = [m for m in parsed.modes_mentioned if m != "inference"]
    precisions = parsed.precisions_mentioned
    return (methods if len(methods) > 1 else []), (precisions[:4] if len(precisions) > 1 else [])


def _fold(ctx: PlanContext, cards: bool) -> None:
    """Every option's memory, fit and speed is in the comparison: "how much memory does FP8 save compared
    with BF16" is answered by it, verdict first, not by a single estimate for the first format named. A fit
    question about the first of several cards ("will it run 70B? is it worth it vs a 6000 Ada?") keeps its
    own answer, which leads: the comparison cannot say "yes, at a shorter context"."""
    folded = tuple(i for i in _FOLDED if not (cards and i == "fit"))
    ctx.calls = [c for c in ctx.calls if c.owner not in folded]
    ctx.intents = [i for i in ctx.intents if i not in folded]
    ctx.second_round = [i for i in ctx.second_round if i not in folded or (i == "cheaper_way" and "fit" not in folded)]


# ---- rendering --------------------------------------------------------------------------------------------


def _join(w: Writer, notes: list[Note], sentences: bool) -> str:
    if sentences:
        return ("" if w.lang == "zh" else " ").join(n.render(w.lang) for n in notes)
    return ("；" if w.lang == "zh" else "; ").join(n.render(w.lang) for n in notes)


def _label(w: Writer, r: CompareResult, row: CompareRow) -> str:
    """'2 × H100', or the way it runs when the options differ in method or format: 'LoRA (1 × RTX 4090)'."""
    count = row.count or row.count_asked or 1
    modes = {x.mode for x in r.rows}
    formats = {x.precision for x in r.rows}
    way = [w.label("method", row.mode or "inference")] if len(modes) > 1 else []
    way += [(row.precision or "").upper()] if len(formats) > 1 and r.axis != "methods" else []
    if not way:
        return w.t("compare_label_cards", count=count, gpu=row.gpu)
    return w.t("compare_label_way", way=" ".join(way), count=count, gpu=row.gpu)


def _verdict(w: Writer, r: CompareResult, capacity: bool = False, why: bool = False) -> None:
    v = r.verdict
    first = (
        [v.bottleneck] if v.bottleneck is not None else []
    )  # the options on the job's bottleneck, right after the pick
    if v.pick is None:
        w.say("compare_nothing", reasons=_join(w, [*v.reasons, *first], True))
    else:
        reasons = [*first, *v.reasons]
        tie = bool(first) and first[0].code.endswith("_tie")
        if first and not (tie or why) and v.reasons and v.reasons[0].code == "cmp_all_fit":
            reasons = [v.reasons[0], *first, *v.reasons[1:]]  # "is X enough or do I need Y?": yes, each is, first
        if v.reasons and v.reasons[0].code in (*_FIRST_REASONS, "cmp_pick_despite_cuda", "cmp_pick_despite_brim"):
            reasons = [v.reasons[0], *first, *v.reasons[1:]]  # "K80 or 3090?": the K80 is out of support, first
        reasons = reasons[:_MAX_REASONS]
        w.say("compare_verdict", label=_label(w, r, r.rows[v.pick]), reasons=_join(w, reasons, True))
    lines = [
        w.t("compare_other", label=_label(w, r, r.rows[o.index]), notes=_join(w, o.notes, False))
        for o in v.others
        if o.notes
    ]
    if lines:
        w.add(w.t("compare_others_head") + "\n" + "\n".join(lines))
    _sizes(w, r, capacity)


def _sizes(w: Writer, r: CompareResult, capacity: bool = False) -> None:
    """No model named: the largest model each option runs or fine-tunes (largest_model), one line per option;
    not when the capacity part lists them in full (`capacity`)."""
    from assistant.capabilities.capacity import way_label

    if capacity:
        return

    lines = []
    for row in r.rows:
        ways = [
            w.t("compare_size_way", label=way_label(w, way).strip(), size=f"{way.max_params_b:g}")
            + (w.t("compare_size_example", model=way.examples[0].model) if way.examples else "")
            for way in row.sizes
            if way.max_params_b
        ]
        if ways:
            label = _label(w, r, row)
            lines.append(w.t("compare_size_line", label=label, ways=w.t("capacity_join_ways").join(ways)))
    if lines:
        training = any(way.mode != "inference" for row in r.rows for way in row.sizes)
        head = "compare_sizes_head_training" if training else "compare_sizes_head"
        w.add(w.t(head) + "\n" + "\n".join(f"- {line}" for line in lines))


def _cell_money(value: float | None, currency: str, used: bool = False, w: Writer | None = None) -> str:
    if not value:
        return "-"
    return money(value, currency) + (w.t("compare_used") if used and w else "")


def _link(w: Writer, row: CompareRow) -> str:
    gbs = f"{row.link_gbs:,g} GB/s" if row.link_gbs else "-"
    return w.label("compare_link", row.link_kind).format(gbs=gbs)


def _ecc(w: Writer, row: CompareRow) -> str:
    return "-" if row.ecc is None else w.t("yes_word" if row.ecc else "no_word")


def _fits(w: Writer, row: CompareRow) -> str:
    fit = row.fit
    if fit is None or row.count is None:
        return w.t("compare_fits_no")
    if fit.fits:
        return w.t("compare_fits_yes")
    return w.t("compare_fits_more", n=fit.num_gpus, need=fit.per_gpu_gib)


def _speed(row: CompareRow) -> str:
    if row.tokens_per_s is None:
        return "-"
    per_user = row.tokens_per_s_per_user
    if row.mode == "inference" and per_user is not None and abs(per_user - row.tokens_per_s) > 0.05:
        return f"{row.tokens_per_s:,.1f} / {per_user:,.1f}"
    return f"{row.tokens_per_s:,.1f}" if row.mode == "inference" else f"{row.tokens_per_s:,.0f}"


def _table(w: Writer, head: list[str], cells: list[list[str]]) -> str:
    header = "| " + " | ".join(w.label("compare_col", h) for h in head) + " |"
    rule = "|" + "|".join("---" for _ in head) + "|"
    return "\n".join([header, rule, *("| " + " | ".join(c) + " |" for c in cells)])


def _cards_table(w: Writer, r: CompareResult) -> None:
    cells = [
        [
            f"**{row.gpu}**",
            f"{row.vram_gib:g} GiB {row.memory_type}",
            f"{row.bandwidth_gbs:,.0f} GB/s",
            "-" if row.bf16_tflops is None else f"{row.bf16_tflops:g}",
            "-" if row.fp8_tflops is None else f"{row.fp8_tflops:g}",
            _cell_money(row.price_each, r.currency, row.price_used, w),
            _cell_money(row.rent_per_gpu_hour, r.currency),
            _link(w, row),
            _ecc(w, row),
        ]
        for row in r.rows
    ]
    head = ["gpu", "vram", "bandwidth", "bf16", "fp8", "buy", "rent", "link", "ecc"]
    w.add(w.t("compare_cards_head") + "\n\n" + _table(w, head, cells))


def _workload_table(w: Writer, r: CompareResult) -> None:
    training = any(row.mode not in (None, "inference") for row in r.rows)
    runs = any(row.run_cost for row in r.rows)
    head = ["option", "memory", "fits", "training" if training else "decode", "buy", "rent", "per_1m"]
    head += ["run"] * runs + ["link", "ecc"]
    cells = []
    for row in r.rows:
        memory = "-" if row.memory_per_gpu_gib is None else f"{row.memory_per_gpu_gib:.1f} GiB"
        cost = [_cell_money(row.cost_per_1m_tokens, r.currency)] + [_cell_money(row.run_cost, r.currency)] * runs
        cells.append(
            [
                f"**{_label(w, r, row)}**",
                memory,
                _fits(w, row),
                _speed(row),
                _cell_money(row.cards_cost, r.currency, row.price_used, w),
                _cell_money(row.rent_per_hour, r.currency),
                *cost,
                _link(w, row),
                _ecc(w, row),
            ]
        )
    key = "compare_workload_training" if training else "compare_workload_inference"
    workload = w.t(key, context=r.context_tokens or 0, batch=r.batch or 1)
    if r.axis == "gpus" and r.rows and r.rows[0].mode:
        first = r.rows[0]
        mode = w.label("method", first.mode or "inference")
        workload = w.t("compare_workload_way", mode=mode, precision=first.precision, rest=workload)
    w.add(w.t("compare_table_head", model=r.model, workload=workload) + "\n\n" + _table(w, head, cells))


def _caveats(w: Writer, r: CompareResult) -> list[str]:
    """Each row's caveats once; one that is about a single option of several on the same card says which."""
    texts = [[n.render(w.lang) for n in row.notes] for row in r.rows]
    same_card = len({row.gpu_id for row in r.rows}) < len(r.rows)
    out: list[str] = []
    for row, mine in zip(r.rows, texts, strict=True):
        for text in mine:
            shared = all(text in other for other in texts) or (row.gpu in text and not same_card)
            line = text if shared else w.t("compare_caveat", label=_label(w, r, row), text=text)
            if line not in out:
                out.append(line)
    return out


def compare_lines(
    w: Writer,
    r: CompareResult,
    capacity: bool = False,
    why: bool = False,
    joins: str | None = None,
    pooled: list[CapacityResult] | None = None,
) -> None:
    """The verdict and how the others differ, the table, then what to know and the assumptions (`capacity`: the
    capacity part lists each option's largest models, so they are not listed here too; `why`: the question is why
    the cards differ, or names the bottleneck, so that comparison comes right after the pick; `joins`: the card the
    user keeps, which every option is added to)."""
    _verdict(w, r, capacity, why)
    if joins:
        _pairs(w, r, joins, pooled or [])
    if r.axis == "cards":
        _cards_table(w, r)
    else:
        _workload_table(w, r)
    w.bullets("compare_caveats_head", _caveats(w, r), limit=_MAX_NOTES)
    w.bullets("warnings_head", [n.render(w.lang) for n in r.warnings], limit=3)
    w.bullets("assumptions_head", [n.render(w.lang) for n in r.assumptions], limit=_MAX_NOTES)


def _one_machine(ctx: PlanContext, intent: str, names: list[str], ways: bool) -> bool:
    """ "would a 4090 and 5090 together work?": one machine's cards, pooled, not options to weigh; the fit (a model
    named) or the capacity capability answers for the pair. True when handed over."""
    parsed = ctx.parsed
    if not parsed.gpus_together or parsed.gpus_alternative or len(set(names)) < 2 or ways:
        return False
    to = "fit" if ctx.has_model else "capacity"
    if to in ctx.intents:
        ctx.intents = [i for i in ctx.intents if i != intent]
    else:
        ctx.hand_over(intent, to)
    return True


def _add_pairs(ctx: PlanContext, intent: str, owned: str, names: list[str]) -> None:
    """largest_model for the owned card paired with each card to add: two cards of their mean memory stand for the
    pair, as llama.cpp's layer split pools them (the capacity capability sizes mixed cards the same way)."""
    from tools.catalog import catalog

    cards = catalog()
    if owned not in cards:
        return
    mine = cards[owned].vram_gib
    for g in names:
        if g in cards and g != owned:
            pair = {"vram_gib": round((mine + cards[g].vram_gib) / 2, 4), "num_gpus": 2, "mode": "inference"}
            ctx.add(intent, ToolName.LARGEST_MODEL, **pair)


def _pairs(w: Writer, r: CompareResult, owned: str, pooled: list[CapacityResult]) -> None:
    """ "I have a 3090; add a 5060 Ti or a 5090?": what each card to add makes with the one kept. Different cards
    pool their memory under llama.cpp's layer split; each token passes through both, so the slower sets the pace."""
    from assistant.capabilities.capacity import way_label
    from tools.catalog import catalog

    cards = catalog()
    if owned not in cards:
        return
    mine = cards[owned]
    by_total = {round(p.total_gib or 0): p for p in pooled}
    order = sorted(r.rows, key=lambda row: row.gpu_id != r.verdict.gpu_id)  # the pick first
    pairs = []
    for gpu_id in dict.fromkeys(row.gpu_id for row in order):
        if gpu_id not in cards or gpu_id == owned:
            continue
        card = cards[gpu_id]
        pair = by_total.get(round(card.vram_gib + mine.vram_gib))
        way = next((x for x in pair.ways if x.mode == "inference" and x.max_params_b), None) if pair else None
        if pair is None or way is None:
            continue
        slow = min((card, mine), key=lambda g: g.bandwidth_gbs)
        pairs.append(
            w.t(
                "compare_adds_pair",
                gpu=_name(gpu_id),
                total=pair.total_gib,
                size=way.max_params_b,
                way=way_label(w, way).strip(),
                slow=_name(slow.id),
                gbs=slow.bandwidth_gbs,
            )
        )
    if pairs:
        w.say("compare_adds_pool", owned=_name(owned), pairs=("；" if w.lang == "zh" else "; ").join(pairs))


class Compare(Capability):
    intent = "compare"
    owns = (ToolName.COMPARE_GPUS,)
    scenario_fields: ClassVar[dict[ToolName, dict[str, str]]] = {
        ToolName.COMPARE_GPUS: {
            "currency": "currency",
            "preference": "preference",
            "persona": "persona",
            "budget": "budget",
        }
    }
    render_phase = 1
    guides_topic = "compare GPUs memory bandwidth tensor cores NVLink"

    def phase(self, turn: Turn) -> int:
        """After the numbers it compares (phase 1); first when the cards' largest models follow it ("2x 3090 or
        one 4090: which works better, which sizes can each train?": the choice leads, the sizes back it)."""
        return 0 if "capacity" in turn.plan.intents else self.render_phase

    def topic(self, ctx: PlanContext) -> str | None:
        methods, precisions = _ways(ctx)
        if methods:
            return "full fine-tuning LoRA QLoRA memory quality"
        if precisions:
            return "quantization FP8 BF16 weight formats quality"
        cards = _named_cards(ctx)
        personal = cards and all(c.segment in ("consumer", "workstation", "apple") for c in cards)
        if personal and (ctx.scenario.mode or "inference") == "inference" and not ctx.scenario.users:
            return "VRAM capacity memory bandwidth decode speed 4-bit quantization"  # one person's desk-side card
        if any(card.cn_availability == "china_market" for card in cards):
            return f"{self.guides_topic} China-market variants 中国特供 H20 L20 H800"  # what the variants cut
        return self.guides_topic

    def plan(self, ctx: PlanContext) -> None:
        prev, s, parsed = ctx.previous, ctx.scenario, ctx.parsed
        names = parsed.gpu_mentions or (prev.gpus if len(prev.gpus) > 1 else ([s.gpu] if s.gpu else []))
        if parsed.pc_alternative and len(names) == 1:
            names = [*names, advice.pc_reference_gpu()]  # "Mac Studio 还是自己攒 PC": the PC's card
        methods, precisions = _ways(ctx)
        if len(names) > 1 and not ctx.has_model:
            # "A100 vs 4090 for LoRA?" with no model (or a pasted spec table's "FP32 / FP16" rows): the cards are
            # compared on the job's bottleneck, not ways of running a model nobody named
            methods, precisions = [], []
        if not names and not (methods or precisions):
            ctx.need("need_gpu")
            return
        if (methods or precisions or not names) and not ctx.has_model:
            ctx.need("need_model")
            return
        if parsed.adds_to_owned and parsed.owned_gpu in names:
            names = _pair_names(parsed)  # the cards to add, not the kept one (unless "another" of it)
        ways = bool(methods or precisions)
        if _paired(ctx, names, ways) or _one_machine(ctx, self.intent, names, ways):
            return
        names = _first_counted(names, parsed.gpu_counts)
        if len(names) > MAX_GPUS:
            ctx.notes.append(note("cmp_left_out", gpus=[note("cmp_gpu_name", gpu=_name(g)) for g in names[MAX_GPUS:]]))
        names = names[:MAX_GPUS]
        if _to_purchase(ctx, names, bool(methods or precisions)):
            ctx.hand_over(self.intent, "recommend")
            return
        if len(names) > 1:
            methods, precisions = methods[:2], precisions[:2]  # at most 8 options in one table
        _fold(ctx, cards=len(names) > 1 and not (methods or precisions))
        ctx.add(self.intent, ToolName.COMPARE_GPUS, **compare_args(ctx, names, methods, precisions))
        if parsed.adds_to_owned and parsed.owned_gpu and not (methods or precisions):
            _add_pairs(ctx, self.intent, parsed.owned_gpu, names)  # what each card to add runs with the one kept
        if parsed.claims or parsed.asks:  # "4090 没有 NVLink 吧，和 A6000 比呢": the card facts answer the claim
            ctx.add(self.intent, ToolName.GPU_SPECS, names=names)

    def render(self, w: Writer, turn: Turn) -> None:
        p = turn.parsed
        if p.adds_to_owned and pairs_lead(w, turn, p.owned_gpu, _pair_names(p)):
            return
        for r in turn.own(self.intent, CompareResult):
            p = turn.parsed
            why = bool(p.focus or p.symptom or {"concept", "speed"} & set(p.intents))  # "which is faster?"
            _expected_lead(w, p.text, p.gpu_mentions, p.mode)
            joins = p.owned_gpu if p.adds_to_owned else None
            pooled = turn.own(self.intent, CapacityResult)
            compare_lines(w, r, capacity="capacity" in turn.plan.intents, why=why, joins=joins, pooled=pooled)

    def apply(self, scenario: Scenario, tool: ToolName, args: dict[str, Any]) -> None:
        if isinstance(args.get("workload"), dict):  # the workload is the memory capability's to record
            from assistant.capabilities import capability

            capability("memory").apply(scenario, ToolName.ESTIMATE_VRAM, args["workload"])
        super().apply(scenario, tool, args)
        names = list(args.get("gpus") or [])
        if len(names) == 1:
            scenario.gpu = names[0]
            count = (args.get("counts") or {}).get(names[0])
            if count:
                scenario.num_gpus = count
        elif len(names) > 1:
            scenario.gpus = names  # the cards being compared: "which one is faster?" refers to them
        if args.get("hours_per_month"):
            scenario.utilization = min(1.0, float(args["hours_per_month"]) / tco_defaults()["hours_per_month"])

    def summary(self, tool: ToolName, result: BaseModel, lang: str) -> str:
        if not isinstance(result, CompareResult):
            return str(tool)
        pick = result.verdict.label or "nothing fits"
        return f"{len(result.rows)} options compared; pick: {pick}"


def _expected_lead(w: Writer, text: str, gpus: list[str], mode: str | None) -> None:
    """ "Our A6000 is not as fast as the 3090, expected?", "训练时 H20 比 A100 慢很多，正常吗": the order the hardware
    predicts was seen, so the verdict is "expected" and the job's bottleneck says why, before the comparison."""
    pair = expected_pair(text, gpus, mode)
    if pair is None:
        return
    slow, fast = (catalog().get(g) for g in pair)
    if slow is None or fast is None:
        return
    training = (mode or "inference") != "inference"
    fv, sv = bottleneck(fast, training), bottleneck(slow, training)
    if not (fv and sv):
        return
    what = w.t("compare_expected_compute" if training else "compare_expected_bandwidth")
    job = w.t("compare_expected_training" if training else "compare_expected_decode")
    unit = "TFLOPS" if training else "GB/s"
    fields = dict(fast=fast.name, slow=slow.name, what=what, fv=fv, sv=sv, unit=unit, job=job)
    w.say("compare_expected", **fields)


def _weights_exceed_cards(ctx: PlanContext, names: list[str], counts: dict[str, int]) -> bool:
    """Whether the model's 16-bit weights alone (2 bytes a parameter) exceed the memory of every option named:
    then LoRA cannot fit any of them and the fine-tune the user means is QLoRA."""
    from tools.catalog import catalog
    from tools.errors import AdvisorError
    from tools.models import resolve_model

    s = ctx.scenario
    try:
        params_b = resolve_model(s.model)[0].params / 1e9 if s.model else float(s.params_b or 0)
    except AdvisorError:
        return False
    cards = catalog()
    totals = [cards[g].usable_memory_gib * counts.get(g, 1) for g in names if g in cards]
    return bool(totals) and params_b * 2e9 / 2**30 > max(totals)


def _all_over(ctx: PlanContext, names: list[str], counts: dict[str, int]) -> bool:
    """Whether every setup named (card x count, at its cheapest price, used where sold used) is over the budget."""
    from tools.catalog import catalog
    from tools.prices import load_prices, purchase_price, used_purchase_price

    s, book, cards = ctx.scenario, load_prices(), catalog()
    if s.budget is None:
        return False
    currency = s.currency or "USD"
    for g in names:
        if g not in cards:
            return False
        prices = (purchase_price(cards[g], currency, book), used_purchase_price(cards[g], currency, book))
        found = [x[0] for x in prices if x]
        if not found or min(found) * counts.get(g, 1) <= s.budget:
            return False
    return True


def _to_purchase(ctx: PlanContext, names: list[str], ways: bool) -> bool:
    """ "预算1w，买一张4090D还是两张二手3090" with both over the budget, or cards named within a budget with no
    count: the purchase policy sizes each (one used 3090 may already be enough) and holds the budget. "One 4090
    or two 3090s" with a setup within it: the setups are named, and the comparison weighs exactly them."""
    counts = ctx.parsed.gpu_counts
    if ctx.scenario.budget is None or len(names) < 2 or ways:
        return False
    return not all(counts.get(g) for g in names) or _all_over(ctx, names, counts)


def _paired(ctx: PlanContext, names: list[str], ways: bool) -> bool:
    """ "I have a 3090: add a 4060 Ti or another 3090 for 70B?": each option is the pair it makes with the card
    kept (add_pair.py), sized and timed as that pair. True when planned so."""
    owned = ctx.parsed.owned_gpu if ctx.parsed.adds_to_owned else None
    if not (ctx.has_model and owned and not ways and plan_pairs(ctx, owned, names)):
        return False
    _fold(ctx, cards=False)
    return True


def _pair_names(p: Any) -> list[str]:
    """The cards to add beside the owned one (itself again when "another" of it is an option)."""
    again = p.gpu_counts.get(p.owned_gpu, 0) > 1
    return [g for g in p.gpu_mentions if g != p.owned_gpu or again]


def _first_counted(names: list[str], counts: dict[str, int]) -> list[str]:
    """The setups the user proposed with a count ("4x A6000 ... 2x H100") before a card only mentioned ("I own a
    Mac Studio"): when more are named than one table compares, the proposed ones stay."""
    return sorted(names, key=lambda g: 0 if counts.get(g) else 1)


def _name(gpu_id: str) -> str:
    from tools.catalog import catalog

    spec = catalog().get(gpu_id)
    return re.sub(r"\s*\(.*\)$", "", spec.name) if spec else gpu_id  # no core counts: only figures a tool gave


def _named_cards(ctx: PlanContext) -> list[Any]:
    """The catalog entries of the GPUs the question names."""
    from tools.catalog import catalog

    cards = catalog()
    return [cards[g] for g in ctx.parsed.gpu_mentions if g in cards]
