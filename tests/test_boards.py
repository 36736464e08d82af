"""Multi-GPU boards (Tesla K80, M60, M10, A16, MI250X) are sized as the GPUs software sees (tools/boards.py)."""

from __future__ import annotations

import pytest

from assistant.toolset import ToolName, run_tool, tool_spec
from tools.boards import device_of, expand_board
from tools.catalog import catalog, resolve_gpu_noted


@pytest.mark.parametrize(
    ("board", "n", "gib"),
    [("tesla-k80", 2, 12), ("tesla-m60", 2, 8), ("tesla-m10", 4, 8), ("a16", 4, 16), ("mi250x", 2, 64)],
)
def test_board_is_its_gpus(board: str, n: int, gib: float) -> None:
    spec = catalog()[board]
    assert spec.gpus_per_board == n
    args = expand_board("fit_on_gpu", {"gpu": board, "num_gpus": 2}, {"gpu", "num_gpus"})
    assert args["num_gpus"] == 2 * n
    device = device_of(args["gpu"])
    assert device is not None and device.vram_gib == gib and device.board_of == board
    assert device.bandwidth_gbs == pytest.approx(spec.bandwidth_gbs / n)
    again = expand_board("fit_on_gpu", args, {"gpu", "num_gpus"})
    assert again == args  # the per-GPU spec is one GPU: a second pass changes nothing


def test_only_sizing_tools_expand() -> None:
    fields = {"gpu", "num_gpus"}
    assert expand_board("calculate_tco", {"gpu": "K80", "num_gpus": 1}, fields)["num_gpus"] == 1  # a card bought
    assert expand_board("check_support", {"gpu": "K80"}, {"gpu"}) == {"gpu": "K80"}
    assert expand_board("fit_on_gpu", {"gpu": "RTX 3090", "num_gpus": 2}, fields) == {"gpu": "RTX 3090", "num_gpus": 2}
    assert expand_board("fit_on_gpu", {"gpu": "H1000", "num_gpus": 1}, fields) == {"gpu": "H1000", "num_gpus": 1}


def test_per_gpu_spec_resolves_with_its_note() -> None:
    spec, read = resolve_gpu_noted("tesla-k80-per-gpu")
    assert spec.vram_gib == 12 and read is not None and read.code == "board_sized_per_gpu"
    assert "2 GPUs on one board" in read.text


def test_k80_sized_as_two_12gb_gpus() -> None:
    """A 32B at Q4 (~19 GiB) does not fit one 12 GB GPU of a K80: it is split over both, never 'one 24 GB card'."""
    out = run_tool(
        tool_spec(ToolName.FIT_ON_GPU),
        {"model": "qwen2.5-32b", "gpu": "tesla-k80", "num_gpus": 1, "precision": "q4_k_m"},
    )
    assert out.ok, out.error
    assert out.result["num_gpus"] == 2 and out.result["usable_gib_per_gpu"] < 12
    vram = run_tool(
        tool_spec(ToolName.ESTIMATE_VRAM),
        {"model": "qwen2.5-14b", "gpu": "M60", "num_gpus": 1, "precision": "q4_k_m", "mode": "inference"},
    )
    assert vram.ok and vram.result["num_gpus"] == 2


def test_devices_never_listed() -> None:
    assert not any(g.board_of for g in catalog().values())  # per-GPU specs live in tools/boards.py only


def test_card_nothing_runs_on_leads() -> None:
    """'Why are T4, K80, V100 not supported?': the K80 (Kepler, nothing current runs on it) is the verdict."""
    from tools.card_risk import CardRiskRequest, assess_card

    r = assess_card(CardRiskRequest(gpus=["T4", "K80", "V100"], job="inference"))
    assert r.risk == "unsupported" and r.lead is not None and "K80" in r.lead.text
    assert any(f.code == "risk_fact_board" for f in r.facts)  # the board sentence the answer puts after the verdict


def test_cli_calculators_size_the_board_per_gpu() -> None:
    from typer.testing import CliRunner

    from assistant.cli import app

    out = CliRunner().invoke(app, ["fit", "--model", "qwen2.5-32b", "-g", "tesla-k80", "--precision", "q4_k_m"])
    assert out.exit_code == 0 and "2x NVIDIA Tesla K80 GPU (12 GB" in out.output.replace("\n", " ")
