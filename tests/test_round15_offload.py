"""Round 15 (issue 20, item 5: CPU, RAM and offload), one test per kind, each with variations written for this round
(other wording, hardware, model and language than the wild cases of evals/wild/*_fit_offload_r8.yaml):

- a model that fits a card named by its size only below 4 bits: the 4-bit file split with RAM (its tokens/s) leads,
  then a smaller model whole on the card, and the 2-bit file last with its quality cost (capabilities/memory.py);
- a model named beside the machine's RAM and no GPU: that RAM's verdict leads (understanding/ram_only.py), "no" with
  the RAM it needs, what that RAM holds, and the offload arithmetic in the assumptions (tools/offload.py);
- "is N GB of RAM enough ... on CPU only?": yes/no on that RAM first (capabilities/ram.py), the CPU-vs-GPU part after;
- the RAM stated is short for the 4-bit split beside the cards: said first, then the lower level that fits it;
- "move layers to system RAM / low VRAM mode" on a card: how -ngl / num_gpu splits, and models with their tokens/s;
- parsing: "256GB DRAM", "内存只有256G", "my system RAM is", "q4km", "on a CPU", a file quantized from f16;
- a card known only by its size is timed as the slowest discrete card of that size, never a Jetson module.
"""

import re

import pytest
from asking import ask_checked

from assistant.understanding import parse
from evals.runner import lead_of
from tools.offload import OffloadRequest, estimate_offload

_SPEED = re.compile(r"\d+(?:\.\d+)?\s*\*{0,2}\s*(?:tokens?/s|tok/s)")


@pytest.mark.parametrize(
    ("text", "smaller"),
    [
        ("deepseek-r1:32b on a 16 GB card?", "14B"),
        ("16G显存能跑 qwen2.5 32b 吗", "14B"),
        ("Can I run Qwen2.5-32B on a 16gb GPU with 32gb of ram?", "14B"),
        ("一张 16G 的卡跑 QwQ-32B 行不行", "B"),
        ("Can Qwen3-32B run on a 16GB GPU?", "B"),
    ],
)
def test_a_two_bit_squeeze_comes_last_after_the_split_and_a_smaller_model(advisor, text, smaller) -> None:
    final = ask_checked(advisor, text, consistent=True)
    answer = final.answer
    lead = lead_of(answer)
    assert _SPEED.search(lead), answer  # the 4-bit split with its tokens/s leads
    assert "Q2_K" not in lead and "2-bit" not in lead, answer
    head = answer.split("Assumptions")[0].split("计算假设")[0]
    two_bit = head.find("2-bit")
    smaller_at = head.find(smaller, head.find("tokens/s"))
    assert smaller_at > 0, answer  # a smaller model that fits whole is offered
    assert two_bit < 0 or two_bit > smaller_at, answer  # the 2-bit file, if named, after it


@pytest.mark.parametrize(
    ("text", "no"),
    [
        ("Running a 70B model with 16GB of RAM, is that possible?", "No"),
        ("I only have 32GB RAM. Can I run Llama 3.3 70B?", "No"),
        ("16G内存能运行 deepseek-r1:32b 吗", "放不下"),
        ("电脑内存只有16G，想跑 qwen2.5 32b，可以吗", "放不下"),
        ("my system RAM is only 8GB, can I run mistral 7b at fp16?", "No"),
    ],
)
def test_a_model_against_the_ram_stated_and_no_gpu_leads_with_that_ram(advisor, text, no) -> None:
    final = ask_checked(advisor, text, consistent=True)
    lead = lead_of(final.answer)
    assert no in lead, final.answer
    assert "GiB" in lead, final.answer  # the RAM it needs
    assert "GPU" not in lead.split("CPU")[0][:40] or "no" in lead.lower(), final.answer


@pytest.mark.parametrize(
    ("text", "holds"),
    [
        ("Running a 70B model with 16GB of RAM, is that possible?", "What 16 GB of RAM does hold"),
        ("电脑内存只有16G，想跑 qwen2.5 32b，可以吗", "16G 内存放得下的"),
    ],
)
def test_a_short_ram_names_what_it_does_hold_and_the_arithmetic(advisor, text, holds) -> None:
    final = ask_checked(advisor, text, consistent=True)
    assert holds in final.answer, final.answer
    assert "MT/s" in final.answer, final.answer  # channels × transfer rate
    assert "ms" in final.answer and ("per token" in final.answer or "每个 token" in final.answer), final.answer


@pytest.mark.parametrize(
    ("text", "yes"),
    [
        ("Is 64GB RAM enough to run Qwen2.5 32B on CPU only? DDR5 dual channel", "Yes, 64 GB"),
        ("Is 128GB of RAM enough for Llama 3.3 70B on the CPU only?", "Yes, 128 GB"),
        ("Is 16GB RAM enough to run Qwen2.5 32B on CPU only?", "No, 16 GB"),
    ],
)
def test_is_this_ram_enough_is_answered_on_that_ram_first(advisor, text, yes) -> None:
    final = ask_checked(advisor, text, consistent=True)
    lead = lead_of(final.answer)
    assert yes in lead, final.answer
    assert "dedicated GPU is not required" not in lead, final.answer


@pytest.mark.parametrize(
    "text",
    [
        "Deepseek R1 on 96G VRAM but only 256GB DRAM? I have 2 L40S. Possible with ktransformers?",
        "两张A6000，内存只有256G，能用 ktransformers 跑 deepseek r1 吗",
        "DeepSeek-V3 on two RTX 6000 Ada (96GB VRAM total) and 256GB RAM, can ktransformers run it?",
    ],
)
def test_a_short_ram_beside_the_cards_says_so_then_the_level_that_fits(advisor, text) -> None:
    final = ask_checked(advisor, text, consistent=True)
    lead = lead_of(final.answer)
    assert "Q4_K_M" in lead and ("No" in lead or "放不下" in lead), final.answer
    assert "Q3_K_M" in final.answer or "Q2_K" in final.answer, final.answer


@pytest.mark.parametrize(
    ("text", "flag"),
    [
        ("Low VRAM mode? My 12GB RTX 3060 runs 7B fine. Any way to move model layers to system RAM?", "-ngl"),
        ("I have an 8GB RTX 4060. Can ollama offload layers to system RAM for bigger models?", "num_gpu"),
        ("我的 3060 12G 显存小，ollama 能不能把一部分层卸载到内存跑更大的模型？", "-ngl"),
    ],
)
def test_moving_layers_to_ram_on_a_card_explains_the_split_with_models(advisor, text, flag) -> None:
    final = ask_checked(advisor, text, consistent=True)
    assert flag in final.answer, final.answer
    assert len(_SPEED.findall(final.answer)) >= 2, final.answer  # each example model with its tokens/s


@pytest.mark.parametrize(
    ("text", "ram"),
    [
        ("Deepseek R1 on 96G VRAM but only 256GB DRAM?", 256.0),
        ("两张4090，内存只有256G，能跑 deepseek v3 吗", 256.0),
        ("my system RAM is only 32GB, can I run qwen 32b", 32.0),
        ("Server: 2x L40, 512 GB DRAM, 64 cores", 512.0),
        ("内存仅有64G，显卡3060", 64.0),
    ],
)
def test_ram_said_in_other_words_is_read(text, ram) -> None:
    assert parse(text).ram_gib == ram


@pytest.mark.parametrize(
    ("text", "precision"),
    [
        ("跑dp-r1-q4km，能运行吗", "q4_k_m"),
        ("llama 3 70b q5km on two 3090", "q5_k_m"),
        ("qwen2.5 32b Q4KS 16G显存", "q4_k_s"),
        ("I quantized ggml-model-f16.bin of the 65B to q4_0, is 32GB of RAM enough?", "q4_0"),
        ("把 fp16 的 qwen2.5 32b 量化成 q4_k_m 以后 24G 显存够吗", "q4_k_m"),
        ("I converted llama 3 8b from bf16 to int8, will it fit a 12GB card?", "int8"),
    ],
)
def test_the_quantized_file_is_the_format_sized(text, precision) -> None:
    assert parse(text).precision == precision


def test_dp_r1_is_deepseek_r1_and_on_a_cpu_asks_for_offload() -> None:
    assert parse("跑dp-r1-q4km，能运行吗").model == "deepseek-r1"
    assert "offload" in parse("How well does LLaMA-65B perform on a CPU?").intents
    assert parse("deepseek-r1 32b on a 16gb gpu with 32gb ram").intents[0] != "catalog"


def test_a_card_known_by_its_size_is_timed_as_a_discrete_card() -> None:
    r = estimate_offload(OffloadRequest(model="qwen2.5-32b", vram_gib=16))
    assert r.gpu_only_tokens_per_s and r.gpu_only_tokens_per_s > 6  # a 4060 Ti's 288 GB/s, not a Jetson's 102
    codes = [a.code for a in r.assumptions]
    assert "offload_decode_time" in codes


def test_a_forced_layer_split_of_a_model_that_fits_needs_no_split() -> None:
    r = estimate_offload(OffloadRequest(model="qwen2.5-7b", gpu="rtx-3090", strategy="layers"))
    assert r.strategy == "gpu_only" and r.in_ram_gib == 0


@pytest.mark.parametrize(
    ("req", "code"),
    [
        (OffloadRequest(model="qwen2.5-32b", strategy="cpu", ram_gib=64), "offload_decode_time_cpu"),
        (OffloadRequest(model="deepseek-r1", gpu="rtx-4090", ram_gib=512, precision="q4_k_m"), "offload_decode_time"),
        (OffloadRequest(model="llama-3.1-70b", gpu="rtx-3060-12gb", memory="ddr4", channels=2), "offload_decode_time"),
    ],
)
def test_the_decode_arithmetic_adds_up_to_the_figure(req, code) -> None:
    r = estimate_offload(req)
    timing = next(a for a in r.assumptions if a.code == code)
    assert abs(timing.params["tps"] - r.decode_tokens_per_s) < 0.02
    ram = next(a for a in r.assumptions if a.code.startswith("offload_ram_"))
    assert ram.params["peak"] == pytest.approx(ram.params["mt_s"] * 8 * ram.params["channels"] / 1000)
