"""A card the user rules out beside the one asked about ("A100国内很难买到，8张4090能行吗", "H100s are impossible to
get, would 4x RTX 6000 Ada do?", "4090太贵了，2080ti 多卡能跑吗"): the answer is about the card asked, and names the
one ruled out once, so the reader sees it was read. Ruled out by the market in China, a card under US export
controls is out of reach new, and the answer names what is sold there instead (the catalog's China-market cards of
its segment, card_use.china_variants), and the card asked about when it is controlled too (the 4090 -> 4090 D).
Elsewhere a card hard to get is rented by the hour.
"""

from __future__ import annotations

from pydantic import BaseModel

from assistant.capabilities.base import Capability, PlanContext, Turn
from assistant.capabilities.card_use import china_variants, in_china
from assistant.capabilities.workload import specs_args
from assistant.strings import Writer
from assistant.toolset import ToolName
from assistant.understanding import ParsedQuery
from tools.catalog import catalog
from tools.gpu_search import GpuRow, GpuSpecsResult

INTENT = "ruled_out"


def _controlled(gpu_id: str | None) -> bool:
    spec = catalog().get(gpu_id or "")
    return spec is not None and spec.cn_availability == "export_controlled"


def _cards(parsed: ParsedQuery) -> list[str]:
    """The card ruled out, and in China the cards sold instead of it and of a controlled card asked about."""
    out = parsed.ruled_out_gpu
    if out not in catalog():
        return []
    cards = [out]
    if parsed.ruled_out_by == "market" and in_china(parsed) and _controlled(out):
        cards += china_variants(catalog()[out])
        if parsed.gpu and _controlled(parsed.gpu):
            cards += [parsed.gpu, *china_variants(catalog()[parsed.gpu])]
    return list(dict.fromkeys(cards))


class RuledOutCard(Capability):
    intent = INTENT
    cites_guides = False
    render_phase = 2  # after the computed parts about the card asked: a fact about the one left out

    def plan(self, ctx: PlanContext) -> None:
        cards = _cards(ctx.parsed)
        if ctx.calls and cards:  # something is answered this turn about the card asked
            ctx.add(self.intent, ToolName.GPU_SPECS, **specs_args(ctx.scenario, cards))

    def records(self, tool: ToolName) -> bool:
        return False  # the card ruled out is not the one the conversation is about

    def active(self, turn: Turn) -> bool:
        return any(_mine(turn, i) for i in range(len(turn.outcomes)))

    def render(self, w: Writer, turn: Turn) -> None:
        rows: dict[str, GpuRow] = {}
        for i, result in turn.results(GpuSpecsResult):
            rows |= {r.id: r for r in result.gpus if r.id not in rows}
            if _mine(turn, i):
                turn.shown.add(i)
        p = turn.parsed
        out = rows.get(p.ruled_out_gpu or "")
        if out is None:
            return
        if p.ruled_out_by == "price":
            w.say("ruled_out_price", name=out.name)
            return
        if p.ruled_out_by == "capacity":
            w.say("ruled_out_capacity", name=out.name, vram=out.vram_gib)
            return
        if not (in_china(p) and out.cn_availability == "export_controlled"):
            w.say("ruled_out_market", name=out.name)
            return
        sold = [
            _variant(w, r) for r in rows.values() if r.cn_availability == "china_market" and r.segment == out.segment
        ]
        if not sold:
            w.say("ruled_out_market", name=out.name)
            return
        w.say("ruled_out_cn", name=out.name, variants=_join(w, sold))
        asked = rows.get(p.gpu or "")
        if asked is not None and asked.id != out.id and asked.cn_availability == "export_controlled":
            same = [
                _variant(w, r)
                for r in rows.values()
                if r.cn_availability == "china_market" and r.segment == asked.segment
            ]
            if same:
                w.say("ruled_out_cn_asked_too", name=asked.name, variants=_join(w, same))

    def summary(self, tool: ToolName, result: BaseModel, lang: str) -> str:
        if not isinstance(result, GpuSpecsResult):
            return str(tool)
        return ", ".join(g.name for g in result.gpus)


def _mine(turn: Turn, i: int) -> bool:
    call = turn.outcomes[i].call
    return call.owner == INTENT or INTENT in call.shared_with


def _variant(w: Writer, row: GpuRow) -> str:
    return w.t("ruled_out_variant", name=row.name, vram=row.vram_gib)


def _join(w: Writer, items: list[str]) -> str:
    return ("、" if w.lang == "zh" else ", ").join(items)
