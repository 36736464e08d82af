"""Round 10 kinds of the buy-vs-rent threads (both languages):

- free GPUs asked for ("I have no budget", "不想花钱", "for free"): the free notebook tiers lead, and those words have
  one home (lexicon.yaml intents.rent_where.both, read as rent_ask "free" too);
- a named card asked whether it is enough for a named model while renting: its fit leads the rental;
- pretraining a published model with no token count: the tokens it was trained on (GPT-2 in nanoGPT ~295B, Llama 2 2T),
  not ~20 per parameter (tools/models.py pretrain_tokens_b);
- a server with no GPU, sold as cores and RAM ("4核8G", "2C4G", "8 cores, 16 GB"): what its CPU runs from that RAM."""

from __future__ import annotations

import uuid

import pytest

from assistant.understanding import parse
from assistant.understanding.lexicon import _lex


def _ask(advisor, question: str):
    return advisor.ask(f"t-{uuid.uuid4().hex[:8]}", question)


def _lead(answer: str) -> str:
    return " ".join(answer.split("\n\n")[:2])


def test_free_gpu_words_have_one_home():
    raw = _lex().raw
    assert raw["free_compute"] == raw["intents"]["rent_where"]["both"]
    for lang in ("zh", "en"):
        assert not set(raw["free_compute"]) & set(raw["intents"]["rent_where"][lang])


@pytest.mark.parametrize(
    "question",
    [
        "不想花钱，有没有地方能微调一个 7B 模型",
        "I have no budget at all, how can I fine-tune Llama 3 8B for free?",
        "学生党没钱，想白嫖算力跑一下 Qwen2.5-7B 推理",
        "Is there a way to train a small GPT-2 model without paying for a GPU?",
    ],
)
def test_free_gpus_asked_lead_with_the_free_tiers(advisor, question):
    q = parse(question)
    assert q.rent_ask == "free" and q.intents[0] == "rent_where"
    assert "Colab" in _lead(_ask(advisor, question).answer)


@pytest.mark.parametrize(
    ("question", "card"),
    [
        ("I want to rent a GPU on RunPod to run Llama 3.1 8B; A100 is pricey, would an A10 24GB be enough?", "A10"),
        ("不知道在哪租GPU，AutoDL 的 3090 租不到，3080Ti 12G 跑 minimind 够不够？", "3080 Ti"),
        ("租不到3090，用两张2080Ti 11G 跑 ChatGLM3-6B 推理能行吗？在哪租比较好", "2080 Ti"),
    ],
)
def test_card_enough_for_the_model_leads_the_rental(advisor, question, card):
    assert parse(question).intents[0] == "fit"
    assert card in _lead(_ask(advisor, question).answer)


@pytest.mark.parametrize(
    ("question", "tokens"),
    [
        ("How long to pretrain GPT-2 124M from scratch on one 3090?", "295B"),
        ("用一张 4090 从头训练 GPT-2 small 需要几天？", "295B"),
        ("我有 8 张 A100，从零预训练一个 Llama-2-7B 要多久？", "2,000B"),
    ],
)
def test_pretraining_a_published_model_uses_its_tokens(advisor, question, tokens):
    answer = _ask(advisor, question).answer
    assert tokens in answer
    assert "Chinchilla" not in answer


def test_pretraining_an_unnamed_size_keeps_the_compute_optimal_budget(advisor):
    answer = _ask(advisor, "从零预训练一个 1B 的模型，用 8 张 A100 要多久？").answer
    assert "Chinchilla" in answer


def test_a_model_label_says_its_size_once(advisor):
    answer = _ask(advisor, "Is there a way to train a small GPT-2 model without paying for a GPU?").answer
    assert "(124M) (124M)" not in answer


@pytest.mark.parametrize(
    ("question", "ram"),
    [
        ("有一台4核8G的云服务器，没有GPU，只想部署个大模型API接口给外部用，能跑起来吗？", 8.0),
        ("2核4G的服务器没有显卡，能部署 Qwen2.5 吗？还是直接调 API 划算", 4.0),
        ("My server has 16 GB RAM, 8 cores, no graphics card. Is it possible to serve a chatbot API from it?", 16.0),
        ("A 4 vCPU 8GB VPS with no GPU: can it host a small LLM?", 8.0),
        ("有一台4G4H8M服务器，没有GPU，只是想部署API接口供外部使用，会特别慢吗？", 4.0),
        ("2H4G的服务器没有显卡能跑qwen吗", 4.0),
    ],
)
def test_a_server_without_a_gpu_is_sized_on_its_cpu_and_ram(question, ram):
    q = parse(question)
    assert q.cpu_only_option and q.ram_gib == ram
    assert q.intents[0] == "capacity"


@pytest.mark.parametrize(
    ("question", "mode"),
    [
        ("I downloaded the pretrained Llama-2-7B weights, can I run them on my RTX 3060 12GB?", "inference"),
        ("下载了预训练好的 Qwen2.5-7B 权重，4090 上推理要多少显存？", "inference"),
        ("Fine-tuning a pre-trained Mistral 7B with LoRA on a 24GB card: does it fit?", "lora"),
        ("用预训练的ChatGLM3-6B做LoRA微调，3090够吗", "lora"),
    ],
)
def test_a_pretrained_model_is_no_pretraining_run(question, mode):
    q = parse(question)
    assert not q.pretrain and q.mode == mode


@pytest.mark.parametrize(
    "question",
    [
        "预训练 GPT-2 要多久",
        "How long to pretrain GPT-2 on a 4090?",
        "从零预训练一个1B模型",
        "pre-training a 3B model on 8 H100s",
    ],
)
def test_pretraining_runs_still_read(question):
    assert parse(question).pretrain


@pytest.mark.parametrize(
    ("text", "ram"), [("免费colab系统RAM12.7 GB，加载 chatglm-6b 崩溃", 12.7), ("RAM: 15.6 GB, no GPU", 15.6)]
)
def test_a_usable_ram_size_with_a_decimal(text, ram):
    assert parse(text).ram_gib == ram


def test_a_pre_train_model_downloaded_is_no_training_job():
    q = parse('免费colab系统RAM12.7 GB，下载pre-train的"THUDM/chatglm-6b"，系统 RAM会炸从而导致程序崩溃。')
    assert not q.pretrain and not q.fine_tune_unspecified and q.mode in (None, "inference")


@pytest.mark.parametrize(
    ("question", "says"),
    [
        ("有一台4G4H8M服务器，没有GPU，只是想部署API接口供外部使用。会特别特别慢吗？还是压根跑不起来？", "不现实"),
        ("I have a VPS with 2 vCPUs and 4GB RAM and no GPU. Can I host an LLM API on it?", "not practical"),
    ],
)
def test_too_little_ram_without_a_gpu_says_so_first(advisor, question, says):
    assert says in _lead(_ask(advisor, question).answer)


def test_enough_ram_without_a_gpu_keeps_the_plain_lead(advisor):
    lead = _lead(_ask(advisor, "有一台4核8G的云服务器，没有GPU，只想部署个大模型API接口给外部用，能跑起来吗？").answer)
    assert "不现实" not in lead and "8 GB" in lead
