"""PerCard: "is the limit each card's memory or all the cards' together?" for a training job on several cards
("四卡3090仍然OOM，是单卡显存的限制还是总体显存的限制", "is the VRAM limit per GPU or total?").

The expert's first sentence answers the question asked, whatever the model: each card's. Plain data parallel (DDP,
the default of most training scripts) keeps a whole copy of the model and its own batch's activations on every card,
so the cards' memory does not add up; only sharding (DeepSpeed ZeRO-3 / FSDP) or splitting the layers (device_map)
pools it. The sizes that follow (memory.py / capacity.py) then say what one card and all of them hold. Inference is
not this kind: tensor parallel and llama.cpp's layer split do pool the memory of the cards serving one model."""

from __future__ import annotations

from assistant.capabilities.base import Capability, Turn
from assistant.capabilities.pooled import pooled_lead_said
from assistant.strings import Writer
from tools.catalog import resolve_gpu
from tools.errors import AdvisorError

_TRAINING = ("full", "lora", "qlora")


class PerCard(Capability):
    intent = "per_card"
    cites_guides = False
    render_phase = -3  # the answer to "each card or the total?" comes before any verdict on the cards

    def active(self, turn: Turn) -> bool:
        p, s = turn.parsed, turn.plan.scenario
        training = s.mode in _TRAINING or (p.fine_tune_unspecified and s.mode in (None, *_TRAINING))
        # cards named by their memory: pooled.py's lead already says whether their memory adds up, with the numbers
        return p.asks_per_card and (s.num_gpus or 1) >= 2 and training and not pooled_lead_said(turn)

    def render(self, w: Writer, turn: Turn) -> None:
        s = turn.plan.scenario
        n = s.num_gpus or 2
        try:
            name = resolve_gpu(s.gpu)[0].name if s.gpu else None
        except AdvisorError:
            name = None
        cards = w.t("per_card_cards_named", n=n, gpu=name) if name else w.t("per_card_cards", n=n)
        w.say("per_card_lead", cards=cards)
