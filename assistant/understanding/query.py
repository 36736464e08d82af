"""What the parser reads from one message: `ParsedQuery` (typed slots), `Claim`, and which slots count."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from assistant.language import Currency, Language

Intent = str  # a key of lexicon.yaml's `intents` section: a new question type is a lexicon entry
Mode = Literal["inference", "full", "lora", "qlora"]


class Claim(BaseModel):
    """Something the user asserts about a GPU, to confirm or correct ("4090 不支持 BF16 吧")."""

    topic: str = Field(description="bf16, fp8, nvlink, ecc, mig (asserted: bool) or vram (GiB), tflops (number)")
    gpu: str | None = Field(default=None, description="GPU id the claim is about")
    asserted: bool | str | float = Field(description="What the user claims: False = 'does not have'")


class ParsedQuery(BaseModel):
    """Slots read from one message; None / empty where the message does not say."""

    text: str
    language: Language
    intents: list[Intent] = Field(default_factory=list, description="Most likely first; empty for a bare follow-up")
    model: str | None = Field(
        default=None,
        description="A name every tool accepts (tools.model_match.match_model): the registry id, or the name as "
        "typed when the registry lacks it (its family's shape at that size, or a generic decoder)",
    )
    model_how: str | None = Field(
        default=None, description="How `model` was read: registry, read_as, ollama, scaled, generic, generic_moe"
    )
    model_precision: str | None = Field(
        default=None, description="The weight format the model's name carries ('-AWQ', an Ollama tag's Q4_K_M)"
    )
    model_mention: str | None = Field(default=None, description="The model name as typed")
    unknown_model: str | None = Field(default=None, description="A model-looking name that did not resolve")
    model_suggestions: list[str] = Field(default_factory=list)
    params_b: float | None = Field(default=None, description="Bare size in billions; None when `model` is set")
    mode: Mode | None = None
    fine_tune_unspecified: bool = False
    pretrain: bool = False
    precision: str | None = Field(default=None, description="A tools.precision name: fp16, int4, q4_k_m ...")
    kv_dtype: str | None = None
    context_tokens: int | None = None
    batch: int | None = Field(default=None, description="Concurrent users / sequences / batch size")
    gpu: str | None = Field(default=None, description="Main GPU; every GPU value here resolves with resolve_gpu")
    gpu_mentions: list[str] = Field(default_factory=list)
    gpu_counts: dict[str, int] = Field(default_factory=dict, description="Only GPUs given an explicit count")
    num_gpus: int | None = None
    unknown_gpu: str | None = None
    gpu_suggestions: list[str] = Field(default_factory=list)
    budget: float | None = None
    currency: Currency | None = None
    monthly_budget: float | None = None
    electricity_price: float | None = Field(default=None, description="Per kWh, in `currency`")
    hours_per_day: float | None = None
    horizon_years: float | None = None
    buy_or_rent: Literal["buy", "rent", "compare"] | None = None
    deployment: Literal["local", "cloud"] | None = Field(
        default=None, description="Where it runs; a negated place counts as the other ('不用云' -> local)"
    )
    used_market: bool = Field(default=False, description="About buying second-hand ('二手矿卡', 'a used 3090')")
    asks_if_needed: bool = Field(default=False, description="Whether a feature is needed ('do I need NVLink')")
    asks_availability: bool = Field(default=False, description="Whether a card can be bought ('还能买到 H100 吗')")
    asks_training_fit: bool = Field(default=False, description="Whether a card is good for training ('H20 能训练吗')")
    in_china: bool = Field(
        default=False, description="The user says they are in China ('国内公司', 'a Chinese company')"
    )
    pc_alternative: bool = Field(
        default=False, description="A PC with graphics cards named as an option ('Mac Studio 还是自己攒 PC')"
    )
    interruptible: bool = Field(default=False, description="Jobs survive a restart ('restartable', '断点续训'): spot")
    image_generation: bool = Field(default=False, description="Also Stable Diffusion / Flux ('偶尔玩 SD')")
    serving: bool = Field(
        default=False, description="Serving other people ('serve', '部署给 50 人'), not one's own chat"
    )
    cloud_excluded: bool = Field(default=False, description="Renting ruled out in so many words ('不用云', 'no cloud')")
    preference: Literal["cheapest", "fastest", "balanced"] | None = None
    require_nvlink: bool | None = Field(default=None, description="None: not said; True: wanted; False: not wanted")
    require_ecc: bool | None = Field(default=None, description="None: not said; True: wanted; False: not wanted")
    require_fp8: bool | None = Field(default=None, description="None: not said; True: wanted; False: not wanted")
    require_mig: bool | None = Field(default=None, description="None: not said; True: wanted; False: not wanted")
    is_followup: bool = False
    claims: list[Claim] = Field(default_factory=list)
    asks: list[str] = Field(default_factory=list)
    concept_terms: list[str] = Field(default_factory=list)
    injection: bool = False
    unparsed: bool = False
    greeting: bool = Field(default=False, description="A greeting or a question about the assistant itself")
    advice: bool = Field(default=False, description="An advice or how-to question ('how do I', '怎么办', 'tips')")
    # ---- beyond the planner contract: optional detail the planner may use ----------------------
    models_mentioned: list[str] = Field(default_factory=list, description="All resolved model ids, in order")
    min_vram_gib: float | None = Field(
        default=None, description="Memory floor of a catalog question: '≥48GB', '48G 以上', '48GB 的卡有哪些'"
    )
    stated_capacity_gib: float | None = Field(
        default=None, description="A card capacity named instead of a GPU: '一张 24G 显存的卡', 'a 16GB card'"
    )
    quoted_tflops: list[float] = Field(
        default_factory=list, description="Numbers quoted as TFLOPS / TOPS / 'T' (>= the lexicon's floor), in order"
    )
    quoted_gbs: list[float] = Field(default_factory=list, description="Numbers quoted as GB/s, in order")
    topics_mentioned: list[str] = Field(
        default_factory=list,
        description="Lexicon topics (bf16, fp8, nvlink, ecc, mig, vram, ...) named in the message, first named "
        "first; a GPU's own name does not count ('H100 PCIe' does not mention pcie)",
    )
    gpu_price: float | None = Field(default=None, description="A purchase price the user states for a GPU")
    cloud_price_per_hour: float | None = Field(default=None, description="A rental price per GPU-hour")
    notes: list[str] = Field(default_factory=list, description="How fuzzy names were read")
    lora_rank: int | None = Field(default=None, description="'LoRA rank 64', 'r=16', '秩 8'")
    optimizer: Literal["adamw", "adamw_no_master", "adamw_bf16", "adamw8bit", "sgd"] | None = Field(
        default=None, description="'8-bit Adam', 'SGD', 'pure bf16 AdamW'"
    )
    users: int | None = Field(
        default=None,
        description="Named users ('300 staff', '全公司 300 人'): not all active at once (batch is the concurrent ones)",
    )
    hours_per_month: float | None = Field(default=None, description="'每月 100 小时', '60 hours a month'")
    persona: Literal["individual", "team", "company"] | None = Field(
        default=None, description="Who asks: a person (student, home), a team or lab, a company in production"
    )
    budget_scope: Literal["gpus", "machine"] | None = Field(
        default=None, description="What the budget covers: the cards ('买什么卡') or the whole machine ('整机')"
    )
    zero_stage: Literal[0, 1, 2, 3] | None = Field(
        default=None, description="'ZeRO-3', 'ZeRO stage 2', 'FSDP' (full sharding = 3), 'DDP' (no sharding = 0)"
    )
    jobs: list[Mode] = Field(
        default_factory=list,
        description="Every job the message asks to size, first named first: explicit inference words (not a bare "
        "'跑 / run'), each method, a fine-tune with no method as lora ('推理和微调各要多少显存' -> inference, lora)",
    )
    modes_mentioned: list[Mode] = Field(
        default_factory=list,
        description="Every method named (inference, full, lora, qlora), first named first: 'full vs LoRA vs QLoRA'",
    )
    precisions_mentioned: list[str] = Field(
        default_factory=list,
        description="Every weight format named to run in, first named first: 'FP8 vs BF16' (features asked about, "
        "such as 'does the 4090 support BF16', and formats ruled out are not listed)",
    )

    def has_slots(self) -> bool:
        """Say whether the message states anything to apply (so a follow-up is worth merging)."""
        stated = any(getattr(self, name) not in (None, False, [], {}) for name in _SLOT_FIELDS)
        return stated or any(getattr(self, name) is not None for name in _REQUIREMENT_FIELDS)


# Slots whose presence makes a message "parsed" (and a follow-up worth applying).
_SLOT_FIELDS = (
    "users",
    "hours_per_month",
    "lora_rank",
    "zero_stage",
    "optimizer",
    "model",
    "model_mention",
    "unknown_model",
    "params_b",
    "mode",
    "fine_tune_unspecified",
    "pretrain",
    "precision",
    "kv_dtype",
    "context_tokens",
    "batch",
    "gpu",
    "gpu_mentions",
    "num_gpus",
    "unknown_gpu",
    "budget",
    "monthly_budget",
    "electricity_price",
    "hours_per_day",
    "horizon_years",
    "buy_or_rent",
    "deployment",
    "preference",
    "claims",
    "asks",
    "concept_terms",
    "min_vram_gib",
    "stated_capacity_gib",
    "gpu_price",
    "cloud_price_per_hour",
)
# An explicit "not wanted" (False) is as much a statement as "wanted".
_REQUIREMENT_FIELDS = ("require_nvlink", "require_ecc", "require_fp8", "require_mig")
