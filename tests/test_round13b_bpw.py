"""Round 13b, a weight format written as its bits per weight, and an engine run over several GPUs:

- "4.65bpw", "70B exl2 at 2.55 bpw", "3.5 bits per weight", "每权重 2.5 位", "5.0bpw h8" and GGUF i-quants
  (IQ2_XXS ... IQ4_XS) are formats the calculators size (tools/precision.py), the parser reads
  (assistant/understanding/bits_per_weight.py) and the answer names ("at 4.65 bits per weight");
- "two 3090s, does ExLlamaV2 do dual GPU?": check_support on several GPUs says how the engine splits a model
  (knowledge/data/support.yaml `multi_gpu`, with sources).
"""

import pytest
from asking import ask_checked, lead_of

from assistant.understanding import parse
from tools.errors import AdvisorError
from tools.models import resolve_model
from tools.precision import effective_bits, resolve_precision, weight_bytes
from tools.support import SupportRequest, check_support

GIB = 2**30


@pytest.mark.parametrize(
    ("name", "bits", "head"),
    [("4.65bpw", 4.65, 6), ("exl2-2.55bpw", 2.55, 6), ("5.0bpw_h8", 5.0, 8), ("3.5 bpw", 3.5, 6)],
)
def test_a_bits_per_weight_name_resolves_to_that_bitrate(name, bits, head) -> None:
    p = resolve_precision(name)
    assert p.bits == pytest.approx(bits)
    assert p.head_bits == head
    assert p.applies_to == "blocks"


@pytest.mark.parametrize(("bpw", "low", "high"), [("4.65bpw", 37.0, 38.5), ("2.55bpw", 20.5, 21.5)])
def test_llama2_70b_weights_at_a_bitrate_match_params_times_bpw(bpw, low, high) -> None:
    arch, _ = resolve_model("llama-2-70b")
    gib = weight_bytes(arch, resolve_precision(bpw)) / GIB
    assert low <= gib <= high  # 68.98B x bpw / 8, plus the fp16 embeddings and the 6-bit head


def test_a_bitrate_outside_quantized_files_is_refused_and_named_formats_stay() -> None:
    with pytest.raises(AdvisorError):
        resolve_precision("12bpw")
    assert resolve_precision("awq").bits == pytest.approx(4.15625)
    assert resolve_precision("4bit").name == "nf4"  # a whole bit width is still the named format


@pytest.mark.parametrize(
    ("ftype", "low", "high"),
    [("iq2_xxs", 2.0, 2.3), ("iq3_m", 3.5, 4.0), ("iq4_xs", 4.2, 4.5), ("iq1_s", 1.5, 1.8)],
)
def test_gguf_i_quants_size_near_their_published_bpw(ftype, low, high) -> None:
    arch, _ = resolve_model("llama-3.1-70b")
    assert low <= effective_bits(arch, resolve_precision(ftype)) <= high


@pytest.mark.parametrize(
    ("text", "precision"),
    [
        ("Can I run Llama-3-70B at 4.65bpw exl2 on two 3090s?", "4.65bpw"),
        ("Will a 70B exl2 at 2.55 bpw fit on a single 4090?", "2.55bpw"),
        ("Mixtral 8x7B at 3.5 bits per weight on a 24GB card?", "3.5bpw"),
        ("Llama 3 70B 5.0bpw h8 on 2x 3090", "5bpw_h8"),
        ("70B 的 exl2 4.65bpw 两张 3090 能跑吗", "4.65bpw"),
        ("Qwen2.5-72B 量化到 3.4 bit，单张 4090 能放下吗", "3.4bpw"),  # not "4 bit" (int4)
        ("Qwen2.5-72B 每权重 2.5 位 能放进一张 3090 吗", "2.5bpw"),
        ("Qwen2.5-32B IQ4_XS on a 4060 Ti 16GB?", "iq4_xs"),
        ("Llama-3-70B 用 IQ3_M，48G 显存够吗", "iq3_m"),
    ],
)
def test_the_parser_reads_a_bitrate_or_an_i_quant_as_the_precision(text, precision) -> None:
    assert parse(text).precision == precision


def test_the_bitrate_digits_are_no_model_size() -> None:
    assert parse("Llama 3 70B 5.0bpw h8 on 2x 3090").model == "llama-3-70b"


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("Can I run Llama-3-70B at 4.65bpw exl2 on two 3090s?", "4.65 bits per weight"),
        ("Qwen2.5-14B 量化到 3.5 bit，单张 4060 Ti 16GB 能放下吗", "每权重 3.5 位"),
    ],
)
def test_the_verdict_names_the_bitrate_in_the_users_words(advisor, text, said) -> None:
    final = ask_checked(advisor, text)
    assert said in lead_of(final.answer, 2), final.answer


@pytest.mark.parametrize(
    ("engine", "n", "said"),
    [("exllamav2", 2, "--gpu_split"), ("llama.cpp", 2, "--tensor-split"), ("vllm", 4, "--tensor-parallel-size 4")],
)
def test_support_on_several_gpus_says_how_the_engine_splits_a_model(engine, n, said) -> None:
    r = check_support(SupportRequest(engine=engine, gpu="rtx-3090", num_gpus=n))
    assert r.verdict == "yes"
    assert any(said in w.text for w in r.why)
    one = check_support(SupportRequest(engine=engine, gpu="rtx-3090"))
    assert not any(said in w.text for w in one.why)  # one card: nothing to split


def test_a_bitrate_is_no_unknown_format_to_the_support_check() -> None:
    r = check_support(SupportRequest(engine="exllamav2", gpu="rtx-3090", precision="4.65bpw"))
    assert not any(a.code == "sup_precision_unknown" for a in r.assumptions)


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("I have two 3090s, does ExLlamaV2 support dual GPU?", "--gpu_split"),
        ("我有两张 3090，ExLlamaV2 支持双卡吗", "--gpu_split"),
        ("两张 4090 用 llama.cpp 能多卡跑吗", "--tensor-split"),
        ("Ollama 在 2 张 3060 12G 上能一起用吗", "CUDA_VISIBLE_DEVICES"),
    ],
)
def test_asking_about_dual_gpu_gets_how(advisor, text, said) -> None:
    final = ask_checked(advisor, text)
    assert said in final.answer, final.answer
