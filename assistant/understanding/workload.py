"""The job: precision, KV-cache dtype, context, batch and users, parameter count, method, training options,
and where and how it runs (buy or rent, local or cloud, preferences, who asks)."""

from __future__ import annotations

import itertools
import re
from functools import cache

from assistant.understanding.continued_pretrain import _continued_pretrain
from assistant.understanding.hardware import _integrated_rx
from assistant.understanding.lexicon import _lex
from assistant.understanding.numbers import _in_range, _number
from assistant.understanding.patterns import _rx
from assistant.understanding.small_train import _small_training
from assistant.understanding.text import _mask, _State
from assistant.understanding.vlm_train import _vision_tower
from tools.errors import AdvisorError
from tools.precision import normalize_kv_dtype, resolve_precision


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


@cache
def _negated_rx() -> re.Pattern[str]:
    return re.compile(_lex().raw["models"]["precision_negated_before"], re.IGNORECASE)


def _precision(st: _State) -> None:
    found: list[tuple[int, int, int, str]] = []
    negated = _negated_rx()
    for order, (name, rx) in enumerate(_lex().precisions):
        for m in rx.finditer(st.t.view):
            if negated.search(st.t.view[max(0, m.start() - 12) : m.start()]):
                st.t.take(m.start(), m.end())  # "without 8bit": ruled out, not the format to run in
                continue
            value = m.group(0).lower().replace("-", "_") if name == "gguf" else name
            try:
                resolve_precision(value)
            except AdvisorError:
                continue
            found.append((m.start(), order, m.end(), value))
    for entry in _lex().raw.get("engine_precisions", []):  # "QUANTIZE: bitsandbytes": the library name is masked
        for m in re.finditer(entry["pattern"], st.t.text, re.IGNORECASE):
            found.append((m.start(), -1, m.end(), entry["name"]))
    if not found:
        return
    found.sort(key=lambda f: (f[0], -f[2], f[1]))  # at one place the longest match: "GPTQ-Int8" is 8-bit, not GPTQ
    found = [f for i, f in enumerate(found) if not any(o[0] <= f[0] and f[2] <= o[2] for o in found[:i])]
    found = _bits_of_format(found)
    st.q.precision = found[0][3]  # the first one mentioned
    for start, _, end, value in found:
        st.precisions_found.add(value)
        st.precision_order.append(value)
        st.t.take(start, end)


def _bits_of_format(found: list[tuple[int, int, int, str]]) -> list[tuple[int, int, int, str]]:
    """ "GPTQ-Int4", "AWQ_int4": the bit width joined to a format is that format, not a second one to compare."""
    out: list[tuple[int, int, int, str]] = []
    for hit in found:
        prev = out[-1] if out else None
        if prev and prev[3] in ("gptq", "awq") and hit[3] in ("int4", "int8") and 0 <= hit[0] - prev[2] <= 1:
            out[-1] = (prev[0], prev[1], hit[2], prev[3])  # one span: masked as one
            continue
        out.append(hit)
    return out


def _context_value(m: re.Match[str]) -> int | None:
    value = _number(m.group("v"))
    if value is None:
        return None
    value *= {"k": 1024, "m": 1024 * 1024}.get((m.groupdict().get("k") or "").lower(), 1)
    return int(value) if 16 <= value <= 100_000_000 else None


def _context(st: _State) -> None:
    rx = _lex().rx
    m = rx["ctx_source_target"].search(st.t.view)
    if m:  # "--max_source_length 1024 --max_target_length 512": a 1,536-token training sequence
        st.q.context_tokens = int(m.group("a")) + int(m.group("b"))
        st.t.take(m.start(), m.end())
        return
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


# bare numbers listed before a size that carries the unit: "7, 13, 70b", "7/13B", "7、14、72B"
_LIST_BEFORE = re.compile(r"(?<![\w.])(?:\d{1,3}(?:\.\d)?\s*(?:,|，|/|、|and|or|和|或|&)\s*)+$")
_LIST_NUMBER = re.compile(r"\d{1,3}(?:\.\d)?")


def _listed_before(st: _State, start: int, size: float) -> list[tuple[int, float]]:
    """The sizes a list shares one unit over ("7, 13, 70b models" is 7B, 13B and 70B): two or more bare numbers,
    or one before a slash, 、 or "and" ("7/13B", "7 and 13b"), rising to the size that carries the unit; a version
    ("llama 2, 7b") is a single number before a comma and is left alone. A range ("7-13B") is read before:
    understanding/size_range.py."""
    m = _LIST_BEFORE.search(st.t.view[:start])
    if not m or not st.t.is_free(m.start(), start):
        return []
    numbers = [float(x) for x in _LIST_NUMBER.findall(m.group(0))]
    sizes = [*numbers, size]
    rising = all(a < b for a, b in itertools.pairwise(sizes)) and numbers[0] >= 1
    if not rising or (len(numbers) < 2 and not re.search(r"[/、&和或]|\band\b|\bor\b", m.group(0))):
        return []
    st.t.take(m.start(), start)
    return [(m.start() + i, n) for i, n in enumerate(numbers)]


def _params(st: _State) -> None:
    lex = _lex()
    if st.q.model or st.q.params_b:
        return
    found: list[tuple[int, float]] = []
    for rx, scale in lex.params:
        for m in rx.finditer(st.t.view):
            value = _number(m.group("v"))
            if value is not None and _in_range(value * scale, 0, 100_000) and st.t.is_free(m.start(), m.end()):
                found.append((m.start(), round(value * scale, 4)))
                if scale == 1.0:
                    found += _listed_before(st, m.start(), value)
                st.t.take(m.start(), m.end())
    if found:  # "想做14b 和 72b 的微调": the first is the scenario's, every size is answered
        sizes = [size for _, size in sorted(found)]
        st.q.params_b = sizes[0]
        for size in sizes:
            if all(abs(size - s) > 0.1 * s for s in st.q.sizes_mentioned):  # "14b ... 13b": one size class
                st.q.sizes_mentioned.append(size)
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


def _workload_words(st: _State) -> None:
    rx, q = _lex().rx, st.q
    text, _ = _mask(st.t.text, rx["mode_negated"])  # "lora is not the best option": not a job, not a "best" ask
    st.words_text = text
    methods = {mode: m.start() for mode in ("qlora", "lora", "full") if (m := rx[f"mode_{mode}"].search(text))}
    if "lora" in methods and "qlora" not in methods and rx["mode_quantized_base"].search(text):
        methods["qlora"] = methods.pop("lora")  # LoRA on a bitsandbytes 4-bit base is QLoRA
    adapter = rx["mode_lora_adapter"].search(text) and not rx["mode_fine_tune"].search(text)
    used = rx["mode_inference"].search(text) or rx["mode_adapter_loaded"].search(text)
    if adapter and "full" not in methods and used:
        methods.pop("lora", None)  # "推理 llama13B + 中文lora 的 4-bit 模型": a LoRA run with the model, no training
        methods.pop("qlora", None)
    q.pretrain = bool(rx["mode_pretrain"].search(text))
    if q.pretrain and rx["mode_scratch"].search(text):
        # a model trained from scratch trains every weight: an adapter method named beside it (a "qlora" in the
        # thread's repository, "is LoRA enough?") is not the job
        methods = {k: v for k, v in methods.items() if k == "full"}
    _adapters_ruled_out(st, text, methods)
    st.modes_found = set(methods)
    serving = rx["mode_inference"].search(text) or rx["mode_run"].search(text)
    explicit = rx["mode_inference"].search(text)  # "推理", "serve"; "跑 / run" alone names no job
    if serving:
        st.modes_found.add("inference")
    named = methods | ({"inference": serving.start()} if serving else {})
    q.modes_mentioned = sorted(named, key=lambda k: named[k])  # type: ignore[assignment]  # Mode names only
    fine_tune = rx["mode_fine_tune"].search(text)
    if methods:
        q.mode = min(methods, key=lambda k: methods[k])  # type: ignore[assignment]  # the first one named
    elif q.pretrain:
        q.mode = "full"
    elif fine_tune:
        q.fine_tune_unspecified = True  # training words win over "run"/"deploy"
    elif explicit or serving:
        q.mode = "inference"
        # "跑 / run" alone: a new question runs a model; a follow-up keeps the job asked before ("那我的 3060 能跑吗"
        # after a QLoRA estimate checks that QLoRA, plan.merge)
        q.mode_from_run_words = not explicit
    # every job the message asks about, in order ("推理和微调各要多少显存": both): a fine-tune with no method
    # counts as the LoRA the planner assumes for it
    jobs = dict(named)
    jobs.pop("inference", None)
    if explicit:
        jobs["inference"] = explicit.start()
    if fine_tune and not methods and not q.pretrain:
        jobs["lora"] = fine_tune.start()
    trained = min([*methods.values(), *([fine_tune.start()] if fine_tune else [])], default=None)
    _running_too(text, trained, jobs)
    if q.pretrain:
        jobs["full"] = min(jobs.get("full", len(text)), rx["mode_pretrain"].search(text).start())  # type: ignore[union-attr]
    q.jobs = sorted(jobs, key=lambda k: jobs[k])  # type: ignore[assignment]
    _continued_pretrain(st)  # "增量预训练", "continued pretraining": an existing model trained whole, not from scratch
    _small_training(st)  # "训练一个 26M 小模型", "train nanoGPT": a tiny model is trained whole, from scratch
    _vision_tower(st)  # "[TinyLLaVA] 全量微调 qwen2_0.5B": the language part of a multimodal run


def _adapters_ruled_out(st: _State, text: str, methods: dict[str, int]) -> None:
    """A fine-tune with the adapter methods ruled out ("70B SFT without peft", "不用 LoRA 微调", "非 peft"): the other
    regime, every weight trained (full), where no method is named otherwise."""
    rx = _lex().rx
    tuned = rx["mode_fine_tune"].search(text)
    if tuned and not methods and not st.q.pretrain and rx["mode_adapter_ruled_out"].search(st.t.text):
        methods["full"] = tuned.start()


def _running_too(text: str, trained: int | None, jobs: dict[str, int]) -> None:
    """Running the model is asked beside the training: "finetune and later run the LLaMA 65B model", "run or
    fine-tune on my 4070" (a run word joined to a training word, not "能跑多大的模型来微调")."""
    rx = _lex().rx
    then_run = rx["mode_run_after_training"].search(text, trained) if trained is not None else None
    both = then_run or rx["mode_run_and_train"].search(text)
    if both and "inference" not in jobs:
        jobs["inference"] = both.start()


def _training_options(st: _State) -> None:
    """LoRA rank, optimizer regime and ZeRO stage, when stated."""
    lex, text = _lex(), st.t.text
    m = lex.rx["lora_rank"].search(text)
    rank = int(m.group("v") or m.group("v2")) if m else 0
    if 1 <= rank <= 4096 and lex.rx["lora_rank_context"].search(text):
        st.q.lora_rank = rank
    if lex.rx["fused_loss"].search(text):
        st.q.fused_loss = True
        if st.q.fine_tune_unspecified and lex.rx["four_bit_default"].search(text):
            st.q.mode = "qlora"  # "use Unsloth to fine-tune 70B": its 4-bit path
            st.q.fine_tune_unspecified = False
            st.q.jobs = ["qlora" if j == "lora" else j for j in st.q.jobs]
    if lex.rx["offload_params"].search(text):
        st.q.cpu_offload = "optimizer_and_params"
    elif lex.rx["offload_optimizer"].search(text):
        st.q.cpu_offload = "optimizer"
    if lex.rx["lora_targets_attention"].search(text):
        st.q.lora_targets = "attention"
    elif lex.rx["lora_targets_all"].search(text):
        st.q.lora_targets = "all"
    st.q.optimizer = next((name for rx, name in lex.optimizers if rx.search(text)), None)
    m = lex.rx["zero_stage"].search(text)
    if m:
        st.q.zero_stage = int(m.group("v"))  # type: ignore[assignment]  # the pattern admits 0-3 only
    else:
        st.q.zero_stage = next((stage for stage, rx in lex.sharding_words.items() if rx.search(text)), None)  # type: ignore[assignment]


@cache
def _only_training_rx() -> re.Pattern[str]:
    return _rx(_lex().raw["gpu_only_training"])


def _preferences(st: _State) -> None:
    rx, q = _lex().rx, st.q
    # a negated place counts as the other one and hides its words: "不用云" is local, "不想买卡" is cloud
    text, not_cloud = _mask(st.words_text or st.t.text, rx["not_cloud"])
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
    q.rented_gpu = _rented_gpu(st) if q.buy_or_rent == "compare" else None
    local = not_cloud or bool(rx["local"].search(text))
    cloud = not_buy or bool(rx["cloud"].search(text))
    if q.buy_or_rent != "compare" and local != cloud:
        q.deployment = "local" if local else "cloud"
    prefs = {p: m.start() for p in ("cheapest", "fastest", "balanced") if (m := rx[f"pref_{p}"].search(text))}
    if prefs:
        q.preference = min(prefs, key=lambda k: prefs[k])  # type: ignore[assignment]
    q.used_market = bool(rx["used_market"].search(text))
    q.asks_host_ram = bool(rx["asks_host_ram"].search(text))
    q.asks_host_platform = bool(rx["asks_host_platform"].search(text))
    q.cpu_only_option = bool(rx["cpu_only_option"].search(st.t.text))  # "不买显卡" is masked as not buying above
    if not (st.gpus or q.unknown_gpu) and _integrated_rx().search(st.t.text):
        q.cpu_only_option = True  # "Intel Iris Plus Graphics 655, 16 GB": an integrated GPU runs from the CPU's RAM
    if _only_training_rx().search(text):  # "or is the GPU only used for training?": running it is the job asked
        q.cpu_only_option = True
        q.fine_tune_unspecified, q.jobs, q.mode = False, ["inference"], "inference"
    apple = bool(rx["vendor_apple"].search(text))
    q.pc_alternative = bool(rx["pc_alternative"].search(text) or (apple and rx["pc_class"].search(text)))
    if apple and not q.pc_alternative:
        q.vendor = "apple"  # "which Mac should I buy": the choice is among Macs
        if q.ram_gib and not (q.gpu_mentions or q.owns_hardware or q.min_vram_gib):
            q.min_vram_gib = q.ram_gib  # "a mac mini or similar with >= 192 GB RAM": on a Mac that is the GPU's memory
    q.asks_if_needed = bool(rx["asks_if_needed"].search(text))
    q.asks_availability = bool(rx["asks_availability"].search(text))
    q.asks_training_fit = bool(rx["asks_training_fit"].search(text))
    q.in_china = bool(rx["in_china"].search(text))
    q.interruptible = bool(rx["interruptible"].search(text))
    q.image_generation = bool(rx["image_generation"].search(text))
    # "并发越高显存越多吗" (a diagnose flag, read earlier) is answered with how many sequences the cards hold at once
    q.asks_concurrency = bool(rx["asks_concurrency"].search(text)) or "memory_per_user" in q.diagnose_flags
    q.serving = bool(rx["serving"].search(text)) and not rx["serving_personal"].search(text)
    # who asks: the first group that matches, companies before teams before individuals
    q.persona = next((who for who, words in _lex().persona if _said_now(words, text)), None)  # type: ignore[assignment]
    if q.budget is not None:
        q.budget_scope = "machine" if rx["whole_machine"].search(text) else "gpus"


def _rented_gpu(st: _State) -> str | None:
    """Of two cards weighed buy-or-rent, the one a rent word stands right before ("renting an H100", "租 A100")."""
    known = [g for g in st.gpus if g.value]
    if len({g.value for g in known}) != 2:
        return None
    view, rent = st.t.view, _lex().rx["rent"]
    rented = [g.value for g in known if rent.search(view[max(0, g.start - 14) : g.start])]
    return rented[0] if len(set(rented)) == 1 else None


def _said_now(words: re.Pattern[str], text: str) -> bool:
    """A persona word not said about later ("后续成熟后可能用于商用" is not a company asking today)."""
    later = _lex().rx["persona_later"]
    return any(not later.search(text[max(0, m.start() - 12) : m.start()]) for m in words.finditer(text))
