"""A card the user would buy to fix what is slow (or short) on the one they have: "Currently on an RTX 3050 ...
Would buying a 4090 make 70B generation much faster? 70B on CPU is painfully slow", "我有一张3060，跑32b很慢，买
4090会快很多吗".
The symptom is the reason for the purchase, not a run to diagnose: the model on the card to buy answers it (fit:
whether it holds it, else how fast with the rest in system RAM, then what would hold it), as intents.py `_upgrade`
does for a comparison of the two cards.
"""

from __future__ import annotations

from assistant.understanding.mac_memory import falls_short
from assistant.understanding.text import _State

_TRAINING = ("full", "lora", "qlora")


def _upgrade_for_symptom(st: _State) -> None:
    q = st.q
    if not (q.upgrade_to and q.owns_hardware and q.buy_or_rent == "buy" and (q.model or q.params_b)):
        return
    if not q.intents or q.intents[0] != "diagnose" or q.mode in _TRAINING or q.fine_tune_unspecified:
        return
    rest = [i for i in q.intents if i not in ("diagnose", "fit", "recommend")]
    q.intents = ["fit", "recommend", *rest]
    q.gpu, q.num_gpus = q.upgrade_to, q.gpu_counts.get(q.upgrade_to)


def _upgrade_when_owned_falls_short(st: _State) -> None:
    """ "my 3060 can't handle qwen2.5 32b, thinking of buying a 3090, will it run it?", "我的4090跑不了70B，想买个128G的
    Mac Studio，能跑吗": the owned card is said to fall short, so the card to buy is the one asked about; the owned
    one is named once as left out (capabilities/ruled_out.py)."""
    q = st.q
    if not (q.upgrade_to and q.owned_gpu and q.owned_gpu != q.upgrade_to and (q.model or q.params_b)):
        return
    if not q.intents or q.intents[0] not in ("fit", "memory", "compare") or q.budget or q.monthly_budget:
        return
    owned = [s for s in st.gpus if s.value == q.owned_gpu]
    if not owned or not all(falls_short(st.t.text, s.end) for s in owned):
        return
    q.intents = ["fit", *[i for i in q.intents if i not in ("fit", "memory", "compare")]]
    q.gpu, q.num_gpus = q.upgrade_to, q.gpu_counts.get(q.upgrade_to)
    q.ruled_out_gpu, q.ruled_out_by = q.owned_gpu, "capacity"
