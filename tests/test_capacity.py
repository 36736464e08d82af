"""largest_model: the biggest model given GPUs run or fine-tune, and the capacity question type that answers
"我只有一张 3060 12G，能跑多大的模型？" with it. Expected ranges come from arithmetic in the comments, not from
the tool's output."""

from __future__ import annotations

import itertools
import time

import pytest
from asking import planned_turn
from pydantic import ValidationError

from assistant.capabilities.capacity import capacity_lines
from assistant.language_check import check
from assistant.planner.plan import make_plan
from assistant.scenario import Scenario
from assistant.strings import Writer
from assistant.toolset import ToolName
from assistant.understanding import parse
from tools.capacity import CapacityRequest, CapacityResult, _cached, largest_model
from tools.errors import AdvisorError
from tools.models import registry
from tools.vram import VramRequest, estimate_vram


def _way(r: CapacityResult, way: str):
    return next(w for w in r.ways if w.way == way)


def _sizes(**req) -> dict[str, float]:
    return {w.way: w.max_params_b_exact or 0.0 for w in largest_model(CapacityRequest(**req)).ways}


# ---- the tool -------------------------------------------------------------------------------------------


def test_one_3060_12gb_runs_a_14b_class_model_at_4_bit():
    r = largest_model(CapacityRequest(gpu="3060 12G"))
    # llama.cpp keeps 3% of 12 GiB: 11.6 GiB usable. Q4_K_M is ~4.9 bits = 0.61 B/param: a 12B model is 6.9 GiB of
    # weights + ~1.5 GiB of 8k KV cache + ~1.3 GiB buffers and CUDA context = ~9.7 GiB (fits); a 20B model's
    # weights alone are 11.4 GiB (does not).
    four = _way(r, "4bit")
    assert four.precision == "q4_k_m" and four.engine == "llama.cpp"
    assert 12 <= four.max_params_b <= 20
    # Q8_0 is 8.5 bits = 1.06 B/param: 11.6 GiB holds at most ~11B of weights, less KV and buffers: 6-11B.
    assert 6 <= _way(r, "8bit").max_params_b <= 11
    # 16-bit is 2 B/param: at most 6.2B of weights in 11.6 GiB; 3-6B with the cache and buffers.
    assert 3 <= _way(r, "16bit").max_params_b <= 6
    assert [w.way for w in r.ways] == ["4bit", "8bit", "16bit", "qlora"]  # the largest first, then fine-tuning
    assert r.context_tokens == 8192  # one person's local chat (advice.md §2)


def test_every_example_is_a_registry_model_checked_with_estimate_vram():
    r = largest_model(CapacityRequest(gpu="3060 12G"))
    for way in r.ways:
        assert 1 <= len(way.examples) <= 3
        families = [registry()[e.model_id].family for e in way.examples]
        assert len(set(families)) == len(families)  # one per family
        for e in way.examples:
            assert e.params_b <= way.max_params_b_exact * 1.5
            again = estimate_vram(
                VramRequest(
                    model=e.model_id,
                    mode=way.mode,
                    precision=way.precision,
                    context_tokens=r.context_tokens if way.mode == "inference" else r.sequence_tokens,
                    grad_checkpointing=way.mode != "inference",
                )
            )
            assert again.per_gpu_gib == e.per_gpu_gib <= way.usable_gib_per_gpu
    assert _way(r, "4bit").examples[0].params_b > 13  # a 14B-class model leads (Qwen3-14B, Phi-4 ...)


@pytest.mark.parametrize(
    "req",
    [
        {"vram_gib": 4, "precision": "int4"},
        {"vram_gib": 2},
        {"vram_gib": 6, "precision": "int4"},
        {"gpu": "rtx-3090", "mode": "qlora"},
        {"vram_gib": 8, "family": "qwen"},
    ],
)
def test_the_stated_limit_is_never_below_an_example_that_fits(req: dict) -> None:
    """ "4-bit max about 0.4B (e.g. Qwen2.5-0.5B)" contradicts itself: a real model that fits (GQA, tied embeddings
    make it smaller than the generic shape solved) raises the limit to its own size, as its name says it."""
    r = largest_model(CapacityRequest(**req))
    for way in r.ways:
        for e in way.examples:
            assert way.max_params_b_exact is not None and e.params_b <= way.max_params_b_exact + 1e-9
        if way.examples:
            top = max(e.params_b for e in way.examples)
            assert way.max_params_b is not None and way.max_params_b >= round(top, 1) - 0.1


def test_four_t4s_serve_a_70b_class_model_at_4_bit():
    r = largest_model(CapacityRequest(gpu="Tesla T4", num_gpus=4, engine="vllm"))
    # vLLM keeps 10% back: 4 x 14.4 = 57.6 GiB. AWQ is ~4.16 bits plus 16-bit embeddings, ~0.52 B/param: 70B is
    # ~34 GiB of weights + 1.25 GiB of 4k KV cache, split four ways with buffers: ~10.5 GiB per card (fits); the
    # weights alone cap it near 57.6 / 0.52 = 110B.
    four = _way(r, "4bit")
    assert four.precision == "awq" and 70 <= four.max_params_b <= 115
    assert any(e.params_b >= 65 for e in four.examples)
    # T4 (Turing) has no BF16 and no FP8: 16-bit is FP16, 8-bit is INT8 weight-only
    assert _way(r, "16bit").precision == "fp16" and _way(r, "8bit").precision == "int8_wo"
    assert "capacity_no_bf16" in {n.code for n in r.warnings}


def test_two_3090s_qlora_a_30b_class_model():
    r = largest_model(CapacityRequest(gpu="3090", num_gpus=2, mode="finetune"))
    # 2 x 24 GiB x 0.9 = 43.2 GiB. NF4 with double quantization is 4.127 bits (~0.52 B/param with 16-bit
    # embeddings): a 32B base is ~17 GiB, halved by ZeRO-3 to ~8.5 GiB per card, plus checkpointed activations
    # of 2,048 tokens, ~3 GiB of logits and the adapters' states: ~14 GiB of 21.6 usable. Fits.
    assert _way(r, "qlora").max_params_b >= 30
    # full fine-tuning is ~16 B/param (AdamW, fp32 master and states): 43.2 GiB holds under 3B
    assert _way(r, "full").max_params_b < 3 < _way(r, "lora").max_params_b
    assert [w.way for w in r.ways] == ["qlora", "lora", "full"]  # no method named: the biggest first


def test_the_method_named_leads():
    r = largest_model(CapacityRequest(gpu="A100 80G", num_gpus=8, mode="full"))
    assert r.ways[0].way == "full" and r.ways[0].asked
    assert "capacity_zero3" in {n.code for n in r.assumptions}


@pytest.mark.parametrize("mode", ["inference", "finetune"])
def test_more_gpus_never_hold_a_smaller_model(mode):
    one, two, four = (_sizes(gpu="3090", num_gpus=n, mode=mode) for n in (1, 2, 4))
    for way in one:
        assert one[way] <= two[way] * 1.02 and two[way] <= four[way] * 1.02, way


def test_more_memory_never_holds_a_smaller_model():
    sizes = [_sizes(vram_gib=g) for g in (8, 12, 16, 24, 48, 80)]
    for small, big in itertools.pairwise(sizes):
        for way in small:
            assert small[way] <= big[way] * 1.02, way


def test_a_card_size_is_sized_like_a_card_of_that_size():
    # a 24 GB card and an RTX 3090 (24 GiB, llama.cpp formats) are the same sum
    assert _sizes(vram_gib=24)["4bit"] == pytest.approx(_sizes(gpu="3090")["4bit"], rel=0.02)
    r = largest_model(CapacityRequest(vram_gib=8, family="llama"))
    assert r.gpu is None and "capacity_card_size" in {n.code for n in r.assumptions}
    assert all(registry()[e.model_id].family == "llama" for w in r.ways for e in w.examples)
    # 8 GiB x 0.97 = 7.8 GiB: Llama-3.1-8B at Q4_K_M (4.6 GiB of weights + 1 GiB of 8k cache) fits
    assert "llama-3.1-8b" in {e.model_id for e in _way(r, "4bit").examples}


def test_an_unknown_family_says_so_and_names_other_models():
    r = largest_model(CapacityRequest(gpu="4090", family="florbix"))
    assert "capacity_family_unknown" in {n.code for n in r.assumptions}
    assert _way(r, "4bit").examples


def test_stated_ram_times_a_bigger_model_with_cpu_offload():
    r = largest_model(CapacityRequest(gpu="4090", ram_gib=64, ram_type="ddr4"))
    o = r.offload
    assert o is not None and o.fits_in_ram and o.strategy != "gpu_only"
    assert o.in_ram_gib > 0 and o.decode_tokens_per_s > 0
    assert registry()[_id_of(o.model)].params / 1e9 > _way(r, "4bit").max_params_b_exact


def _id_of(name: str) -> str:
    return next(a.id for a in registry().values() if a.name == name)


def test_requests_name_one_card_and_a_base_that_suits_the_method():
    with pytest.raises(ValidationError):
        CapacityRequest()
    with pytest.raises(ValidationError):
        CapacityRequest(gpu="4090", vram_gib=24)
    with pytest.raises(AdvisorError):
        largest_model(CapacityRequest(gpu="4090", mode="lora", precision="awq"))
    with pytest.raises(AdvisorError):
        largest_model(CapacityRequest(gpu="H1000"))


def test_a_fresh_question_is_answered_well_under_a_second():
    _cached.cache_clear()
    start = time.perf_counter()
    largest_model(CapacityRequest(gpu="H100", num_gpus=8, ram_gib=512))
    largest_model(CapacityRequest(gpu="3090", num_gpus=2, mode="finetune"))
    assert time.perf_counter() - start < 1.0


REQUESTS = [
    dict(gpu="3060 12G"),
    dict(gpu="T4", num_gpus=4, engine="vllm"),
    dict(gpu="3090", num_gpus=2, mode="finetune"),
    dict(gpu="4090", ram_gib=64, ram_type="ddr4"),
    dict(vram_gib=8, family="llama"),
    dict(gpu="M2 Ultra", mode="lora"),
    dict(gpu="4090", family="florbix", precision="awq"),
]


@pytest.mark.parametrize("req", REQUESTS)
@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_answer_and_its_notes_read_in_one_language(req, lang):
    r = largest_model(CapacityRequest(**req))
    for n in [*r.assumptions, *r.warnings]:
        assert not check(n.render(lang), lang), (n.code, n.render(lang))
    w = Writer(lang)
    capacity_lines(w, r)
    assert not check(w.text(), lang), [str(v) for v in check(w.text(), lang)]


# ---- the question type ----------------------------------------------------------------------------------


def _turn(question: str, previous: Scenario | None = None):
    return planned_turn(question, previous)


def _largest_calls(plan) -> list[dict]:
    return [c.args for c in plan.calls if c.name == ToolName.LARGEST_MODEL]


def test_a_chinese_question_about_one_card_leads_with_the_sizes():
    plan, answer = _turn("我只有一张 3060 12G，能跑多大的模型？")
    assert plan.intents == ["capacity"]
    assert _largest_calls(plan) == [{"gpu": "rtx-3060-12gb", "num_gpus": 1, "mode": "inference"}]
    lead = answer.split("\n")[0]
    assert lead.startswith("一张 NVIDIA GeForce RTX 3060 12GB：4-bit（Q4_K_M）最大约 ")
    assert "8-bit（Q8_0）约" in lead and "BF16 约" in lead and "QLoRA 微调最大约" in lead
    assert not check(answer, "zh")


def test_an_english_question_about_old_server_cards_leads_with_the_sizes():
    plan, answer = _turn("Got 4x Tesla T4 from an old server, what's the biggest model I can serve with them?")
    assert plan.intents == ["capacity"]
    assert _largest_calls(plan) == [{"gpu": "t4", "num_gpus": 4, "mode": "inference", "engine": "vllm"}]
    assert answer.startswith("4 × NVIDIA T4 (64 GB in all): 4-bit (AWQ) up to about ")
    assert not check(answer, "en")


def test_two_hardware_options_are_each_answered():
    plan, answer = _turn("2x 3090 or one 4090 — which model sizes can each train?")
    assert plan.intents == ["capacity"]
    assert _largest_calls(plan) == [
        {"gpu": "rtx-3090", "num_gpus": 2, "mode": "finetune"},
        {"gpu": "rtx-4090", "num_gpus": 1, "mode": "finetune"},
    ]
    first, second = answer.split("\n\n")[:2]
    assert first.startswith("2 × NVIDIA GeForce RTX 3090 (48 GB in all): QLoRA fine-tuning up to about ")
    # a name that states no memory is said with it (the memory sets every size after it)
    assert second.startswith("One NVIDIA GeForce RTX 4090 (24 GB): QLoRA fine-tuning up to about ")


def test_a_fine_tuning_question_in_chinese_leads_with_the_biggest_method():
    plan, answer = _turn("双卡 4090 最大能微调多大的模型？")
    assert _largest_calls(plan) == [{"gpu": "rtx-4090", "num_gpus": 2, "mode": "finetune"}]
    assert answer.startswith("2 张 NVIDIA GeForce RTX 4090（共 48 GB）：QLoRA 微调最大约 ")
    assert "assumed_lora" not in plan.notes  # every method is sized: none was assumed


@pytest.mark.parametrize(
    ("question", "args"),
    [
        ("Does 8GB able to run smallest llama model?", {"vram_gib": 8.0, "family": "llama"}),
        ("24G 显存能跑什么模型？", {"vram_gib": 24.0}),
        ("Which model can run on RTX 4090 24GB + DDR4 64GB?", {"gpu": "rtx-4090", "ram_gib": 64.0, "ram_type": "ddr4"}),
    ],
)
def test_card_sizes_families_and_ram_reach_the_tool(question, args):
    plan, _ = _turn(question)
    assert plan.intents == ["capacity"]
    (call,) = _largest_calls(plan)
    assert args.items() <= call.items()


def test_a_named_model_stays_a_fit_question_and_no_hardware_asks_for_it():
    plan = make_plan(parse("4090 能跑 Qwen2.5-32B 吗？"), Scenario())
    assert "capacity" not in plan.intents and not _largest_calls(plan)
    plan = make_plan(parse("What is the biggest model I can run?"), Scenario())
    assert plan.intents == ["capacity"] and plan.ask == "need_gpu"


def test_a_follow_up_changes_the_count_and_keeps_the_question():
    plan, _ = _turn("我只有一张 3060 12G，能跑多大的模型？")
    follow, answer = _turn("那两张呢？", plan.scenario)
    assert _largest_calls(follow) == [{"gpu": "rtx-3060-12gb", "num_gpus": 2, "mode": "inference"}]
    assert answer.startswith("2 张 NVIDIA GeForce RTX 3060 12GB（共 24 GB）：")
