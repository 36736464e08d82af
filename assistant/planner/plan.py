"""Turn a parsed question plus the session's scenario into tool calls (or a question back to the user)."""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel

from assistant.planner.parse import ParsedQuery
from assistant.scenario import Scenario

_GREETING = re.compile(
    r"\b(?:hi|hello|hey|help)\b|你好|您好|帮助|你能做什么|你会什么|what can you do|who are you|你是谁", re.I
)
# Advice and how-to questions ("how do I find out why", "省钱的办法", "should I wait") are answered from the
# guides when a calculator would lack an input, instead of asking for one.
_ADVICE = re.compile(
    r"\bhow (?:do|can|should) (?:i|we)\b|\bshould (?:i|we) (?:wait|buy|just)\b|\bwhat(?:'s| is) wrong\b|"
    r"\bways? to\b|\btips?\b|有哪些|怎么办|如何|怎样|办法|靠谱吗|值得吗|坑|注意什么|为什么",
    re.I,
)
_WORKLOAD_SLOTS = ("mode", "precision", "kv_dtype", "context_tokens", "batch")
_DOMAIN_INTENTS = ("memory", "speed", "recommend", "compare", "cost", "build", "fit", "gpu_info", "catalog")


class ToolCall(BaseModel):
    name: str
    args: dict[str, Any]


class Plan(BaseModel):
    """What the planner will do this turn."""

    intents: list[str]
    scenario: Scenario
    calls: list[ToolCall]
    ask: str | None = None  # the one missing input to ask for (a strings.yaml key)
    notes: list[str] = []  # strings.yaml keys of defaults the answer must state
    size_gpus: bool = False  # GPU named without a count: a second round sizes the count from the first result
    then_speed: bool = False  # ...and estimates speed on that count


def merge(parsed: ParsedQuery, previous: Scenario) -> tuple[Scenario, list[str]]:
    """Carry the previous scenario over; the new message changes only what it mentions."""
    s = previous.model_copy(deep=True)
    notes: list[str] = []
    new_model = bool(parsed.model or parsed.params_b is not None)
    if new_model and not parsed.is_followup and (parsed.model != s.model or parsed.params_b != s.params_b):
        for slot in _WORKLOAD_SLOTS:  # a new model starts a new workload
            setattr(s, slot, None)
    if parsed.model:
        s.model, s.params_b = parsed.model, None
    elif parsed.params_b is not None and new_model:
        s.model, s.params_b = None, parsed.params_b
    if parsed.mode:
        s.mode = parsed.mode
        if parsed.mode == "qlora" and s.precision and s.precision not in ("nf4", "nf4_dq", "int8", "gptq", "awq"):
            s.precision = None  # QLoRA implies a 4-bit base
        if parsed.mode in ("full", "lora") and s.precision and s.precision not in ("bf16", "fp16", "fp32"):
            s.precision = None
    elif parsed.fine_tune_unspecified or parsed.pretrain:
        s.mode = "full" if parsed.pretrain else (s.mode if s.mode in ("lora", "qlora", "full") else "lora")
        if s.mode == "lora" and not parsed.pretrain:
            notes.append("assumed_lora")
    for slot in (
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
        "optimizer",
        "gpu_price",
    ):
        value = getattr(parsed, slot, None)
        if value is not None:
            setattr(s, slot, value)
    if parsed.precision and s.mode in ("full", "lora") and parsed.precision not in ("bf16", "fp16", "fp32"):
        s.mode = "qlora" if parsed.precision in ("nf4", "int4", "int8", "gptq", "awq") else "inference"
    if parsed.hours_per_day is not None:
        s.utilization = min(1.0, parsed.hours_per_day / 24)
    if parsed.gpu:
        s.gpu = parsed.gpu
        s.num_gpus = parsed.gpu_counts.get(parsed.gpu) or (parsed.num_gpus if parsed.num_gpus else None)
    elif parsed.num_gpus:
        s.num_gpus = parsed.num_gpus
    if s.currency is None:
        s.currency = "CNY" if parsed.language == "zh" else "USD"
    return s, notes


def choose_intents(parsed: ParsedQuery, previous: Scenario) -> list[str]:
    intents = [i for i in parsed.intents if i not in ("help", "out_of_scope")]
    named = parsed.model or parsed.params_b is not None or parsed.gpu_mentions or parsed.budget is not None
    if "concept" in intents and not named and not parsed.is_followup:
        return ["concept"]  # "why does decode speed depend on bandwidth?": explain, don't size anything
    slot_only_gpu = intents == ["gpu_info"] and not parsed.asks and not parsed.claims and not parsed.concept_terms
    if slot_only_gpu and previous.last_intents and set(previous.last_intents) - {"gpu_info", "concept"}:
        return list(previous.last_intents)  # "一张 4090，用 AWQ" answers the question asked before
    if parsed.is_followup and (not intents or set(intents) <= {"concept"}) and previous.last_intents:
        return list(previous.last_intents)
    if not intents and previous.last_intents and _has_slots(parsed):
        return list(previous.last_intents)  # "32k 上下文呢" without a question word
    if not intents and (parsed.model or parsed.params_b) and not parsed.gpu:
        return ["memory"]
    if not intents and parsed.gpu and parsed.asks:
        return ["gpu_info"]
    if not intents and parsed.concept_terms and "out_of_scope" not in parsed.intents:
        return ["concept"]  # a domain term and no calculator question: explain from the guides
    if not intents and parsed.unparsed and len(parsed.text.strip()) > 8 and not _GREETING.search(parsed.text):
        return ["out_of_scope"]  # "write me a quicksort": decline politely, then say what I can do
    return intents or [i for i in parsed.intents if i in ("help", "out_of_scope")] or ["help"]


def _has_slots(parsed: ParsedQuery) -> bool:
    return any(
        getattr(parsed, k) is not None
        for k in (
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
            "kv_dtype",
            "monthly_budget",
            "hours_per_day",
        )
    )


def _workload(s: Scenario) -> dict[str, Any]:
    args: dict[str, Any] = {"model": s.model} if s.model else {"params_b": s.params_b}
    mode = s.mode or "inference"
    args["mode"] = mode
    if s.precision:
        args["precision"] = s.precision
    if s.kv_dtype and mode == "inference":
        args["kv_dtype"] = s.kv_dtype
    training = mode != "inference"
    args["context_tokens"] = s.context_tokens or (2048 if training else 4096)
    args["batch"] = s.batch or 1
    if training and mode in ("lora", "qlora"):
        args["grad_checkpointing"] = True
    if training and s.lora_rank and mode in ("lora", "qlora"):
        args["lora_rank"] = s.lora_rank
    if training and s.optimizer:
        args["optimizer"] = s.optimizer
    if training and (s.num_gpus or 1) > 1:
        args["zero_stage"] = 3  # several GPUs for one fine-tune: shard states FSDP/ZeRO-3 style
    return args


def _speed_args(s: Scenario) -> dict[str, Any]:
    w = _workload(s)
    args: dict[str, Any] = {k: w[k] for k in ("context_tokens", "batch") if k in w}
    args.update({k: w[k] for k in ("model", "params_b") if k in w})
    args["gpu"] = s.gpu
    args["num_gpus"] = s.num_gpus or 1
    if w.get("precision"):
        args["precision"] = w["precision"]
    if w["mode"] != "inference":
        args.update(mode="training", method=w["mode"], grad_checkpointing=w.get("grad_checkpointing", False))
    return args


def _guides_query(parsed: ParsedQuery, intents: list[str], s: Scenario) -> str:
    """A retrieval query: the user's words, plus the topic of the numbers we computed."""
    extra = {
        "memory": {
            "inference": "KV cache memory inference",
            "full": "training memory optimizer states",
            "lora": "LoRA training memory",
            "qlora": "QLoRA 4-bit training memory",
        }.get(s.mode or "inference"),
        "recommend": "which GPU to buy scenario budget",
        "cost": "cloud cost buy vs rent break-even",
        "build": "workstation PSU power supply build",
        "speed": "memory bandwidth decode speed tokens per second",
        "fit": "KV cache context length concurrent users GPU memory",
        "compare": "compare GPUs memory bandwidth tensor cores NVLink",
        "gpu_info": " ".join(parsed.concept_terms) or None,
    }
    words = [parsed.text] + [extra[i] for i in intents if extra.get(i)]
    return " ".join(words)[:500]


def make_plan(parsed: ParsedQuery, previous: Scenario) -> Plan:
    """Decide the tool calls for this turn."""
    plan = _make_plan(parsed, previous)
    conceptual = bool(parsed.concept_terms) or "concept" in parsed.intents or bool(_ADVICE.search(parsed.text))
    if plan.ask in ("need_model", "need_gpu", "unknown_model") and conceptual:
        # "GPTQ vs AWQ vs Q4_K_M: which one?" needs no model size: explain from the guides instead of asking
        plan = Plan(
            intents=["concept"],
            scenario=plan.scenario,
            calls=[
                ToolCall(
                    name="search_guides",
                    args={"query": _guides_query(parsed, ["concept"], plan.scenario), "k": 3, "lang": parsed.language},
                )
            ],
        )
    if "assumed_lora" in plan.notes and not any(_mode_of(c) == "lora" for c in plan.calls):
        plan.notes = [n for n in plan.notes if n != "assumed_lora"]
    return plan


def _mode_of(call: ToolCall) -> str | None:
    return call.args.get("mode") or call.args.get("method") or (call.args.get("workload") or {}).get("mode")


def _make_plan(parsed: ParsedQuery, previous: Scenario) -> Plan:
    s, notes = merge(parsed, previous)
    intents = choose_intents(parsed, previous)
    s.last_intents = intents
    calls: list[ToolCall] = []
    size_gpus = then_speed = False
    has_model = bool(s.model or s.params_b)
    needs_model = {"memory", "speed", "fit", "recommend"} & set(intents)
    if parsed.unknown_model and not parsed.model and needs_model:
        return Plan(intents=intents, scenario=s, calls=[], ask="unknown_model")
    if parsed.unknown_gpu and not parsed.gpu and not parsed.gpu_mentions:
        return Plan(intents=intents, scenario=s, calls=[], ask="unknown_gpu")

    def add(name: str, **args: Any) -> None:
        call = ToolCall(name=name, args=args)
        if call not in calls:
            calls.append(call)

    pending_ask: str | None = None  # an input one intent lacks; asked only if nothing else could be computed
    for intent in intents:
        if intent in ("memory", "speed", "fit", "recommend") and not has_model:
            pending_ask = pending_ask or "need_model"
            continue
        if intent == "memory":
            add("estimate_vram", **_workload(s), num_gpus=s.num_gpus or 1)
            if s.gpu:
                add("gpu_specs", names=[s.gpu])
                size_gpus = size_gpus or s.num_gpus is None
        elif intent == "speed" and not parsed.gpu_mentions and len(previous.gpus) > 1:
            intents = ["compare" if i == "speed" else i for i in intents]  # "which one runs X faster?"
            _compare_calls(add, parsed, s, previous.gpus, has_model)
        elif intent == "speed":
            if not s.gpu:
                pending_ask = pending_ask or "need_gpu"
                continue
            if s.num_gpus is None:  # size the count first, then estimate speed on it
                add("estimate_vram", **_workload(s), num_gpus=1)
                add("gpu_specs", names=[s.gpu])
                size_gpus = then_speed = True
            else:
                add("estimate_speed", **_speed_args(s))
        elif intent == "fit":
            if not s.gpu:
                pending_ask = pending_ask or "need_gpu"
                continue
            w = _workload(s)
            if w["mode"] != "inference":
                add("estimate_vram", **w, num_gpus=s.num_gpus or 1)
                add("gpu_specs", names=[s.gpu])
            else:
                fit_args = {k: w[k] for k in ("model", "params_b") if k in w}
                add(
                    "fit_on_gpu",
                    **fit_args,
                    gpu=s.gpu,
                    num_gpus=s.num_gpus or 1,
                    context_tokens=w["context_tokens"],
                    **({"precision": s.precision} if s.precision else {}),
                )
        elif intent == "recommend":
            add("recommend_gpus", **_recommend_args(parsed, s))
        elif intent == "compare":
            names = parsed.gpu_mentions or (previous.gpus if len(previous.gpus) > 1 else ([s.gpu] if s.gpu else []))
            if not names:
                pending_ask = pending_ask or "need_gpu"
                continue
            _compare_calls(add, parsed, s, names, has_model)
        elif intent == "cost":
            names = parsed.gpu_mentions or ([s.gpu] if s.gpu else [])
            if not names:
                if has_model:
                    add("recommend_gpus", **_recommend_args(parsed, s))
                    continue
                pending_ask = pending_ask or "need_gpu"
                continue
            for gid in names:
                count = parsed.gpu_counts.get(gid) or (s.num_gpus if gid == s.gpu and s.num_gpus else 1)
                tco: dict[str, Any] = {"gpu": gid, "num_gpus": count, "currency": s.currency}
                if s.horizon_years:
                    tco["horizon_years"] = s.horizon_years
                if s.utilization:
                    tco["utilization"] = s.utilization
                if s.electricity_price is not None:
                    tco["electricity_price_per_kwh"] = s.electricity_price
                if s.gpu_price and (gid == s.gpu or len(names) == 1):
                    tco["gpu_price"] = s.gpu_price
                add("calculate_tco", **tco)
        elif intent == "build":
            if not s.gpu and (has_model or s.budget):
                add("recommend_gpus", **_recommend_args(parsed, s))  # "a home rig for Qwen2.5-32B": pick the card
                continue
            if not s.gpu:
                pending_ask = pending_ask or "need_gpu"
                continue
            add("plan_workstation", gpu=s.gpu, num_gpus=s.num_gpus or 1)
        elif intent == "gpu_info":
            names = parsed.gpu_mentions or ([s.gpu] if s.gpu else [])
            if not names:
                pending_ask = pending_ask or "need_gpu"
                continue
            add("gpu_specs", names=names)
        elif intent == "catalog":
            add("find_gpus", **_catalog_filters(parsed, s))
    if pending_ask and not calls:
        return Plan(intents=intents, scenario=s, calls=[], ask=pending_ask)
    if any(i in _DOMAIN_INTENTS or i == "concept" for i in intents):
        add("search_guides", query=_guides_query(parsed, intents, s), k=3, lang=parsed.language)
    return Plan(intents=intents, scenario=s, calls=calls, notes=notes, size_gpus=size_gpus, then_speed=then_speed)


def second_round(plan: Plan, results: list[tuple[str, dict, dict]]) -> list[ToolCall]:
    """After the first round: how many of the named GPU the workload needs, then memory/speed on that count."""
    if not plan.size_gpus:
        return []
    vram = next((r for n, _, r in results if n == "estimate_vram" and r["ok"]), None)
    specs = next((r for n, _, r in results if n == "gpu_specs" and r["ok"]), None)
    if not vram or not specs or not specs["result"]["gpus"]:
        return []
    v, usable = vram["result"], specs["result"]["gpus"][0]["usable_gib"] * 0.95
    overhead = v["per_gpu_breakdown_gib"]["overhead"]
    count = next((c for c in (1, 2, 4, 8, 16, 32, 64) if (v["per_gpu_gib"] - overhead) / c + overhead <= usable), None)
    if count is None:
        return []
    s = plan.scenario.model_copy(update={"num_gpus": count})
    calls = [] if count == 1 else [ToolCall(name="estimate_vram", args=_workload(s) | {"num_gpus": count})]
    if plan.then_speed:
        calls.append(ToolCall(name="estimate_speed", args=_speed_args(s)))
    return calls


def _compare_calls(add: Any, parsed: ParsedQuery, s: Scenario, names: list[str], has_model: bool) -> None:
    """Specs side by side, plus memory and speed of the workload on each (GPU x count)."""
    add("gpu_specs", names=names)
    if has_model:
        for gid in names:
            count = parsed.gpu_counts.get(gid) or 1
            add("estimate_vram", **_workload(s), num_gpus=count)
            add("estimate_speed", **(_speed_args(s) | {"gpu": gid, "num_gpus": count}))


def _recommend_args(parsed: ParsedQuery, s: Scenario) -> dict[str, Any]:
    rec: dict[str, Any] = {"workload": _workload(s), "currency": s.currency, "limit": 5}
    for slot in ("budget", "monthly_budget", "deployment", "preference", "utilization"):
        if getattr(s, slot) is not None:
            rec[slot] = getattr(s, slot)
    if parsed.require_nvlink:
        rec["require_nvlink"] = True
    if parsed.require_ecc:
        rec["require_ecc"] = True
    return rec


def _catalog_filters(parsed: ParsedQuery, s: Scenario) -> dict[str, Any]:
    args: dict[str, Any] = {"currency": s.currency or "USD", "limit": 8}
    text = parsed.text.lower()
    m = re.search(r"(\d+)\s*(?:gb|g|gib)", text)
    if m:
        args["min_vram_gib"] = float(m.group(1))
    if s.budget:
        args["max_price"] = s.budget
    if parsed.require_nvlink or "nvlink" in text:
        args["need_nvlink"] = True
    if parsed.require_ecc or "ecc" in text:
        args["need_ecc"] = True
    if "fp8" in text:
        args["need_fp8"] = True
    if "mig" in text:
        args["need_mig"] = True
    return args
