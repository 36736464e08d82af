"""Conversation state in follow-ups (issue 19, round 6): an offload engine (ktransformers) and the user's machine
carry to "换成 3090 呢"; a card named after a purchase recommendation is checked for that workload; an engine named
beside "the biggest model" shapes the sizes instead of replacing the question."""

from __future__ import annotations

import uuid

import pytest

from assistant.events import FinalEvent


def _turns(advisor, *texts: str) -> list[FinalEvent]:
    sid = f"t-{uuid.uuid4().hex[:8]}"
    out = [advisor.ask(sid, t) for t in texts]
    assert all(isinstance(f, FinalEvent) for f in out)
    return out  # type: ignore[return-value]


def _calls(final: FinalEvent, name: str) -> list[dict]:
    return [c.args for c in final.tool_calls if c.name == name]


@pytest.mark.parametrize(
    ("first", "second", "gpu"),
    [
        ("用 ktransformers 在一张 4090 + 512G 内存上跑 DeepSeek-R1 能多快", "换成 3090 呢", "rtx-3090"),
        ("ktransformers 跑 DeepSeek-V3，一张 3090 配 384G DDR4 内存，速度大概多少", "那换 4090 呢", "rtx-4090"),
        (
            "How fast is DeepSeek-R1 with ktransformers on one RTX 4090 and 512GB DDR5?",
            "what about a 3090 instead?",
            "rtx-3090",
        ),
    ],
)
def test_a_card_swapped_under_ktransformers_is_still_one_card_and_ram(advisor, first, second, gpu):
    _, follow = _turns(advisor, first, second)
    lead = follow.answer.split("\n")[0]
    assert "ktransformers" in lead and ("tokens/s" in lead)
    assert all(a.get("num_gpus") == 1 for a in _calls(follow, "estimate_offload") if a.get("gpu") == gpu)
    assert not any(a.get("num_gpus") == 8 for a in _calls(follow, "estimate_vram")), "no 8-GPU server table"


def test_more_cards_under_ktransformers_answer_that_machine(advisor):
    _, follow = _turns(advisor, "ktransformers 能在 4090 上跑 DeepSeek-R1 吗，内存 384G", "用 2 张 4090 能快多少")
    assert any(a.get("num_gpus") == 2 and a.get("gpu") == "rtx-4090" for a in _calls(follow, "estimate_offload"))
    assert "32 张" not in follow.answer.split("\n")[0]


def test_another_engine_named_drops_the_offload_engine(advisor):
    _, follow = _turns(
        advisor, "With ktransformers on a 3090 and 512GB RAM, how fast is DeepSeek-R1?", "what about with vLLM instead?"
    )
    assert "ktransformers" not in follow.answer.split("\n")[0]


@pytest.mark.parametrize(
    ("first", "second", "model", "gpu", "n"),
    [
        ("我用vLLM部署，买什么卡跑Qwen2.5-14B", "那3090能跑吗？", "qwen2.5-14b", "rtx-3090", 1),
        (
            "I deploy with vLLM. Which GPU should I buy to run Qwen2.5-14B?",
            "can a 3090 run it?",
            "qwen2.5-14b",
            "rtx-3090",
            1,
        ),
        ("用 Ollama 跑 Qwen2.5-32B，买什么显卡好", "4060Ti 16G 可以吗", "qwen2.5-32b", "rtx-4060-ti-16gb", 1),
        ("ollama 跑 qwen2.5:32b 要什么卡", "两张 3060 能跑吗", "qwen2.5-32b", "rtx-3060-12gb", 2),
        (
            "Which GPU should I buy for Qwen2.5-32B with Ollama?",
            "is a 4060 Ti 16GB enough?",
            "qwen2.5-32b",
            "rtx-4060-ti-16gb",
            1,
        ),
        (
            "What GPU should I buy to serve Llama 3.1 8B in FP16 at 32k context?",
            "would a 4080 work?",
            "llama-3.1-8b",
            "rtx-4080",
            1,
        ),
    ],
)
def test_a_card_named_after_a_recommendation_is_checked_for_that_model(advisor, first, second, model, gpu, n):
    _, follow = _turns(advisor, first, second)
    checked = _calls(follow, "fit_on_gpu")
    assert checked and checked[0]["model"] == model and checked[0]["gpu"] == gpu and checked[0]["num_gpus"] == n
    assert not _calls(follow, "recommend_gpus") and not _calls(follow, "largest_model")


def test_the_engine_and_context_of_the_recommendation_carry_to_the_card_checked(advisor):
    _, follow = _turns(
        advisor, "What GPU should I buy to serve Llama 3.1 8B in FP16 at 32k context?", "would a 4080 work?"
    )
    (args,) = _calls(follow, "fit_on_gpu")
    assert args["context_tokens"] == 32768 and args.get("precision") == "fp16"
    _, follow = _turns(advisor, "我用vLLM部署，买什么卡跑Qwen2.5-14B", "那3090能跑吗？")
    (args,) = _calls(follow, "fit_on_gpu")
    assert args.get("engine") == "vllm"


def test_a_training_method_carries_to_the_card_checked(advisor):
    _, follow = _turns(advisor, "Which GPU should I buy for QLoRA fine-tuning Llama 3.1 8B?", "is a 3060 12GB enough?")
    assert any(a.get("mode") == "qlora" and a.get("gpu") == "rtx-3060-12gb" for a in _calls(follow, "estimate_vram"))


@pytest.mark.parametrize("second", ["两张 3060 呢", "what about a used 3090?"])
def test_what_about_a_card_after_a_recommendation_asks_the_purchase_of_it(advisor, second):
    _, follow = _turns(advisor, "ollama 跑 qwen2.5:32b 要什么卡", second)
    assert _calls(follow, "recommend_gpus") and not _calls(follow, "fit_on_gpu")


def test_a_new_budget_after_a_recommendation_still_recommends(advisor):
    _, follow = _turns(advisor, "买什么卡跑 Qwen2.5-14B", "预算 8000，能买到更好的吗")
    assert _calls(follow, "recommend_gpus") and not _calls(follow, "fit_on_gpu")


@pytest.mark.parametrize(
    ("text", "engine_word"),
    [
        ("I use vLLM. What's the biggest model I can run on a 4090?", "vLLM"),
        ("我用 vLLM，4090 最大能跑多大的模型", "vLLM"),
        ("I run SGLang. Biggest model that fits on two 3090s?", "SGLang"),
        ("用 Ollama 的话 4060 Ti 16G 能跑的最大模型是多少", "Ollama"),
    ],
)
def test_an_engine_beside_the_biggest_model_shapes_the_sizes(advisor, text, engine_word):
    (final,) = _turns(advisor, text)
    assert not _calls(final, "check_support")
    lead = final.answer.split("\n")[0]
    assert engine_word in lead and ("34B" in lead or "B" in lead)
    assert "QLoRA" not in final.answer.split("\n\n")[0]  # a serving engine: no fine-tuning size asked for


def test_an_engine_short_of_support_still_leads(advisor):
    (final,) = _turns(advisor, "I use vLLM. What is the biggest model I can run on a V100?")
    assert _calls(final, "check_support") and _calls(final, "largest_model")
    assert final.answer.startswith("**With a caveat") or final.answer.startswith("**No")
