"""knowledge/data/lexicon.yaml compiled once per process into the patterns every extractor reads."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from assistant.understanding.patterns import _MASK, _NUM, _alt, _c, _langs, _rx
from tools._data import load_yaml

# Intents with rules of their own in `_intents`; every other intent in lexicon.yaml is read from its keywords.
_RULED_INTENTS = ("memory", "fit", "gpu_info", "compare", "concept", "help", "out_of_scope", "support")


def lexicon_pattern(words: list[str]) -> re.Pattern[str]:
    """A word list compiled the way the lexicon's own lists are (word guards, case-insensitive)."""
    return _rx(words)


def lexicon_raw() -> dict[str, Any]:
    """The lexicon as written (knowledge/data/lexicon.yaml), for word lists read outside the parser."""
    return _lex().raw


def persona_in(text: str) -> set[str]:
    """Every kind of user the text names ("Small team or lab" -> team), not only the first by priority."""
    return {who for who, words in _lex().persona if words.search(text)}


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
    rx["persona_later"] = _rx(raw["persona_later"])
    rx["whole_machine"] = _rx(raw["whole_machine"])
    for flag in (
        "used_market",
        "interruptible",
        "image_generation",
        "serving",
        "serving_personal",
        "pc_alternative",
        "pc_class",
        "vendor_apple",
        "asks_if_needed",
        "asks_availability",
        "asks_training_fit",
        "asks_concurrency",
        "in_china",
        "asks_host_ram",
    ):
        rx[flag] = _rx(raw[flag])
    rx.update({f: _rx(raw[f]) for f in ("asks_host_platform", "cpu_only_option")})  # capabilities/host, cpu_or_gpu
    for pref, words in raw["preference"].items():
        rx[f"pref_{pref}"] = _rx(words)


def _registry_families(listed: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every family the model registry holds is a family word too ("MiniCPM-2B", "CodeGeeX2-6B", "Grok-1"), so
    a model added to the registry is understood without a lexicon edit; listed patterns keep their `to`/`bare`.
    Never bare: a family word alone is a word, only a version or size attached makes it a model name."""
    from tools.models import registry

    known = [_c(f"(?:{f['pattern']})$") for f in listed]
    names = {m.family for m in registry().values()} - {"generic"}
    extra = sorted((n for n in names if not any(rx.match(n) for rx in known)), key=len, reverse=True)
    return [{"pattern": re.escape(n).replace("\\-", "[- ]?"), "to": n} for n in extra]


def _compile_names(lex: _Lexicon) -> None:
    raw, rx, cn, en = lex.raw, lex.rx, lex.cn, lex.en
    models = raw["models"]
    families = [*models["families"], *_registry_families(models["families"])]
    lex.families = [(_c(f"(?:{f['pattern']})$"), f["to"], bool(f.get("bare"))) for f in families]
    family = "|".join(f"(?:{f['pattern']})" for f in families)
    not_part = "|".join(models["not_name_parts"])
    joined = f"[-_](?!(?:{not_part})(?![a-z0-9]))[a-z0-9.]*[a-z0-9]"  # "-Instruct", "-open"; never "-AWQ"
    version = "(?:[-_.]?v?\\d+(?:\\.\\d+)*(?:vl|[a-z])?)?"  # "qwen3vl", "qwen2.5vl": the VL glued on
    spaced = f"\\s(?:{models['space_parts']})(?![a-z0-9])"
    rest = f"{version}(?:{joined})*(?:{spaced}(?:{joined})*)*"
    # an Ollama tag after the name ("deepseek-r1:32b", "llama3.1:70b-instruct-q4_K_M"); an org or host before it
    # ("Qwen/", "hf.co/bartowski/"), read from the host, never from inside it ("huggingface.co/rhaymison/Llama-3-...")
    tag = "(?::[a-z0-9][\\w.-]{0,40})?"
    tag += "(?:\\s?[(（]\\s?\\d+(?:\\.\\d+)?\\s?[bm][)）])?"  # "LLaMA 2(70B)": the size in brackets belongs to the name
    org = "(?:[a-z0-9][\\w.-]{0,30}/){0,2}"
    rx["model"] = _c(f"(?<![a-z0-9.])(?<![a-z0-9.]/)(?P<org>{org})(?P<fam>{family})(?P<rest>{rest}{tag})(?![a-z0-9])")
    rx["model_generic"] = _c(f"(?<![a-z0-9]){models['generic']}(?![a-z0-9])")
    rx["moe_size"] = _c(r"(?<![a-z0-9])\d{1,2}x\d{1,3}b(?![a-z0-9])")
    rx["not_model"] = _c(f"(?:{'|'.join(models['not_models'])})$")
    rx["coding"], rx["unquantized"] = _c(models["coding_purpose"]), _c(models["unquantized"])
    g = raw["gpus"]
    core = "|".join(f"(?:{p})" for p in g["patterns"])
    # "4xRTX A6000", "2xA100": a count glued to the name with "x" is no letter of the name; "2H100", "8A100": a
    # one-digit count glued to a data-center name (a letter and two or more digits) is a count too
    glued = "(?<=(?<![0-9.a-z])[1-9])(?=(?:a|h|b|v|l|gb)\\d{2})"
    rx["gpu"] = _c(
        f"(?:(?<=\\dx)|(?<=\\d×)|{glued}|(?<![a-z0-9]))(?P<core>(?:{core}){g['suffix']})(?P<plural>s)?(?![a-z0-9])"
    )
    rx["gpu_unknown"] = _rx(g["unknown_words"])
    rx["gpu_replaced"] = _c(f"(?:{g['replaced_words']})[^.?!。？！]{{0,30}}$")
    # a memory size after a card's name ("4090 48G", "RTX4090-24G"), not digits inside the name ("A10G", "T4G")
    rx["gpu_memory"] = _c(r"[\s_-]*(?<![a-z0-9])(\d{1,3})\s*(?:gb|gib|g)(?![a-z0-9])")
    lex.long_tail = [(_c(p["pattern"]), p["prefix"]) for p in g["long_tail_prefixes"]]
    cls, machine = g["count_classifiers"], g["machine_classifier"]
    count_words = "|".join(raw["numerals"]["zh_count_words"])
    # "a 2nd 4090": the ordinal is how many of that card there will be
    # (a whole number: "a 24GB 4090" is one card, not "2" and a "4GB" card size)
    count = (
        f"(?:(?<![0-9.$¥])(?P<n>\\d{{1,4}})(?![0-9])(?:nd|rd|th)?\\s*(?:{cls})?"
        f"|(?P<c>{cn})\\s*(?:{cls})|(?P<e>{en})[\\s-]*(?:{cls})?)"
    )
    machines = f"(?:(?P<m>\\d{{1,3}}|{cn})\\s*(?:{machine})\\s*)?"
    condition = f"(?:{g['condition_words']})"
    rx["count_before"] = _c(
        f"{machines}(?:{count}|(?P<w>{count_words})\\s*(?:卡)?)\\s*(?:卡|显卡)?\\s*(?:{condition}\\s*)?(?:的\\s*)?"
        f"(?:(?:{g['card_size']})\\s*|(?<=[张块个片卡\\s])\\d{{2,3}}\\s+)?(?:[(（]\\s*)?$"  # "8*24G A10G", "8*(v100"
    )
    after_cls = g["count_after_classifiers"]
    # "4090×2", "A100 8卡", "RTX4090 24Gx2张", "A100（40G）× 4" (the card's memory before the count)
    size = "(?:\\(?\\s*\\d{1,3}\\s*(?:gb|g)\\s*\\)?\\s*)?" + f"(?:(?:{g['count_after_descriptors']})\\s*)?"
    rx["count_after"] = _c(
        f"^\\s*{size}(?:[x×*]\\s*(?P<n>\\d{{1,4}})(?![0-9.])|(?P<c>\\d{{1,4}}|{cn})\\s*(?:{after_cls}))"
    )
    rx["count_general"] = _c(
        f"(?:(?<![0-9.a-z_])(?P<n>\\d{{1,4}})(?![0-9.])(?!(?<=\\d{{3}})显卡)|(?P<c>{cn})|(?P<e>{en})|(?P<w>{count_words}))"
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
    rx["watt_context"] = _c(money["watt_context"])
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
    week = _alt(t["week_rate_words"])
    rx["hours_week_first"] = _c(f"(?:{week})\\s*{filler}{span}\\s*(?:个)?\\s*{hours}")
    rx["hours_hours_first_week"] = _c(
        f"{span}\\s*{hours}\\s*{use}\\s*(?:(?:/|per|a|每|一)\\s*)?(?:个)?(?:{week}|周|weeks?)"
    )
    rx["hours_day_first"] = _c(f"(?:{day})\\s*{filler}{span}\\s*(?:个)?\\s*{hours}")  # "每天 2h"
    rx["hours_hours_first"] = _c(
        f"{span}\\s*{hours}\\s*(?:of use|of usage|usage|use)?\\s*(?:/|per|a|每|一)?\\s*(?:{day})"  # "2h a day"
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
        # "512+ ctx", "4k+ 上下文": at least that long, sized at the length named
        f"(?P<v>{_NUM})\\s*(?P<k>k|m)?\\s*\\+?\\s*(?:的)?\\s*(?:{words}|(?P<tok>{tokens}))(?![a-z])"
        f"(?!\\s*(?:{ctx['rate_after']}))"
    )
    rx["ctx_word_first"] = _c(f"(?:{words})\\s*(?:{glue}|\\s)*(?P<v>{_NUM})\\s*(?P<k>k|m)?(?![a-z])")
    rx["ctx_wan"] = _c(f"(?P<v>{_NUM})\\s*万\\s*(?:{tokens}|上下文)")
    rx["ctx_bare_k"] = _c(f"(?<![\\w$¥.])(?P<v>{ctx['bare_k']})\\s*(?P<k>k)(?![a-z0-9])")
    rx["ctx_output"] = _c(f"(?:{ctx['output_words']})\\W{{0,3}}$")
    rx["ctx_source_target"] = _c(ctx["source_target"])
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
    rx["stated_capacity_after"] = _c(raw["stated_capacity_after"])
    rx["stated_capacity_enough"] = _c(raw["stated_capacity_enough"])
    rx["stated_capacity_before"] = _c(raw["stated_capacity_before"])
    rx["stated_capacity_need_before"] = _c(raw["stated_capacity_need_before"])
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
    # "4090 有 48G" is the card's memory; "3090 with 128GB RAM" is the machine's
    ram = "(?!\\s*(?:of\\s+)?(?:system\\s+|host\\s+)?(?:ddr\\d?|ram\\b|内存|memory\\s*\\(ram))"
    rx["vram_after_gpu"] = _c(f"\\s*(?:{claims['stated_after_gpu']})\\s*(?:only\\s*)?{vram}{ram}")
    lex.concepts = {name: _rx(p) for name, p in raw["concepts"].items()}
    options = raw["training_options"]
    rx["lora_rank"] = _c(options["lora_rank"])
    rx["lora_rank_context"] = _c(options["lora_rank_context"])
    rx["lora_targets_attention"] = _c(options["lora_targets_attention"])
    rx["lora_targets_all"] = _c(options["lora_targets_all"])
    rx["fused_loss"] = _c(options["fused_loss"])
    rx["four_bit_default"] = _c(options["four_bit_default"])
    rx["offload_params"] = _c(options["offload_params"])
    rx["offload_optimizer"] = _c(options["offload_optimizer"])
    rx["zero_stage"] = _c(options["zero_stage"])
    lex.sharding_words = {stage: _rx(words) for stage, words in options["sharding_words"].items()}
    lex.optimizers = [(_c(pattern), name) for name, pattern in options["optimizers"].items()]
