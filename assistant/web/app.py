"""The Gradio app: chat with tool bubbles, the scenario with what-if controls, charts, calculators,
the knowledge base and provider settings.

This module only puts the parts together: layout.py builds the components, handlers.py and
calculators.py say what each event does, and here each event is bound to its handler.
"""

from __future__ import annotations

import os
from typing import Any

os.environ["GRADIO_ANALYTICS_ENABLED"] = "False"  # before gradio is imported: no telemetry, no version check

import gradio as gr

from assistant.settings import Settings
from assistant.web import calculators, layout
from assistant.web.fast_blocks import FastBlocks
from assistant.web.handlers import AdvisorRef, Chat, Interface, Knowledge, ProviderSettings
from assistant.web.layout import Page
from assistant.web.proposal import ProposalDownload
from assistant.web.theme import CSS, JS

__all__ = ["CSS", "JS", "build_app"]


def build_app(advisor: Any = None, settings: Settings | None = None, lang: str = "en") -> gr.Blocks:
    """The whole UI. `advisor` is injected by tests; by default an Advisor(settings) is created on first use."""
    settings = settings or Settings()
    ref = AdvisorRef(advisor, settings)
    with FastBlocks(title="GPU Advisor · 选卡助手", analytics_enabled=False, fill_width=True) as demo:
        page = layout.page(settings, lang)
        chat = Chat(page, ref)
        _wire_chat(page, chat, ProposalDownload(page, ref))
        _wire_interface(demo, page, Interface(page, ref, chat))
        _wire_knowledge(page, Knowledge(page))
        _wire_settings(page, ProviderSettings(page, ref))
        calculators.wire(page.calculators, page.state)
    demo.queue(default_concurrency_limit=4)
    return demo


def _wire_chat(page: Page, chat: Chat, proposal: ProposalDownload) -> None:
    ui, outputs = page.chat, chat.outputs
    inputs = [ui.msg, ui.chatbot, page.state, page.chosen]
    turns = [
        ui.msg.submit(chat.respond, inputs, outputs, api_name="chat"),
        ui.send.click(chat.respond, inputs, outputs, api_visibility="undocumented"),
    ]
    for slot, control in ui.whatifs.items():
        turns.append(
            control.input(
                chat.whatif(slot),
                [control, ui.chatbot, page.state, page.chosen],
                outputs,
                api_visibility="undocumented",
            )
        )
    # a quick reply (a chip under the answer) is sent as the next message
    turns.append(
        ui.chatbot.option_select(
            chat.quick_reply, [ui.chatbot, page.state, page.chosen], outputs, api_visibility="undocumented"
        )
    )
    # after each turn (not among its outputs, so the /chat API returns what it always did): the Proposal button
    for turn in turns:
        turn.then(proposal.after_turn, [page.state], proposal.outputs, api_visibility="private")
    ui.proposal.click(proposal.write, [page.state], proposal.outputs, api_name="proposal")
    ui.clear.click(chat.new_conversation, [page.state], chat.reset_outputs, api_name="reset").then(
        proposal.cleared, None, proposal.outputs, api_visibility="private"
    )


def _wire_interface(demo: gr.Blocks, page: Page, interface: Interface) -> None:
    header = page.header
    header.lang_radio.input(
        interface.switch_language,
        [header.lang_radio, page.state, page.chosen],
        interface.outputs,
        api_visibility="undocumented",
    )
    # No unload handler: the conversation outlives the tab (a reload or a restart brings it back).
    demo.load(interface.on_load, [page.browser, page.state], interface.load_outputs, api_visibility="undocumented")


def _wire_knowledge(page: Page, knowledge: Knowledge) -> None:
    ui = page.knowledge
    ui.refresh.click(knowledge.list_documents, [page.state], [ui.table], api_name="documents")
    ui.tab.select(knowledge.list_documents, [page.state], [ui.table], api_visibility="undocumented")
    ui.upload.upload(knowledge.add_documents, [ui.upload, page.state], [ui.status, ui.table], api_name="add_documents")
    ui.search.click(knowledge.search, [ui.query, page.state], [ui.results], api_name="search")
    ui.query.submit(knowledge.search, [ui.query, page.state], [ui.results], api_visibility="undocumented")


def _wire_settings(page: Page, provider: ProviderSettings) -> None:
    ui = page.settings
    ui.apply.click(
        provider.apply,
        [ui.provider, ui.model, ui.base_url, ui.api_key, page.state],
        [page.chosen, ui.status, page.header.notice],
        api_visibility="private",
    )
