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
