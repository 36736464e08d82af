"""An application that is not a language model, named by its project, with no language model named ("IndexTTS：12g显存够
吗", "Will 16GB VRAM be ok for Gaussian Splatting?", "a good card for krita-ai-diffusion, medium budget"): the card
question is about that application's memory (knowledge/data/apps.yaml through tools/apps.py), not about the language
models the card runs (capabilities/app_fit.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import Field

from assistant.understanding.ruled_out import RuledOut
from tools.apps import app_named
from tools.catalog import catalog

if TYPE_CHECKING:
    from assistant.understanding.text import _State


class AppNamed(RuledOut):
    """The slot of an application named (a base of ParsedQuery: query.py is at its size limit)."""

    app: str | None = Field(default=None, description="An application that is no LLM (apps.yaml id): 'index-tts'")
    size_short: bool = Field(default=False, description="The user's memory said to fall short ('12个G显存都不够')")
    on_cpu_now: bool = Field(default=False, description="The application runs on the CPU for now ('现在是cpu在跑')")
    replaced_gpu: str | None = Field(
        default=None, description="A card being replaced because it no longer works ('之前的v100不适用，想换卡')"
    )


def _replaced_card(st: _State) -> None:
    """The card a message replaces ("my old 1080 is no longer supported, so I'm replacing it: 4070 Super or 3090?"):
    hardware.py drops it from the cards asked about (card_joins.replaced); this keeps it, so the answer names it."""
    from assistant.understanding.card_joins import replaced

    st.q.replaced_gpu = replaced(st.t.view, st.gpus)


def _app_asked(st: _State) -> None:
    q = st.q
    if q.model or q.params_b or q.model_family or q.is_followup or q.pretrain:
        return  # a language model named has its own sizing
    if q.quoted_memory_gib and (q.mode in ("full", "lora", "qlora") or q.fine_tune_unspecified):
        return  # "全参微调large-v2需要42G，两个24G可以吗": the job's own figure against the cards (quoted_need.py)
    if q.gpu_mentions and not set(q.gpu_mentions) & set(catalog()):
        return  # a card the catalog lacks: no figures of its own to judge it by here
    found = app_named(st.t.text)
    if found is None:
        return
    from assistant.understanding.symptoms import _CPU_NOW
    from assistant.understanding.upgrade_pick import _SHORT

    on_cpu_now = bool(_CPU_NOW.search(st.t.text))
    if (q.symptom or "diagnose" in q.intents) and not on_cpu_now:
        return  # "why is my 4090 slower than an A10 on Whisper", "3090 shuts the PC off in SD": a run to diagnose
    q.app = found
    q.on_cpu_now = on_cpu_now
    q.size_short = bool(_SHORT.search(st.t.text))
    # cards weighed as options are compared first (memory decides when no model is sized); the verdicts follow
    weighed = len(q.gpu_mentions) > 1 and q.gpus_alternative and "compare" in q.intents
    app = ["compare", "app_fit"] if weighed else ["app_fit"]
    # "Is the RX 7900 XTX supported by ROCm now? I want to run stable diffusion on it": the platform's verdict asked
    # about the card stays, first where it was asked first; the application's memory follows
    support = ["support"] if "support" in q.intents and q.support_subjects else []
    first = bool(support) and q.intents.index("support") == 0
    q.intents = [*support, *app] if first else [*app, *support]
    q.unknown_model = None  # "index-tts", "whisper-large-v3" are no language model to ask about
    q.symptom = None  # "现在是cpu在跑，太慢了": why a card is wanted, not a run on it to diagnose
