"""Cards an expert warns about before answering anything else: old generations (Kepler to Pascal; Volta and
Turing when the job needs BF16 or FlashAttention-2), memory-modified cards, several GPUs on one board.

"I just bought 10 P40s", "M40 or M60 for Ollama?", "P40 报错不支持半精度", "v100 能微调吗（flash attn）",
"RTX 3080 20G（魔改版）用到 12G 就崩": the `risk` intent leads, and the other question types follow it.
Which cards qualify is tools.card_risk's rule, over the catalog and knowledge/data/card_risks.yaml.
"""

from __future__ import annotations

import re
from functools import cache

from assistant.understanding.lexicon import _lex
from assistant.understanding.machine import _patterns as _machine_patterns
from assistant.understanding.patterns import _rx
from assistant.understanding.query import ParsedQuery
from assistant.understanding.ranked import stated_inversion
from assistant.understanding.text import _State
from assistant.understanding.worth_it import weighs_worth

_ARCH_SUBJECTS = ("bf16", "flash_attention_2", "flash_attention_3")
_LEADS = -5  # before every keyword-placed intent: the card's trap is said first
_SIZING = ("fit", "memory", "speed", "compare", "capacity")
# Question types a card's trap replaces: its spec sheet (the assessment states the facts that matter), a TCO for
# "a few at a super cheap price", and a diagnosis of a crash a modified card explains.
_REPLACED = ("gpu_info", "cost")


def risk_job(q: ParsedQuery) -> str:
    """What the user wants of the card: training, buying it, or running models on it."""
    if q.mode in ("full", "lora", "qlora") or q.fine_tune_unspecified or q.pretrain:
        return "training"
    if (q.buy_or_rent == "buy" or q.used_market or weighs_worth(q.text)) and not q.owns_hardware:
        return "buy"  # "a used P40 worth it?", "before buying a few M10s", "4张 2080ti 22G 组 88G 划算吗"
    return "inference"


def architecture_asked(q: ParsedQuery) -> bool:
    """BF16 / FlashAttention named, or an architecture family quoted ("文档里写要 Ampere 或者 Hopper")."""
    if any(s in _ARCH_SUBJECTS for s in q.support_subjects) or any(t.startswith("family-") for t in q.support_targets):
        return True
    if q.asks_card_support:
        return True  # "Are V100s supported?": the support that ends at Volta/Turing is BF16 and FlashAttention-2
    return bool(_architecture_words().search(q.text))


def names_missing_feature(q: ParsedQuery) -> bool:
    """BF16 or FlashAttention named as what the card lacks ("v100不支持bfloat16，如何修改代码"): how to run without it
    is the question, before any sizing."""
    return any(s in _ARCH_SUBJECTS for s in q.support_subjects) or any(c.topic == "bf16" for c in q.claims)


@cache
def _architecture_words() -> re.Pattern[str]:
    return _rx(_lex().raw["risk"]["architecture_words"])


def stated_vram(q: ParsedQuery, gpu: str) -> float | None:
    """Memory the user says a modified card has ("RTX 3080 20G（魔改版）"): only with a word that says it is modified;
    a size alone is a claim to check ("the 4090 has 48GB, right?") or another memory ("64G DDR4")."""
    if not _modded_words().search(q.text):
        return None
    return next((float(c.asserted) for c in q.claims if c.topic == "vram" and c.gpu == gpu), None)  # type: ignore[arg-type]


@cache
def _modded_words() -> re.Pattern[str]:
    return _rx(_lex().raw["risk"]["modded_words"])


def risky_gpus(q: ParsedQuery) -> list[str]:
    """The cards named that an expert would warn about for this job."""
    from tools.card_risk import risky

    job = risk_job(q)
    arch = architecture_asked(q)
    return [g for g in q.gpu_mentions if risky(g, job, arch, stated_vram(q, g))]  # type: ignore[arg-type]


def _leads(q: ParsedQuery, out: dict[str, int], pos: dict[str, int], run: bool) -> bool:
    """The card's trap leads, except after a direct support question about running on a card nobody is buying
    ("vLLM 能在 P40 上跑吗", "V100 能用 FlashAttention-2 吗": the engine's verdict answers it; the trap follows), or
    after a choice between cards of which only some are traps ("P40 vs 3060": the comparison's pick answers it;
    "M40 or M60?": both are traps, so the trap is the answer)."""
    if "diagnose" in out and run:
        return False  # a problem measured on the user's own run: the diagnosis leads, the card's trap follows
    if "support" in out and risk_job(q) == "inference":
        return False
    if q.gpus_together and set(out) & set(_SIZING) and len(risky_gpus(q)) < len(q.gpu_mentions):
        return False  # one machine's cards, only some of them traps ("a 3060 12GB and a 1080 8GB"): what they run leads
    chosen = "compare" in out and ("compare_strong" in pos or "compare_choice" in pos or bool(q.gpus_alternative))
    if chosen and len(risky_gpus(q)) < len(q.gpu_mentions):
        return False
    # a memory mod the catalog lists ("modded 4090 48GB: will it run 70B?"): the sizing asked leads, its caveats follow
    return not (all(_listed_mod(g) for g in risky_gpus(q)) and set(out) & set(_SIZING))


def _listed_mod(gpu_id: str) -> bool:
    from tools.catalog import catalog

    spec = catalog().get(gpu_id)
    return bool(spec and spec.unofficial)


def _risk_intent(st: _State, out: dict[str, int], pos: dict[str, int]) -> None:
    """Add `risk` first when a card named is one to warn about; it replaces the spec sheet and a TCO."""
    q = st.q
    if q.num_gpus and not q.gpu_mentions and _machine_patterns()["owns"].search(st.t.text):  # type: ignore[attr-defined]
        q.owns_hardware = True  # "I just bought 10 gpus": the cards of the conversation are the user's
    if "catalog" in out or not q.gpu_mentions or not risky_gpus(q):
        return
    # "training on V100 is slower than 3080Ti": a stronger card seen behind a weaker one is the user's own run too
    run = _measured_run(q) or stated_inversion(st)
    out["risk"] = _LEADS if _leads(q, out, pos, run) else max(out.values(), default=0) + 1
    if risk_job(q) == "buy" and len(q.gpu_mentions) == 1 and not (q.budget or q.monthly_budget) and "recommend" in out:
        # "魔改2080ti 22G 值得买吗，跑 qwen2.5 32b 够吗": whether this card does the job, and its trap, answer it;
        # a shopping list of other cards does not
        out["fit" if q.model or q.params_b else "risk"] = min(out.pop("recommend"), out.get("fit", out["risk"]))
    # "which is best? 1080ti, 2080ti, 3080": a choice; "why aren't T4/K80/V100 supported?": each card's support
    listed = q.gpus_alternative and len(set(q.gpu_mentions)) >= 2 and not q.asks_card_support
    if "compare" in out and pos.get("compare_strong") is None and pos.get("compare_weak") is None and not listed:
        # "Why are T4, K80, V100 not supported?": several cards named with no word choosing among them ask what is
        # wrong with each (the card verdicts), not which one wins
        out.pop("compare")
    if (q.model or q.params_b) and not set(out) & {*_SIZING, "recommend", "diagnose", "support"}:
        # "P40 报错不支持半精度，MOSS 怎么跑": the card's trap first, then whether it holds the model named
        # ("如何同时使用 3080 10g 和 2080ti 22g 跑 Qwen3-Next": the unchosen comparison is gone, so the cards together;
        # where the trap does not lead, a memory mod the catalog lists, the sizing leads and its caveats follow)
        lead = out["risk"] == _LEADS
        out["fit"], out["risk"] = (out["risk"] + 1, out["risk"]) if lead else (out["risk"], out["risk"] + 1)
    costed = q.buy_or_rent in ("rent", "compare") or q.electricity_price or q.cloud_price_per_hour
    for name in _REPLACED:
        if name == "cost" and costed:
            continue
        if name == "gpu_info" and (q.asks or any(c.topic != "vram" for c in q.claims)):
            continue
        out.pop(name, None)
    if any(stated_vram(q, g) for g in q.gpu_mentions) or (out["risk"] == _LEADS and not run):
        # a crash past the stock memory of a modified card, or "old cards, most models OOM" with no model or number
        # to check: the card explains it
        out.pop("diagnose", None)


def _measured_run(q: ParsedQuery) -> bool:
    """A run the diagnosis can check: a model named, or a speed, step time or memory measured."""
    measured = q.measured_tokens_per_s is not None or q.measured_speeds or q.measured_seconds_per_step
    measured = measured or q.slower_ratio  # "12 hours on the V100, 3 on a 3090": a factor measured between two cards
    # the model an engine's tutorial runs ("[ktransformers] K80 这种老卡能用吗": DeepSeek-R1) is no run of the user's
    named = (q.model and q.model_how != "engine_default") or q.params_b
    return bool(named or measured or q.measured_memory_gib is not None)
