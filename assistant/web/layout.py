"""The page's components: header, chat (with the scenario, what-if controls and charts), knowledge, settings.

Built inside a Blocks context; each builder returns its components by name for the handlers to key
their updates by. Text that follows the interface language is registered with `Labels`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import gradio as gr

from assistant.settings import Settings
from assistant.web import kb
from assistant.web.calculators import FormView, calculators_tab
from assistant.web.cards import gpu_choices
from assistant.web.chat import (
    BATCH_CHOICES,
    CONTEXT_CHOICES,
    GPU_COUNT_CHOICES,
    MODE_CHOICES,
    PRECISION_CHOICES,
    tokens_label,
)
from assistant.web.i18n import LANG_NAMES, example_questions, t
from assistant.web.labels import Labels
from assistant.web.panel import scenario_markdown
from assistant.web.state import Session


def mode_choices(lang: str) -> list[tuple[str, str]]:
    return [(t(lang, f"method.{m}"), m) for m in MODE_CHOICES]


def lang_choice(lang: str) -> str:
    """The language radio's option for `lang`."""
    return next(name for name, code in LANG_NAMES.items() if code == lang)


def notice_text(settings: Settings | None, lang: str) -> str:
    provider = settings.provider if settings is not None else "offline"
    return t(lang, "offline_notice") if provider == "offline" else t(lang, "online_notice", provider=provider)


# --- header ------------------------------------------------------------------------------------------------


@dataclass
class Header:
    lang_radio: gr.Radio
    notice: gr.Markdown


def header(L: Labels, settings: Settings) -> Header:
    """The title and the language switch on one line (short enough for a phone), then the subtitle and notice."""
    with gr.Row(equal_height=True, elem_id="header"):
        L.add(gr.Markdown(f"## {L.t('title')}", elem_id="title"), lambda lg: {"value": f"## {t(lg, 'title')}"})
        lang_radio = gr.Radio(
            list(LANG_NAMES),
            value=lang_choice(L.lang),
            label="界面语言 / Language",
            show_label=False,
            container=False,
            elem_id="lang-toggle",
            scale=0,
            min_width=170,
        )
    L(gr.Markdown(L.t("subtitle"), elem_id="subtitle"), "subtitle", "value")
    return Header(lang_radio, gr.Markdown(notice_text(settings, L.lang), elem_id="provider-notice"))


# --- chat --------------------------------------------------------------------------------------------------


@dataclass
class ChatTab:
    chatbot: gr.Chatbot
    msg: gr.Textbox
    send: gr.Button
    clear: gr.Button
    turn_info: gr.Markdown
    scenario: gr.Markdown
    whatifs: dict[str, gr.Dropdown]  # by slot (chat.WHATIF_SLOTS)
    plots: dict[str, Any]  # memory, tco, price, bandwidth: the names plots.chat_plots uses
    proposal: gr.Button  # writes the purchase proposal; visible once an answer recommends or compares cards
    proposal_files: gr.File


@dataclass(frozen=True)
class WhatIf:
    """A what-if control: the slot it changes and the values it offers."""

    slot: str
    choices: Callable[[str], Sequence[Any]]  # the interface language -> choices
    elem_id: str
    min_width: int
    custom: bool = True  # values beyond the list may be typed


WHATIFS = (
    WhatIf("precision", lambda lg: PRECISION_CHOICES, "whatif-precision", 110),
    WhatIf("context_tokens", lambda lg: [(tokens_label(c), c) for c in CONTEXT_CHOICES], "whatif-context", 110),
    WhatIf("batch", lambda lg: BATCH_CHOICES, "whatif-batch", 110),
    WhatIf("gpu", lambda lg: gpu_choices(), "whatif-gpu", 150),
    WhatIf("num_gpus", lambda lg: GPU_COUNT_CHOICES, "whatif-gpus", 90),
    WhatIf("mode", mode_choices, "whatif-method", 150, custom=False),  # "QLoRA 微调" whole on a phone
)
WHATIF_ROW = 3  # controls per row


def _whatif(L: Labels, w: WhatIf) -> gr.Dropdown:
    key = f"slot.{w.slot}"
    control = gr.Dropdown(
        list(w.choices(L.lang)),
        value=None,
        label=L.t(key),
        allow_custom_value=w.custom,
        elem_id=w.elem_id,
        min_width=w.min_width,
    )
    if w.custom:
        return L(control, key)
    return L.add(control, lambda lg: {"label": t(lg, key), "choices": list(w.choices(lg))})


def _conversation(L: Labels) -> tuple[gr.Chatbot, gr.Textbox, gr.Button, gr.Button, gr.Markdown, gr.Button, gr.File]:
    chatbot = L(
        gr.Chatbot(
            label=L.t("chatbot"), elem_id="chatbot", height=640, buttons=["copy", "copy_all"], feedback_options=None
        ),
        "chatbot",
    )
    with gr.Row(equal_height=True, elem_id="chat-input-row"):
        msg = L(
            gr.Textbox(
                label="message",
                show_label=False,
                placeholder=L.t("chat_placeholder"),
                elem_id="chat-input",
                scale=6,
                lines=1,
                max_lines=6,
                min_width=160,
            ),
            "chat_placeholder",
            "placeholder",
        )
        send = L(gr.Button(L.t("send"), variant="primary", elem_id="send", scale=0, min_width=70), "send", "value")
        clear = L(gr.Button(L.t("clear"), elem_id="clear", scale=0, min_width=90), "clear", "value")
    turn_info = gr.Markdown(elem_id="turn-info", label="turn")
    # Shown once an answer recommends or compares cards (assistant/web/proposal.py): its files come below.
    proposal = L(
        gr.Button(L.t("proposal_button"), elem_id="proposal", size="sm", visible=False), "proposal_button", "value"
    )
    proposal_files = L(
        gr.File(
            label=L.t("proposal_files"),
            file_count="multiple",
            interactive=False,
            visible=False,
            elem_id="proposal-files",
        ),
        "proposal_files",
    )
    examples = gr.Examples(example_questions(), inputs=[msg], label=L.t("examples"), examples_per_page=6)
    L(examples.dataset, "examples")
    return chatbot, msg, send, clear, turn_info, proposal, proposal_files


def _scenario_panel(L: Labels) -> tuple[gr.Markdown, dict[str, gr.Dropdown], dict[str, Any]]:
    L.add(gr.Markdown(f"### {L.t('scenario')}"), lambda lg: {"value": f"### {t(lg, 'scenario')}"})
    scenario = gr.Markdown(scenario_markdown({}, [], L.lang), elem_id="scenario", label="scenario")
    L.add(
        gr.Markdown(f"**{L.t('whatif')}** {L.t('whatif_hint')}"),
        lambda lg: {"value": f"**{t(lg, 'whatif')}** {t(lg, 'whatif_hint')}"},
    )
    whatifs: dict[str, gr.Dropdown] = {}
    for start in range(0, len(WHATIFS), WHATIF_ROW):
        with gr.Row():
            whatifs |= {w.slot: _whatif(L, w) for w in WHATIFS[start : start + WHATIF_ROW]}
    memory = {
        "memory": gr.BarPlot(label=L.t("chart_memory"), caption=L.t("chart_memory_empty"), elem_id="chart-memory"),
        "memory_legend": gr.HTML(elem_id="chart-memory-legend"),
    }
    return scenario, whatifs, memory


def chat_tab(L: Labels) -> ChatTab:
    with gr.Row():
        with gr.Column(scale=3):
            chatbot, msg, send, clear, turn_info, proposal, proposal_files = _conversation(L)
        with gr.Column(scale=2):
            scenario, whatifs, memory = _scenario_panel(L)
    with gr.Row():
        plots = {
            **memory,
            # shown once a turn has computed buy vs rent
            "tco": gr.LinePlot(label=L.t("chart_tco"), elem_id="chart-tco", visible=False),
            "price": gr.ScatterPlot(label=L.t("chart_gpu_price"), elem_id="chart-gpu-price"),
            "bandwidth": gr.ScatterPlot(label=L.t("chart_gpu_memory"), elem_id="chart-gpu-memory"),
        }
    return ChatTab(chatbot, msg, send, clear, turn_info, scenario, whatifs, plots, proposal, proposal_files)


# --- knowledge ---------------------------------------------------------------------------------------------


@dataclass
class KnowledgeTab:
    tab: gr.Tab
    table: gr.Dataframe
    refresh: gr.Button
    upload: gr.File
    status: gr.Markdown
    query: gr.Textbox
    search: gr.Button
    results: gr.Markdown


def _documents(L: Labels) -> tuple[gr.Dataframe, gr.Button, gr.File, gr.Markdown]:
    suffixes, max_mb = kb.limits()
    types = ", ".join(suffixes)
    with gr.Row():
        with gr.Column(scale=3):
            table = L(
                gr.Dataframe(label=L.t("kb_docs"), interactive=False, elem_id="kb-docs", max_height=420, wrap=True),
                "kb_docs",
            )
            refresh = L(gr.Button(L.t("kb_refresh"), size="sm", elem_id="kb-refresh"), "kb_refresh", "value")
        with gr.Column(scale=2):
            upload = L(
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
            status = gr.Markdown(elem_id="kb-status")
    return table, refresh, upload, status


def knowledge_tab(L: Labels, tab: gr.Tab) -> KnowledgeTab:
    table, refresh, upload, status = _documents(L)
    with gr.Row(equal_height=True):
        query = L.add(
            gr.Textbox(label=L.t("kb_search"), placeholder=L.t("kb_search_placeholder"), elem_id="kb-query", scale=5),
            lambda lg: {"label": t(lg, "kb_search"), "placeholder": t(lg, "kb_search_placeholder")},
        )
        search = L(
            gr.Button(L.t("kb_search_button"), elem_id="kb-search", scale=0, min_width=100),
            "kb_search_button",
            "value",
        )
    return KnowledgeTab(tab, table, refresh, upload, status, query, search, gr.Markdown(elem_id="kb-results"))


# --- settings ----------------------------------------------------------------------------------------------


@dataclass
class SettingsTab:
    provider: gr.Radio
    model: gr.Textbox
    base_url: gr.Textbox
    api_key: gr.Textbox
    apply: gr.Button
    status: gr.Markdown


PROVIDERS = ("offline", "openai", "ollama")


def provider_choices(lang: str) -> list[tuple[str, str]]:
    return [(t(lang, f"provider.{p}"), p) for p in PROVIDERS]


def settings_tab(L: Labels, settings: Settings) -> SettingsTab:
    kind, _, model_name = settings.provider.partition(":")
    tab = SettingsTab(
        provider=L.add(
            gr.Radio(provider_choices(L.lang), value=kind, label=L.t("settings_provider"), elem_id="settings-provider"),
            lambda lg: {"label": t(lg, "settings_provider"), "choices": provider_choices(lg)},
        ),
        model=L(gr.Textbox(value=model_name, label=L.t("settings_model"), elem_id="settings-model"), "settings_model"),
        base_url=L(
            gr.Textbox(value=settings.base_url or "", label=L.t("settings_base_url"), elem_id="settings-base-url"),
            "settings_base_url",
        ),
        api_key=L(
            gr.Textbox(value="", type="password", label=L.t("settings_api_key"), elem_id="settings-api-key"),
            "settings_api_key",
        ),
        apply=L(
            gr.Button(L.t("settings_apply"), variant="primary", elem_id="settings-apply"), "settings_apply", "value"
        ),
        status=gr.Markdown(elem_id="settings-status"),
    )
    L(gr.Markdown(L.t("settings_note")), "settings_note", "value")
    return tab


# --- the page ----------------------------------------------------------------------------------------------


@dataclass
class Page:
    """Every component the handlers update, by name."""

    state: gr.State  # the Session
    browser: gr.BrowserState  # the conversation's id, kept in this browser's localStorage
    chosen: gr.State  # a Settings chosen in this browser session (API key included), or None
    labels: Labels
    header: Header
    chat: ChatTab
    calculators: list[FormView]
    knowledge: KnowledgeTab
    settings: SettingsTab


def page(settings: Settings, lang: str) -> Page:
    """The whole page, built inside the caller's Blocks."""
    L = Labels(lang)
    state = gr.State(Session(lang="zh" if lang == "zh" else "en"))
    # A fixed key and secret: the id must survive a server restart and work on every replica. It is a random
    # id, not a credential (Gradio hands the secret to the page anyway); the server adopts only ids it mints.
    browser = gr.BrowserState(None, storage_key="gpu-advisor-session", secret="gpu-advisor-session-id")
    chosen = gr.State(None)
    head = header(L, settings)
    with gr.Tabs(elem_id="tabs"):
        with L(gr.Tab(L.t("tab_chat"), id="chat", elem_id="tab-chat"), "tab_chat"):
            chat = chat_tab(L)
        with L(gr.Tab(L.t("tab_calculators"), id="calculators", elem_id="tab-calculators"), "tab_calculators"):
            calculators = calculators_tab(L)
        with L(gr.Tab(L.t("tab_knowledge"), id="knowledge", elem_id="tab-knowledge"), "tab_knowledge") as kb_tab:
            knowledge = knowledge_tab(L, kb_tab)
        with L(gr.Tab(L.t("tab_settings"), id="settings", elem_id="tab-settings"), "tab_settings"):
            provider = settings_tab(L, settings)
    return Page(state, browser, chosen, L, head, chat, calculators, knowledge, provider)
