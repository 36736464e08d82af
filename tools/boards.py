"""Cards with several GPUs on one board (Tesla K80 and M60: 2; M10 and A16: 4; MI250X: 2 GCDs).

The catalog row gives the board's totals (a K80 is "24 GB, 480 GB/s"), yet CUDA/ROCm show each GPU on its own: a K80
is two 12 GB GPUs of 240 GB/s, and a model must fit one of them or be split across them. Sizing on the board total
would call a 20 GiB model a fit on one 24 GB card. So every sizing tool (memory, fit, speed, capacity, offload, TCO)
is run on the GPUs as software sees them: `expand_board` turns "N boards" into "N x gpus_per_board GPUs" of the
per-GPU spec, in one place (assistant/toolset.py run_tool), and `resolve_gpu` reads that per-GPU spec back by its id.
Support and card-risk tools keep the board: what they say is about the card someone buys.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from tools.catalog import GpuSpec, StreetPrice, catalog, resolve_gpu
from tools.errors import AdvisorError
from tools.notes import Note, note

_SUFFIX = "-per-gpu"
# Board totals that split evenly over its GPUs: memory, bandwidth, throughput, power and price.
_PER_GPU = (
    "vram_gib",
    "bandwidth_gbs",
    "fp32_tflops",
    "tf32_tflops",
    "fp16_tflops",
    "fp16_fp32acc_tflops",
    "bf16_tflops",
    "fp8_tflops",
    "fp8_fp32acc_tflops",
    "fp4_tflops",
    "int8_tops",
    "tdp_w",
    "launch_price_usd",
)


def _split_price(price: StreetPrice | None, n: int) -> StreetPrice | None:
    if price is None:
        return None
    usd = (price.usd[0] / n, price.usd[1] / n) if price.usd else None
    cny = (price.cny[0] / n, price.cny[1] / n) if price.cny else None
    return price.model_copy(update={"usd": usd, "cny": cny})


@cache
def _devices() -> dict[str, GpuSpec]:
    """The per-GPU spec of every multi-GPU board in the catalog, by its id."""
    out: dict[str, GpuSpec] = {}
    for board in catalog().values():
        n = board.gpus_per_board
        if n <= 1:
            continue
        update: dict[str, Any] = {k: getattr(board, k) / n for k in _PER_GPU if getattr(board, k) is not None}
        gib = board.vram_gib / n
        update.update(
            id=board.id + _SUFFIX,
            name=f"{board.name.split(' (')[0]} GPU ({gib:g} GB, {n} per board)",
            aliases=[],
            gpus_per_board=1,
            board_of=board.id,
            street_price=_split_price(board.street_price, n),
            used_price=_split_price(board.used_price, n),
        )
        out[board.id + _SUFFIX] = board.model_copy(update=update)
    return out


def device_of(gpu_id: str) -> GpuSpec | None:
    """One GPU of a multi-GPU board, by the id `expand_board` gives it (None for any other id)."""
    return _devices().get(gpu_id)


def device_for(board: GpuSpec) -> GpuSpec | None:
    """One GPU of this board as software sees it (its share of the memory and bandwidth); None for a one-GPU card."""
    return _devices().get(board.id + _SUFFIX)


def board_note(device: GpuSpec) -> Note:
    """Says that the board was sized as the GPUs software sees (an assumption every sizing result carries)."""
    board = catalog()[device.board_of or ""]
    return note(
        "board_sized_per_gpu", board=board.name, n=board.gpus_per_board, gib=device.vram_gib, gbs=device.bandwidth_gbs
    )


# Tools whose GPU count is cards bought, slotted and powered (a board is one card there), not GPUs sized on.
# check_support asks about the card the user named (its count only adds how an engine splits a model), never a GPU
# of it: a K80's verdict is on the K80
_BOARD_LEVEL = frozenset({"calculate_tco", "plan_workstation", "rent_providers", "compare_api", "check_support"})


def expand_board(tool: str, args: dict[str, Any], fields: set[str]) -> dict[str, Any]:
    """A sizing call on N multi-GPU boards as a call on N x gpus_per_board GPUs of the per-GPU spec.

    Only for a sizing tool whose request has both `gpu` and `num_gpus` (`fields`: the request's field names); any
    other call, an unknown name, or a one-GPU card comes back unchanged (the tool reports an unknown name itself).
    """
    name = args.get("gpu")
    if tool in _BOARD_LEVEL or not isinstance(name, str) or not name or not {"gpu", "num_gpus"} <= fields:
        return args
    try:
        board, _ = resolve_gpu(name)
    except AdvisorError:
        return args
    if board.gpus_per_board <= 1:
        return args
    boards = args.get("num_gpus") or 1
    if not isinstance(boards, int):
        return args
    return {**args, "gpu": board.id + _SUFFIX, "num_gpus": boards * board.gpus_per_board}


def sized_gpu(asked: str | None, result_gpu_id: str | None) -> str | None:
    """The GPU to pair with a count a sizing result reports: after a board was sized per GPU (tools/boards.py) the
    result's count is of its GPUs, so a follow-up call names the per-GPU spec (which never expands again), not the
    board (which would expand a second time: 2 GPUs of a K80 read as 2 K80s)."""
    return result_gpu_id if result_gpu_id and device_of(result_gpu_id) else asked


def expand_gpu(tool: str, gpu: str | None, num_gpus: int) -> tuple[str | None, int]:
    """`expand_board` for a caller holding the GPU and count apart (the CLI calculators): the same one rule."""
    args = expand_board(tool, {"gpu": gpu, "num_gpus": num_gpus}, {"gpu", "num_gpus"})
    return args["gpu"], args["num_gpus"]


def boards_for(gpu: str, sized_count: int) -> int:
    """The cards to rent or buy for a count a sizing result reports on `gpu` (the name the call was made with): 4
    GPUs of an M60 are 2 M60 cards, never 4 (a board-level tool like rent_providers counts boards)."""
    try:
        board, _ = resolve_gpu(gpu)
    except AdvisorError:
        return sized_count
    n = board.gpus_per_board
    return sized_count if n <= 1 else max(1, -(-sized_count // n))


def card_name(name: str) -> str:
    """The board's name for one of its GPUs' names (a sizing result's `gpu`), so it pairs with a board-level result
    (a rental of the card); any other name comes back unchanged."""
    for device in _devices().values():
        if device.name == name:
            return catalog()[device.board_of or ""].name
    return name


def sized_on(result_gpu_id: str | None, result_count: int, gpu: str | None, count: int) -> bool:
    """Whether a sizing result is of `count` x `gpu` (a catalog id) as the user named them: a board's result is of
    its GPUs (an A16 named once comes back as 4 A16 GPUs), so a result matched on the board id alone never matches."""
    if result_gpu_id is None or gpu is None:
        return False
    if result_gpu_id == gpu:
        return result_count == count
    device = device_of(result_gpu_id)
    board = catalog().get(gpu)
    return (
        device is not None
        and board is not None
        and device.board_of == gpu
        and result_count == count * board.gpus_per_board
    )
