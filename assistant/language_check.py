"""The language check: English sentences in a Chinese answer, Chinese in an English one.

A Chinese answer may name things in English (GPUs, models, vendors, clouds, libraries, units, code, file
names, a citation's source id); it may not carry an English sentence or phrase. The check removes what
may stay (known names, from the data files and language_terms.yaml; code; URLs; file paths; a short phrase
in Chinese quotation marks; a term's English name in brackets after it; words with digits, dots or
underscores; acronyms; CamelCase names; units), then splits the text at Chinese characters and
punctuation: a stretch of Latin text that still holds two English words, or one function word ("of",
"for", "the"), is a violation. An English answer may hold no Chinese characters or full-width punctuation
outside a known name ("魔改4090").
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Literal

from tools._data import read_yaml

_CJK_CHARS = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u3040-\u30ff"
_CJK_PUNCT = "\u3000-\u303f\uff01-\uff0f\uff1a-\uff20\uff3b-\uff40\uff5b-\uff65"
_CJK_RUN = re.compile(f"[{_CJK_CHARS}{_CJK_PUNCT}]+")
# Where a Latin stretch ends in a Chinese answer: Chinese text, full-width punctuation, a line, a table cell.
_BREAK = re.compile(f"[{_CJK_CHARS}{_CJK_PUNCT}\n|]+")
_CODE = re.compile(r"```.*?```|`[^`\n]*`", re.DOTALL)
_URL = re.compile(r"https?://\S+|www\.\S+")
# A short phrase quoted as written ("标注为 “with sparsity”"): a quotation, not the answer's own sentence.
_QUOTED = re.compile(r"“[^”\n]{1,40}”|「[^」\n]{1,40}」")
# A term's English name in brackets right after it ("计算能力（compute capability）"): a gloss, not a sentence.
_GLOSS = re.compile(f"([{_CJK_CHARS}](?:\\*\\*)?)[（(][A-Za-z][A-Za-z -]{{0,30}}[)）]")
_TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9'’_.+/-]*")
_ACRONYM = re.compile(r"[A-Z][A-Z0-9]+s?")  # GPU, GPUs, PSU, ECC
_FILE = re.compile(r"\.[a-z][a-z0-9]{0,4}$")  # ends with a file extension: .yaml, .json, .md
_CAMEL = re.compile(r".+[A-Z]")  # NVLink, GeForce, vLLM, LoRA: a capital after the first letter
_PLACEHOLDER = " \u2063 "  # an invisible separator: a removed name leaves no word behind

Kind = Literal["english_in_zh", "chinese_in_en"]


@dataclass(frozen=True)
class Violation:
    """One stretch of the wrong language, and why it counts."""

    kind: Kind
    text: str
    words: tuple[str, ...] = ()

    def __str__(self) -> str:
        return f"{self.kind}: {self.text!r}" + (f" (words: {', '.join(self.words)})" if self.words else "")


@cache
def _terms() -> dict:
    return read_yaml(Path(__file__).with_name("language_terms.yaml"))


@cache
def _data_names() -> frozenset[str]:
    """Names the data files hold: GPUs, models, cloud providers, engines, platform examples."""
    from tools.boards import device_for
    from tools.catalog import catalog
    from tools.models import registry
    from tools.prices import load_prices
    from tools.vram import defaults
    from tools.workstation import platforms

    names: set[str] = set()
    for gpu in catalog().values():
        names |= {gpu.name, *gpu.aliases}
        brand, _, rest = gpu.name.partition(" ")
        if brand in ("NVIDIA", "AMD", "Intel", "Apple") and rest:
            names.add(rest)  # without its brand, as the catalog's suggestions list it
        device = device_for(gpu)  # one GPU of a board as the sizing tools name it: "... GPU (16 GB, 2 per board)"
        if device is not None:
            names.add(device.name)
    for arch in registry().values():
        names |= {arch.name, arch.id, *arch.aliases}
    for row in load_prices(None, None).rows:
        names |= {row.provider, row.offering}
    names |= _api_and_rental_names()
    names |= _fine_tune_and_service_names()
    for engine in defaults()["speed"]["engines"].values():
        names |= set(engine["aliases"])
    for platform in platforms():
        names |= set(platform.examples)
    names |= _app_names()
    return frozenset(n for n in names if len(n.strip()) >= 2)


def _app_names() -> set[str]:
    """Applications that are no language model (knowledge/data/apps.yaml): "Stable Diffusion / SDXL / Flux" whole and
    each of its parts, as a Chinese answer names the project the user runs."""
    from tools._data import load_yaml

    names: set[str] = set()
    for row in load_yaml("apps.yaml")["apps"]:
        names |= {row["name"], *(part.strip() for part in str(row["name"]).split("/"))}
    return names


def _fine_tune_and_service_names() -> set[str]:
    """Fine-tunes sized as their base ("Chinese-LLaMA-Alpaca") and hosted-only services with their publishers
    (knowledge/data/model_names.yaml `fine_tunes`, `closed_products`): names the answer repeats as the user typed."""
    from tools._data import load_yaml

    data = load_yaml("model_names.yaml")
    names = {e["name"] for e in (data.get("fine_tunes") or {}).values() if e.get("name")}
    for e in (data.get("closed_products") or {}).values():
        names |= {v for k, v in e.items() if k in ("name_en", "publisher_en") and isinstance(v, str)}
    return names


def _api_and_rental_names() -> set[str]:
    """Hosted APIs, their models and rental providers (knowledge/data/api_prices.yaml, rental_providers.yaml)."""
    from tools.api_cost import api_rows
    from tools.rent import provider_facts

    names = {n for row in api_rows().values() for n in (row.provider, row.model)}
    for p in provider_facts().values():
        names |= {p.name, *p.aliases}
    return names


@cache
def _name_pattern() -> re.Pattern[str]:
    """Every allowed name, longest first, as whole words."""
    names = sorted({*_data_names(), *_terms()["names"]}, key=len, reverse=True)
    alternatives = "|".join(re.escape(n) for n in names)
    return re.compile(rf"(?<![A-Za-z0-9])(?:{alternatives})(?![A-Za-z0-9])", re.IGNORECASE)


@cache
def _function_words() -> frozenset[str]:
    return frozenset(_terms()["function_words"])


@cache
def _allowed_words() -> tuple[frozenset[str], frozenset[str]]:
    """(terms, lowercase; units, as written)."""
    terms = _terms()
    return frozenset(t.lower() for t in terms["terms"]), frozenset(str(u) for u in terms["units"])


def _strip(text: str) -> str:
    """The text without code, URLs, markdown emphasis and allowed names."""
    text = _QUOTED.sub(_PLACEHOLDER, _URL.sub(_PLACEHOLDER, _CODE.sub(_PLACEHOLDER, text)))
    text = _GLOSS.sub(lambda m: m.group(1) + _PLACEHOLDER, text)
    text = text.replace("**", " ").replace("__", " ")
    return _name_pattern().sub(_PLACEHOLDER, text)


def _english_words(token: str) -> list[str]:
    """The English words in one token ("front-to-back" holds three; "Qwen2.5-7B" and "GiB" none)."""
    token = token.strip(".'’-_/+")
    terms, units = _allowed_words()
    if not token or token in units or token.lower() in terms:
        return []
    if "/" in token and _FILE.search(token):
        return []  # a path: knowledge/data/notes.yaml
    if "/" in token:
        return [w for part in token.split("/") for w in _english_words(part)]
    if re.search(r"\d", token) or re.search(r"[._+]", token):
        return []  # a name with a version or size, a file, a domain, an identifier
    if "-" in token:
        return [w for part in token.split("-") for w in _english_words(part)]
    if len(token) == 1 or _ACRONYM.fullmatch(token) or _CAMEL.match(token):
        return []
    return [token]


def _english_in_chinese(text: str) -> list[Violation]:
    out = []
    for stretch in _BREAK.split(_strip(text)):
        words = [w for token in _TOKEN.findall(stretch) for w in _english_words(token)]
        if len(words) >= 2 or any(w.lower() in _function_words() for w in words):
            shown = " ".join(stretch.replace("\u2063", "…").split())
            out.append(Violation("english_in_zh", shown[:160], tuple(words)))
    return out


def _chinese_in_english(text: str) -> list[Violation]:
    return [Violation("chinese_in_en", m.group(0)) for m in _CJK_RUN.finditer(_strip(text))]


def check(text: str, lang: str) -> list[Violation]:
    """Every stretch of `text` that is not in `lang` (zh or en), names, units and code excepted."""
    return _english_in_chinese(text) if lang == "zh" else _chinese_in_english(text)


def count(text: str, lang: str) -> int:
    return len(check(text, lang))
