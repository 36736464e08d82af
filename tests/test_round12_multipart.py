"""Round 12, questions of several parts and their follow-ups, read as a user:

- inference and fine-tuning asked together with no method named: the fine-tune part gives every method's count;
- a speed asked alone on the count of tensor-parallel cards the user named leads with the tokens/s, and the speed's
  assumptions come after the fit verdict that backs it;
- a follow-up naming one card's size after several of those cards asks about one card;
- a fine-tune planned across machines on a LAN says what the network costs.
"""

import uuid

import pytest
from asking import ask_checked, lead_of


@pytest.mark.parametrize(
    ("text", "methods"),
    [
        ("推理和微调 Qwen2.5-72B 分别需要几张 A100 80G？", ("全参", "LoRA", "QLoRA")),
        ("How many H100s do I need to run and fine-tune Llama 3.1 70B?", ("full", "LoRA", "QLoRA")),
    ],
)
def test_inference_and_an_unnamed_fine_tune_give_every_methods_count(advisor, text, methods) -> None:
    final = ask_checked(advisor, text, consistent=True)
    lead = lead_of(final.answer)
    assert all(m in lead for m in methods), final.answer
    assert "推理" in lead or "inference" in lead, final.answer


@pytest.mark.parametrize(
    ("text", "notes"),
    [
        ("推理一般耗时多久呢，102B的模型，A100 80G，8卡呢", "计算假设"),
        ("How fast does Qwen2.5-72B generate on 4x H100?", "Assumptions"),
    ],
)
def test_a_speed_on_the_named_tensor_parallel_cards_leads_and_its_notes_follow_the_verdict(
    advisor, text, notes
) -> None:
    final = ask_checked(advisor, text, consistent=True)
    paragraphs = final.answer.split("\n\n")
    assert "tokens/s" in paragraphs[0], final.answer
    assert notes not in paragraphs[1], final.answer  # the fit verdict right after the speed, then the notes


@pytest.mark.parametrize(
    ("first", "then", "one"),
    [
        ("我有4张 A100 40G，能LoRA微调 Qwen2.5-14B 吗？", "那 40G 显存能微调吗？", "一张"),
        ("两张 3090 能 QLoRA 微调 32B 吗", "24G 显存能微调吗", "一张"),
    ],
)
def test_a_follow_up_naming_one_cards_size_asks_about_one_card(advisor, first, then, one) -> None:
    session = "mp12-" + uuid.uuid4().hex[:6]
    advisor.ask(session, first)
    final = advisor.ask(session, then)
    assert one in lead_of(final.answer), final.answer


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("大佬 7b bloom 非lora 的情况下，局域网环境下两张3090两张4090可以跑起来吗？", "跨机器"),
        ("Can I fine-tune Llama 3 8B with LoRA across two PCs over my LAN, one 3090 each?", "Across machines"),
    ],
)
def test_a_fine_tune_planned_across_lan_machines_says_what_the_network_costs(advisor, text, says) -> None:
    final = ask_checked(advisor, text)
    assert says in final.answer, final.answer


@pytest.mark.parametrize(
    ("first", "then", "count"),
    [
        ("我有一张3090，能跑Qwen2.5-72B吗", "那再买一张3090呢？", 2),
        ("I have a 3090. Can it run Llama 3 70B?", "What if I add another one?", 2),
        ("我有一张3090，能跑Qwen2.5-72B吗", "换4090呢？", 1),
    ],
)
def test_a_follow_up_adding_one_more_card_counts_it_and_a_swap_does_not(advisor, first, then, count) -> None:
    session = "mp12-" + uuid.uuid4().hex[:6]
    advisor.ask(session, first)
    final = advisor.ask(session, then)
    sized = [c.args.get("num_gpus") for c in final.tool_calls if c.name == "estimate_vram"]
    assert sized and sized[0] == count, (sized, final.answer)
