"""Sizing on exactly the user's hardware (issue 19): the answer says yes or no on their cards first, and when the
job does not fit, the ways that make it fit there (a shorter context, a smaller format, their RAM) lead."""

from __future__ import annotations

import pytest
from asking import ask_checked, lead_of

from assistant.events import FinalEvent
from tools.capacity import CapacityRequest, largest_model
from tools.fit import FitRequest, fit_on_gpu
from tools.model_match import match_model
from tools.offload import OffloadRequest, estimate_offload
from tools.sizing import COUNTS, counts_for
from tools.vram import VramRequest, estimate_vram


def _ask(advisor, text: str) -> FinalEvent:
    return ask_checked(advisor, text)


def _lead(answer: str) -> str:
    return lead_of(answer)


# ---- names ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("typed", "want"),
    [
        ("Qwen-7B-Chat", "qwen1-7b"),
        ("Qwen/Qwen-72B-Chat-Int4", "qwen1-72b"),
        ("qwen_72B_int4", "qwen1-72b"),
        ("qwen72b-int4", "qwen1-72b"),
        ("Qwen-14B", "qwen1-14b"),
    ],
)
def test_a_qwen_name_without_a_generation_is_the_first_generation(typed: str, want: str) -> None:
    m = match_model(typed)
    assert m.arch.id == want and m.how == "registry"


def test_casual_qwen_names_and_sizes_qwen1_never_had_stay_current() -> None:
    assert match_model("qwen 7b").arch.id != "qwen1-7b"  # casual writing: today's Qwen, said so
    assert match_model("qwen-32b").arch.series != "qwen1"  # Qwen (1) had no 32B
    assert match_model("Qwen2-7B-Instruct").arch.id == "qwen2-7b"


# ---- the one fit rule, per engine -------------------------------------------------------------------------


def test_llama_cpp_splits_layers_over_any_number_of_cards() -> None:
    assert counts_for("llama.cpp")[:5] == (1, 2, 3, 4, 5) and counts_for("vllm") == COUNTS
    r = estimate_vram(VramRequest(model="deepseek-v3", precision="q4_k_m", gpu="h100-sxm"))
    assert r.fit is not None and r.fit.gpus_needed == 5  # 380 GiB over 77.6 GiB usable each: five, not eight


def test_a_gguf_layer_split_keeps_each_cards_own_kv_cache() -> None:
    r = estimate_vram(VramRequest(model="llama-2-70b", precision="q4_k_m", num_gpus=3))
    one = estimate_vram(VramRequest(model="llama-2-70b", precision="q4_k_m"))
    assert abs(r.per_gpu_breakdown_gib["kv_cache"] * 3 - one.per_gpu_breakdown_gib["kv_cache"]) < 1e-3
    assert "vram_tp_split" not in {w.code for w in r.warnings}  # llama.cpp has no tensor parallel to refuse


def test_bf16_on_a_card_without_it_says_fp16() -> None:
    r = estimate_vram(VramRequest(model="qwen2-72b", num_gpus=6, gpu="v100-sxm2-32gb"))
    assert "speed_no_bf16" in {w.code for w in r.warnings}


def test_fit_reports_the_published_weights_it_started_from() -> None:
    r = fit_on_gpu(FitRequest(model="baichuan-13b", gpu="rtx-2080-ti"))
    assert r.top_precision == "bf16" and r.top_weights_gib and r.top_weights_gib > 24
    assert "bf16" not in r.precisions_that_fit


# ---- offload: the RAM the user has, or the machine that holds it ------------------------------------------


def test_a_model_too_big_for_a_desktop_is_offloaded_on_a_machine_that_holds_it() -> None:
    r = estimate_offload(OffloadRequest(model="deepseek-v3", precision="q4_k_m"))
    assert r.ram.channels > 2  # 380 GiB does not go into a two-channel desktop


def test_ddr4_on_a_xeon_server_is_the_servers_ddr4() -> None:
    r = estimate_offload(
        OffloadRequest(
            model="deepseek-v3", gpu="rtx-4090", num_gpus=2, ram_gib=512, memory="ddr4", machine="old_server"
        )
    )
    assert r.ram.memory == "ddr4-2933" and r.ram.channels == 12
    assert r.decode_tokens_per_s < 15  # DDR4 bandwidth, not a 24-channel DDR5 server's


def test_capacity_names_a_dense_model_next_to_a_fast_moe_from_ram() -> None:
    r = largest_model(CapacityRequest(gpu="rtx-4090", ram_gib=64, ram_type="ddr4"))
    assert r.offload is not None and r.offload_dense is not None
    assert r.offload_dense.decode_tokens_per_s < r.offload.decode_tokens_per_s


# ---- answers -----------------------------------------------------------------------------------------------


def test_fits_only_at_a_shorter_context_is_a_yes_with_its_limit(advisor) -> None:
    final = _ask(advisor, "用两张3090可以跑起来qwen_72B_int4吗？")
    lead = _lead(final.answer)
    assert lead.startswith("**能") and "上下文" in lead and "tokens 以内" in lead
    assert all(c.args.get("model") != "qwen2.5-72b" for c in final.tool_calls)


def test_a_quantized_answer_says_the_published_weights_do_not_fit(advisor) -> None:
    final = _ask(advisor, "2080Ti显卡是否能跑起来Baichuan-13B")
    assert final.answer.startswith("**能") and "原版 bf16 放不下" in final.answer and "11 GiB" in final.answer


def test_more_cards_than_needed_says_how_many_hold_it(advisor) -> None:
    final = _ask(advisor, "I want to use 16 * A10 to inference Llama2-70B (fp16). Do you have some ideas?")
    assert "8 of the 16 already hold it" in final.answer


def test_each_hardware_option_is_answered(advisor) -> None:
    final = _ask(advisor, "我需要运行qwen2-72b-instruct，请问8张4090 或者 6张v100 能运行吗")
    sized = {(c.args.get("gpu"), c.args.get("num_gpus")) for c in final.tool_calls if c.name == "estimate_vram"}
    assert {("rtx-4090", 8), ("v100-sxm2-32gb", 6)} <= sized
    assert "FP16" in final.answer  # V100 has no BF16


def test_two_different_cards_in_one_machine_are_one_pool(advisor) -> None:
    final = _ask(advisor, "1张RTX5000ADA 32G+1张V100 32G能否运行qwen72b-int4，速度会如何")
    assert any(c.args.get("num_gpus") == 2 for c in final.tool_calls if c.name == "estimate_vram")
    assert "张量并行" in final.answer and "V100" in final.answer


def test_stated_ram_that_holds_the_model_leads_with_its_speed(advisor) -> None:
    final = _ask(
        advisor, "CPU 至强 x2块，内存 DDR4 32Gx16条=512G，显卡 RTX4090 24Gx2张，ollama 跑 deepseekv3 每秒多少tokens"
    )
    lead = _lead(final.answer)
    assert "tokens/s" in lead and "内存" in lead


def test_a_card_named_only_by_its_size_gets_the_format_that_fits(advisor) -> None:
    final = _ask(advisor, "is it possible to run a quantized version of mixtral 8x7b on a single 24gb GPU?")
    assert final.answer.startswith("**Yes, at 3-bit")


def test_a_model_no_common_card_holds_says_what_ram_alone_would_do(advisor) -> None:
    final = _ask(advisor, "ollama部署deepseek-V3需要多少显存呢")
    assert any(c.name == "estimate_offload" for c in final.tool_calls)
    assert "fp8" in final.answer and "内存" in final.answer
