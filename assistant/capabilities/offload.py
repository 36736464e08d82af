"""Offload: a model bigger than the GPU memory, run partly from system RAM (or on the CPU alone).

Asked directly ("64G 内存 + 一张 4060Ti 能跑 Mixtral 吗", "CPU only, how fast?") or as one of the ways a job that
does not fit the user's own GPUs can still run (assistant/capabilities/cheaper.py): where the weights live, the
RAM it needs against the RAM the user has, and tokens/s from RAM bandwidth (tools/offload.py).
"""

from __future__ import annotations

from typing import ClassVar

from pydantic import BaseModel

from assistant.capabilities.base import Capability, PlanContext, Turn
from assistant.capabilities.workload import offload_args
from assistant.strings import Writer
from assistant.toolset import ToolName
from tools.advice import min_chat_speed
from tools.notes import render_all
from tools.offload import OffloadResult


def offload_lines(w: Writer, r: OffloadResult, lead_key: str = "offload_line") -> None:
    """Where the model lives and how fast it decodes, verdict first; the RAM it needs against what there is."""
    where = w.t("offload_on_gpus", n=r.num_gpus, gpu=r.gpu) if r.gpu else w.t("offload_cpu_only")
    if r.mixed_gpus:  # different cards: each named ("3080 10GB + 2080 Ti 22GB")
        where = w.t("offload_on_mixed", cards=(" + " if w.lang == "en" else "、").join(r.mixed_gpus))
    ram = w.t("offload_ram", memory=r.ram.memory.upper(), channels=r.ram.channels, gbs=r.ram.effective_gbs)
    faster = w.t("offload_if_all_on_gpu", tps=r.gpu_only_tokens_per_s) if r.gpu_only_tokens_per_s else ""
    if lead_key == "offload_line" and r.decode_tokens_per_s >= min_chat_speed():
        lead_key = "offload_line_usable"  # 40 tokens/s from RAM is no "slowly"
    if lead_key == "offload_way" and r.strategy == "cpu":
        lead_key = "offload_cpu_way"
    w.say(
        "offload_gpu_only" if r.strategy == "gpu_only" else lead_key,
        model=r.model,
        precision=r.precision.upper(),  # Q4_K_M, MXFP4: a format as engineers write it
        where=where,
        n=r.num_gpus,
        gpu=r.gpu,
        layout=w.label("offload_layout", r.strategy),
        on_gpu=r.on_gpu_gib,
        in_ram=r.in_ram_gib,
        layers=r.layers_on_gpu,
        total=r.layers_total,
        ram=ram,
        tps=r.decode_tokens_per_s,
        faster=faster,
    )
    if r.strategy != "gpu_only":
        if r.fits_in_ram is False:
            w.say("offload_ram_short_line", need=r.ram_needed_gib, have=r.ram_gib or 0)
        elif r.ram_gib:
            w.say("offload_ram_ok_line", need=r.ram_needed_gib, have=r.ram_gib)
        else:
            w.say("offload_ram_need_line", need=r.ram_needed_gib)
    w.bullets("warnings_head", render_all([x for x in r.warnings if x.code != "offload_ram_short"], w.lang))


class Offload(Capability):
    intent = "offload"
    owns = (ToolName.ESTIMATE_OFFLOAD,)
    scenario_fields: ClassVar[dict[ToolName, dict[str, str]]] = {
        ToolName.ESTIMATE_OFFLOAD: {
            "model": "model",
            "params_b": "params_b",
            "gpu": "gpu",
            "num_gpus": "num_gpus",
            "context_tokens": "context_tokens",
            "ram_gib": "ram_gib",
            "memory": "ram_type",
            "machine": "machine",
        }
    }
    needs_model = True
    guides_topic = "CPU offload system RAM memory bandwidth llama.cpp layers experts"

    def plan(self, ctx: PlanContext) -> None:
        ctx.add(self.intent, ToolName.ESTIMATE_OFFLOAD, **offload_args(ctx.scenario))

    def render(self, w: Writer, turn: Turn) -> None:
        for i, r in turn.own_indexed(self.intent, OffloadResult):
            turn.shown.add(i)  # said once: a fit or memory lead does not repeat it
            offload_lines(w, r)

    def summary(self, tool: ToolName, result: BaseModel, lang: str) -> str:
        if not isinstance(result, OffloadResult):
            return str(tool)
        return f"{result.decode_tokens_per_s} tokens/s, {result.in_ram_gib} GiB in RAM ({result.strategy})"
