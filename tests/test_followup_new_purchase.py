"""A new job with a budget, asked after a question about some card, is a purchase question of its own: the card
talked about before is not carried into it (assistant/planner/plan.py `_merge_model`). A follow-up that only
changes the model, or a new job that names its card, keeps the card."""

import uuid

import pytest


def _turns(advisor, *texts: str):
    session = f"t-{uuid.uuid4().hex[:8]}"
    final = None
    for text in texts:
        final = advisor.ask(session, text)
    return final


def _calls(final) -> dict[str, dict]:
    return {c.name: c.args for c in final.tool_calls}


@pytest.mark.parametrize(
    ("before", "question"),
    [
        ("RTX 4090 支持 NVLink 吗？", "预算 20 万，公司内部 30 人用 Qwen2.5-32B 做知识库问答，服务器怎么配？"),
        ("Does the RTX 4090 support NVLink?", "Budget $40,000: we want to serve Qwen2.5-72B to 20 staff, what to buy?"),
        ("A6000 的显存带宽是多少", "预算 3 万，在家微调 Llama 3.1 8B，买什么卡好"),
    ],
)
def test_a_budgeted_new_job_is_sized_from_scratch(advisor, before: str, question: str) -> None:
    calls = _calls(_turns(advisor, before, question))
    assert "recommend_gpus" in calls, calls
    for name, args in calls.items():
        assert "rtx-4090" not in str(args) and "rtx-a6000" not in str(args.get("gpu", "")), (name, args)


def test_a_follow_up_that_only_changes_the_model_keeps_the_card(advisor) -> None:
    calls = _calls(_turns(advisor, "RTX 4090 跑 Qwen2.5-7B 推理要多少显存", "那 Qwen2.5-14B 呢"))
    assert calls["estimate_vram"].get("gpu") == "rtx-4090", calls


def test_a_budgeted_new_job_that_names_its_card_keeps_it(advisor) -> None:
    final = _turns(advisor, "A100 支持 FP8 吗", "预算 5 万，用两张 4090 给 10 个人跑 Qwen2.5-32B，够不够")
    assert "rtx-4090" in str([c.args for c in final.tool_calls]), [c.args for c in final.tool_calls]
