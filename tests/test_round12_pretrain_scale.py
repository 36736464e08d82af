"""Round 12 (fine-tuning): a pretraining run's time is planned by compute. The hours come with their 6·N·D arithmetic
and the MFU assumed; a run far past a month on the cards its memory needs leads, when the user counted no cards,
with the cards that finish it in about a month; servers counted instead of cards ("4台 A800 机器") are 8 cards each."""

import pytest
from asking import ask_checked, lead_of

from tools.speed import SpeedRequest, estimate_speed


def test_a_long_run_says_the_cards_that_finish_it_in_about_a_month() -> None:
    r = estimate_speed(
        SpeedRequest(
            params_b=7,
            gpu="h100-sxm",
            num_gpus=2,
            mode="training",
            context_tokens=2048,
            grad_checkpointing=True,
            training_tokens=2e12,
        )
    )
    assert r.training_flops == pytest.approx(r.tokens_to_train * 8.2 * 7e9, rel=0.05)  # 6ND + recompute + attention
    assert r.training_mfu == 0.5 and r.peak_tflops == pytest.approx(989.5)
    assert r.scale_out_gpus is not None and r.scale_out_gpus % 8 == 0  # whole 8-GPU servers past one
    assert 20 <= (r.scale_out_days or 0) <= 30  # about a month, not past it
    assert r.gpu_hours_to_train / r.scale_out_gpus / 24 <= 30


def test_a_run_of_a_few_weeks_is_not_scaled_out() -> None:
    r = estimate_speed(
        SpeedRequest(
            model="glm-130b",
            gpu="a100-40gb-sxm",
            num_gpus=768,
            mode="training",
            context_tokens=2048,
            training_tokens=4e11,
        )
    )
    assert r.time_to_train_days and r.time_to_train_days < 60 and r.scale_out_gpus is None


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("预训练一个7B模型，2T tokens，需要多少张H100，多长时间？", "张 NVIDIA H100"),
        ("How many A100s and how long to pretrain a 3B model on 600B tokens?", "× NVIDIA A100"),
        ("[OpenBMB/MiniCPM] 请教一下你们预训练用了1.1T tokens，花了多少GPU和时间", "卡时"),
    ],
)
def test_pretraining_with_no_count_leads_with_the_cards_for_about_a_month(advisor, text, says) -> None:
    final = ask_checked(advisor, text, consistent=True)
    lead = lead_of(final.answer)
    assert says in lead and ("一个月" in lead or "about a month" in lead), final.answer
    assert "6·N·D" in final.answer and "MFU" in final.answer, final.answer


@pytest.mark.parametrize(
    "text",
    [
        "[zai-org/GLM-130B] Based on a cluster of 96 NVIDIA DGX-A100 (8X40G), how long it will take training from "
        "scratch?",
        "我们有3台H800服务器，从零预训练一个13B模型，1T tokens 要多少天",
    ],
)
def test_servers_counted_are_timed_on_all_their_cards(advisor, text) -> None:
    final = ask_checked(advisor, text, consistent=True)
    lead = lead_of(final.answer)
    assert ("768" in lead or "24 张" in lead) and ("days" in lead or "天" in lead), final.answer
    assert "6·N·D" in final.answer, final.answer


def test_a_stated_count_keeps_the_hours_on_it_first(advisor) -> None:
    final = ask_checked(advisor, "我有 8 张 H100，从零预训练 13B 模型 1T tokens 要多久", consistent=True)
    lead = lead_of(final.answer)
    assert "8 张" in lead and "训练约需" in lead, final.answer
    assert "一个月左右" in final.answer  # the cards for about a month follow the hours on theirs


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("[QwenLM/Qwen] 全量微调 72B 需要多少资源呢", "需要的卡"),
        ("How much GPU do I need to full fine-tune a 70B model?", "The cards it needs"),
    ],
)
def test_a_training_job_no_card_holds_asked_in_resources_leads_with_the_count(advisor, text, says) -> None:
    final = ask_checked(advisor, text, consistent=True)
    assert lead_of(final.answer).startswith(f"**{says}"), final.answer


def test_asked_in_memory_words_the_figure_keeps_the_lead(advisor) -> None:
    final = ask_checked(advisor, "全参微调 70B 需要多少显存", consistent=True)
    assert "需要的卡" not in lead_of(final.answer), final.answer


@pytest.mark.parametrize(
    ("question", "zero"),
    [
        ("用 MiniMind 训练一个 26M 的小模型，数据 1000 万 tokens，笔记本 4060 8G 要多久", "约需 0 小时"),
        ("How long to train MiniMind2-Small on 10M tokens on one RTX 4060?", "About 0 hours"),
    ],
)
def test_a_run_under_an_hour_never_reads_zero_hours(advisor, question: str, zero: str) -> None:
    answer = ask_checked(advisor, question).answer
    assert zero not in answer
    assert "0.0" in lead_of(answer)  # two significant figures of an hour: "0.04"
