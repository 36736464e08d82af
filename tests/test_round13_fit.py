"""Round 13 (wild, fit), questions read as a user:

- different cards in one machine ("3090 + 3060 12G") are sized as a layer split in proportion to each card's memory
  (llama.cpp --tensor-split): the calculators take a per-card list (`gpu_mix`) and the verdict is on the memory
  they add up to, not on twice the smaller card;
"""

import pytest
from asking import ask_checked, lead_of

from tools.capacity import CapacityRequest, largest_model
from tools.fit import FitRequest, fit_on_gpu
from tools.offload import OffloadRequest, estimate_offload
from tools.vram import VramRequest, estimate_vram

# ---- different cards in one machine -----------------------------------------------------------------------------


def test_a_mix_of_cards_fits_on_the_memory_they_add_up_to() -> None:
    mix = ["rtx 3060 12gb", "rtx 3090"]
    alike = estimate_vram(VramRequest(model="gemma-3-27b", precision="q8_0", num_gpus=2, gpu="rtx 3060 12gb"))
    mixed = estimate_vram(
        VramRequest(model="gemma-3-27b", precision="q8_0", num_gpus=2, gpu="rtx 3060 12gb", gpu_mix=mix)
    )
    assert alike.fit is not None and not alike.fit.fits  # two 12 GB cards do not hold a 27B at 8 bits
    assert mixed.fit is not None and mixed.fit.fits
    assert mixed.fit.usable_gib_total is not None and 34 < mixed.fit.usable_gib_total < 36  # (12 + 24) x 97%
    assert len(mixed.fit.mixed_gpus) == 2


def test_a_mix_of_cards_in_the_reverse_calculators() -> None:
    mix = ["rtx 3080 10gb", "2080 ti 22gb"]
    fit = fit_on_gpu(FitRequest(model="qwen2.5-32b", gpu="rtx 3080 10gb", num_gpus=2, gpu_mix=mix))
    alike = fit_on_gpu(FitRequest(model="qwen2.5-32b", gpu="rtx 3080 10gb", num_gpus=2))
    assert fit.usable_gib_per_gpu > alike.usable_gib_per_gpu + 5
    cap = largest_model(CapacityRequest(gpu="rtx 3080 10gb", num_gpus=2, gpu_mix=mix, with_finetune=False))
    assert cap.total_gib == 32 and len(cap.mixed_gpus) == 2
    off = estimate_offload(
        OffloadRequest(model="qwen3-next-80b-a3b", precision="q4_k_m", gpu="rtx 3080 10gb", num_gpus=2, gpu_mix=mix)
    )
    assert off.gpu_gib_available > 25 and len(off.mixed_gpus) == 2


def test_a_wrong_count_or_one_model_is_no_mix() -> None:
    r = estimate_vram(VramRequest(model="qwen2.5-14b", num_gpus=3, gpu="rtx 3090", gpu_mix=["rtx 3090", "rtx 3060"]))
    assert r.fit is not None and r.fit.mixed_gpus == []


@pytest.mark.parametrize(
    ("text", "fits", "total"),
    [
        ("我有一张3090和一张3060 12G，两张卡一起跑 Gemma-3-27B 的 Q8_0 能行吗？", True, "34.92"),
        ("RTX 3090 + RTX 3060 12GB in one box: will gemma 3 27b at q8_0 fit across both?", True, "34.92"),
        ("一张 4060 Ti 8G 加一张 3060 12G，能跑 Qwen2.5-14B 的 Q8_0 吗", True, "19.4"),
        ("I have a 4060 Ti 8GB and a 3060 12GB in the same PC, can I run Qwen2.5-14B Q8_0?", True, "19.4"),
        ("4090 加一张 3060 12G 能跑 Qwen2.5-72B Q4_K_M 吗", False, "34.92"),
    ],
)
def test_mixed_cards_lead_with_their_memory_together(advisor, text, fits, total) -> None:
    final = ask_checked(advisor, text, consistent=True)
    lead = lead_of(final.answer)
    assert total in lead, final.answer
    verdict = ("可以" in lead or "Yes" in lead) if fits else ("放不下" in lead or "No" in lead)
    assert verdict, final.answer
    sized = [c.args for c in final.tool_calls if c.name in ("estimate_vram", "fit_on_gpu")]
    assert sized and all(len(a.get("gpu_mix", [])) == 2 for a in sized), sized


def test_mixed_cards_with_an_offload_name_both_cards(advisor) -> None:
    final = ask_checked(
        advisor,
        "如何同时使用NVIDIA的3080 10g和2080ti 22g以及CPU？ Qwen3-Next-80B-A3B-Instruct-UD-Q4_K_M",
        consistent=True,
    )
    lead = lead_of(final.answer)
    assert "31.04" in lead and "2080 Ti" in lead, final.answer
    assert "共 20 GB" not in final.answer and "共 32 GB" in final.answer, final.answer


# ---- "supported to run" a model on a card is a fit question -----------------------------------------------------


@pytest.mark.parametrize(
    ("text", "yes"),
    [
        ("Will M2 ultra be supported to use LLM of 100B paras? M2 ultra (maybe 192G), over 100B parameters.", "Yes"),
        ("Does the RTX 3060 12GB support running a 13B model?", "Yes"),
        ("3060 12G 支持 13B 的模型吗", "可以"),
        ("M2 Ultra 192G 支持跑 100B 参数的大模型吗？", "可以"),
    ],
)
def test_a_card_supported_for_a_model_size_is_sized_on_it(advisor, text, yes) -> None:
    final = ask_checked(advisor, text, consistent=True)
    assert any(c.name in ("estimate_vram", "fit_on_gpu") and c.args.get("gpu") for c in final.tool_calls), final.answer
    assert lead_of(final.answer).lstrip("*").startswith(yes), final.answer


def test_software_named_beside_a_card_stays_a_support_question(advisor) -> None:
    final = ask_checked(advisor, "vLLM 支持在 P40 上跑 Qwen2.5-7B 吗", consistent=True)
    assert final.tool_calls[0].name == "check_support", final.tool_calls


# ---- a card size named as "48GB of video memory" / "48G 显存上" --------------------------------------------------


@pytest.mark.parametrize(
    ("text", "size"),
    [
        ("can DeepSeek-R1:32B or QwQ-32B run with 48GB of video memory", 48.0),
        ("Can Qwen2.5-32B run with 24GB of video memory?", 24.0),
        ("QwQ-32B 在 48G 显存上能跑吗", 48.0),
        ("Qwen2.5-72B 在 24G显存下能跑吗", 24.0),
    ],
)
def test_a_card_size_with_a_memory_word_is_the_card_asked_about(text, size) -> None:
    from assistant.understanding import parse

    assert parse(text).stated_capacity_gib == size


def test_a_size_needed_is_no_card_size() -> None:
    from assistant.understanding import parse

    assert parse("QwQ-32B 需要 48G 显存吗").stated_capacity_gib is None


def test_several_models_against_a_named_size_each_get_a_verdict(advisor) -> None:
    text = (
        "My computer has an integrated graphics card. If I purchase a new Intel graphics card (with larger memory), "
        "can I infer larger models? (For example: DeepSeek-R1:32B, Or QwQ-32B, can these two models run with 48GB "
        "of video memory"
    )
    final = ask_checked(advisor, text, consistent=True)
    lead = lead_of(final.answer)
    assert "not required" not in lead and ("fits 48 GB" in lead or "fits a 48 GB" in lead), final.answer
    assert "QwQ-32B" in final.answer and "fits 48 GB" in final.answer, final.answer


# ---- registry names ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "model_id"),
    [
        ("GLM-4.5V-FP8", "glm-4.5v"),
        ("glm-4.5v", "glm-4.5v"),
        ("GPT-NeoXT-Chat-Base-20B", "gpt-neox-20b"),
        ("togethercomputer/GPT-NeoXT-Chat-Base-20B", "gpt-neox-20b"),
    ],
)
def test_registry_names(name, model_id) -> None:
    from tools.model_match import match_model

    assert match_model(name).arch.id == model_id


def test_glm45v_fp8_is_sized_as_the_air_not_the_355b(advisor) -> None:
    final = ask_checked(advisor, "运行GLM-4.5V-FP8的最小GPU内存是多少？单卡A100 80G 放得下吗", consistent=True)
    lead = lead_of(final.answer)
    assert "GLM-4.5V" in lead and "放不下" in lead and "100" in lead and "330" not in final.answer, final.answer


# ---- a size with its unit letter typed twice ("32BB") -------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "model_id"),
    [
        ("A770 Gpu * 2kpl can be used？ i want to use deepseek 32BB", "deepseek-r1-distill-qwen-32b"),
        ("我想跑 qwen 14bb，3060 12G 够吗", "qwen3-14b"),
        ("Can a 4090 run llama 70BB at 4-bit?", "llama-3.3-70b"),
    ],
)
def test_a_doubled_billion_letter_is_still_the_size(text, model_id) -> None:
    from assistant.understanding import parse

    assert parse(text).model == model_id
