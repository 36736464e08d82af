"""Whether more cards scale a service's throughput, asked by setting two card counts or parallel layouts side by side
("双卡部署的吞吐量达不到单卡的两倍，单卡性价比更高？", "4卡/8卡 qps 和吞吐没有很大区别", "TP=8 gives only 1.5x of TP=4",
"2x 4090 only 30% more tokens/s than one — worth it?"). The expert's first sentence answers the rule before any
sizing: a model that fits fewer cards gains throughput from more replicas (data parallel), while a wider
tensor-parallel group pays an all-reduce per layer and scales sub-linearly (capabilities/scaling.py)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from pydantic import BaseModel, Field

if TYPE_CHECKING:
    from assistant.understanding.text import _State

# two layouts set side by side: counts of cards or tensor-parallel sizes
_COUNT = (
    r"(?:(?<![0-9.a-z])\d{1,2}[- ]?(?:张|块)?\s*(?:卡|gpus?\b|cards?\b|x(?![a-z0-9])|×)"
    r"|[单双两二三四八]\s*(?:张|块)?\s*卡"
    r"|\b(?:one|two|four|eight|single|dual|double)[- ](?:gpus?|cards?)\b"
    # "two L4s", "one L4", "2x 4090": a count before a card's short name
    r"|\b(?:one|two|three|four|eight|single|dual)\s+(?:rtx\s*|tesla\s*|nvidia\s*)?(?:[a-z]{1,2}\d{1,4}|\d{4})(?:\s*ti)?s?(?![\w])"
    r"|[两二三四八]\s*(?:张|块)\s*(?:[a-z]{1,2}\d{1,4}|\d{4})"
    r"|\b(?:tp|dp|tensor[- ]parallel(?:ism)?|data[- ]parallel(?:ism)?)\s*[=:]?\s*\d)"
)
# "from 1 to 4 L40S", "going from 2 to 8 GPUs", "从1卡加到4卡": two counts in one phrase
_FROM_TO = re.compile(
    r"\bfrom\s+(?:\d{1,2}|one|two|four)\s+to\s+(?:\d{1,2}|two|four|eight)\b|从\s*\d{1,2}\s*(?:张|块)?卡?\s*(?:加)?到",
    re.I,
)
_LAYOUT = re.compile(_COUNT, re.I)
_TP_ON = re.compile(r"张量并行|tensor[- ]parallel|--tensor-parallel-size|--tp\b", re.I)
# the job is a service's throughput (not a model's fit): requests, tokens or a speed-up
_THROUGHPUT = re.compile(
    r"吞吐|qps|rps|并发|加速比|throughput|requests?\s*(?:per|/)\s*s|tokens?\s*/\s*s|tok/s|speed[- ]?ups?", re.I
)
# ... that does not grow with the cards, or whose value per card is asked
_SUBLINEAR = re.compile(
    r"达不到[^。？?]{0,12}(?:两|二|2)\s*倍|不到[^。？?]{0,6}(?:两|二|2)\s*倍|没有?(?:很大|明显|多大)?(?:的)?(?:区别|差别|提升|变化)"
    r"|提升(?:只有|不大|有限|不明显|很小)|只有这么一点|差不多|差别不大|加速比[^。？?]{0,4}(?:低|小|不高|不到)"
    r"|翻倍[^。？?]{0,12}(?:只|没|不)|性价比|划算|值不值|值得"
    r"|(?:less|lesser|lower|smaller)\s+than\s+(?:2|two)\s*(?:x|×|times)|not\s+(?:2|two)\s*(?:x|×|times)|not\s+double"
    r"|(?:sub|non)[- ]?linear|not\s+(?:scal|linear)|doesn'?t\s+scale|does\s+not\s+scale"
    r"|(?:only|just|barely)\b[^.?!]{0,20}?\d+(?:\.\d+)?\s*(?:x|×)(?![a-z0-9])"
    r"|only\s+\d{1,2}\s*%\s*(?:more|faster|better)|worth|efficient|cost[- ]effective|value"
    # or the wider one gives less ("还不如一张卡", "lower than one GPU")
    r"|不如|反而|只比[^。？?]{0,8}(?:多|高|快)(?:一点|一些|一丁点|一点点|不多)|只多了?一点|几乎没"
    r"|(?:lower|less|worse)\s+than\s+(?:one|a single|1)\b",
    re.I,
)
# ... or which layout gives more of it is asked, nothing measured yet ("tp=8 和两个 tp=4，哪个吞吐更高")
_WHICH = re.compile(
    r"哪(?:个|种|一种)[^。？?]{0,12}(?:吞吐|qps)|(?:吞吐|qps)[^。？?]{0,6}(?:更高|更大|最高|最大)"
    r"|which\s+(?:one\s+|layout\s+|setup\s+|option\s+)?(?:gives|has|is|yields)\s+(?:the\s+)?(?:more|higher|better|best|most)"
    r"|(?:more|higher|better|best|most)\s+throughput",
    re.I,
)

# several smaller cards against one bigger card, for runs side by side ("more slightly slower GPUs as opposed to a
# single powerful one ... multiple runs in parallel", "多张便宜的卡还是一张好卡，同时跑几个任务")
_SLOWER = r"(?:slower|smaller|cheaper|weaker|lesser)"
_FASTER = r"(?:powerful|bigger|faster|big|fast|strong(?:er)?|larger)"
_MANY_SMALL = re.compile(
    rf"(?:more|several|multiple|many|a\s+few|two|three|four)\s+(?:\w+\s+){{0,2}}{_SLOWER}\s+[^.?!]{{0,20}}?"
    rf"(?:gpus?|cards?|\d{{3,4}}s)\b[^.?!]{{0,60}}(?:single|one)\s+(?:\w+\s+){{0,2}}{_FASTER}"
    rf"|(?:single|one)\s+(?:\w+\s+){{0,2}}{_FASTER}\s+[^.?!]{{0,20}}?(?:gpu|card|\d{{3,4}})\b[^.?!]{{0,60}}"
    rf"(?:several|multiple|more|many|a\s+few|two|three|four)\s+(?:\w+\s+){{0,2}}{_SLOWER}"
    r"|(?:多|几|两|三|四)(?:张|块)(?:小|便宜|差一点|弱一点|低端)[^。？?]{0,24}?(?:还是|或者?|vs|和|跟|对比)"
    r"[^。？?]{0,4}(?:一张|单张|一块)(?:大|好|强|快|高端)"
    r"|(?:一张|单张|一块)(?:大|好|强|快|高端)[^。？?]{0,24}?(?:还是|或者?|vs|和|跟|对比)[^。？?]{0,4}"
    r"(?:多|几|两|三|四)(?:张|块)(?:小|便宜|差一点|弱一点|低端)",
    re.I,
)
_SIDE_BY_SIDE = re.compile(
    r"parallel|at once|at the same time|concurrent|simultaneous|multiple (?:runs|jobs|processes)|several (?:runs|jobs)"
    r"|同时|并行|多个任务|几个任务|多任务",
    re.I,
)


class ScalingAsk(BaseModel):
    """The slot of a throughput-scaling question (a base of PcieLink: query.py is at its size limit)."""

    asks_scaling: bool = Field(
        default=False,
        description="Whether more cards scale a service's throughput is asked ('双卡吞吐达不到单卡两倍', 'TP=8 1.5x')",
    )
    scaling_seen: bool = Field(
        default=False, description="The user measured or was told the throughput does not grow with the cards"
    )
    asks_many_small: bool = Field(
        default=False,
        description="Several smaller cards or one bigger one, for runs side by side ('more slower GPUs vs one')",
    )


def _scaling(st: _State) -> None:
    text = st.t.text
    if _MANY_SMALL.search(text) and _SIDE_BY_SIDE.search(text):
        st.q.asks_many_small = True  # said after the comparison of the cards: each run on a card of its own
    layouts = {re.sub(r"\s+", "", m.group(0).lower()) for m in _LAYOUT.finditer(text)}
    if _TP_ON.search(text):
        layouts.add("tensor parallel")  # "两张 A10 开张量并行后": the group against the cards on their own
    if len(layouts) < 2 and len(set(st.q.capacity_counts)) < 2 and not _FROM_TO.search(text):
        return
    if len(set(st.q.gpu_mentions)) > 1:
        return  # "2x 3090 or 1x 4090, which is worth it?": different cards weighed, a comparison of cards
    if (
        st.q.mode in ("full", "lora", "qlora")
        or st.q.pretrain
        or any(j in ("full", "lora", "qlora") for j in st.q.jobs)
    ):
        return  # a training run's scaling is its gradient exchange, not serving replicas
    seen = bool(_SUBLINEAR.search(text))
    if _THROUGHPUT.search(text) and (seen or _WHICH.search(text)):
        st.q.asks_scaling, st.q.scaling_seen = True, seen
        # the rule answers it, not a concept's definition; its topic steers the guides to multi-GPU parallelism
        sized = st.q.model or st.q.params_b  # a model named is sized too; with none, nothing else to compute
        st.q.intents = ["scaling", *(i for i in st.q.intents if sized and i not in ("scaling", "concept"))]
