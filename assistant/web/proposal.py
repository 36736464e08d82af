"""The Proposal button under the chat: once an answer recommends or compares cards, it writes the conversation's
purchase proposal (Markdown, PDF, parts list as XLSX and CSV; assistant/proposal/) and offers the files.

The assistant writes them (in its own process: the conversation lives there), into a fresh temporary folder per
click that Gradio serves from; the web server only shows the button and the files.
"""

from __future__ import annotations

import logging
import re
import tempfile
from typing import Any

import gradio as gr

from assistant.web.i18n import t
from assistant.web.layout import Page
from assistant.web.state import Session

log = logging.getLogger(__name__)

ORDER = (".pdf", ".md", ".xlsx", ".csv")  # the document first, then its source text and the parts list


def file_stem(session: Session) -> str:
    """A file name a reader recognises: the model the proposal is about ("proposal-qwen2.5-32b.pdf")."""
    model = re.sub(r"[^A-Za-z0-9._-]+", "-", session.scenario.model or "").strip("-")
    return model or "gpus"


class ProposalDownload:
    """The button's visibility after each turn, and the files when it is clicked."""

    def __init__(self, page: Page, ref: Any) -> None:
        self.ui, self.ref = page.chat, ref

    @property
    def outputs(self) -> list[Any]:
        return [self.ui.proposal, self.ui.proposal_files]

    def after_turn(self, session: Session) -> dict[Any, Any]:
        """Show the button once the conversation has something to write up; files of an earlier click stay."""
        return {self.ui.proposal: gr.update(visible=session.proposal)}

    def cleared(self) -> dict[Any, Any]:
        """A new conversation: nothing to write up yet."""
        return {
            self.ui.proposal: gr.update(visible=False),
            self.ui.proposal_files: gr.update(value=None, visible=False),
        }

    def write(self, session: Session) -> dict[Any, Any]:
        lang = session.answer_lang or session.lang
        out = tempfile.mkdtemp(prefix="gpu-advisor-proposal-")
        try:
            made = self.ref.get().proposal(session.thread_id, out, file_stem(session))
        except Exception as exc:  # the assistant process failed: a message, never a traceback
            log.exception("writing the proposal failed")
            gr.Warning(t(lang, "proposal_failed", reason=str(exc)))
            return {self.ui.proposal_files: gr.update()}
        if made is None or made.error:
            gr.Warning(t(lang, "proposal_failed", reason=made.error if made else "-"))
            return {self.ui.proposal_files: gr.update()}
        files = [made.files[s] for s in ORDER if s in made.files]
        return {self.ui.proposal_files: gr.update(value=files, visible=True)}
