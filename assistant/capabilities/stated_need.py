"""A memory need the user quotes, set against their cards (advice.md §9: the verdict first): "the README says it
needs 40GB of VRAM, will it run on my 4090?" is answered "No: 40 GB against the card's 24 GB", then the way out (the
rest offloaded to RAM, slowly, or a 4-bit build at about a third of a 16-bit figure), before the sizes the cards hold.

The figure is the user's (a vendor's "GB" is the card's GiB, as the spec sheets write it); the cards' memory is
their nominal size, which is what such requirements are written against ("at least 24 GB" means a 24 GB card).
"""

from __future__ import annotations

from assistant.strings import Writer
from tools.capacity import CapacityResult

# A need above this share of a card's memory leaves no room for the KV cache and the CUDA context on one card
_HEADROOM = 0.9


def stated_need_lead(
    w: Writer, r: CapacityResult, need: float | None, ram: float | None, offload_asked: bool = False
) -> bool:
    """The quoted need against the cards' memory, as the answer's lead (False: nothing to compare). A 4-bit build:
    Q4_K_M stores ~4.8 bits a weight against 16, about a third of a 16-bit figure."""
    if not need or r.cpu_ram_gib is not None:
        return False
    have = r.total_gib or r.num_gpus * r.capacity_gib
    one = r.num_gpus == 1
    key = (
        ("need_cards_one" if one else "need_cards_many")
        if r.gpu
        else ("need_cards_size" if one else "need_cards_sizes")
    )
    cards = w.t(key, gpu=r.gpu or "", n=r.num_gpus)
    if need <= r.capacity_gib and r.num_gpus > 1:
        # "单卡快还是多卡快", "split it or keep it on one?": one card runs it (two when the need is the card's size)
        key = "need_lead_tight" if need > r.capacity_gib * _HEADROOM else "need_lead_one_card"
        w.say(key, need=need, have=r.capacity_gib, n=r.num_gpus)
    elif need <= r.capacity_gib:
        w.say("need_lead_yes", need=need, cards=cards, have=r.capacity_gib)
    elif need <= have:
        w.say("need_lead_split", need=need, cards=cards, have=have, one=r.capacity_gib)
    else:
        short = need - have
        room = w.t("need_ram_room", ram=ram) if ram and ram >= short + 8 else ""
        # "is there a way to offload some layers to make it work?": yes, that way, is the answer asked for
        key = "need_lead_offload" if offload_asked else "need_lead_no"
        w.say(key, need=need, cards=cards, have=have, short=short, room=room, q4=need / 3)
    return True
