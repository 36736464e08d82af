"""Fine-tuning answers: the multi-GPU layout (DDP when one card holds the job, ZeRO-3 / FSDP when it does not),
RL memory (tools/rl.py), hours to train from a dataset, and the training lines of the offline planner."""

from __future__ import annotations

import uuid

import pytest

from assistant.planner.plan import make_plan
from assistant.scenario import Scenario
from assistant.toolset import ToolName
from assistant.understanding import parse
from tools.rl import RlRequest, estimate_rl
from tools.speed import SpeedRequest, estimate_speed
from tools.vram import VramRequest, estimate_vram


def _vram(**kw):
    return estimate_vram(VramRequest(grad_checkpointing=True, context_tokens=2048, **kw))


def test_a_lora_that_fits_one_card_runs_plain_data_parallel_on_several():
    # Llama-3.1-8B LoRA at 2k is 19.3 GiB: each of 4 x 4090 holds a copy (DDP), not a quarter of it
    one = _vram(model="llama-3.1-8b", mode="lora", gpu="rtx-4090")
    four = _vram(model="llama-3.1-8b", mode="lora", gpu="rtx-4090", num_gpus=4)
    assert four.zero_stage == 0 and four.per_gpu_gib == pytest.approx(one.per_gpu_gib)
    note = next(a for a in four.assumptions if a.code == "vram_ddp_fits_one")
    assert note.params["sharded"] < four.per_gpu_gib  # what ZeRO-3 would cut it to is said


def test_a_job_one_card_cannot_hold_is_sharded_and_says_so():
    r = _vram(model="llama-3-70b", mode="qlora", gpu="a10g", num_gpus=4)
    assert r.zero_stage == 3 and r.fit is not None and r.fit.fits
    note = next(a for a in r.assumptions if a.code == "vram_sharded_only_qlora")
    assert note.params["one"] > r.fit.usable_gib_per_gpu  # plain QLoRA per process would not fit one A10G
    gptq = _vram(model="llama-3-70b", mode="qlora", precision="gptq", gpu="a10g", num_gpus=4)
    assert any(w.code == "vram_qlora_prequantized_sharding" for w in gptq.warnings)


def test_a_stated_zero_stage_is_kept():
    r = _vram(model="qwen1.5-14b", mode="lora", precision="fp16", gpu="rtx-3090", num_gpus=8, zero_stage=2)
    assert r.zero_stage == 2 and r.fit is not None and not r.fit.fits  # ZeRO-2 keeps the whole fp16 model per card


def test_rl_adds_reference_and_rollout_and_lora_moves_the_rollout_to_its_own_card():
    full = estimate_rl(RlRequest(params_b=7, algorithm="grpo", method="full", gpu="rtx-3090", num_gpus=4))
    assert set(full.parts_gib) == {"policy", "reference", "rollout"} and full.fits is False
    assert full.per_gpu_gib == pytest.approx(sum(full.parts_gib.values()), abs=0.02)
    lora = estimate_rl(RlRequest(params_b=7, algorithm="grpo", method="lora", gpu="rtx-3090", num_gpus=4))
    assert lora.layout == "separate_rollout" and lora.fits and "reference" not in lora.parts_gib
    ppo = estimate_rl(RlRequest(model="qwen2.5-7b", algorithm="ppo", method="full", gpu="a100-80gb-sxm", num_gpus=8))
    assert {"critic", "reward"} <= set(ppo.parts_gib)
    dpo = estimate_rl(RlRequest(model="qwen2.5-7b", algorithm="dpo", method="full"))
    assert "rollout" not in dpo.parts_gib and dpo.fits is None


def test_hours_to_train_come_from_tokens_not_samples():
    # the expert's arithmetic: 1M samples x 550 tokens on one H100, LoRA 13B: ~6,300 tokens/s, about a day
    r = estimate_speed(
        SpeedRequest(
            model="llama-2-13b",
            gpu="h100-sxm",
            mode="training",
            method="lora",
            context_tokens=550,
            grad_checkpointing=True,
            dataset_samples=1_000_000,
            sample_tokens=550,
        )
    )
    assert r.tokens_to_train == 550_000_000
    assert 20 < (r.time_to_train_hours or 0) < 30
    assumed = estimate_speed(
        SpeedRequest(model="llama-2-13b", gpu="h100-sxm", mode="training", method="lora", dataset_samples=1000)
    )
    assert any(a.code == "speed_dataset_tokens_assumed" for a in assumed.assumptions)


def _plan(text: str, previous: Scenario | None = None):
    return make_plan(parse(text), previous or Scenario())


def test_a_training_oom_is_sized_on_the_users_cards_not_diagnosed():
    plan = _plan("4张3090卡使用qLora微调Qwen-14b，报错显存不够")
    assert "fit" in plan.intents and "diagnose" not in plan.intents
    vram = [c for c in plan.calls if c.name == ToolName.ESTIMATE_VRAM]
    assert vram[0].args["mode"] == "qlora" and vram[0].args["num_gpus"] == 4
    # the settings that make a run OOM although 2k fits: a longer sequence, no gradient checkpointing
    assert any(c.args.get("context_tokens") == 8192 for c in vram)
    assert any(c.args.get("grad_checkpointing") is False for c in vram)


def test_an_rl_question_plans_the_rl_estimator():
    plan = _plan("What is the minimum VRAM for reinforcement learning of a 7B? Is 4x RTX 3090 sufficient?")
    assert plan.intents[0] == "rl"
    methods = [c.args["method"] for c in plan.calls if c.name == ToolName.ESTIMATE_RL]
    assert methods == ["full", "lora"]


@pytest.fixture(scope="module")
def advisor():
    from assistant.advisor import Advisor

    return Advisor()


def _ask(advisor, *questions: str):
    session = f"t-{uuid.uuid4().hex[:8]}"
    return [advisor.ask(session, q) for q in questions]


def test_a_follow_up_with_the_sample_length_keeps_the_scenario_and_gives_hours(advisor):
    _first, second = _ask(
        advisor,
        "I have a chat dataset with about 1 million samples. On an H100, how long will fine-tuning llama 2 13b take?",
        "My sample size is probably 5-6 hundred tokens",
    )
    speed = [c for c in second.tool_calls if c.name == "estimate_speed"]
    assert speed and speed[-1].args["dataset_samples"] == 1_000_000 and speed[-1].args["sample_tokens"] == 550
    assert "hours" in second.answer.split("\n")[0]


def test_a_quoted_memory_figure_is_confirmed_or_corrected_first(advisor):
    (final,) = _ask(
        advisor, "Full fine-tuning Llama 3.1 70B requires 300 GB of memory? I expected around 500 GB or more."
    )
    lead = final.answer.split("\n")[0]
    assert "300 GB is too low" in lead and "16 bytes per parameter" in lead
    assert not final.grounding.untraceable


def test_is_n_cards_the_minimum_answers_the_count(advisor):
    (final,) = _ask(advisor, "Do I need 8 A100 minimum to fine-tune a 70B?")
    assert final.answer.startswith("**No, 8 × NVIDIA A100 80GB SXM4 is not the minimum**")


def test_a_bare_size_in_a_follow_up_stays_in_the_family():
    previous = Scenario(model="llama-3-8b", mode="lora", last_intents=["memory"])
    plan = _plan("那我3090应该也没问题吧。24GB可以调70b模型吗？", previous)
    vram = next(c for c in plan.calls if c.name == ToolName.ESTIMATE_VRAM)
    assert vram.args["model"] == "llama-3-70b"


def test_a_card_size_asked_about_leads_with_each_method_and_no_untraceable_usable_figure(advisor):
    (zh,) = _ask(
        advisor, "微调 Qwen2.5-0.5B 最低需要什么显卡？（比如 6GB 够不够）如果显存不够，可以用 LoRA + 4bit 吗？"
    )
    assert zh.answer.startswith("**可以，用 QLoRA 或 LoRA**") and "6G 显存的卡" in zh.answer.split("\n")[0]
    assert not zh.grounding.untraceable
    (en,) = _ask(advisor, "What's the minimum GPU to fine-tune Llama 3.2 3B? Would 8GB be enough?")
    assert en.answer.startswith("**Yes, with QLoRA**")


def test_no_method_fitting_as_configured_but_unsloth_qlora_fitting_is_only_just(advisor):
    # GLM-4-9B QLoRA at 2k needs 11.2 GiB with the default unfused loss; fused + 8-bit AdamW it is under 10.8
    (zh,) = _ask(advisor, "想用 LoRA 微调 glm4-9b，12g显存够吗")
    assert zh.answer.startswith("**勉强可以：只有按 Unsloth 的方式做 QLoRA") and "序列 2,048 tokens" in zh.answer
    (en,) = _ask(advisor, "Can my 4090 fine-tune qwen2.5-32b?")
    lead = en.answer.split("\n")[0]
    assert lead.startswith("**Only just: QLoRA the Unsloth way") and "1,024-token" in lead
    (none,) = _ask(advisor, "Can my 4090 fine-tune llama 3 70b?")
    assert none.answer.startswith("**No, not with any method**")


def test_an_oom_under_zero2_on_new_cards_after_a_sizing_leads_with_zero3(advisor):
    _first, second = _ask(
        advisor,
        "How much memory do I need for fully finetuning BaiChuan-7B/13B? My device: 3 V100 32G",
        "I use 8 V100 32G but encounter CUDA out of memory. I use deepspeed Zero-2 and per_device_train_batch_size=1.",
    )
    assert any(c.name == "estimate_vram" and c.args.get("zero_stage") == 2 for c in second.tool_calls)
    lead = second.answer.split("\n")[0]
    assert "ZeRO-3" in lead and "ZeRO-2 keeps a whole copy" in lead
    assert "256 ×" not in second.answer  # a count under ZeRO-2 is not presented as ZeRO-3's


def test_a_bare_size_in_a_new_question_after_a_model_stays_in_its_series(advisor):
    _first, second = _ask(
        advisor, "我想微调 llama3 8b，要几张卡、多久、花多少钱？", "那我3090应该也没问题吧。24GB可以调70b模型吗？"
    )
    assert any(c.args.get("model") == "llama-3-70b" and c.args.get("gpu") == "rtx-3090" for c in second.tool_calls)
    assert second.answer.startswith("**不行")


def test_a_card_never_sold_is_read_as_the_card_it_extends_and_said_so(advisor):
    (final,) = _ask(advisor, "我只有两块24G的4090ti，能微调 qwen2.5-14b 吗")
    assert any(c.args.get("gpu") == "rtx-4090" for c in final.tool_calls)
    assert "没有 4090ti 这款卡" in final.answer


def test_zero_offload_is_not_offered_on_unified_memory(advisor):
    (final,) = _ask(advisor, "Can I fine-tune Llama 3 8B on my MacBook Pro M3 Max 64GB?")
    assert "ZeRO-Offload" not in final.answer.split("\n")[0]


def test_a_micro_batch_over_one_is_cut_first_with_gradient_accumulation(advisor):
    (final,) = _ask(advisor, "qwen2.5-3b lora，4090，batch size 16，2048 长度，放得下吗")
    assert final.answer.startswith("**能，改用 micro-batch 1、梯度累积 16 步")
    (en,) = _ask(
        advisor, "OOM fine-tuning Llama-3-8B with LoRA on a 24GB 3090, seq length 4096, batch size 4. What to change?"
    )
    assert "micro-batch 1 with gradient accumulation 4" in en.answer


def test_a_sharded_full_fine_tune_just_short_offloads_the_optimizer_first(advisor):
    (final,) = _ask(
        advisor, "What hardware do I need to full fine-tune Llama 3 70B? Would 2 nodes of 8xH100 be enough?"
    )
    assert any(c.args.get("num_gpus") == 16 for c in final.tool_calls)
    assert final.answer.startswith("**Yes — with the optimizer states offloaded to CPU RAM")


def test_the_ram_a_zero_offload_run_takes_leads_and_no_model_is_run_from_ram(advisor):
    (final,) = _ask(advisor, "全参训练 qwen2.5-7b 用 zero3 offload，需要多少内存？")
    assert final.answer.startswith("**CPU 卸载**")
    assert not any(c.name == "estimate_offload" for c in final.tool_calls)
