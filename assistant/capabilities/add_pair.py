"""A card to add beside one the user keeps, for a model they name ("I have a 3090: add a 4060 Ti or another 3090 for
70B?", "手上有 4090，再加 3090 还是 4070 Ti Super 跑 72B"): each option is the PAIR it makes with the kept card, not
the card to add alone at whatever count would hold the model (advice.md §9: their hardware is the question).

Different cards run one model with a layer split (llama.cpp / Ollama `--tensor-split`, which sets each card's share):
the job is sized as two halves on the pair's smaller card and holds when both halves fit both cards' usable memory
together; every token passes through both cards in turn, so the slower card's bandwidth sets the speed (timed on two
of it). The pick is the pair that
holds the model fastest; when none does, the one with the most memory, said so.
"""

from __future__ import annotations

from dataclasses import dataclass

from assistant.capabilities.base import PlanContext, Turn
from assistant.capabilities.workload import capped_context, specs_args, speed_args, vram_args
from assistant.strings import Writer
from assistant.toolset import ToolName
from tools import advice
from tools.speed import SpeedResult
from tools.vram import VramResult

OWNER = "compare_pair"
_NEAR_TIE = 0.10  # pairs this close in speed: the cheaper card to add is the pick (compare.py's near tie)


@dataclass
class _Pair:
    card: str  # the card to add
    small: str  # the pair's card with less memory: the even split is sized on two of it
    slow: str  # the pair's card with less bandwidth: it sets the pace
    total_gb: float


def _pairs(owned: str, names: list[str]) -> list[_Pair]:
    from tools.catalog import catalog

    cards = catalog()
    if owned not in cards or any(g not in cards for g in names):
        return []
    mine = cards[owned]
    out = []
    for g in names:
        other = cards[g]
        small = g if other.vram_gib < mine.vram_gib else owned
        slow = g if other.bandwidth_gbs < mine.bandwidth_gbs else owned
        out.append(_Pair(g, small, slow, mine.vram_gib + other.vram_gib))
    return out


def plan_pairs(ctx: PlanContext, owned: str, names: list[str]) -> bool:
    """Plan each pair's memory (on two of its smaller card) and speed (on two of its slower card); False when this
    is not a question of that kind (a training job weighs compute: the comparison answers it)."""
    from assistant.capabilities.fit import _personal_format

    s = ctx.scenario
    pairs = _pairs(owned, names)
    if (s.mode or "inference") != "inference" or len(pairs) < 2:
        return False
    personal = (s.batch or 1) <= 2 and not s.users
    default = advice.default_context("inference", personal=personal)
    job = s.model_copy(
        update={
            "precision": s.precision or (_personal_format(s) if personal else None),
            "context_tokens": s.context_tokens or capped_context(s, default),
        }
    )
    for p in pairs:
        ctx.add(OWNER, ToolName.ESTIMATE_VRAM, **vram_args(job.model_copy(update={"gpu": p.small, "num_gpus": 2})))
        ctx.add(OWNER, ToolName.ESTIMATE_SPEED, **speed_args(job.model_copy(update={"gpu": p.slow, "num_gpus": 2})))
    ctx.add(OWNER, ToolName.GPU_SPECS, **specs_args(s, [owned, *names]))  # each card's memory, as quoted
    return True


def pairs_lead(w: Writer, turn: Turn, owned: str | None, names: list[str]) -> bool:
    """The pick among the pairs first, then each other pair; True when written."""
    from tools.catalog import catalog

    sized = {r.fit.gpu_id: r for r in turn.own(OWNER, VramResult) if r.fit is not None}
    speeds = {r.gpu: r for r in turn.own(OWNER, SpeedResult)}  # keyed by the card's name, as the tool gives it
    pairs = [p for p in _pairs(owned or "", names) if p.small in sized]
    if not owned or len(pairs) < 2:
        return False
    cards = catalog()

    def tps(p: _Pair) -> float:
        r = speeds.get(cards[p.slow].name)
        return (r.decode_tokens_per_s or 0.0) if r is not None else 0.0

    def usable(p: _Pair) -> float:
        """Both cards' usable memory: the small card's, and the other's at the same share kept free."""
        fit = sized[p.small].fit
        assert fit is not None
        share = fit.usable_gib_per_gpu / cards[p.small].vram_gib
        return fit.usable_gib_per_gpu + (p.total_gb - cards[p.small].vram_gib) * share

    def need(p: _Pair) -> float:
        fit = sized[p.small].fit
        assert fit is not None
        return fit.per_gpu_gib * 2  # the even split's two halves: a layer split moves them, the sum stays

    holding = sorted((p for p in pairs if need(p) <= usable(p)), key=tps, reverse=True)
    near = [p for p in holding if holding and tps(p) >= tps(holding[0]) * (1 - _NEAR_TIE)]
    cheaper = min(near, key=_price) if len(near) > 1 else None
    if cheaper is not None and cheaper is not holding[0] and _price(cheaper) < _price(holding[0]):
        # as fast within a few per cent (4090 + 3090 vs 4090 + 4090): the price decides
        holding = [cheaper, *(p for p in holding if p is not cheaper)]
    else:
        cheaper = None
    rest = sorted((p for p in pairs if p not in holding), key=lambda p: p.total_gb, reverse=True)
    model = sized[pairs[0].small].model

    def item(p: _Pair) -> dict:
        r = sized[p.small]
        assert r.fit is not None
        slow = cards[p.slow]
        label = "pair_card_again" if p.card == owned else "pair_card"
        return dict(
            gpu=w.t(label, gpu=_name(p.card)),
            owned=_name(owned),
            mine=cards[owned or ""].vram_gib,
            theirs=cards[p.card].vram_gib,
            model=model,
            precision=r.precision,
            need=r.total_gib,
            tps=tps(p),
            slow=_name(p.slow),
            gbs=slow.bandwidth_gbs,
        )

    lines = []
    if holding:
        why = w.t("pair_cheaper", other=_name(holding[1].card)) if cheaper is not None else ""
        w.add(w.t("pair_pick", **item(holding[0])) + ("" if w.lang == "zh" or not why else " ") + why)
        others = holding[1:] + rest
    else:
        w.say("pair_none", **item(rest[0]))
        others = rest[1:]
    for p in others:
        key = "pair_other_holds" if p in holding else "pair_other_short"
        lines.append(w.t(key, **item(p)))
    if lines:
        w.add(" ".join(lines) if w.lang != "zh" else "".join(lines))
    return True


def _price(p: _Pair) -> float:
    """The card's price to buy (used where that is how it is sold), USD; unknown: never the cheaper."""
    from tools.catalog import catalog
    from tools.prices import load_prices, purchase_price, used_purchase_price

    book, gpu = load_prices(), catalog()[p.card]
    found = [x[0] for x in (purchase_price(gpu, "USD", book), used_purchase_price(gpu, "USD", book)) if x]
    return min(found, default=float("inf"))


def _name(gpu_id: str) -> str:
    import re

    from tools.catalog import catalog

    spec = catalog().get(gpu_id)
    return re.sub(r"\s*\(.*\)$", "", spec.name) if spec else gpu_id
