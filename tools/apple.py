"""Apple silicon sold with other amounts of memory: one catalog row per (chip, size) in apple_silicon.yaml.

A Mac's unified memory is what decides which model it holds, and each chip is sold with several sizes; gpus.yaml has
one row per chip (its largest size). The rows made here copy that row (or the chip's own description) at each other
size, with the share of memory macOS lets the GPU use at that size. They carry `memory_config_of`, so they are sized
when a user names them ("M2 Ultra with 64G", "M4 Max, Memory: 48 GB") and never listed or recommended on their own.
"""

from __future__ import annotations

import re
from typing import Any

from tools._data import load_yaml

# Fields of a described chip (no gpus.yaml row) that every Apple row shares.
_APPLE_ROW: dict[str, Any] = {
    "vendor": "apple",
    "segment": "apple",
    "compute_capability": None,
    "link": {"kind": "none", "gbs": None},
    "ecc": False,
    "form_factor": "soc",
    "cooling": "integrated",
    "verified": "partial",
}
# What a different memory size does not keep from the row it copies: its price and its own sources' claims.
_NOT_COPIED = ("launch_price_usd", "street_price", "used_price", "aliases", "notes", "sources", "id", "name")


def slug(chip: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", chip.lower()).strip("-")


def memory_share(gib: float) -> float:
    """The part of unified memory macOS lets the GPU wire by default at this size."""
    rule = load_yaml("apple_silicon.yaml")["gpu_memory_share"]
    return float(rule["large"] if gib >= rule["large_from_gib"] else rule["small"])


def apple_rows(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Catalog rows for every Apple chip and memory size apple_silicon.yaml lists that gpus.yaml has no row for."""
    data = load_yaml("apple_silicon.yaml")
    by_id = {r["id"]: r for r in rows}
    taken = set(by_id)
    out: list[dict[str, Any]] = []
    for chip in data["chips"]:
        base = by_id.get(chip.get("base", ""))
        sizes = sorted(chip["memory_gib"], reverse=True)
        for gib in sizes:
            row_id = f"apple-{slug(chip['chip'])}-{gib}gb"
            if row_id in taken:
                continue
            taken.add(row_id)
            out.append(_row(chip, base, gib, row_id, largest=base is None and gib == sizes[0], as_of=data["as_of"]))
    return out


def _row(
    chip: dict[str, Any], base: dict[str, Any] | None, gib: int, row_id: str, largest: bool, as_of: str
) -> dict[str, Any]:
    name = chip.get("name", f"Apple {chip['chip']} ({{gb}}GB)").format(gb=gib)
    row: dict[str, Any] = {k: v for k, v in (base or _APPLE_ROW).items() if k not in _NOT_COPIED}
    if base is None:
        row.update(architecture=chip.get("architecture", f"Apple {chip['chip']}"), launch_year=chip["launch_year"])
        row.update(memory_type=chip["memory_type"])
    for key in ("bandwidth_gbs", "fp32_tflops"):
        if key in chip:
            row[key] = chip[key]
    own = [f"{chip['chip']} {gib}GB", f"{chip['chip']} {gib}G", f"Apple {chip['chip']} {gib}GB"]
    of = base["name"] if base else chip["chip"]
    row.update(
        id=row_id,
        name=name,
        aliases=own + (chip.get("aliases", []) if largest else []),  # the bare chip name: its largest size
        vram_gib=gib,
        gpu_memory_share=memory_share(gib),
        sources=[*chip["sources"], *((base or {}).get("sources") or [])[:1]],
        as_of=as_of,
        memory_config_of=chip["chip"],
        notes=f"{chip['chip']} with {gib}GB of unified memory (apple_silicon.yaml; the chip as in {of}). "
        + (chip.get("notes") or "")
        + " Unified memory is shared by CPU and GPU; macOS lets the GPU wire part of it (gpu_memory_share).",
    )
    return row
