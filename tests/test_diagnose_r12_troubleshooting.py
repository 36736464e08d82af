"""Round 12 troubleshooting kinds: a process "Killed" while loading (the Linux OOM killer: system RAM, not the GPU),
an engine's preallocation that shows a small model filling the card (TGI, LMDeploy), a tensor-parallel size of 1 on
several GPUs (the model on one card), a quantized model's compute dtype that is no second format, and a card named
with the other vendor's prefix ("RTX 7900 XT")."""

from __future__ import annotations

import pytest
from asking import lead_of, planned_turn

from assistant.understanding import parse
from tools.catalog import resolve_gpu
from tools.diagnose import DiagnoseRequest, diagnose


@pytest.mark.parametrize(
    "question",
    [
        "3090 24G，16G内存，加载 qwen2.5-14b 的时候 Loading checkpoint shards 到 60% 就 Killed 了，是显卡不行吗",
        "我的A100 80G跑llama-2-70b，加载到一半进程被kill了，没有任何报错",
        "Loading checkpoint shards: 33% ... Killed. I have an RTX 4090 and 32GB RAM, trying to load mistral-7b in fp16",
        "Trying to run Llama-3-8B on my T4 in a VM, the process gets killed at shards 0%, exit code 137",
    ],
)
def test_a_kill_while_loading_is_read_as_its_own_symptom(question: str) -> None:
    q = parse(question)
    assert q.symptom == "killed"
    assert "diagnose" in q.intents


@pytest.mark.parametrize(
    ("question", "words"),
    [
        ("我的A100 80G跑llama-2-70b，加载到一半进程被kill了，没有任何报错", ["OOM killer", "系统内存"]),
        (
            "ubuntu，显卡4090，显存24G，加载模型：qwen2.5-14b，程序在加载模型中被kill了，是因为显存不够吗？",
            ["系统内存", "不是显存"],
        ),
        (
            "Loading checkpoint shards: 33% ... Killed. I have an RTX 4090, trying to load mistral-7b in fp16",
            ["OOM killer", "system RAM"],
        ),
    ],
)
def test_the_lead_of_a_kill_names_system_ram(question: str, words: list[str]) -> None:
    _, answer = planned_turn(question)
    lead = lead_of(answer)
    assert all(w in lead for w in words), lead


def test_a_kill_on_a_card_that_holds_the_model_clears_the_card() -> None:
    _, answer = planned_turn("Loading checkpoint shards: 33% ... Killed. I have an RTX 4090, trying to load mistral-7b")
    assert "The GPU is not the problem" in lead_of(answer, 2)


def test_a_kill_with_a_model_larger_than_the_card_says_it_does_not_fit_either() -> None:
    r = diagnose(DiagnoseRequest(symptom="killed", model="yi-34b", gpu="v100-sxm2-32gb", precision="bf16"))
    assert [c.id for c in r.causes][:2] == ["killed_system_ram", "does_not_fit"]


@pytest.mark.parametrize(
    ("question", "cause"),
    [
        (
            "Running TGI with mistral-7b on one L40S, nvidia-smi shows the GPU is full (45GB). Why so much memory?",
            "TGI",
        ),
        ("lmdeploy 跑 qwen2.5-7b，单张 A100 80G，显存为什么用了这么多，占了 70 多G", "LMDeploy"),
        ("lmdeploy serve qwen2.5-14b on an H100, why does it take so much memory?", "LMDeploy"),
    ],
)
def test_an_engine_that_preallocates_leads_with_its_kv_cache(question: str, cause: str) -> None:
    _, answer = planned_turn(question)
    lead = lead_of(answer)
    assert cause in lead and "KV cache" in lead, lead
    assert "tokens/s" not in lead  # no speed was asked about


@pytest.mark.parametrize(
    "question",
    [
        "4张3090，vllm 跑 qwen2.5-72b-awq，tensor_parallel_size=1，第一张卡显存一直涨直到溢出",
        "I have 4x A10G (24GB). vLLM with --tensor-parallel-size 1 on Llama-3.1-70B AWQ throws CUDA out of memory",
    ],
)
def test_a_tensor_parallel_size_of_one_on_several_gpus_is_no_split(question: str) -> None:
    q = parse(question)
    assert q.symptom == "oom"
    assert "tensor_parallel" not in q.diagnose_flags
    _, answer = planned_turn(question)
    assert "tensor-parallel-size" in lead_of(answer, 2)


def test_a_quantized_model_s_compute_dtype_is_no_second_format() -> None:
    q = parse("8*a100 40g, model='Qwen/Qwen-72B-Chat-Int4', dtype=torch.float16, tensor_parallel_size=1, 显存溢出")
    assert q.precisions_mentioned == ["int4"]
    q = parse("AWQ 版能跑，fp16 版 OOM，torch_dtype=torch.float16，两张 3090 跑 qwen2.5-32b")
    assert "fp16" in q.precisions_mentioned  # fp16 named on its own: a format the user tried


@pytest.mark.parametrize(
    ("name", "gpu"),
    [("RTX 7900 XT", "rx-7900-xt"), ("RX 4090", "rtx-4090"), ("RTX 7900XTX", "rx-7900-xtx"), ("GTX 3090", "rtx-3090")],
)
def test_a_card_named_with_the_other_family_prefix_resolves(name: str, gpu: str) -> None:
    assert resolve_gpu(name)[0].id == gpu


def test_the_xtx_suffix_is_read_after_an_rtx_prefix() -> None:
    assert parse("Can an RTX 7900 XTX run qwen2.5-32b at 4-bit?").gpu == "rx-7900-xtx"


@pytest.mark.parametrize(
    ("question", "first"),
    [
        ("4张3090跑qwen2.5-72b推理，一满载电脑直接重启，是什么原因", "crash_power"),
        ("My rig with 3x 4090 shuts down when I run llama-3.1-70b across all cards in vLLM", "crash_power"),
        ("P40 跑 qwen2.5-14b 用 vllm，启动就 segmentation fault (core dumped)", "crash_arch_old"),
        (
            "RTX 5090, vLLM serving llama-3.1-8b: CUDA error: no kernel image is available for execution",
            "crash_arch_new",
        ),
        ("My 3090 crashes with illegal memory access when running llama-3-8b in vllm", "crash_driver"),
        ("4090 跑 qwen2.5-7b 报 CUDA driver version is insufficient for CUDA runtime version", "crash_driver_named"),
    ],
)
def test_a_crash_names_the_likely_cause_for_that_hardware_first(question: str, first: str) -> None:
    q = parse(question)
    assert q.symptom == "crash"
    plan, answer = planned_turn(question)
    assert any(c.name == "diagnose" for c in plan.calls)
    r = diagnose(DiagnoseRequest(**next(c.args for c in plan.calls if c.name == "diagnose")))
    assert r.causes and r.causes[0].id == first, [c.id for c in r.causes]
    assert "tokens/s" not in lead_of(answer)  # a crash is no speed question


def test_a_several_card_rig_lists_the_power_supply_among_a_crash_s_causes() -> None:
    r = diagnose(DiagnoseRequest(symptom="crash", model="llama-3.1-70b", gpu="rtx-3090", num_gpus=4, precision="awq"))
    assert [c.id for c in r.causes] == ["crash_driver", "crash_multi_gpu_power"]


def test_a_blackwell_build_error_names_sm_120() -> None:
    r = diagnose(DiagnoseRequest(symptom="crash", gpu="rtx-5090"))
    assert "sm_120" in r.causes[0].why.render("en")


@pytest.mark.parametrize(
    ("question", "speed"),
    [
        ("Command R runs very slowly on my M2 Pro 32GB, about 1 token every 20-30 seconds", 0.05),
        ("M1 Max 64G 跑 qwen2.5-72b q4，每5秒才出一个字", 0.2),
    ],
)
def test_one_token_every_n_seconds_is_a_measured_speed(question: str, speed: float) -> None:
    assert parse(question).measured_speeds == [speed]


@pytest.mark.parametrize(
    ("question", "words"),
    [
        (
            "Running ollama with mixtral on my Macbook pro M1 Pro 32GB is incredibly slow",
            ["macOS lets the GPU use", "20.7"],
        ),
        ("My M3 Max 36GB runs qwen2.5-72b in ollama at 0.5 tok/s, why so slow?", ["macOS lets the GPU use", "26.2"]),
        ("M1 Max 32G 跑 llama3 70b 很慢，一秒不到一个字", ["macOS 允许 GPU 使用", "20.7"]),
    ],
)
def test_a_mac_whose_gpu_cannot_hold_the_model_leads_with_the_gpu_share(question: str, words: list[str]) -> None:
    _, answer = planned_turn(question)
    lead = lead_of(answer)
    assert all(w in lead for w in words), lead
    assert "iogpu.wired_limit_mb" in answer


@pytest.mark.parametrize(
    "question",
    [
        "Unable to get vLLM working with RTX 5090: RuntimeError: CUDA error: no kernel image is available",
        "P40 跑 qwen2.5-14b 用 vllm，启动就 segmentation fault (core dumped)",
    ],
)
def test_a_crash_under_a_named_engine_checks_that_the_engine_runs_on_the_card(question: str) -> None:
    plan, _ = planned_turn(question)
    names = [c.name for c in plan.calls]
    assert "check_support" in names and "diagnose" in names, names


def test_a_mac_measured_at_its_gpu_ceiling_is_not_told_the_model_spills() -> None:
    """R1 Q4 at 20 tokens/s on a 512 GB M3 Ultra: the GPU holds it (the wired limit was raised), so no spill cause."""
    r = diagnose(
        DiagnoseRequest(
            symptom="slow",
            model="deepseek-r1",
            gpu="apple-m3-ultra-512gb",
            precision="q4_k_m",
            measured_tokens_per_s=20,
        )
    )
    assert "mac_gpu_share" not in [c.id for c in r.causes]
