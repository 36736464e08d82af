"""Two leads read as a user: a speed asked alone on one card that holds the job leads with the speed; a model that
fits a stated card size only quantized says which format the "does not fit" below it is about."""

import pytest
from asking import ask_checked, lead_of


@pytest.mark.parametrize(
    "text",
    [
        "How many tokens/s can I expect from Qwen2.5-14B AWQ on an L4 with 8 concurrent users?",
        "一张 4090 跑 Qwen2.5-7B 每秒能出多少 token？",
    ],
)
def test_a_speed_asked_alone_on_one_card_leads_with_the_speed(advisor, text) -> None:
    final = ask_checked(advisor, text, consistent=True)
    lead = lead_of(final.answer)
    assert "tokens/s" in lead and ("Yes, it fits" not in lead and "放得下" not in lead), final.answer


def test_where_the_card_count_is_news_the_verdict_still_leads(advisor) -> None:
    # two cards named for a job one card holds: the verdict on the two leads, the speed follows it
    final = ask_checked(advisor, "2 x 4090 for an 8B at Q8 with llama.cpp: how many tokens/s?")
    assert "tokens/s per sequence" not in lead_of(final.answer), final.answer


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("internlm2-chat-20b 量化后单卡 24G 能跑吗", "按 BF16"),
        ("can I run internlm2-chat-20b quantized on a single 24GB card?", "At BF16"),
    ],
)
def test_the_does_not_fit_line_under_a_quantized_yes_names_its_format(advisor, text, says) -> None:
    final = ask_checked(advisor, text, consistent=True)
    assert says in lead_of(final.answer, 2), final.answer
