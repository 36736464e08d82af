"""The Gradio app: chat with tool bubbles, the scenario with what-if controls, charts, calculators,
the knowledge base and provider settings.

Every turn goes through the Advisor facade with the browser session's id, so two browsers never share
a scenario or a history. Interface text comes from i18n.yaml; answers follow the question's language.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from typing import Any

os.environ["GRADIO_ANALYTICS_ENABLED"] = "False"  # before gradio is imported: no telemetry, no version check

import gradio as gr

from assistant.settings import Settings
from assistant.web import forms, kb
from assistant.web.charts import Chart, memory_chart, tco_chart
from assistant.web.chat import (
    BATCH_CHOICES,
    CONTEXT_CHOICES,
    GPU_COUNT_CHOICES,
    MODE_CHOICES,
    PRECISION_CHOICES,
    WHATIF_SLOTS,
    TurnView,
    followup_text,
    scenario_markdown,
    tokens_label,
)
from assistant.web.fast_blocks import FastBlocks
from assistant.web.i18n import LANG_NAMES, example_questions, lang_from_header, t
from assistant.web.pacing import Load, paced

log = logging.getLogger(__name__)
REFRESH_S = 0.15  # at most this often a streaming turn is re-sent to the browser (see pacing.py)

CSS = """
#title h2 { margin-bottom: 0; }
#chatbot .citation summary { cursor: pointer; font-weight: 600; }
#chatbot a.cite-link { text-decoration: none; font-weight: 600; }
#scenario li { margin: 0; }
#turn-info { color: var(--body-text-color-subdued); font-size: 0.85em; }
/* Vega puts the colour legend below the plot area, past the fixed height: let it show. */
.vega-embed { padding-bottom: 40px; }
.vega-embed svg.marks { overflow: visible; }
"""

# Citation links open and scroll to their passage (the Chatbot renders them as plain anchors).
JS = """
() => {
  document.addEventListener('click', (event) => {
    const link = event.target.closest && event.target.closest('a.cite-link');
    if (!link) return;
    const target = document.getElementById(link.getAttribute('href').slice(1));
    if (!target) return;
    event.preventDefault();
    target.open = true;
    target.scrollIntoView({behavior: 'smooth', block: 'center'});
  });
}
"""


def is_skip(value: Any) -> bool:
    return isinstance(value, dict) and value == gr.skip()


def fingerprint(value: Any) -> str:
    """A short digest of what an output shows, to skip re-sending what the browser already has."""
    text = json.dumps(value, sort_keys=True, default=str, ensure_ascii=False)
    return hashlib.blake2b(text.encode("utf-8"), digest_size=12).hexdigest()


def clear_plots(n: int) -> list[Any]:
    """Empty plots first: Gradio's native plots keep their old colour legend (or ignore the new data) when
    data and axes change in one update, but redraw correctly from empty. (A bare None, not an update: Gradio
    rebuilds the component for every update.)"""
    return [None] * n


def question_lang(text: str, default: str) -> str:
    """The language the Advisor answers `text` in (what-if follow-ups are written in it)."""
    try:
        from assistant.advisor import detect_language
    except Exception:  # the assistant cannot start; the turn will say why
        return default
    return detect_language(text)


def new_state(lang: str = "en") -> dict[str, Any]:
    """What one browser session remembers besides the Advisor's own history."""
    return {
        "sid": uuid.uuid4().hex,
        "lang": lang,
        "turn": 0,
        "answer_lang": None,
        "scenario": {},
        "assumptions": [],
        "vram": None,
        "capacities": [],
        "tco": None,
        "gpu_rows": None,
        "gpu_currency": None,
        "shown": {},  # output -> fingerprint of what the browser shows (see fingerprint())
    }


def session_id(state: dict[str, Any], request: gr.Request | None) -> str:
    """The Advisor session: Gradio's per-browser-tab session hash (a random id as fallback)."""
    sid = getattr(request, "session_hash", None) if request is not None else None
    return str(sid or state["sid"])


class _AdvisorRef:
    """The Advisor, created on first use so the UI starts (and reports) even if the assistant cannot."""

    def __init__(self, advisor: Any, settings: Settings) -> None:
        self._advisor = advisor
        self.settings = settings
        self._lock = threading.Lock()

    def get(self) -> Any:
        with self._lock:
            if self._advisor is None:
                from assistant.advisor import Advisor

                self._advisor = Advisor(self.settings)
            return self._advisor


class Labels:
    """Components whose text follows the interface language: each registered with how to re-translate it."""

    def __init__(self, lang: str) -> None:
        self.lang = lang
        self.items: list[tuple[Any, Callable[[str], dict[str, Any]]]] = []

    def __call__(self, component: Any, key: str, attr: str = "label", **fields: Any) -> Any:
        self.items.append((component, lambda lang: {attr: t(lang, key, **fields)}))
        return component

    def add(self, component: Any, update: Callable[[str], dict[str, Any]]) -> Any:
        self.items.append((component, update))
        return component

    def t(self, key: str, **fields: Any) -> str:
        return t(self.lang, key, **fields)

    @property
    def components(self) -> list[Any]:
        return [c for c, _ in self.items]

    def updates(self, lang: str) -> list[Any]:
        return [gr.update(**fn(lang)) for _, fn in self.items]


def _mode_choices(lang: str) -> list[tuple[str, str]]:
    return [(t(lang, f"mode.{m}"), m) for m in MODE_CHOICES]


def plot_update(chart: Chart | None, lang: str, title_key: str, empty_key: str | None = None) -> Any:
    if chart is None or chart.empty:
        return gr.update(value=None, label=t(lang, title_key), caption=t(lang, empty_key) if empty_key else None)
    return gr.update(value=chart.frame, label=t(lang, title_key), caption=chart.caption or None, **chart.spec)


def notice_text(settings: Settings | None, lang: str) -> str:
    provider = settings.provider if settings is not None else "offline"
    return t(lang, "offline_notice") if provider == "offline" else t(lang, "online_notice", provider=provider)


def build_app(advisor: Any = None, settings: Settings | None = None, lang: str = "en") -> gr.Blocks:
    """The whole UI. `advisor` is injected by tests; by default an Advisor(settings) is created on first use."""
    settings = settings or Settings()
    ref = _AdvisorRef(advisor, settings)
    L = Labels(lang)
    suffixes, max_mb = kb.limits()

    with FastBlocks(title="GPU Advisor · 选卡助手", analytics_enabled=False, fill_width=True) as demo:
        state = gr.State(new_state(lang))
        session_settings = gr.State(None)  # a Settings chosen in this browser session (API key included)

        with gr.Row(equal_height=True):
            L.add(
                gr.Markdown(f"## {L.t('title')}\n{L.t('subtitle')}", elem_id="title"),
                lambda lg: {"value": f"## {t(lg, 'title')}\n{t(lg, 'subtitle')}"},
            )
            lang_radio = gr.Radio(
                list(LANG_NAMES),
                value="中文" if lang == "zh" else "English",
                label="界面语言 / Language",
                elem_id="lang-toggle",
                scale=0,
                min_width=220,
            )
        notice = gr.Markdown(notice_text(settings, lang), elem_id="provider-notice")

        with gr.Tabs(elem_id="tabs"):
            # ---- chat ------------------------------------------------------------------------------------
            with L(gr.Tab(L.t("tab_chat"), id="chat", elem_id="tab-chat"), "tab_chat"):
                with gr.Row():
                    with gr.Column(scale=3):
                        chatbot = L.add(
                            gr.Chatbot(
                                label=L.t("chatbot"),
                                elem_id="chatbot",
                                height=640,
                                buttons=["copy", "copy_all"],
                                feedback_options=None,
                            ),
                            lambda lg: {"label": t(lg, "chatbot")},
                        )
                        with gr.Row(equal_height=True):
                            msg = L.add(
                                gr.Textbox(
                                    label="message",
                                    show_label=False,
                                    placeholder=L.t("chat_placeholder"),
                                    elem_id="chat-input",
                                    scale=6,
                                    lines=1,
                                    max_lines=6,
                                    autofocus=True,
                                ),
                                lambda lg: {"placeholder": t(lg, "chat_placeholder")},
                            )
                            send = L(
                                gr.Button(L.t("send"), variant="primary", elem_id="send", scale=0, min_width=90),
                                "send",
                                "value",
                            )
                            clear = L(
                                gr.Button(L.t("clear"), elem_id="clear", scale=0, min_width=120), "clear", "value"
                            )
                        turn_info = gr.Markdown(elem_id="turn-info", label="turn")
                        examples = gr.Examples(
                            example_questions(), inputs=[msg], label=L.t("examples"), examples_per_page=6
                        )
                        L(examples.dataset, "examples")
                    with gr.Column(scale=2):
                        L.add(gr.Markdown(f"### {L.t('scenario')}"), lambda lg: {"value": f"### {t(lg, 'scenario')}"})
                        scenario_md = gr.Markdown(scenario_markdown({}, [], lang), elem_id="scenario", label="scenario")
                        L.add(
                            gr.Markdown(f"**{L.t('whatif')}** {L.t('whatif_hint')}"),
                            lambda lg: {"value": f"**{t(lg, 'whatif')}** {t(lg, 'whatif_hint')}"},
                        )
                        with gr.Row():
                            w_precision = L(
                                gr.Dropdown(
                                    PRECISION_CHOICES,
                                    value=None,
                                    label=L.t("slot.precision"),
                                    allow_custom_value=True,
                                    elem_id="whatif-precision",
                                    min_width=110,
                                ),
                                "slot.precision",
                            )
                            w_context = L(
                                gr.Dropdown(
                                    [(tokens_label(c), c) for c in CONTEXT_CHOICES],
                                    value=None,
                                    label=L.t("slot.context_tokens"),
                                    allow_custom_value=True,
                                    elem_id="whatif-context",
                                    min_width=110,
                                ),
                                "slot.context_tokens",
                            )
                            w_batch = L(
                                gr.Dropdown(
                                    BATCH_CHOICES,
                                    value=None,
                                    label=L.t("slot.batch"),
                                    allow_custom_value=True,
                                    elem_id="whatif-batch",
                                    min_width=110,
                                ),
                                "slot.batch",
                            )
                        with gr.Row():
                            w_gpu = L(
                                gr.Dropdown(
                                    forms.gpu_choices(),
                                    value=None,
                                    label=L.t("slot.gpu"),
                                    allow_custom_value=True,
                                    elem_id="whatif-gpu",
                                    min_width=150,
                                ),
                                "slot.gpu",
                            )
                            w_count = L(
                                gr.Dropdown(
                                    GPU_COUNT_CHOICES,
                                    value=None,
                                    label=L.t("slot.num_gpus"),
                                    allow_custom_value=True,
                                    elem_id="whatif-gpus",
                                    min_width=90,
                                ),
                                "slot.num_gpus",
                            )
                            w_mode = L.add(
                                gr.Dropdown(
                                    _mode_choices(lang),
                                    value=None,
                                    label=L.t("slot.mode"),
                                    elem_id="whatif-method",
                                    min_width=120,
                                ),
                                lambda lg: {"label": t(lg, "slot.mode"), "choices": _mode_choices(lg)},
                            )
                        mem_plot = gr.BarPlot(
                            label=L.t("chart_memory"),
                            caption=L.t("chart_memory_empty"),
                            elem_id="chart-memory",
                        )
                with gr.Row():
                    # shown once a turn has computed buy vs rent
                    tco_plot = gr.LinePlot(label=L.t("chart_tco"), elem_id="chart-tco", visible=False)
                    price_plot = gr.ScatterPlot(label=L.t("chart_gpu_price"), elem_id="chart-gpu-price")
                    bw_plot = gr.ScatterPlot(label=L.t("chart_gpu_memory"), elem_id="chart-gpu-memory")

            # ---- calculators -----------------------------------------------------------------------------
            with L(gr.Tab(L.t("tab_calculators"), id="calculators", elem_id="tab-calculators"), "tab_calculators"):
                calc = _calculators(L, state)

            # ---- knowledge -------------------------------------------------------------------------------
            with L(gr.Tab(L.t("tab_knowledge"), id="knowledge", elem_id="tab-knowledge"), "tab_knowledge") as kb_tab:
                with gr.Row():
                    with gr.Column(scale=3):
                        kb_table = L(
                            gr.Dataframe(
                                label=L.t("kb_docs"), interactive=False, elem_id="kb-docs", max_height=420, wrap=True
                            ),
                            "kb_docs",
                        )
                        kb_refresh = L(
                            gr.Button(L.t("kb_refresh"), size="sm", elem_id="kb-refresh"), "kb_refresh", "value"
                        )
                    with gr.Column(scale=2):
                        types = ", ".join(suffixes)
                        kb_upload = L(
                            gr.File(
                                label=L.t("kb_upload", types=types, mb=max_mb),
                                file_count="multiple",
                                file_types=suffixes,
                                elem_id="kb-upload",
                                height=140,
                            ),
                            "kb_upload",
                            types=types,
                            mb=max_mb,
                        )
                        kb_status = gr.Markdown(elem_id="kb-status")
                with gr.Row(equal_height=True):
                    kb_query = L.add(
                        gr.Textbox(
                            label=L.t("kb_search"),
                            placeholder=L.t("kb_search_placeholder"),
                            elem_id="kb-query",
                            scale=5,
                        ),
                        lambda lg: {"label": t(lg, "kb_search"), "placeholder": t(lg, "kb_search_placeholder")},
                    )
                    kb_go = L(
                        gr.Button(L.t("kb_search_button"), elem_id="kb-search", scale=0, min_width=100),
                        "kb_search_button",
                        "value",
                    )
                kb_results = gr.Markdown(elem_id="kb-results")

            # ---- settings --------------------------------------------------------------------------------
            with L(gr.Tab(L.t("tab_settings"), id="settings", elem_id="tab-settings"), "tab_settings"):
                kind, _, model_name = settings.provider.partition(":")
                s_provider = L(
                    gr.Radio(
                        ["offline", "openai", "ollama"],
                        value=kind,
                        label=L.t("settings_provider"),
                        elem_id="settings-provider",
                    ),
                    "settings_provider",
                )
                s_model = L(
                    gr.Textbox(value=model_name, label=L.t("settings_model"), elem_id="settings-model"),
                    "settings_model",
                )
                s_base = L(
                    gr.Textbox(
                        value=settings.base_url or "", label=L.t("settings_base_url"), elem_id="settings-base-url"
                    ),
                    "settings_base_url",
                )
                s_key = L(
                    gr.Textbox(value="", type="password", label=L.t("settings_api_key"), elem_id="settings-api-key"),
                    "settings_api_key",
                )
                s_apply = L(
                    gr.Button(L.t("settings_apply"), variant="primary", elem_id="settings-apply"),
                    "settings_apply",
                    "value",
                )
                s_status = gr.Markdown(elem_id="settings-status")
                L(gr.Markdown(L.t("settings_note")), "settings_note", "value")

        # ---- chat events -------------------------------------------------------------------------------
        whatifs = [w_precision, w_context, w_batch, w_gpu, w_count, w_mode]
        plots = [mem_plot, tco_plot, price_plot, bw_plot]
        chat_outputs = [chatbot, msg, state, scenario_md, *whatifs, *plots, turn_info]
        n_tail = len(chat_outputs) - 3

        load = Load(REFRESH_S)

        def respond(
            message: str, history: list, st: dict, chosen: Settings | None, request: gr.Request
        ) -> Iterator[tuple]:
            """Ask GPU Advisor; streams tool calls (collapsible) and the answer."""
            message = (message or "").strip()
            if not message:
                yield (history, "", st, *[gr.skip()] * n_tail)
                return
            st = dict(st)
            st["turn"] += 1
            st["answer_lang"] = question_lang(message, st["lang"])
            history = [*(history or []), {"role": "user", "content": message}]
            view = TurnView(history, st["lang"], st["turn"])
            rendered = False

            def input_box() -> Any:
                """Empty the message box with the turn's first render, then leave it alone (the user may be
                typing the next question while a slow answer streams)."""
                nonlocal rendered
                first, rendered = not rendered, True
                return "" if first else gr.skip()

            try:
                active = chosen or ref.settings
                events = ref.get().stream_turn(
                    session_id(st, request), message, provider=active.provider, settings=active
                )
                # The user's message shows with the first render: at once for a quick (offline) turn's
                # answer, after REFRESH_S at the latest for a slow one.
                with load:
                    for batch in paced(events, load.interval_s(), rendered=False):
                        for event in batch.events:
                            view.apply(event)
                        if not batch.last:  # the final view goes out below, with the panel and charts
                            yield (view.messages, input_box(), st, *[gr.skip()] * n_tail)
            except Exception as exc:  # never a traceback in the chat
                log.exception("chat turn failed")
                view.apply(_Error(f"{type(exc).__name__}: {exc}"))
                yield (view.messages, input_box(), st, *[gr.skip()] * (n_tail - 1), _turn_info(view, st))
                return
            try:
                panel, plot_values = _after_turn(view, st)
            except Exception:  # the answer is in; a panel that cannot be drawn must not hide it
                log.exception("updating the scenario panel and charts failed")
                yield (view.messages, input_box(), st, *[gr.skip()] * (n_tail - 1), _turn_info(view, st))
                return
            if not all(is_skip(v) for v in plot_values):
                cleared = [gr.skip() if is_skip(v) else None for v in plot_values]
                yield (view.messages, input_box(), st, *[gr.skip()] * len(panel), *cleared, gr.skip())
            yield (view.messages, input_box(), st, *panel, *plot_values, _turn_info(view, st))

        def _after_turn(view: TurnView, st: dict) -> tuple[list[Any], list[Any]]:
            """Update `st` after a finished turn; return the scenario panel + what-if values, and the charts
            (`gr.skip()` for a chart the browser already shows: most follow-ups change one of four)."""
            lang = st["lang"]
            summary = view.final.scenario.summary() if view.final is not None else st["scenario"]
            st["scenario"] = summary
            vram = view.latest("estimate_vram")
            calc = vram or view.latest("estimate_speed") or view.latest("calculate_tco")
            if calc:
                st["assumptions"] = list(calc[1].get("assumptions", []))
            effective = dict(summary)
            if vram:
                result = vram[1]
                effective.update(
                    {
                        k: result[k]
                        for k in ("mode", "precision", "context_tokens", "batch", "num_gpus")
                        if result.get(k) is not None
                    }
                )
                st["vram"] = result
                st["capacities"] = _capacities(view, summary, result)
            if tco := view.latest("calculate_tco"):
                st["tco"] = tco[1]
            rows = [g for name in ("gpu_specs", "find_gpus") if (hit := view.latest(name)) for g in hit[1]["gpus"]]
            if len(rows) >= 2:
                st["gpu_rows"], st["gpu_currency"] = rows, rows[0].get("currency", "USD")
            gpu = forms.gpu_capacity(summary.get("gpu"))
            values = [
                effective.get("precision"),
                effective.get("context_tokens"),
                effective.get("batch"),
                gpu[0] if gpu else summary.get("gpu"),
                effective.get("num_gpus"),
                effective.get("mode"),
            ]
            # Plain values, not gr.update(): Gradio rebuilds a component for every update it is sent.
            panel = [scenario_markdown(summary, st["assumptions"], lang, forms.scenario_names(summary)), *values]
            return panel, _plots(st)

        def _turn_info(view: TurnView, st: dict) -> str:
            final = view.final
            if final is None:
                return t(st["lang"], "turn_failed", n=st["turn"])
            provider = final.provider + (" (fallback)" if final.fell_back else "")
            return t(
                st["lang"],
                "turn_info",
                n=st["turn"],
                provider=provider,
                seconds=final.latency_ms / 1000,
                tools=len(final.tool_calls),
            )

        def _capacities(view: TurnView, summary: dict, vram: dict) -> list[tuple[str, float]]:
            specs = view.latest("gpu_specs")
            if specs and specs[1].get("gpus"):
                g = specs[1]["gpus"][0]
                return [(forms.short_gpu_name(g["name"]), g["usable_gib"])]
            named = forms.gpu_capacity(summary.get("gpu"))
            return [named] if named else forms.reference_capacities(vram)

        def _plots(st: dict, force: bool = False) -> list[Any]:
            """The four charts, each drawn only when its inputs changed since the browser last got it
            (`force`: draw all, e.g. after a language switch). Fingerprints live in the session state."""
            lang = st["lang"]
            shown = st["shown"] = dict(st.get("shown") or {})
            currency = st["gpu_currency"] or ("CNY" if lang == "zh" else "USD")

            def memory() -> list[Any]:
                mem = memory_chart(st["vram"], st["capacities"], lang) if st["vram"] else None
                return [plot_update(mem, lang, "chart_memory", "chart_memory_empty")]

            def cost() -> list[Any]:
                tco = tco_chart(st["tco"], lang) if st["tco"] else None
                return [{**plot_update(tco, lang, "chart_tco"), "visible": tco is not None}]

            def catalog() -> list[Any]:
                gpus = forms.gpus_output(lang, st["gpu_rows"] or forms.catalog_rows(currency), currency)
                return [
                    plot_update(gpus.charts["price"], lang, "chart_gpu_price"),
                    plot_update(gpus.charts["memory"], lang, "chart_gpu_memory"),
                ]

            out: list[Any] = []
            for name, inputs, draw in (
                ("plot_memory", (lang, st["vram"], st["capacities"]), memory),
                ("plot_tco", (lang, st["tco"]), cost),
                ("plot_gpus", (lang, currency, st["gpu_rows"]), catalog),
            ):
                key = fingerprint(inputs)
                if not force and shown.get(name) == key:
                    out += [gr.skip() for _ in range(2 if name == "plot_gpus" else 1)]
                else:
                    shown[name] = key
                    out += draw()
            return out

        chat_inputs = [msg, chatbot, state, session_settings]
        msg.submit(respond, chat_inputs, chat_outputs, api_name="chat")
        send.click(respond, chat_inputs, chat_outputs, api_visibility="undocumented")

        once = _Once()

        def make_whatif(slot: str) -> Callable[..., Iterator[tuple]]:
            def whatif(
                value: Any, history: list, st: dict, chosen: Settings | None, request: gr.Request
            ) -> Iterator[tuple]:
                if value in (None, "", []) or not once.first((session_id(st, request), slot, str(value))):
                    yield (gr.skip(), gr.skip(), gr.skip(), *[gr.skip()] * n_tail)
                    return
                lang = st.get("answer_lang") or st["lang"]
                text = followup_text(slot, value, lang, mode=st["scenario"].get("mode"))
                yield from respond(text, history, st, chosen, request)

            whatif.__name__ = f"whatif_{slot}"
            return whatif

        for slot, control in zip(WHATIF_SLOTS, whatifs, strict=True):
            control.input(
                make_whatif(slot),
                [control, chatbot, state, session_settings],
                chat_outputs,
                api_visibility="undocumented",
            )

        def new_conversation(st: dict, request: gr.Request) -> tuple:
            try:
                ref.get().reset(session_id(st, request))
            except Exception:  # nothing to reset when the assistant never started
                log.debug("reset failed", exc_info=True)
            fresh = new_state(st["lang"])
            fresh["sid"] = st["sid"]
            return (
                [],
                "",
                fresh,
                scenario_markdown({}, [], fresh["lang"]),
                *[gr.update(value=None)] * 6,
                *_plots(fresh),
                "",
            )

        clear.click(new_conversation, [state], chat_outputs, api_name="reset")

        # ---- language ------------------------------------------------------------------------------------
        lang_outputs = [state, scenario_md, *plots, *calc.outputs, *L.components]

        def relabel(st: dict, lang: str) -> list[Any]:
            st = dict(st, lang=lang)
            return [
                st,
                scenario_markdown(st["scenario"], st["assumptions"], lang, forms.scenario_names(st["scenario"])),
                *_plots(st, force=True),
                *calc.relabel(lang),
                *L.updates(lang),
            ]

        def switch_language(choice: str, st: dict) -> Iterator[list[Any]]:
            yield [gr.skip(), gr.skip(), *clear_plots(len(plots)), *[gr.skip()] * (len(lang_outputs) - 2 - len(plots))]
            yield relabel(st, LANG_NAMES.get(choice, "en"))

        lang_radio.input(switch_language, [lang_radio, state], lang_outputs, api_visibility="undocumented")

        def on_load(st: dict, request: gr.Request) -> list[Any]:
            headers = getattr(request, "headers", None) or {}
            lang = lang_from_header(headers.get("accept-language"))
            out = relabel(st, lang)
            return [
                *out,
                gr.update(value="中文" if lang == "zh" else "English"),
                notice_text(ref.settings, lang),
                kb.documents(lang),
            ]

        demo.load(on_load, [state], [*lang_outputs, lang_radio, notice, kb_table], api_visibility="undocumented")

        def forget_session(request: gr.Request) -> None:
            """A closed tab's conversation is not needed any more."""
            sid = getattr(request, "session_hash", None)
            if sid:
                try:
                    ref.get().reset(sid)
                except Exception:
                    log.debug("reset on unload failed", exc_info=True)

        demo.unload(forget_session)

        # ---- knowledge -----------------------------------------------------------------------------------
        def list_documents(st: dict) -> Any:
            """The documents in the knowledge base, one row each."""
            return kb.documents(st["lang"])

        kb_refresh.click(list_documents, [state], [kb_table], api_name="documents")
        kb_tab.select(list_documents, [state], [kb_table], api_visibility="undocumented")

        def add_documents(files: list[str] | None, st: dict, progress: gr.Progress = gr.Progress()) -> tuple[str, Any]:  # noqa: B008
            """Add md/txt/html/pdf documents to the knowledge base (size and type limits apply)."""
            paths = [f if isinstance(f, str) else getattr(f, "name", str(f)) for f in (files or [])]
            status = kb.add_documents(paths, st["lang"], progress=lambda frac, desc: progress(frac, desc=desc))
            return status, kb.documents(st["lang"])

        kb_upload.upload(add_documents, [kb_upload, state], [kb_status, kb_table], api_name="add_documents")

        def search_knowledge(query: str, st: dict) -> str:
            """Search the guides and your documents; returns the top passages."""
            try:
                return kb.search(query, st["lang"])
            except Exception as exc:
                log.exception("knowledge search failed")
                return t(st["lang"], "kb_unavailable", message=str(exc))

        kb_go.click(search_knowledge, [kb_query, state], [kb_results], api_name="search")
        kb_query.submit(search_knowledge, [kb_query, state], [kb_results], api_visibility="undocumented")

        # ---- settings ------------------------------------------------------------------------------------
        def apply_settings(kind: str, model: str, base_url: str, api_key: str, st: dict) -> tuple:
            from assistant.settings import settings_from

            lang = st["lang"]
            provider = "offline" if kind == "offline" else f"{kind}:{(model or '').strip()}"
            try:
                chosen = settings_from(
                    ref.settings.model_dump(exclude={"api_key", "provider", "base_url"}),
                    provider=provider,
                    base_url=(base_url or "").strip() or None,
                    api_key=api_key or None,
                )
                if chosen.api_key is None and ref.settings.api_key is not None:
                    chosen = chosen.model_copy(update={"api_key": ref.settings.api_key})
            except Exception as exc:  # a validation message, never the key
                return gr.skip(), t(lang, "settings_invalid", message=_first_line(exc)), gr.skip()
            return chosen, t(lang, "settings_applied", provider=chosen.provider), notice_text(chosen, lang)

        s_apply.click(
            apply_settings,
            [s_provider, s_model, s_base, s_key, state],
            [session_settings, s_status, notice],
            api_visibility="private",
        )

        calc.wire()
    demo.queue(default_concurrency_limit=4)
    return demo


class _Once:
    """Drops repeats of the same key within a short window (Gradio's Dropdown fires `input` twice per pick)."""

    def __init__(self, window_s: float = 2.0) -> None:
        self.window_s = window_s
        self._seen: dict[tuple, float] = {}
        self._lock = threading.Lock()

    def first(self, key: tuple) -> bool:
        now = time.monotonic()
        with self._lock:
            self._seen = {k: t for k, t in self._seen.items() if now - t < self.window_s}
            if key in self._seen:
                return False
            self._seen[key] = now
            return True


class _Error:
    """An ErrorEvent look-alike for failures outside the Advisor (e.g. it could not start)."""

    type = "error"

    def __init__(self, message: str) -> None:
        self.message = message
        self.kind = "internal"


def _first_line(exc: Exception) -> str:
    from assistant.errors import describe_error

    return describe_error(exc).splitlines()[0]


class _Calculators:
    """The Calculators tab's components and events (built inside the tab, wired after)."""

    def __init__(self) -> None:
        self.outputs: list[Any] = []
        self._relabelers: list[Callable[[str], list[Any]]] = []
        self._wiring: list[Callable[[], None]] = []

    def relabel(self, lang: str) -> list[Any]:
        return [u for fn in self._relabelers for u in fn(lang)]

    def wire(self) -> None:
        for fn in self._wiring:
            fn()


def _calculators(L: Labels, state: gr.State) -> _Calculators:
    c = _Calculators()
    lang = L.lang
    models, gpus = forms.model_choices(), forms.gpu_choices()
    precisions = ["", *PRECISION_CHOICES, "nf4_dq", "q4_0", "q5_k_m", "q6_k"]

    def mode_radio(elem_id: str, value: str = "inference") -> gr.Radio:
        return L.add(
            gr.Radio(_mode_choices(lang)[:4], value=value, label=L.t("f_mode"), elem_id=elem_id),
            lambda lg: {"label": t(lg, "f_mode"), "choices": _mode_choices(lg)[:4]},
        )

    def model_box(elem_id: str) -> tuple[gr.Dropdown, gr.Number]:
        with gr.Row():
            model = L(
                gr.Dropdown(
                    models,
                    value="Qwen2.5-7B",
                    label=L.t("f_model"),
                    allow_custom_value=True,
                    elem_id=f"{elem_id}-model",
                    scale=3,
                ),
                "f_model",
            )
            params = L(
                gr.Number(None, label=L.t("f_params_b"), minimum=0, elem_id=f"{elem_id}-params", scale=1), "f_params_b"
            )
        return model, params

    def result_area(prefix: str) -> tuple[gr.Markdown, gr.JSON]:
        md = gr.Markdown(elem_id=f"{prefix}-result")
        with L(gr.Accordion(L.t("details_json"), open=False), "details_json"):
            js = gr.JSON(elem_id=f"{prefix}-json")
        return md, js

    def run_button(elem_id: str) -> gr.Button:
        return L(gr.Button(L.t("run"), variant="primary", elem_id=elem_id), "run", "value")

    def chart(out: forms.CalcOutput, name: str, lang: str, title_key: str) -> Any:
        return plot_update(out.charts.get(name), lang, title_key)

    with gr.Tabs():
        # memory
        with L(gr.Tab(L.t("calc_vram"), id="calc-vram"), "calc_vram"):
            v_model, v_params = model_box("vram")
            v_mode = mode_radio("vram-mode", "qlora")
            with gr.Row():
                v_precision = L(
                    gr.Dropdown(precisions, value="", label=L.t("f_precision"), allow_custom_value=True), "f_precision"
                )
                v_kv = L(
                    gr.Dropdown(["", "fp16", "bf16", "fp8", "int8", "q8_0", "q4_0"], value="", label=L.t("f_kv_dtype")),
                    "f_kv_dtype",
                )
                v_context = L(gr.Number(2048, label=L.t("f_context"), precision=0, minimum=1), "f_context")
                v_batch = L(gr.Number(1, label=L.t("f_batch"), precision=0, minimum=1), "f_batch")
            with gr.Row():
                v_gpus = L(gr.Number(1, label=L.t("f_num_gpus"), precision=0, minimum=1), "f_num_gpus")
                v_ckpt = L(gr.Checkbox(True, label=L.t("f_grad_ckpt")), "f_grad_ckpt")
                v_opt = L(
                    gr.Dropdown(
                        ["", "adamw", "adamw_no_master", "adamw_bf16", "adamw8bit", "sgd"],
                        value="",
                        label=L.t("f_optimizer"),
                    ),
                    "f_optimizer",
                )
                v_zero = L(gr.Dropdown(["0", "1", "2", "3"], value="0", label=L.t("f_zero")), "f_zero")
                v_rank = L(gr.Number(16, label=L.t("f_lora_rank"), precision=0, minimum=1), "f_lora_rank")
                v_compare = L(
                    gr.Dropdown(["", *gpus], value="RTX 4090", label=L.t("f_compare_gpu"), allow_custom_value=True),
                    "f_compare_gpu",
                )
            v_run = run_button("vram-run")
            v_plot = gr.BarPlot(label=L.t("chart_memory"), elem_id="vram-chart")
            v_md, v_json = result_area("vram")

        # speed
        with L(gr.Tab(L.t("calc_speed"), id="calc-speed"), "calc_speed"):
            s_model, s_params = model_box("speed")
            with gr.Row():
                s_gpu = L(gr.Dropdown(gpus, value="RTX 4090", label=L.t("f_gpu"), allow_custom_value=True), "f_gpu")
                s_gpus = L(gr.Number(1, label=L.t("f_num_gpus"), precision=0, minimum=1), "f_num_gpus")
                s_work = L.add(
                    gr.Radio(
                        [(t(lang, "mode.inference"), "inference"), (t(lang, "mode.training"), "training")],
                        value="inference",
                        label=L.t("f_speed_mode"),
                    ),
                    lambda lg: {
                        "label": t(lg, "f_speed_mode"),
                        "choices": [(t(lg, "mode.inference"), "inference"), (t(lg, "mode.training"), "training")],
                    },
                )
                s_method = L.add(
                    gr.Radio(_mode_choices(lang)[1:], value="lora", label=L.t("f_method")),
                    lambda lg: {"label": t(lg, "f_method"), "choices": _mode_choices(lg)[1:]},
                )
            with gr.Row():
                s_precision = L(
                    gr.Dropdown(precisions, value="", label=L.t("f_precision"), allow_custom_value=True), "f_precision"
                )
                s_context = L(gr.Number(4096, label=L.t("f_context"), precision=0, minimum=1), "f_context")
                s_batch = L(gr.Number(1, label=L.t("f_batch"), precision=0, minimum=1), "f_batch")
            s_run = run_button("speed-run")
            s_md, s_json = result_area("speed")

        # catalog
        with L(gr.Tab(L.t("calc_gpus"), id="calc-gpus"), "calc_gpus"):
            with gr.Row():
                g_vram = L(gr.Number(None, label=L.t("f_min_vram"), minimum=0), "f_min_vram")
                g_price = L(gr.Number(None, label=L.t("f_max_price"), minimum=0), "f_max_price")
                g_currency = L(
                    gr.Radio(["USD", "CNY"], value="CNY" if lang == "zh" else "USD", label=L.t("f_currency")),
                    "f_currency",
                )
                g_vendor = L(
                    gr.Dropdown(["", "nvidia", "amd", "intel", "apple"], value="", label=L.t("f_vendor")), "f_vendor"
                )
                g_segment = L(
                    gr.Dropdown(
                        ["", "consumer", "workstation", "datacenter", "apple"], value="", label=L.t("f_segment")
                    ),
                    "f_segment",
                )
            with gr.Row():
                g_features = L(gr.CheckboxGroup(list(forms.FEATURES), label=L.t("f_features")), "f_features")
                g_sort = L(
                    gr.Dropdown(
                        ["price_per_gib", "bf16_tflops_per_dollar", "bandwidth", "vram", "bf16_tflops", "price"],
                        value="price_per_gib",
                        label=L.t("f_sort"),
                    ),
                    "f_sort",
                )
                g_limit = L(gr.Number(20, label=L.t("f_limit"), precision=0, minimum=1, maximum=100), "f_limit")
            g_run = run_button("gpus-run")
            g_md = gr.Markdown(elem_id="gpus-result")
            g_table = gr.Dataframe(
                forms.empty_table(lang, forms.GPU_TABLE_COLUMNS),
                interactive=False,
                elem_id="gpus-table",
                max_height=360,
                wrap=True,
            )
            with gr.Row():
                g_plot_price = gr.ScatterPlot(label=L.t("chart_gpu_price"), elem_id="gpus-chart-price")
                g_plot_mem = gr.ScatterPlot(label=L.t("chart_gpu_memory"), elem_id="gpus-chart-memory")

        # buy vs rent
        with L(gr.Tab(L.t("calc_tco"), id="calc-tco"), "calc_tco"):
            with gr.Row():
                tc_gpu = L(gr.Dropdown(gpus, value="RTX 4090", label=L.t("f_gpu"), allow_custom_value=True), "f_gpu")
                tc_gpus = L(gr.Number(1, label=L.t("f_num_gpus"), precision=0, minimum=1), "f_num_gpus")
                tc_years = L(gr.Number(3, label=L.t("f_horizon"), minimum=0.1, maximum=10), "f_horizon")
                tc_util = L(gr.Slider(0.05, 1.0, value=0.5, step=0.05, label=L.t("f_utilization")), "f_utilization")
                tc_currency = L(
                    gr.Radio(["USD", "CNY"], value="CNY" if lang == "zh" else "USD", label=L.t("f_currency")),
                    "f_currency",
                )
            with gr.Row():
                tc_price = L(gr.Number(None, label=L.t("f_gpu_price"), minimum=0), "f_gpu_price")
                tc_power = L(gr.Number(None, label=L.t("f_electricity"), minimum=0), "f_electricity")
                tc_cloud = L(gr.Number(None, label=L.t("f_cloud_price"), minimum=0), "f_cloud_price")
            tc_run = run_button("tco-run")
            tc_plot = gr.LinePlot(label=L.t("chart_tco"), elem_id="tco-chart")
            tc_md, tc_json = result_area("tco")

        # recommend
        with L(gr.Tab(L.t("calc_recommend"), id="calc-recommend"), "calc_recommend"):
            r_model, r_params = model_box("recommend")
            r_mode = mode_radio("recommend-mode", "lora")
            with gr.Row():
                r_precision = L(
                    gr.Dropdown(precisions, value="", label=L.t("f_precision"), allow_custom_value=True), "f_precision"
                )
                r_context = L(gr.Number(2048, label=L.t("f_context"), precision=0, minimum=1), "f_context")
                r_batch = L(gr.Number(1, label=L.t("f_batch"), precision=0, minimum=1), "f_batch")
            with gr.Row():
                r_budget = L(gr.Number(None, label=L.t("f_budget"), minimum=0), "f_budget")
                r_monthly = L(gr.Number(None, label=L.t("f_monthly_budget"), minimum=0), "f_monthly_budget")
                r_currency = L(
                    gr.Radio(["CNY", "USD"], value="CNY" if lang == "zh" else "USD", label=L.t("f_currency")),
                    "f_currency",
                )
                r_deploy = L(
                    gr.Radio(["either", "local", "cloud"], value="either", label=L.t("f_deployment")), "f_deployment"
                )
                r_pref = L(
                    gr.Radio(["balanced", "cheapest", "fastest"], value="balanced", label=L.t("f_preference")),
                    "f_preference",
                )
            r_run = run_button("recommend-run")
            r_md = gr.Markdown(elem_id="recommend-result")
            r_table = gr.Dataframe(
                forms.empty_table(lang, forms.OPTION_COLUMNS),
                interactive=False,
                elem_id="recommend-table",
                max_height=420,
                wrap=True,
            )

        # workstation
        with L(gr.Tab(L.t("calc_build"), id="calc-build"), "calc_build"):
            with gr.Row():
                b_gpu = L(gr.Dropdown(gpus, value="RTX 4090", label=L.t("f_gpu"), allow_custom_value=True), "f_gpu")
                b_gpus = L(gr.Number(2, label=L.t("f_num_gpus"), precision=0, minimum=1, maximum=16), "f_num_gpus")
                b_use = L.add(
                    gr.Radio(
                        [(t(lang, "mode.inference"), "inference"), (t(lang, "mode.training"), "training")],
                        value="inference",
                        label=L.t("f_use"),
                    ),
                    lambda lg: {
                        "label": t(lg, "f_use"),
                        "choices": [(t(lg, "mode.inference"), "inference"), (t(lg, "mode.training"), "training")],
                    },
                )
            b_run = run_button("build-run")
            b_md, b_json = result_area("build")

    # Re-run nothing on a language switch; only the chart titles follow (the results keep their language).
    c.outputs = [v_plot, g_plot_price, g_plot_mem, tc_plot]
    c._relabelers.append(
        lambda lg: [
            gr.update(label=t(lg, "chart_memory")),
            gr.update(label=t(lg, "chart_gpu_price")),
            gr.update(label=t(lg, "chart_gpu_memory")),
            gr.update(label=t(lg, "chart_tco")),
        ]
    )

    def wire() -> None:
        def vram(
            st: dict,
            model: str,
            params_b: float | None,
            mode: str,
            precision: str,
            kv_dtype: str,
            context_tokens: float,
            batch: float,
            num_gpus: float,
            grad_checkpointing: bool,
            optimizer: str,
            zero_stage: str,
            lora_rank: float,
            compare_gpu: str,
        ) -> Iterator[tuple]:
            """GPU memory (GiB) for inference / full / LoRA / QLoRA, with the breakdown per GPU."""
            lg = st["lang"]
            out = forms.run_vram(
                lg,
                model,
                params_b,
                mode,
                precision,
                kv_dtype,
                context_tokens,
                batch,
                num_gpus,
                grad_checkpointing,
                optimizer,
                zero_stage,
                lora_rank,
                compare_gpu,
            )
            yield gr.skip(), *clear_plots(1), gr.skip()
            yield out.markdown, chart(out, "memory", lg, "chart_memory"), out.data

        v_run.click(
            vram,
            [
                state,
                v_model,
                v_params,
                v_mode,
                v_precision,
                v_kv,
                v_context,
                v_batch,
                v_gpus,
                v_ckpt,
                v_opt,
                v_zero,
                v_rank,
                v_compare,
            ],
            [v_md, v_plot, v_json],
            api_name="vram",
        )

        def speed(
            st: dict,
            model: str,
            params_b: float | None,
            gpu: str,
            num_gpus: float,
            workload: str,
            method: str,
            precision: str,
            context_tokens: float,
            batch: float,
        ) -> tuple:
            """Decode / prefill tokens/s and time to first token, or training tokens/s, on named GPUs."""
            out = forms.run_speed(
                st["lang"], model, params_b, gpu, num_gpus, workload, method, precision, context_tokens, batch
            )
            return out.markdown, out.data

        s_run.click(
            speed,
            [state, s_model, s_params, s_gpu, s_gpus, s_work, s_method, s_precision, s_context, s_batch],
            [s_md, s_json],
            api_name="speed",
        )

        def gpus_(
            st: dict,
            min_vram_gib: float | None,
            max_price: float | None,
            currency: str,
            vendor: str,
            segment: str,
            features: list[str],
            sort_by: str,
            limit: float,
        ) -> Iterator[tuple]:
            """Filter and rank the GPU catalog (memory, price, BF16/FP8/NVLink/ECC/MIG, vendor, segment)."""
            lg = st["lang"]
            out = forms.run_gpus(lg, min_vram_gib, max_price, currency, vendor, segment, features, sort_by, limit)
            yield gr.skip(), gr.skip(), *clear_plots(2)
            yield (
                out.markdown,
                out.table,
                chart(out, "price", lg, "chart_gpu_price"),
                chart(out, "memory", lg, "chart_gpu_memory"),
            )

        g_run.click(
            gpus_,
            [state, g_vram, g_price, g_currency, g_vendor, g_segment, g_features, g_sort, g_limit],
            [g_md, g_table, g_plot_price, g_plot_mem],
            api_name="gpus",
        )

        def tco(
            st: dict,
            gpu: str,
            num_gpus: float,
            horizon_years: float,
            utilization: float,
            currency: str,
            gpu_price: float | None,
            electricity_price: float | None,
            cloud_price: float | None,
        ) -> Iterator[tuple]:
            """Buy vs rent: cumulative cost over the horizon and the break-even month."""
            lg = st["lang"]
            out = forms.run_tco(
                lg, gpu, num_gpus, horizon_years, utilization, currency, gpu_price, electricity_price, cloud_price
            )
            yield gr.skip(), *clear_plots(1), gr.skip()
            yield out.markdown, chart(out, "tco", lg, "chart_tco"), out.data

        tc_run.click(
            tco,
            [state, tc_gpu, tc_gpus, tc_years, tc_util, tc_currency, tc_price, tc_power, tc_cloud],
            [tc_md, tc_plot, tc_json],
            api_name="tco",
        )

        def recommend(
            st: dict,
            model: str,
            params_b: float | None,
            mode: str,
            precision: str,
            context_tokens: float | None,
            batch: float | None,
            budget: float | None,
            monthly_budget: float | None,
            currency: str,
            deployment: str,
            preference: str,
        ) -> tuple:
            """Ranked GPU x count options (local or cloud) that fit a workload and budget."""
            out = forms.run_recommend(
                st["lang"],
                model,
                params_b,
                mode,
                precision,
                context_tokens,
                batch,
                budget,
                monthly_budget,
                currency,
                deployment,
                preference,
            )
            return out.markdown, out.table

        r_run.click(
            recommend,
            [
                state,
                r_model,
                r_params,
                r_mode,
                r_precision,
                r_context,
                r_batch,
                r_budget,
                r_monthly,
                r_currency,
                r_deploy,
                r_pref,
            ],
            [r_md, r_table],
            api_name="recommend",
        )

        def build(st: dict, gpu: str, num_gpus: float, use: str) -> tuple:
            """PSU wattage, RAM, CPU cores, PCIe lanes, slots, NVLink and cooling for an N-GPU machine."""
            out = forms.run_build(st["lang"], gpu, num_gpus, use)
            return out.markdown, out.data

        b_run.click(build, [state, b_gpu, b_gpus, b_use], [b_md, b_json], api_name="build")

    c._wiring.append(wire)
    return c
