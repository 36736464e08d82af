"""An application that is not a language model (understanding/apps.py: IndexTTS, Whisper, Stable Diffusion, ComfyUI,
Gaussian Splatting): whether the user's card is enough for it, which of the cards they weigh to take, or the card to
buy, from the application's memory need (knowledge/data/apps.yaml) that gpu_specs returns beside the cards. An expert
answers with the verdict on the card first (enough / enough but tight / short), the figures it rests on, and what
changes between the least memory and the comfortable amount; every figure is gpu_specs'."""

from __future__ import annotations

from assistant.capabilities.base import Capability, PlanContext, Turn
from assistant.capabilities.named_cards import _catalog_cards
from assistant.capabilities.workload import specs_args
from assistant.strings import Writer
from assistant.toolset import ToolName
from tools.apps import AppNeed, app_buy_cards
from tools.catalog import catalog
from tools.gpu_search import GpuRow, GpuSpecsResult


def _buy_pair(need_gib: float, production: bool) -> list[str]:
    """The card to buy (the smallest of the list with the comfortable memory) and the step up after it."""
    cards = [c for c in app_buy_cards(production) if c in catalog()]
    start = next((i for i, c in enumerate(cards) if catalog()[c].vram_gib >= need_gib), len(cards) - 1)
    return cards[start : start + 2]


class AppFit(Capability):
    intent = "app_fit"
    owns = ()
    guides_topic = "GPU memory capacity for the application"

    def plan(self, ctx: PlanContext) -> None:
        from tools.apps import app_need

        app = ctx.parsed.app
        need = app_need(app) if app else None
        if need is None:
            return
        owned = _catalog_cards(ctx.parsed.gpu_mentions)[:4]
        # the card to buy rides along when none of the user's cards runs it without compromises
        roomy = any(catalog()[g].vram_gib >= need.comfortable_gib for g in owned)
        cards = (
            owned
            if roomy
            else list(dict.fromkeys([*owned, *_buy_pair(need.comfortable_gib, ctx.parsed.persona == "company")]))
        )
        ctx.add(self.intent, ToolName.GPU_SPECS, **specs_args(ctx.scenario, cards), app=app)

    def records(self, tool: ToolName) -> bool:
        return False  # the card facts of this answer set no model or workload

    def phase(self, turn: Turn) -> int:
        # the verdict on the card (or the card to buy) is the answer; after the pick when the cards are compared, and
        # after a platform's verdict asked first ("Is the 7900 XTX supported by ROCm now? I want to run SD on it")
        return 2 if "compare" in turn.plan.intents or turn.plan.intents[:1] == ["support"] else -2

    def render(self, w: Writer, turn: Turn) -> None:
        found = [o for o in turn.own(self.intent, GpuSpecsResult) if o.app is not None and o.gpus]
        if not found:
            return
        need, parsed = found[0].app, turn.parsed
        assert need is not None
        app = {"app": need.name, "kind": need.kind_zh if w.lang == "zh" else need.kind_en}
        named = _catalog_cards(parsed.gpu_mentions)
        rows = [r for r in found[0].gpus if r.id in named]
        buy = [r for r in found[0].gpus if r.id not in named] or found[0].gpus[-1:]
        size = parsed.stated_capacity_gib if not rows else None
        roomy = any(r.vram_gib >= need.comfortable_gib for r in rows) or (size or 0) >= need.comfortable_gib
        # "12个G显存都不够，我该用什么显卡": the card to buy leads; otherwise the verdict on the user's card does
        if not roomy and parsed.size_short:
            _buy_line(w, need, buy, app, parsed.persona == "company")
        _verdicts(
            w,
            need,
            rows,
            size,
            app,
            picked=len(rows) > 1 and parsed.gpus_alternative and "compare" not in turn.plan.intents,
        )
        if not roomy and not parsed.size_short:
            _buy_line(w, need, buy, app, parsed.persona == "company")
        w.say("app_tip", app=need.name, tip=need.tip_zh if w.lang == "zh" else need.tip_en)
        if parsed.on_cpu_now:
            w.say("app_cpu_now", app=need.name)
        for i, o in enumerate(turn.outcomes):
            if o.call.owner == self.intent:
                turn.shown.add(i)  # its card rows are this part's, not a spec sheet of their own


def _verdicts(
    w: Writer, need: AppNeed, rows: list[GpuRow], size: float | None, app: dict[str, str], picked: bool
) -> None:
    """The user's cards (or the memory they said) against the application's need; the pick first when they weigh
    several cards and no comparison of their own answers it."""
    if picked:
        _pick(w, need, rows, app)
        return
    for row in rows:
        w.say(
            _verdict(need, row), **app, gpu=row.name, vram=row.vram_gib, least=need.min_gib, need=need.comfortable_gib
        )
    if size:  # "12个G显存都不够", "is an 8GB card fine?": the card's memory said, no card named
        w.say(_verdict_size(need, size), **app, vram=size, least=need.min_gib, need=need.comfortable_gib)


def _buy_line(w: Writer, need: AppNeed, buy: list[GpuRow], app: dict[str, str], production: bool) -> None:
    big = buy[1] if len(buy) > 1 else buy[0]
    w.say(
        "app_buy_production" if production else "app_buy",
        **app,
        need=need.comfortable_gib,
        small=buy[0].name,
        small_vram=buy[0].vram_gib,
        big=big.name,
        big_vram=big.vram_gib,
    )


def _verdict(need: AppNeed, row: GpuRow) -> str:
    if row.vram_gib >= need.comfortable_gib:
        return "app_enough"
    return "app_tight" if row.vram_gib >= need.min_gib else "app_short"


def _verdict_size(need: AppNeed, gib: float) -> str:
    if gib >= need.comfortable_gib:
        return "app_enough_size"
    return "app_tight_size" if gib >= need.min_gib else "app_short_size"


def _pick(w: Writer, need: AppNeed, rows: list[GpuRow], app: dict[str, str]) -> None:
    """Of the cards weighed, the one with the most memory (memory sets what the application can run at all), the
    faster one on a tie; the others after it with their own verdict."""
    best = max(rows, key=lambda r: (r.vram_gib, r.bandwidth_gbs))
    others = [r for r in rows if r is not best]
    w.say(
        "app_pick",
        **app,
        gpu=best.name,
        vram=best.vram_gib,
        other=others[0].name,
        other_vram=others[0].vram_gib,
        need=need.comfortable_gib,
    )
    for row in others:
        w.say(
            _verdict(need, row), **app, gpu=row.name, vram=row.vram_gib, least=need.min_gib, need=need.comfortable_gib
        )
