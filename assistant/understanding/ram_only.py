"""A model named beside the machine's RAM and no GPU ("Running a 70B model with 16GB RAM", "16G内存能跑 deepseek-r1:32b
吗", "Is 64GB of RAM enough for Qwen2.5-32B?"): the question is whether that RAM holds it and how fast the CPU runs it,
so the offload answer (tools/offload.py: the RAM it needs against the RAM there is, tokens/s from RAM bandwidth)
leads, before any GPU sizing."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from assistant.understanding.text import _State

_TRAINING = ("full", "lora", "qlora")
# the split itself asked: layers or part of the model moved to RAM, -ngl / num_gpu, a low-VRAM mode ("CPU only" is not)
_SPLIT = re.compile(
    r"offload|卸载|low[- ]?vram|-ngl|n_gpu_layers|gpu[- ]layers|num_gpu|"
    r"(?:layers?|weights?|part of (?:the |a )?model)\b.{0,30}\b(?:to|into|in) (?:the )?(?:system )?(?:ram|memory)|"
    r"(?:一部分|部分|层).{0,10}(?:放|挪|移|卸载)?.{0,4}(?:到|进|在)?内存",
    re.I,
)
_VRAM = re.compile(r"vram|显存|gpu memory|video memory", re.I)  # GPU memory named, not "memory usage" of RAM
# their own answers lead: how much RAM to buy, which CPU, a slow run, a comparison, money
_OWN_LEAD = ("ram", "host", "diagnose", "compare", "cost", "rent_where", "api", "recommend", "build", "capacity")


def ram_only_run(st: _State) -> None:
    """The RAM's verdict leads when a model and the machine's RAM are named and no GPU or card size is: a run on the
    CPU from that RAM, not a purchase nor a fine-tune."""
    q = st.q
    if q.ram_gib is None or q.gpu_mentions or q.unknown_gpu or q.stated_capacity_gib or not (q.model or q.params_b):
        return
    if q.mode in _TRAINING or q.fine_tune_unspecified or q.budget or q.monthly_budget or q.is_followup:
        return
    if q.cpu_only_option:  # "纯CPU 加 大内存 ... 16G内存能运行 deepseek-r1:32b 吗": the machine is said, not a build
        q.intents = [i for i in q.intents if i != "build"]
    if any(k in q.intents for k in _OWN_LEAD) or _VRAM.search(st.t.text):
        return  # "32GB RAM; how much VRAM does a 70B need?": the GPU memory asked leads
    q.intents = ["offload", *[i for i in q.intents if i != "offload"]]


def layers_to_ram(st: _State) -> None:
    """ "Low VRAM mode? any way to move layers to system RAM on my 3060?", "ollama 能不能把层卸载到内存": a card and the
    split asked, no model: how -ngl / num_gpu split a model, with the models that card then runs (the offload answer),
    before what the card holds whole or whether the engine runs on it."""
    q = st.q
    card = q.gpu_mentions or q.stated_capacity_gib
    if not card or q.model or q.params_b or q.mode in _TRAINING or q.fine_tune_unspecified or q.is_followup:
        return
    # "最多能部署哪个 Qwen？offload 有推荐配置吗": the biggest model asked;
    # "官方说要 24G，我的 12G 能卸载吗": the quoted need leads (stated_need.py); "一直只用CPU": a symptom, diagnosed
    if q.capacity_asked or q.min_vram_gib or q.quoted_memory_gib or q.symptom or not _SPLIT.search(st.t.text):
        return
    q.intents = ["offload", *[i for i in q.intents if i not in ("offload", "capacity")]]
