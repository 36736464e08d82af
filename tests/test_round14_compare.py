"""Round 14, comparisons as real people ask them (wild compare round 7), each kind with variations of our own:

- more cards for a service's throughput ("双卡吞吐达不到单卡两倍", "TP=8 only 1.5x"): the rule leads — replicas of the
  fewest cards that hold the model, not a wider tensor-parallel group; a quoted memory need against the card first;
- two versions of one GPU that differ only in memory ("V100 16G/32G", "MI50 16GB or 32GB", "Quadro RTX 6000 vs
  8000"): the bigger one is no faster, it holds more; "4060 Ti 8G 和 16G" names both versions;
- an Ascend NPU seen slower than an NVIDIA card: the stack, not the chip, and how to close the gap; a model served on
  both is left to the sizing (its decode is bandwidth-bound);
- a strong card seen slower than an Apple Mac named by the Mac it is in ("mac pro的M1", "my M1 MacBook").
"""

import pytest
from asking import ask_checked, lead_of

from assistant.understanding import parse


@pytest.mark.parametrize(
    ("text", "words"),
    [
        (
            "我们用 vllm 在 2 张 4090 上跑 Qwen2.5-14B-AWQ，开 tp=2 之后 qps 只比单卡高了 30%，"
            "这正常吗？是不是单卡部署两份更划算？",
            ("正常", "实例"),
        ),
        (
            "Serving Llama-3.1-8B with vLLM: going from 1 to 4 L40S with tensor parallel only gave about 1.6x the "
            "throughput. Is that expected or did I misconfigure something?",
            ("normal", "replica"),
        ),
        (
            "H20 八卡部署 DeepSeek-R1-Distill-Qwen-32B，4卡和8卡的吞吐量差不多，显存翻倍但加速比很低，为啥？",
            ("正常", "实例"),
        ),
        (
            "lmdeploy测试4卡/8卡部署api_server用benchmark下代码测试发现qps和吞吐没有很大区别，为什么显存翻倍提升只有这么一点？",
            ("正常", "all-reduce"),
        ),
    ],
)
def test_more_cards_for_throughput_lead_with_replicas_not_a_wider_group(advisor, text, words) -> None:
    final = ask_checked(advisor, text)
    lead = lead_of(final.answer, 2)
    assert all(w in lead for w in words), final.answer


@pytest.mark.parametrize(
    ("text", "words"),
    [
        (
            "we have two RTX 6000 Ada; the model weights take about 30GB. is running it on both cards with TP=2 better "
            "for throughput than one card? the speedup we measured is only 1.2x",
            ("30 GB fits one", "2 single-card"),
        ),
        (
            "在单个 A100-80G 上加载模型权重需要大约 37 GB，双卡部署的吞吐量达不到单卡部署的两倍，"
            "单卡的吞吐量性价比比双卡更高？",
            ("37 GB 一张", "2 个单卡实例"),
        ),
    ],
)
def test_a_quoted_need_says_how_many_cards_one_replica_takes(advisor, text, words) -> None:
    final = ask_checked(advisor, text)
    lead = lead_of(final.answer)
    assert all(w in lead for w in words), final.answer


@pytest.mark.parametrize(
    "text",
    [
        "2张3090和1张4090哪个跑 Qwen2.5-32B 推理吞吐更高，哪个性价比高？",  # two cards weighed: a comparison
        "Is 2x 3090 worth it over 1x 4090 for a 70B at 15 tokens/s?",
        "4卡 A100 跑 72B 要多少显存",  # no throughput asked
    ],
)
def test_a_comparison_of_different_cards_is_no_scaling_question(text) -> None:
    assert not parse(text).asks_scaling


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("V100 16G/32G 训练 bert 速度有区别吗", ("同一颗 GPU", "900", "学习率")),
        ("Is the MI50 32GB any faster than the MI50 16GB for llama.cpp?", ("same GPU", "1,024", "no faster")),
        ("Quadro RTX 6000 和 Quadro RTX 8000 训练速度差多少？", ("同一颗 GPU", "672")),
        (
            "How to adjust the hyper parameters when using V100 32G — the results of V100 32G were not significantly "
            "different with V100 16G. How should I adjust it to reflect the advantages of 32G V100?",
            ("same GPU", "900"),
        ),
    ],
)
def test_two_versions_of_one_gpu_lead_with_the_same_speed(advisor, text, words) -> None:
    final = ask_checked(advisor, text)
    lead = lead_of(final.answer, 2)
    assert all(w in lead for w in words), final.answer


@pytest.mark.parametrize(
    ("text", "ids"),
    [
        ("4060 Ti 8G 和 16G 跑 SDXL 出图速度差多少？", {"rtx-4060-ti-8gb", "rtx-4060-ti-16gb"}),
        ("V100 16G/32G 训练 bert 速度有区别吗", {"v100-sxm2-16gb", "v100-sxm2-32gb"}),
        ("A100 40G 还是 80G 跑 Qwen2.5-32B 推理", {"a100-40gb-sxm", "a100-80gb-sxm"}),
    ],
)
def test_one_card_named_with_two_memory_sizes_is_both_versions(text, ids) -> None:
    assert ids <= set(parse(text).gpu_mentions)


def test_a_model_that_fits_only_the_bigger_version_is_not_called_the_same_speed(advisor) -> None:
    final = ask_checked(advisor, "4060 Ti 8G 和 16G 跑 Qwen2.5-14B 推理速度差多少？")
    assert "同一颗 GPU" not in final.answer, final.answer


@pytest.mark.parametrize(
    ("text", "words"),
    [
        (
            "Our Ascend 910B trains Qwen2.5-7B with LoRA about 2x slower than an A100 80G with the same config. Is the "
            "NPU just weaker?",
            ("software stack", "graph mode"),
        ),
        ("同样的 bert 分类模型，昇腾910B 推理耗时是 T4 的 3 倍，怎么优化？", ("软件栈", "图模式")),
        ("MindSpore 在 910A 上跑 ResNet50 训练比 V100 慢很多，正常吗", ("软件栈", "合并成批")),
    ],
)
def test_an_ascend_npu_seen_slower_leads_with_the_stack(advisor, text, words) -> None:
    final = ask_checked(advisor, text)
    lead = lead_of(final.answer)
    assert all(w in lead for w in words), final.answer


def test_a_model_served_on_an_npu_and_an_h20_is_left_to_the_sizing() -> None:
    parsed = parse("四卡昇腾910B4跑GLM-4.5V推理，比四卡H20慢4倍，单并发 H20 ~157 tokens/秒，910B4 ~40 tokens/秒")
    assert not any(n.code == "accel_slower_stack" for n in parsed.notes)


@pytest.mark.parametrize(
    ("text", "mac"),
    [
        ("V100显卡的 提词速度还不如mac pro的M1，是哪里设置问题吗？", "apple-m1-16gb"),
        ("my 3090 is slower than my M1 macbook at prompt processing in llama.cpp, why?", "apple-m1-16gb"),
        ("macbook air 上的 M2 跑 7b 多快", "apple-m2-24gb"),
    ],
)
def test_a_base_apple_chip_said_of_its_mac_is_a_card(text, mac) -> None:
    assert mac in parse(text).gpu_mentions


@pytest.mark.parametrize("text", ["M.2 SSD 装模型 4090 够吗", "model M2 checkpoint on the 4090"])
def test_an_m2_that_is_no_mac_is_no_card(text) -> None:
    assert not any(g.startswith("apple") for g in parse(text).gpu_mentions)


def test_a_strong_card_slower_than_a_mac_is_a_run_gone_wrong(advisor) -> None:
    final = ask_checked(
        advisor, "使用llama.cpp的时候，V100显卡的 提词速度还不如mac pro的M1为什么？v100 跑的是13B的 Q8量化，M1是7B的Q4"
    )
    assert "不正常" in lead_of(final.answer), final.answer
    assert "ngl" in final.answer, final.answer


@pytest.mark.parametrize(
    ("text", "words"),
    [
        (
            "We can buy an A100 40GB or an L40 48GB at the same price. Would it make more sense to buy more slightly "
            "slower GPUs as opposed to a single powerful one, for basecalling multiple runs in parallel?",
            ("one run per GPU", "MIG"),
        ),
        ("实验室要同时跑好几个训练任务，买两张便宜的4060Ti 16G还是一张好的4090？", ("每卡一个任务", "MIG")),
        (
            "For running several Whisper transcription jobs at once, is it better to get two cheaper RTX 3060s or one "
            "faster RTX 4080?",
            ("one run per GPU",),
        ),
    ],
)
def test_several_small_cards_or_one_big_for_runs_side_by_side(advisor, text, words) -> None:
    final = ask_checked(advisor, text)
    assert all(w in final.answer for w in words), final.answer


def test_a_pair_of_different_cards_asked_for_speed_is_no_runs_side_by_side_question() -> None:
    parsed = parse("2张3090和1张4090哪个跑 Qwen2.5-32B 推理更快")
    assert not parsed.asks_many_small and not parsed.asks_scaling


@pytest.mark.parametrize(
    ("text", "seen"),
    [
        ("8卡A800部署qwen72b，tp=8 和 两个 tp=4 实例，哪个吞吐更高？", False),
        ("为什么我用两张卡部署，并发吞吐量还不如一张卡？", True),
        ("Why does 4-GPU tensor parallel give only 20% more requests per second than 2 GPUs?", True),
        ("Is it worth it to run Llama 3 8B on two L4s with TP=2 instead of one L4 for throughput?", True),
        ("two 3090s with TP=2 or two replicas of TP=1, which gives more throughput for Qwen2.5-7B?", False),
    ],
)
def test_layouts_set_side_by_side_for_throughput_are_a_scaling_question(text, seen) -> None:
    parsed = parse(text)
    assert parsed.asks_scaling and parsed.scaling_seen is seen, (parsed.intents, parsed.capacity_counts)


def test_which_layout_gives_more_throughput_leads_with_replicas_not_with_normal(advisor) -> None:
    final = ask_checked(advisor, "8卡A800部署qwen72b，tp=8 和 两个 tp=4 实例，哪个吞吐更高？")
    lead = lead_of(final.answer)
    assert "多开实例" in lead and "正常" not in lead, final.answer


@pytest.mark.parametrize(
    ("text", "card"),
    [
        ("4090D比4060TI 同训练批次情况下慢20%，批次=4情况下 4060TI占用14.3G显存，4090占用15G", "rtx-4060-ti-16gb"),
        ("3080 用了 11.5G 显存跑 SD，正常吗", "rtx-3080-12gb"),
        ("my RTX 3060 is using 10.5 GB of VRAM with SDXL, is that expected?", "rtx-3060-12gb"),
    ],
)
def test_memory_in_use_above_the_smaller_version_names_the_bigger_one(text, card) -> None:
    assert card in parse(text).gpu_mentions


def test_memory_in_use_within_the_smaller_version_keeps_it() -> None:
    assert "rtx-4060-ti-8gb" in parse("4060 Ti 占用 6G 显存，跑 7B 正常吗").gpu_mentions


def test_a_version_the_user_names_is_kept_whatever_the_memory_in_use() -> None:
    assert "rtx-3060-8gb" in parse("RTX 3060 8GB is using 10.5 GB of VRAM, spilling to shared memory?").gpu_mentions


def test_an_npu_faster_than_the_nvidia_card_is_no_stack_gap() -> None:
    assert not any(n.code == "accel_slower_stack" for n in parse("昇腾910B 推理 bert 比 4090 快 2 倍").notes)


@pytest.mark.parametrize(
    "text",
    [
        "用 sglang 部署，dp=2 和 tp=2 哪个 qps 更高？",
        "双卡 4090 推理 32B 吞吐只比单卡多一点点，正常吗",
        "vllm 两张 A10 开张量并行后 tokens/s 几乎没提升",
    ],
)
def test_more_wordings_of_the_scaling_question(text) -> None:
    assert parse(text).asks_scaling


@pytest.mark.parametrize(
    ("text", "behind"),
    [
        ("我的 M2 芯片 MacBook 比公司的 T4 服务器跑 llama 7b 还快，为什么", "t4"),
        ("我的 M1 MacBook Air 跑 7b 反而比 A10 服务器快，为什么", "a10"),
    ],
)
def test_a_mac_said_faster_than_a_stronger_card_puts_that_card_behind(text, behind) -> None:
    from assistant.understanding.ranked import behind_card, job_mode

    parsed = parse(text)
    assert parsed.intents == ["diagnose"]
    assert behind_card(parsed.text, parsed.gpu_mentions, job_mode(parsed)) == behind


def test_a_stronger_card_said_faster_is_no_symptom() -> None:
    assert "diagnose" not in parse("我的4090比朋友的3090快30%，性价比高吗").intents


def test_a_training_runs_scaling_is_no_serving_replicas_question() -> None:
    assert not parse("4卡和8卡 A100 训练 qwen 7b 吞吐没有翻倍，正常吗").asks_scaling
