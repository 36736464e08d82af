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


def test_board_counts_and_names_pair_a_sized_result_with_the_card() -> None:
    """A result on a board's GPUs is of the board as named: 4 GPUs of an M60 are 2 cards, an A16's 4 GPUs one."""
    from tools.boards import boards_for, card_name, sized_on

    assert boards_for("tesla-m60", 4) == 2 and boards_for("A16", 4) == 1 and boards_for("rtx-4090", 3) == 3
    assert card_name(device_of("a16-per-gpu").name) == catalog()["a16"].name  # type: ignore[union-attr]
    assert card_name("NVIDIA GeForce RTX 4090") == "NVIDIA GeForce RTX 4090"
    assert sized_on("a16-per-gpu", 4, "a16", 1) and sized_on("tesla-k80-per-gpu", 4, "tesla-k80", 2)
    assert not sized_on("a16-per-gpu", 4, "a16", 2) and sized_on("rtx-4090", 2, "rtx-4090", 2)
    assert not sized_on("tesla-m60-per-gpu", 2, "tesla-k80", 1) and not sized_on(None, 1, "a16", 1)


def _answer(q: str):  # the advisor's reply
    from assistant.advisor import Advisor

    return Advisor().ask("boards-" + q[:12], q)


@pytest.mark.parametrize(
    ("q", "boards", "cost"),
    [
        ("I can rent an A16 at $0.5/hour. How long and how much to QLoRA fine-tune Qwen2.5-7B on 50k samples?", 1, "$"),
        ("租一张 A16 每小时 3 元，QLoRA 微调 Qwen2.5-7B，5 万条数据，要多久多少钱？", 1, "¥"),
    ],
)
def test_job_on_a_board_is_rented_as_the_board(q: str, boards: int, cost: str) -> None:
    """The training run is sized on the board's GPUs, rented as the boards named, and priced in the lead."""
    f = _answer(q)
    rents = [c for c in f.tool_calls if c.name == ToolName.RENT_PROVIDERS]
    assert rents and all(c.args["num_gpus"] == boards for c in rents)
    assert cost in f.answer.split("\n\n")[0]  # the job's cost leads


@pytest.mark.parametrize(
    "q", ["Can one A16 fine-tune Llama-3-8B?", "K80 能微调 Qwen2.5-7B 吗", "一张 A16 能不能微调 Qwen2.5-14B？"]
)
def test_methods_lead_on_a_board(q: str) -> None:
    """'Fine-tune' with no method on a board: every method's verdict on the board's GPUs (methods_lead)."""
    f = _answer(q)
    assert ("QLoRA" in f.answer) and ("LoRA" in f.answer)
    assert any(
        w in f.answer
        for w in ("full fine-tuning does not fit", "全参微调放不下", "全参微调放得下", "full fine-tuning fits")
    )


@pytest.mark.parametrize(
    "q", ["Will Ollama run Qwen2.5-32B on an M60? I'm about to buy one", "准备买一张 M60 跑 Qwen2.5-32B，行吗"]
)
def test_buy_instead_after_a_board_that_does_not_hold_it(q: str) -> None:
    f = _answer(q)
    assert "buying for this model" in f.answer or "如果是为这个模型买卡" in f.answer


def test_fit_line_says_its_memory_is_at_the_concurrency_it_names() -> None:
    """One story: 5.7 GiB per GPU for one sequence (memory), 14.4 GiB with the KV cache of 35 (fit)."""
    f = _answer("A16 能跑 Qwen2.5-32B-AWQ 吗")
    line = next(x for x in f.answer.splitlines() if x.startswith("**能跑**"))
    assert line.index("路并发") < line.index("每张占")
