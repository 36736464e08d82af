"""Big model: a model too big for any one card (DeepSeek-V3/R1 671B, Llama-3.1-405B, DeepSeek-V2 236B), sized
the ways people actually deploy it, next to whatever else the question asks ("本地部署 deepseek-r1:671b 要多少算力",
"V3 是 FP8 的，700G 显卡够吗", "需要多少个 A100，支持多节点吗", "自配服务器跑 DeepSeek-V2"):

- its native weights (FP8 for DeepSeek-V3/R1) on one 8-GPU server of each class, or the two nodes it takes;
- on a card without FP8 (A100/A800, or one the user names) the weights as BF16, twice the size;
- one card plus system RAM, the MoE experts in RAM (ktransformers / llama.cpp) at 4-bit, with its speed;
- the family's smaller models (R1's distills, V2-Lite) that one or two 24 GB cards run.

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
from tools.models import resolve_model
from tools.offload import OffloadResult
from tools.vram import VramResult

_SIZING = {"memory", "fit", "recommend", "build", "speed", "compare", "card_needed"}


def _rules() -> dict[str, Any]:
    return dict(policy()["big_model"])


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
        if not s.model or ctx.parsed.owns_hardware or not set(ctx.intents) & _SIZING:
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
            cards = list(dict.fromkeys([*([s.gpu] if s.gpu else []), *rules["servers"]]))
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
                gpu=rules["offload_gpu"],
                num_gpus=1,
            )
        for small in rules["smaller"].get(arch.id, []):
            ctx.add(
                self.intent,
                ToolName.ESTIMATE_VRAM,
                model=small,
                mode="inference",
                precision=rules["small_precision"],
                context_tokens=tokens,
                num_gpus=1,
                gpu=rules["offload_gpu"],  # "one or two 24 GB cards": how many of the common big consumer card
            )

    def records(self, tool: ToolName) -> bool:
        return False  # servers, offload and smaller models the user did not choose: examples, not the scenario

    def phase(self, turn: Turn) -> int:
        """The deployment answer leads an inference question (no card a person buys holds such a model, so the
        servers it takes are the answer); beside a purchase for training it follows."""
        return -2 if _split(turn)[0] else 2

    def render(self, w: Writer, turn: Turn) -> None:
        servers, smaller = _split(turn)
        if servers:
            _servers(w, servers)
        for o in turn.own(self.intent, OffloadResult):
            _offload(w, o)
        if smaller:
            items = [_small_item(w, r) for r in smaller]
            w.say("big_smaller", items=("；" if w.lang == "zh" else "; ").join(items))

    def summary(self, tool: ToolName, result: BaseModel, lang: str) -> str:
        if isinstance(result, VramResult) and result.fit is not None:
            f = result.fit
            return f"{result.model} {result.precision}: {f.num_gpus}x {f.gpu} {'fits' if f.fits else 'no'}"
        return str(tool)


def _split(turn: Turn) -> tuple[list[VramResult], list[VramResult]]:
    """(the big model on the servers, the family's smaller models), by the scenario's model."""
    s = turn.plan.scenario
    try:
        big = resolve_model(s.model)[0].name if s.model else None
    except AdvisorError:
        big = None
    results = [r for r in turn.own(BigModel.intent, VramResult) if r.fit is not None]
    return [r for r in results if r.model == big], [r for r in results if r.model != big]


def _servers(w: Writer, rows: list[VramResult]) -> None:
    """One line per server class: fits on one node, or how many GPUs (nodes) it takes."""
    first = rows[0]
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
    w.add("\n".join(f"- {line}" for line in lines))
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
