"""A notebook tier named as where the job runs and no card named ("can I run 7B on free Colab?", "Colab Pro 可以满足
吗", "is Kaggle enough?"): read as the GPU the tier gives (lexicon gpus.notebook_tiers), and said once after the
verdict, so the answer names the tier the user asked about, not only a card they did not name."""

from __future__ import annotations

import re
from functools import cache
from typing import Any

from assistant.understanding.lexicon import _lex
from assistant.understanding.text import _State
from tools.notes import note


@cache
def _tiers() -> tuple[tuple[re.Pattern[str], dict[str, Any]], ...]:
    return tuple((re.compile(r["pattern"], re.I), r) for r in _lex().raw["gpus"]["notebook_tiers"])


def _notebook_tier(st: _State) -> None:
    from tools.catalog import catalog

    q = st.q
    if q.gpu or q.gpu_mentions or st.gpus:
        return  # "Colab T4", "my 3090 or Kaggle": the card named is the one asked about
    # the tier named first is the one asked about ("run 7B on google colab? ... not sure Colab Pro does better")
    found = [(m.start(), row) for rx, row in _tiers() if (m := rx.search(st.t.view))]
    if not found:
        return
    _, row = min(found, key=lambda f: f[0])
    gpu, count = row["gpu"], row["count"]
    spec = catalog()[gpu]
    q.gpu, q.num_gpus, q.gpu_mentions, q.gpu_counts = gpu, count, [gpu], {gpu: count}
    said = {"tier": row["tier"], "gpu": spec.name, "count": count, "vram": spec.vram_gib}
    if row.get("largest"):  # Colab Pro: several runtimes, the largest sized
        q.notes.append(note("notebook_tier_largest", **said))
    elif row.get("ram_short"):  # free Colab: its RAM, not its T4, stops a 16-bit checkpoint loading whole
        q.notes.append(note("notebook_tier_ram", **said))
    else:
        q.notes.append(note("notebook_tier", **said))
