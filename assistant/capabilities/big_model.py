"""Big model: a model too big for any one card (DeepSeek-V3/R1 671B, Llama-3.1-405B, DeepSeek-V2 236B), sized
the ways people actually deploy it, next to whatever else the question asks ("本地部署 deepseek-r1:671b 要多少算力",
"V3 是 FP8 的，700G 显卡够吗", "需要多少个 A100，支持多节点吗", "自配服务器跑 DeepSeek-V2"):

- its native weights (FP8 for DeepSeek-V3/R1) on one 8-GPU server of each class, or the two nodes it takes;
- on a card without FP8 (A100/A800, or one the user names) the weights as BF16, twice the size;
- one card plus system RAM, the MoE experts in RAM (ktransformers / llama.cpp) at 4-bit, with its speed;
- the family's smaller models (R1's distills, V2-Lite, GLM-4.5-Air) that one or a few 24 GB cards run.

A person running it at home (local, llama.cpp / Ollama / LM Studio) reads a different first line: its 4-bit GGUF
size, then what one machine does with it (the big-memory Mac or the pick recommended for it, and one GPU plus system
RAM); the servers follow.

The figures are reference estimates on cards the user did not choose: they never change the scenario. The policy
(which servers, which smaller models) is knowledge/data/advice.yaml `big_model`.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from assistant.capabilities.base import Capability, PlanContext, Turn
from assistant.strings import Writer
from assistant.toolset import ToolName
from tools.advice import policy
from tools.catalog import catalog
from tools.errors import AdvisorError
from tools.gpu_search import GpuSpecsResult
from tools.models import resolve_model
from tools.notes import money
from tools.offload import OffloadResult
from tools.recommend import Pick, RecommendResult
from tools.speed import SpeedResult
from tools.vram import VramResult

# "rent_where": where such a model rents leads; how people deploy it (servers, one card + RAM, smaller siblings) follows
_SIZING = {"memory", "fit", "recommend", "build", "speed", "compare", "card_needed", "rent_where"}


def _rules() -> dict[str, Any]:
    return dict(policy()["big_model"])


def too_big_for_cards(model: str | None) -> bool:
    """A model this capability answers (servers and RAM offload): other capabilities leave its per-card sizing."""
    if not model:
        return False
    try:
        arch = resolve_model(model)[0]
    except AdvisorError:
        return False
    return arch.params / 1e9 >= _rules()["min_params_b"]


def _at_home(ctx: PlanContext) -> bool:
    """One person running it on their own machine: local, or a llama.cpp-family engine, not a team's service."""
    s = ctx.scenario
    home = s.deployment == "local" or s.engine == "llama.cpp" or bool(s.offload_engine)  # ktransformers: card + RAM
    return home and s.persona not in ("team", "company") and not (s.serving or s.users)


def _same_machine_again(ctx: PlanContext) -> bool:
    """ "换成 3090 呢" after "用 ktransformers 在一张 4090 + 512G 内存上跑 DeepSeek-R1 能多快": a follow-up that only
    changes an input asks the earlier question again, of the user's own machine; servers were not its answer then
    (that turn sized the user's cards) and are not now. An offload engine on a card named (ktransformers: one card
    and the experts in RAM, by design) is that machine too, whatever the follow-up asks of it ("用 2 张 4090 能快多少");
    another engine named ("with vLLM instead?") is a new question."""
    p, s, before = ctx.parsed, ctx.scenario, ctx.previous
    if p.engine or p.model or p.params_b is not None or p.buy_or_rent:
        return False
    if s.offload_engine and s.gpu:
        return True
    sized_own = bool(before.last_intents) and "big_model" not in before.last_intents
    return not p.intents and before.model == s.model and sized_own


def _has_fp8(gpu_id: str) -> bool:
    gpu = catalog().get(gpu_id)
    return bool(gpu and (gpu.fp8_tflops or gpu.fp8_fp32acc_tflops))


class BigModel(Capability):
    intent = "big_model"
    cites_guides = False
    guides_topic = "MoE DeepSeek 671B deployment FP8 8-GPU server ktransformers expert offload"

    def plan(self, ctx: PlanContext) -> None:
        """Planned beside a sizing question about such a model, when the user does not size their own cards."""
        s, rules = ctx.scenario, _rules()
        if not s.model or ctx.parsed.owns_hardware or not set(ctx.intents) & _SIZING or _same_machine_again(ctx):
            return
        try:
            arch = resolve_model(s.model)[0]
        except AdvisorError:
            return
        if arch.params / 1e9 < rules["min_params_b"]:
            return
        tokens = rules["context_tokens"]
        if (s.mode or "inference") == "inference":
            native = arch.native_precision or "bf16"
            # every card named ("4090 要几张，或者 H100 要几张"), not only the scenario's; a Mac is no 8-GPU server
            named = [
                g for g in dict.fromkeys([*([s.gpu] if s.gpu else []), *ctx.parsed.gpu_mentions]) if g in catalog()
            ]
            own = [g for g in named if catalog()[g].segment != "apple"]
            cards = list(dict.fromkeys([*own, *rules["servers"]]))
            if native.startswith("fp8") and not any(not _has_fp8(c) for c in cards):
                cards.append(rules["no_fp8_server"])  # "A100 没有 FP8": what the same model takes there
            for gpu in cards:
                precision = native if not native.startswith("fp8") or _has_fp8(gpu) else "bf16"
                ctx.add(
                    self.intent,
                    ToolName.ESTIMATE_VRAM,
                    model=arch.id,
                    mode="inference",
                    precision=precision,
                    context_tokens=tokens,
                    num_gpus=rules["server_gpus"],
                    gpu=gpu,
                )
            ctx.add(
                self.intent,
                ToolName.ESTIMATE_OFFLOAD,
                model=arch.id,
                precision=rules["offload_precision"],
                context_tokens=tokens,
                # the card the user asks about ("4090太贵了，2080ti 能跑吗"), else the common big consumer card
                gpu=own[0] if own else rules["offload_gpu"],
                num_gpus=1,
                # the user's own platform ("my AM5 desktop"): its channels set the speed, its slots the RAM it holds
                **({"machine": s.machine} if s.machine else {}),
                **({"memory": s.ram_type} if s.ram_type and not s.machine else {}),  # "ddr4内存管够": DDR4's speed
            )
            priced = "price" in ctx.parsed.asks or ctx.parsed.gpu_price or ctx.parsed.budget
            if set(ctx.intents) & {"recommend", "build", "cost"} or priced:
                # a purchase ("is 8 GPUs really $4,000 each?"): what one card of each server class costs
                ctx.add(self.intent, ToolName.GPU_SPECS, names=cards[:8], currency=s.currency or "USD")
            if _at_home(ctx):  # the one machine whose memory could hold it at 4-bit, and how fast it decodes
                at_home = dict(model=arch.id, precision=rules["offload_precision"], context_tokens=tokens)
                machine = dict(gpu=rules["home_machine"], num_gpus=1)
                ctx.add(self.intent, ToolName.ESTIMATE_VRAM, mode="inference", **at_home, **machine)
                ctx.add(self.intent, ToolName.ESTIMATE_SPEED, **at_home, **machine)
        for small in rules["smaller"].get(arch.id, []):
            ctx.add(
                self.intent,
                ToolName.ESTIMATE_VRAM,
                model=small,
                mode="inference",
                precision=rules["small_precision"],
                context_tokens=tokens,
                num_gpus=1,
                # "one or two 24 GB cards": how many of the common big consumer card; a distill that a smaller
                # common card holds is said on that card (R1's 8B on a 12 GB card, not on a 4090)
                gpu=_small_card(small, rules["small_precision"], tokens, rules["offload_gpu"]),
            )

    def records(self, tool: ToolName) -> bool:
        return False  # servers, offload and smaller models the user did not choose: examples, not the scenario

    def phase(self, turn: Turn) -> int:
        """The deployment answer leads an inference question (no card a person buys holds such a model, so the
        servers it takes are the answer); beside a purchase for training it follows."""
        if "rent_where" in turn.plan.intents:
            return 2  # "租云 GPU 跑满血 R1": the cheapest rental that holds it leads
        if "fit" in turn.plan.intents and turn.plan.scenario.gpu:
            return 1  # "M2 Ultra 192GB 能跑 R1 吗": the verdict on the user's own hardware leads, the servers follow
        picked = any(r.primary is not None for _, r in turn.results(RecommendResult))
        home = _rules()["home_machine"]
        at_home = any(r.fit is not None and r.fit.gpu_id == home for r in turn.own(self.intent, VramResult))
        if "recommend" in turn.plan.intents and picked and (turn.plan.scenario.budget or not at_home):
            return 0  # "预算 200 万买什么卡": the pick within the budget leads, the server classes follow it
        if at_home:
            return -2  # "GLM-4.5 on my Windows PC, min specs?": its 4-bit size and the machines that hold it, first
        return -2 if _split(turn)[0] else 2

    def render(self, w: Writer, turn: Turn) -> None:
        prices: dict[str, str] = {}
        for i, spec in turn.own_indexed(self.intent, GpuSpecsResult):
            turn.shown.add(i)  # the card prices go on the server lines, not in a spec sheet of their own
            prices |= {g.name: money(g.price, g.currency) for g in spec.gpus if g.price}
        servers, smaller = _split(turn)
        offloads = turn.own(self.intent, OffloadResult)
        # "本地跑 V3，4090 要几张，H100 要几张": the count of each card asked answers first, the home way after it
        counted = bool(servers) and turn.parsed.asks_gpu_count and bool(turn.parsed.gpu_mentions)
        if counted:
            _named_lead(w, turn, servers)
        home = _home_lead(w, turn, offloads)
        if home and smaller:  # at home the family's smaller model is the other realistic way: right after the lead
            _smaller(w, smaller)
        if servers:
            if not counted:
                _named_lead(w, turn, servers)
            _servers(w, servers, prices)
        for o in [] if home else offloads:
            _offload(w, o)
        if smaller and not home:
            _smaller(w, smaller)

    def summary(self, tool: ToolName, result: BaseModel, lang: str) -> str:
        if isinstance(result, VramResult) and result.fit is not None:
            f = result.fit
            return f"{result.model} {result.precision}: {f.num_gpus}x {f.gpu} {'fits' if f.fits else 'no'}"
        return str(tool)


def _small_card(model: str, precision: str, tokens: int, big: str) -> str:
    """The smallest common card (advice.yaml reference_cards) no bigger than `big` that holds the model, else `big`."""
    from tools.advice import reference_cards
    from tools.sizing import fits, headroom_for
    from tools.vram import VramRequest, estimate_vram

    need = estimate_vram(VramRequest(model=model, precision=precision, context_tokens=tokens)).per_gpu_gib
    cap = catalog()[big].vram_gib
    cards = [c for c in reference_cards() if catalog()[c].vram_gib <= cap]
    return next((c for c in cards if fits(need, catalog()[c], headroom_for("llama.cpp"))), big)


def _split(turn: Turn) -> tuple[list[VramResult], list[VramResult]]:
    """(the big model on the servers, the family's smaller models), by the scenario's model."""
    s = turn.plan.scenario
    try:
        big = resolve_model(s.model)[0].name if s.model else None
    except AdvisorError:
        big = None
    home = _rules()["home_machine"]
    results = [r for r in turn.own(BigModel.intent, VramResult) if r.fit is not None and r.fit.gpu_id != home]
    return [r for r in results if r.model == big], [r for r in results if r.model != big]


def _home_lead(w: Writer, turn: Turn, offloads: list[OffloadResult]) -> bool:
    """At home: the 4-bit GGUF size, then one machine that holds it (the recommended pick, else the big-memory Mac)
    and one GPU plus system RAM. False when this is not a home question (no home machine was sized)."""
    home = _rules()["home_machine"]
    machine = [r for r in turn.own(BigModel.intent, VramResult) if r.fit is not None and r.fit.gpu_id == home]
    if not machine or not offloads:
        return False
    r, o = machine[0], offloads[0]
    ways = [_pick_way(w, p) if (p := _home_pick(turn, r.model)) else _machine_way(w, turn, r)]
    offload = "big_home_offload_experts" if o.strategy == "experts" else "big_home_offload_layers"
    ways.append(w.t(offload, gpu=o.gpu or "-", ram=o.ram_needed_gib, tps=o.decode_tokens_per_s))
    w.say(
        "big_home_lead",
        model=r.model,
        params=r.params_b,
        precision=r.precision,
        weights=r.breakdown_gib.get("weights", 0.0),
        ways=("；" if w.lang == "zh" else "; or ").join(ways),
    )
    return True


def _home_pick(turn: Turn, model: str) -> Pick | None:
    """The recommendation's pick for running this model on the user's own machine, if the turn made one."""
    for _, rec in turn.results(RecommendResult):
        p = rec.primary
        if rec.model == model and p is not None and p.mode == "inference" and p.deployment != "cloud":
            return p
    return None


def _pick_way(w: Writer, p: Pick) -> str:
    return w.t(
        "big_home_machine",
        count=w.t("big_home_count", n=p.count) if p.count > 1 else "",
        gpu=p.gpu,
        need=p.memory_per_gpu_gib,
        usable=p.usable_gib_per_gpu,
        tps=p.tokens_per_s or 0.0,
    )


def _machine_way(w: Writer, turn: Turn, r: VramResult) -> str:
    """The big-memory machine: it holds the 4-bit model at some speed, or even it falls short."""
    f = r.fit
    assert f is not None
    if not f.fits:
        return w.t("big_home_machine_short", gpu=f.gpu, need=f.per_gpu_gib, usable=f.usable_gib_per_gpu)
    speeds = [s for s in turn.own(BigModel.intent, SpeedResult) if s.model == r.model and s.decode_tokens_per_s]
    tps = speeds[0].decode_tokens_per_s if speeds else 0.0
    return w.t("big_home_machine", count="", gpu=f.gpu, need=f.per_gpu_gib, usable=f.usable_gib_per_gpu, tps=tps)


def _smaller(w: Writer, smaller: list[VramResult]) -> None:
    items = [_small_item(w, r) for r in smaller]
    w.say("big_smaller", items=("；" if w.lang == "zh" else "; ").join(items))


def _named_lead(w: Writer, turn: Turn, rows: list[VramResult]) -> None:
    """The cards the user asked about, first: how many of each the model takes ("用多少卡4090，或者H100需要多少卡")."""
    named = set(turn.parsed.gpu_mentions)
    n_node = _rules()["server_gpus"]
    native = next((r.precision for r in rows if r.precision.startswith("fp8")), rows[0].precision)
    items = []
    for r in rows:
        f = r.fit
        if f is None or f.gpu_id not in named or r.precision != native:
            continue  # a card without FP8 runs it as bf16 or as FP8 weight-only: the card-count answer says both
        if f.fits:
            items.append(w.t("big_named_fits", n=f.num_gpus, gpu=f.gpu, precision=r.precision))
        elif f.gpus_needed:
            nodes = -(-f.gpus_needed // n_node)
            items.append(w.t("big_named_needs", needed=f.gpus_needed, gpu=f.gpu, nodes=nodes, precision=r.precision))
    if items:
        w.say("big_named_lead", model=rows[0].model, items=w.t("big_named_sep").join(items))


def _servers(w: Writer, rows: list[VramResult], prices: dict[str, str] | None = None) -> None:
    """One line per server class: fits on one node, or how many GPUs (nodes) it takes."""
    # the native format heads the list even when the user's own card (listed first) has no FP8 and runs it in bf16
    native = next((r.precision for r in rows if r.precision.startswith("fp8")), rows[0].precision)
    first = next(r for r in rows if r.precision == native)
    weights = first.breakdown_gib.get("weights", 0.0)
    w.say("big_native_head", model=first.model, params=first.params_b, precision=first.precision, weights=weights)
    n_node = _rules()["server_gpus"]
    lines = []
    for r in rows:
        f = r.fit
        assert f is not None
        shared = dict(n=f.num_gpus, gpu=f.gpu, need=f.per_gpu_gib, usable=f.usable_gib_per_gpu)
        if r.precision != first.precision:
            bf16 = r.breakdown_gib.get("weights", 0.0)
            needed = f.gpus_needed or 0
            lines.append(
                w.t(
                    "big_no_fp8",
                    gpu=f.gpu,
                    precision=r.precision,
                    weights=bf16,
                    needed=needed,
                    nodes=-(-needed // n_node),
                )
            )
        elif f.fits:
            lines.append(w.t("big_server_fits", **shared))
        elif f.gpus_needed:
            lines.append(w.t("big_server_nodes", **shared, needed=f.gpus_needed, nodes=-(-f.gpus_needed // n_node)))
    prices = prices or {}
    priced = [
        line + w.t("big_card_price", price=prices[r.fit.gpu]) if r.fit and r.fit.gpu in prices else line
        for r, line in zip(rows, lines, strict=False)
    ]
    w.add("\n".join(f"- {line}" for line in priced))
    w.say("big_native_note", tokens=first.context_tokens)


def _offload(w: Writer, o: OffloadResult) -> None:
    """One card plus system RAM: where the weights live, the RAM it needs, the speed."""
    key = "big_offload_experts" if o.strategy == "experts" else "big_offload_layers"
    w.say(
        key,
        precision=o.precision,
        weights=o.weights_gib,
        gpu=o.gpu or "-",
        ram=o.ram_needed_gib,
        memory=o.ram.memory.upper(),
        tps=o.decode_tokens_per_s,
    )


def _small_item(w: Writer, r: VramResult) -> str:
    """A smaller model of the family: its 4-bit size and how many of the common 24 GB card run it."""
    f = r.fit
    assert f is not None
    n = 1 if f.fits else (f.gpus_needed or 2)
    return w.t("big_small_item", model=r.model, gib=r.breakdown_gib.get("weights", r.per_gpu_gib), n=n, gpu=f.gpu)
