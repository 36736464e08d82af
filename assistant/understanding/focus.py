"""The job's bottleneck, for a comparison of cards (advice.md §9): long prompts are compute-bound, fine-tuning is
compute and memory, serving many users is memory for the KV cache and batched throughput, one user's chat is
memory bandwidth. "M1 Pro 上 1500 tokens 要 13 秒，换成别的 GPU 会快吗", "the prompt processing speed is really slow".
Wording lives in lexicon.yaml `focus`.
"""

from __future__ import annotations

from functools import cache

from assistant.understanding.lexicon import _lex
from assistant.understanding.patterns import _langs, _rx
from assistant.understanding.query import ParsedQuery
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


def card_comparison(st: _State, pos: dict[str, int], out: dict[str, int], n_gpus: int) -> None:
    """Named cards weighed against each other for a job ("2x 3090 or 1x 4090 for fine-tuning, what works better,
    which sizes can each train?", "how would 4x A6000 compare to 2x H100 for 120B?"): the comparison answers it;
    a PSU plan for one of them, or a diagnosis of the user's current machine, answers another question. A measured
    gap between two cards ("A10 比 3090 慢一倍") stays the diagnosis's."""
    q = st.q
    cards = n_gpus + (1 if q.pc_alternative else 0)
    choice = _choice_words().search(without_pasted(st.words_text or st.t.text))
    said = [p for p in (pos.get("compare_strong"), choice.start() if choice else None) if p is not None]
    if cards < 2 or not said:
        if "support" in out and _only_price_words(st):
            # "MI50 is like a 2080 Ti but so much cheaper — it won't compile": a support question; the price the
            # user quotes asks neither for a comparison nor for buy-vs-rent
            out.pop("compare", None)
            costed = q.buy_or_rent in ("rent", "compare") or q.electricity_price or q.cloud_price_per_hour
            if not (costed or q.hours_per_month or q.hours_per_day):
                out.pop("cost", None)
        return
    measured = q.measured_tokens_per_s is not None or bool(q.measured_speeds) or q.measured_seconds_per_step
    if "diagnose" in out and measured:
        return
    out["compare"] = min(out.get("compare", min(said)), min(said))
    if choice:
        pos["compare_choice"] = choice.start()  # a choice asked is an explicit question, even in a follow-up
    out.pop("build", None)
    out.pop("diagnose", None)
    if "rent_where" not in pos:
        # "the Ada is more expensive on RunPod, why is it slower?": the provider prices the cards being compared; it
        # does not ask where to rent them
        out.pop("rent_where", None)
