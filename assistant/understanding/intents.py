"""Which question types a message asks (most likely first), and whether it is a bare follow-up."""

from __future__ import annotations

from dataclasses import dataclass

from assistant.understanding.card_joins import owned_switch_weighed, priced_out
from assistant.understanding.card_size import far_too_big_for_card
from assistant.understanding.focus import card_comparison
from assistant.understanding.lexicon import _lex
from assistant.understanding.risk import _risk_intent
from assistant.understanding.software import support_intent
from assistant.understanding.symptoms import diagnose_intent
from assistant.understanding.text import _State, without_pasted
from assistant.understanding.usage import usage_intent


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
    text = without_pasted(st.words_text or st.t.text)  # a pasted table's "Support" column asks nothing
    pos = {name: m.start() for name, rx in lex.intent_rx.items() if (m := rx.search(text))}
    q.capacity_asked = "capacity" in pos
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
    _capacity_intent(st, out, seen)
    support_intent(st, pos, out, seen.has_gpu, seen.has_model)  # "vLLM 能在 P40 上跑吗"
    usage_intent(st, out)  # "API 还是自己部署", "where can I rent an A100": the cost question they are part of
    _rent_site_leads(pos, out, seen)
    if priced_out(st.t.view, st.gpus) and not (q.buy_or_rent or q.cloud_price_per_hour or q.hours_per_day):
        out.pop("cost", None)  # "4090太贵了": why they ask about the cheaper card, not a question about cost
    if seen.has_gpu and (q.asks_availability or q.asks_training_fit) and "compare" not in out:
        # "国内还能买到 H100 吗？想做训练该买什么": the card's market and what it is good for answer it
        out["gpu_info"] = min(out.get("gpu_info", seen.end), 0)
        if not (q.budget or seen.has_model):
            out.pop("recommend", None)
    if q.buy_or_rent == "compare" or q.electricity_price or q.cloud_price_per_hour:
        out.setdefault("cost", seen.end)
    if "ram" in out and q.owns_hardware and not (q.budget or q.monthly_budget):
        out.pop("recommend", None)  # "I have a 3090; 64 GB of RAM or should I get 128?": the purchase is the RAM
    _concept_intent(st, pos, out, seen, text)
    diagnose_intent(st, pos, out, seen.has_gpu, seen.has_model)  # "T4 上只有 4 tokens/s，正常吗"
    _training_intents(st, pos, out, seen)
    _card_size_asked(st, out, seen)
    if not out and not q.is_followup:
        out.update(_default_intents(st, seen))
    card_comparison(st, pos, out, seen.n_gpus)  # named cards weighed for a job: the comparison answers
    _upgrade(st, pos, out, seen)
    _owned_switch(st, out, seen)
    _mac_by_memory(st, out, seen)
    _cpu_machine(st, out, seen)
    _risk_intent(st, out, pos)  # an old, modified or multi-GPU card: its trap leads the answer
    _used_card_for_model(st, out, seen)
    if not q.has_slots() and not lex.rx["domain"].search(text) and "out_of_scope" in pos:
        out = {"out_of_scope": pos["out_of_scope"]}  # "推荐一部电影": a generic "recommend" about a film
    elif not out and not q.has_slots() and "help" in pos:
        out["help"] = pos["help"]
    whole = (q.owns_hardware or q.symptom) and q.gpu_mentions and (q.model or q.params_b)  # "换成4090跑 X 值不值"
    if q.is_followup and not _explicit_intent(pos) and not (whole and out):
        out = {}  # a bare follow-up ("那用两张卡呢"): the planner keeps the previous turn's intents
    q.intents = sorted(out, key=lambda k: out[k])


def _sizing_intents(st: _State, pos: dict[str, int], seen: _Seen) -> dict[str, int]:
    """memory and fit: "how many H100s", "能跑吗" on a named GPU, "4090 显存多大" (a spec question)."""
    q, end = st.q, seen.end
    out: dict[str, int] = {}
    if st.how_many_gpus is not None:
        out["memory"] = st.how_many_gpus  # "how many H100s" sizes the job
    if q.asks_concurrency and seen.has_gpu and seen.has_model:
        out["fit"] = pos.get("fit", 0)  # "the concurrent request capacity of an A100 with Llama-2-13b": fit counts them
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
    if "catalog" in out and (seen.has_gpu or q.stated_capacity_gib) and seen.has_model:
        out.pop("catalog")  # "my 4090 with 24GB of VRAM runs Llama 3 70B", "R1 32b on a 16gb gpu with 32gb ram": theirs
    elif "catalog" in out and seen.has_gpu and not q.min_vram_gib:
        out.setdefault("gpu_info", out.pop("catalog"))  # "有哪些" about a named GPU is a spec question
    elif "catalog" in out and seen.has_model and not (q.min_vram_gib or q.require_nvlink or q.require_ecc):
        out.setdefault("recommend", out.pop("catalog"))  # "qwen2 72B 推理需要哪些GPU": the cards that run it


def _compare_intent(st: _State, pos: dict[str, int], out: dict[str, int], seen: _Seen) -> None:
    """compare: two GPUs with a compare word (or alone), or a strong compare word over two models/methods."""
    strong, weak = pos.get("compare_strong"), pos.get("compare_weak")
    several = max(st.models_found, len(st.modes_found - {"inference"}), len(st.precisions_found)) >= 2
    pc_or_card = seen.n_gpus + (1 if st.q.pc_alternative else 0)  # "Mac Studio vs a PC": a PC is the other side
    buying = bool(st.q.budget) or "recommend" in out  # "$3000: should I get one 4090 or two 3090s?": a choice
    alt = st.q.gpus_alternative  # "which works best?" over cards listed as options: a choice among them
    if pc_or_card >= 2 and strong is None and "fit" in out and seen.has_model and not buying:
        return  # "8 张 4090 或者 6 张 V100 能运行吗": whether each option runs it (fit answers each), no ranking
    if st.q.gpus_together and seen.has_model and strong is None:
        # "I have a 3090 and a 2060: one card or both for Qwen-14B?", "3090 + 2080ti 混插会不会被拖慢": the model on
        # one machine's cards (fit says whether the bigger card alone holds it), not a ranking of cards to buy
        out.setdefault("fit", min(p for p in (weak, seen.end) if p is not None))
        out.pop("compare", None)
        if st.q.owns_hardware and not (st.q.budget or st.q.buy_or_rent or st.q.upgrade_to):
            out.pop("recommend", None)  # "I have a 3090 and a 2060: which one should I use?": no card to buy
        return
    if st.q.gpus_together and not (seen.has_model or st.q.model_family or st.q.symptom) and strong is None:
        # "I have a 3090 and a 3060, can I use both together?", "我有一张4090和一张3090，能一起用吗": what the one
        # machine's different cards run together (a layer split), not a ranking of cards to buy or their specs
        sized = [out.pop(k) for k in ("compare", "gpu_info", "fit", "memory") if k in out]
        out["capacity"] = min([*sized, weak if weak is not None else seen.end])
        return
    if pc_or_card >= 2 and (strong is not None or weak is not None or (buying and (seen.has_model or alt))):
        out["compare"] = min(p for p in (strong, weak, seen.end) if p is not None)
        out.pop("recommend", None)  # "4090、A6000、L40S 选哪个": choosing among named cards is a comparison
        asked_first = st.q.owns_hardware and out.get("fit", seen.end) < out["compare"]
        if buying and not asked_first:
            out.pop("fit", None)  # the comparison says whether each option holds it (not "Can I run 7B on my Mac?")
    elif strong is not None and several:
        out["compare"] = strong  # "LoRA vs 全参", "Llama 70B vs Qwen 72B"
    elif weak is not None and _two_ways(st):
        out["compare"] = weak  # "lora or qlora?", "用 q4_k_m 还是 q8_0": choosing between two ways to run it
        out.pop("memory", None)
        out.pop("fit", None)
    elif seen.n_gpus >= 2 and not out:
        out["compare"] = seen.end


def _capacity_intent(st: _State, out: dict[str, int], seen: _Seen) -> None:
    """capacity ("能跑多大的模型", "the biggest model I can serve"): it answers when no model is named and the
    hardware is (a GPU, a card size), in place of fit, memory, a comparison of the cards or their specs; a named
    model leaves the question to fit. A family alone ("the smallest llama model") names no model."""
    q = st.q
    unnamed = not (q.model or q.params_b or q.unknown_model or q.model_family or q.symptom)
    about_memory = set(q.asks) <= {"vram"} and not q.claims  # "能不能用 MIG 切分" asks about the card's features
    sized = [k for k in ("fit", "memory") if k in out and ((k == "fit" and seen.has_gpu) or q.stated_capacity_gib)]
    if "capacity" not in out and sized and unnamed and about_memory:
        # "Will it run on 3080 16GB?", "4090 能跑吗", "what can my 6GB card / RTX 3060 laptop run" naming no model: what
        # the card holds answers it (a follow-up after a model was sized keeps it: planner/plan.py _carried_intents)
        out["capacity"] = min(out.pop(k) for k in sized)
        q.enough_asked = True
    if "capacity" not in out:
        return
    if not q.model and len(q.sizes_mentioned) >= 2 and q.model_family:
        q.params_b = None  # "which Qwen can I run: 14B, 32B or 72B?": the sizes are the options, not the model
    if q.model or q.params_b or (q.unknown_model and not q.model_family):
        out.pop("capacity")
        return
    out.pop("fit", None)  # read from the same words ("能跑多大"): with no model, fit and memory size nothing
    out.pop("memory", None)
    if seen.has_gpu or q.stated_capacity_gib is not None:
        out.pop("compare", None)
        out.pop("gpu_info", None)
        chosen = len(q.gpu_mentions) == 1 and q.buy_or_rent == "buy"  # "I would like to get an RTX-4090": decided
        if ((q.owns_hardware and not q.buy_or_rent) or chosen) and not (q.budget or q.monthly_budget):
            # "我的 5090 最多能部署哪个 Qwen？有推荐的配置吗": the setup for the card they have, not a purchase; the
            # capacity answer already runs the bigger ones from their RAM (offload) when it is stated
            # nor a list of bigger cards ("8 A100 80GB the minimum? my max is 45G, can I fine-tune?")
            for other in ("recommend", "build", "offload", "catalog"):
                out.pop(other, None)
    elif q.ram_gib is not None and not (q.budget or q.monthly_budget):
        out.pop("offload", None)  # "没有显卡，只有 32G 内存，能跑多大的模型": what the CPU runs from that RAM
        out.pop("build", None)
    elif len(out) > 1 or q.budget or q.monthly_budget:
        out.pop("capacity")  # "预算一万能跑多大的模型" without a card: the budget's question (which card) answers it


def _training_intents(st: _State, pos: dict[str, int], out: dict[str, int], seen: _Seen) -> None:
    """A fine-tune that runs out of memory ("4 张 3090 QLoRA 微调 Qwen-14B 报显存不够", "OOM fine-tuning 70B on
    2x 4090") is answered by sizing the job on the user's cards: what it needs per GPU against what they hold, and
    what makes it fit (sharding, QLoRA, a shorter sequence); a diagnosis of decode speed has nothing to add. In a
    training job "offload" is DeepSpeed's ZeRO-Offload ("offload_optimizer_device: none"), which the memory
    estimate models, not running a model from system RAM."""
    q = st.q
    training = q.mode in ("full", "lora", "qlora") or q.fine_tune_unspecified or q.pretrain or q.rl is not None
    if not training:
        return
    if q.rl and seen.has_model:  # GRPO / PPO / DPO: the policy is only part of the memory (capabilities/rl.py)
        replaced = ("memory", "fit", "speed", "compare", "gpu_info", "catalog", "diagnose", "offload")
        sized = [out.pop(k) for k in replaced if k in out]
        out["rl"] = min(sized, default=seen.end)
        return
    if "offload" in out and "inference" not in q.jobs:
        out.pop("offload")
    asked = {"fit", "gpu_info", "speed"} & set(out)
    about_card = q.asks or q.asks_availability or q.asks_training_fit  # "is the H20 any good for training?": the card
    if seen.has_gpu and not seen.has_model and not q.model_family and asked and "compare" not in out and not about_card:
        # "can a 3060 be used for fine-tuning? how long?", "is a 4090 enough for LoRA?" with no model: what the card
        # fine-tunes, the biggest model each method fits (capabilities/capacity.py), and the hours for one of them
        out["capacity"] = min(out.pop(k) for k in asked)
    if "build" in out and seen.has_model and seen.has_gpu and not {"fit", "memory"} & set(out):
        # "基于怎样的配置可以在一台4090上训练起来": the job on the card comes first, the machine around it after
        out["fit"] = out["build"] - 1
    money = q.budget or q.monthly_budget or q.buy_or_rent or q.cloud_price_per_hour or q.hours_per_month
    if not seen.has_gpu and not money and (seen.has_model or q.model_family) and {"cost", "speed"} & set(out):
        # "微调的卡数、微调时间、成本" with no card named: the card the job needs, then the hours on it
        # (capabilities/training.py); a cost or speed question needs a card first
        priced = "cost" in out
        at = min(out.pop(k) for k in ("cost", "speed") if k in out)
        out["memory"] = min(out.get("memory", at), at)
        # "what does it cost to fine-tune X": the cheapest rental that holds the job leads, by the hour; not when
        # the user asks which hardware to buy or build ("best CPU and GPU for training and inference, considering
        # cost-efficiency", "自配服务器，考虑性价比怎么选"): the price is then how the cards are ranked
        if priced and not {"recommend", "build"} & set(out):  # memory asked in words ("显存占用…成本") leads
            out["rent_where"] = out["memory"] + (1 if "memory" in pos else -1)
    if "compare" in out and "compare_strong" not in pos and seen.n_gpus == 1 and seen.has_model:
        # "how to configure LoRA / QLoRA for Qwen3-30B-A3B on a single 3090": the job on the card, the method
        # that fits it (fit, then cheaper.py), not a table of options that adds cards the user does not have
        out["fit"] = out.pop("compare")
    if q.symptom == "oom" and seen.has_model and {"diagnose", "recommend"} & set(out):
        # ("...runs out of memory, any advice?": the advice is what makes it fit these cards, not a purchase)
        out.pop("diagnose", None)
        out.pop("recommend", None)
        out["fit" if seen.has_gpu else "memory"] = -2


def _rent_site_leads(pos: dict[str, int], out: dict[str, int], seen: _Seen) -> None:
    """ "自己电脑不行，可以训练 X 不？求租 GPU 的网站": where to rent leads (its lead states the memory it holds); a
    memory asked in words ("要多少显存，哪里租") keeps its place."""
    if {"rent_where", "memory"} <= set(out) and "memory" not in pos and not seen.has_gpu:
        out["rent_where"] = min(out["rent_where"], out["memory"] - 1)


def _used_card_for_model(st: _State, out: dict[str, int], seen: _Seen) -> None:
    """ "想买二手 V100 跑 Qwen2.5-14B，靠谱吗", "is a used mining 3090 safe for Llama 3 8B?": the second-hand card (its
    price, what to check) answers first (capabilities/specs.py), whether it holds the model backs it."""
    q = st.q
    if not (q.used_market and seen.has_gpu and seen.has_model) or q.owns_hardware or "risk" in out:
        return
    if "recommend" in out and far_too_big_for_card(q):
        # "how many A800s for DeepSeek-V3? ... recommend a home server (used is fine)": no one card of that kind
        # runs it, so the purchase asked for is the machine (recommend), the used card's facts after it
        out.setdefault("gpu_info", out["recommend"] + 1)
        return
    out.setdefault("gpu_info", min(out.values(), default=0))
    if len(q.gpu_mentions) == 1 and not (q.budget or q.monthly_budget) and "recommend" in out:
        out["fit"] = min(out.pop("recommend"), out.get("fit", seen.end))  # this card for the job, no shopping list
    if not {"fit", "memory", "recommend"} & set(out):
        out["fit"] = out["gpu_info"] + 1  # "is a used 3090 worth it for QLoRA of Llama 3.1 8B?": does it hold it


def _upgrade(st: _State, pos: dict[str, int], out: dict[str, int], seen: _Seen) -> None:
    """ "I have a 3050 ... would a 4090 make 70B generation faster?": one card to buy beside the one the user has,
    for a model to run, is the model on that card (fit: whether it holds it, else how fast with the rest in system
    RAM, and what holds it), not a ranking of both cards at whatever counts would hold the model."""
    q = st.q
    if not (q.upgrade_to and q.owns_hardware and seen.has_model and "compare" in out and "compare_strong" not in pos):
        return
    if q.mode in ("full", "lora", "qlora") or q.fine_tune_unspecified:
        return  # a training job weighs both cards' compute (compare)
    out["fit"] = out.pop("compare")
    out.setdefault("recommend", out["fit"] + 1)  # then what to buy for that model, when the card does not hold it
    q.gpu, q.num_gpus = q.upgrade_to, q.gpu_counts.get(q.upgrade_to)


def _owned_switch(st: _State, out: dict[str, int], seen: _Seen) -> None:
    """ "我有一张 3060，换 4090 跑 Qwen2.5-14B 值吗": the switch weighed for a model to run is a comparison with the
    owned card (card_joins.owned_switch_weighed), not a bill ("worth it" is no rent question) or the new card alone."""
    q = st.q
    if not (seen.has_model and owned_switch_weighed(st.t.view, q.owned_gpu, q.gpu_mentions)):
        return
    rent = q.buy_or_rent in ("rent", "compare")  # "is it worth buying X": a purchase weighed, not a bill
    if q.budget or q.monthly_budget or rent or q.electricity_price or q.cloud_price_per_hour:
        return
    if q.mode in ("full", "lora", "qlora") or q.fine_tune_unspecified:
        return
    first = min(out.values(), default=0)
    for other in ("cost", "fit", "recommend", "memory", "speed"):
        out.pop(other, None)
    out["compare"] = first


def _mac_by_memory(st: _State, out: dict[str, int], seen: _Seen) -> None:
    """ "a mac mini or similar with >= 192 GB RAM", "256G 内存以上的 Mac": the Macs sold with that much memory."""
    q = st.q
    if q.vendor == "apple" and q.min_vram_gib and not (seen.has_model or seen.has_gpu or q.model_family):
        for other in ("cost", "memory", "fit", "gpu_info"):
            out.pop(other, None)
        out["catalog"] = min(out.get("catalog", 0), 0)


def _cpu_machine(st: _State, out: dict[str, int], seen: _Seen) -> None:
    """ "MacBook Pro, Intel Iris Plus Graphics, 16 GB LPDDR3 — 什么配置可以跑", "没有独显，32G 内存，能跑什么": a
    machine with no GPU that runs models (none, or an integrated one) and its RAM, no model (a family at most), nothing
    to buy: what its CPU runs from that RAM (capacity's CPU sizing), not a catalog filter, a build or unified memory."""
    q = st.q
    if not (q.cpu_only_option and q.ram_gib) or seen.has_gpu or "recommend" in out or q.budget or q.monthly_budget:
        return
    if q.model or q.params_b or (q.unknown_model and not q.model_family):
        return
    for other in ("catalog", "build", "memory", "offload", "fit", "gpu_info"):
        out.pop(other, None)
    out["capacity"] = min(out.get("capacity", 0), 0)
    q.min_vram_gib = None  # the RAM's size read again as a card floor
    if q.vendor == "apple":
        q.vendor = None  # an Intel Mac: its integrated graphics are no Apple-silicon GPU


def _card_size_asked(st: _State, out: dict[str, int], seen: _Seen) -> None:
    """ "最低需要什么显卡？6GB 够不够": a card size (or a count of a card) named with a model asks whether that holds
    it (memory judges the size, each method for a fine-tune), not which card to buy; a budget makes it a purchase."""
    q = st.q
    money = q.budget or q.monthly_budget or q.buy_or_rent
    if q.stated_capacity_gib and seen.has_model and not seen.has_gpu and "recommend" in out and not money:
        out["memory"] = min(out.pop("recommend"), out.get("memory", seen.end))
    if "fit" in out and "recommend" in out and q.gpu_counts and seen.has_model and not money:
        # "What hardware do I need for X? Would 2 nodes of 8xH100 be enough?": the hardware named is the candidate;
        # whether it holds the job answers the question (and the ways that make it fit follow), not a purchase
        out["fit"] = min(out.pop("recommend"), out["fit"])


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
    return any(name not in ("help", "out_of_scope", "compare_weak", "concept_weak", "support_weak") for name in pos)


def _default_intents(st: _State, seen: _Seen) -> dict[str, int]:
    """Intents for a message that names things but asks nothing explicit ("Qwen2.5-7B LoRA", "想买张卡做推理")."""
    q = st.q
    workload = (q.mode, q.fine_tune_unspecified, q.pretrain, q.precision, q.kv_dtype, q.context_tokens, q.batch)
    rules = (
        (seen.has_model and seen.has_gpu, "fit"),
        (q.budget or q.monthly_budget or (q.buy_or_rent == "buy" and not seen.has_gpu and any(workload)), "recommend"),
        (seen.has_model and q.persona in ("team", "company"), "recommend"),  # "公司 300 人要用 72B，要稳定"
        (seen.has_model, "memory"),
        # "I have two 3090s and 128 GB of RAM ...": a machine described with no model asks what it runs
        (seen.has_gpu and q.owns_hardware and q.ram_gib is not None, "capacity"),
        # "thinking of getting a 3060 ... can it be used for fine-tuning?": what the card fine-tunes
        (
            seen.has_gpu
            and not (q.asks or q.asks_availability or q.asks_training_fit)
            and (q.fine_tune_unspecified or q.mode in ("full", "lora", "qlora")),
            "capacity",
        ),
        (seen.has_gpu, "gpu_info"),
        (q.buy_or_rent or q.hours_per_day or q.horizon_years or q.gpu_price, "cost"),
        (q.min_vram_gib or q.require_nvlink or q.require_ecc or q.require_fp8 or q.require_mig, "catalog"),
        (any(workload), "memory"),
        (q.concept_terms, "concept"),
    )
    return next(({name: seen.end} for said, name in rules if said), {})


def _is_followup(st: _State) -> bool:
    rx, text = _lex().rx, st.t.text
    if rx["follow_strong"].search(text):
        return True
    if rx["follow_weak"].search(text):
        pos = {name: 0 for name, r in _lex().intent_rx.items() if r.search(text)}
        return not _explicit_intent(pos) and not (st.q.model or st.q.unknown_model)
    return False
