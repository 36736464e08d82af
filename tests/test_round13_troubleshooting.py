"""Round 13, troubleshooting questions read as a user:

- several GPUs and the run on one of them ("only one GPU is used", "只能在一张卡上运行", one card idle in
  nvidia-smi): the engine's default leads (vLLM without a tensor-parallel size, Ollama keeping a model that fits one
  card on one card by design, a layer split whose cards take turns), and the one card named is the symptom, not the
  user's count: the count is the cards a pasted command or nvidia-smi table lists;
- two runs told apart: the pasted command that fails on its visible cards with no split, beside another count that
  works with --tp;
- FP32 said as an engine flag (`--dtype float`, `torch_dtype=torch.float`), and Transformers' default FP32 load as
  the first suspect when a 16-bit job fits but the FP32 weights alone do not;
- a GGUF job that fits only with the card all but full: Ollama leaves the last layers in shared memory;
- wording: "insufficient memory" is an OOM, "surprisingly slow" is slow, "2080Ti which has 22GB memory" is its size.
"""

import pytest
from asking import lead_of, planned_turn

from assistant.toolset import ToolName
from assistant.understanding import parse


@pytest.mark.parametrize(
    ("text", "count"),
    [
        ("I have four 4090 GPUs. but, only one GPU is used.", 4),
        ("ollama only uses one of my two 3090s", 2),
        ("two A6000 but ollama doesn't use both GPUs", 2),
        ("vllm多卡启动显示成功，但是实际上只有一张显卡被占用 {'gpus': '0,1', 'num_gpus': 2}", 2),
        ("两张4090跑 qwen2.5:14b，只用了一张卡，另一张闲置", 2),
        ("CUDA_VISIBLE_DEVICES=0,1,2,3 vllm serve Qwen2.5-7B 只能在一张卡上运行", 4),
    ],
)
def test_a_run_stuck_on_one_of_several_cards_is_the_symptom_not_the_count(text, count) -> None:
    q = parse(text)
    assert q.symptom == "one_gpu_used", q
    assert q.num_gpus == count, q


def test_the_one_card_said_is_no_count_when_the_cards_are_not_listed() -> None:
    q = parse("vllm多卡启动，只用了一张卡 chatglm2-6b")
    assert q.symptom == "one_gpu_used"
    assert q.num_gpus is None  # "一张卡" is where it runs, not how many the user has


@pytest.mark.parametrize(
    ("text", "count"),
    [
        (
            "CUDA_VISIBLE_DEVICES=0,1,2,3,4 python3 -m vllm.entrypoints.openai.api_server --model Qwen1.5-72B-Chat "
            "只能在一张卡上运行 torch.cuda.OutOfMemoryError: CUDA out of memory.",
            5,
        ),
        (
            "lmdeploy 部署 DeepSeek-R1-Distill-Llama-70B，H100 两张卡 out of memory；4张卡加 --tp 4 就正常。\n"
            "CUDA_VISIBLE_DEVICES=3,4 lmdeploy serve api_server /models/DeepSeek-R1-Distill-Llama-70B",
            2,
        ),
        (
            "Qwen2.5-72B on A100 80G: OOM with two cards, fine on 4 GPUs with --tp 4.\n"
            "CUDA_VISIBLE_DEVICES=0,1 lmdeploy serve api_server Qwen/Qwen2.5-72B-Instruct",
            2,
        ),
    ],
)
def test_an_oom_on_the_pasted_commands_visible_cards_is_sized_on_them(text, count) -> None:
    q = parse(text)
    assert q.symptom == "oom"
    assert q.num_gpus == count, q
    assert "tensor_parallel" not in q.diagnose_flags  # another run's --tp is no setting of the failing command


def test_nvidia_smi_rows_are_the_users_cards() -> None:
    q = parse(
        "多卡推理很慢，一张卡利用率100%，另一张3%\n"
        "|   0  NVIDIA GeForce RTX 3090   Off | 20000MiB / 24576MiB | 3% |\n"
        "|   1  NVIDIA GeForce RTX 3090   Off | 18000MiB / 24576MiB | 100% |"
    )
    assert q.gpu_counts == {"rtx-3090": 2}
    assert q.num_gpus == 2


@pytest.mark.parametrize(
    ("text", "precision"),
    [
        ("vllm serve Qwen2-7B --dtype=float on a 4090: CUDA out of memory", "fp32"),
        ("vllm --dtype float 7B 4090 out of memory", "fp32"),
        ("from_pretrained(p, torch_dtype=torch.float) 在 3090 上爆显存", "fp32"),
        ("vllm --dtype half 7B 4090 OOM", None),
        ("from_pretrained(p, torch_dtype=torch.float16) 在 3090 上爆显存", "fp16"),
    ],
)
def test_float_as_an_engine_dtype_is_fp32(text, precision) -> None:
    assert parse(text).precision == precision


@pytest.mark.parametrize(
    ("text", "symptom"),
    [
        ("Two A40 GPUs, the model requires 70GB, vLLM reports insufficient memory", "oom"),
        ("qwen2.5:32b on my 2080 Ti 22G runs surprisingly slow with ollama", "slow"),
        ("my 4090 is unusually slow on llama3.1:8b", "slow"),
        ("I can't fully utilize my two 4090s with ollama", "low_util"),
        ("never able to get vLLM to fully utilize the GPUs on 2x A6000", "low_util"),
        ("I have not been able to ever get Ollama to fully utilize the two 3090s", "low_util"),
    ],
)
def test_more_wordings_of_a_problem(text, symptom) -> None:
    assert parse(text).symptom == symptom


def test_a_memory_said_of_the_card_is_its_size() -> None:
    q = parse("I used 2080Ti which has 22GB memory for run vllm, OOM")
    assert q.stated_capacity_gib == 22.0


def _diagnose_args(text: str) -> dict:
    plan, _ = planned_turn(text, traceable=False)
    return next(c.args for c in plan.calls if c.name == ToolName.DIAGNOSE)


@pytest.mark.parametrize(
    ("text", "words"),
    [
        (
            "I have two RTX 3090s but Ollama only uses one GPU when I run llama3.1:8b.",
            ("by design", "OLLAMA_SCHED_SPREAD"),
        ),
        ("ollama 跑 qwen2.5:14b，两张4090只用了一张卡，另一张闲置，怎么回事？", ("设计如此", "OLLAMA_SCHED_SPREAD")),
        ("Ollama on 4x A100 80GB doesn't use all the GPUs, only one GPU is used for qwen2.5:32b", ("by design",)),
        ("vllm serve Qwen/Qwen2.5-7B-Instruct on 4x A10G, but only GPU 0 is used", ("tensor_parallel_size",)),
        ("vllm 部署 Qwen2.5-14B-Instruct，四张 A100 只有一张显卡被占用，其他卡没用上", ("tensor_parallel_size",)),
        ("用 vLLM 起 Llama-3.1-8B 服务，两张 3090 只能在一张卡上运行，为什么？", ("tensor_parallel_size",)),
        (
            "两张 3090 用 transformers device_map=auto 推理 Qwen2.5-32B，一张卡使用率100%，另一张卡利用率为0，很慢",
            ("依次计算",),
        ),
    ],
)
def test_the_engines_default_leads_when_one_card_does_the_work(text, words) -> None:
    _, answer = planned_turn(text)
    lead = lead_of(answer, 2)
    assert all(w in lead for w in words), answer
    assert "well under that is not normal" not in lead and "明显低于这个速度就不正常" not in lead, answer


@pytest.mark.parametrize(
    ("text", "count"),
    [
        (
            "CUDA_VISIBLE_DEVICES=0,1,2,3 python -m vllm.entrypoints.openai.api_server --model "
            "meta-llama/Llama-3.1-70B-Instruct 只能在一张卡上运行，报 CUDA out of memory，卡是 A100 80G",
            4,
        ),
        (
            "CUDA_VISIBLE_DEVICES=0,1 python -m vllm.entrypoints.openai.api_server --model "
            "Qwen/Qwen2.5-72B-Instruct-AWQ on two RTX 4090, torch.cuda.OutOfMemoryError: CUDA out of memory, "
            "it only runs on one GPU",
            2,
        ),
        (
            "用 lmdeploy 部署 Qwen2.5-72B-Instruct，两张 A100 80G 会 out of memory，换成4张卡加 --tp 4 就正常了。\n"
            "CUDA_VISIBLE_DEVICES=0,1 lmdeploy serve api_server Qwen/Qwen2.5-72B-Instruct --server-port 8000",
            2,
        ),
    ],
)
def test_no_tensor_parallel_on_the_visible_cards_leads(text, count) -> None:
    assert _diagnose_args(text)["num_gpus"] == count
    _, answer = planned_turn(text)
    lead = lead_of(answer, 2)
    assert "--tensor-parallel-size" in lead or "--tp" in lead, answer
    assert "single GPU" in lead or "一张卡上" in lead, answer


@pytest.mark.parametrize(
    "text",
    [
        "用 transformers 加载 Qwen2-7B，4090 报 CUDA out of memory，24G 显存不够吗？",
        "Loading Mistral-7B with transformers on my RTX 3090 gives CUDA out of memory. Isn't 24GB enough for a 7B?",
        "transformers 推理 Llama-3.1-8B，A10 24G 一加载就 OOM，为什么？",
    ],
)
def test_transformers_default_fp32_leads_an_oom_the_16_bit_job_explains_not(text) -> None:
    _, answer = planned_turn(text)
    assert "fp32" in lead_of(answer, 2), answer


@pytest.mark.parametrize(
    ("text", "word"),
    [
        ("qwen2.5:32b on my 2080 Ti 22G with ollama is very slow, only part of it on the GPU", "shared memory"),
        ("2080ti 22g 用 ollama 跑 qwq:32b 特别慢，显存没占满，共享显存用了2G", "共享显存"),
        ("I run a 32b model with ollama on my 2080ti 22g, it is surprisingly slow", "shared memory"),
    ],
)
def test_a_gguf_job_that_fills_the_card_names_the_spill(text, word) -> None:
    _, answer = planned_turn(text)
    assert word in lead_of(answer, 2), answer


@pytest.mark.parametrize(
    ("text", "word"),
    [
        (
            "I have a 7900 XT. Models under 20GB load, but when the model exceeds 20GB it throws an error. "
            "Can a discrete card not use GTT memory like the integrated graphics does?",
            "GTT",
        ),
        ("7900 XTX 跑 32B 超过 24G 就报错，能不能用 GTT 内存？", "GTT"),
        ("A770 16G 模型超过16G就加载失败，GTT 没用上吗", "GTT"),
    ],
)
def test_gtt_on_a_discrete_card_leads_with_its_own_vram(text, word) -> None:
    q = parse(text)
    assert q.symptom == "oom" and "gtt" in q.diagnose_flags, q
    _, answer = planned_turn(text)
    lead = lead_of(answer, 2)
    assert word in lead and ("VRAM" in lead or "显存" in lead), answer
