"""Whether a turn can be written up as a proposal: light enough for the web server's process (no planner, no
capabilities), which shows the Proposal button from the turn's typed results alone."""

from __future__ import annotations

from collections.abc import Iterable

from assistant.events import ToolCallRecord
from tools.compare import CompareResult
from tools.recommend import RecommendResult


def compared_pick(c: CompareResult) -> int | None:
    """The row a comparison's verdict picked, when it is a sized option a proposal can be written from."""
    pick = c.verdict.pick
    if pick is None or c.model is None or not (0 <= pick < len(c.rows)) or c.rows[pick].error:
        return None
    return pick


def proposes(records: Iterable[ToolCallRecord]) -> bool:
    """A recommendation with a pick (or the nearest option over the budget), or a comparison with a verdict."""
    for record in records:
        found = record.result
        if isinstance(found, RecommendResult) and (found.primary or found.stretch) is not None:
            return True
        if isinstance(found, CompareResult) and compared_pick(found) is not None:
            return True
    return False
