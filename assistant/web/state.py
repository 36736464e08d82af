"""What one browser session remembers besides the Advisor's own history: typed, held in a gr.State.

The Advisor's session id lives in the browser (a gr.BrowserState holds it in localStorage), so a reload
or a server restart finds the same conversation; `bind` adopts it, or mints one on a first visit.
"""

from __future__ import annotations

import re
import threading
import uuid
from dataclasses import dataclass, field
from typing import Any

from assistant.proposal.offer import proposes
from assistant.scenario import Scenario
from assistant.web.cards import Card, fit_card, gpu_card, model_display, reference_cards, row_card
from assistant.web.charts import Option, compare_options, recommend_options
from assistant.web.chat import WHATIF_SLOTS, TurnView
from assistant.web.i18n import Lang, note_text
from assistant.web.panel import scenario_markdown
from tools.compare import CompareResult
from tools.gpu_search import FindGpusResult, GpuRow, GpuSpecsResult
from tools.notes import Note
from tools.recommend import RecommendResult
from tools.speed import SpeedResult
from tools.tco import TcoResult
from tools.vram import VramResult

BROWSER_ID = re.compile(r"[0-9a-f]{32}")  # what the browser may hand back: nothing else is ever adopted
THREAD_PREFIX = "web-"  # web conversations never share an id with a terminal `--session NAME`
_BIND_LOCK = threading.Lock()  # the page load and a question sent before it finished bind the same id


def new_browser_id() -> str:
    return uuid.uuid4().hex


def valid_browser_id(value: Any) -> str | None:
    """The id a browser stored, if it is one this app minted (a random hex string); else None."""
    return value if isinstance(value, str) and BROWSER_ID.fullmatch(value) else None


@dataclass
class Session:
    """The interface language, the turn count, and what the scenario panel and the charts show."""

    lang: Lang = "en"
    browser_id: str | None = None  # the id kept in the browser; None until the page load or a question binds one
    turn: int = 0
    answer_lang: Lang | None = None  # the language of the last question: what-if follow-ups are written in it
    scenario: Scenario = field(default_factory=Scenario)
    used: dict[str, Any] = field(default_factory=dict)  # what the latest answer computed with, by what-if slot
    assumptions: list[str | Note] = field(default_factory=list)  # of the latest calculation, for the panel
    vram: VramResult | None = None
    cards: list[Card] = field(default_factory=list)  # drawn next to `vram`
    # the options of the latest recommendation or comparison, the pick first: the memory chart draws them in place of
    # `vram` until a later turn estimates the user's memory again
    options: list[Option] = field(default_factory=list)
    tco: TcoResult | None = None
    gpu_rows: list[GpuRow] | None = None  # the GPUs the chat last compared (None: the whole catalog)
    shown: dict[str, str] = field(default_factory=dict)  # chart -> fingerprint of what the browser shows
    proposal: bool = False  # an answer of this conversation recommended or compared cards: it can be written up

    def fresh(self) -> Session:
        """A new conversation in the same browser tab: same language, a new id."""
        return Session(lang=self.lang, browser_id=new_browser_id())

    def bind(self, stored: Any = None) -> str:
        """Adopt the id the browser stored (or mint one) unless this session has one already; return it."""
        with _BIND_LOCK:
            if self.browser_id is None:
                self.browser_id = valid_browser_id(stored) or new_browser_id()
            return self.browser_id

    @property
    def thread_id(self) -> str:
        """The Advisor session of this conversation."""
        return THREAD_PREFIX + self.bind()

    @property
    def gpu_currency(self) -> str | None:
        return self.gpu_rows[0].currency if self.gpu_rows else None

    def restore(self, history: list[tuple[str, str]], scenario: Scenario) -> None:
        """Take up a conversation the Advisor kept (after a reload or a restart)."""
        from assistant.language import detect_language

        questions = [text for role, text in history if role == "user"]
        self.turn = len(questions)
        self.answer_lang = detect_language(questions[-1]) if questions else None
        self.scenario = scenario

    def absorb(self, view: TurnView) -> VramResult | None:
        """Take what a finished turn computed; return its memory estimate, if it made one."""
        if view.final is not None:
            self.scenario = view.final.scenario
            self.proposal = self.proposal or proposes(view.final.tool_calls)
        # A turn that picked an option draws that pick; a memory figure it sized only as an example (a full fine-tune
        # next to the QLoRA it recommends) is not the user's workload.
        options = _options(view)
        vram = view.latest(VramResult, examples=not options)
        rec = (view.latest(RecommendResult) or view.latest(CompareResult)) if options else None
        calc = vram or rec or view.latest(SpeedResult) or view.latest(TcoResult)
        if calc is not None:
            self.assumptions = list(calc.assumptions)
        if vram is not None:
            self.vram = vram
            self.cards = self._cards(view, vram)
        if options or vram is not None:
            self.options = options
        self.tco = view.latest(TcoResult) or self.tco
        rows = [g for kind in (GpuSpecsResult, FindGpusResult) if (hit := view.latest(kind)) for g in hit.gpus]
        if len(rows) >= 2:
            self.gpu_rows = rows
        self.used = used_values(view, vram, next((o for o in options if o.picked), None))
        return vram

    def _cards(self, view: TurnView, vram: VramResult) -> list[Card]:
        """The GPU the estimate was sized for, else the one the turn looked up or the scenario names."""
        specs = view.latest(GpuSpecsResult)
        card = fit_card(vram) or (row_card(specs.gpus[0]) if specs and specs.gpus else gpu_card(self.scenario.gpu))
        return [card] if card else reference_cards(vram.per_gpu_gib)

    def values(self) -> dict[str, Any]:
        """The what-if slots as the latest answer had them: the scenario, overridden by what it computed with."""
        s = self.scenario
        values = {slot: getattr(s, slot) for slot in WHATIF_SLOTS}
        if s.pick is not None:  # what the answer chose (also after a reload, before any turn ran here)
            values |= {"mode": s.pick.mode, "precision": s.pick.precision, "gpu": s.pick.gpu, "num_gpus": s.pick.count}
        values |= {slot: v for slot, v in self.used.items() if v is not None}
        gpu = gpu_card(values["gpu"])
        values["gpu"] = gpu.name if gpu else values["gpu"]
        return values

    def whatif_values(self) -> dict[str, Any]:
        """What each what-if control shows (the same values the panel lists)."""
        return self.values()

    def panel(self) -> str:
        """The scenario panel: the slots set so far (as the controls show them) and the latest assumptions."""
        assumptions = [note_text(a, self.lang) for a in self.assumptions]
        summary = self.scenario.summary() | {k: v for k, v in self.values().items() if v is not None}
        return scenario_markdown(summary, assumptions, self.lang, self.names())

    def names(self) -> dict[str, str]:
        """Display names for the scenario panel's model and GPU slots."""
        names = {}
        if model := model_display(self.scenario.model):
            names["model"] = model
        if gpu := gpu_card(self.values()["gpu"]):
            names["gpu"] = gpu.name
        shown = [card.name if (card := gpu_card(g)) else g for g in self.scenario.gpus]
        if shown:
            names["gpus"] = ", ".join(shown)
        return names


def _options(view: TurnView) -> list[Option]:
    """The options of the turn's recommendation or comparison of the user's workload, the pick first."""
    rec = view.latest(RecommendResult, examples=False)
    if rec is not None and (options := recommend_options(rec)):
        return options
    compared = view.latest(CompareResult, examples=False)
    return compare_options(compared) if compared is not None else []


def used_values(view: TurnView, vram: VramResult | None, pick: Option | None = None) -> dict[str, Any]:
    """The what-if slots a turn computed with: the option it picked (a recommendation's or a comparison's: its
    method, format, card and count, at the context and batch it was sized for), else its memory estimate's."""
    if pick is not None:
        rec, compared = view.latest(RecommendResult), view.latest(CompareResult)
        sized = rec.sized_workload if rec is not None else None
        context = sized.context_tokens if sized else (compared.context_tokens if compared else None)
        batch = sized.batch if sized else (compared.batch if compared else None)
        chosen = {"mode": pick.mode, "precision": pick.precision, "gpu": pick.gpu, "num_gpus": pick.count}
        return chosen | {"context_tokens": context, "batch": batch}
    if vram is not None:
        used = {
            "precision": vram.precision,
            "context_tokens": vram.context_tokens,
            "batch": vram.batch,
            "num_gpus": vram.num_gpus,
            "mode": vram.mode,
        }
        return used | ({"gpu": vram.fit.gpu} if vram.fit is not None else {})
    rec = view.latest(RecommendResult)
    if rec is None:  # nothing asked of the kind: the scenario's own slots
        return {}
    w = rec.sized_workload  # nothing fits: the workload as the policy sized it
    return {"mode": w.mode, "precision": w.precision, "context_tokens": w.context_tokens, "batch": w.batch}
