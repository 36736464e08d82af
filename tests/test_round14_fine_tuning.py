"""Round 14, fine-tuning questions read as an expert would (variations written for each kind, not the wild cases):

- a memory figure quoted for a training job, with the cards named only by their size and no model, is set against
  those cards (one card / only split / short) instead of asking which model;
- a count written before a bracketed card ("8*(v100 32G)", "4 x (RTX 3090 24GB)") is that card's count;
- "I encountered a lack of GPU memory" reports an out-of-memory run;
- the card a job needs names the common card one size below, the one people often own;
- an out-of-memory run on N cards asking for the minimum memory is not answered with another method's card count, and
  the method asked stays first in a count lead;
- continued / domain pre-training of an existing model is full training of that model, not a run from scratch;
- a fine-tune named by its own name (BiLLa) is sized as its base model; an application's fine-tune with a quoted
  figure is that figure against the cards;
- the 8-bit optimizer route of a full fine-tune names CPU offload as the other way.
"""

import pytest
from asking import ask_checked, lead_of

from assistant.understanding import parse


@pytest.mark.parametrize(
    ("text", "verdict"),
    [
        ("The repo says full fine-tuning takes around 60GB of GPU memory. Would four 24GB cards do it?", "split"),
        ("README写的微调需要20G显存，我一张24G的显卡够不够", "放得下"),
        ("Training needs ~80 GB VRAM according to the authors; I have 2x 16GB GPUs, is that enough?", "Not as quoted"),
        ("全参数微调大概要42G显存，用两张24G的卡可以吗？", "分片"),
    ],
)
def test_a_quoted_training_need_is_set_against_cards_named_by_size(advisor, text, verdict) -> None:
    final = ask_checked(advisor, text)
    lead = lead_of(final.answer)
    assert verdict in lead, final.answer
    assert "哪个模型" not in final.answer and "Which model" not in final.answer, final.answer


@pytest.mark.parametrize(
    ("text", "counts"),
    [
        ("8×(A100 80G)能全参微调13B吗", {"a100-80gb-sxm": 8}),
        ("I have 4 x (RTX 3090 24GB), can I fine-tune a 13B model?", {"rtx-3090": 4}),
        ("4*（4090 24G）能lora微调qwen2.5-14b吗", {"rtx-4090": 4}),
        (
            "全参数微调是不是在8*(v100 32G）上才跑得动，如果是8*(v100 16G）可以吗",
            {"v100-sxm2-32gb": 8, "v100-sxm2-16gb": 8},
        ),
    ],
)
def test_a_count_before_a_bracketed_card_is_that_cards_count(text, counts) -> None:
    assert parse(text).gpu_counts == counts


@pytest.mark.parametrize(
    "text",
    [
        "I encountered a lack of GPU memory when fine-tuning Qwen2.5-7B with LoRA on my RTX 4090",
        "Got a lack of VRAM error training Llama-3-8B with QLoRA on a 12GB 3060, what's the minimum?",
        "We keep hitting a shortage of GPU memory when running LoRA on mistral 7b with two A10G",
    ],
)
def test_a_lack_of_gpu_memory_reports_an_out_of_memory_run(advisor, text) -> None:
    assert parse(text).symptom == "oom"
    final = ask_checked(advisor, text)
    assert "fits" in lead_of(final.answer) and "setting" in lead_of(final.answer), final.answer


@pytest.mark.parametrize(
    ("text", "smaller"),
    [
        ("GLM-4-9B的lora微调需要多少显存？", "RTX 4090"),
        ("How much VRAM do I need to LoRA fine-tune Qwen2.5-14B?", "RTX 4090"),
        ("全量微调 qwen2.5-1.5b 要多大显存的卡", "RTX 4090"),
        ("What GPU do I need to run Llama-3.1-8B in bf16 with 32k context?", "RTX 4060 Ti"),
    ],
)
def test_the_card_a_job_needs_names_the_common_card_below_it(advisor, text, smaller) -> None:
    final = ask_checked(advisor, text)
    line = next(p for p in final.answer.split("\n\n") if "需要的卡" in p or "The card it needs" in p)
    assert smaller in line, final.answer


@pytest.mark.parametrize(
    ("text", "lead_has", "lead_not"),
    [
        ("4张3090 lora微调Qwen-14B爆显存，至少需要多少显存？", "分片", "全参微调要"),
        (
            "LoRA fine-tuning Llama-2-13B on 2x RTX 3090 gives CUDA OOM. What's the minimum VRAM needed?",
            "sharding",
            "full",
        ),
        ("双卡4090 lora微调baichuan2-13b OOM，这正常吗，至少要多少显存", "分片", "全参微调要"),
        ("两张A10 做 llama3-8b 全参微调 OOM 了，最少要多少显存", "不够", "LoRA"),
    ],
)
def test_an_oom_asking_the_minimum_memory_leads_with_the_asked_method(advisor, text, lead_has, lead_not) -> None:
    final = ask_checked(advisor, text, consistent=True)
    lead = lead_of(final.answer)
    assert lead_has in lead and lead_not not in lead, final.answer


@pytest.mark.parametrize(
    ("text", "mode", "jobs"),
    [
        ("我想用 Qwen2.5-7B 做增量预训练，两张 A100 80G 够吗", "full", ["full"]),
        ("continued pretraining of Llama-3-8B on my domain corpus, how many H100s do I need?", "full", ["full"]),
        ("对 InternLM2-7B 做领域知识的预训练，需要多少显存", "full", ["full"]),
        ("I want to do domain-adaptive pretraining of Mistral 7B with LoRA on a 4090", "lora", ["lora"]),
    ],
)
def test_continued_pretraining_of_a_model_is_no_run_from_scratch(text, mode, jobs) -> None:
    q = parse(text)
    assert not q.pretrain and q.mode == mode and q.jobs == jobs


@pytest.mark.parametrize("text", ["预训练一个 1B 模型要多少卡", "从零预训练 qwen2.5-0.5b 要多久"])
def test_pretraining_from_nothing_stays_pretraining(text) -> None:
    assert parse(text).pretrain


def test_continued_pretraining_is_not_timed_on_a_from_scratch_token_budget(advisor) -> None:
    final = ask_checked(advisor, "我想用 Qwen2.5-7B 做增量预训练，两张 A100 80G 够吗")
    assert "从零预训练" not in final.answer and "Chinchilla" not in final.answer, final.answer


@pytest.mark.parametrize(
    ("text", "model"),
    [
        ("[Neutralzz/BiLLa] 全参数微调需要几张 V100 32G", "llama-1-7b"),
        ("Can I LoRA fine-tune BiLLa on a single RTX 3090?", "llama-1-7b"),
    ],
)
def test_billa_is_sized_as_its_base(text, model) -> None:
    assert parse(text).model == model


@pytest.mark.parametrize(
    ("text", "lead_has"),
    [
        ("[yeyupiaoling/Whisper-Finetune] 全参数微调large-v2需要42G左右显存，如果使用两个24G显卡可以吗？", "分片"),
        ("The docs say fine-tuning Whisper needs 40GB of VRAM. Can I do it with two 24GB cards?", "split"),
        ("微调 whisper large-v3 需要 30G 显存，两张 16G 的卡行吗", "不够"),
    ],
)
def test_an_applications_fine_tune_with_a_quoted_figure_is_that_figure_on_the_cards(advisor, text, lead_has) -> None:
    final = ask_checked(advisor, text)
    assert lead_has in lead_of(final.answer), final.answer


@pytest.mark.parametrize(
    ("text", "offload"),
    [
        ("两张A100 40G 能全参微调 Qwen2.5-7B 吗", "卸载到 CPU"),
        ("Can I full fine-tune Llama-3-8B on two A100 40GB?", "offloaded to CPU"),
    ],
)
def test_the_8bit_optimizer_route_names_cpu_offload_too(advisor, text, offload) -> None:
    final = ask_checked(advisor, text)
    assert "8-bit" in final.answer and offload in final.answer, final.answer


@pytest.mark.parametrize(
    ("text", "hours", "money"),
    [
        ("How much time does it cost to fine-tune llama 7b on a 4090 with 50k samples?", "hours", "$"),
        ("fine-tuning qwen 7b with lora on one A100, what's the time cost for 100k samples?", "hours", "$"),
        ("全参微调 qwen2.5-1.5b，10万条数据，一张 4090 的时间成本大概多少？", "小时", "¥"),
    ],
)
def test_a_time_cost_asks_the_hours_not_money(advisor, text, hours, money) -> None:
    q = parse(text)
    assert "cost" not in q.intents and "speed" in q.intents and q.asks_time, q.intents
    final = ask_checked(advisor, text)
    assert hours in final.answer and money not in lead_of(final.answer), final.answer


def test_a_money_cost_of_a_run_stays_a_cost_question() -> None:
    assert "cost" in parse("How much does it cost to fine-tune llama 7b on an A100 for 10 hours?").intents
