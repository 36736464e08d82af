"""Compare: named GPUs side by side, and the workload's memory and speed on each."""

from __future__ import annotations

from assistant.capabilities.base import Capability, PlanContext, Turn
from assistant.capabilities.specs import compare_rows
from assistant.capabilities.workload import speed_args, vram_args
from assistant.strings import Writer
from assistant.toolset import ToolName
from tools.gpu_search import GpuSpecsResult
from tools.sizing import fits_capacity
from tools.speed import SpeedResult
from tools.vram import VramResult


class Compare(Capability):
    intent = "compare"
    render_phase = 1
    guides_topic = "compare GPUs memory bandwidth tensor cores NVLink"

    def plan(self, ctx: PlanContext) -> None:
        prev, s = ctx.previous, ctx.scenario
        names = ctx.parsed.gpu_mentions or (prev.gpus if len(prev.gpus) > 1 else ([s.gpu] if s.gpu else []))
        if not names:
            ctx.need("need_gpu")
            return
        ctx.add(self.intent, ToolName.GPU_SPECS, names=names)
        if not ctx.has_model:
            return
        for gid in names:
            count = ctx.parsed.gpu_counts.get(gid) or 1
            on_card = s.model_copy(update={"gpu": gid, "num_gpus": count})
            ctx.add(self.intent, ToolName.ESTIMATE_VRAM, **vram_args(on_card, count, sized=False))
            ctx.add(self.intent, ToolName.ESTIMATE_SPEED, **speed_args(on_card))

    def render(self, w: Writer, turn: Turn) -> None:
        for i, spec in turn.results(GpuSpecsResult):
            if i in turn.shown or turn.outcomes[i].call.owner != self.intent:
                continue
            turn.shown.add(i)
            w.say("compare_head")
            w.add("\n".join(compare_rows(w, spec)))
            w.add("\n".join(f"- {d}" for d in spec.differences))
        self._workload_rows(w, turn)

    def _workload_rows(self, w: Writer, turn: Turn) -> None:
        vrams = turn.own(self.intent, VramResult)
        speeds = turn.own(self.intent, SpeedResult)
        usable = {g.name: g.usable_gib for _, spec in turn.results(GpuSpecsResult) for g in spec.gpus}
        rows = []
        for s in speeds:
            v = next((v for v in vrams if v.num_gpus == s.num_gpus), None)
            per_gpu = v.per_gpu_gib if v else s.memory_per_gpu_gib
            fits = fits_capacity(per_gpu, usable.get(s.gpu, s.gpu_memory_gib))
            if s.training_tokens_per_s is not None:
                speed = w.t("compare_train_speed", tps=s.training_tokens_per_s)
            else:
                speed = w.t("compare_decode_speed", tps=s.decode_tokens_per_s_total)
            fit = w.t("fits_word") if fits else w.t("not_fits_word")
            rows.append(w.t("config_row", n=s.num_gpus, gpu=s.gpu, per_gpu=per_gpu, fit=fit, speed=speed))
        if rows:
            mode = vrams[0].mode if vrams else "inference"
            w.add(f"**{speeds[0].model}** ({w.label('mode_label', mode)}):\n" + "\n".join(rows))
