"""Turn a parsed question plus the session's scenario into tool calls (or a question back to the user).

Which calls a question type needs is each capability's business (assistant/capabilities); this module
carries the scenario over from earlier turns, decides which question types the message asks, and loops
over them.
"""

from __future__ import annotations

from assistant.capabilities import capability
from assistant.capabilities.base import Capability, Outcome, Plan, PlanContext, ToolCall
from assistant.capabilities.blocked import size_where_it_runs
from assistant.capabilities.compare import COMPARE_SHOWS
from assistant.language import currency_for
from assistant.planner.followup import card_after_purchase, models_in_play, start_from_pick, width_already_sized
from assistant.scenario import Scenario
from assistant.toolset import ToolName
from assistant.understanding import ParsedQuery
from assistant.understanding.text import repository_span
from tools.advice import concurrent_from_users, concurrent_share, image_generation_min_gib
from tools.notes import Note, note
from tools.prices import tco_defaults
from tools.sizing import engine_key

_WORKLOAD_SLOTS = ("mode", "precision", "kv_dtype", "context_tokens", "batch")
# Slots copied from the message onto the scenario whenever the message states them.
_CARRIED_SLOTS = (
    "precision",
    "kv_dtype",
    "context_tokens",
    "batch",
    "budget",
    "currency",
    "monthly_budget",
    "electricity_price",
    "horizon_years",
    "deployment",
    "preference",
    "lora_rank",
    "lora_targets",
    "cpu_offload",
    "fused_loss",
    "optimizer",
    "zero_stage",
    "gpu_price",
    "persona",
    "users",
    "budget_scope",
    "ram_gib",
    "ram_type",
    "machine",
    "engine",
    "engine_name",
    "offload_engine",
    "dataset_samples",  # a training run's data: samples, tokens per sample, epochs (the hours to train)
    "sample_tokens",
    "dataset_tokens",
    "epochs",
    "rl",
)
_STICKY_FLAGS = ("cloud_excluded", "serving")  # once said, kept for the conversation
# Slots that make a message without a question word a follow-up ("32k 上下文呢").
_FOLLOWUP_SLOTS = (
    "model",
    "params_b",
    "mode",
    "precision",
    "context_tokens",
    "batch",
    "gpu",
    "num_gpus",
    "budget",
    "lora_rank",
    "optimizer",
    "zero_stage",
    "kv_dtype",
    "monthly_budget",
    "hours_per_day",
    "hours_per_month",
    "users",
    "dataset_samples",  # "My sample size is probably 5-6 hundred tokens", "数据有10万条"
    "sample_tokens",
    "dataset_tokens",
    "epochs",
)
_ASKS_FOR_A_NAME = ("need_model", "need_gpu", "unknown_model", "need_purpose")
# When the planner has to ask, it offers the usual answers as one-click replies (the three questions).
_ASK_REPLIES = {ask: [ask] for ask in ("need_model", "need_gpu", "need_purpose")}  # assistant/quick_replies.yaml
_FLOAT_BASES = ("bf16", "fp16", "fp32")
# A generic 4-/8-bit on llama.cpp / Ollama is that engine's GGUF build, not a GPTQ file (llama.cpp loads GGUF only)
_GGUF_OF = {"int4": "q4_k_m", "int8": "q8_0"}
_TRAINING_MODES = ("full", "lora", "qlora")
_QUANTIZED_TRAINING_BASES = ("nf4", "nf4_dq", "int8", "gptq", "awq")


def _runs_gguf(parsed: ParsedQuery, s: Scenario) -> bool:
    """The one rule for which engines load GGUF files: llama.cpp and everything built on it (Ollama, LM Studio:
    the sizing table's llama.cpp aliases, named now or before) and an offload engine whose weights are GGUF
    (ktransformers: system_memory.yaml offload_engines)."""
    from tools.offload import memory_table

    offload = memory_table().get("offload_engines", {}).get(parsed.offload_engine or s.offload_engine or "", {})
    return engine_key(s.engine) == "llama.cpp" or offload.get("weights") == "gguf"


def merge(parsed: ParsedQuery, previous: Scenario) -> tuple[Scenario, list[str]]:
    """Carry the previous scenario over; the new message changes only what it mentions."""
    s = previous.model_copy(deep=True)
    start_from_pick(parsed, s)
    _merge_model(parsed, s)
    notes = _merge_mode(parsed, s)
    for slot in _CARRIED_SLOTS:
        value = getattr(parsed, slot, None)
        if value is not None:
            setattr(s, slot, value)
    for flag in _STICKY_FLAGS:
        if getattr(parsed, flag):
            setattr(s, flag, True)
    if parsed.image_generation:  # SDXL / Flux alongside the LLM want a 16 GB card of their own
        s.min_card_gib = max(s.min_card_gib or 0, image_generation_min_gib())
    if s.deployment is None and parsed.buy_or_rent in ("buy", "rent"):
        s.deployment = "local" if parsed.buy_or_rent == "buy" else "cloud"  # "买什么卡" is a purchase
    _merge_quantized_training(parsed, s)
    if parsed.hours_per_day is not None:
        s.utilization = min(1.0, parsed.hours_per_day / 24)
    if parsed.cloud_price_per_hour is not None:
        s.cloud_price = parsed.cloud_price_per_hour
    if parsed.hours_per_month is not None:  # the busy share of the month is the one stored form of hours
        s.utilization = min(1.0, parsed.hours_per_month / tco_defaults()["hours_per_month"])
    _merge_gpus(parsed, s)
    _merge_added_cards(parsed, previous, s)
    _merge_sample_length(parsed, s)
    if parsed.precision in _GGUF_OF and s.mode in (None, "inference") and _runs_gguf(parsed, s):
        s.precision = _GGUF_OF[parsed.precision]  # "4bit" on llama.cpp (named now or before): its Q4_K_M GGUF
    # "那用4-bit呢？" after a Q4_K_M answer: that 4-bit format, not another engine's
    s.precision = width_already_sized(parsed, previous) or s.precision
    if s.currency is None:
        s.currency = currency_for(parsed.language)
    return s, notes


def _merge_quantized_training(parsed: ParsedQuery, s: Scenario) -> None:
    """A 4-bit base turns a fine-tune into QLoRA; QLoRA's float precision is its compute dtype, not the base."""
    if parsed.precision and s.mode in ("full", "lora") and parsed.precision not in _FLOAT_BASES:
        s.mode = "qlora" if parsed.precision in ("nf4", "int4", "int8", "gptq", "awq") else "inference"
    if s.mode == "qlora" and s.precision in _FLOAT_BASES:
        s.precision = None  # "QLoRA, bf16" (or "Bfloat16 = FALSE" in a log): the compute dtype; the base is 4-bit


def _merge_sample_length(parsed: ParsedQuery, s: Scenario) -> None:
    """ "My sample size is 5-6 hundred tokens": the samples' stated length is the sequence a fine-tune trains on."""
    if parsed.sample_tokens and parsed.context_tokens is None and s.mode in _TRAINING_MODES:
        s.context_tokens = parsed.sample_tokens


def _merge_model(parsed: ParsedQuery, s: Scenario) -> None:
    new_model = bool(parsed.model or parsed.params_b is not None)
    if new_model and not parsed.is_followup and (parsed.model != s.model or parsed.params_b != s.params_b):
        kept = s.mode
        for slot in _WORKLOAD_SLOTS:  # a new model starts a new workload
            setattr(s, slot, None)
        if kept == "qlora" and parsed.fine_tune_unspecified and not parsed.pretrain:
            # "I can finetune 30b on my 4090; so not 65b even with two cards?" after a QLoRA answer: the fine-tune
            # the conversation sized (4-bit) stays the method until another is named
            s.mode = kept
        if parsed.budget is not None and not parsed.gpu_mentions:
            # "预算 20 万，30 人用 Qwen2.5-32B，服务器怎么配？" after "4090 支持 NVLink 吗": a new job with a budget
            # asks which cards to buy; the card the conversation talked about before is not the answer's start
            s.gpu, s.num_gpus, s.count_sized = None, None, False
    if parsed.model:
        s.model, s.params_b = parsed.model, None
    elif parsed.params_b is not None and new_model:
        # "24GB可以调70b模型吗" after Llama-3-8B: a bare size in a follow-up is the same family at that size
        # ("那我3090应该也没问题吧。24GB可以调70b模型吗" asks anew, and still means that family): no other family named
        same = parsed.is_followup or not (parsed.model_family or parsed.unknown_model)
        sibling = _same_series(s.model, parsed.params_b) if same and s.model else None
        s.model, s.params_b = (sibling, None) if sibling else (None, parsed.params_b)


def _same_series(model: str, size_b: float) -> str | None:
    """The registry model of `model`'s series (else family) with `size_b` billion parameters, if there is one."""
    from tools.errors import AdvisorError
    from tools.model_match import match_model
    from tools.models import registry

    try:
        arch = match_model(model).arch
    except AdvisorError:
        return None
    for key in ("series", "family"):
        mine = getattr(arch, key)
        rows = [a for a in registry().values() if mine and getattr(a, key) == mine and bool(a.moe) == bool(arch.moe)]
        near = [a for a in rows if abs((a.official_params_b or a.params / 1e9) - size_b) <= 0.12 * size_b]
        if near:
            return min(near, key=lambda a: abs((a.official_params_b or a.params / 1e9) - size_b)).id
    return None


def _merge_mode(parsed: ParsedQuery, s: Scenario) -> list[str]:
    """The training method; a method that cannot use the current precision drops it. Returns notes."""
    keeps_job = parsed.mode_from_run_words and not (parsed.model or parsed.params_b) and s.mode in _TRAINING_MODES
    if parsed.mode and not keeps_job:  # "那我的 3060 能跑吗" after a QLoRA estimate: still that QLoRA
        s.mode = parsed.mode
        if parsed.mode == "qlora" and s.precision and s.precision not in _QUANTIZED_TRAINING_BASES:
            s.precision = None  # QLoRA implies a 4-bit base
        if parsed.mode in ("full", "lora") and s.precision and s.precision not in _FLOAT_BASES:
            s.precision = None
        return []
    if parsed.pretrain:
        s.mode = "full"
        return []
    if parsed.fine_tune_unspecified and parsed.symptom == "oom" and parsed.jobs[:1] == ["inference"] and not s.mode:
        # "I tried to run the 13B ... OOM ... 26 GB for inference and 52 GB for fine-tuning": the OOM hit running it
        # is the question; the fine-tune named after it is another part (other_parts), not the scenario's job
        return []
    if parsed.fine_tune_unspecified:
        s.mode = s.mode if s.mode in ("lora", "qlora", "full") else "lora"
        return ["assumed_lora"] if s.mode == "lora" else []
    return []


def _merge_added_cards(parsed: ParsedQuery, previous: Scenario, s: Scenario) -> None:
    """ "那再买一张3090呢", "what if I add another one?" after one 3090 was sized: the cards before plus the ones
    added (understanding/add_card.py), not the one named now."""
    if parsed.adds_to_owned and not parsed.owned_gpu and previous.gpu and parsed.gpu in (None, previous.gpu):
        s.gpu, s.num_gpus = previous.gpu, (previous.num_gpus or 1) + (parsed.num_gpus or 1)


def _merge_gpus(parsed: ParsedQuery, s: Scenario) -> None:
    if parsed.engine and not parsed.offload_engine:
        s.offload_engine = None  # "用 vLLM 呢" after ktransformers: the engine named last is the one the cards run
    if parsed.gpu:
        count = parsed.gpu_counts.get(parsed.gpu) or (parsed.num_gpus if parsed.num_gpus else None)
        # "换成 3090 呢" after "一张 4090 + 512G 内存": the card swapped, the count the user stated for it kept (a
        # count the answer worked out is marked `count_sized`, so "A100 呢" after "要几张 4090" and "what about with
        # 4090s instead" after "4 × A6000 are needed" are counted anew)
        swapped = parsed.is_followup and count is None and s.gpu and s.gpu != parsed.gpu
        s.gpu = parsed.gpu
        s.num_gpus = s.num_gpus if swapped and not s.count_sized else count
        s.count_sized = False
    elif parsed.num_gpus:
        s.num_gpus = parsed.num_gpus
    elif parsed.stated_capacity_gib and s.gpu and (s.num_gpus or 1) > 1 and not parsed.gpu_mentions:
        from tools.catalog import catalog

        spec = catalog().get(s.gpu)
        if spec is not None and abs(spec.vram_gib - parsed.stated_capacity_gib) < 0.5:
            # "那么13B用32G显存能微调吗" after four 32 GB V100s: the size of one of the cards, named alone, asks
            # about one such card (the four together were asked before)
            s.num_gpus = 1


def choose_intents(parsed: ParsedQuery, previous: Scenario) -> list[str]:
    """The question types to answer: the message's own, or the previous turn's for a bare follow-up."""
    intents = [i for i in parsed.intents if i not in ("help", "out_of_scope")]
    named = parsed.model or parsed.params_b is not None or parsed.gpu_mentions or parsed.budget is not None
    if "concept" in intents and not named and not parsed.is_followup:
        return ["concept"]  # "why does decode speed depend on bandwidth?": explain, don't size anything
    intents = _within_compare(parsed, intents)
    chosen = _carried_intents(parsed, previous, intents) or _implied_intents(parsed) or intents or ["help"]
    chosen = _capacity_part(parsed, card_after_purchase(parsed, previous, chosen))
    chosen = _supported_on_new_card(parsed, previous, chosen)
    return _oom_without_model(
        parsed, previous, _oom_on_new_cards(parsed, previous, _still_risky(parsed, previous, chosen))
    )


def _supported_on_new_card(parsed: ParsedQuery, previous: Scenario, intents: list[str]) -> list[str]:
    """ "那3090能跑Marlin吗" answered, then "16g 也行吗？比如4070tis": a follow-up naming only another card asks the
    engine or kernel of the turn before on it too (its support verdict beside the sizing)."""
    carried = "support" in previous.last_intents and previous.support_subject and not parsed.support_subjects
    only_card = parsed.gpu_mentions and not (parsed.model or parsed.params_b or parsed.model_family)
    if carried and only_card and "support" not in intents and set(intents) - {"help", "out_of_scope"}:
        return [*intents, "support"]
    return intents


def _capacity_part(parsed: ParsedQuery, intents: list[str]) -> list[str]:
    """ "qwen3.5 397b 微调8卡a800够吗 ... 另外1卡4090最多可以推理什么样的qwen模型呢，2卡，4卡呢": beside the named
    model's sizing, the biggest model on each count asked is a part of its own, answered too (capability capacity
    sizes the counts on the card named in that part)."""
    counts = len(parsed.capacity_counts) >= 2 and parsed.capacity_asked and parsed.gpu_mentions
    if counts and (parsed.model or parsed.params_b) and intents and "capacity" not in intents:
        return [*intents, "capacity"]
    return intents


def _oom_without_model(parsed: ParsedQuery, previous: Scenario, intents: list[str]) -> list[str]:
    """ "A single RTX 3070, even int8 runs out of memory, maybe int4?" with no model named: the sizes the card runs
    in each format lead (what fits it at 8-bit, at 4-bit), then what an out-of-memory is made of."""
    named = parsed.model or parsed.params_b or previous.model or previous.params_b
    # "[OpenBMB/MiniCPM-V] vllm 推理v2.6 在一张3090 报错显存不够": the thread's repository names the model
    named = named or bool(parsed.model_family and repository_span(parsed.text))
    card = parsed.gpu or parsed.stated_capacity_gib
    # the system RAM ran out while loading ("colab 内存爆掉", "system RAM fills up while loading"): the card's sizes
    # are not the answer, the RAM diagnosis is; nor when GTT is asked about ("can my 7900 XT use GTT?"): whether a
    # discrete card loads weights from system RAM is
    card = card and not {"system_ram_full", "gtt"} & set(parsed.diagnose_flags)
    if parsed.symptom == "oom" and not named and card and "diagnose" in intents and "capacity" not in intents:
        return ["capacity", *intents]
    return intents


def _oom_on_new_cards(parsed: ParsedQuery, previous: Scenario, intents: list[str]) -> list[str]:
    """ "I use 8 V100 32G with ZeRO-2 and still OOM" after a fine-tune was sized: that job on these cards (what it
    needs per GPU and what makes it fit) answers it, beside whatever the cards themselves call for."""
    training = parsed.mode in _TRAINING_MODES or parsed.fine_tune_unspecified or previous.mode in _TRAINING_MODES
    earlier_model = not (parsed.model or parsed.params_b) and (previous.model or previous.params_b)
    if parsed.symptom == "oom" and parsed.gpu and earlier_model and training and "fit" not in intents:
        return [*intents, "fit"]
    return intents


def _still_risky(parsed: ParsedQuery, previous: Scenario, intents: list[str]) -> list[str]:
    """A follow-up about the same old or modified card ("so memory is all that matters?", "I just bought 10")
    keeps the card's trap first: it is still the card the answer is about."""
    same_card = "risk" in previous.last_intents and not parsed.gpu_mentions and previous.gpu
    if same_card and "risk" not in intents and set(intents) - {"help", "out_of_scope", "concept"}:
        return ["risk", *intents]
    return intents


def _within_compare(parsed: ParsedQuery, intents: list[str]) -> list[str]:
    """A comparison already weighs the prices and the cards' facts: "is the 4090 worth 2x the price?" is
    not a buy-vs-rent question, and naming the cards is not a spec question, unless the message says so."""
    if "compare" not in intents:
        return intents
    # a price the user saw ("a modded 4090 for $5.5k") is not a question about renting
    rents = parsed.buy_or_rent in ("rent", "compare")
    costed = rents or parsed.electricity_price or parsed.cloud_price_per_hour or parsed.hours_per_month
    drop = set()
    if not costed:
        drop.add("cost")
    if set(parsed.asks) <= COMPARE_SHOWS and not parsed.claims:
        drop.add("gpu_info")
    return [i for i in intents if i not in drop]


def _carried_intents(parsed: ParsedQuery, previous: Scenario, intents: list[str]) -> list[str]:
    """The previous turn's question types when this message only changes its inputs."""
    if not previous.last_intents:
        return []
    slot_only_gpu = intents == ["gpu_info"] and not parsed.asks and not parsed.claims and not parsed.concept_terms
    if slot_only_gpu and set(previous.last_intents) - {"gpu_info", "concept"}:
        return list(previous.last_intents)  # "一张 4090，用 AWQ" answers the question asked before
    if parsed.is_followup and (not intents or set(intents) <= {"concept"}):
        return list(previous.last_intents)
    named = parsed.model or parsed.params_b or parsed.model_family or parsed.unknown_model
    sized = set(previous.last_intents) & {"memory", "fit", "speed"} and (previous.model or previous.params_b)
    if intents == ["capacity"] and not parsed.capacity_asked and not named:
        same_job = _same_job_on_card(parsed, previous, bool(sized))
        if same_job:
            return same_job
    # "Colab Pro 可以满足本项目的需求吗？Colab Pro+太贵了" after a load that ran the RAM out: the model diagnosed
    # before, on the tier's GPU (its fit); a price word beside it keeps where to rent
    diagnosed = "diagnose" in previous.last_intents and (previous.model or previous.params_b)
    asks_enough = parsed.enough_asked and set(intents) <= {"capacity", "rent_where"}
    if asks_enough and not parsed.capacity_asked and not named and diagnosed and not sized:
        return ["fit", *(i for i in intents if i == "rent_where")]
    if not intents and any(getattr(parsed, k) is not None for k in _FOLLOWUP_SLOTS):
        return list(previous.last_intents)  # "32k 上下文呢" without a question word
    if _advice_on_same_job(parsed, previous, intents, sized):
        return list(previous.last_intents)
    return []


def _same_job_on_card(parsed: ParsedQuery, previous: Scenario, sized: bool) -> list[str]:
    """ "请问如果两张4090卡可以完成训练吗" after sizing a 7B: that 7B on the new cards, not what the cards train.
    "一张A100可以训吗" after a fine-tune was priced ("租卡微调 Qwen2.5-7B 要多少钱"): whether the card holds that run
    leads; the price is not asked again (a price word in the message keeps it)."""
    model = previous.model or previous.params_b
    priced = {"rent_where", "cost"} & set(previous.last_intents) and not parsed.topics_mentioned
    if priced and model and parsed.gpu_mentions and (sized or previous.mode in _TRAINING_MODES):
        return ["fit", *(i for i in previous.last_intents if i not in ("rent_where", "cost", "fit"))]
    return list(previous.last_intents) if sized else []


_LONGER_JOB = ("context_tokens", "sample_tokens", "batch")


def _advice_on_same_job(parsed: ParsedQuery, previous: Scenario, intents: list[str], sized: object) -> bool:
    """ "但是个别数据长度会达到2000左右，有什么好的建议吗？", "some samples hit 4k tokens, any suggestions?" after a
    job was sized on the user's card: "建议"/"suggestions" asks how to run the longer job on that card (the same
    question at the new length: checkpointing, micro-batch, QLoRA), not for a card to buy. A buy word, a budget,
    a card or a model named in the message keeps its own question."""
    if intents != ["recommend"] or not (sized and previous.gpu):
        return False
    named = parsed.model or parsed.params_b or parsed.model_family or parsed.unknown_model or parsed.gpu_mentions
    buying = parsed.buy_or_rent is not None or parsed.budget is not None or parsed.monthly_budget is not None
    return not (named or buying) and any(getattr(parsed, k) is not None for k in _LONGER_JOB)


def _implied_intents(parsed: ParsedQuery) -> list[str]:
    """Question types a message implies without asking one: a model alone is a memory question."""
    if parsed.intents and set(parsed.intents) - {"help", "out_of_scope"}:
        return []
    if (parsed.model or parsed.params_b) and not parsed.gpu:
        return ["memory"]
    if parsed.gpu and parsed.asks:
        return ["gpu_info"]
    if parsed.concept_terms and "out_of_scope" not in parsed.intents:
        return ["concept"]  # a domain term and no calculator question: explain from the guides
    if parsed.unparsed and len(parsed.text.strip()) > 8 and not parsed.greeting:
        return ["out_of_scope"]  # "write me a quicksort": decline politely, then say what I can do
    return [i for i in parsed.intents if i in ("help", "out_of_scope")]


def make_plan(parsed: ParsedQuery, previous: Scenario) -> Plan:
    """Decide the tool calls for this turn."""
    plan = _make_plan(parsed, previous)
    conceptual = bool(parsed.concept_terms) or "concept" in parsed.intents or parsed.advice
    if plan.ask in _ASKS_FOR_A_NAME and conceptual:
        # "GPTQ vs AWQ vs Q4_K_M: which one?" needs no model size: explain from the guides instead of asking
        ctx = PlanContext(parsed=parsed, previous=previous, scenario=plan.scenario, intents=["concept"])
        capability("concept").plan(ctx)
        plan = Plan(intents=ctx.intents, scenario=plan.scenario, calls=ctx.calls)
    recommends = any(c.name == ToolName.RECOMMEND_GPUS for c in plan.calls)  # it states its own method and users
    rl = "rl" in plan.intents  # RL sizes full-parameter and LoRA side by side: nothing was assumed
    if "assumed_lora" in plan.notes and (recommends or rl or not any(_mode_of(c) == "lora" for c in plan.calls)):
        plan.notes = [n for n in plan.notes if n != "assumed_lora"]
    s = plan.scenario
    if s.users and s.batch is None and plan.calls and not recommends:
        batch = concurrent_from_users(s.users)  # "300 staff": the answer says how many it sized for
        plan.notes.append(note("concurrency_from_users", users=s.users, share=concurrent_share(), batch=batch))
    if parsed.size_range and plan.calls and not recommends:  # a purchase names the range in its own lead
        low, high = parsed.size_range  # "7B~70B 的模型要多少显存": sized once, for the top of the range
        top = f"{high:g}B" if s.model is None else _model_label(s.model)
        plan.notes.insert(0, note("size_range_top", top=top, low=low, high=high))
    return plan


def _capacity_answers(ctx: PlanContext, intent: str) -> bool:
    """A question about the user's cards with no model that what the cards hold answers: "would 2 H100 be enough?
    which service to rent them from?", or a quoted need ("it recommends at least 15GB; can I offload some layers
    from my 8GB card?"), whose figure against the card leads (capabilities/stated_need.py)."""
    renting = intent == "fit" and "rent_where" in ctx.intents
    quoted = intent in ("fit", "offload") and bool(ctx.parsed.min_vram_gib)
    # "全参微调要 42G 左右显存，两个 24G 显卡可以吗？": a training job's quoted need against the cards, named or by
    # their size, leads (capabilities/quoted_need.py); what the cards train follows
    training = ctx.scenario.mode in _TRAINING_MODES or ctx.parsed.fine_tune_unspecified
    job_quoted = intent in ("memory", "fit") and bool(ctx.parsed.quoted_memory_gib) and training
    cards = ctx.scenario.gpu or ctx.parsed.stated_capacity_gib
    return (bool(ctx.scenario.gpu) and (renting or quoted)) or (bool(cards) and job_quoted)


def _model_label(model: str) -> str:
    from tools.model_match import match_model

    return match_model(model).arch.name


def _mode_of(call: ToolCall) -> str | None:
    return call.args.get("mode") or call.args.get("method") or (call.args.get("workload") or {}).get("mode")


def _make_plan(parsed: ParsedQuery, previous: Scenario) -> Plan:
    s, notes = merge(parsed, previous)
    models_in_play(parsed, previous, s)  # "那我的 3060 能跑吗" after 7B and 14B were sized: each of them
    intents = choose_intents(parsed, previous)
    ctx = PlanContext(parsed=parsed, previous=previous, scenario=s, intents=intents)
    _family_sizes(ctx)
    _serving_default_model(ctx)
    size_where_it_runs(ctx)  # "P40, vLLM, Llama 3 70B?": sized under llama.cpp, which runs there
    if parsed.model_how == "engine_default" and parsed.offload_engine:  # "ktransformers 教程": DeepSeek-R1
        from tools.model_match import match_model

        name = match_model(parsed.model or "").arch.name
        ctx.notes.append(note("model_from_engine", engine=parsed.offload_engine, model=name))
    _default_tag_said(ctx)
    if parsed.gpu_read_as and parsed.gpu:  # "4090ti": the card it was read as, said once
        from tools.catalog import resolve_gpu

        spec = resolve_gpu(parsed.gpu)[0]
        ctx.notes.append(note("gpu_never_sold", typed=parsed.gpu_read_as, gpu=spec.name, vram=spec.vram_gib))
    # "RTX 3060 laptop": sized as a card of the laptop part's memory (understanding/laptop.py), said once
    # "Colab Pro 可以满足吗": the notebook tier sized on its GPU, named (understanding/notebook_tier.py)
    # "5090D v2 24G", "a 16GB MacBook Pro": sized on the memory the user states (card_memory.py, mac_memory.py)
    tiers = (
        "laptop_gpu_memory",
        "notebook_tier",
        "notebook_tier_largest",
        "notebook_tier_ram",
        "card_memory_stated",
        "mac_no_chip",
        "sli_no_pool",  # "1080ti sli": SLI pools no memory (understanding/sli.py)
        "fine_tune_base",  # "Zephyr", "Dolly v2": sized as the base model (understanding/fine_tunes.py)
        "fine_tune_base_own_name",
        "risk_modified_driver",  # "the 3060M with FrankenDriver": a driver not NVIDIA's (understanding/driver_mod.py)
    )
    ctx.notes += [n for n in parsed.notes if isinstance(n, Note) and n.code in tiers]
    asked = _unknown_name(parsed, intents)
    if asked:
        s.last_intents = intents
        return Plan(intents=intents, scenario=s, calls=[], ask=asked)
    for intent in list(ctx.intents):
        cap = capability(intent)
        # the guide search is planned once, below, for every question type that cites; a part folded into one
        # planned before it ("A100 vs 4090, which is faster?": the comparison) is not planned again
        if intent == "concept" or intent not in ctx.intents:
            continue
        if cap.needs_model and not ctx.has_model:
            if _capacity_answers(ctx, intent):
                ctx.hand_over(intent, "capacity")
                continue
            ctx.need("need_model")
            continue
        cap.plan(ctx)
        if intent in _EVERY_PART:
            _plan_the_other_parts(ctx, cap, parsed, jobs=True)
    capability("training").plan(ctx)  # a fine-tune's other methods and OOM settings (capabilities/training.py)
    for companion in _COMPANIONS:  # answered beside whatever was asked, when the question calls for them
        capability(companion).plan(ctx)
    ctx.notes = _once(ctx.notes)  # a default stated once, however many parts assumed it
    s.last_intents = ctx.intents
    if ctx.missing and not ctx.calls:
        replies = [*ctx.quick_replies, *_ASK_REPLIES.get(ctx.missing, [])]
        said = [n for n in ctx.notes if isinstance(n, Note) and n.code.startswith("closed_product")]  # said first
        return Plan(intents=ctx.intents, scenario=s, calls=[], ask=ctx.missing, quick_replies=replies, notes=said)
    if any(capability(i).cites_guides for i in ctx.intents):
        capability("concept").plan(ctx)
    return Plan(
        intents=ctx.intents,
        scenario=s,
        calls=ctx.calls,
        notes=[*notes, *ctx.notes],
        second_round=ctx.second_round,
        quick_replies=ctx.quick_replies,
    )


# Questions about hardware for a service whose load is stated: a typical model is sized when none is named
_SERVING_INTENTS = ("memory", "recommend", "fit", "rent_where", "cost")


def _serving_default_model(ctx: PlanContext) -> None:
    """ "公司 200 人用知识库问答，要什么服务器", "100 concurrent users, what GPU?": the users are stated and the
    model is not. An expert sizes a typical chat / RAG model for them (advice.yaml serving_chat_model) with their
    KV cache and says so in one line, rather than asking which model."""
    p, s = ctx.parsed, ctx.scenario
    load = (p.batch or 0) > 1 or (p.users or 0) > 1
    training = p.fine_tune_unspecified or any(job != "inference" for job in p.jobs)
    if ctx.has_model or not load or s.mode not in (None, "inference") or training:
        return
    if "capacity" in ctx.intents or not set(ctx.intents) & set(_SERVING_INTENTS):
        return
    from tools.advice import serving_chat_model
    from tools.model_match import match_model

    s.model = serving_chat_model()
    ctx.notes.append(note("serving_model_default", model=match_model(s.model).arch.name))


# Parts planned beside the question when it calls for them: a model too big for any card (how people deploy it),
# a request rate (the fleet it takes), a card about to be bought that does not hold the model (the one that would),
# "how many of this card" (the count at each format)
# named_cards: last, once every part has planned, so it sees which named cards no call covers
_COMPANIONS = (
    "big_model",
    "fleet",
    "buy_instead",
    "card_count",
    "host",
    "cpu_or_gpu",
    "mac_or_pc",
    "ruled_out",  # a card ruled out beside the one asked: named once, with what is sold instead
    "named_cards",
    "step_up",  # after what a small owned card runs: the card to buy next
)
# Question types that answer each model and each job a message names ("llama-2-7B & 70B", "微调与推理").
_EVERY_PART = ("memory", "fit", "recommend", "speed")
_MAX_PARTS = 6  # "For all models: 7B, 7B-chat, 13B, 13B-chat, 70B, 70B-chat" is three sizes, each once;
# a list of five models ("Llama-3.1-8B/70B/405B, Llama-3-8B/70B") is answered for each


def other_parts(parsed: ParsedQuery, s: Scenario, jobs: bool = True) -> list[Scenario]:
    """The workloads a message asks about besides the scenario's own: every other model it names, and every
    other job ("推理和微调": inference and the LoRA a fine-tune defaults to)."""
    parts: list[Scenario] = []
    paired = parsed.job_models  # "推理72B，微调14B": each model with its own job, no cross product
    for model in parsed.models_mentioned[1:_MAX_PARTS]:
        if model != s.model:
            job = next((j for j, m in paired.items() if m == model and j != s.mode), None)
            own_job = {"mode": job, "precision": None} if job else {}
            parts.append(s.model_copy(update={"model": model, "params_b": None, **own_job}))
    if not parsed.models_mentioned:  # "想做14b 和 72b 的微调": each bare size too
        for size in parsed.sizes_mentioned[1:_MAX_PARTS]:
            if size != s.params_b:
                parts.append(s.model_copy(update={"model": None, "params_b": size}))
    if jobs and len(parsed.jobs) > 1:
        for job in parsed.jobs:
            if job != (s.mode or "inference") and paired.get(job, s.model) == s.model:
                # a training job starts from 16-bit weights; an inference one runs the format asked, if any
                keep = s.precision if (job == "inference") == ((s.mode or "inference") == "inference") else None
                if job in ("full", "lora") and keep not in _FLOAT_BASES:
                    keep = None  # "LoRA / QLoRA" on a 4-bit base: the LoRA part trains a 16-bit one
                if job == "qlora" and keep not in _QUANTIZED_TRAINING_BASES:
                    keep = None  # "不量化的 LoRA" beside a QLoRA: the QLoRA part keeps its 4-bit base
                # "微调8卡a800够吗，推理8卡4090够吗": a job named with its own cards is sized on them
                card = parsed.job_cards.get(job)
                own = {"gpu": card, "num_gpus": parsed.gpu_counts.get(card)} if card else {}
                parts.append(s.model_copy(update={"mode": job, "precision": keep, **own}))
    return parts[: _MAX_PARTS - 1]


def _once(notes: list[str | Note]) -> list[str | Note]:
    seen: set[str] = set()
    out: list[str | Note] = []
    for n in notes:
        key = n if isinstance(n, str) else n.model_dump_json()
        if key not in seen:
            seen.add(key)
            out.append(n)
    return out


_SIZING = ("memory", "fit", "recommend", "speed")
_PRICED = ("rent_where", "cost", "api")  # where it rents, buy vs rent, the API against it: the model's memory decides


def _default_tag_said(ctx: PlanContext) -> None:
    """ "ollama run deepseek-r1": a library name read as its default tag's model, said once."""
    from tools.model_match import default_tag_note

    parsed = ctx.parsed
    if parsed.model and parsed.model_mention and parsed.model == ctx.scenario.model:
        ctx.notes += [n for n in [default_tag_note(parsed.model_mention, parsed.model)] if n]


def _closed_product(ctx: PlanContext) -> bool:
    """ "文心一言能本地部署吗": a hosted service whose weights are not published (model_names.yaml closed_products) is
    said to be one, and its publisher's open-weight models are sized instead."""
    from tools._data import load_yaml
    from tools.models import registry

    parsed, s = ctx.parsed, ctx.scenario
    key = (parsed.unknown_model or "").strip().lower()
    closed = load_yaml("model_names.yaml").get("closed_products", {}).get(key)
    if parsed.model_family != "closed" or not closed:
        return False
    picks = [m for m in closed["open"] if m in registry()]
    names = ", ".join(registry()[m].name for m in picks)
    said = {k: v for k, v in closed.items() if k not in ("open", "pattern")}
    if closed.get("pattern") and parsed.model_mention:  # "GPT-4", "Claude 3.5 Sonnet": named as the user typed it
        said["name_en"] = said["name_zh"] = parsed.model_mention.strip()
    if s.gpu or parsed.stated_capacity_gib or not picks:  # "Claude 能本地部署吗": no open weights, ask for the cards
        _closed_product_on_cards(ctx, said, picks, names)
        return True
    ctx.notes.append(note("closed_product", **said, open=names))
    if picks:
        s.model, parsed.models_mentioned, parsed.unknown_model = picks[0], picks, None
    return True


_FRONTIER_GIB = 160.0  # less memory than this holds no open model of the hosted frontier's class even at 4-bit


def _closed_product_on_cards(ctx: PlanContext, said: dict[str, str], picks: list[str], names: str) -> None:
    """ "Can I run GPT-4 on my 3060?": it cannot run there at all, which leads; then the largest open model the cards
    run (capability capacity) and, when the publisher has open weights, the smallest of them on the cards (fit)."""
    from tools.catalog import resolve_gpu

    parsed, s = ctx.parsed, ctx.scenario
    parsed.model_family, parsed.unknown_model, parsed.enough_asked = None, None, False
    parsed.intents = [i for i in parsed.intents if i != "fit"]  # not a yes to "does it fit": capacity says what does
    per_card = parsed.stated_capacity_gib or (resolve_gpu(s.gpu)[0].vram_gib if s.gpu else 0.0)
    small = 0 < per_card * (s.num_gpus or 1) < _FRONTIER_GIB
    code = "closed_product_card" if picks else "closed_product_card_none"
    ctx.notes.append(note(code + ("_small" if small else ""), **said, open=names))
    rest = [i for i in ctx.intents if i not in ("memory", "fit", "capacity", "api", "gpu_info", "concept", "cost")]
    ctx.intents[:] = ["capacity", *(["fit"] if picks else []), *rest]
    if picks:
        s.model, parsed.models_mentioned = picks[0], [picks[0]]


def _newer_version_at_size(ctx: PlanContext) -> None:
    """ "Qwen4 32B", "Llama 5 70B": a version newer than the registry holds, typed with a size, is sized as the
    family's newest model of that size and said so right after the lead, never silently nor with a guessed shape."""
    from tools.model_match import match_model, newer_version_at_size, split_name

    parsed, s = ctx.parsed, ctx.scenario
    typed = parsed.model_mention
    if not typed or parsed.model_how not in ("read_as", "scaled") or not s.model or s.model != parsed.model:
        return
    nearest = newer_version_at_size(typed)
    if nearest is None:
        return
    parsed.models_mentioned = [nearest if m == s.model else m for m in parsed.models_mentioned]
    s.model = parsed.model = nearest
    size = f"{split_name(typed).sizes.total_b:g}B"  # the size typed: "the newest 32B of the family"
    ctx.notes.append(
        note("newer_version_sized_as", typed=typed.strip(), model=match_model(nearest).arch.name, size=size)
    )


def _params_b(model: str) -> float:
    from tools.model_match import match_model

    return match_model(model).arch.params / 1e9


def _family_sizes(ctx: PlanContext) -> None:
    """A family named with no size ("the code llama models", "千问要多少显存") is its common sizes, each sized."""
    from tools.model_match import (
        default_tag_note,
        family_models,
        library_default,
        match_model,
        newer_version_of,
        series_flagship,
    )

    parsed, s = ctx.parsed, ctx.scenario
    _newer_version_at_size(ctx)
    if s.model or s.params_b or not parsed.model_family or _closed_product(ctx):
        return
    # "本地部署 Qwen3-VL 要什么配置", "what rig do I need for qwen3": a machine asked for a family with no card named
    # is bought around the card each size needs (capabilities/workstation.py delegates to recommend), so it sizes
    sizing = set(_SIZING) | ({"build"} if not s.gpu else set())
    # "Kimi K3", "DeepSeek V5": one model of a newer version than the registry knows, read as the family's newest
    # model and said so, never silently another model or the family's common sizes
    nearest = newer_version_of(parsed.unknown_model or "", parsed.model_family)
    if nearest and set(ctx.intents) & (sizing | set(_PRICED)):
        s.model, parsed.models_mentioned, typed = nearest, [nearest], parsed.unknown_model
        parsed.unknown_model = None
        ctx.notes.append(note("newer_version_read_as", typed=typed, model=match_model(nearest).arch.name))
        return
    # "mistral", "llama3", "qwen2.5" with no size, asked to size or price: the model its Ollama library's default
    # tag pulls (tools.model_match.library_default), said in one line; a family word ("qwen") is its common sizes
    default = library_default(parsed.unknown_model or "")
    # "minimum hardware requirements for Llama 3", "llama3 最低配置": each size has its own minimum, so the family's
    # common sizes are sized (the default tag would answer for one size only)
    default = None if parsed.asks_minimum and len(family_models(parsed.model_family)) > 1 else default
    # "mistral 跑得很慢", "Command R runs slowly on my Mac": a report on a running model is about the one build the
    # bare name pulls, never the family's sizes side by side
    if default is not None and set(ctx.intents) & (sizing | set(_PRICED) | {"diagnose"}):
        typed = parsed.unknown_model or parsed.model_mention or parsed.model_family or ""
        s.model, parsed.models_mentioned = default.id, [default.id]
        parsed.unknown_model = None
        ctx.notes += [n for n in [default_tag_note(typed, default.id)] if n]
        return
    picks = family_models(parsed.model_family)
    # a family of one model ("[vicgalle/gpt-j-api]": GPT-J-6B, "[OpenMOSS/MOSS]") is that model whatever is
    # asked about it (a price, a card's risks), so the answer names the model the user means
    single = len(picks) == 1
    if not picks or not (set(ctx.intents) & sizing or single):
        return
    flagship = series_flagship(parsed.model_family) if set(ctx.intents) & {"recommend", "build"} else None
    if flagship and flagship not in picks and _params_b(flagship) > 3 * max(_params_b(p) for p in picks):
        picks = [
            *picks,
            flagship,
        ]  # "本地部署 Qwen3-VL 要什么配置": the small sizes at home, and what the flagship takes
    s.model = picks[0]
    parsed.models_mentioned = picks
    parsed.unknown_model = None
    ctx.notes.append(note("family_sizes", family=parsed.model_mention or parsed.model_family, n=len(picks)))
    if "build" in ctx.intents and "recommend" not in ctx.intents and not s.gpu:
        ctx.intents.insert(ctx.intents.index("build"), "recommend")  # the card for each size, then the machine
    if single and s.gpu and "risk" in ctx.intents and not set(ctx.intents) & set(_SIZING):
        ctx.intents.append("fit")  # a card's risks, then whether it runs that model (as when the model is named)


def _plan_the_other_parts(ctx: PlanContext, cap: Capability, parsed: ParsedQuery, jobs: bool) -> None:
    """Plan the same question for every other model and job the message names, on the same hardware (one card
    bought for inference and fine-tuning is one purchase, sized for the heavier job: `jobs` False)."""
    main = ctx.scenario
    for part in other_parts(parsed, main, jobs):
        ctx.scenario = part
        cap.plan(ctx)
    ctx.scenario = main


def _unknown_name(parsed: ParsedQuery, intents: list[str]) -> str | None:
    """Ask about a model or GPU name nothing resolved, when the question depends on it."""
    if parsed.unknown_model and not parsed.model and any(capability(i).needs_model for i in intents):
        return "unknown_model"
    if parsed.unknown_gpu and not parsed.gpu and not parsed.gpu_mentions:
        return "unknown_gpu"
    return None


def second_round(plan: Plan, outcomes: list[Outcome]) -> list[ToolCall]:
    """Calls that depend on the first round (e.g. memory and speed on the GPU count a job needs)."""
    calls: list[ToolCall] = []
    for intent in dict.fromkeys(plan.second_round):
        for call in capability(intent).second_round(plan, outcomes):
            if not any(c.same_call(call) for c in calls):
                calls.append(call)
    return calls
