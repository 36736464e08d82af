"""The message being read: the masked text, the parse state the extractors share, and its clauses."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from assistant.understanding.lexicon import _lex
from assistant.understanding.patterns import _MASK
from assistant.understanding.query import ParsedQuery

_MAX_CHARS = 2000  # longer messages are parsed on their first 2,000 characters (keeps parsing bounded)
_MAX_SPANS = 64  # names read per message (a pasted list of 400 GPUs is not a question about each)
# Clauses: a question mark or "吧" applies to its own clause ("I have 2x 3090 with NVLink, can I ...?")
_SENTENCE = re.compile(r"[^。！？!?；;\n,，]+[。！？!?；;\n,，]*")


class _Text:
    """The message with a mask: characters a slot has used are hidden from later slots."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._chars = list(text)
        self._view: str | None = text

    @property
    def view(self) -> str:
        if self._view is None:
            self._view = "".join(self._chars)
        return self._view

    def take(self, start: int, end: int) -> None:
        start, end = max(0, start), min(end, len(self._chars))
        if start < end:
            self._chars[start:end] = _MASK * (end - start)
            self._view = None

    def is_free(self, start: int, end: int) -> bool:
        return _MASK not in self.view[start:end]


def _clean(text: Any) -> str:
    if not isinstance(text, str):
        text = "" if text is None else str(text)
    return text.encode("utf-8", "replace").decode("utf-8")  # lone surrogates cannot be serialised


@dataclass
class _GpuSpan:
    start: int
    end: int
    text: str
    value: str | None
    count: int | None = None
    suggestions: tuple[str, ...] = ()


@dataclass
class _State:
    t: _Text
    q: ParsedQuery
    gpus: list[_GpuSpan] = field(default_factory=list)
    name_spans: list[tuple[int, int]] = field(default_factory=list)  # model and GPU names
    model_ends: list[tuple[int, str]] = field(default_factory=list)  # where each model named ends, and which it is
    names_masked: str = ""  # the message with model and GPU names masked, once the spans are read
    words_text: str = ""  # the message with negated places masked ("不用云" is no cloud word)
    models_found: int = 0
    precisions_found: set[str] = field(default_factory=set)
    precision_order: list[str] = field(default_factory=list)  # as named, first first
    modes_found: set[str] = field(default_factory=set)
    money_currency: str | None = None
    how_many_gpus: int | None = None  # where "how many H100s" / "需要几张" is
    family_hint: str | None = None  # a family named without a size ("the code llama models"), for a bare size
    unknown_spans: list[str] = field(default_factory=list)  # every name no model resolved ("llama and qwen")
    repo_only_subjects: set[str] = field(default_factory=set)  # software named only in the thread's repository
    log_engine: str | None = None  # the engine a pasted log comes from, when the message names none (run_log.py)


def _mask(text: str, rx: re.Pattern[str]) -> tuple[str, bool]:
    """The text with every match of rx masked, and whether there was one."""
    masked = rx.sub(lambda m: _MASK * len(m.group(0)), text)
    return masked, masked != text


# Material pasted with a question, which asks nothing: the thread's repository ("[vllm-project/vllm] ..."), and the
# rows of a pasted table ("| **Memory** | 80GB HBM2e | 24GB |", "GPU | 7B_q4_0 | 7B_f16"): a word such as
# "Support" or "FP16" in them is a column, not the user's question.
_REPOSITORY = re.compile(r"^\s*\[[\w.-]+/[\w.-]+\]")
_TABLE_ROW = re.compile(r"\|[^\n]*\|")  # first cell border to last on one line: the text around it stays


# the folders of a GGUF file's path ("/data/model/QwQ-32B-Q4_1/qwq-32b-q4_k_m.gguf"): a GGUF file's name carries the
# model and format loaded; a folder's "Q4_1" is only what someone called the directory (a safetensors shard's name,
# "model-00001-of-00030", carries neither, so its folders stay)
_WEIGHTS_FOLDERS = re.compile(r"(?<![\w.-])(?:[~.]?/)?(?:[\w.-]+/)+(?=[\w.-]+\.(?:gguf|ggml)\b)", re.I)


def weights_file_folders(text: str) -> list[tuple[int, int]]:
    """Where the folders of a weights file's path are, to be read as nothing."""
    return [m.span() for m in _WEIGHTS_FOLDERS.finditer(text)]


# a link pasted into the message: where the user read something, not the software they ask about
_LINK = re.compile(r"https?://[!-~]+|(?<![\w.])(?:github\.com|huggingface\.co)/[!-~]+", re.I)  # ASCII: ends at 中文


def link_spans(text: str) -> list[tuple[int, int]]:
    """Where the links are ("https://github.com/vllm-project/vllm/issues/1"): engines named only there are context."""
    return [m.span() for m in _LINK.finditer(text)]


def repository_span(text: str) -> tuple[int, int] | None:
    """Where the thread's repository ("[weicj/vLLM-2080Ti-Definitive]") opens the message, if it does."""
    m = _REPOSITORY.match(text)
    return (m.start(), m.end()) if m else None


def pasted_spans(text: str) -> list[tuple[int, int]]:
    """The repository the thread sits in and the cells of a pasted table."""
    spans = [m.span() for m in _TABLE_ROW.finditer(text)]
    repo = repository_span(text)
    return [repo, *spans] if repo else spans


def without_pasted(text: str) -> str:
    """The message with pasted material masked, for reading what it asks."""
    chars = list(text)
    for start, end in pasted_spans(text):
        chars[start:end] = _MASK * (end - start)
    return "".join(chars)


def _names_masked(st: _State) -> str:
    """The message with model and GPU names masked ("H100 PCIe" is a name, not a question about PCIe)."""
    chars = list(st.t.text)
    for start, end in st.name_spans:
        chars[start:end] = _MASK * (end - start)
    return "".join(chars)


@dataclass
class _Clause:
    """One clause of the message: a question mark or "吧" applies to its own clause only."""

    start: int
    end: int
    text: str
    is_question: bool
    presumptive: bool  # "…吧", "right?": a belief, not a question
    gpus: list[_GpuSpan]


def _clauses(st: _State) -> list[_Clause]:
    rx = _lex().rx
    out = []
    for sm in _SENTENCE.finditer(st.names_masked):
        sentence = sm.group(0)
        gpus = [g for g in st.gpus if sm.start() <= g.start < sm.end() and g.value]
        is_q, presumptive = bool(rx["question"].search(sentence)), bool(rx["presumptive"].search(sentence))
        out.append(_Clause(sm.start(), sm.end(), sentence, is_q, presumptive, gpus))
    return out
