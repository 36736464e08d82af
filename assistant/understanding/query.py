"""What the parser reads from one message: `ParsedQuery` (typed slots), `Claim`, and which slots count."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from assistant.language import Currency, Language
from assistant.understanding.apps import AppNamed
from assistant.understanding.job_cards import JobCards
from assistant.understanding.power import StatedPower
from tools.diagnose.schema import Symptom
from tools.notes import Note

Intent = str  # a key of lexicon.yaml's `intents` section: a new question type is a lexicon entry
Mode = Literal["inference", "full", "lora", "qlora"]


class Claim(BaseModel):
    """Something the user asserts about a GPU, to confirm or correct ("4090 不支持 BF16 吧")."""

    topic: str = Field(description="bf16, fp8, nvlink, ecc, mig (asserted: bool) or vram (GiB), tflops (number)")
    gpu: str | None = Field(default=None, description="GPU id the claim is about")
    asserted: bool | str | float = Field(description="What the user claims: False = 'does not have'")


class RunLog(BaseModel):
    """What a pasted log states about the user's run (understanding/run_log.py)."""

    prefill_tokens_per_s: float | None = Field(default=None, description="'prompt eval ... 36.00 tokens per second'")
    layers_on_gpu: int | None = Field(default=None, description="'offloaded 0/83 layers to GPU' -> 0")
    layers_total: int | None = Field(default=None, description="'offloaded 0/83 layers to GPU' -> 83")
    oom_gpu: int | None = Field(default=None, description="The card an out-of-memory message names: 'GPU 1 has ...'")
    others_gib: float | None = Field(default=None, description="Memory on that card another process holds")


class ParsedQuery(AppNamed, StatedPower, JobCards):
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
    model_family: str | None = Field(
        default=None, description="A family named with no size or version ('the smallest llama model'): 'llama'"
    )
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
    gpus_together: bool = Field(
        default=False, description="Different GPUs named as one machine ('1 张 A6000 + 1 张 V100'), not as options"
    )
    context_from_name: bool = Field(
        default=False, description="The context was read from the model's name ('glm-4-9b-chat-1m'): the variant's own"
    )
    gpus_alternative: bool = Field(
        default=False, description="GPUs named as options to weigh ('8 张 4090 或者 6 张 V100', '4090 or A100')"
    )
    upgrade_to: str | None = Field(
        default=None, description="Of two cards named, the one after a buy word ('I have a 3050 ... might buy a 4090')"
    )
    num_gpus: int | None = None
    unknown_gpu: str | None = None
    gpu_read_as: str | None = Field(
        default=None, description="A Ti / Super that was never sold, as typed ('4090ti'): read as the card it extends"
    )
    gpu_suggestions: list[str] = Field(default_factory=list)
    budget: float | None = None
    currency: Currency | None = None
    budget_as_said: float | None = Field(
        default=None, description="An amount said in a currency the answers do not price in ('1000€'), as said"
    )
    budget_as_said_currency: str | None = Field(default=None, description="Its currency code ('EUR')")
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
    enough_asked: bool = Field(default=False, description="Yes-or-no asked of cards, no model ('2 H100 enough?')")
    asks_availability: bool = Field(default=False, description="Whether a card can be bought ('还能买到 H100 吗')")
    asks_training_fit: bool = Field(default=False, description="Whether a card is good for training ('H20 能训练吗')")
    asks_concurrency: bool = Field(
        default=False, description="How many users at once is asked ('how many users can it serve', '能支持多少并发')"
    )
    capacity_asked: bool = Field(
        default=False, description="What the hardware runs is asked in words ('能训练多大的模型'), not only implied"
    )
    in_china: bool = Field(
        default=False, description="The user says they are in China ('国内公司', 'a Chinese company')"
    )
    vendor: Literal["apple"] | None = Field(
        default=None, description="A purchase kept to one platform ('which Mac should I buy'); a PC beside it: none"
    )
    pc_alternative: bool = Field(
        default=False, description="A PC with graphics cards named as an option ('Mac Studio 还是自己攒 PC')"
    )
    interruptible: bool = Field(default=False, description="Jobs survive a restart ('restartable', '断点续训'): spot")
    image_generation: bool = Field(default=False, description="Also Stable Diffusion / Flux ('偶尔玩 SD')")
    serving: bool = Field(default=False, description="Serving other people ('serve', '部署给 50 人'), not one's own")
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
    sizes_mentioned: list[float] = Field(
        default_factory=list, description="Bare sizes named, in order, one per size class ('14b 和 72b' -> [14, 72])"
    )
    size_range: list[float] | None = None  # "7B-14B", "7~14B": one machine for the top of it, the range named
    capacity_counts: list[int] = Field(default_factory=list)  # "单卡、双卡、四卡": each count a machine to size
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
    rented_gpu: str | None = Field(
        default=None, description="Buy one card or rent another: the one to rent ('a DGX Spark vs renting an H100')"
    )
    notes: list[str | Note] = Field(default_factory=list, description="How fuzzy names were read; facts it adds")
    lora_rank: int | None = Field(default=None, description="'LoRA rank 64', 'r=16', '秩 8'")
    fused_loss: bool | None = Field(default=None, description="Unsloth / Liger named: a fused cross-entropy")
    cpu_offload: Literal["optimizer", "optimizer_and_params"] | None = Field(
        default=None, description="ZeRO-Offload in a training run: 'offload_optimizer_device: cpu', 'ZeRO-Infinity'"
    )
    lora_targets: Literal["all", "attention"] | None = Field(
        default=None,
        description="Layers with adapters: '--lora_target q_proj,v_proj' -> attention, 'all-linear' -> all",
    )
    optimizer: Literal["adamw", "adamw_no_master", "adamw_bf16", "adamw8bit", "sgd"] | None = Field(
        default=None, description="'8-bit Adam', 'SGD', 'pure bf16 AdamW'"
    )
    users: int | None = Field(
        default=None,
        description="Named users ('300 staff', '全公司 300 人'): not all active at once (batch is the concurrent ones)",
    )
    shared: bool = Field(default=False, description="'10人合伙', 'three of us split it': the count shares one server")
    rent_ask: Literal["free", "elsewhere", "resume", "together"] | None = Field(default=None, description="rent ask")
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
    engine: str | None = Field(
        default=None, description="The engine named (tools/sizing.py keys: vllm, llama.cpp for Ollama too, sglang ...)"
    )
    engine_name: str | None = Field(default=None, description="The engine as named ('ollama', 'lm studio')")
    offload_engine: str | None = Field(
        default=None, description="An engine that runs models from RAM by design ('ktransformers'): offload is the plan"
    )
    precision_from_engine: bool = Field(
        default=False, description="`precision` is the Q4_K_M GGUF a llama.cpp / Ollama job runs, not a format named"
    )
    asks_minimum: bool = Field(
        default=False, description="The least hardware that runs it ('最低配置', 'minimum requirements'): 4-bit too"
    )
    asks_gpu_count: bool = Field(
        default=False, description="How many cards it takes ('4090 需要几张', 'how many H100s'): the count per format"
    )
    asks_per_card: bool = Field(default=False, description="Each card's memory or all cards' ('单卡还是总显存')")
    owns_hardware: bool = Field(
        default=False,
        description="The GPUs named are the user's own ('我只有一张 3090', 'I have 8x A10G'): size on exactly them",
    )
    owned_gpu: str | None = Field(default=None, description="Of different cards named, the one said to be owned")
    adds_to_owned: bool = Field(default=False, description="The other cards named are to join the owned one")
    ram_gib: float | None = Field(default=None, description="System RAM stated ('64G 内存', '32GB RAM', '256GD4')")
    ram_mentions: list[float] = Field(default_factory=list, description="Every RAM size named, in order")
    ram_type: str | None = Field(default=None, description="'ddr4', 'ddr5-6000' (system_memory.yaml memory types)")
    ram_plenty: bool = Field(default=False, description="RAM said to be no limit ('DDR4 内存管够')")
    machine: str | None = Field(
        default=None, description="CPU platform class from the CPU named (system_memory.yaml machines: server_2s ...)"
    )
    mode_from_run_words: bool = Field(
        default=False, description="`mode` inference read only from '跑 / run': a follow-up keeps the job asked before"
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
    support_subjects: list[str] = Field(
        default_factory=list,
        description="Engines, libraries, kernels, features and GPU platforms named for a support question "
        "('vllm', 'flash_attention_2', 'bf16', 'rocm'): tools.support subject ids, first named first; a feature "
        "asked about a named card ('4090 支持 BF16 吗') is left to the card's facts",
    )
    asks_card_support: bool = Field(
        default=False,
        description="Whether a named card is still supported, no software, feature or model named ('Are V100s "
        "supported?', '2080ti 还支持吗'): the card's standing across the stack (tools.card_risk) answers it",
    )
    support_targets: list[str] = Field(
        default_factory=list,
        description="The GPUs a support question is about, as tools.support resolves them: catalog ids, or names the "
        "catalog lacks ('RX 6700 XT', 'RTX 40 series', 'gfx906', 'M2 Pro'), first named first",
    )

    symptom: Symptom | None = Field(
        default=None,
        description="A problem reported on the user's own run ('只有 4 tokens/s', '还是 OOM', '双卡比单卡慢'); a "
        "hypothetical ('会不会爆显存', 'will it OOM') is none",
    )
    measured_tokens_per_s: float | None = Field(
        default=None, description="A decode speed measured ('4.5tokens/s'; '3-5 tokens/s' -> 5; '1 token/min' -> 1/60)"
    )
    measured_speeds: list[float] = Field(
        default_factory=list, description="Every speed measured, in order ('71 tokens/second > 66' -> [71, 66])"
    )
    measured_seconds_per_step: float | None = Field(default=None, description="A training step time: '51.82s/it'")
    measured_hours: float | None = Field(
        default=None, description="A training run's whole time, hours: '88 hours', '预估要60小时', '3 天'"
    )
    target_tokens_per_s: float | None = Field(default=None, description="The speed wanted: 'want 15', '希望达到 20'")
    measured_memory_gib: float | None = Field(
        default=None, description="Memory seen in use: '用了 27G 内存', '每张也占 20G', 'uses 20GB'"
    )
    diagnose_flags: list[str] = Field(
        default_factory=list,
        description="Settings and libraries named (tools/diagnose.py flags): enforce_eager, tensor_parallel, "
        "data_parallel, device_map_auto, no_torch_dtype, max_batch_size, reference_example, num_ctx, mps, mac ...",
    )
    diagnose_engines: list[str] = Field(
        default_factory=list, description="Engines the support table lacks, named: xinference, ktransformers"
    )
    measured_speed_gpus: list[str | None] = Field(
        default_factory=list, description="The GPU named last before each measured speed (None: none before it)"
    )
    measured_speed_models: list[str | None] = Field(default_factory=list, description="The model named just before")
    run_log: RunLog = Field(default_factory=RunLog, description="What a pasted log states: speeds, layers, OOM")

    # ---- a training run's data and algorithm (assistant/understanding/dataset.py) --------------------------
    dataset_samples: int | None = Field(default=None, description="Training examples: '1 million samples', '10万条'")
    sample_tokens: int | None = Field(
        default=None, description="Tokens per sample: 'sample size is 5-6 hundred tokens' -> 550, '每条 500 token'"
    )
    dataset_tokens: float | None = Field(
        default=None, description="Tokens in the dataset: '500M tokens', '10亿 tokens'"
    )
    epochs: float | None = Field(default=None, description="'3 epochs', 'one epoch', '训练 3 轮'")
    asks_time: bool = Field(default=False, description="How long the run takes ('how long', '多久', '训练时间')")
    asks_host_ram: bool = Field(
        default=False, description="Host RAM asked next to GPU memory ('内存和gpu需要多少', 'how much RAM and VRAM')"
    )
    asks_host_platform: bool = Field(default=False, description="CPU, RAM channels or sockets asked for a RAM run")
    cpu_only_option: bool = Field(default=False, description="CPU alone weighed against a GPU ('13600k and no gpu')")
    quoted_memory_gib: list[float] = Field(
        default_factory=list,
        description="Memory figures quoted for a training job, to confirm or correct ('requires 300 GB', '只需要43GB')",
    )
    rl: Literal["grpo", "ppo", "dpo", "rl"] | None = Field(
        default=None, description="Reinforcement-learning fine-tuning named: GRPO, PPO / RLHF, DPO, or RL in general"
    )

    # ---- what a comparison weighs (assistant/understanding/focus.py) ------------------------------------
    focus: Literal["decode", "prefill", "training", "serving"] | None = Field(
        default=None,
        description="The job's bottleneck: prefill (prompt processing named), training (a fine-tune), serving "
        "(many users); None: one user's decode, or not said",
    )

    # ---- a service's usage and the providers named (assistant/understanding/usage.py) ---------------------
    requests_per_day: float | None = Field(
        default=None, description="Requests or calls a day: '10,000 requests a day', '每分钟 5 次' -> 7,200"
    )
    tokens_per_month: float | None = Field(
        default=None, description="Tokens a month: '每月 1 亿 tokens', '5M tokens/day'"
    )
    api_mentions: list[str] = Field(
        default_factory=list, description="APIs named (tools.api_cost row ids or provider keys): 'openai', 'deepseek'"
    )
    rent_providers: list[str] = Field(
        default_factory=list, description="Rental providers named (rental_providers.yaml names): 'AutoDL', 'AWS'"
    )
    hosted_all_month: bool = Field(
        default=False, description="A monthly cost asked about hosting a service ('monthly cost to host X'): 730 h"
    )
    input_tokens_per_request: int | None = Field(default=None, description="Prompt tokens of one request")
    output_tokens_per_request: int | None = Field(default=None, description="Reply tokens of one request")
    privacy: bool = Field(default=False, description="The data must stay in house ('privacy', '数据不出内网')")
    occasional_use: bool = Field(
        default=False, description="Used now and then, no hours given ('不经常用', 'only occasionally')"
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
    "lora_targets",
    "cpu_offload",
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
    "dataset_samples",
    "sample_tokens",
    "dataset_tokens",
    "epochs",
    "requests_per_day",
    "tokens_per_month",
)
# An explicit "not wanted" (False) is as much a statement as "wanted".
_REQUIREMENT_FIELDS = ("require_nvlink", "require_ecc", "require_fp8", "require_mig")
