"""Real questions of a few kinds (issue 19, wild set compare / risk): different cards the user owns in one machine,
two cards measured on the same job, training across machines, a feature an old card lacks, an old or modified card
asked about before buying it. Each kind answered the way an expert leads, in both languages."""

from __future__ import annotations

from asking import ask_checked

from assistant.events import FinalEvent
from tools.diagnose import DiagnoseRequest, diagnose


def _ask(advisor, text: str) -> FinalEvent:
    return ask_checked(advisor, text)


def _calls(final: FinalEvent, name: str) -> list[dict]:
    return [c.args for c in final.tool_calls if c.name == name]


# ---- different cards of one machine ------------------------------------------------------------------------


def test_a_model_the_bigger_card_holds_runs_there_alone(advisor) -> None:
    # Qwen2.5-14B Q4_K_M ~11 GiB fits a 3090's 23.3 usable: no split; the 3060 (360 GB/s) would slow every token
    final = _ask(advisor, "我有一张3090和一张3060 12G，跑 qwen2.5-14b 用一张卡还是两张一起跑？")
    assert [a["gpu"] for a in _calls(final, "estimate_vram")][:1] == ["rtx-3090"]
    assert "只用 NVIDIA GeForce RTX 3090 一张就放得下" in final.answer and "CUDA_VISIBLE_DEVICES" in final.answer
    final = _ask(advisor, "My PC has an RTX 3090 plus an RTX 2060. Can it run qwen2.5 14b q4?")
    assert "alone holds it" in final.answer and "336 GB/s" in final.answer


def test_a_model_too_big_for_either_card_is_split_by_layers(advisor) -> None:
    # Llama-3.1-70B Q4 ~42 GiB: more than the 4090 alone, so the pool is sized and the slower card sets the pace
    final = _ask(advisor, "I have a 4090 and a 3080 10GB in the same PC. Can I use both to run Llama 3.1 70B Q4?")
    assert "split the model by layers" in final.answer


def test_a_split_over_a_slower_card_is_the_cause_it_names(advisor) -> None:
    final = _ask(
        advisor,
        "I have two GPUs: an RTX 3090 and a 2060. ollama splits the load among both, which is slower. "
        "Model: solar:q4_0. RTX 3090 alone: 81 t/s. RTX 3090 and RTX 2060: 31.5 t/s",
    )
    (args,) = _calls(final, "diagnose")
    assert args["gpu"] == "rtx-3090" and args["other_gpu"] == "rtx-2060" and "mixed_cards" in args["flags"]
    assert "other_measured_tokens_per_s" not in args  # 31.5 is the split's, not the 2060's alone
    assert "OLLAMA_SCHED_SPREAD" in final.answer and "3090" in final.answer.split("\n\n")[0]


# ---- two cards measured on the same job ----------------------------------------------------------------------


def test_the_card_with_more_bandwidth_measured_slower_is_not_the_card(advisor) -> None:
    # A100 80GB 2,039 GB/s against the L40's 864: the A100 should decode faster; slower means overhead, not the card
    final = _ask(
        advisor,
        "A100的自回归tokens/s仅为40.24是否太慢了？我们在4090和L40上进行了测试，自回归的tokens/s均达到了50以上，感觉不太合理。",
    )
    lead = final.answer.split("\n\n")[0]
    assert "不是显卡的问题" in lead and "CPU" in lead and "2,039 GB/s" in lead


def test_a_gap_bandwidth_explains_is_the_hardware_and_one_it_does_not_is_not() -> None:
    same = diagnose(
        DiagnoseRequest(gpu="a10", measured_tokens_per_s=10, other_gpu="rtx-3090", other_measured_tokens_per_s=15)
    )
    assert same.other_gpu and same.other_bandwidth_gbs == 936 and same.measured_ratio == 1.5
    wider = diagnose(
        DiagnoseRequest(gpu="rtx-a6000", measured_tokens_per_s=18, other_gpu="rtx-3090", other_measured_tokens_per_s=40)
    )
    assert wider.measured_ratio and wider.measured_ratio > 2


def test_each_cards_speed_doubted_is_a_diagnosis(advisor) -> None:
    final = _ask(advisor, "My A6000 gets 18 tokens/s but my friend's 3090 gets 40 tokens/s on the same model, why?")
    assert _calls(final, "diagnose")
    assert "more than the hardware explains" in final.answer.split("\n\n")[0]
    final = _ask(advisor, "A10 上只有 10 tokens/s，3090 上 15 tokens/s，同一个模型，正常吗")
    assert "是硬件决定的" in final.answer.split("\n\n")[0]


# ---- training across machines --------------------------------------------------------------------------------


def test_training_across_machines_waits_on_the_network(advisor) -> None:
    final = _ask(
        advisor,
        "使用A10对qwen-14b-chat进行Lora微调，2机2卡训练比1机2卡慢了10倍\n"
        "deepspeed: examples/deepspeed/ds_z3_offload_config.json\nfp16: true",
    )
    (args,) = _calls(final, "diagnose")
    assert {"multi_node", "zero3"} <= set(args["flags"])
    head = final.answer.split("\n\n")[1]
    assert "网络" in head
    assert "ZeRO-3" in final.answer and "RDMA" in final.answer
    assert "DataParallel" not in final.answer  # DeepSpeed's launcher runs one process per GPU
    final = _ask(
        advisor, "Multi-node QLoRA of qwen2.5 32b on two machines with 2x 3090 each is 10x slower than one machine"
    )
    assert "network between the machines" in final.answer


def test_tensor_parallel_over_a_slow_link_offers_replicas_for_throughput() -> None:
    r = diagnose(
        DiagnoseRequest(
            model="qwen2-72b",
            gpu="a100-80gb-pcie",
            num_gpus=4,
            precision="int4",
            engine="lmdeploy",
            measured_tokens_per_s=1.32,
        )
    )
    text = " ".join(c.fix.render("zh") for c in r.causes)
    assert "副本" in text or "负载均衡" in text


# ---- old and modified cards ----------------------------------------------------------------------------------


def test_bf16_on_a_card_without_it_runs_emulated_and_slow(advisor) -> None:
    final = _ask(
        advisor,
        "V100推理问题 V100不是不支持bf16嘛，但是还是可以正常推理。 model = AutoModelForCausalLM.from_pretrained("
        "model_path, torch_dtype=torch.bfloat16, device_map='auto')",
    )
    assert [a["engine"] for a in _calls(final, "check_support")][:1] == ["bf16"]
    lead = final.answer.split("\n\n")[0]
    assert "8.0" in lead and "模拟" in lead and "FP16" in lead


def test_a_modded_card_worth_buying_is_sized_on_that_card(advisor) -> None:
    final = _ask(advisor, "魔改2080ti 22G 值得买吗，跑 qwen2.5 32b 够吗")
    assert not _calls(final, "recommend_gpus")
    assert _calls(final, "fit_on_gpu")[0]["gpu"] == "rtx-2080-ti-22gb-mod"


def test_an_old_datacenter_card_for_one_person_is_sized_as_gguf(advisor) -> None:
    # a used P40 on a desk runs llama.cpp: Llama-3-70B Q4_K_M ~42-44 GiB, not the 134 GiB of bf16
    final = _ask(advisor, "Is a used Tesla P40 worth buying for running llama 3 70b?")
    assert "q4_k_m" in final.answer.split("\n\n")[0]
