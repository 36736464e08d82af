"""Fuzzy, case-insensitive name resolution shared by the model registry and the GPU catalog."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from rapidfuzz import fuzz, process

from tools.errors import UnknownNameError

# Suffixes that name a packaging of the same architecture, not a different model.
_NOISE_WORDS = (
    "instruct",
    "chat",
    "hf",
    "it",
    "base",
    "fp16",
    "bf16",
    "gguf",
    "awq",
    "gptq",
    "nvidia",
    "geforce",
    "tesla",  # NVIDIA's datacenter brand until 2020: "Tesla A10", "tesla V100" are the A10, the V100
    "amd",
    "intel",
    "apple",
)


def normalize(name: str) -> str:
    """Reduce a name to a comparison key: lowercase, org prefix dropped, punctuation removed."""
    text = re.sub(r"\((?:tm|r)\)|[™®]", "", name.strip().lower())  # "AMD Radeon(TM) Pro Duo" as drivers print it
    text = text.rsplit("/", 1)[-1]  # "Qwen/Qwen2.5-7B-Instruct" -> "qwen2.5-7b-instruct"
    words = [w for w in re.split(r"[\s_\-]+", text) if w and w not in _NOISE_WORDS]
    return re.sub(r"[^a-z0-9.]", "", "".join(words))


def tokens(name: str) -> list[str]:
    """Split a name into alphanumeric runs ("qwen2.5-7b" -> ["qwen", "2.5", "7b"]), noise words dropped."""
    text = name.lower().rsplit("/", 1)[-1]
    found = re.findall(r"\d+x\d+b|\d+(?:\.\d+)?[bkmg]?|[a-z]+", text)
    # a lone "v" is a version mark ("llama v2 70b" is Llama-2-70B), never a word of the name
    return [t for t in found if t not in _NOISE_WORDS and t != "v"]


@dataclass(frozen=True)
class Entry:
    """A resolvable item: its canonical id, display name and every key it answers to."""

    id: str
    display: str
    keys: tuple[str, ...]
    rank: float = 0.0  # higher wins ties (e.g. newer release)


class NameIndex:
    """Exact-key lookup first, then token-aware fuzzy matching with suggestions."""

    def __init__(self, kind: str, entries: Iterable[Entry]) -> None:
        self.kind = kind
        self.entries = list(entries)
        self._exact: dict[str, Entry] = {}
        for entry in self.entries:
            for key in entry.keys:
                self._exact.setdefault(normalize(key), entry)
        self._choices = {normalize(k): e for e in self.entries for k in entry_keys(e)}

    def resolve(self, name: str) -> tuple[Entry, str | None]:
        """Return (entry, note); note explains a non-exact match. Raise UnknownNameError otherwise."""
        key = normalize(name)
        if not key:
            raise UnknownNameError(self.kind, name, [], "The name is empty.")
        if key in self._exact:
            return self._exact[key], None
        entry = self._by_tokens(name)
        if entry is not None:
            return entry, f"'{name}' was read as {entry.display}"
        raise UnknownNameError(self.kind, name, self.suggest(name))

    def suggest(self, name: str, limit: int = 4) -> list[str]:
        """Return display names of the closest entries."""
        hits = process.extract(normalize(name), list(self._choices), scorer=fuzz.WRatio, limit=limit * 4)
        out: list[str] = []
        for key, score, _ in hits:
            display = self._choices[key].display
            if score >= 50 and display not in out:
                out.append(display)
        return out[:limit]

    def _by_tokens(self, name: str) -> Entry | None:
        """Match when every token typed appears in an entry's key; prefer the tightest, then newest."""
        wanted = tokens(name)
        if not wanted:
            return None
        best: dict[str, tuple[int, Entry]] = {}
        for entry in self.entries:
            for key in entry_keys(entry):
                have = set(tokens(key))
                if all(t in have for t in wanted):
                    extra = len(have) - len(set(wanted))
                    if entry.id not in best or extra < best[entry.id][0]:
                        best[entry.id] = (extra, entry)
        if not best:
            return None
        tightest = min(extra for extra, _ in best.values())
        tied = [e for extra, e in best.values() if extra == tightest]
        has_size = any(re.fullmatch(r"\d+(?:\.\d+)?b|\d+x\d+b", t) for t in wanted)
        if len(tied) > 1 and not has_size:
            return None  # "qwen" or "H100" alone is ambiguous: let the caller list the choices
        return max(tied, key=lambda e: e.rank)


def entry_keys(entry: Entry) -> Sequence[str]:
    return (entry.display, *entry.keys)
