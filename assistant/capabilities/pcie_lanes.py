"""PcieLanes: "does it depend on PCIe bandwidth?", "will the V100 work in a 2-lane slot, or through 1 lane?", "x16 + x4
or x8/x8 for two 4090s?" (understanding/pcie.py reads the question).

The expert's first sentence answers it, whatever else is computed after: a card works in a narrow link, and for
inference on one card the lanes mostly cost load time, since once the weights are in its memory each token moves
only kilobytes over PCIe. Across several cards a layer split (llama.cpp, ExLlama, pipeline parallel) passes one small
activation per token, so x8/x8 or even x4 costs next to nothing; tensor parallel exchanges data at every layer and
training exchanges gradients every step, where narrow links and x1 risers do cost speed. The one case where the link
decides tokens/s on any count of cards is a model that does not fit: what sits in system RAM crosses PCIe every
token, and a 4-bit format that puts the whole model on the GPU is the fix."""

from __future__ import annotations

from assistant.capabilities.base import Capability, Turn
from assistant.strings import Writer

_TRAINING = ("full", "lora", "qlora")


class PcieLanes(Capability):
    intent = "pcie_lanes"
    cites_guides = False
    render_phase = -3  # the answer to "does the link matter?" comes before any sizing, spec or build list

    def active(self, turn: Turn) -> bool:
        return bool(turn.parsed.asks_pcie)

    def render(self, w: Writer, turn: Turn) -> None:
        p, s = turn.parsed, turn.plan.scenario
        cards = max(s.num_gpus or 1, p.num_gpus or 1, len(p.gpu_mentions) if p.gpu_counts else 1)
        training = s.mode in _TRAINING or p.mode in _TRAINING
        if cards >= 2 or training:
            w.say("pcie_lead_many_training" if training else "pcie_lead_many")
        else:
            w.say("pcie_lead_one")
        w.say("pcie_offload")
