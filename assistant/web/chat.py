"""Chat rendering: Advisor events -> Chatbot messages (tool bubbles, the answer, its sources) and what-if follow-ups.

Pure functions over the Advisor's event objects (dispatched on their `type`) and the tools' typed
results, so they can be tested without a browser and without importing the planner.
"""

from __future__ import annotations

import html
import json
import re
from typing import Any, TypeVar

from pydantic import BaseModel

from assistant.citations import without_sources
from assistant.markdown_cjk import closable_bold
from assistant.web.bubbles import result_line, tool_label
from assistant.web.i18n import t
from assistant.web.quick_replies import attach as attach_quick_replies

R = TypeVar("R", bound=BaseModel)

MAX_ARGS_CHARS = 1500
MAX_PASSAGE_CHARS = 1200
WHATIF_SLOTS = ("precision", "context_tokens", "batch", "gpu", "num_gpus", "mode")
PRECISION_CHOICES = ["bf16", "fp16", "fp8", "int8", "nf4", "int4", "awq", "gptq", "q4_k_m", "q8_0"]
# The weight formats each training method takes (tools/vram.py refuses the others): the precision
# control offers only these, so changing the precision never changes the method.
TRAINING_PRECISIONS = {
    "full": ["bf16", "fp16", "fp32"],
    "lora": ["bf16", "fp16", "fp32"],
    "qlora": ["nf4", "int4", "int8", "awq", "gptq"],
}
CONTEXT_CHOICES = [2048, 4096, 8192, 16384, 32768, 65536, 131072]
BATCH_CHOICES = [1, 2, 4, 8, 16, 32, 64, 128, 256]
GPU_COUNT_CHOICES = [1, 2, 4, 8, 16]
MODE_CHOICES = ["inference", "full", "lora", "qlora"]


def tokens_label(n: int | None) -> str:
    """32768 -> '32k', 1000 -> '1000': the way people say context lengths."""
    if n is None:
        return ""
    return f"{n // 1024}k" if n >= 1024 and n % 1024 == 0 else str(n)


def precision_choices(mode: str | None) -> list[str]:
    """The precisions the what-if control offers for a method: those that keep it."""
    return TRAINING_PRECISIONS.get(mode or "", PRECISION_CHOICES)


def user_message(text: str) -> dict[str, str]:
    """A user's message as the chat shows it: as typed, never as HTML (`<script>` shows as text)."""
    return {"role": "user", "content": html.escape(text, quote=False)}


def restored_messages(history: list[tuple[str, str]]) -> list[dict[str, str]]:
    """A conversation the Advisor kept ((role, text) pairs), as chat messages."""
    return [user_message(text) if role == "user" else {"role": "assistant", "content": text} for role, text in history]


_CJK_GAP = re.compile(r"(?<=[\u4e00-\u9fff]) (?=[\u4e00-\u9fff])")


def followup_text(slot: str, value: Any, lang: str, mode: str | None = None) -> str:
    """The follow-up question a what-if control sends, e.g. 'What about 32k context?' / '如果换成 QLoRA 呢？'."""
    if slot == "context_tokens":
        shown = tokens_label(int(value))
    elif slot == "mode":
        shown = t(lang, f"method.{value}")
    else:
        shown = str(value)
    key = "batch_training" if slot == "batch" and mode in ("full", "lora", "qlora") else slot
    # the template spaces a Latin value off Chinese text; a value ending in Chinese ("QLoRA 微调") needs none
    return _CJK_GAP.sub("", t(lang, f"followup.{key}", value=shown))


def _code(data: Any, limit: int = MAX_ARGS_CHARS) -> str:
    text = json.dumps(data, ensure_ascii=False, indent=1, default=str)
    if len(text) > limit:
        text = text[:limit] + "\n…"
    return f"```json\n{text}\n```"


class TurnView:
    """Folds one turn's events into the chat history; keeps the tool results for charts and the panel."""

    def __init__(self, history: list[dict[str, Any]], lang: str, turn: int) -> None:
        self.messages = history
        self.lang = lang
        self.turn = turn
        self.results: list[BaseModel] = []  # the typed results of this turn's successful calls, in order
        self._examples: list[bool] = []  # per result: a figure for comparison, not the user's workload
        self.final: Any = None
        self._tool_index: dict[str, int] = {}
        self._tool_args: dict[str, dict[str, Any]] = {}
        self._tool_names: dict[str, str] = {}
        self._answer_index: int | None = None

    def apply(self, event: Any) -> None:
        kind = getattr(event, "type", "")
        if kind == "tool_call":
            self._tool_args[event.id] = event.args
            self._tool_names[event.id] = event.name
            self._tool_index[event.id] = len(self.messages)
            self.messages.append(
                {
                    "role": "assistant",
                    "content": f"**{t(self.lang, 'tool_args')}**\n\n{_code(event.args)}",
                    "metadata": {
                        "title": f"🛠️ {tool_label(event.name, self.lang)} — {t(self.lang, 'tool_running')}",
                        "id": event.id,
                        "status": "pending",
                    },
                }
            )
        elif kind == "tool_result":
            self._tool_result(event)
        elif kind == "text":
            if self._answer_index is None:
                self._answer_index = len(self.messages)
                self.messages.append({"role": "assistant", "content": ""})
            self.messages[self._answer_index]["content"] += event.delta
        elif kind == "error":
            self.messages.append({"role": "assistant", "content": t(self.lang, "error_message", message=event.message)})
        elif kind == "final":
            self._final(event)

    def _tool_result(self, event: Any) -> None:
        args = self._tool_args.get(event.id, {})
        line = (
            result_line(event.result, event.summary, self.lang)
            if event.ok
            else f"{t(self.lang, 'tool_failed')}: {event.error}"
        )
        message = {
            "role": "assistant",
            "content": f"**{t(self.lang, 'tool_args')}**\n\n{_code(args)}\n\n**{t(self.lang, 'tool_result')}**: {line}",
            "metadata": {
                "title": f"{'🛠️' if event.ok else '❌'} {tool_label(event.name, self.lang)} — {line}",
                "id": event.id,
                "status": "done",
                "duration": round(event.duration_ms / 1000, 3),
            },
        }
        index = self._tool_index.get(event.id)
        if index is None:
            self._tool_index[event.id] = len(self.messages)
            self.messages.append(message)
        else:
            self.messages[index] = message
        if event.ok and event.result is not None:
            self.results.append(event.result)
            self._examples.append(_is_example(event.id, event.name))

    def _final(self, event: Any) -> None:
        self.final = event
        numbers = {c.n for c in event.citations}
        # the sources block below lists the passages; the answer's own list would print each one twice
        shown = fold_assumptions(closable_bold(without_sources(event.answer) if event.citations else event.answer))
        answer = link_citations(shown, numbers, self.turn)
        if event.grounding is not None and event.grounding.untraceable:
            answer += "\n\n" + t(self.lang, "untraceable", numbers=", ".join(event.grounding.untraceable))
        if event.fell_back:
            answer = f"*{t(self.lang, 'fell_back')}*\n\n" + answer
        if self._answer_index is None:
            self._answer_index = len(self.messages)
            self.messages.append({"role": "assistant", "content": answer})
        else:
            self.messages[self._answer_index]["content"] = answer
        if event.citations:
            self.messages.append({"role": "assistant", "content": sources_block(event.citations, self.turn, self.lang)})
        attach_quick_replies(self.messages, event.quick_replies)  # chips under the last message
        if not self.results:  # events without streamed tool results (e.g. a folded-in error): use the record
            self.results = [call.result for call in event.tool_calls if call.result is not None]
            self._examples = [False] * len(self.results)

    def args_of(self, name: str) -> dict[str, Any] | None:
        """The arguments of this turn's last call of the tool `name`."""
        calls = [self._tool_args[i] for i, n in self._tool_names.items() if n == name]
        return calls[-1] if calls else None

    def latest(self, kind: type[R], examples: bool = True) -> R | None:
        """The result of the last successful call in this turn that returned a `kind` (each tool has its own), of
        the user's workload when there is one: an answer also sizes examples after it (a fine-tune's other
        methods, a cheaper way, a reference card), which the panel does not show as the scenario. `examples`:
        fall back to an example when the turn has no result of the user's own."""
        flags = self._examples + [False] * (len(self.results) - len(self._examples))
        found = [(r, ex) for r, ex in zip(self.results, flags, strict=False) if isinstance(r, kind)]
        own = [r for r, ex in found if not ex] or ([r for r, _ in found] if examples else [])
        return own[-1] if own else None


def _is_example(call_id: str, tool: str) -> bool:
    """Whether the offline planner made this call as an example (its capability does not record it)."""
    from assistant.capabilities import capability
    from assistant.capabilities.base import owner_from_id
    from assistant.toolset import ToolName

    owner = owner_from_id(call_id or "")
    try:
        return owner is not None and not capability(owner).records(ToolName(tool))
    except (KeyError, ValueError):
        return False


def fold_assumptions(answer: str) -> str:
    """The answer's assumptions folded into a block the reader opens: the verdict and the numbers that carry
    it stay in view, what they rest on is one click away (the terminal prints them as a short list)."""
    from assistant.strings import catalog

    heads = {catalog()["assumptions_head"][lang] for lang in ("en", "zh")}
    out = []
    for paragraph in answer.split("\n\n"):
        head, _, items = paragraph.partition("\n")
        if head.strip() in heads and items.strip():
            title = html.escape(head.strip().rstrip(":："))
            paragraph = f'<details class="assumptions"><summary>{title}</summary>\n\n{items.strip()}\n\n</details>'
        out.append(paragraph)
    return "\n\n".join(out)


def cite_anchor(turn: int, n: int) -> str:
    return f"cite-{turn}-{n}"


def link_citations(answer: str, numbers: set[int], turn: int) -> str:
    """Turn each [n] of a cited passage into a link to that passage in the sources block."""

    def repl(m: re.Match[str]) -> str:
        n = int(m.group(1))
        return f'<a href="#{cite_anchor(turn, n)}" class="cite-link">[{n}]</a>' if n in numbers else m.group(0)

    return re.sub(r"\[(\d{1,2})\](?!\()", repl, answer)


def sources_block(citations: list[Any], turn: int, lang: str) -> str:
    """The cited passages, each a collapsible block the answer's [n] links jump to."""
    parts = [f"**📚 {t(lang, 'sources')}**"]
    for c in citations:
        text = c.text if len(c.text) <= MAX_PASSAGE_CHARS else c.text[:MAX_PASSAGE_CHARS] + " …"
        head = html.escape(f"[{c.n}] {c.title}" + (f" — {c.section}" if c.section else ""))
        parts.append(
            f'<details id="{cite_anchor(turn, c.n)}" class="citation"><summary>{head}</summary>\n\n{text}\n\n</details>'
        )
    return "\n\n".join(parts)
