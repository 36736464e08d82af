"""Follow-ups that keep the question's workload but change what is asked of it.

"我用vLLM部署，买什么卡跑Qwen2.5-14B" -> "那3090能跑吗？": the card named after a purchase recommendation is checked
for the workload the recommendation was for (its model, method, format, context, users and engine, all carried by
the scenario), not recommended afresh and not asked what it runs in general. "如果换成 4090 呢" (what about that card)
asks the purchase again of that card instead: recommend.py constrains the pick to it and prices it against the budget.
"""

from __future__ import annotations

from assistant.scenario import Scenario
from assistant.understanding import ParsedQuery

# What a turn that names only a card answers after a recommendation: a new pick (the carried intent) or the card's
# largest model ("3090能跑吗" with no model in the message) are both the wrong question once a model was sized.
_REPLACED = ("recommend", "capacity")


def card_after_purchase(parsed: ParsedQuery, previous: Scenario, intents: list[str]) -> list[str]:
    """ "那3090能跑吗？", "would a 4080 work?", "4060Ti 16G 可以吗" after a card was recommended for a model: that
    model's job on the card named (fit), in place of another recommendation or the card's biggest model. A new
    model, a budget or "the biggest model" in the message asks something else and keeps its own intents."""
    bought = "recommend" in previous.last_intents and (previous.model or previous.params_b is not None)
    new_model = parsed.model or parsed.params_b is not None or parsed.model_family or parsed.unknown_model
    asks_other = parsed.capacity_asked or parsed.budget is not None or parsed.monthly_budget is not None
    # "如果换成 4090 呢", "what about a used 3090?": the purchase asked again of that card (recommend.py prices it
    # against the budget); a yes-or-no about the card ("能跑吗", "would a 4080 work?") is the fit asked here
    if not bought or new_model or asks_other or not parsed.gpu_mentions or parsed.is_followup:
        return intents
    carried = intents == list(previous.last_intents) or intents == ["capacity"]
    if not carried:
        return intents
    return list(dict.fromkeys("fit" if i in _REPLACED else i for i in intents))


# A width named on its own ("4-bit", "8bit", "INT4") after an answer already sized in a format of that width
# ("Q4_K_M", "AWQ", "Q8_0"): the format that answer used, so "那用4-bit呢？" does not switch engines and contradict it.
_WIDTHS = {"int4": 4, "int8": 8}


def width_already_sized(parsed: ParsedQuery, previous: Scenario) -> str | None:
    """The previous turn's format when this turn names only its bit width; None otherwise."""
    from tools.precision import resolve_precision

    width = _WIDTHS.get(parsed.precision or "")
    if width is None or not previous.precision or previous.mode not in (None, "inference"):
        return None
    if parsed.model and parsed.model != previous.model:
        return None
    try:
        bits = resolve_precision(previous.precision).bits
    except Exception:  # an unknown format name: nothing to keep
        return None
    return previous.precision if width <= bits < width + 1 else None


def models_in_play(parsed: ParsedQuery, previous: Scenario, s: Scenario) -> None:
    """ "Qwen2.5-7B 和 14B 微调要多少显存" -> "那我的 3060 能跑吗", "Llama-3.1-8B and 70B?" -> "and on one 4090?": a
    follow-up that names no model asks about every model the answer before sized, each on the card it names (the
    parts planned for the models a message names, planner/plan.py other_parts), not only the last one sized."""
    named = parsed.model or parsed.params_b is not None or parsed.models_mentioned or parsed.sizes_mentioned
    if (
        named
        or parsed.symptom  # "but I get CUDA out of memory": a report on the one run in progress, not every model
        or parsed.model_family
        or parsed.unknown_model
        or len(previous.models) < 2
        or s.model not in previous.models
    ):
        return
    parsed.models_mentioned = [s.model, *(m for m in previous.models if m != s.model)]


def start_from_pick(parsed: ParsedQuery, s: Scenario) -> None:
    """ "换成两张 4090 呢", "what about at 8-bit", "多快？" after "预算 1.5 万微调 14B" picked QLoRA on a used 3090: the
    follow-up starts from the pick (its method, format, card and count), not from the LoRA the user first asked,
    and changes only what it names (merge applies the message after this). A new model is a new job, and new
    purchase terms (a budget, renting, who buys, users, what matters most) ask the choice again from the job asked."""
    pick = s.pick
    new_job = parsed.model or parsed.params_b is not None or parsed.model_family or parsed.unknown_model
    terms = (parsed.budget, parsed.monthly_budget, parsed.persona, parsed.deployment, parsed.buy_or_rent)
    new_terms = any(v is not None for v in terms) or parsed.users or parsed.preference or parsed.used_market
    if pick is None or new_job or new_terms:
        return
    # A full fine-tune the answer could only afford as LoRA is still the job asked: "换成 8 张 H100 呢" sizes it
    # full on the new cards. An adapter method it swapped for another (LoRA for QLoRA) is the way the pick runs.
    if not (s.mode == "full" and pick.mode != "full"):
        s.mode, s.precision = pick.mode or s.mode, pick.precision or s.precision
    s.gpu, s.num_gpus, s.count_sized = pick.gpu, pick.count, True  # a count the answer worked out: re-counted
