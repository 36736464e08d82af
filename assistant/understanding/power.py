"""The power supply the user has or weighs ("NZXT C1200 Gold", "1000W PSU", "500w电源"): the unit a build plan is
set against, so the answer says first whether that unit carries the cards (capabilities/workstation.py)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from pydantic import BaseModel, Field

from assistant.understanding.pcie import PcieLink
from assistant.understanding.speed_ratio import StatedRatio

if TYPE_CHECKING:
    from assistant.understanding.text import _State

# A unit's words: a wattage next to one of them is a PSU's rating, not a card's draw or a power cap.
_PSU_WORD = r"(?:psu|power\s*suppl(?:y|ies)|电源|金牌|白金|铂金|钛金|atx\s*3|80\s*plus|gold|platinum|titanium|bronze)"
_WATTS = r"(?P<w>[1-9]\d{2,3})\s*(?:w|watts?|瓦)(?![a-z0-9])"
# "1000W PSU", "500w电源"; "PSU is 850W", "电源是1200瓦"
_BEFORE_WORD = re.compile(rf"{_WATTS}[^\d\n]{{0,16}}?{_PSU_WORD}", re.I)
_AFTER_WORD = re.compile(rf"{_PSU_WORD}[^\d\n]{{0,16}}?{_WATTS}", re.I)
# a unit named by its model: the rating is in the name ("NZXT C1200 Gold", "RM1000x PSU", "HX1500i Platinum")
_MODEL = re.compile(rf"(?<![a-z0-9])[a-z]{{1,4}}-?(?P<w>[1-9]\d{{2,3}})[a-z]{{0,2}}\s+{_PSU_WORD}(?![a-z])", re.I)
# a wattage that is a card's draw or a cap, not a unit ("each GPU pulls about 300W", "power limit 280W", "功耗 350W")
_NOT_UNIT = re.compile(
    r"(?:tdp|tgp|功耗|pulls?|draws?|limit|-pl|cap(?:ped)?|每张|each|per\s+(?:gpu|card))\W{0,12}$", re.I
)
# whether that unit is enough is the question ("enough headroom", "够吗", "带得动吗")
_ASKS_ENOUGH = re.compile(r"enough|headroom|suffic|handle|\bok(?:ay)?\b|fine|够|撑得住|带得动|带得起|行吗|行不行", re.I)
_RANGE = (300.0, 3000.0)
# a card that does not start, or the plug that powers it: the install facts answer before anything about speed
_INSTALL = re.compile(
    r"供电|电源线|转接线|怎么接|亮红|亮黄|红灯|黄灯|点不亮|不识别|识别不到|无法启动|代码\s*(?:10|43)|code\s*(?:10|43)"
    r"|won'?t (?:boot|post|start|power)|doesn'?t (?:boot|post|start|show up)|no post|not detected"
    r"|power (?:cable|adapter|connector)",
    re.I,
)
_ASK_NEAR = 40  # characters either side of the unit where "enough" asks about it


class StatedPower(PcieLink, StatedRatio, BaseModel):
    """The slot of the power supply named, and the PCIe link asked about (a base of ParsedQuery: query.py is at its
    size limit)."""

    psu_w: float | None = Field(
        default=None, description="Rating of the power supply the user has or weighs, W ('NZXT C1200 Gold' -> 1200)"
    )
    asks_install: bool = Field(
        default=False,
        description="A card that will not start, or how to power it ('代码10', '亮红', 'which power cable')",
    )


def _stated_psu(st: _State) -> None:
    text = st.t.text
    st.q.asks_install = _INSTALL.search(text) is not None
    for rx in (_MODEL, _BEFORE_WORD, _AFTER_WORD):
        for m in rx.finditer(text):
            if _NOT_UNIT.search(text[max(0, m.start("w") - 24) : m.start("w")]):
                continue
            watts = float(m.group("w"))
            if _RANGE[0] <= watts <= _RANGE[1]:
                st.q.psu_w = watts
                return


def _psu_question(st: _State) -> None:
    """A unit named and asked about ("is my 1000W PSU enough for two 3090s?"): the machine's power is the question,
    so the build plan answers first; a unit only listed with the rest of a machine changes no intent (a build plan
    asked for beside it still sets its verdict against it)."""
    q = st.q
    if q.psu_w is None or not q.intents:
        return
    text = st.t.text
    spans = [m.span() for rx in (_MODEL, _BEFORE_WORD, _AFTER_WORD) for m in rx.finditer(text)]
    # the sufficiency word belongs to the unit ("1200瓦够吗", "is my 1000W PSU enough"), not to a whole machine listed
    # around it ("电源: 2000W … 上面的配置有什么需要调整的吗？(不够或者太少)")
    first = any(_ASKS_ENOUGH.search(text[max(0, a - _ASK_NEAR) : b + _ASK_NEAR]) for a, b in spans)
    if first:
        q.intents = ["build", *(i for i in q.intents if i != "build")]
