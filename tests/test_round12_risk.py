"""Round 12 (risk): a power supply the user names is answered first (enough / enough capped / too small); a
data-center card the user has leads with its EPS12V plug and the Above-4G BIOS setting; accelerators outside the
catalog (Huawei Ascend, Moore Threads) lead with the stack that runs them and are sized as cards of their memory."""

import pytest
from asking import lead_of, planned_turn

from assistant.language_check import check
from tools.workstation import WorkstationRequest, plan_workstation


@pytest.mark.parametrize("gpu", ["tesla-p40", "tesla-m40-24gb", "tesla-k80", "tesla-p100-pcie-16gb"])
def test_passive_tesla_cards_take_eps12v_and_need_above_4g(gpu: str) -> None:
    r = plan_workstation(WorkstationRequest(gpu=gpu))
    assert r.power_connectors == {"8-pin EPS12V (CPU-style)": 1}
    codes = {n.code for n in r.warnings}
    assert {"ws_eps8", "ws_above_4g"} <= codes


def test_geforce_card_has_no_above_4g_warning() -> None:
    r = plan_workstation(WorkstationRequest(gpu="rtx-3090", num_gpus=2))
    assert "ws_above_4g" not in {n.code for n in r.warnings}


@pytest.mark.parametrize(
    ("question", "lead"),
    [
        ("is my 1000W PSU enough for two 3090s running llama.cpp?", "A 1,000 W PSU is too small"),
        ("Do you think a NZXT C1200 Gold gives enough headroom for my dual 3090s?", "A 1,200 W PSU is tight"),
        ("I have a 1600W PSU, enough for one RTX 4090?", "Yes: a 1,600 W PSU carries 1 ×"),
        ("单卡 3090，850w金牌电源能带得动吗", "850 W 电源带 1 张"),
        ("四张3090跑推理，1600W电源够不够？", "这需要不止一个电源"),
    ],
)
def test_stated_psu_leads_with_its_verdict(question: str, lead: str) -> None:
    _plan, answer = planned_turn(question)
    assert lead in lead_of(answer), answer


def test_capped_verdict_names_the_cap_command() -> None:
    _plan, answer = planned_turn("Do you think a NZXT C1200 Gold gives enough headroom for my dual 3090s?")
    assert "nvidia-smi -pl 280" in lead_of(answer)


def test_owned_server_card_leads_with_plug_and_bios() -> None:
    q = "我装的M40计算卡，驱动装好后还是不能用，报错代码 10 系统资源不够，我尝试用普通的500w电源机器直接亮红"
    _plan, answer = planned_turn(q)
    head = lead_of(answer)
    assert "EPS12V" in head and "Above 4G Decoding" in head, answer
    assert not check(answer, "zh"), check(answer, "zh")


@pytest.mark.parametrize(
    ("question", "lead", "lang"),
    [
        ("Can I run Llama 3 8B on a Moore Threads MTT S80?", "not a CUDA card", "en"),
        ("本地想使用MTT S80跑离线的大模型，现在这个显卡支持吗？", "MUSA", "zh"),
        ("Does vLLM work on Huawei Ascend 910B? We have an Atlas 800I A2 server.", "vllm-ascend", "en"),
        ("关于昇腾显卡910A服务器可以安装vllm_ascend的问题？支持吗？", "torch_npu", "zh"),
    ],
)
def test_accelerator_outside_catalog_leads_with_its_stack(question: str, lead: str, lang: str) -> None:
    _plan, answer = planned_turn(question)
    assert lead in lead_of(answer), answer
    assert not check(answer, lang), check(answer, lang)


def test_ascend_910a_says_it_is_off_the_list_and_fp16_only() -> None:
    _plan, answer = planned_turn("关于昇腾显卡910A服务器可以安装vllm_ascend的问题？支持吗？")
    assert "不在 vllm-ascend 的官方支持列表" in answer and "FP16" in answer


def test_ascend_count_and_memory_size_the_job() -> None:
    plan, answer = planned_turn("我们有8张昇腾910B，能部署 Qwen2.5-72B 吗？")
    calls = [c for c in plan.calls if c.name == "estimate_vram"]
    assert calls and calls[0].args["num_gpus"] == 8
    assert "64 GB" in answer


@pytest.mark.parametrize(
    ("question", "head"),
    [
        ("我的P40插上以后设备管理器代码10，电源是850w的，怎么办", "能不能在你的机器里点亮"),
        ("My Tesla P40 won't boot in my Dell R720, which power cable do I need?", "What decides whether"),
        ("装了一张二手 P100 到 HP DL380 里，开机亮黄灯，供电要怎么接？", "能不能在你的机器里点亮"),
        ("I have a K80 in my desktop and Windows shows Code 10 for it, is my 650W PSU the problem?", "EPS12V"),
    ],
)
def test_card_that_will_not_start_leads_with_plug_and_bios(question: str, head: str) -> None:
    _plan, answer = planned_turn(question)
    first = lead_of(answer)
    assert head in first and "EPS12V" in first, answer


def test_a_card_question_without_a_start_problem_keeps_its_verdict_first() -> None:
    _plan, answer = planned_turn("I just bought a used Tesla P40 for local LLMs, anything I should know?")
    assert lead_of(answer).startswith("Use llama.cpp or Ollama"), answer
    assert "EPS12V" not in answer  # the plug is the answer to a start problem, not one more fact in every assessment
