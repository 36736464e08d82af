"""A training job on a tiny model is a run from scratch: "训练一个 26M 小模型", "train a 124M GPT on my 4090",
"[karpathy/nanoGPT] Can my RTX3060 train the model code?". Nobody adapts a model of a few million parameters with
LoRA: it is trained whole (every weight, AdamW), and from nothing when no released model is named. So a plain
"训练 / train" (no fine-tuning word, no method) on a size stated in millions, on a bare size under 1B with no model
named, or in a codebase built to train a model from nothing (nanoGPT, MiniMind) is read as pre-training: full
training, its time from the tokens. Wording lives in knowledge/data/lexicon.yaml (modes.tune_named,
modes.scratch_codebase, modes.million_size)."""

from __future__ import annotations

from assistant.understanding.lexicon import _lex
from assistant.understanding.text import _State

_TINY_B = 1.0  # under 1B parameters: full training on one card, never an adapter


def _million_size(st: _State) -> float | None:
    """A bare size in millions that no earlier slot used ("26M 小模型", "a 124M GPT"), in billions."""
    m = _lex().rx["mode_million_size"].search(st.t.view)
    if m is None or not st.t.is_free(m.start(), m.end()):
        return None
    st.t.take(m.start(), m.end())
    return round(float(m.group("v")) / 1000, 4)


def _small_training(st: _State) -> None:
    q, rx = st.q, _lex().rx
    text = st.words_text or st.t.text
    if not (q.pretrain or q.fine_tune_unspecified or q.mode in ("full", "lora", "qlora")):
        return  # no training job: "26M" is no model size
    if q.model is None and q.params_b is None and q.unknown_model is None:
        q.params_b = _million_size(st)  # "预训练一个 100M 的模型", "LoRA 一个 26M 的模型"
    if q.pretrain or q.mode is not None or not q.fine_tune_unspecified or rx["mode_tune_named"].search(text):
        return  # a method, a fine-tuning word or a pre-training already read: the job stays as asked
    codebase = bool(rx["mode_scratch_codebase"].search(st.t.text))
    tiny = q.model is None and q.params_b is not None and q.params_b < _TINY_B
    if not (tiny or codebase):
        return
    q.pretrain, q.mode, q.fine_tune_unspecified = True, "full", False
    q.jobs = list(dict.fromkeys("full" if job == "lora" else job for job in q.jobs)) or ["full"]  # type: ignore[misc]
