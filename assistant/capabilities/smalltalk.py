"""Small talk: what GPU Advisor can do (greetings, help) and a polite no to questions outside GPUs."""

from __future__ import annotations

from assistant.capabilities.base import Capability, Turn
from assistant.strings import Writer


class Help(Capability):
    intent = "help"
    cites_guides = False

    def render(self, w: Writer, turn: Turn) -> None:
        w.say("help")


class OutOfScope(Capability):
    intent = "out_of_scope"
    cites_guides = False

    def render(self, w: Writer, turn: Turn) -> None:
        w.say("out_of_scope")
        w.say("help")
