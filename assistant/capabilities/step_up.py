"""Step up: the card to buy next, said after what a small card the user owns runs ("RX 580 8GB: useless for AI?",
"我这张 2060 6G 还有用吗"). An expert answers what the card runs, then names the upgrade with the sizes it opens:
a used 12 GB card, a used 24 GB card (advice.yaml step_up_cards), each sized by `largest_model` like theirs.

Only for one card (owned or weighed) below the smallest step-up card's memory (12 GB), asked what it runs with no model
named: a model named has its own verdict, a purchase weighed against others its own recommendation.
"""

from __future__ import annotations

from assistant.capabilities.base import Capability, PlanContext, Turn
from assistant.strings import Writer
from assistant.toolset import ToolName
from tools.advice import step_up_cards
from tools.capacity import CapacityResult
from tools.catalog import GpuSpec, catalog, resolve_gpu
from tools.errors import AdvisorError
from tools.notes import Note

_PRECISION = "q4_k_m"  # the format such a card's owner runs (llama.cpp / Ollama GGUF), the sizes an upgrade opens


def _owned(name: str) -> GpuSpec | None:
    try:
        return resolve_gpu(name)[0]
    except AdvisorError:
        return None


class StepUp(Capability):
    intent = "step_up"
    cites_guides = False
    render_phase = 2  # after what the owned card runs

    def plan(self, ctx: PlanContext) -> None:
        s, p = ctx.scenario, ctx.parsed
        if "capacity" in ctx.intents and not s.gpu and not ctx.has_model and p.buy_or_rent == "buy":
            self._from_size(ctx, p.stated_capacity_gib)  # "12个G显存都不够，该用什么显卡": no card named, its size
            return
        if "capacity" not in ctx.intents or not s.gpu or ctx.has_model:
            return
        if (s.num_gpus or 1) != 1 or (s.mode or "inference") != "inference" or p.fine_tune_unspecified:
            return
        if set(ctx.intents) & {"recommend", "compare", "build", "rent_where", "cost"}:
            return  # a purchase or rental weighed already
        own = _owned(s.gpu)
        cards = step_up_cards()
        # below the smallest step up ("RX 580 8GB", "2060 6G"): a 12 GB card's owner already has that step
        if own is None or own.segment == "apple" or own.vram_gib >= min(catalog()[c].vram_gib for c in cards):
            return
        for card in cards:
            args = {"gpu": card, "num_gpus": 1, "mode": "inference", "precision": _PRECISION}
            ctx.add(self.intent, ToolName.LARGEST_MODEL, **args)

    def _from_size(self, ctx: PlanContext, size: float | None) -> None:
        """The step-up cards bigger than the size the user says falls short (understanding/upgrade_pick.py)."""
        if not size:
            return
        for card in [c for c in step_up_cards() if catalog()[c].vram_gib > size]:
            args = {"gpu": card, "num_gpus": 1, "mode": "inference", "precision": _PRECISION}
            ctx.add(self.intent, ToolName.LARGEST_MODEL, **args)

    def records(self, tool: ToolName) -> bool:
        return False  # a card the user did not name: an example, not the scenario

    def phase(self, turn: Turn) -> int:
        """A card to buy asked beside the small one owned ("suggest a GPU for the best price/performance",
        understanding/upgrade_pick.py): the step up is the answer and leads; otherwise after what the card runs."""
        return -2 if turn.parsed.buy_or_rent == "buy" else self.render_phase

    def render(self, w: Writer, turn: Turn) -> None:
        items = []
        for r in turn.own(self.intent, CapacityResult):
            way = next((x for x in r.ways if x.mode == "inference" and x.max_params_b and x.examples), None)
            spec = catalog().get(r.gpu_id or "")
            if way is None or spec is None:
                continue
            key = "step_up_item_used" if spec.discontinued else "step_up_item"
            top = way.examples[0]
            items.append(w.t(key, gpu=r.gpu, gib=round(r.capacity_gib), b=way.max_params_b, model=top.model))
        if not items:
            return
        buying = turn.parsed.buy_or_rent == "buy"
        w.say("step_up_buy" if buying else "step_up", cards=w.t("step_up_or").join(items))
        external = [n for n in turn.parsed.notes if isinstance(n, Note) and n.code == "external_gpu"]
        if buying and external:
            w.add(external[0].render(w.lang))  # "an external GPU for my laptop": what the enclosure's link costs
