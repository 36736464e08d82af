"""A run cut off, or its files gone, and how to pick it up again ("my Colab session died and I lost 6 hours of
training", "训练到一半电脑重启，如何接着训练", "what should I do to not lose my checkpoints"): rent_ask "resume", read
after the intents so it replaces what the words around it looked like (a notebook tier's card to assess, a reboot
to blame on the power supply). The rental answer leads with resuming from a checkpoint kept where it survives
(assistant/capabilities/rent_resume.py). Wording: knowledge/data/lexicon.yaml `lost_work`."""

from __future__ import annotations

import re
from functools import cache

from assistant.understanding.lexicon import _lex
from assistant.understanding.patterns import _langs, _rx
from assistant.understanding.text import _State

# a symptom that has its own diagnosis: out of memory, slow, one GPU used; the run's loss is not the question. A
# kill or a reboot ("killed halfway by the 12 h limit", "电脑重启") is, when the message asks to resume
_OWN_DIAGNOSIS = {"oom", "slow", "memory_high", "multi_gpu_slower", "one_gpu_used", "cpu_fallback", "low_util"}


@cache
def _patterns() -> dict[str, re.Pattern[str]]:
    raw = _lex().raw["lost_work"]
    return {key: _rx(_langs(raw[key])) for key in ("resume", "loss", "cut", "context")}


def _lost_work(st: _State) -> None:
    q, text = st.q, st.t.text
    rx = _patterns()
    if q.symptom in _OWN_DIAGNOSIS:
        return
    asks = rx["resume"].search(text)
    if not asks and q.symptom is not None:
        return  # "训练时电脑突然重启，是电源不够吗": the reboot is the problem asked about, its diagnosis answers
    if not asks and q.buy_or_rent in ("buy", "compare"):
        return  # "实例被释放了数据全没了，想干脆自己买张4090，值吗": buying or renting is the question
    sized = bool(q.model or q.params_b or q.model_mention or q.model_family)  # "finetune a Gemma-3": a sizing ask
    cut_off = rx["loss"].search(text) or (rx["cut"].search(text) and not sized)
    if not (asks or (cut_off and rx["context"].search(text))):
        return
    q.rent_ask = "resume"
    q.intents = ["rent_where"]
    tier = [n for n in q.notes if getattr(n, "code", "").startswith("notebook_tier")]
    if tier and q.gpu_mentions == [q.gpu]:
        # "Colab ends the session": the tier is where the run was, not a card to assess; its facts answer
        q.notes = [n for n in q.notes if n not in tier]
        q.gpu, q.num_gpus, q.gpu_mentions, q.gpu_counts = None, None, [], {}
