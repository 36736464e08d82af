"""The job's bottleneck, for a comparison of cards (advice.md §9): long prompts are compute-bound, fine-tuning is
compute and memory, serving many users is memory for the KV cache and batched throughput, one user's chat is
memory bandwidth. "M1 Pro 上 1500 tokens 要 13 秒，换成别的 GPU 会快吗", "the prompt processing speed is really slow".
Wording lives in lexicon.yaml `focus`.
"""

from __future__ import annotations

import re
from functools import cache

from assistant.understanding.lexicon import _lex
from assistant.understanding.patterns import _langs, _rx
from assistant.understanding.query import ParsedQuery
from assistant.understanding.ranked import stated_expected, stated_inversion
from assistant.understanding.text import _State, without_pasted


@cache
def _prefill_words():  # type: ignore[no-untyped-def]
    return _rx(_langs(_lex().raw["focus"]["prefill"]))


@cache
def _choice_words():  # type: ignore[no-untyped-def]
    return _rx(_langs(_lex().raw["intents"]["compare"]["choice"]))


def _focus(st: _State) -> None:
    """Prompt processing named, else a training job, else many users; unset for one user's chat."""
    q = st.q
    if _prefill_words().search(st.t.text):
        q.focus = "prefill"
    elif q.mode in ("full", "lora", "qlora") or q.fine_tune_unspecified or q.pretrain or _trains(q):
        q.focus = "training"
    elif q.serving or (q.users or 0) > 1 or (q.batch or 0) > 2:
        q.focus = "serving"
    elif "tflops" in q.asks and len(q.gpu_mentions) >= 2 and not (q.model or q.params_b):
        # "70 TFLOPS for the 3090 and 150 for the A6000? same architecture, no way": the cards' compute is the
        # question, so the comparison weighs dense tensor TFLOPS (the training figure), not one user's decode; with
        # no budget, the verdict is which card computes faster, not which is the better buy (a price quoted beside
        # the figures, "the 3090 costs $1,300 and does 70 TFLOPS", is part of the claim, not a purchase)
        q.focus = "training"
        if not (q.preference or q.budget or q.monthly_budget):
            q.preference = "fastest"


def _trains(q: ParsedQuery) -> bool:
    """An RL fine-tune ("GRPO") or a fine-tuning library ("the unsloth notebooks") names a training job."""
    from tools.support import training_subjects

    return bool(q.rl) or bool(set(q.support_subjects) & training_subjects())


def _only_price_words(st: _State) -> bool:
    """The only comparing words are about price ("MI50 is like a 2080 Ti, but so much cheaper"): a claim the user
    makes about the cards, not a choice asked between them ("MI300X or H100?")."""
    text = without_pasted(st.words_text or st.t.text)
    weak = [m.group(0).lower() for m in _lex().intent_rx["compare_weak"].finditer(text)]
    return bool(weak) and all(w in _PRICE_WORDS for w in weak)


_PRICE_WORDS = frozenset({"cheaper", "更便宜", "更划算"})

# "4090上速度比L20速度更慢", "my 4090 runs slower than the L20": one of the two cards was seen running slower
_SAID_SLOWER = re.compile(r"比[^，。,；;？?！!]{1,40}?慢|slower than", re.I)


_TRAINING = ("full", "lora", "qlora")


def _expected_compared(q: ParsedQuery) -> bool:
    return q.mode in _TRAINING or bool(q.model or q.params_b)


def _one_said_slower(st: _State) -> bool:
    """Both cards were run and one was seen slower, with no speeds ("在4090运行为啥比L20更慢？... 跑LLM时相反，4090
    明显比L20性能更好"): why the card that should be faster was not is the diagnosis's question, even beside a
    comparing word; buying one of them (a budget, an upgrade) stays the comparison's."""
    q = st.q
    if q.symptom != "slow" or q.budget or q.upgrade_to:
        return False
    if stated_inversion(st) or (stated_expected(st) and not _expected_compared(q)):
        return True  # "the A800 is not as fast as the 3090", "A100 慢于 4090 和 3090": any number of cards
    return len(q.gpu_mentions) == 2 and bool(_SAID_SLOWER.search(without_pasted(st.words_text or st.t.text)))


def card_comparison(st: _State, pos: dict[str, int], out: dict[str, int], n_gpus: int) -> None:
    """Named cards weighed against each other for a job ("2x 3090 or 1x 4090 for fine-tuning, what works better,
    which sizes can each train?", "how would 4x A6000 compare to 2x H100 for 120B?"): the comparison answers it;
    a PSU plan for one of them, or a diagnosis of the user's current machine, answers another question. A measured
    gap between two cards ("A10 比 3090 慢一倍") stays the diagnosis's."""
    q = st.q
    cards = n_gpus + (1 if q.pc_alternative else 0)
    choice = _choice_words().search(without_pasted(st.words_text or st.t.text))
    said = [p for p in (pos.get("compare_strong"), choice.start() if choice else None) if p is not None]
    measured = q.measured_tokens_per_s is not None or bool(q.measured_speeds) or q.measured_seconds_per_step
    measured = measured or bool(q.slower_ratio)  # "5x slower than the A100": a factor measured, with no speeds
    # "训练时 H20 比 A100 慢很多，正常吗", "our A6000 is not as fast as the 3090 on llama-3-8b, expected?": the order
    # the hardware predicts for a job (tensor TFLOPS for training, bandwidth for a model's decode) is the comparison's
    # answer; with no job named the diagnosis says "expected" by bandwidth (capabilities/diagnose.py)
    expected = (
        _expected_compared(q) and cards >= 2 and not measured and stated_expected(st) and not stated_inversion(st)
    )
    said += [0] if expected else []
    if cards < 2 or not said:
        if "support" in out and _only_price_words(st):
            # "MI50 is like a 2080 Ti but so much cheaper — it won't compile": a support question; the price the
            # user quotes asks neither for a comparison nor for buy-vs-rent
            out.pop("compare", None)
            costed = q.buy_or_rent in ("rent", "compare") or q.electricity_price or q.cloud_price_per_hour
            if not (costed or q.hours_per_month or q.hours_per_day):
                out.pop("cost", None)
        return
    if "diagnose" in out and (measured or _one_said_slower(st)) and not expected:
        return
    out["compare"] = min(out.get("compare", min(said)), min(said))
    if expected:
        out["compare"] = min(out.values()) - 1  # "L40S 反而比 3090 慢，正常吗": the verdict on the order leads
    if q.preference == "fastest" and not (q.model or q.params_b or q.unknown_model):
        # "感觉双卡 RTX 6000 PRO 应该比双卡 H100 强吧", "is the PRO 6000 faster than the H100?": which setup is the
        # stronger one is the question; what each runs (capacity) or how fast a default model goes comes after it
        out["compare"] = min(out.values()) - 1
    if choice:
        pos["compare_choice"] = choice.start()  # a choice asked is an explicit question, even in a follow-up
    out.pop("build", None)
    if not (expected and q.diagnose_flags):
        # "A10 比 3090 慢一倍 ... num_beams=2, device_map=auto": the order is expected, yet the settings pasted from the
        # run are what the rest of the gap comes from, so the diagnosis of that run still answers
        out.pop("diagnose", None)
    if "rent_where" not in pos:
        # "the Ada is more expensive on RunPod, why is it slower?": the provider prices the cards being compared; it
        # does not ask where to rent them
        out.pop("rent_where", None)
