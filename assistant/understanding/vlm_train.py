"""A language model trained inside a LLaVA-style multimodal framework ("[TinyLLaVA/TinyLLaVA_Factory] 全量微调
qwen2_0.5B 要多大显存", "fine-tune Vicuna-7B with LLaVA"): the model named is only the language part; the vision
encoder and the image tokens come on top. The fact is noted (code vlm_vision_tower, knowledge/data/notes.yaml) for the
memory answer to say after its figures; the words are modes.vlm_framework in knowledge/data/lexicon.yaml."""

from __future__ import annotations

from assistant.understanding.lexicon import _lex
from assistant.understanding.text import _State
from tools.models import registry
from tools.notes import note


def _vision_tower(st: _State) -> None:
    q = st.q
    training = q.pretrain or q.fine_tune_unspecified or q.mode in ("full", "lora", "qlora")
    if not training or q.model is None or not _lex().rx["mode_vlm_framework"].search(st.t.text):
        return
    arch = registry().get(q.model)
    if arch is None or arch.extra_params_b:  # a vision-language model in the registry carries its tower already
        return
    q.notes.append(note("vlm_vision_tower", model=arch.name))
