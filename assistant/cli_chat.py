"""`gpu-advisor chat --terminal`: the conversation in this terminal, with an answer's quick replies as numbered
choices ("1) 7B  2) 14B ..."): typing a number sends that reply's message, anything else is sent as typed."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import Console
from rich.text import Text

if TYPE_CHECKING:
    from assistant.quick_replies import QuickReply
    from assistant.settings import Settings


def chosen(typed: str, offered: list[QuickReply]) -> str:
    """The message to send: the offered reply a number picks ("2"), else what was typed."""
    if typed.isdigit() and 1 <= int(typed) <= len(offered):
        return offered[int(typed) - 1].message
    return typed


def print_choices(console: Console, offered: list[QuickReply], lang: str) -> None:
    """The quick replies as numbered choices on one wrapped line, and how to pick one."""
    from assistant.strings import catalog

    if not offered:
        return
    line = Text()
    for i, reply in enumerate(offered, start=1):
        line.append(f"{i}) ", style="bold cyan")
        line.append(reply.label)
        line.append("  ")
    console.print(line)
    console.print(Text(catalog()["quick_replies_hint"][lang], style="dim"))


def run(console: Console, settings: Settings) -> None:
    """Ask and answer until an empty line, Ctrl-D or Ctrl-C; each conversation starts afresh."""
    from assistant import render
    from assistant.advisor import Advisor
    from assistant.events import ErrorEvent, FinalEvent, ToolCallEvent, ToolResultEvent
    from assistant.language import detect_language
    from assistant.render_tools import tool_call_line

    advisor = Advisor(settings.model_copy(update={"sessions_url": "memory"}))
    session = "terminal"
    offered: list[QuickReply] = []
    console.print("GPU Advisor — ask in Chinese or English; empty line or Ctrl-D to quit.")
    while True:
        try:
            typed = console.input("[bold]> [/]").strip()
        except (EOFError, KeyboardInterrupt):
            break
        if not typed:
            break
        question = chosen(typed, offered)
        if question != typed:  # the transcript shows what the number sent
            console.print(Text(f"→ {question}", style="dim"))
        offered = []
        lang = detect_language(question)
        for event in advisor.stream_turn(session, question):
            # the tool, the model, the cards and the key numbers, in the question's language (render_tools)
            if isinstance(event, ToolCallEvent):
                console.print(Text("… ", style="dim") + tool_call_line(event.name, event.args, lang))
            elif isinstance(event, ToolResultEvent):
                mark = "✓" if event.ok else "✗"
                console.print(Text(f"  {mark} {event.duration_ms:.0f} ms", style="dim"))
            elif isinstance(event, ErrorEvent):
                console.print(f"[yellow]{event.message}[/]")
            elif isinstance(event, FinalEvent):
                render.answer(console, event, tool_calls=False)
                offered = list(event.quick_replies)
                print_choices(console, offered, event.language)
