"""What one browser session remembers besides the Advisor's own history: typed, held in a gr.State."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from assistant.scenario import Scenario
from assistant.web.cards import Card, fit_card, gpu_card, model_display, reference_cards, row_card
from assistant.web.chat import WHATIF_SLOTS, TurnView, scenario_markdown
from assistant.web.i18n import Lang, note_text
from tools.gpu_search import FindGpusResult, GpuRow, GpuSpecsResult
from tools.notes import Note
from tools.speed import SpeedResult
from tools.tco import TcoResult
from tools.vram import VramResult

if TYPE_CHECKING:
    import gradio as gr


@dataclass
class Session:
    """The interface language, the turn count, and what the scenario panel and the charts show."""

    lang: Lang = "en"
    sid: str = field(default_factory=lambda: uuid.uuid4().hex)  # the Advisor session when Gradio gives none
    turn: int = 0
    answer_lang: Lang | None = None  # the language of the last question: what-if follow-ups are written in it
    scenario: Scenario = field(default_factory=Scenario)
    assumptions: list[str | Note] = field(default_factory=list)  # of the latest calculation, for the panel
    vram: VramResult | None = None
    cards: list[Card] = field(default_factory=list)  # drawn next to `vram`
    tco: TcoResult | None = None
    gpu_rows: list[GpuRow] | None = None  # the GPUs the chat last compared (None: the whole catalog)
    shown: dict[str, str] = field(default_factory=dict)  # chart -> fingerprint of what the browser shows

    def fresh(self) -> Session:
        """A new conversation in the same browser tab (same language and fallback id)."""
        return Session(lang=self.lang, sid=self.sid)

    def session_id(self, request: gr.Request | None) -> str:
        """The Advisor session: Gradio's per-browser-tab session hash (this session's random id as fallback)."""
        sid = getattr(request, "session_hash", None) if request is not None else None
        return str(sid or self.sid)

    @property
    def gpu_currency(self) -> str | None:
        return self.gpu_rows[0].currency if self.gpu_rows else None

    def absorb(self, view: TurnView) -> VramResult | None:
        """Take what a finished turn computed; return its memory estimate, if it made one."""
        if view.final is not None:
            self.scenario = view.final.scenario
        vram = view.latest(VramResult)
        calc = vram or view.latest(SpeedResult) or view.latest(TcoResult)
        if calc is not None:
            self.assumptions = list(calc.assumptions)
        if vram is not None:
            self.vram = vram
            self.cards = self._cards(view, vram)
        self.tco = view.latest(TcoResult) or self.tco
        rows = [g for kind in (GpuSpecsResult, FindGpusResult) if (hit := view.latest(kind)) for g in hit.gpus]
        if len(rows) >= 2:
            self.gpu_rows = rows
        return vram

    def _cards(self, view: TurnView, vram: VramResult) -> list[Card]:
        """The GPU the estimate was sized for, else the one the turn looked up or the scenario names."""
        specs = view.latest(GpuSpecsResult)
        card = fit_card(vram) or (row_card(specs.gpus[0]) if specs and specs.gpus else gpu_card(self.scenario.gpu))
        return [card] if card else reference_cards(vram.per_gpu_gib)

    def whatif_values(self, vram: VramResult | None) -> dict[str, Any]:
        """What each what-if control shows: the scenario, overridden by what this turn's estimate used."""
        s = self.scenario
        gpu = gpu_card(s.gpu)
        values: dict[str, Any] = {
            "precision": s.precision,
            "context_tokens": s.context_tokens,
            "batch": s.batch,
            "gpu": gpu.name if gpu else s.gpu,
            "num_gpus": s.num_gpus,
            "mode": s.mode,
        }
        if vram is not None:
            values |= {
                "precision": vram.precision,
                "context_tokens": vram.context_tokens,
                "batch": vram.batch,
                "num_gpus": vram.num_gpus,
                "mode": vram.mode,
            }
        return {slot: values[slot] for slot in WHATIF_SLOTS}

    def panel(self) -> str:
        """The scenario panel: the slots set so far and the latest calculation's assumptions."""
        assumptions = [note_text(a, self.lang) for a in self.assumptions]
        return scenario_markdown(self.scenario.summary(), assumptions, self.lang, self.names())

    def names(self) -> dict[str, str]:
        """Display names for the scenario panel's model and GPU slots."""
        names = {}
        if model := model_display(self.scenario.model):
            names["model"] = model
        if gpu := gpu_card(self.scenario.gpu):
            names["gpu"] = gpu.name
        return names
