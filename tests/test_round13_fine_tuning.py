"""Round 13, fine-tuning and small pre-training questions read as a user:

- a plain "训练 / train" of a tiny model (a size in millions, a bare size under 1B, a from-scratch codebase such as
  nanoGPT or MiniMind) is a run from scratch: full training, never LoRA (understanding/small_train.py);
- a pre-training run's card recommendation offers no adapter method, and "GPT" as the architecture trained is not
  the OpenAI API;
- "vram cost" / "memory cost" is a memory question, not a price;
- OpenLLaMA (openlm-research/open_llama) is in the registry: "llama 3B_v2" in its repository is OpenLLaMA-3B-v2;
- a bare GTX number with a card word ("1050的显卡") is the card; a card size that holds the run says yes first;
- a run from scratch that fits says how its batch grows (batch_size, gradient accumulation);
- a language model trained in a LLaVA-style framework: the figures are its part, the vision encoder comes on top.
"""

import pytest
from asking import ask_checked, lead_of

from assistant.understanding import parse

OPEN_LLAMA_ISSUE = (
    "[openlm-research/open_llama] fine-tune vram cost\nIf I want to fine-tune llama 3B_v2, how much vram will I need?"
)


@pytest.mark.parametrize(
    ("text", "params_b", "model"),
    [
        ("训练一个 26M 小模型需要什么显卡", 0.026, None),
        ("我想训练一个 50M 参数的模型，3060 要多久", 0.05, None),
        ("I want to train a 124M GPT on a 4090, how long?", 0.124, None),
        ("Can my RTX3060 train nanoGPT?", None, "gpt2"),
        ("[karpathy/nanoGPT] Can my RTX3060 train the model code? There is no good graphics card", None, "gpt2"),
        ("nanoGPT 用 4060 训练要多久", None, "gpt2"),
        ("24G 能预训练一个 100M 的模型吗", 0.1, None),
    ],
)
def test_a_plain_training_of_a_tiny_model_is_a_full_run_from_scratch(text, params_b, model) -> None:
    q = parse(text)
    assert q.pretrain and q.mode == "full", q
    assert "lora" not in q.jobs and not q.fine_tune_unspecified, q
    assert q.params_b == params_b and q.model == model, q


@pytest.mark.parametrize(
    "text",
    [
        "fine-tune a 124M GPT-2 on my 3060",  # a fine-tuning word: an existing model adapted
        "微调 Qwen2-0.5B 需要多大显存",
        "训练 Qwen2.5-7B 要几张 4090",  # a released model of billions: not from scratch
        "训练一个 7B 模型要多少卡",
        "用 LoRA 训练一个 26M 的模型",  # the method named wins
    ],
)
def test_a_fine_tune_or_a_big_model_is_not_read_as_a_run_from_scratch(text) -> None:
    assert not parse(text).pretrain


def test_money_in_millions_is_no_model_size() -> None:
    q = parse("预算 50M 美元训练一个模型")
    assert q.params_b is None and not q.pretrain, q


@pytest.mark.parametrize(
    ("text", "scratch", "adapter"),
    [
        ("训练一个 26M 小模型需要什么显卡", "从零预训练", "LoRA"),
        ("Can my RTX3060 train nanoGPT?", "pretraining from scratch", "LoRA"),
        ("[karpathy/nanoGPT] Can my RTX3060 train the model code? There is no good graphics card", "Yes", "LoRA"),
    ],
)
def test_a_tiny_model_trained_from_scratch_is_sized_as_full_training(advisor, text, scratch, adapter) -> None:
    final = ask_checked(advisor, text)
    lead = lead_of(final.answer, 3)
    assert scratch in lead and adapter not in lead, final.answer
    modes = {c.args.get("mode") for c in final.tool_calls if c.name in ("estimate_vram", "recommend_gpus")}
    modes |= {c.args.get("workload", {}).get("mode") for c in final.tool_calls if c.name == "recommend_gpus"}
    assert "lora" not in modes and "qlora" not in modes, final.tool_calls


@pytest.mark.parametrize(
    "text",
    [
        "训练一个 26M 小模型需要什么显卡",
        "What GPU should I buy to train a 124M GPT from my own data? Budget $600",
        "想从零训练一个 50M 参数的小模型，预算 3000 元买什么卡",
    ],
)
def test_a_pretraining_runs_card_choice_offers_no_adapter_method_and_no_api(advisor, text) -> None:
    final = ask_checked(advisor, text)
    names = [c.name for c in final.tool_calls]
    assert "recommend_gpus" in names and "compare_api" not in names, names
    body = final.answer.split("参考资料")[0].split("Sources:")[0]  # a guide's title may name every method
    assert "LoRA" not in body, final.answer


@pytest.mark.parametrize(
    "text",
    [
        OPEN_LLAMA_ISSUE,
        "what is the vram cost of LoRA on llama 3 8B?",
        "memory cost of fine-tuning a 7B model",
    ],
)
def test_a_vram_cost_is_memory_not_money(text) -> None:
    q = parse(text)
    assert "cost" not in q.intents and "rent_where" not in q.intents and "price" not in q.topics_mentioned, q
    assert "memory" in q.intents, q


def test_a_cost_in_money_is_still_a_cost() -> None:
    assert "cost" in parse("how much does it cost to fine-tune a 7B model on a rented A100?").intents


@pytest.mark.parametrize(
    ("text", "model"),
    [
        (
            OPEN_LLAMA_ISSUE,
            "open-llama-3b-v2",
        ),
        ("How much VRAM to LoRA open_llama_3b_v2?", "open-llama-3b-v2"),
        ("OpenLLaMA 7B v2 全参微调要多少显存", "open-llama-7b-v2"),
        ("fine-tune openllama 13b on a 3090?", "open-llama-13b"),
    ],
)
def test_openllama_is_in_the_registry(text, model) -> None:
    assert parse(text).model == model


def test_openllama_3b_v2_memory_leads_with_the_fine_tune_not_a_rental(advisor) -> None:
    final = ask_checked(
        advisor,
        OPEN_LLAMA_ISSUE,
    )
    lead = lead_of(final.answer)
    assert "OpenLLaMA-3B-v2" in final.answer and "rent" not in lead.lower(), final.answer


@pytest.mark.parametrize(
    ("text", "card"),
    [
        ("1050的显卡pretrain大概需要多久", "1050"),
        ("我的1060显卡能跑 7B 吗", "1060"),
        ("my 1650 gpu can run llama 3 8b?", "1650"),
    ],
)
def test_a_bare_gtx_number_with_a_card_word_is_the_card(text, card) -> None:
    q = parse(text)
    assert q.gpu and card in q.gpu, q


@pytest.mark.parametrize(
    ("text", "slot"), [("1050 元能买什么", "budget"), ("训练 1060 条数据要多久", "dataset_samples")]
)
def test_a_bare_gtx_number_without_a_card_word_is_no_card(text, slot) -> None:
    q = parse(text)
    assert q.gpu is None and getattr(q, slot), q


@pytest.mark.parametrize(
    ("text", "yes"),
    [
        ("[jingyaogong/minimind] 游戏本16G显存可以训练吗？\n如题", "可以"),
        ("16G 显存能从零训练一个 50M 参数的模型吗", "可以"),
        ("12G显存可以从头训练 minimind 吗", "可以"),
        ("Can I train nanoGPT from scratch with 12GB of VRAM?", "Yes"),
    ],
)
def test_a_card_size_that_holds_the_run_says_yes_first(advisor, text, yes) -> None:
    final = ask_checked(advisor, text, consistent=True)
    assert lead_of(final.answer).startswith(yes) or lead_of(final.answer).startswith("**" + yes), final.answer


@pytest.mark.parametrize(
    ("text", "words"),
    [
        (
            "[karpathy/nanoGPT] Can my RTX3060 train the model code? There is no good graphics card",
            "gradient_accumulation",
        ),
        ("12G显存可以从头训练 minimind 吗", "梯度累积"),
        ("24G 能预训练一个 100M 的模型吗", "batch_size"),
    ],
)
def test_a_run_from_scratch_that_fits_says_how_the_batch_grows(advisor, text, words) -> None:
    final = ask_checked(advisor, text, consistent=True)
    assert words in final.answer, final.answer


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("[TinyLLaVA/TinyLLaVA_Factory] 如果想要全量微调qwen2_0.5B需要多大显存的显卡", "视觉编码器"),
        ("How much VRAM to fine-tune Vicuna-7B with LLaVA?", "vision encoder"),
        ("用 LLaVA 框架 LoRA 微调 Qwen2-7B 要多少显存", "视觉编码器"),
    ],
)
def test_a_language_model_trained_in_a_llava_framework_notes_the_vision_tower(advisor, text, words) -> None:
    final = ask_checked(advisor, text)
    assert words in final.answer, final.answer


@pytest.mark.parametrize(
    "text", ["LoRA 微调 Qwen2-7B 要多少显存", "How much VRAM to run LLaVA-style Qwen2-7B inference?"]
)
def test_no_vision_tower_note_without_a_multimodal_training(text) -> None:
    assert not any(getattr(n, "code", "") == "vlm_vision_tower" for n in parse(text).notes)
