"""Vision training: a ResNet / YOLO / DeepLab-class network trained on the user's card, or a card to buy for it
(understanding/vision_train.py). Such networks are tens of millions of parameters: their weights, gradients and
optimizer states are small, and the memory goes to the batch size times the image size. An expert answers whether the
card is enough (an 8 GB card or more is; below that, a smaller batch or image size), or names the card to buy (an
NVIDIA card of 12-24 GB: the step-up cards of advice.yaml), and that mIoU / mAP come from the data and the schedule,
not from the card. Every figure is the card's own memory from `gpu_specs`."""

from __future__ import annotations

from assistant.capabilities.base import Capability, PlanContext, Turn
from assistant.capabilities.named_cards import _catalog_cards
from assistant.capabilities.workload import specs_args
from assistant.strings import Writer
from assistant.toolset import ToolName
from tools.advice import step_up_cards
from tools.gpu_search import GpuSpecsResult

_ENOUGH_GIB = 8  # a card from 8 GB trains these networks at an ordinary batch; below it the batch shrinks


class VisionTrain(Capability):
    intent = "vision_train"
    owns = ()
    guides_topic = "training memory activations batch size"

    def plan(self, ctx: PlanContext) -> None:
        cards = _catalog_cards(ctx.parsed.gpu_mentions)[:3]
        ctx.add(self.intent, ToolName.GPU_SPECS, **specs_args(ctx.scenario, cards or step_up_cards()))

    def records(self, tool: ToolName) -> bool:
        return False  # the card facts of this answer set no model or workload

    def phase(self, turn: Turn) -> int:
        return -2  # the verdict on the card (or the card to buy) is the answer

    def render(self, w: Writer, turn: Turn) -> None:
        rows = [row for o in turn.own(self.intent, GpuSpecsResult) for row in o.gpus]
        if not rows:
            return
        owned = bool(_catalog_cards(turn.parsed.gpu_mentions))
        if owned:
            row = rows[0]
            key = "vision_enough" if row.vram_gib >= _ENOUGH_GIB else "vision_tight"
            w.say(key, gpu=row.name, vram=row.vram_gib)
        else:
            w.say(
                "vision_buy",
                small=rows[0].name,
                small_vram=rows[0].vram_gib,
                big=rows[-1].name,
                big_vram=rows[-1].vram_gib,
            )
            w.say("vision_around_the_clock")
        w.say("vision_memory")
