"""What the page's events do: chat turns, what-if follow-ups, a new chat, the interface language, the
knowledge base and provider settings.

Handlers return (or yield) updates keyed by component; a component left out is left as the browser
shows it. Every turn goes through the Advisor facade with the browser session's id, so two browsers
never share a scenario or a history.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import gradio as gr

from assistant.events import ErrorEvent
from assistant.language import detect_language
from assistant.settings import Settings
from assistant.web import kb
from assistant.web.chat import TurnView, followup_text, precision_choices, restored_messages, user_message
from assistant.web.i18n import LANG_NAMES, lang_from_header, t
from assistant.web.layout import Page, lang_choice, notice_text
from assistant.web.pacing import Load, paced
from assistant.web.plots import chat_plots
from assistant.web.quick_replies import chosen_message
from assistant.web.state import Session

log = logging.getLogger(__name__)
REFRESH_S = 0.15  # at most this often a streaming turn is re-sent to the browser (see pacing.py)
PROGRESS = gr.Progress()  # Gradio reports an upload's progress through a parameter defaulting to one
Updates = dict[Any, Any]


class AdvisorRef:
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

    def reset(self, sid: str) -> None:
        """Forget a session's conversation; nothing to forget when the assistant never started."""
        try:
            self.get().reset(sid)
        except Exception:
            log.debug("reset failed", exc_info=True)


class Once:
    """Drops repeats of the same key within a short window (Gradio's Dropdown fires `input` twice per pick)."""

    def __init__(self, window_s: float = 2.0) -> None:
        self.window_s = window_s
        self._seen: dict[tuple, float] = {}
        self._lock = threading.Lock()

    def first(self, key: tuple) -> bool:
        now = time.monotonic()
        with self._lock:
            self._seen = {k: seen for k, seen in self._seen.items() if now - seen < self.window_s}
            if key in self._seen:
                return False
            self._seen[key] = now
            return True


class Chat:
    """A chat turn streamed into the chat, then the scenario panel, what-if controls and charts updated."""

    def __init__(self, page: Page, ref: AdvisorRef) -> None:
        self.page, self.ref = page, ref
        self.ui = page.chat
        self.load = Load(REFRESH_S)
        self.once = Once()

    @property
    def outputs(self) -> list[Any]:
        ui = self.ui
        # The API returns these in order: the chat, the input box, the scenario panel, ..., the turn line.
        return [
            ui.chatbot,
            ui.msg,
            self.page.state,
            ui.scenario,
            *ui.whatifs.values(),
            *ui.plots.values(),
            ui.turn_info,
        ]

    def respond(self, message: str, history: list, session: Session, chosen: Settings | None) -> Iterator[Updates]:
        """Ask GPU Advisor; streams tool calls (collapsible) and the answer."""
        message = (message or "").strip()
        if not message:
            yield {self.ui.chatbot: history, self.ui.msg: ""}
            return
        session.turn += 1
        session.answer_lang = detect_language(message)
        view = TurnView([*(history or []), user_message(message)], session.lang, session.turn)
        # The first frame empties the input box; later ones leave it alone (the user may be typing the next
        # question while a slow answer streams).
        first = {self.ui.msg: ""}
        try:
            for frame in self._stream(view, message, session, chosen):
                yield first | frame
                first = {}
        except Exception as exc:  # never a traceback in the chat
            log.exception("chat turn failed")
            view.apply(ErrorEvent(message=f"{type(exc).__name__}: {exc}", kind="internal"))
            yield first | self._done(view, session)
            return
        for frame in self._finish(view, session):
            yield first | frame
            first = {}

    def _stream(self, view: TurnView, message: str, session: Session, chosen: Settings | None) -> Iterator[Updates]:
        """The chat while the turn runs, at most once per render interval (the final view comes after)."""
        active = chosen or self.ref.settings
        events = self.ref.get().stream_turn(session.thread_id, message, provider=active.provider, settings=active)
        # The user's message shows with the first render: at once for a quick (offline) turn's answer,
        # after REFRESH_S at the latest for a slow one.
        with self.load:
            for batch in paced(events, self.load.interval_s(), rendered=False):
                for event in batch.events:
                    view.apply(event)
                if not batch.last:
                    yield {self.ui.chatbot: view.messages}

    def _done(self, view: TurnView, session: Session) -> Updates:
        return {self.ui.chatbot: view.messages, self.ui.turn_info: turn_line(view, session)}

    def _finish(self, view: TurnView, session: Session) -> Iterator[Updates]:
        """The final chat with the panel, the what-if controls and the charts whose inputs changed."""
        try:
            session.absorb(view)
            panel = self.panel(session)
            plots = {self.ui.plots[name]: update for name, update in chat_plots(session).items()}
        except Exception:  # the answer is in; a panel that cannot be drawn must not hide it
            log.exception("updating the scenario panel and charts failed")
            yield self._done(view, session)
            return
        if plots:  # empty first: see calculators.FormView.handler
            yield dict.fromkeys(plots)
        yield self._done(view, session) | {self.page.state: session} | panel | plots

    def panel(self, session: Session) -> Updates:
        """The scenario panel and the what-if controls, showing the same values."""
        # Plain values, not gr.update(): Gradio rebuilds a component for every update it is sent. The precision
        # control's choices change only with the method (they are the formats that keep it).
        updates: Updates = {self.ui.scenario: session.panel()}
        values = session.whatif_values()
        updates |= {self.ui.whatifs[slot]: value for slot, value in values.items()}
        choices = precision_choices(values["mode"])
        if session.shown.get("precision_choices") != values["mode"]:
            session.shown["precision_choices"] = values["mode"]
            updates[self.ui.whatifs["precision"]] = gr.update(choices=choices, value=values["precision"])
        return updates

    def whatif(self, slot: str) -> Callable[..., Iterator[Any]]:
        """The event of the what-if control of `slot`: asks the follow-up it stands for."""

        def ask(value: Any, history: list, session: Session, chosen: Settings | None) -> Iterator[Any]:
            if value in (None, "", []) or not self.once.first((session.bind(), slot, str(value))):
                yield gr.skip()
                return
            if session.turn == 0:  # nothing asked yet: a what-if has no question to change
                yield {self.ui.whatifs[slot]: None, self.ui.turn_info: t(session.lang, "whatif_first")}
                return
            lang = session.answer_lang or session.lang
            text = followup_text(slot, value, lang, mode=session.values()["mode"])
            yield from self.respond(text, history, session, chosen)

        ask.__name__ = f"whatif_{slot}"
        return ask

    def quick_reply(
        self, history: list, session: Session, chosen: Settings | None, evt: gr.SelectData
    ) -> Iterator[Updates]:
        """A chip under the answer clicked: its message sent as the next turn (it answers the pending question)."""
        yield from self.respond(chosen_message(evt.value), history, session, chosen)

    @property
    def reset_outputs(self) -> list[Any]:
        return [*self.outputs, self.page.browser]

    def new_conversation(self, session: Session) -> Updates:
        """A new conversation with a new id; the what-if controls and the charts start empty."""
        self.ref.reset(session.thread_id)
        fresh = session.fresh()
        ui = self.ui
        plots = {ui.plots[name]: update for name, update in chat_plots(fresh).items()}
        precision = ui.whatifs["precision"]
        return (
            {
                ui.chatbot: [],
                ui.msg: "",
                self.page.state: fresh,
                ui.scenario: fresh.panel(),
                ui.turn_info: "",
                self.page.browser: fresh.browser_id,
            }
            | dict.fromkeys(ui.whatifs.values())
            | {precision: gr.update(choices=precision_choices(None), value=None)}
            | plots
        )


def turn_line(view: TurnView, session: Session) -> str:
    """The line under the chat: turn number, who answered, how long it took, how many tools ran."""
    final = view.final
    if final is None:
        return t(session.lang, "turn_failed", n=session.turn)
    provider = t(session.lang, "provider_offline") if final.provider == "offline" else final.provider
    if final.fell_back:
        provider += t(session.lang, "fell_back_short")
    seconds = final.latency_ms / 1000
    return t(session.lang, "turn_info", n=session.turn, provider=provider, seconds=seconds, tools=len(final.tool_calls))


class Interface:
    """The interface language (the browser's at first, then the toggle's) and the session's lifetime."""

    def __init__(self, page: Page, ref: AdvisorRef, chat: Chat) -> None:
        self.page, self.ref, self.chat = page, ref, chat

    @property
    def outputs(self) -> list[Any]:
        page = self.page
        return [page.state, page.chat.scenario, page.header.notice, *page.chat.plots.values(), *page.labels.components]

    def relabel(self, session: Session, lang: str, chosen: Settings | None) -> Updates:
        """Everything in `lang`; the results already shown keep theirs."""
        session.lang = "zh" if lang == "zh" else "en"
        chat = self.page.chat
        return (
            {
                self.page.state: session,
                chat.scenario: session.panel(),
                self.page.header.notice: notice_text(chosen or self.ref.settings, lang),
            }
            | {chat.plots[name]: update for name, update in chat_plots(session, force=True).items()}
            | self.page.labels.updates(lang)
        )

    def switch_language(self, choice: str, session: Session, chosen: Settings | None) -> Iterator[Updates]:
        yield dict.fromkeys(self.page.chat.plots.values())  # empty first: see calculators.FormView.handler
        yield self.relabel(session, LANG_NAMES.get(choice, "en"), chosen)

    @property
    def load_outputs(self) -> list[Any]:
        page, chat = self.page, self.page.chat
        # The documents table and the what-if controls are also relabelled: list each once.
        return list(
            dict.fromkeys(
                [
                    *self.outputs,
                    page.header.lang_radio,
                    page.knowledge.table,
                    page.browser,
                    chat.chatbot,
                    chat.turn_info,
                    *chat.whatifs.values(),
                ]
            )
        )

    def on_load(self, stored: Any, session: Session, request: gr.Request) -> Updates:
        """The page in the browser's language, with the conversation this browser had, if the Advisor kept it."""
        headers = getattr(request, "headers", None) or {}
        lang = lang_from_header(headers.get("accept-language"))
        restored = session.browser_id is None and session.bind(stored) == stored
        updates = self.relabel(session, lang, None)
        table = self.page.knowledge.table
        updates |= {
            self.page.header.lang_radio: lang_choice(lang),
            table: {**updates.get(table, gr.update()), "value": kb.documents(lang)},
            self.page.browser: session.browser_id,
        }
        if restored and session.turn == 0:  # a question sent before the page finished loading keeps its chat
            updates |= self._restore(session)
        return updates

    def _restore(self, session: Session) -> Updates:
        """The chat, the panel and the what-if controls of the conversation the Advisor kept for this id."""
        try:
            advisor = self.ref.get()
            history = advisor.history(session.thread_id)
            scenario = advisor.scenario(session.thread_id) if history else None
        except Exception:  # an assistant that cannot say: the page opens on a new conversation
            log.warning("restoring the conversation failed", exc_info=True)
            return {}
        if not history or scenario is None:
            return {}
        session.restore(history, scenario)
        chat = self.page.chat
        labels = self.page.labels.updates(session.lang)
        controls = {
            control: {**labels.get(control, gr.update()), **_value(update)}
            for control, update in self.chat.panel(session).items()
            if control in chat.whatifs.values()
        }
        return {
            chat.chatbot: restored_messages(history),
            chat.scenario: session.panel(),
            chat.turn_info: t(session.lang, "restored", n=session.turn),
        } | controls


def _value(update: Any) -> dict[str, Any]:
    """A control's new properties, from a plain value or a gr.update()."""
    if isinstance(update, dict) and update.get("__type__") == "update":
        return {k: v for k, v in update.items() if k != "__type__"}
    return {"value": update}


class Knowledge:
    """The knowledge tab: list, add and search documents."""

    def __init__(self, page: Page) -> None:
        self.ui = page.knowledge

    @staticmethod
    def list_documents(session: Session) -> Any:
        """The documents in the knowledge base, one row each."""
        return kb.documents(session.lang)

    def add_documents(self, files: list[str] | None, session: Session, progress: gr.Progress = PROGRESS) -> Updates:
        """Add md/txt/html/pdf documents to the knowledge base (size and type limits apply)."""
        paths = [f if isinstance(f, str) else getattr(f, "name", str(f)) for f in (files or [])]
        status = kb.add_documents(paths, session.lang, progress=lambda frac, desc: progress(frac, desc=desc))
        return {self.ui.status: status, self.ui.table: kb.documents(session.lang)}

    @staticmethod
    def search(query: str, session: Session) -> str:
        """Search the guides and your documents; returns the top passages."""
        try:
            return kb.search(query, session.lang)
        except Exception as exc:
            log.exception("knowledge search failed")
            return t(session.lang, "kb_unavailable", message=str(exc))


class ProviderSettings:
    """The settings tab: this browser session's provider (its API key stays in the session)."""

    def __init__(self, page: Page, ref: AdvisorRef) -> None:
        self.page, self.ref = page, ref

    def apply(self, kind: str, model: str, base_url: str, api_key: str, session: Session) -> Updates:
        from assistant.settings import settings_from

        lang, status = session.lang, self.page.settings.status
        provider = "offline" if kind == "offline" else f"{kind}:{(model or '').strip()}"
        try:
            chosen = settings_from(
                self.ref.settings.model_dump(exclude={"api_key", "provider", "base_url"}),
                provider=provider,
                base_url=(base_url or "").strip() or None,
                api_key=api_key or None,
            )
            if chosen.api_key is None and self.ref.settings.api_key is not None:
                chosen = chosen.model_copy(update={"api_key": self.ref.settings.api_key})
        except Exception as exc:  # a validation message, never the key
            return {status: t(lang, "settings_invalid", message=_first_line(exc))}
        return {
            self.page.chosen: chosen,
            status: t(lang, "settings_applied", provider=chosen.provider),
            self.page.header.notice: notice_text(chosen, lang),
        }


def _first_line(exc: Exception) -> str:
    from assistant.errors import describe_error

    return describe_error(exc).splitlines()[0]
