"""Answers that tell one story: a comparison's pick, a count verdict, a used-card block and an offload plan must not
contradict the lead or the platform they are sized on (issue 19, round 5)."""

from __future__ import annotations

import pytest

from assistant.consistency import check_consistency
from tools.compare import CompareRequest, compare_gpus
from tools.offload import OffloadRequest, estimate_offload
from tools.vram import VramRequest


@pytest.mark.parametrize(
    ("answer", "flagged"),
    [
        (
            "**Rent 1 x 3090 by the hour.** It is cheaper.\n\n**Worth buying if it passes the checks:** a used 3090.",
            True,
        ),
        ("**租卡更划算。** 用得少。\n\n**能买，前提是验卡过关**：二手 3090。", True),
        ("**Rent 1 x 3090 by the hour.** It is cheaper.\n\n**If you buy anyway:** a used 3090.", False),
        ("**Buy 1 x 3090.** It pays off.\n\n**Worth buying if it passes the checks below:** a used 3090.", False),
    ],
)
def test_buy_verdict_below_a_rent_lead_is_a_contradiction(answer: str, flagged: bool) -> None:
    assert (not check_consistency(answer, []).consistent) is flagged


@pytest.mark.parametrize(("model", "gpus"), [("deepseek-v3", ["4090", "h100"]), ("deepseek-r1", ["4090", "h100"])])
def test_a_card_that_needs_more_servers_is_not_the_pick(model: str, gpus: list[str]) -> None:
    res = compare_gpus(CompareRequest(workload=VramRequest(model=model, mode="inference"), gpus=gpus))
    assert res.verdict.gpu is not None and "H100" in res.verdict.gpu
    # served in its published FP8, as the rest of the answer sizes it (not upcast to bf16: twice the cards)
    assert all(r.precision == "fp8" for r in res.rows if r.error is None)


@pytest.mark.parametrize(
    ("machine", "channels", "holds"), [("desktop", None, False), (None, 2, False), ("workstation", None, True)]
)
def test_ram_beyond_the_platform_is_flagged(machine: str | None, channels: int | None, holds: bool) -> None:
    r = estimate_offload(
        OffloadRequest(model="deepseek-r1", precision="q4_k_m", gpu="rtx-4090", machine=machine, channels=channels)
    )
    assert r.platform_holds_ram is holds
    assert any(n.code == "offload_ram_over_platform" for n in r.warnings) is not holds


def test_small_offload_fits_a_desktop() -> None:
    r = estimate_offload(OffloadRequest(model="qwen3-30b-a3b", precision="q4_k_m", gpu="rtx-3060", machine="desktop"))
    assert r.platform_holds_ram


@pytest.fixture(scope="module")
def advisor():  # type: ignore[no-untyped-def]
    from assistant.advisor import Advisor

    return Advisor()


@pytest.mark.parametrize(
    ("question", "lead", "contrast"),
    [
        ("Llama-3-70B 微调，8 张 A100 80G 是最低要求吗？", "不是", "相比之下"),
        ("Falcon-40B fine-tuning: is 8 x A100 80GB the minimum?", "not the minimum", "By contrast"),
        ("Qwen2.5-72B full fine-tune: is 4x H100 the minimum?", "not enough", None),
    ],
)
def test_count_verdict_follows_the_method_asked(advisor, question: str, lead: str, contrast: str | None) -> None:  # type: ignore[no-untyped-def]
    answer = advisor.ask("t-count", question).answer
    first = answer.split("\n")[0]
    assert lead in first
    if contrast:
        # the method on the other side of the named count gets its own sentence, not the verdict's
        assert contrast in answer and contrast not in first


def test_used_card_block_under_a_rent_lead_is_conditional(advisor) -> None:  # type: ignore[no-untyped-def]
    q = (
        "i rent from vast.io, trained my model for 10 hours, the pod was restarted, i lost all the data. "
        "i would suggest buy a used 3090 for training, at least i m thinking of doing that"
    )
    f = advisor.ask("t-used", q)
    if "If you buy anyway" in f.answer or "Worth buying" in f.answer:
        assert "Worth buying" not in f.answer
    assert f.consistency.consistent
