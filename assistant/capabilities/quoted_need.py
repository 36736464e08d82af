"""QuotedNeed: a memory figure quoted for a training job, no model named, and the user's cards ("作者说训练只需要
43GB，我只有两块24G的4090，能微调么？", "the README says 40 GB of VRAM; I have two 3090s").

The expert sets the figure against one card and against all of them before anything else: within one card's usable
memory, one card holds it (more cards add speed, not room); within all of them, it runs only split across the cards
(DeepSpeed ZeRO-3 / FSDP, or device_map splitting the layers), since plain data parallel keeps a whole copy on every
card; over all of them, not as quoted. With a model named, training.py judges the figure against the computed one."""

from __future__ import annotations

from assistant.capabilities.base import Capability, Turn
from assistant.strings import Writer
from tools.catalog import resolve_gpu
from tools.errors import AdvisorError
from tools.sizing import engine_for, headroom_for, usable_of

_TRAINING = ("full", "lora", "qlora")


def _cards(turn: Turn) -> tuple[str | None, float, int] | None:
    """(the card's name, or None for a card named by its size; its memory in GiB; how many)."""
    s, p = turn.plan.scenario, turn.parsed
    n = s.num_gpus or 1
    if s.gpu:
        try:
            spec = resolve_gpu(s.gpu)[0]
        except AdvisorError:
            return None
        return (spec.name, spec.vram_gib, n) if spec.vendor != "apple" else None  # unified memory: not this rule
    return (None, p.stated_capacity_gib, n) if p.stated_capacity_gib else None


class QuotedNeed(Capability):
    intent = "quoted_need"
    cites_guides = False
    render_phase = -3  # the quoted figure against the user's cards leads, before any spec sheet or size list

    def active(self, turn: Turn) -> bool:
        p, s = turn.parsed, turn.plan.scenario
        training = s.mode in _TRAINING or p.fine_tune_unspecified
        if p.symptom not in (None, "oom") or "diagnose" in turn.plan.intents:
            return False  # "显存占用27G" in a slow-training report is a measurement, not the job's stated need
        if p.min_vram_gib and turn.owns_any("capacity"):
            return False  # capacity.py leads with the same figure against the cards (stated_need.py)
        return bool(p.quoted_memory_gib) and training and not (s.model or s.params_b) and _cards(turn) is not None

    def render(self, w: Writer, turn: Turn) -> None:
        found = _cards(turn)
        assert found is not None
        name, vram, n = found
        need = max(turn.parsed.quoted_memory_gib)
        usable = usable_of(vram, headroom_for(engine_for(None, turn.plan.scenario.mode or "lora")))
        card = name or w.t("quoted_need_card", vram=vram)
        fields = dict(need=need, vram=vram, n=n, card=card)  # the card's size, not a computed share: traceable
        if need <= usable:
            w.say("quoted_need_one" if n > 1 else "quoted_need_fits", **fields)
        elif need <= usable * n:
            w.say("quoted_need_split", **fields)
        else:
            w.say("quoted_need_short" if n > 1 else "quoted_need_short_one", **fields)
