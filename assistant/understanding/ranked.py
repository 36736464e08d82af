"""A ranking the user saw on their runs: card A named before "is not as fast as", "slower than", "慢于", "不如",
"比 B 慢" (card B named after). When A is clearly the stronger card on the job's bottleneck (memory bandwidth for
inference, tensor TFLOPS for training), the sentence reports a run that went wrong, with or without numbers ("the A800
is not as fast as the RTX 3090, is this normal?", "A100 的 token 生成速率慢于 4090"): a symptom, which the diagnosis
answers ("by the hardware the A800 is the faster card, so the difference is software"). When A is the weaker card
("our A6000 is not as fast as the 3090") it is what the hardware predicts, and the comparison answers it.
Wording lives in knowledge/data/lexicon.yaml (`diagnosis.inverted_rank`).
"""

from __future__ import annotations

import re
from functools import cache
from typing import TYPE_CHECKING

from assistant.understanding.lexicon import lexicon_pattern, lexicon_raw
from assistant.understanding.text import _State

if TYPE_CHECKING:
    from assistant.understanding.query import ParsedQuery
    from tools.catalog import GpuSpec

_WINDOW = 60  # at most this many characters from card A to the words ranking it behind card B
_AFTER = 12  # "比 B 还慢", "没有 B 快": at most this many characters from card B to 慢 / 快
_NEAR = 24  # "is not as fast as the ": the ranking words end this close to card B
_CLEARLY = 1.3  # A's lead on the bottleneck that makes "A behind B" a fault, not a close call
_AHEAD = 1.05  # B's lead that makes "A behind B" what the hardware predicts
_LINE = re.compile(r"[^。！？!?\n]+")
_TRAINING = {"full", "lora", "qlora", "training", "pretrain"}


@cache
def _rx() -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    d = lexicon_raw()["diagnosis"]["inverted_rank"]
    return (
        lexicon_pattern(d["behind"]),
        lexicon_pattern(d["than_before"]),
        lexicon_pattern(d["slower_after"]),
        lexicon_pattern(d["faster_after"]),
    )


def job_mode(q: ParsedQuery) -> str | None:
    """The mode the cards are ranked on: a training job named with no method ("training time (mix-precision) on V100
    is slower than 3080Ti", "训练比 A100 慢") is ranked on tensor TFLOPS like a named fine-tune."""
    return "training" if q.mode is None and (q.fine_tune_unspecified or q.pretrain) else q.mode


def stated_inversion(st: _State) -> bool:
    """Whether a sentence ranks a clearly stronger card behind a weaker one on the user's own runs."""
    return _pair(st.names_masked or st.t.text, _spans(st), job_mode(st.q), inverted=True) is not None


def stated_expected(st: _State) -> bool:
    """Whether the user reports a card seen behind one the hardware says is faster and doubts it ("our A6000 is not
    as fast as the 3090, expected?", "训练时 H20 比 A100 慢很多，正常吗"); "3090 比 4090 慢多少" only asks."""
    text = st.names_masked or st.t.text
    if not lexicon_pattern(lexicon_raw()["diagnosis"]["inverted_rank"]["doubt"]).search(text):
        return False
    return _pair(text, _spans(st), job_mode(st.q), inverted=False) is not None


def behind_card(text: str, gpus: list[str], mode: str | None) -> str | None:
    """The stronger card a sentence ranks behind a weaker one ("the A800 is not as fast as the 3090": the A800), found
    by the cards' names in the message (capabilities/diagnose.py: the run the question is about)."""
    pair = _pair(text.lower(), _named_spans(text, gpus), mode, inverted=True)
    return pair[0] if pair else None


def expected_pair(text: str, gpus: list[str], mode: str | None) -> tuple[str, str] | None:
    """(the card seen behind, the one ahead) when the hardware predicts that order (capabilities/compare.py)."""
    return _pair(text.lower(), _named_spans(text, gpus), mode, inverted=False)


def _spans(st: _State) -> list[tuple[int, int, str]]:
    return [(g.start, g.end, g.value) for g in st.gpus if g.value]


def _named_spans(text: str, gpus: list[str]) -> list[tuple[int, int, str]]:
    from tools.catalog import catalog

    lowered, spans = text.lower(), []
    for gpu in gpus:
        spec = catalog().get(gpu)
        for name in {gpu, *(spec.aliases if spec else [])}:
            rx = rf"(?<![a-z0-9]){re.escape(name.lower())}(?![0-9])"
            spans += [(m.start(), m.end(), gpu) for m in re.finditer(rx, lowered)]
    return sorted(set(spans))


def _pair(text: str, spans: list[tuple[int, int, str]], mode: str | None, inverted: bool) -> tuple[str, str] | None:
    """(A, B) of the first "A behind B" whose order the hardware contradicts (`inverted`) or predicts."""
    for line in _LINE.finditer(text):
        cards = [c for c in spans if line.start() <= c[0] < line.end()]
        for b_start, b_end, b in cards:
            for a_start, a_end, a in cards:
                if a_end > b_start or a == b or b_start - a_end > _WINDOW or a_start < line.start():
                    continue
                if inverted and _ahead(text, a_end, b_start, b_end, line.end()):
                    # "my M2 MacBook 比 T4 还快": a clearly stronger B said behind a weaker A; a stronger card said
                    # faster ("H100 比 A100 快 1.3 倍") is what the hardware predicts, no report
                    if _lead(mode, b, a) >= _CLEARLY:
                        return b, a
                    continue
                if not _behind(text, a_end, b_start, b_end, line.end()):
                    continue
                if (_lead(mode, a, b) >= _CLEARLY) if inverted else (_lead(mode, b, a) >= _AHEAD):
                    return a, b
    return None


# "A 比(公司的) B (跑得)还快", "反而快": A ranked ahead of B with surprise, so B is the card behind ("why is X faster
# than Y" without it often asks about a bottleneck, e.g. prompt processing, where the weaker card may lead)
_THAN_AHEAD = re.compile(r"(?P<surprise>(?:还|反而|竟然|居然)\s*)?(?<![不没])比[^，。,比]{0,6}$")
_FASTER_TAIL = re.compile(r"^[^，。,]{0,20}?(?P<surprise>还|反而|竟然|居然)?(?:要|更)?快(?!多少|几)")


def _ahead(text: str, a_end: int, b_start: int, b_end: int, line_end: int) -> bool:
    than = _THAN_AHEAD.search(text[a_end:b_start])
    faster = _FASTER_TAIL.search(text[b_end:line_end]) if than else None
    return bool(faster and (than.group("surprise") or faster.group("surprise")))


def _behind(text: str, a_end: int, b_start: int, b_end: int, line_end: int) -> bool:
    """The words between the two cards (and just after B) rank A behind B: "not as fast as (the) B", "慢于 B", or
    "比 B (还)慢" / "没有 B 快" / "不比 B 快"."""
    behind, than, slower, faster = _rx()
    gap, tail = text[a_end:b_start], text[b_end : min(line_end, b_end + _AFTER)]
    if behind.search(gap[-_NEAR:]):
        return True
    m = than.search(gap)
    if m is None:
        return False
    negated = m.group(0).strip() != "比"  # "没有 B 快", "不比 B 快": A is not faster
    return bool((faster if negated else slower).search(tail))


def _lead(mode: str | None, a: str, b: str) -> float:
    """How far card A is ahead of card B on the job's bottleneck: tensor TFLOPS for training, else bandwidth."""
    from tools.catalog import catalog

    spec_a, spec_b = catalog().get(a), catalog().get(b)
    if spec_a is None or spec_b is None:
        return 0.0
    training = (mode or "inference") in _TRAINING
    va, vb = bottleneck(spec_a, training), bottleneck(spec_b, training)
    return va / vb if va and vb else 0.0


def bottleneck(spec: GpuSpec, training: bool) -> float | None:
    """A card's figure on the job's bottleneck: 16-bit tensor TFLOPS for training, memory bandwidth (GB/s) else."""
    return (spec.bf16_tflops or spec.fp16_tflops) if training else spec.bandwidth_gbs
