"""How people write a model's name: Ollama tags, Hugging Face ids with a quantisation suffix, GGUF files.

`split_name` takes what was typed apart into the name to look up, the weight format the name carries
("-AWQ", "Q4_K_M", an Ollama tag's default build) and the sizes it states ("70b", "8x7b", "30b-a3b").
Which model the name then means is tools.models.match_model's business; the token tables live in
knowledge/data/model_names.yaml.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from typing import Any

from tools._data import load_yaml

_SHARD = re.compile(r"[-_.]?\d{5}-of-\d{5}$", re.I)  # "…-00001-of-00003"
_HOST = re.compile(r"^(?:https?://)?(?:hf\.co|huggingface\.co)/", re.I)
# Sizes a name states: "70b", "1.5B", "500m", "8x7b" (experts x size), "a3b" (active), "e4b" (effective)
# a size may be glued to the family ("glm6b", "qwen7b") but never follows a digit or a dot ("v0.1b" is no size)
_SIZE = re.compile(
    r"(?<![0-9.])(?:(?P<n>\d+)x(?P<each>\d+(?:\.\d+)?)b|(?P<v>\d+(?:\.\d+)?)(?P<u>[bmt]))(?![a-z0-9])", re.I
)
# a context length at the end of a name: "-128k", "-1M", "-200K" (a size is B, never K)
_CONTEXT = re.compile(r"[-_](?P<v>\d+(?:\.\d+)?)(?P<u>[km])$", re.I)
_ACTIVE = re.compile(r"(?<![a-z0-9])a(?P<v>\d+(?:\.\d+)?)b(?![a-z0-9])", re.I)
_EFFECTIVE = re.compile(r"(?<![a-z0-9])e(?P<v>\d+(?:\.\d+)?)b(?![a-z0-9])", re.I)


@dataclass(frozen=True)
class Sizes:
    """Billions of parameters a name states: total, active per token (MoE) and the experts layout."""

    total_b: float | None = None
    active_b: float | None = None
    experts: int | None = None  # "8x7b": 8 experts ...
    expert_b: float | None = None  # ... of 7B each
    effective_b: float | None = None  # "e4b" (Gemma 3n): the effective size, not the stored one


@dataclass(frozen=True)
class NameParts:
    """A typed model name taken apart."""

    typed: str
    name: str  # what to look up: host, packaging words and the weight format removed ("Qwen2-72B-Instruct")
    org: str | None = None  # "TheBloke", "Qwen", "mlx-community"
    ollama_keys: tuple[str, ...] = ()  # "llama3.1:70b-instruct", "llama3.1:70b" for an Ollama tag
    precision: str | None = None  # the weight format the name carries (a tools.precision name)
    nearest_of: str | None = None  # the i-quant typed, when `precision` is the nearest K-quant to it
    ollama_default: bool = False  # an Ollama tag naming no format: the library's default build
    sizes: Sizes = Sizes()
    context_tokens: int | None = None  # a context the name states ("chatglm3-6b-128k", "glm-4-9b-chat-1m")

    @property
    def is_ollama(self) -> bool:
        return bool(self.ollama_keys)


@cache
def _table() -> dict[str, Any]:
    return load_yaml("model_names.yaml")


@cache
def _quant_pattern() -> re.Pattern[str]:
    t = _table()
    tokens = sorted({*t["quant_tokens"], *t["nearest_quant_tokens"]}, key=len, reverse=True)
    alts = "|".join(re.escape(tok).replace("_", "[-_]") for tok in tokens)
    return re.compile(f"(?<![a-z0-9])(?:{alts})(?![a-z0-9])", re.I)


def ollama_default_precision() -> str:
    return str(_table()["ollama_default_precision"])


def sizes_in(text: str) -> Sizes:
    """The sizes a name states ("Qwen3-30B-A3B" 30 / 3; "Mixtral-8x7B" 8 x 7; "gemma3n:e4b" effective 4)."""
    total = experts = expert_b = None
    for m in _SIZE.finditer(text):
        if m.group("n"):
            experts, expert_b = int(m.group("n")), float(m.group("each"))
            total = total or experts * expert_b
            continue
        value = float(m.group("v")) * {"b": 1.0, "m": 0.001, "t": 1000.0}[m.group("u").lower()]
        if total is None or (experts is None and value > total):
            total = value  # "Llama-4-Scout-17B-16E-109B": the largest stated is the total
    active = _ACTIVE.search(text)
    effective = _EFFECTIVE.search(text)
    return Sizes(
        total_b=total,
        active_b=float(active.group("v")) if active else None,
        experts=experts,
        expert_b=expert_b,
        effective_b=float(effective.group("v")) if effective else None,
    )


def split_name(typed: str) -> NameParts:
    """Take a typed model name apart (never raises; an empty name gives empty parts)."""
    text = _HOST.sub("", (typed or "").strip())
    text = re.sub(r"\.gguf$", "", text, flags=re.I)
    text = _SHARD.sub("", text)
    org = None
    ollama_keys: tuple[str, ...] = ()
    tag_quant = None
    if "/" in text:
        org, text = text.rsplit("/", 1)
        if _quant_pattern().fullmatch(text.strip()) and org:  # "DeepSeek-R1/Q4_K_M": a folder per quant
            org, text = (org.rsplit("/", 1) if "/" in org else ("", org))[0], f"{org.rsplit('/', 1)[-1]}-{text}"
        org = org.rsplit("/", 1)[-1] or None
        if ":" in text:  # "hf.co/bartowski/Llama-3.2-3B-Instruct-GGUF:Q4_K_M": the tag picks the file
            text, tag_quant = text.split(":", 1)
    elif ":" in text:
        library, tag = (part.strip() for part in text.split(":", 1))
        text, ollama_keys = _ollama(library, tag)
    precision, nearest, text = _format_in(text if tag_quant is None else f"{text}-{tag_quant}", org)
    name = _without_packaging(text)
    context = _CONTEXT.search(name)
    if context:
        name = name[: context.start()]
    return NameParts(
        typed=typed,
        name=name,
        org=org,
        ollama_keys=ollama_keys,
        precision=precision,
        nearest_of=nearest,
        ollama_default=bool(ollama_keys) and precision is None,
        sizes=sizes_in(name),
        context_tokens=_context_tokens(context) if context else None,
    )


def _context_tokens(m: re.Match[str]) -> int:
    value = float(m.group("v")) * (1024 if m.group("u").lower() == "k" else 1024 * 1024)
    return int(value)


def _ollama(library: str, tag: str) -> tuple[str, tuple[str, ...]]:
    """An Ollama tag as a name to look up and the registry keys to try ("llama3.1:70b-instruct-q4_K_M")."""
    tag = tag.lower()
    if tag in ("", "latest"):
        return library, (f"{library.lower()}:latest", library.lower())
    without_format = _quant_pattern().sub("", tag)
    words = [w for w in re.split(r"-+", without_format) if w]
    size = next((w for w in words if _SIZE.fullmatch(w) or _EFFECTIVE.fullmatch(w)), None)
    # "solar:q4_0": a tag naming only the format is the library's default model in that format
    keys = [f"{library}:{'-'.join(words)}"] if words else [f"{library}:latest", library]
    if size:
        active = next((w for w in words if _ACTIVE.fullmatch(w)), None)
        keys += [f"{library}:{size}-{active}"] if active else []
        keys.append(f"{library}:{size}")
    name = "-".join([library, *words]) if words else library
    # the format comes back through the tag: a bare tag is the default build, a typed one is read by _format_in
    fmt = _quant_pattern().search(tag)
    return (f"{name}-{fmt.group(0)}" if fmt else name), tuple(dict.fromkeys(k.lower() for k in keys))


def _format_in(text: str, org: str | None) -> tuple[str | None, str | None, str]:
    """The weight format a name carries, the i-quant it stood for (if any), and the name without it."""
    t = _table()
    found = list(_quant_pattern().finditer(text))
    if not found:
        return None, None, text
    token = found[-1].group(0).lower().replace("-", "_")  # the last one: "…-GPTQ-Int4" reads as gptq_int4
    joined = text[found[-2].start() : found[-1].end()].lower().replace("-", "_") if len(found) > 1 else ""
    if joined in t["quant_tokens"]:
        token = joined
    nearest = None
    if token in t["nearest_quant_tokens"]:
        nearest, precision = token.upper(), t["nearest_quant_tokens"][token]
    else:
        precision = t["quant_tokens"][token]
    if precision == "nf4" and org and org.lower() in t["int4_orgs"]:
        precision = "int4"  # "mlx-community/…-4bit" is MLX's integer 4-bit, not bitsandbytes NF4
    stripped = _quant_pattern().sub("", text)
    return precision, nearest, stripped


def _without_packaging(text: str) -> str:
    words = {w.lower() for w in _table()["packaging_words"]}
    parts = [p for p in re.split(r"([-_\s]+)", text)]
    kept = [p for p in parts if p.strip("-_ ").lower() not in words or not p.strip("-_ ")]
    out = re.sub(r"[-_\s]{2,}", lambda m: m.group(0)[0], "".join(kept))
    return out.strip("-_ .") or text.strip()
