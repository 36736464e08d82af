"""The capability registry: one module per question type, looped over by the planner, the composer, the
scenario and the tool-bubble summaries.

Adding a question type = one module here (a `Capability` subclass) + its entry in REGISTRY + its intent
keywords in knowledge/data/lexicon.yaml + its sentences in the string catalog.
"""

from __future__ import annotations

from functools import cache

from assistant.capabilities.api_cost import ApiCost
from assistant.capabilities.app_fit import AppFit
from assistant.capabilities.base import Capability
from assistant.capabilities.big_model import BigModel
from assistant.capabilities.buy_instead import BuyInstead
from assistant.capabilities.capacity import Capacity
from assistant.capabilities.card_count import CardCount
from assistant.capabilities.card_needed import CardNeeded
from assistant.capabilities.catalog import Catalog
from assistant.capabilities.cheaper import CheaperWay
from assistant.capabilities.compare import Compare
from assistant.capabilities.cost import Cost
from assistant.capabilities.cpu_or_gpu import CpuOrGpu
from assistant.capabilities.diagnose import Diagnose
from assistant.capabilities.fit import Fit, FitOption
from assistant.capabilities.fleet import Fleet
from assistant.capabilities.guides import Guides
from assistant.capabilities.host import Host
from assistant.capabilities.mac_or_pc import MacOrPc
from assistant.capabilities.memory import Memory
from assistant.capabilities.memory_formats import MemoryFormats
from assistant.capabilities.methods_lead import MethodsLead
from assistant.capabilities.named_cards import NamedCards
from assistant.capabilities.offload import Offload
from assistant.capabilities.offload_count import OffloadCount
from assistant.capabilities.pcie_lanes import PcieLanes
from assistant.capabilities.per_card import PerCard
from assistant.capabilities.pooled import PooledCards
from assistant.capabilities.quoted_need import QuotedNeed
from assistant.capabilities.ram import Ram
from assistant.capabilities.recommend import Recommend
from assistant.capabilities.rent import Rent
from assistant.capabilities.risk import Risk
from assistant.capabilities.rl import RL
from assistant.capabilities.ruled_out import RuledOutCard
from assistant.capabilities.same_chip import SameChip
from assistant.capabilities.scaling import Scaling
from assistant.capabilities.smalltalk import Help, OutOfScope
from assistant.capabilities.specs import Specs
from assistant.capabilities.speed import Speed
from assistant.capabilities.step_up import StepUp
from assistant.capabilities.support import Support
from assistant.capabilities.training import Training, TrainingLead, TrainingTime
from assistant.capabilities.vision_train import VisionTrain
from assistant.capabilities.workstation import Workstation
from assistant.toolset import ToolName

REGISTRY: tuple[Capability, ...] = (
    Risk(),  # an old, modified or multi-GPU card: what an expert warns about leads the answer
    Support(),  # "will X run on Y": its verdict can decide the rest of the answer
    Diagnose(),  # "why is it slow / why does it OOM": the measured number against the ceiling leads
    CpuOrGpu(),  # "the CPU alone or a GPU, which is faster?": both speeds of one model, first
    MacOrPc(),  # "a Mac or an x86 PC with a GPU?": one model on both, the model's memory decides, first
    Host(),  # the CPU / RAM platform asked for a model run from RAM: RAM bandwidth by platform, first
    BigModel(),  # a model too big for any card: the servers, the RAM-offload way and smaller models, first
    Fleet(),  # a request rate: how many GPUs, as replicas
    CardCount(),  # "4090 需要几张": the count at 4-bit, 8-bit and as published, first
    MemoryFormats(),  # "how much VRAM does X need": the memory and card at each format, first
    BuyInstead(),  # a card about to be bought that does not hold the model: the one that would
    Ram(),  # how much system RAM, and whether more is faster
    RL(),  # reinforcement-learning fine-tuning: the policy plus reference, critic, reward and rollout models
    Memory(),
    Speed(),
    Fit(),
    FitOption(),  # the other hardware options of a fit question, after the first
    Training(),  # after memory / fit / speed: a fine-tune's other methods, and why a run that fits still OOMs
    TrainingLead(),  # a memory figure the user quotes for a fine-tune, confirmed or corrected first
    OffloadCount(),  # "how many cards?" for a full fine-tune with CPU offload: the count without it, first
    QuotedNeed(),  # a memory figure quoted for a fine-tune, no model named: against one card and all of them, first
    PerCard(),  # "each card's memory or the total?" for a training job on several cards: each card's, first
    PcieLanes(),  # "does it depend on PCIe bandwidth?", "an x1 slot?": the link's part in the job, first
    SameChip(),  # two versions of one GPU that differ only in memory: the bigger one is no faster, first
    Scaling(),  # "双卡吞吐达不到单卡两倍", "TP=8 only 1.5x": replicas of the fewest cards that hold it, first
    PooledCards(),  # several cards named by their memory for a training job: does their memory add up, first
    MethodsLead(),  # a fine-tune with no method named: each method's verdict first
    TrainingTime(),  # "how long" with no card named: the hours on the card the job needs
    VisionTrain(),  # a ResNet / YOLO / DeepLab-class network: the user's card enough, or the card to buy, first
    AppFit(),  # an application that is no LLM (IndexTTS, Stable Diffusion, 3DGS): its memory on the card, first
    Capacity(),
    StepUp(),  # after what a small card the user owns runs: the card to buy next
    Offload(),
    Recommend(),
    ApiCost(),  # "API or my own GPU?": the monthly bill both ways and the break-even volume
    Rent(),  # "where can I rent X": dated offers cheapest first
    Cost(),
    Workstation(),
    Catalog(),
    Compare(),
    Specs(),
    CheaperWay(),
    CardNeeded(),
    RuledOutCard(),  # a card ruled out beside the one asked ("A100国内很难买到"): named, with what is sold instead
    NamedCards(),  # a card the user named that no part placed: one line, last before the sources
    Guides(),
    Help(),
    OutOfScope(),
)


@cache
def _by_intent() -> dict[str, Capability]:
    return {c.intent: c for c in REGISTRY}


@cache
def _by_tool() -> dict[ToolName, Capability]:
    return {tool: c for c in REGISTRY for tool in c.owns}


def capability(intent: str) -> Capability:
    """The capability answering `intent` (KeyError names the known intents)."""
    try:
        return _by_intent()[intent]
    except KeyError:
        raise KeyError(f"no capability for intent {intent!r}; known: {', '.join(_by_intent())}") from None


def intents() -> list[str]:
    return list(_by_intent())


def home_of(tool: str) -> Capability | None:
    """The capability a tool belongs to (its summary and scenario fields), None for an unknown tool."""
    try:
        return _by_tool().get(ToolName(tool))
    except ValueError:
        return None


__all__ = ["REGISTRY", "Capability", "capability", "home_of", "intents"]
