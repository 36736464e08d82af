"""A cited passage fits the answer: section subjects against the turn's subjects (assistant/subjects.py)."""

from __future__ import annotations

import pytest

from assistant.citations import citations_from
from assistant.subjects import fits, gpu_family, section_subjects, turn_subjects
from knowledge.passage import Passage, SearchResult
from tools.tco import TcoRequest, calculate_tco


def passage(doc: str, section: str, chunk: int = 0) -> Passage:
    return Passage(
        doc_id=doc,
        title=doc,
        section=section,
        section_path=[section],
        lang=doc.rsplit(".", 1)[-1],
        source=f"{doc}.md",
        text=f"text of {section}",
        score=1.0,
        chunk_id=f"{doc}#{chunk}",
        collection="guides",
    )


@pytest.mark.parametrize(
    ("doc", "section", "about"),
    [
        ("moe-models.en", "Decode speed: active parameters, and the batch-size caveat", {"moe"}),  # the guide
        ("china-market-skus.zh", "RTX 4090D 与 RTX 5090D", {"china", "gpu:rtx-4090-d", "gpu:RTX 5090D"}),
        ("china-market-skus.zh", "H20 擅长什么、不擅长什么", {"china", "gpu:h20"}),  # not the H200
        ("scenario-playbooks.en", "Student: learning on a small budget", {"student"}),  # not every person
        ("scenario-playbooks.zh", "小团队 / 实验室：本地加云", {"persona:team"}),
        ("training-memory.zh", "QLoRA：4-bit 底座 + LoRA", {"qlora"}),  # about QLoRA, though it names LoRA
        ("multi-gpu-parallelism.zh", "只有 PCIe 的消费级多卡（RTX 4090 等）", set()),  # a bracketed example
        ("china-market-skus.zh", "国内采购注意事项：渠道、保修、租赁", {"china"}),  # 租赁 in a heading: not cloud
        ("interconnect.en", "Why the interconnect matters", set()),  # general background
    ],
)
def test_a_section_is_about_what_its_heading_names_and_its_single_subject_guide(doc, section, about):
    assert section_subjects(passage(doc, section)) == about


def test_gpu_families_join_memory_and_form_factor_variants_but_keep_other_cards_apart():
    assert gpu_family("a100-80gb-sxm") == gpu_family("a100-40gb-pcie") == "a100"
    assert gpu_family("rtx-4090-d") != gpu_family("rtx-4090")
    h200 = turn_subjects(["DeepSeek-V3 用 8 张 H200 部署"], [], [])
    assert "gpu:h200" in h200 and "gpu:h20" not in h200


def test_a_turn_is_about_its_words_its_slots_its_tools_and_who_it_was_sized_for():
    dense = turn_subjects(["Decode speed of Qwen2.5-14B on an RTX 4090 with AWQ?"], [], [])
    assert "moe" not in dense and {"gpu:rtx-4090", "gptq_awq"} <= dense
    moe = turn_subjects(["它要多少显存"], [("estimate_vram", {"model": "deepseek-v3"})], [])
    assert "moe" in moe  # the model's architecture, not a word the user typed
    qlora = turn_subjects(["那 qlora 呢"], [], [])
    assert {"qlora", "bitsandbytes"} <= qlora  # QLoRA's NF4 base comes from bitsandbytes
    tco = calculate_tco(TcoRequest(gpu="h100-sxm", num_gpus=8, currency="CNY"))
    rent = turn_subjects(["8 张 H100 三年"], [("calculate_tco", {"gpu": "h100-sxm"})], [tco])
    assert {"cloud", "persona:company"} <= rent  # buy vs rent is about cloud prices; eight H100s a company's


def test_off_topic_sections_are_left_out_and_the_next_fitting_ones_take_their_place():
    ranked = SearchResult(
        passages=[
            passage("moe-models.en", "Decode speed: active parameters", 4),
            passage("memory-capacity-bandwidth-ecc.en", "Bandwidth decides decode speed", 2),
            passage("apple-silicon-local-inference.en", "When a Mac is the right choice", 9),
            passage("performance-pitfalls.en", "Measure health with MFU and MBU", 3),
            passage("kv-cache-serving-engines.en", "How big is the KV cache?", 1),
        ]
    )
    turn = turn_subjects(["Decode speed of Qwen2.5-14B on an RTX 4090?"], [], [])
    cited = citations_from([ranked], subjects=turn, limit=2)
    assert [c.doc_id for c in cited] == ["memory-capacity-bandwidth-ecc.en", "performance-pitfalls.en"]
    unfiltered = citations_from([ranked], limit=2)
    assert len(unfiltered) == 2 and unfiltered[0].doc_id == "moe-models.en"
    assert fits(passage("moe-models.en", "Memory sizing examples"), turn | {"moe"})


def test_a_stored_answer_keeps_which_sections_it_cited_and_rebuilds_the_same_citations():
    from assistant.citations import cited_again

    ranked = SearchResult(
        passages=[
            passage("moe-models.en", "Decode speed: active parameters", 4),
            passage("memory-capacity-bandwidth-ecc.en", "Bandwidth decides decode speed", 3),
            passage("performance-pitfalls.en", "Measure health with MFU and MBU", 1),
        ],
        section_passages=[passage("memory-capacity-bandwidth-ecc.en", "Bandwidth decides decode speed", 2)],
    )
    turn = turn_subjects(["Decode speed of Qwen2.5-14B on an RTX 4090?"], [], [])
    cited = citations_from([ranked], subjects=turn)
    assert [c.doc_id for c in cited] == ["memory-capacity-bandwidth-ecc.en", "performance-pitfalls.en"]
    assert cited[0].text.startswith("text of Bandwidth")  # both passages of the section, in the guide's order
    assert cited_again([ranked], [[c.doc_id, c.section] for c in cited]) == cited
