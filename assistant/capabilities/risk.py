"""Risk: what an expert says first about an old, memory-modified or multi-GPU card ("I just bought 10 P40s",
"M40 or M60 for Ollama?", "P40 报错不支持半精度", "V100 能微调吗", "魔改 3080 20G 用到 12G 就崩").

`assess_card` (tools/card_risk.py) gives the verdict for the job and the facts behind it; this module turns the
question into its arguments, leads the answer with the verdict, then lists the facts, what to do on the card and
better cards for the same money. On a card older than Volta it also sets the engine the rest of the answer
assumes (llama.cpp), so the fit below it is sized for what actually runs there.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from assistant.capabilities.base import Capability, PlanContext, Turn
from assistant.capabilities.workstation import INSTALL, install_block
from assistant.scenario import Scenario
from assistant.strings import Writer
from assistant.toolset import ToolName
from assistant.understanding.query import ParsedQuery
from assistant.understanding.risk import architecture_asked, names_missing_feature, risk_job, risky_gpus, stated_vram
from tools.card_risk import CardRiskResult
from tools.catalog import catalog
from tools.notes import render_all

_MAX_FACTS = 9
_LLAMA_CPP_BELOW = 7.0  # compute capability under which vLLM-class engines do not run: llama.cpp is the engine


def _gpus(ctx: PlanContext) -> list[str]:
    """The cards to assess: the risky ones the message names, else the conversation's card (a follow-up)."""
    p = ctx.parsed
    named = risky_gpus(p)
    if named and _reference_only(p, named):
        return []
    if named:
        return named
    return [ctx.scenario.gpu] if ctx.scenario.gpu else []


def _reference_only(p: ParsedQuery, named: list[str]) -> bool:
    """The risky cards are named only as a reference beside the user's own counted cards ("V100 不支持
    FlashAttention2 ... 我现有 2 张 4090"): the question is about the 4090s, so no card verdict leads on the V100."""
    main = p.gpu
    return bool(
        main
        and main not in named
        and p.owns_hardware
        and p.gpu_counts.get(main)
        and not any(p.gpu_counts.get(g) for g in named)
    )


def _args(ctx: PlanContext, gpus: list[str]) -> dict[str, Any]:
    p, s = ctx.parsed, ctx.scenario
    first = gpus[0]
    count = p.gpu_counts.get(first) or (s.num_gpus if s.gpu == first else None) or 1
    args: dict[str, Any] = {
        "gpus": gpus,
        "job": _job(ctx),
        "num_gpus": count,
        "owned": p.owns_hardware,
        "currency": s.currency or "USD",
    }
    if (p.buy_or_rent == "buy" or p.used_market) and not p.owns_hardware:
        args["buying"] = True  # "contemplating picking up M10s for training": the cards are not the user's yet
    vram = stated_vram(p, first)
    if vram:
        args["stated_vram_gib"] = vram
    if p.symptom:
        args["failing"] = True  # "用到 12G 就卡死": the crash is what the card's trap explains
    if architecture_asked(p):
        args["architecture_asked"] = True
    nvidia = [g for g in p.gpu_mentions if g not in gpus and getattr(catalog().get(g), "vendor", "") == "nvidia"]
    other = next(iter(nvidia), None)
    if other and args["job"] == "training":
        args["reference_gpu"] = other  # "Mac Studio 192G 还是 8 张 4090 微调": measured against the 4090
    if s.model:
        args["model"] = s.model
    elif s.params_b:
        args["params_b"] = s.params_b
    return args


def _job(ctx: PlanContext) -> str:
    """The message's job, else the conversation's (a follow-up about the same cards keeps it)."""
    job = risk_job(ctx.parsed)
    if job == "inference" and ctx.scenario.mode in ("full", "lora", "qlora"):
        return "training"
    return job


def _job_of(turn: Turn) -> str:
    jobs = [r.job for r in turn.own("risk", CardRiskResult)]
    return jobs[0] if jobs else risk_job(turn.parsed)


def _old(gpu_id: str) -> bool:
    from tools.catalog import catalog

    spec = catalog().get(gpu_id)
    cc = spec.compute_capability if spec is not None and spec.vendor == "nvidia" else None
    try:
        return cc is not None and float(cc) < _LLAMA_CPP_BELOW
    except ValueError:
        return False


_FEATURES = ("bf16", "flash_attention_2", "flash_attention_3")


def feature_asked(p: ParsedQuery, intents: list[str]) -> bool:
    """BF16 or FlashAttention asked of the card ("V100 支持 bf16 吗", "flash attention是否支持RTX8000", "Can I use
    FlashAttention 2 on my T4?"), not stated as what it lacks ("v100不支持bfloat16，如何修改代码", a claim): the
    feature's verdict (check_support: no, it needs compute capability 8.0) leads, the card's facts follow. Leading
    with "for inference, yes" would answer a question the user did not ask."""
    if any(c.topic == "bf16" for c in p.claims):
        return False
    asked_support = "support" in intents and any(s in _FEATURES for s in p.support_subjects)
    return asked_support or any(a in _FEATURES for a in p.asks)


def _buy_leads(turn: Turn, results: list[CardRiskResult]) -> bool:
    """A risky card weighed as a purchase: whether to buy it at all leads — unless the user asked whether some
    software runs on it ("about to pick up a 1080 Ti — will ollama see it?": that verdict answers), or the model
    named does not fit the card even at 4-bit ("a used P40 for Llama 3 70B?": that it cannot hold it decides first)."""
    from tools.fit import FitResult

    if _job_of(turn) != "buy" or not any(r.lead is not None for r in results) or "support" in turn.plan.intents:
        return False
    card = results[0].cards[0].gpu if results and results[0].cards else None
    fits = [r for _, r in turn.results(FitResult) if r.gpu == card]
    return not fits or _four_bit_or_more(fits[0].best_precision)


def _four_bit_or_more(precision: str | None) -> bool:
    """A format an expert would run the model in: 4-bit or wider (Q2/Q3 and the IQ1-IQ3 quants are not)."""
    return precision is not None and not precision.lower().startswith(("q2", "q3", "iq1", "iq2", "iq3"))


def _dropped(gpu_id: str) -> bool:
    """An AMD card current ROCm no longer supports (MI50, RX 580): llama.cpp through Vulkan runs it."""
    from tools.card_risk import rocm_dropped

    spec = catalog().get(gpu_id)
    return spec is not None and rocm_dropped(spec)


class Risk(Capability):
    intent = "risk"
    owns = (ToolName.ASSESS_CARD,)
    render_phase = 0  # the card's trap leads; the intent is placed first, so it renders first
    guides_topic = "old GPUs Pascal Maxwell P40 FP16 tensor cores used cards modified memory buying pitfalls"

    def plan(self, ctx: PlanContext) -> None:
        gpus = _gpus(ctx)
        if not gpus:
            ctx.intents = [i for i in ctx.intents if i != self.intent]
            if not ctx.intents and ctx.has_model and ctx.scenario.gpu:
                # "P40 太老了不考虑。现在我这有 2 张 3090，能 LoRA 微调 14b 吗": the old card is only mentioned;
                # whether the user's own cards run the job is the question
                ctx.intents.append("fit")
                ctx.delegate("fit")
            return
        args = _args(ctx, gpus)
        if "support" in ctx.intents and args["job"] != "buy" and all(_dropped(g) for g in gpus):
            # "will Ollama run on my RX 580": the support verdict already says ROCm dropped it and Vulkan runs it
            ctx.intents = [i for i in ctx.intents if i != self.intent]
            return
        s = ctx.scenario
        if args["job"] != "training" and (_old(gpus[0]) or _dropped(gpus[0])) and not s.engine:
            s.engine = "llama.cpp"  # what runs on a card older than Volta or one ROCm dropped: the fit below assumes it
        ctx.add(self.intent, ToolName.ASSESS_CARD, **args)
        if feature_asked(ctx.parsed, ctx.intents) and "support" not in ctx.intents:
            ctx.intents.insert(0, "support")  # "Does the V100 support bf16?": the feature's own verdict answers it
            ctx.delegate("support")
        others = {"compare", "support", "diagnose"} if args["job"] != "training" else set()
        if not ctx.has_model and "capacity" not in ctx.intents and not set(ctx.intents) & others:
            # "能支持下 v100 做 finetune 么", "单卡2080ti 魔改22G的效果怎么样": no model named, so what the cards run
            # (or fine-tune) is the sizing an expert gives with the trap
            ctx.intents.append("capacity")
            ctx.delegate("capacity")

    def phase(self, turn: Turn) -> int:
        """First, unless a comparison the user asked for leads ("P40 vs 3060": the pick, then the P40's traps with
        the card facts), or the message sizes a model it names to run ("GPT-OSS 120B on 4x MI50 16GB with vLLM?":
        whether it fits leads, how to run it on these cards follows). It still plans first: the engine it sets is
        the one the fit below assumes."""
        intents, p = turn.plan.intents, turn.parsed
        if "compare" in intents and self.intent in intents and intents.index("compare") < intents.index(self.intent):
            return 2
        sizing = {"fit", "memory", "speed"} & set(intents)
        results = turn.own(self.intent, CardRiskResult)
        stated_lack = names_missing_feature(p) and not feature_asked(p, intents)
        training = any(r.job == "training" for r in results)  # "V100 不支持 bf16 但能推理": support's verdict leads
        if stated_lack and training and any(r.risk in ("pre_bf16", "pascal") for r in results):
            return -2  # "v100不支持bfloat16，如何修改代码训练": FP16 and SDPA lead, before each method's memory verdict
        if sizing and any(r.risk == "unsupported" for r in results):
            return -1  # "Llama 3 8B on a K80?": nothing current runs on it, before what its memory would allow
        failing = bool(p.symptom or p.diagnose_flags)  # "exit status 0xc0000005", "waits 10-60 s before answering"
        if failing and any(r.risk == "rocm_dropped" for r in turn.own(self.intent, CardRiskResult)):
            return -1  # a dropped AMD card that already fails: the back-end that runs it leads, then the rest
        dropped = any(r.risk == "rocm_dropped" for r in results)
        if dropped and not failing and p.owns_hardware and "capacity" in intents:
            return 1  # "my RX 580 8G 是不是废了": what it still runs (through Vulkan) leads, the back-end follows
        if _buy_leads(turn, results):
            return -1  # "P40 还值得买吗？想跑 Qwen2.5 14B": whether to buy it at all, then what it runs
        if sizing and (p.model or p.params_b) and _job_of(turn) != "training":
            return 1
        if sizing and (p.model or p.params_b) and p.asks_gpu_count:
            return 1  # "几张 V100 才能全参微调 llama2-7b": the count leads a training question too; the traps follow
        s = turn.plan.scenario
        if sizing and p.symptom == "oom" and (s.model or s.params_b):
            return 1  # "ZeRO-2 on 8 V100s still OOMs": what it takes to fit leads; the card's traps follow
        return self.render_phase

    def render(self, w: Writer, turn: Turn) -> None:
        for r in turn.own(self.intent, CardRiskResult):
            risk_lines(w, r, install_first=turn.parsed.asks_install)

    def apply(self, scenario: Scenario, tool: ToolName, args: dict[str, Any]) -> None:
        gpus = args.get("gpus") or []
        if gpus and not scenario.gpu:
            scenario.gpu = str(gpus[0])

    def summary(self, tool: ToolName, result: BaseModel, lang: str) -> str:
        if not isinstance(result, CardRiskResult):
            return str(tool)
        cards = ", ".join(c.gpu for c in result.cards)
        return f"{cards}: {result.risk} ({result.job})"


def risk_lines(w: Writer, r: CardRiskResult, install_first: bool = False) -> None:
    """The verdict, the facts that decide it, what to do on the card, better cards for the money. `install_first`:
    the card does not start, or its plug is asked ("P40 代码10", "which power cable"): plug and BIOS setting lead."""
    if r.lead is None:
        return
    install = [f for f in r.facts if f.code in INSTALL]
    if install and install_first and r.cards:  # asked about something else: the facts that decide that stay alone
        install_block(w, r.cards[0].gpu, install)
    if install:
        r = r.model_copy(update={"facts": [f for f in r.facts if f not in install]})
    w.add(r.lead.render(w.lang))
    # a multi-GPU board (K80: 2 x 12 GB) sizes everything the owner asks next: it follows the verdict, not a list
    board = [f for f in r.facts if f.code == "risk_fact_board"]
    for f in board[:1]:
        w.add(f.render(w.lang))
    facts = [f for f in r.facts if f not in board[:1]]
    w.bullets("risk_facts_head", render_all(facts, w.lang), limit=_MAX_FACTS)
    w.bullets("risk_instead_head", render_all(r.instead, w.lang), limit=3)
    head = "risk_alternatives_head_pricier" if r.alternatives_cost_more else "risk_alternatives_head"
    w.bullets(head, render_all(r.alternatives, w.lang), limit=3)
