"""Every card the user names is placed in the answer: one that the parts answered skip (an A2 weighed beside the
V100 asked about, an L40 a benchmark also ran on, a 2080 Ti owned besides the A4000s asked about) gets one line
with its memory and bandwidth, so the reader sees it was read and where it stands.

One home for the whole answer: planned beside every question type (a companion in planner/plan.py) and written
last before the sources, once every other part has said what it says.
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel

from assistant.capabilities.base import Capability, PlanContext, Turn
from assistant.capabilities.workload import specs_args
from assistant.strings import Writer
from assistant.toolset import ToolName
from tools.gpu_search import GpuRow, GpuSpecsResult

INTENT = "named_cards"
MAX_PLACED = 4  # a message listing a whole shop's cards is a catalog question, answered by its own part
_BRANDS = ("NVIDIA ", "GeForce ", "AMD ", "Radeon ", "Instinct ", "Intel ", "Apple ", "Tesla ")


def _key(text: str) -> str:
    """A name as a comparison key: "RTX 2080 Ti", "rtx-2080-ti" and "2080Ti" compare alike."""
    return re.sub(r"[\s\-_]+", "", text.lower())


def _spellings(gpu_id: str) -> list[str]:
    """How an answer may name a catalog card: its name, the name without the brand words, its aliases."""
    from tools.catalog import catalog

    spec = catalog().get(gpu_id)
    if spec is None:
        return [gpu_id]
    short = spec.name
    for brand in _BRANDS:
        short = short.replace(brand, "")
    return [spec.name, short, spec.id, *spec.aliases]


def named_in(text: str, gpu_id: str) -> bool:
    have = _key(text)
    return any(_key(s) and _key(s) in have for s in _spellings(gpu_id))


def cards_not_named(text: str, gpu_ids: list[str]) -> list[str]:
    """The catalog names of the cards in `gpu_ids` that `text` never names ("RTX 4060" asked back about its use)."""
    from tools.catalog import catalog

    return [catalog()[g].name for g in _catalog_cards(gpu_ids) if not named_in(text, g)][:MAX_PLACED]


def _in_args(value: Any, gpu_id: str) -> bool:
    """Whether a planned call's arguments already carry the card (its answer part will name it)."""
    if isinstance(value, str):
        return value == gpu_id
    if isinstance(value, dict):
        return any(_in_args(v, gpu_id) for v in value.values())
    if isinstance(value, list | tuple):
        return any(_in_args(v, gpu_id) for v in value)
    return False


def _catalog_cards(ids: list[str]) -> list[str]:
    from tools.catalog import catalog

    known = catalog()
    return [g for g in dict.fromkeys(ids) if g in known]


class NamedCards(Capability):
    intent = INTENT
    cites_guides = False
    render_phase = 3  # after every computed part and the card facts, before the sources

    def plan(self, ctx: PlanContext) -> None:
        if not ctx.calls:
            return  # nothing is answered this turn (a question back to the user)
        cards = _catalog_cards([*ctx.parsed.gpu_mentions, *filter(None, [ctx.parsed.replaced_gpu])])
        skipped = [g for g in cards if not any(_in_args(c.args, g) for c in ctx.calls)]
        if skipped and len(cards) <= MAX_PLACED * 2:
            ctx.add(self.intent, ToolName.GPU_SPECS, **specs_args(ctx.scenario, skipped[:MAX_PLACED]))

    def records(self, tool: ToolName) -> bool:
        return False  # a card placed in passing is not the one the conversation is about

    def active(self, turn: Turn) -> bool:
        return bool(turn.parsed.gpu_mentions or turn.parsed.replaced_gpu) and bool(turn.outcomes)

    def render(self, w: Writer, turn: Turn) -> None:
        text = w.text()
        rows: dict[str, GpuRow] = {}
        for _, result in turn.results(GpuSpecsResult):
            for row in result.gpus:
                rows.setdefault(row.id, row)
        placed = 0
        for gpu_id in _catalog_cards([*turn.parsed.gpu_mentions, *filter(None, [turn.parsed.replaced_gpu])]):
            row = rows.get(gpu_id)
            if row is None or named_in(text, gpu_id) or placed >= MAX_PLACED:
                continue
            w.add(_line(w, row))
            placed += 1
        for i, o in enumerate(turn.outcomes):
            if o.call.owner == self.intent:
                turn.shown.add(i)

    def summary(self, tool: ToolName, result: BaseModel, lang: str) -> str:
        if not isinstance(result, GpuSpecsResult):
            return str(tool)
        return ", ".join(g.name for g in result.gpus[:MAX_PLACED])


def _line(w: Writer, row: GpuRow) -> str:
    """ "You also named the NVIDIA L40: 48 GB GDDR6, 864 GB/s (what sets single-user generation speed)." """
    target = ""
    if row.compute_capability:
        key = "named_card_cc" if row.vendor == "nvidia" else "named_card_target"
        target = w.t(key, cc=row.compute_capability)
    return w.t(
        "named_card",
        gpu=row.name,
        vram=row.vram_gib,
        memory=row.memory_type,
        gbs=row.bandwidth_gbs,
        target=target,
    )
