"""Continued pre-training of a model that exists ("Qwen2.5-7B 做增量预训练", "我想做某个领域知识的预训练", "continued
pretraining of Llama-3-8B on my domain corpus"): every weight is trained, like a full fine-tune, on the user's own
corpus. It is no run from scratch: the job is sized as full training (or the method named beside it), never on the
token budget of a model trained from nothing (lexicon.yaml `modes.continued`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from assistant.understanding.lexicon import _lex

if TYPE_CHECKING:
    from assistant.understanding.text import _State


def _continued_pretrain(st: _State) -> None:
    q, rx = st.q, _lex().rx
    text = st.words_text or st.t.text
    if not q.pretrain or rx["mode_scratch"].search(text) or not rx["mode_continued"].search(text):
        return
    q.pretrain = False  # the job stays the full training workload.py read for it, unless a method is named
    if st.modes_found & {"lora", "qlora"} and "full" not in st.modes_found:
        q.jobs = [j for j in q.jobs if j != "full"]  # "domain-adaptive pretraining with LoRA": the LoRA is the job
