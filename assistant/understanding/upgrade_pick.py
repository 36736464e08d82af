"""The card to buy as the step up from a small card the user owns, no model and no budget named ("I have a laptop
with an RTX 3070 8GB, can you suggest an external GPU for the best performance/price?", "我笔记本是3070 8G，
想买个外接显卡，哪个性价比最高？", "I have a 2060 6GB, which GPU should I upgrade to?"). An expert names the step-up
cards first (a 12 GB card, a used 24 GB card: what each opens), then what the owned card runs; "性价比" /
"price/performance" ranks the cards and is no bill of ownership for the card already owned, nor does the missing
purpose need asking first.

The step up answers (capabilities/step_up.py, leading when a purchase is asked: `buy_or_rent` "buy"); an external GPU
named ("eGPU", "外接显卡", "Thunderbolt") adds what the link costs (note `external_gpu`)."""

from __future__ import annotations

import re

from assistant.understanding.text import _State
from tools.advice import step_up_cards
from tools.catalog import catalog, resolve_gpu
from tools.errors import AdvisorError
from tools.notes import note

# a card in its own enclosure beside a laptop: the link, not the card, is what differs from a desktop slot
_EXTERNAL = re.compile(
    r"\b(?:external\s+(?:gpu|graphics|card)s?|e-?gpus?|thunderbolt|oculink|usb4)\b|外接显卡|显卡坞|扩展坞|雷电", re.I
)


def _small_owned_card(gpu: str | None) -> bool:
    """Below the smallest step-up card's memory (12 GB): a 12 GB card's owner already has that step."""
    cards = catalog()
    spec = cards.get(gpu or "")
    if spec is None and gpu:
        try:
            spec = resolve_gpu(gpu)[0]  # "GeForce GTX 1660 Super 6G": a card named with its memory
        except AdvisorError:
            return False
    if spec is None or spec.segment == "apple":
        return False
    return spec.vram_gib < min(cards[c].vram_gib for c in step_up_cards())


# "12个G显存都不够", "my 8GB card is not enough", "8G 显存不够用": the size the user has, said to fall short
_SHORT = re.compile(
    r"(?<![0-9.])(?P<v>\d{1,2})\s*个?\s*(?:gb|g)\s*(?:的)?\s*(?:显存|vram|gpu memory|card|gpu|显卡|卡)?\s*"
    r"(?:is |are )?(?:都|也|还|完全)?\s*(?:不够|不足|not enough|isn't enough|is not enough|too small)",
    re.I,
)


def _short_size(st: _State) -> None:
    """No card named, a size said to fall short and a card asked for ("12个G显存都不够，我该用什么显卡去部署"): the
    step up from a card of that size, bought."""
    q = st.q
    m = _SHORT.search(st.t.text)
    if m is None or q.gpu_mentions or "recommend" not in q.intents:
        return
    size = float(m.group("v"))
    if size >= max(catalog()[c].vram_gib for c in step_up_cards()):
        return  # no step-up card is bigger than what the user has
    q.stated_capacity_gib = q.stated_capacity_gib or size
    q.intents, q.buy_or_rent = ["capacity"], "buy"


def _upgrade_pick(st: _State) -> None:
    q = st.q
    if q.model or q.params_b or q.unknown_model or q.model_family or q.is_followup:
        return  # a job named has its own verdict
    if q.budget or q.monthly_budget or q.buy_or_rent in ("rent", "compare"):
        return
    if not q.gpu_mentions:
        _short_size(st)
        return
    if q.budget or q.monthly_budget or q.buy_or_rent in ("rent", "compare") or len(q.gpu_mentions) != 1:
        return  # a budget is recommend's to spend; several cards named are weighed against each other
    if not q.owns_hardware or not _small_owned_card(q.gpu):
        return
    intents = set(q.intents)
    ranked = q.preference == "balanced" and (q.buy_or_rent == "buy" or bool(_EXTERNAL.search(st.t.text)))
    if "recommend" not in intents and not ranked:
        return
    q.intents = ["capacity"]  # what the owned card runs, with the step up (capabilities/step_up.py) leading
    q.buy_or_rent = "buy"
    if (q.num_gpus or 1) != 1:
        q.num_gpus = 1
    if _EXTERNAL.search(st.t.text):
        q.notes.append(note("external_gpu"))
