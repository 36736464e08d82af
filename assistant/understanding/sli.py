"""SLI named beside a card ("1080ti sli", "两张 1080 Ti 组 SLI", "2x 2080 Ti in SLI"): a gaming bridge that does nothing
for compute. Deep-learning frameworks see two separate GPUs and never pool their memory through SLI; a model that does
not fit one card is split by the engine over PCIe (or NVLink), each card holding its own part. Said once, as a note
(`sli_no_pool`), beside whatever the question asked."""

from __future__ import annotations

import re

from assistant.understanding.text import _State
from tools.notes import note

_SLI = re.compile(r"(?<![a-z])sli(?![a-z])", re.I)


def _sli(st: _State) -> None:
    if st.q.gpu_mentions and _SLI.search(st.t.text):
        st.q.notes.append(note("sli_no_pool"))
