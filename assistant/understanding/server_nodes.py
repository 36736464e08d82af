"""Servers counted instead of cards: "4台 A800 机器", "96 NVIDIA DGX-A100 (8X40G)", "2 H100 nodes".

A data-center SXM card (A100/A800/H100/H800/H200/H20/B200, V100 SXM2) comes on an 8-GPU baseboard (HGX; a DGX is
one such server), so a count of servers of that card with no per-server count is 8 cards each: "4台 A800 机器" is
32 A800s, not one. A per-server count stated beside it wins ("(8X40G)": 8 cards of 40 GB each). A PCIe card has no
standard count per server, so a count of its servers is left alone. Runs after the GPU reader, only when it read
no count for the card.
"""

from __future__ import annotations

import re
from functools import cache

from assistant.understanding.hardware import _variant_with_memory
from assistant.understanding.lexicon import _lex
from assistant.understanding.numbers import _number
from assistant.understanding.patterns import _c
from assistant.understanding.query import ParsedQuery
from assistant.understanding.text import _State
from tools.catalog import catalog

# NVIDIA HGX / DGX baseboards hold 8 SXM GPUs (DGX-1 V100, DGX A100, DGX H100/H200, HGX B200 product pages)
_PER_BASEBOARD = 8
_BOARD_NAME = re.compile(r"(?:nvidia\s*)?[dh]gx", re.I)
_ONE_SERVER = {"dual", "twin"}  # count words of cards in one server, not of servers


@cache
def _patterns() -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    """(servers counted before the card, a server word after the card, a per-server count after the card)."""
    lex = _lex()
    en = "|".join(re.escape(w) for w in sorted(lex.raw["numerals"]["en_words"], key=len, reverse=True))
    count = rf"(?P<m>(?<![0-9.$¥])\d{{1,4}}(?![0-9.])|{lex.cn}|[两俩]|\b(?:{en}))"
    # "4台", "96 NVIDIA DGX-", "2 nodes of", "3个节点的", "two servers with"
    server = r"(?:台(?:机器|服务器|主机)?|个?(?:节点|服务器|机器)|nodes?|servers?|machines?|boxes)"
    before = _c(rf"{count}\s*(?P<srv>{server})?\s*(?:of|with|each\s+with|的)?\s*(?:nvidia\s*)?(?P<dgx>[dh]gx)?[\s-]*$")
    after = _c(r"^\s*(?:\d{2,3}\s*g[bi]?b?\s*)?(?:sxm\d?\s*)?(?:机器|服务器|主机|节点|nodes?|servers?|machines?|boxes)")
    per_server = _c(r"^\s*[(（]?\s*(?P<k>\d{1,2})\s*[x×*]\s*(?P<g>\d{2,3})\s*g")
    return before, after, per_server


def _server_nodes(st: _State) -> None:
    q = st.q
    if not q.gpu or q.gpus_together or len(set(q.gpu_mentions)) != 1:
        return
    before_rx, after_rx, per_rx = _patterns()
    text = st.t.text
    for m in _lex().rx["gpu"].finditer(text):
        lead = before_rx.search(text[max(0, m.start() - 40) : m.start()])
        said = lead.group("m").lower() if lead and lead.group("m") else None
        tail = text[m.end() : m.end() + 24]
        dgx = bool(lead and lead.group("dgx")) or bool(_BOARD_NAME.match(m.group(0)))  # "DGX H100": an alias
        server_word = bool(lead and lead.group("srv")) or bool(after_rx.match(tail))
        if said in _ONE_SERVER or not (dgx or server_word):
            continue  # "a dual H100 server" is one server of two cards
        servers = _number(said) if said else (1.0 if dgx else None)  # "HGX H100 能全参微调 70B 吗": one server
        if q.num_gpus and q.num_gpus != servers:
            return  # a count of cards was read ("8x H100", "两台8卡"); "3 A100 nodes" read 3 and is re-read here
        _count_servers(q, servers, per_rx.match(tail))
        return


def _count_servers(q: ParsedQuery, servers: float | None, per: re.Match[str] | None) -> None:
    """`servers` servers of the card: the per-server count stated, else 8 on an SXM baseboard, else no count."""
    spec = catalog().get(q.gpu or "")
    if per:
        each = int(per.group("k"))
        q.gpu = _variant_with_memory(q.gpu or "", float(per.group("g"))) or q.gpu
    elif spec is not None and spec.form_factor == "sxm":
        each = _PER_BASEBOARD  # a "DGX" of a non-SXM part (DGX Spark, one GB10 box) is one machine, not 8 cards
    else:
        return  # a PCIe card's server holds any number of cards: the count of servers is no count of cards
    if q.gpu and servers and 1 <= servers <= 1000 and 1 <= each <= 16:
        q.num_gpus = int(servers) * each
        q.gpu_mentions = [q.gpu]
        q.gpu_counts = {q.gpu: q.num_gpus}
