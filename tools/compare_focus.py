"""The sentence a GPU comparison leads with: every option side by side on the job's bottleneck (advice.md §9).

Training is bound by dense BF16 compute (and memory decides what trains at all), long prompts by compute, one
user's decode by memory bandwidth, serving by memory for the KV cache and batched throughput. Two options read as
"A has X against Y for B, about N× as fast"; three or four as a ranking, best first. Pure: the rows are
compare_gpus's, already computed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from tools.notes import Note, note

if TYPE_CHECKING:
    from tools.compare import CompareRow

Focus = Literal["decode", "prefill", "training", "serving", "memory"]
_TIE = 1.1  # options within 10% of each other on the bottleneck are "about the same"
_ROOM = 1.3  # one option trains models this much bigger: memory is worth saying in the lead


def _option(r: CompareRow, per_card: bool) -> Note:
    if per_card:
        return note("cmp_gpu_name", gpu=r.gpu)
    return note("cmp_option", count=r.count or r.count_asked or 1, gpu=r.gpu)


def _value(r: CompareRow, focus: Focus, cards: bool, per_card: bool) -> float | None:
    """The row's figure on the bottleneck (per card where every option has as many cards)."""
    n = (r.count or 1) if per_card else 1
    if focus in ("training", "prefill") and cards:
        return (r.compute_tflops or 0) / n or None
    if focus == "training":
        return r.tokens_per_s
    if focus == "prefill":
        return r.prefill_tokens_per_s
    if focus == "serving":
        return r.bandwidth_gbs * (r.count or 1) if cards else r.tokens_per_s
    if focus == "memory":
        return r.vram_gib * (r.count or 1) / n
    return r.bandwidth_gbs if cards else r.tokens_per_s_per_user


def bottleneck(rows: list[CompareRow], order: list[int], focus: Focus, cards: bool) -> Note | None:
    """The options on the job's bottleneck, best first: the lead sentence of the comparison."""
    live = [rows[i] for i in order if rows[i].error is None and rows[i].count is not None]
    per_card = cards and len({r.count or 1 for r in live}) == 1 and (live[0].count or 1) > 1 if live else False
    valued = [(r, _value(r, focus, cards, per_card)) for r in live]
    valued = [(r, v) for r, v in valued if v]
    if len(valued) < 2:
        return None
    valued.sort(key=lambda rv: -(rv[1] or 0))
    kind = _kind(focus, cards)
    if len(valued) > 2:
        items = [_item(kind, r, v, per_card) for r, v in valued]
        return note(f"cmp_focus_{kind}_rank", items=items)
    (fast, fv), (slow, sv) = valued
    room = _room(fast, slow) if focus == "training" and cards else []
    if fv / sv < _TIE:
        return note(f"cmp_focus_{kind}_tie", items=[_item(kind, r, v, per_card) for r, v in valued], room=room)
    code = f"cmp_focus_{kind}" + ("_per_card" if per_card else "")
    if kind == "decode_tps" and slow.layer_split:
        # "3 V100s or one A100 for Vicuna-33B": three cards split by layers run one after another, at one card's pace
        code, room = "cmp_focus_decode_tps_layers", [note("cmp_focus_layers_count", n=slow.count or 1)]
    return note(
        code,
        fast=[_option(fast, per_card)],
        slow=[_option(slow, per_card)],
        fast_v=fv,
        slow_v=sv,
        times=fv / sv,
        slower=(1 - sv / fv) * 100,
        fast_bw=fast.bandwidth_gbs,
        slow_bw=slow.bandwidth_gbs,
        room=room,
    )


def leader(rows: list[CompareRow], order: list[int], focus: Focus, cards: bool) -> int | None:
    """The row the bottleneck sentence names best, when it is clearly ahead (past the tie margin); None otherwise."""
    live = [i for i in order if rows[i].error is None and rows[i].count is not None]
    per_card = (
        cards and len({rows[i].count or 1 for i in live}) == 1 and (rows[live[0]].count or 1) > 1 if live else False
    )
    valued = sorted(((i, _value(rows[i], focus, cards, per_card) or 0.0) for i in live), key=lambda iv: -iv[1])
    if len(valued) < 2 or not valued[1][1] or valued[0][1] / valued[1][1] < _TIE:
        return None
    return valued[0][0]


def _kind(focus: Focus, cards: bool) -> str:
    """The note family: what is measured (compute, prompt tokens/s, bandwidth, decode tokens/s, training tokens/s)."""
    if focus in ("training", "prefill") and cards:
        return f"{focus}_tflops"
    if focus == "training":
        return "training_tps"
    if focus == "prefill":
        return "prefill_tps"
    if focus == "serving":
        return "serving_gbs" if cards else "serving_tps"
    if focus == "memory":
        return "memory_gib"
    return "decode_gbs" if cards else "decode_tps"


def _item(kind: str, r: CompareRow, v: float | None, per_card: bool) -> Note:
    return note(f"cmp_focus_item_{kind}", option=[_option(r, per_card)], v=v or 0.0, bw=r.bandwidth_gbs)


def _room(fast: CompareRow, slow: CompareRow) -> list[Note]:
    """When the slower option holds more memory, it trains bigger models: say by how much (largest_model)."""
    a, b = _top(fast), _top(slow)
    if a is None or b is None:
        return []
    big, small = (slow, fast) if (b[1] > a[1]) else (fast, slow)
    big_b, small_b = max(a[1], b[1]), min(a[1], b[1])
    if big is fast or big_b < small_b * _ROOM:
        return []
    way = (_top(big) or ("qlora", 0.0))[0]
    return [
        note(
            "cmp_focus_train_room",
            big=[_option(big, False)],
            big_gib=big.vram_gib * (big.count or 1),
            small_gib=small.vram_gib * (small.count or 1),
            way=way,
            big_b=big_b,
            small_b=small_b,
        )
    ]


def _top(r: CompareRow) -> tuple[str, float] | None:
    """The first way largest_model sized for the row (QLoRA for fine-tuning), with its largest size."""
    for way in r.sizes:
        if way.max_params_b:
            return way.mode, way.max_params_b
    return None
