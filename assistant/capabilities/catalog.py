"""Catalog: GPUs that match filters (memory, price, NVLink, ECC, FP8, MIG), ranked."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from assistant.capabilities.base import Capability, PlanContext, Turn
from assistant.capabilities.specs import price_text
from assistant.strings import Writer
from assistant.toolset import ToolName
from tools.gpu_search import FindGpusResult


def catalog_filters(ctx: PlanContext) -> dict[str, Any]:
    """find_gpus filters from what the parser read (requirements said as "not needed" are left out)."""
    parsed, s = ctx.parsed, ctx.scenario
    args: dict[str, Any] = {"currency": s.currency or "USD", "limit": 8}
    if parsed.min_vram_gib and parsed.vendor == "apple" and not parsed.gpu_mentions:
        # "a mac mini or similar with >= 192 GB RAM": the Macs sold with that much unified memory
        args.update(vendor="apple", min_total_gib=parsed.min_vram_gib, sort_by="price")
    elif parsed.min_vram_gib:
        args["min_vram_gib"] = parsed.min_vram_gib
    if s.budget:
        args["max_price"] = s.budget
    for flag, arg in (
        ("require_nvlink", "need_nvlink"),
        ("require_ecc", "need_ecc"),
        ("require_fp8", "need_fp8"),
        ("require_mig", "need_mig"),
    ):
        if getattr(parsed, flag, None):
            args[arg] = True
    return args


def _num(value: float | None) -> str:
    return "-" if value is None else f"{value:g}"


class Catalog(Capability):
    intent = "catalog"
    owns = (ToolName.FIND_GPUS,)

    def plan(self, ctx: PlanContext) -> None:
        filters = catalog_filters(ctx)
        if ctx.parsed.advice and not set(filters) - {"currency", "limit"}:
            return  # "云上租 GPU 有哪些省钱的办法": a how-to question, not a listing; the guides answer it
        ctx.add(self.intent, ToolName.FIND_GPUS, **filters)

    def render(self, w: Writer, turn: Turn) -> None:
        for r in turn.own(self.intent, FindGpusResult):
            w.say("catalog_head", matched=r.matched)
            w.add(
                "\n".join(
                    w.t(
                        "catalog_row",
                        name=g.name,
                        vram=g.usable_gib,
                        bw=g.bandwidth_gbs,
                        bf16=_num(g.bf16_tflops),
                        price=price_text(w, g),
                    )
                    for g in r.gpus
                )
            )

    def summary(self, tool: ToolName, result: BaseModel, lang: str) -> str:
        if not isinstance(result, FindGpusResult):
            return str(tool)
        return ", ".join(g.name for g in result.gpus[:4])
