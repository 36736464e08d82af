"""An answer's quick replies as chips under it: Gradio's message options, shown under the chat's last message only,
so a later turn replaces them. Clicking one sends its message as the user's next turn (handlers.Chat.quick_reply)."""

from __future__ import annotations

from typing import Any


def attach(messages: list[dict[str, Any]], replies: list[Any]) -> None:
    """Put `replies` (QuickReply) on the last message: the chips the browser shows under the answer."""
    if replies and messages:
        messages[-1]["options"] = [{"value": r.message, "label": r.label} for r in replies]


def chosen_message(value: Any) -> str:
    """The message a clicked chip sends (its option's value)."""
    if isinstance(value, dict):  # the whole option, as some Gradio versions report it
        value = value.get("value") or value.get("label")
    return str(value or "").strip()
