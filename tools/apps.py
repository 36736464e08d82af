"""Applications that are not language models (knowledge/data/apps.yaml): the GPU memory each needs to run at all and
to run without compromises, with what changes between the two and the sources. gpu_specs returns it beside the cards
(`GpuSpecsResult.app`), so an answer about "IndexTTS: is 12 GB enough?" quotes a tool's figures."""

from __future__ import annotations

import re
from functools import cache

from pydantic import BaseModel, Field

from tools._data import load_yaml


class AppSource(BaseModel):
    url: str
    note: str
    date: str


class AppNeed(BaseModel):
    """What one application needs of a GPU's memory."""

    id: str
    name: str
    kind_en: str
    kind_zh: str
    min_gib: float = Field(description="Runs at all (smaller models, lower resolution, offloading)")
    comfortable_gib: float = Field(description="Runs its usual work without compromises")
    tip_en: str
    tip_zh: str
    sources: list[AppSource]


@cache
def _apps() -> dict[str, AppNeed]:
    out = {}
    for row in load_yaml("apps.yaml")["apps"]:
        out[row["id"]] = AppNeed(
            id=row["id"],
            name=row["name"],
            kind_en=row["kind"]["en"],
            kind_zh=row["kind"]["zh"],
            min_gib=row["min_gib"],
            comfortable_gib=row["comfortable_gib"],
            tip_en=row["tip"]["en"],
            tip_zh=row["tip"]["zh"],
            sources=[AppSource(url=s["url"], note=s["note"], date=str(s["date"])) for s in row["sources"]],
        )
    return out


@cache
def _patterns() -> list[tuple[str, re.Pattern[str]]]:
    rows = load_yaml("apps.yaml")["apps"]
    return [(r["id"], re.compile(rf"(?<![a-z0-9])(?:{r['pattern']})(?![a-z0-9])", re.I)) for r in rows]


def app_need(app_id: str) -> AppNeed | None:
    return _apps().get(app_id)


def app_named(text: str) -> str | None:
    """The application a message names (the first one written), if any."""
    found = [(m.start(), app_id) for app_id, rx in _patterns() if (m := rx.search(text))]
    return min(found)[1] if found else None


def app_buy_cards(production: bool = False) -> list[str]:
    """NVIDIA cards, smallest first, an expert names to buy for such an application (data-center cards for a
    company's production server)."""
    return [str(c) for c in load_yaml("apps.yaml")["production_cards" if production else "buy_cards"]]
