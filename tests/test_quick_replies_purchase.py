"""A purchase asked with no model is asked back with quick replies, however it is worded ("Which GPU should I buy
for inference?" used to quote the buyers' playbook, "我想买张卡做推理" asked which card the user has); choosing a
reply answers the purchase."""

import uuid

import pytest


@pytest.mark.parametrize(
    ("question", "asked", "labels"),
    [
        ("Which GPU should I buy for inference?", "need_model", {"7B", "70B"}),
        ("What GPU should I purchase for LLM inference?", "need_model", {"7B", "70B"}),
        ("我想买张卡做推理", "need_model", {"7B", "70B"}),
        ("想买一张显卡做微调", "need_model", {"7B", "70B"}),
        ("Which GPU should I buy?", "need_purpose", {"Inference", "Fine-tuning"}),
        ("我该买哪张显卡？", "need_purpose", {"推理", "微调"}),
    ],
)
def test_a_purchase_without_a_model_asks_with_choices(advisor, question: str, asked: str, labels: set[str]) -> None:
    session = f"t-{uuid.uuid4().hex[:8]}"
    final = advisor.ask(session, question)
    assert not final.tool_calls, [c.name for c in final.tool_calls]
    shown = {r.label for r in final.quick_replies}
    assert labels <= shown, (shown, final.answer)
    reply = next(r for r in final.quick_replies if r.label in labels)
    after = advisor.ask(session, reply.message)
    names = [c.name for c in after.tool_calls]
    # the model size chosen, the purchase can be sized (or the next seed question asked, with its own choices)
    assert "recommend_gpus" in names or after.quick_replies, (names, after.answer)


def test_a_person_buying_for_inference_at_home_is_sized_for_local_chat(advisor) -> None:
    """One person buying a first card for inference at home: sized for the biggest common model a personal budget's
    card runs at 4-bit (said in the answer), not for a fine-tune nobody asked for; other purposes one click away."""
    final = advisor.ask(f"t-{uuid.uuid4().hex[:8]}", "What GPU should I buy to run LLMs for inference at home?")
    calls = [c for c in final.tool_calls if c.name == "recommend_gpus"]
    assert calls and calls[0].args["workload"]["mode"] == "inference", [c.args for c in calls]
    assert "You did not name a model" in final.answer
    assert final.quick_replies
