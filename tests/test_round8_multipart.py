"""Round 8, several parts and the user's own hardware: the answer is computed on exactly the cards the user states
(an "8gb rtx 3060", "两张8g的卡", the counted cards they own beside a card they only mention), each part asked is
answered (how many at once on one card, then how many cards for N at once), and the lead names the option the user
gave (one 3090 or two 3060s), not a count they never said."""

import uuid

from assistant.events import FinalEvent
from tools.compare import CompareRequest, compare_gpus
from tools.diagnose import DiagnoseRequest, diagnose


def _ask(advisor, text: str) -> FinalEvent:
    final = advisor.ask("r8mp-" + uuid.uuid4().hex[:6], text)
    assert isinstance(final, FinalEvent)
    return final


def _lead(answer: str) -> str:
    return answer.split("\n\n")[0]


def test_memory_before_the_name_picks_the_variant(advisor):
    for text in ("can 8gb rtx 3060 run the 13b model?", "我的8G的3060能跑14b吗"):
        final = _ask(advisor, text)
        gpus = {c.args.get("gpu") for c in final.tool_calls if c.args.get("gpu")}
        assert gpus == {"rtx-3060-8gb"}, (text, gpus)


def test_count_with_the_card_memory_is_the_machine(advisor):
    text = "单卡部署需要9g左右的显存，然后给他放到两张8g的卡上跑推理，1卡显存爆了，用的是Qwen-14B-Chat-Int4"
    final = _ask(advisor, text)
    counts = {c.args.get("num_gpus") for c in final.tool_calls if c.name in ("diagnose", "estimate_vram")}
    assert counts == {2}, counts
    assert "None" not in final.answer  # a card said only by its size has no name to print


def test_owned_counted_cards_lead_not_a_card_only_mentioned(advisor):
    final = _ask(
        advisor,
        "flashAttention2不支持V100。目前我这边现有机器只有2张4090卡，想用deepspeed双卡4bit LoRA微调Mixtral-8x7B，"
        "是不是没办法？是不是得换A100？",
    )
    assert not [c for c in final.tool_calls if c.name == "assess_card"]
    lead = _lead(final.answer)
    assert "4090" in lead and "V100" not in lead, lead


def test_concurrency_then_cards_for_n_at_once(advisor):
    for text, word in (
        (
            "How many concurrent requests can one A100 80GB serve with Llama-2-13b? "
            "How many GPUs for 100 concurrent users?",
            "replicas",
        ),
        ("一张A100 80G跑llama-2-13b能支持多少并发？100并发要几张卡？", "独立副本"),
    ):
        final = _ask(advisor, text)
        assert word in final.answer, final.answer[:800]
        assert "8 × " in final.answer or "8 张" in final.answer


def test_compare_keeps_the_counts_the_user_named_when_one_option_fits():
    r = compare_gpus(
        CompareRequest(
            gpus=["rtx-3090", "rtx-3060-12gb"],
            counts={"rtx-3090": 1, "rtx-3060-12gb": 2},
            workload={"model": "qwen2.5-32b", "mode": "inference", "batch": 1},
            currency="CNY",
            basis="buy",
        )
    )
    best = r.rows[0]
    assert best.gpu_id == "rtx-3090" and best.count == 1, [(x.gpu_id, x.count) for x in r.rows]


def test_oom_on_a_later_gpu_is_not_a_single_gpu_load():
    r = diagnose(DiagnoseRequest(model="llama-2-13b", gpu="t4", num_gpus=4, symptom="oom", oom_gpu=3, precision="bf16"))
    assert "one_gpu_loaded" not in {c.id for c in r.causes}
    r0 = diagnose(DiagnoseRequest(model="llama-2-13b", gpu="t4", num_gpus=4, symptom="oom", precision="bf16"))
    assert "one_gpu_loaded" in {c.id for c in r0.causes}
