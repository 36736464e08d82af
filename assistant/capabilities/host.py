"""Host: the CPU, RAM type, channels and sockets to buy for a model run mostly from system RAM ("what kind of
processor is needed, how many channels should RAM have? DDR5?", "和cpu主频核心数量有关系吗，单路和双路哪个快").

With the weights (or a MoE model's routed experts) in RAM, each token reads them from RAM once, so decode speed is
RAM bandwidth = channels x transfer rate x 8 bytes (knowledge/data/system_memory.yaml): the platform's channel
count decides it, the CPU's cores and clock barely do (they set the prompt's prefill). So the answer leads with
the same model on one GPU plus RAM on each current platform class (a desktop, an 8-channel workstation, a
12-channel EPYC, two sockets), from estimate_offload, and the GPU's small share.
"""

from __future__ import annotations

from pydantic import BaseModel

from assistant.capabilities.base import Capability, PlanContext, Turn
from assistant.capabilities.big_model import too_big_for_cards
from assistant.strings import Writer
from assistant.toolset import ToolName
from tools.advice import policy
from tools.catalog import catalog
from tools.offload import OffloadResult, memory_table

# The platform classes compared, smallest first (system_memory.yaml `machines`): DDR5 desktops, workstations,
# one and two server sockets; the DDR4 classes only when the user's RAM is DDR4.
_MACHINES = ("desktop", "workstation", "server", "server_2s")
_MACHINES_DDR4 = ("desktop_ddr4", "server_ddr4", "old_server")


_GPU_MACHINE = "server"  # where the cards named are compared: one EPYC socket, the platform most such builds use
_MAX_OTHER_GPUS = 2


def _other_gpus(mentions: list[str], gpu: str) -> list[str]:
    cards = catalog()
    return [g for g in mentions if g != gpu and g in cards and cards[g].segment != "apple"][:_MAX_OTHER_GPUS]


def _machines(ram_type: str | None, text: str = "") -> tuple[str, ...]:
    """DDR4 platforms only when DDR4 is the RAM named ("DDR4 or DDR5?" weighs both: the DDR5 classes answer it)."""
    ddr4 = (ram_type or "").lower().startswith("ddr4") and "ddr5" not in text.lower()
    return _MACHINES_DDR4 if ddr4 else _MACHINES


def _platform_results(turn: Turn, names: tuple[str, ...]) -> list[OffloadResult]:
    """Each platform's estimate in `names` order, then the other cards': a call another capability also planned
    ("单路还是双路" reads the user's platform as two sockets) runs once under that capability, so match by args."""
    own = [o for o in turn.outcomes if o.call.owner == "host" and isinstance(o.result, OffloadResult)]
    if not own:
        return []
    gpu = own[0].call.args.get("gpu")
    found: dict[str, OffloadResult] = {}
    for o in turn.outcomes:
        args = o.call.args
        if isinstance(o.result, OffloadResult) and args.get("gpu") == gpu and args.get("machine") in names:
            found.setdefault(args["machine"], o.result)
    others = [o.result for o in own if o.call.args.get("gpu") != gpu]
    if len(found) < len(names):
        return [o.result for o in own]  # not every platform estimated: the calls as planned
    return [found[m] for m in names] + others


class Host(Capability):
    intent = "host"
    cites_guides = False

    def plan(self, ctx: PlanContext) -> None:
        """Planned beside the question when it asks about the CPU or RAM platform of a model that runs from RAM."""
        s, p = ctx.scenario, ctx.parsed
        if not p.asks_host_platform or not s.model or (s.mode or "inference") != "inference":
            return
        if not (too_big_for_cards(s.model) or s.offload_engine or "offload" in ctx.intents):
            return
        rules = policy()["big_model"]
        gpu = s.gpu if s.gpu and catalog()[s.gpu].segment != "apple" else rules["offload_gpu"]
        args = dict(model=s.model, precision=rules["offload_precision"], context_tokens=rules["context_tokens"])
        for machine in _machines(s.ram_type, p.text):
            ctx.add(self.intent, ToolName.ESTIMATE_OFFLOAD, **args, gpu=gpu, num_gpus=s.num_gpus or 1, machine=machine)
        # "does the GPU need to be a 4090? I have a 2080 Ti 22G": the other cards named, on the one-socket server
        for other in _other_gpus(p.gpu_mentions, gpu):
            ctx.add(self.intent, ToolName.ESTIMATE_OFFLOAD, **args, gpu=other, num_gpus=1, machine=_GPU_MACHINE)

    def records(self, tool: ToolName) -> bool:
        return False  # reference platforms, not the user's machine

    def phase(self, turn: Turn) -> int:
        return -3  # the platform question is the one asked: RAM bandwidth leads, the deployment follows

    def render(self, w: Writer, turn: Turn) -> None:
        machines = memory_table()["machines"]
        names = _machines(turn.plan.scenario.ram_type, turn.parsed.text)
        results = _platform_results(turn, names)
        rows = [
            w.t(
                "host_platform_item",
                label=w.label("host_machine", m),
                channels=r.ram.channels,
                memory=r.ram.memory.upper(),
                tps=r.decode_tokens_per_s,
            )
            for m, r in zip(names, results[: len(names)], strict=False)
            if machines[m]["max_ram_gib"] >= r.ram_needed_gib  # a desktop takes 192 GB: not for 380 GiB of experts
        ]
        if not results or not rows:
            return
        first = results[0]
        w.say(
            "host_platform_lead",
            model=first.model,
            precision=first.precision,
            gpu=first.gpu or "-",
            in_ram=first.in_ram_gib,
            ram=first.ram_needed_gib,
            rows=w.t("host_platform_sep").join(rows),
        )
        same = [r for m, r in zip(names, results, strict=False) if m == _GPU_MACHINE][:1] + results[len(names) :]
        if len(same) > 1:
            items = [w.t("host_platform_gpu_item", gpu=r.gpu or "-", tps=r.decode_tokens_per_s) for r in same]
            w.say(
                "host_platform_gpus",
                label=w.label("host_machine", _GPU_MACHINE),
                items=w.t("host_platform_sep").join(items),
            )
        w.say("host_platform_advice", kind=first.ram.memory[:4].upper(), numa=round(memory_table()["numa_share"] * 100))

    def summary(self, tool: ToolName, result: BaseModel, lang: str) -> str:
        if not isinstance(result, OffloadResult):
            return str(tool)
        return f"{result.ram.channels}-channel {result.ram.memory}: {result.decode_tokens_per_s} tokens/s"
