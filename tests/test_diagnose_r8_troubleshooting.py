"""Kinds of troubleshooting question from new real threads (round 8): a reasoning model's wait per answer, a CPU-only
run's ceiling, a job that fits neither card split over two, and the planner's reading of those messages."""

from __future__ import annotations

import pytest

from assistant.capabilities.diagnose import diagnose_lines
from assistant.language_check import check
from assistant.planner.plan import make_plan
from assistant.scenario import Scenario
from assistant.strings import Writer
from assistant.toolset import ToolName
from assistant.understanding import parse
from tools.diagnose import DiagnoseRequest, DiagnoseResult, diagnose


def _ids(r: DiagnoseResult) -> list[str]:
    return [c.id for c in r.causes]


def _text(r: DiagnoseResult, lang: str) -> str:
    w = Writer(lang)  # type: ignore[arg-type]
    diagnose_lines(w, r)
    assert not check(w.text(), lang), w.text()
    return w.text()


@pytest.mark.parametrize(
    ("model", "gpu"),
    [("deepseek-r1-distill-qwen-32b", "rtx-4090"), ("qwq-32b", "rtx-3090"), ("qwen3-14b", "rtx-4080")],
)
def test_a_reasoning_model_that_fits_waits_on_its_thinking(model: str, gpu: str) -> None:
    # DeepSeek-R1-Distill-Qwen-32B Q4_K_M on a 4090: ~31 tokens/s, so 1,500 thinking tokens are ~48 s: a wait of tens
    # of seconds per answer is the thinking (deepseek-ai/DeepSeek-R1#582), the first cause named
    r = diagnose(
        DiagnoseRequest(
            model=model, gpu=gpu, precision="q4_k_m", symptom="slow", engine="ollama", flags=["answer_wait"]
        )
    )
    assert _ids(r)[0] == "thinking_tokens"
    assert "think" in _text(r, "en") and "思考" in _text(r, "zh")
    # slowness with no wait per answer said ("it was fast before, now DRAM is heavily used"): not the thinking
    other = diagnose(DiagnoseRequest(model=model, gpu=gpu, precision="q4_k_m", symptom="slow", engine="ollama"))
    assert "thinking_tokens" not in _ids(other)


def test_thinking_is_not_the_cause_when_it_runs_far_below_or_partly_on_the_cpu() -> None:
    wait = {"flags": ["answer_wait"]}
    far = diagnose(
        DiagnoseRequest(model="qwq-32b", gpu="rtx-4090", precision="q4_k_m", measured_tokens_per_s=2, **wait)
    )
    assert "thinking_tokens" not in _ids(far)
    offload = diagnose(
        DiagnoseRequest(model="qwq-32b", gpu="rtx-3060-12gb", precision="q4_k_m", engine="ollama", **wait)
    )
    assert "thinking_tokens" not in _ids(offload)
    plain = diagnose(DiagnoseRequest(model="qwen2.5-32b", gpu="rtx-4090", precision="q4_k_m", engine="ollama", **wait))
    assert "thinking_tokens" not in _ids(plain)  # not a reasoning model


def test_a_cpu_only_run_is_bound_by_ram_bandwidth_not_the_cores() -> None:
    # 8B Q4_K_M (~5 GiB) from dual-channel DDR5 (~54 GB/s effective): ~10 tokens/s whatever the thread count
    r = diagnose(DiagnoseRequest(model="llama-3.1-8b", precision="q4_k_m", ram_gib=16))
    assert r.ceiling_source == "offload" and r.gpu is None
    en, zh = _text(r, "en"), _text(r, "zh")
    assert "bandwidth" in en.split("\n")[0] and "带宽" in zh.split("\n")[0]
    assert "GPU" in en and "显卡" in zh
    assert "no computed ceiling" not in en and "算不出理论上限" not in zh
    # with no GPU, Ollama's context pushes no layers off a card: that cause is not named
    ollama = diagnose(DiagnoseRequest(model="llama-3.1-8b", precision="q4_k_m", ram_gib=16, engine="ollama"))
    assert "ollama_context" not in _ids(ollama)


def test_a_16bit_70b_on_two_24gb_cards_is_made_to_fit_by_4bit_over_both() -> None:
    # Llama-2-70B bf16: ~66 GiB per card over two; 4-bit ~19 GiB each over two 24 GB cards (text-generation-webui#3278).
    # Another process's 3.5 GiB is not why: the job needs more than the whole card
    r = diagnose(
        DiagnoseRequest(
            model="llama-2-70b",
            num_gpus=2,
            card_gib=23.65,
            symptom="oom",
            engine="transformers",
            oom_gpu=0,
            other_process_gib=3.5,
        )
    )
    assert _ids(r) == ["does_not_fit"]
    assert "split over the 2 GPUs" in _text(r, "en") and "分到 2 张卡上" in _text(r, "zh")


@pytest.mark.parametrize(
    ("text", "args"),
    [
        (
            "CPU : Intel i9-10920X 3.5GHZ RAM : 32GB * 2 GPU: NVIDIA RTX A5000 24GB model : llama 3.3 70B-q4_K_M, "
            "the GPU usage is always around 2% and it takes 10 minutes to generate the answer",
            {"gpu": "rtx-a5000", "num_gpus": 1, "model": "llama-3.3-70b"},
        ),
        (
            "Combined VRAM of 2 5090 is 64 GB, it should fit into VRAM, no? deepseek-r1:70b (42GB) is very slow and "
            "DRAM is heavily used",
            {"gpu": "rtx-5090", "num_gpus": 2, "model": "deepseek-r1-distill-llama-70b"},
        ),
    ],
)
def test_the_diagnosis_runs_on_the_hardware_stated(text: str, args: dict[str, object]) -> None:
    plan = make_plan(parse(text), Scenario())
    call = next(c for c in plan.calls if c.name == ToolName.DIAGNOSE)
    assert {k: call.args.get(k, 1 if k == "num_gpus" else None) for k in args} == args
