"""The user's own machine: whether the GPUs named are theirs already, system RAM, and the CPU platform.

"我只有一张 3090" and "I have 8x A10G" make the named GPUs the question (sized on exactly them, never "buy 8");
"64G 内存", "256GD4", "DDR4 内存管够" and the CPU ("双路至强", "EPYC", "i9") give the RAM and its bandwidth for
CPU offload (tools/offload.py). Wording lives in lexicon.yaml `machine`.
"""

from __future__ import annotations

import re
from functools import cache

from assistant.understanding.card_joins import owned_after, owned_card
from assistant.understanding.lexicon import _lex
from assistant.understanding.numbers import _in_range, _number
from assistant.understanding.patterns import _c, _langs, _rx
from assistant.understanding.text import _GpuSpan, _State


@cache
def _patterns() -> dict[str, object]:
    raw = _lex().raw["machine"]
    return {
        "owns": _rx(_langs(raw["owns"])),
        "ram": [_c(p) for p in raw["ram"]],
        "ram_type": _c(raw["ram_type"]),
        "ram_plenty": _rx(raw["ram_plenty"]),
        "machines": [(name, _rx(words)) for name, words in raw["machines"].items()],
        "minimum": _rx(_langs(_lex().raw["asks_minimum"])),
        "per_card": _rx(_langs(_lex().raw["asks_per_card"])),
    }


def _ram_gib(m: re.Match[str]) -> float:
    """The RAM a match states: one size, or a stick's size times the sticks ("8g*2", "2x16GB RAM")."""
    sticks = m.groupdict().get("n")
    return _number(m.group("v")) * (int(sticks) if sticks else 1)


def _machine(st: _State) -> None:
    """RAM size and type, the CPU platform, and whether the GPUs named are the user's own."""
    p, q, text = _patterns(), st.q, st.t.text
    for rx in p["ram"]:  # type: ignore[attr-defined]  # every RAM figure: "64 or 128 ... I can order up to 192GB"
        q.ram_mentions += [v for m in rx.finditer(st.t.view) if (v := _in_range(_ram_gib(m), 1, 65536))]
    for rx in p["ram"]:  # type: ignore[attr-defined]
        m = rx.search(st.t.view)
        if m and _in_range(_ram_gib(m), 1, 65536):
            q.ram_gib = _ram_gib(m)
            st.t.take(m.start(), m.end())  # the sticks' count with it: "内存：8g*2" is no GPU count
            break
    m = p["ram_type"].search(text)  # type: ignore[attr-defined]
    if m:
        gen = m.group("gen") or m.group("gen2")
        q.ram_type = f"ddr{gen}-{m.group('speed')}" if m.group("speed") else f"ddr{gen}"
    q.ram_plenty = bool(p["ram_plenty"].search(text))  # type: ignore[attr-defined]
    q.asks_minimum = bool(p["minimum"].search(text))  # type: ignore[attr-defined]
    q.asks_per_card = bool(p["per_card"].search(text))  # type: ignore[attr-defined]
    q.machine = next((name for name, rx in p["machines"] if rx.search(text)), None)  # type: ignore[attr-defined]
    if q.machine == "old_server" and q.ram_type and q.ram_type.startswith("ddr5"):
        q.machine = "server"  # a Xeon with DDR5 is a current one (Sapphire Rapids and later)
    if q.machine in ("server", "server_2s") and q.ram_type and q.ram_type.startswith("ddr4"):
        # a server with DDR4 is an older generation: two Xeon Scalable sockets (6 channels each), or one EPYC
        # 7002/7003 (8 channels), not today's 12-channel DDR5 parts
        q.machine = "old_server" if q.machine == "server_2s" else "server_ddr4"
    mac_described = _apple_memory(st)
    _offload_engine(st)
    # a machine described (its RAM, its CPU) next to the card is the user's own machine
    described = q.ram_gib is not None or q.machine is not None or mac_described
    q.upgrade_to = bought_card(st.t.view, st.gpus)  # "I have a 3050 ... might buy a 4090": the card weighed
    owned = described or bool(p["owns"].search(_without_names(st))) or _acquired(st)  # type: ignore[attr-defined]
    owned = owned or bool(owned_after(st.t.view, st.gpus))  # "Got a 4090 already", "4090 我已经有了"
    q.owns_hardware = bool(st.gpus) and owned
    q.owned_gpu = owned_card(st.t.view, st.gpus, q.upgrade_to) if owned else None


@cache
def _apple_memory_rx() -> list[re.Pattern[str]]:
    return [_c(p) for p in _lex().raw["gpus"]["apple_memory"]]


def _apple_memory(st: _State) -> bool:
    """A Mac whose memory is stated apart from its chip ("Chip: Apple M4 Max ... Memory: 48 GB", "M2。24G内存"): the
    chip at that size, and no RAM besides it (unified memory is the GPU's memory, not room to offload into).
    Returns whether the Mac's memory was stated (a machine described is the user's own)."""
    from assistant.understanding.hardware import _apple_with_memory
    from tools.catalog import catalog

    q = st.q
    spec = catalog().get(q.gpu or "")
    if spec is None or spec.vendor != "apple":
        return False
    found = (m for rx in _apple_memory_rx() if (m := rx.search(st.t.text)))
    m = next(found, None)
    gib = _in_range(_number(m.group("v")), 4, 1024) if m else None
    if gib is None:
        return False
    other = _apple_with_memory(spec.id, gib, chip_named=True) if abs(gib - spec.vram_gib) > 0.5 else spec.id
    if other is None:
        return False
    q.gpu_mentions = [other if g == q.gpu else g for g in q.gpu_mentions]
    q.gpu_counts = {other if g == q.gpu else g: n for g, n in q.gpu_counts.items()}
    q.gpu = other
    if q.ram_gib is not None and abs(q.ram_gib - gib) < 0.5:
        q.ram_gib = None
    return True


def acquired_words() -> list[str]:
    """Getting words ("got", "入手") that say ownership only right before a card (lexicon machine.owns_next_to_card)."""
    words = _lex().raw["machine"]["owns_next_to_card"]
    return [*words["zh"], *words["en"]]


@cache
def _acquired_rx() -> re.Pattern[str]:
    return re.compile(r"(?<![a-z])(?:" + "|".join(acquired_words()) + r")(?![a-z])[^,，;；。.?？!！]{0,12}$", re.I)


def _acquired(st: _State) -> bool:
    """ "got a 3090 at home", "just got two 4090s": a getting word with the card right after it."""
    return any(_acquired_rx().search(st.t.view[max(0, g.start - 24) : g.start]) for g in st.gpus)


# "I have $3000", "我有1.5万", "手上有 2w 预算": what they have is money (a budget), not hardware
_HAS_MONEY = re.compile(
    r"(?:i have|i've got|i got|we have|我有|我只有|手上有|手头有|手里有|我们有)\s*(?:(?:about|around|only|大概|约)\s*)?"
    r"(?:[$¥€£]\s*\d[\d,.]*\s*(?:k\b)?|\d[\d,.]*\s*(?:k\b|w\b|万|千|块|元|dollars?|bucks|usd|rmb|eur|€|£))",
    re.I,
)


def _without_names(st: _State) -> str:
    """The text with GPU spans blanked, so "My" inside a name never reads as ownership, and money one has too."""
    chars = list(st.t.text)
    for g in st.gpus:
        chars[g.start : g.end] = " " * (g.end - g.start)
    return re.sub(r"\s+", " ", _HAS_MONEY.sub(" ", "".join(chars)))


def _offload_engine(st: _State) -> None:
    """ "ktransformers": an engine that runs a model from RAM by design (system_memory.yaml offload_engines); with
    no model named, the model its tutorials run."""
    from tools.offload import memory_table

    q, text = st.q, st.t.text.lower()
    engines = memory_table().get("offload_engines", {})
    q.offload_engine = next((name for name in engines if name in text), None)


def engine_default_model(st: _State) -> None:
    """No model, no size, no family named, and an offload engine named: the model its tutorials run. Called after
    every model and size reader (understanding/models.py), so "distill的70B" is never replaced by it."""
    from tools.offload import memory_table

    q = st.q
    # "[ktransformers] 4080S 16G 内存64G 能跑多少B的模型": the biggest model the machine holds, not the tutorial's
    ceiling = bool(_lex().intent_rx["capacity"].search(st.t.text))
    if q.offload_engine and not (q.model or q.params_b is not None or q.unknown_model or q.model_family or ceiling):
        q.model = memory_table()["offload_engines"][q.offload_engine]["model"]
        q.model_how = "engine_default"
        q.models_mentioned = [q.model]
    full = _lex().raw["models"]["full_size_default"]
    only_family = q.unknown_model and q.model_family in full["families"]  # "满血版 DeepSeek"
    unnamed = not (q.model or q.params_b is not None or q.unknown_model or q.model_family)
    if (unnamed or only_family) and not q.model and re.search(full["pattern"], st.t.text):
        q.model, q.model_how, q.unknown_model, q.model_suggestions = full["model"], "registry", None, []
        q.models_mentioned = [q.model]


# "有谁用过Mac Studio微调的 — 这个如果是192G的话": a Mac's memory said later in the same sentence, with no number,
# other machine or card word in between (those sizes belong to the other side: "Mac Studio vs a PC with 64GB")
_MEMORY_LATER = re.compile(
    r"^(?P<gap>[^0-9。.!?！？\n]{0,30}?)(?<![0-9.])(\d{2,3})\s*(?:gb|g)(?![a-z0-9])"
    r"(?!\s*(?:of\s+)?(?:ddr|内存|ram|system|sys|显存|vram))",
    re.I,
)
_OTHER_MACHINE = re.compile(r"pc|电脑|显卡|card|gpu|nvidia|rtx|server|服务器|主机|laptop|笔记本", re.I)


def memory_said_later(view: str, end: int) -> float:
    """The memory size a few words after a machine's name (0 when none): hardware.py reads it only for a Mac,
    where the one machine sold with that much unified memory is the one meant."""
    m = _MEMORY_LATER.match(view[end : end + 40])
    return 0.0 if m is None or _OTHER_MACHINE.search(m.group("gap")) else float(m.group(2))


# a buy word before a card, in the same clause ("I might buy an RTX 4090", "想入手一张 4090", "upgrade to a 5090")
_BUY_BEFORE = re.compile(
    r"(?:\bbuy(?:ing)?|\bget(?:ting)?|\bpurchas(?:e|ing)|\border(?:ing)?|\bupgrad(?:e|ing) to"
    r"|\bchang(?:e|ing)(?: it)? to|\bswitch(?:ing)?(?: it)? to|\breplac(?:e|ing) it with|买|入手|换|升级到?|添置)"
    r"[^,，;；。.?？!！]{0,14}$",
    re.I,
)


def bought_card(view: str, spans: list[_GpuSpan]) -> str | None:
    """Of exactly two cards named (one may be unknown: "RTX 3050"), the one a buy word comes before, when the other
    has none: "I currently have an RTX 3050 ... I might buy an RTX 4090" weighs the 4090."""
    if len({s.value or s.text.lower() for s in spans}) != 2:
        return None
    bought = {s.value for s in spans if _BUY_BEFORE.search(view[max(0, s.start - 24) : s.start])}
    others = {s.value for s in spans} - bought
    return next(iter(bought)) if len(bought) == 1 and others and None not in bought else None
