"""Whether the PCIe link matters is the question ("是否非常依赖pcie 带宽呢", "will the V100 work in a 2-lane slot, or
through 1 lane?", "given the PCIe configurations (1x16 + 4 or 2x8 + 4)"): the lanes a card or a pair of cards gets,
asked about for inference or training (capabilities/pcie_lanes.py answers it first). A card's own name ("A100 80G
PCIe") and a spec asked ("is the 4090 PCIe 4.0?") are no such question.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from pydantic import Field

from assistant.understanding.scaling import ScalingAsk

if TYPE_CHECKING:
    from assistant.understanding.text import _State

_LINK = r"(?:pcie|pci-e|pci\s*express)"
_ASKS = re.compile(
    "|".join(
        (
            # "是否非常依赖pcie 带宽", "对 PCIe 带宽要求高吗", "吃不吃 pcie 通道"
            rf"(?:依赖|吃|看重|要求|取决于|受限于)[^。？?\n]{{0,8}}{_LINK}",
            rf"{_LINK}\s*(?:\d\.\d\s*)?(?:的)?\s*(?:带宽|通道|速度|x\s*\d{{1,2}}|\d{{1,2}}\s*x)[^。？?\n]{{0,16}}"
            r"(?:影响|重要|瓶颈|依赖|够不够|够吗|要紧|有关系|关系大|区别|差别|差距|变慢|慢多少|掉速)",
            # "PCIe lanes matter?", "does PCIe bandwidth bottleneck inference", "x4 slot enough?"
            rf"{_LINK}\s*(?:\d\.\d\s*|gen\s*\d\s*)?(?:lanes?|bandwidth|speed|x\s*\d{{1,2}}|links?)[^.?!\n]{{0,40}}"
            r"(?:matter|bottleneck|affect|impact|slow|enough|difference|hurt|limit|penali[sz]|important)",
            # "a 2-lane PCIE slot, or through 1 lane", "single lane", "four lanes"
            r"(?<![\w.])(?:[1248]|one|two|four|eight|single)[ -]lanes?(?![a-z])",
            # "x1 riser", "an x4 slot", "在 x1 的槽上"
            r"(?<![a-z0-9])x\s*[124](?![0-9])\s*(?:pcie\s*)?(?:的\s*)?(?:slots?|risers?|links?|lanes?|槽|插槽|通道|转接)",
            # "is PCIe a bottleneck for tensor parallel?", "PCIe 会成为瓶颈吗"
            rf"{_LINK}\s+(?:is\s+|be\s+|becomes?\s+)?(?:a\s+|the\s+)?bottleneck",
            rf"{_LINK}\s*(?:会|会不会)?(?:成为|是)?\s*瓶颈",
            # a board's split written out: "1x16 + 4", "2x8 + 4", "x8/x8", "x16/x4"
            r"(?<![\w.])[12]\s*x\s*(?:16|8)\s*\+\s*x?\s*[48](?![0-9])",
            r"(?<![a-z0-9])x(?:16|8)\s*/\s*x(?:16|8|4)(?![0-9])",
        )
    ),
    re.I,
)
# the link width the user states for their card ("2-lane", "x1", "1 lane", "pci 只有1g的速度" is no width)
_WIDTH = re.compile(
    r"(?<![\w.])(?P<n>[1248]|one|two|four|eight|single)[ -]lanes?(?![a-z])|(?<![a-z0-9])x\s*(?P<x>[1248]|16)(?![0-9])",
    re.I,
)
_WORDS = {"one": 1, "single": 1, "two": 2, "four": 4, "eight": 8}


class PcieLink(ScalingAsk):
    """The slots of a PCIe-link question (a base of StatedPower: query.py is at its size limit)."""

    asks_pcie: bool = Field(
        default=False,
        description="Whether the PCIe link's lanes or bandwidth matter is asked ('依赖pcie带宽', '2-lane')",
    )
    pcie_lanes: int | None = Field(default=None, description="The narrowest link width the user states (x1, '2-lane')")


def _pcie(st: _State) -> None:
    text = st.t.text
    if not _ASKS.search(text):
        return
    st.q.asks_pcie = True
    widths = []
    for m in _WIDTH.finditer(text):
        raw = (m.group("n") or m.group("x")).lower()
        widths.append(_WORDS.get(raw) or int(raw))
    st.q.pcie_lanes = min(widths) if widths else None


def _pcie_capacity(st: _State) -> None:
    """ "a dual 4090 rig for ExLlama: 1x16 + 4 or 2x8 + 4?": several cards asked about with no model named: what they
    hold together follows the link's answer (capabilities/pcie_lanes.py leads)."""
    q = st.q
    several = (q.num_gpus or 1) >= 2 and q.gpu is not None
    if q.asks_pcie and several and not (q.model or q.params_b or q.unknown_model) and "capacity" not in q.intents:
        q.intents = [*q.intents, "capacity"]
