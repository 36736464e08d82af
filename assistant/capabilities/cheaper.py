"""The cheapest way that works: when a job does not fit the GPUs the user named, the ways that make it fit on
those same cards, in the order an expert tries them (advice.md §5), then what else there is.

1. the next cheaper way of the same job: full -> LoRA -> QLoRA -> QLoRA at a 1,024-token sequence; 16-bit
   -> 4-bit (AWQ) for inference; a shorter context. Each step is estimated here to find the first that fits, and
   the answer shows the step after the one asked and, when that is still too big, the first that fits;
2. for inference, CPU offload onto the user's RAM with its speed (llama.cpp layers, MoE experts in RAM);
3. a smaller model of the same family that fits the same cards the same way;
4. for training that nothing above fits, the 80 GB card to rent for the run.

It is not a question anyone asks by name: memory, speed and fit answers call on it in their second round, so
it has no intent keywords, and its estimates are examples that never change the conversation's scenario.
"""

from __future__ import annotations

from typing import Any

from assistant.capabilities.base import Capability, Outcome, Plan, ToolCall, Turn
from assistant.capabilities.capacity import capacity_lines
from assistant.capabilities.memory import first_vram, stated_hardware, way_label
from assistant.capabilities.offload import offload_lines
from assistant.capabilities.workload import mix_args, offload_args, speed_args, vram_args
from assistant.scenario import Scenario
from assistant.strings import Writer
from assistant.toolset import ToolName
from tools.boards import sized_gpu
from tools.capacity import CapacityResult
from tools.catalog import catalog
from tools.errors import AdvisorError
from tools.offload import OffloadResult
from tools.precision import resolve_precision
from tools.vram import VramRequest, VramResult, estimate_vram

_SHORTEST_SEQUENCE = 1024
_SHORT_CONTEXT = 4096
_MIN_CONTEXT = 512  # a context shorter than this is no way to run a chat model
_JUST_SHORT = 1.25  # a sharded full fine-tune within this of the cards offloads its optimizer rather than drop to LoRA
_BIG_CARD = "a100-80gb-pcie"  # the widely rented 80 GB card a too-big job moves to
# a sharded full fine-tune within this of the cards fits with 8-bit AdamW: 16 -> 6 bytes per parameter of model
# states (tools/vram.py optimizers), less the activations and overhead that do not shrink
_EIGHT_BIT_REACH = 2.4
# the llama.cpp levels people step down through ("Q6 does not fit: Q5? Q4?"), best first
_GGUF_LADDER = ["q8_0", "q6_k", "q5_k_m", "q4_k_m", "q3_k_m", "q2_k"]


def _ladder(s: Scenario, first: VramResult, shorten: bool) -> list[Scenario]:
    """Every cheaper way of the same job after the one sized, cheapest-to-accept first. A context or sequence the
    user stated is theirs: only a default one is shortened ("what if I train with 8k?" is answered at 8k)."""
    out: list[Scenario] = []
    mode = first.mode
    # on the user's cards: a LoRA that fits one card runs plain data parallel (each card a copy, tools/vram.py
    # _training_strategy), one that does not is sharded over them (a 72B LoRA on 8 x A100: 26 GiB per GPU)
    one: dict[str, int] = {}
    if mode != "inference" and first.batch > 1:
        # "batch size 4, seq 4096, OOM": micro-batch 1 with gradient accumulation trains the same effective batch
        # in a quarter of the activation memory, before changing how the model is sharded or trained
        s = s.model_copy(update={"batch": 1})
        out.append(s)  # and every later step keeps it: the cheapest change to accept stays made
    out += _sharding_steps(s, first)
    if mode == "full":
        out.append(s.model_copy(update={"mode": "lora", "precision": None, **one}))  # LoRA on ONE of the cards
        mode = "lora"
    if mode == "lora":
        out.append(s.model_copy(update={"mode": "qlora", "precision": None, **one}))
        mode = "qlora"
    moe = first.active_params_b < 0.5 * first.params_b
    if mode == "qlora" and moe and s.lora_targets != "attention":
        # an MoE's "all linear layers" puts adapters on every expert (Qwen3-30B-A3B: ~0.8B trainable parameters,
        # 12 GiB of fp32 adapter states): adapters on the attention layers only is what fits small cards
        out.append(s.model_copy(update={"mode": "qlora", "precision": None, "lora_targets": "attention"}))
    if mode == "qlora" and not s.fused_loss:
        fused: dict[str, object] = {"mode": "qlora", "precision": None, "fused_loss": True}  # Unsloth / Liger
        if (s.optimizer or "adamw") == "adamw":
            fused["optimizer"] = "adamw8bit"  # what Unsloth runs by default: 8-bit AdamW states for the adapters
        if shorten and first.context_tokens > _SHORTEST_SEQUENCE:
            out.append(s.model_copy(update={"mode": "qlora", "precision": None, "context_tokens": _SHORTEST_SEQUENCE}))
            fused["context_tokens"] = _SHORTEST_SEQUENCE
        out.append(s.model_copy(update=fused))
    four_bit = _four_bit(s)
    if mode == "inference" and first.precision in ("bf16", "fp16", "fp32"):
        out += [s.model_copy(update={"precision": p}) for p in _smaller_formats(s, four_bit)]
    if mode == "inference" and shorten:
        # the same format as sized (a default may have chosen it), at the longest context that fits these cards:
        # "fits only up to 1,024 tokens" is a yes with its limit (an MHA model's KV cache), not "needs 2 cards"
        precision = first.precision if first.precision not in ("bf16", "fp16", "fp32") else four_bit
        longest = _longest_context(s.model_copy(update={"precision": precision}), first.context_tokens - 1)
        if longest is not None:
            out.append(s.model_copy(update={"context_tokens": longest, "precision": precision}))
        elif first.context_tokens > _SHORT_CONTEXT:
            out.append(s.model_copy(update={"context_tokens": _SHORT_CONTEXT, "precision": precision}))
    return out


def _sharding_steps(s: Scenario, first: VramResult) -> list[Scenario]:
    """ZeRO-1/2 (or DDP) as the user set it keeps a whole copy of the weights on every GPU: ZeRO-3 on the same cards
    is the cheapest change (same method, same quality); for a full fine-tune still too big sharded, DeepSpeed's
    offload_optimizer moves the optimizer states to CPU RAM (the same job at slower steps) before LoRA."""
    short = first.fit is not None and first.per_gpu_gib <= _JUST_SHORT * first.fit.usable_gib_per_gpu
    eight_bit = first.fit is not None and first.per_gpu_gib <= _EIGHT_BIT_REACH * first.fit.usable_gib_per_gpu
    eight_bit = eight_bit and not short and (s.optimizer or "adamw") == "adamw"
    if first.mode == "full" and first.zero_stage == 3 and first.dp > 1 and not s.cpu_offload and eight_bit:
        # "full fine-tune 70B on 8 x A100": 16 bytes per parameter does not fit, 6 with bitsandbytes' 8-bit AdamW
        # (no fp32 master copy, torchtune's and LLaMA-Factory's low-memory full fine-tune) does, at the same step
        # time; offloading the optimizer to CPU RAM is the slower way after it
        return [
            s.model_copy(update={"optimizer": "adamw8bit"}),
            s.model_copy(update={"zero_stage": 3, "cpu_offload": "optimizer"}),
        ]
    if first.mode == "full" and first.zero_stage == 3 and first.dp > 1 and not s.cpu_offload and short:
        # already sharded and only just too big ("full fine-tune 70B on 16 x H100: 76 of 72 GiB"): the optimizer
        # states to CPU RAM is the same full fine-tune, slower, before LoRA; far too big, LoRA is the answer
        return [s.model_copy(update={"zero_stage": 3, "cpu_offload": "optimizer"})]
    if first.mode == "inference" or first.dp <= 1 or first.zero_stage >= 3 or s.zero_stage is None:
        return []
    steps = [s.model_copy(update={"zero_stage": 3})]
    if first.mode == "full" and not s.cpu_offload:
        steps.append(s.model_copy(update={"zero_stage": 3, "cpu_offload": "optimizer"}))
    return steps


def _smaller_formats(s: Scenario, four_bit: str) -> list[str]:
    """The formats after 16-bit weights: FP8 first on cards with FP8 tensor cores (half the weights at near-16-bit
    quality; Llama-3.1-405B on one 8 x H100 server is Meta's own FP8 build), then 4-bit."""
    return ["fp8", four_bit] if _native_fp8(s) else [four_bit]


def _native_fp8(s: Scenario) -> bool:
    """The cards run FP8 on tensor cores (Ada, Hopper, Blackwell, MI300) and the engine serves FP8 weights (a GGUF
    engine has no FP8 format)."""
    from tools.catalog import resolve_gpu
    from tools.sizing import engine_key

    if engine_key(s.engine) == "llama.cpp":
        return False
    try:
        gpu = resolve_gpu(s.gpu or "")[0]
    except AdvisorError:
        return False
    return bool(gpu.fp8_tflops or gpu.fp8_fp32acc_tflops)


def _four_bit(s: Scenario) -> str:
    """The 4-bit build the cards run: a GGUF Q4_K_M on a Mac (llama.cpp / Ollama / MLX; AWQ kernels need CUDA) or
    under an engine that runs GGUF files, AWQ for vLLM-class engines."""
    from tools.catalog import resolve_gpu
    from tools.sizing import engine_key

    try:
        apple = bool(s.gpu) and resolve_gpu(s.gpu or "")[0].vendor == "apple"
    except AdvisorError:
        apple = False
    return "q4_k_m" if apple or engine_key(s.engine) == "llama.cpp" else "awq"


def _longest_context(s: Scenario, upto: int) -> int | None:
    """The longest context below `upto` at which `s` fits its cards, rounded down to what people set (a multiple
    of 1,024 from 4k up, of 256 below); None under the shortest context worth running (_MIN_CONTEXT)."""
    if upto < _MIN_CONTEXT or not _fits(s.model_copy(update={"context_tokens": _MIN_CONTEXT})):
        return None
    lo, hi = _MIN_CONTEXT, upto
    while hi - lo > 64:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if _fits(s.model_copy(update={"context_tokens": mid})) else (lo, mid)
    step = 1024 if lo >= _SHORT_CONTEXT else 256
    return max(_MIN_CONTEXT, lo // step * step)


def _estimate(s: Scenario) -> VramResult | None:
    try:
        return estimate_vram(VramRequest.model_validate(vram_args(s)))
    except (AdvisorError, ValueError):
        return None


def first_estimate(s: Scenario) -> VramResult | None:
    """The scenario's own estimate (None when it cannot be computed)."""
    return _estimate(s)


def _fits(s: Scenario) -> bool:
    r = _estimate(s)
    return r is not None and r.fit is not None and r.fit.fits


def offload_within_ram(args: dict[str, Any]) -> dict[str, Any] | None:
    """ "两张3090、251G内存跑量化满血 R1": the 4-bit GGUF split needs more RAM than the machine has (~339 of 251 GiB);
    the first lower llama.cpp level whose split fits the RAM stated (Q2_K: ~188 GiB), or None."""
    from tools.offload import OffloadRequest, estimate_offload

    if not args.get("ram_gib"):
        return None
    try:
        if estimate_offload(OffloadRequest(**args)).fits_in_ram is not False:
            return None
        bits = resolve_precision(args["precision"]).bits
        for precision in ("q3_k_m", "q2_k"):
            lower = {**args, "precision": precision}
            if resolve_precision(precision).bits < bits and estimate_offload(OffloadRequest(**lower)).fits_in_ram:
                return lower
    except (AdvisorError, ValueError):
        return None
    return None


def _offload_format(precision: str) -> str:
    """Offload runs a GGUF file in llama.cpp: the format asked when it is one (MXFP4 is one too: gpt-oss's GGUF
    keeps it), else the usual Q4_K_M."""
    from tools.precision import resolve_precision

    return precision if resolve_precision(precision).kind == "gguf" or precision == "mxfp4" else "q4_k_m"


def _registry_id(name: str) -> str:
    from tools.model_match import match_model

    try:
        return match_model(name).arch.id
    except AdvisorError:
        return name


def _smaller_model(s: Scenario, first: VramResult, shorten: bool) -> Scenario | None:
    """The largest model of the same series (else family), same kind (dense or MoE), smaller than the one asked,
    that fits the same cards the same way; None when none does (or the model is not a registry one)."""
    from tools.model_match import match_model
    from tools.models import registry

    if not s.model or first.fit is None:
        return None
    try:
        arch = match_model(s.model).arch
    except AdvisorError:
        return None
    size = arch.official_params_b or arch.params / 1e9
    family = [a for a in registry().values() if a.family == arch.family and bool(a.moe) == bool(arch.moe)]
    same_series = [a for a in family if a.series and a.series == arch.series]
    pool = sorted(same_series or family, key=lambda a: a.official_params_b or a.params / 1e9, reverse=True)
    for cand in pool:
        cand_size = cand.official_params_b or cand.params / 1e9
        if cand_size >= size * 0.9 or cand_size < 0.5:
            continue
        # the bigger model the cheaper way beats the smaller one the asked way (QLoRA ~ LoRA in quality)
        trial = s.model_copy(update={"model": cand.id, "params_b": None, "num_gpus": first.num_gpus})
        for way in (trial, *_ladder(trial, first, shorten)):
            if _fits(way):
                return way
    return None


def _ways(s: Scenario, first: VramResult, shorten: bool) -> list[Scenario]:
    """The ways to show: the next step, the first step that fits when the next one does not, a smaller model,
    and (training, nothing else fitting) the 80 GB card to rent."""
    ladder = _ladder(s, first, shorten)
    ways = ladder[:1]
    fitting = next((w for w in ladder if _fits(w)), None)
    if fitting is not None and fitting not in ways:
        ways.append(fitting)
    smaller = _smaller_model(s, first, shorten)
    if smaller is not None:
        ways.append(smaller)  # "70B does not fit my 3090": the family's 8B does
    if first.mode != "inference" and fitting is None and first.fit is not None and first.fit.capacity_gib < 80:
        rent = {"gpu": _BIG_CARD, "num_gpus": 1}
        whole = first.per_gpu_gib if first.num_gpus == 1 else first.total_gib
        if first.mode in ("full", "lora") and whole > 0.9 * 80:
            rent |= {"mode": "qlora", "precision": None}  # a 72B LoRA needs two 80 GB cards; its QLoRA fits one
        ways.append(s.model_copy(update=rent))  # a 70B QLoRA on a 48 GB card
    return ways


def _is_moe(s: Scenario) -> bool:
    from tools.model_match import match_model

    try:
        return bool(s.model) and match_model(s.model or "").arch.moe is not None
    except AdvisorError:
        return False


def _fits_any(ways: list[Scenario]) -> bool:
    return any(_fits(w) for w in ways)


def _what_fits(s: Scenario, first: VramResult) -> ToolCall:
    """The largest model the user's cards hold, for a model no cheaper way or smaller sibling fits (a size with no
    family, "the 70b", has none): the capacity calculator on the same cards and context, 4-bit first."""
    from tools.model_match import match_model

    family = None
    try:
        arch = match_model(s.model).arch if s.model else None
        family = arch.family if arch is not None and not arch.generic else None
    except AdvisorError:
        pass
    # a fine-tune that fits no way on these cards: also the largest model they fine-tune with QLoRA
    args = {"gpu": s.gpu, "num_gpus": s.num_gpus or 1, "mode": "inference", "with_finetune": first.mode != "inference"}
    args |= mix_args(s, s.num_gpus or 1) | {"context_tokens": first.context_tokens}
    args |= {"family": family} if family else {}
    return ToolCall(name=ToolName.LARGEST_MODEL, args=args, owner="cheaper_way")


def ways_lines(w: Writer, turn: Turn) -> None:
    """The ways this capability found, in order, each once (a verdict may already lead with one)."""
    asked = turn.plan.scenario
    first = first_vram(turn.outcomes)
    for i, r in turn.own_indexed("cheaper_way", VramResult):
        if r.fit is None or i in turn.shown:
            continue
        turn.shown.add(i)
        if adapts_pretraining(turn, first, r):
            continue
        bigger = r.fit.gpu_id == _BIG_CARD and asked.gpu != _BIG_CARD
        other_model = bool(asked.model) and _registry_id(asked.model) != _registry_id(r.model)
        if bigger and first is not None and r.mode != first.mode:  # a 72B LoRA needs two 80 GB cards: its QLoRA one
            key = "rent_bigger_card_way" if r.fit.fits else ""
        elif bigger:
            key = ("rent_bigger_card" if stated_hardware(turn) else "bigger_card_fits") if r.fit.fits else ""
        elif other_model:
            key = "smaller_model_fits" if r.fit.fits else ""
        else:
            key = "cheaper_fits" if r.fit.fits else "cheaper_still_not"
        if not key:
            continue
        w.say(
            key,
            then=_count_then(w, turn, first, r) if key == "cheaper_still_not" else "",
            model=r.model,
            method=w.label("method", r.mode),
            way=way_label(w, first, r) if first is not None else "",
            precision=r.precision,
            context=r.context_tokens,
            need=r.per_gpu_gib,
            n=r.fit.num_gpus,
            gpu=r.fit.gpu,
            usable=r.fit.usable_gib_per_gpu,
            needed=r.fit.gpus_needed or 0,
        )
    for i, c in turn.own_indexed("cheaper_way", CapacityResult):
        if i not in turn.shown:
            turn.shown.add(i)
            tune = first is not None and first.mode != "inference"  # a fine-tune: the smaller one it does tune
            w.say("smaller_tune_head" if tune else "smaller_size_head")
            capacity_lines(w, c, examples=False, detail=False)
    for i, o in turn.own_indexed("cheaper_way", OffloadResult):
        if i not in turn.shown and o.strategy != "gpu_only":
            turn.shown.add(i)
            offload_lines(w, o, lead_key="offload_way")


def _count_then(w: Writer, turn: Turn, first: VramResult | None, r: VramResult) -> str:
    """ "单张3090能跑 Falcon-180B 吗": after "even at 4-bit it does not fit", how many of that card the format takes (up
    to a server), for a card asked about, not owned; a format step only (the verdict counted its own format)."""
    owned = turn.parsed.owns_hardware and not turn.parsed.asks_gpu_count
    step = first is not None and r.precision != first.precision
    needed = r.fit.gpus_needed or 0 if r.fit is not None else 0
    if r.fit is None or r.mode != "inference" or owned or not step or not r.fit.num_gpus < needed <= 8:
        return ""
    return w.t("cheaper_still_not_count", needed=needed, gpu=r.fit.gpu)


def adapts_pretraining(turn: Turn, first: VramResult | None, way: VramResult) -> bool:
    """A LoRA / QLoRA way offered for a run from scratch: adapters tune an existing model and train no new one, so
    they are no way to pretrain (pretrain_ways says what is)."""
    return turn.parsed.pretrain and first is not None and first.mode == "full" and way.mode != "full"


def capacity_fits(r: VramResult, capacity_gib: float, engine: str | None = None) -> bool:
    """The one fit rule for a card the user names only by its size ("a single 24gb GPU")."""
    from tools.precision import resolve_precision
    from tools.sizing import engine_for, fits_capacity, headroom_for

    headroom = headroom_for(engine_for(engine, r.mode, resolve_precision(r.precision).kind))
    return fits_capacity(r.per_gpu_gib, capacity_gib, headroom)


def capacity_way(s: Scenario, capacity_gib: float) -> Scenario | None:
    """ "Mixtral quantized on a single 24 GB GPU": the highest-quality format below the one sized that fits a card
    of that size (fit_on_gpu's ladder; FP8 left out, as the card's FP8 support is unknown)."""
    from tools.fit import PRECISION_LADDER

    first = _estimate(s)
    if first is None or first.mode != "inference" or capacity_fits(first, capacity_gib, s.engine):
        return None
    ladder = [p for p in PRECISION_LADDER if p != "fp8"]
    start = ladder.index(first.precision) + 1 if first.precision in ladder else 1
    asked = resolve_precision(first.precision)
    if asked.kind == "gguf":  # a GGUF level named ("with Q6"): the levels below it
        ladder, start = [p for p in _GGUF_LADDER if resolve_precision(p).bits < asked.bits], 0
    for precision in ladder[start:]:
        way = s.model_copy(update={"precision": precision})
        r = _estimate(way)
        if r is not None and capacity_fits(r, capacity_gib):  # the format decides the engine (GGUF: llama.cpp)
            return way
        if s.context_tokens is None and resolve_precision(precision).bits >= 4:
            # no context stated: 4 bits at a 2k context before 3 bits at 4k ("llama 8B on a 6 GB laptop": Q4 at 2k)
            short = way.model_copy(update={"context_tokens": _SHORT_CONTEXT // 2})
            r = _estimate(short)
            if r is not None and capacity_fits(r, capacity_gib):
                return short
    return None


class CheaperWay(Capability):
    intent = "cheaper_way"
    cites_guides = False
    render_phase = 1  # right after the answer it improves on

    def second_round(self, plan: Plan, outcomes: list[Outcome]) -> list[ToolCall]:
        first = first_vram(outcomes)
        if first is None or first.fit is None or first.fit.fits:
            return []
        gpu = sized_gpu(plan.scenario.gpu, first.fit.gpu_id)  # a multi-GPU board's count is of its GPUs
        s = plan.scenario.model_copy(update={"num_gpus": first.fit.num_gpus, "gpu": gpu})
        shorten = plan.scenario.context_tokens is None  # a context the user stated is theirs
        if first.mode == "inference":  # the precision and context the first estimate used (a default may be one)
            s = s.model_copy(update={"precision": first.precision, "context_tokens": first.context_tokens})
        ways = _ways(s, first, shorten)
        calls = [ToolCall(name=ToolName.ESTIMATE_VRAM, args=vram_args(w), owner=self.intent) for w in ways]
        fitting = next((w for w in ways if w.model == s.model and _fits(w)), None)
        if "speed" in plan.intents and first.mode == "inference" and fitting is not None:
            # "how fast on my 3090?": the speed of the way that fits leads beside it (speed_lead.py)
            calls.append(ToolCall(name=ToolName.ESTIMATE_SPEED, args=speed_args(fitting), owner=self.intent))
        asked = any(o.call.owner == "offload" for o in outcomes)  # the offload question already answers it
        # the big-model answer already ran this model from RAM with the user's card ("2080ti 能跑 R1 吗")
        asked = asked or any(
            o.call.owner == "big_model" and o.call.name == ToolName.ESTIMATE_OFFLOAD and o.call.args.get("gpu") == s.gpu
            for o in outcomes
        )
        # no format or smaller sibling fits: the biggest model the cards do hold, even when RAM is there to offload
        # into ("70b on a 6700 XT, or no GPU at all?": 1 token/s from RAM, or a 13B at full speed on the card)
        bare = first.mode == "inference"
        if bare and not any(w.model != s.model for w in ways) and not _fits_any(ways):
            calls.append(_what_fits(s, first))  # "70b on my 12 GB card": the biggest model these cards do hold
        elif not bare and not any(w.model != s.model or (w.gpu == s.gpu and _fits(w)) for w in ways):
            calls.append(_what_fits(s, first))  # "fine-tune a 70B on one 4090": what the card does tune (QLoRA)
        unified = getattr(catalog().get(s.gpu or ""), "vendor", "") == "apple"  # a Mac's RAM is the memory that ran out
        if first.mode == "inference" and not asked and not unified:  # the user's cards plus RAM: llama.cpp offload
            offload = offload_args(s, precision=_offload_format(first.precision))
            calls.append(ToolCall(name=ToolName.ESTIMATE_OFFLOAD, args=offload, owner=self.intent))
            lower = offload_within_ram(offload)
            if lower is not None:  # the 4-bit split needs more RAM than the machine has: the level that fits it
                calls.append(ToolCall(name=ToolName.ESTIMATE_OFFLOAD, args=lower, owner=self.intent))
            if offload.get("strategy") == "layers" and _is_moe(s):  # Ollama: layers only; llama.cpp / ktransformers
                experts = {**offload, "strategy": "experts"}  # keep the experts in RAM and run faster
                calls.append(ToolCall(name=ToolName.ESTIMATE_OFFLOAD, args=experts, owner=self.intent))
        return calls

    def render(self, w: Writer, turn: Turn) -> None:
        ways_lines(w, turn)

    def records(self, tool: ToolName) -> bool:
        return False  # a way the user did not choose: an example, not the scenario
