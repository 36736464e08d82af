"""Notebook tiers and cloud instances as where the job runs (understanding/notebook_tier.py, lexicon
gpus.notebook_tiers, rent_where's instance asks) and a notebook's RAM running out while loading."""

from __future__ import annotations

import uuid


def _ask(advisor, *texts: str):
    sid = f"nb-{uuid.uuid4().hex[:8]}"
    final = None
    for text in texts:
        final = advisor.ask(sid, text)
    return final


def _lead(answer: str) -> str:
    return " ".join(answer.split("\n\n")[:2])


def test_free_colab_is_sized_on_its_t4_and_names_its_ram(advisor):
    final = _ask(advisor, "Can I run Mistral 7B on the free Colab tier?")
    assert any(c.args.get("gpu") == "t4" for c in final.tool_calls)
    assert "Yes" in _lead(final.answer)
    assert "Google Colab" in final.answer and "less RAM than the GPU" in final.answer


def test_cloud_machine_type_is_its_gpus(advisor):
    final = _ask(advisor, "Can I run Llama 3.1 70B in 4-bit on a g2-standard-48?")
    assert any(c.args.get("gpu") == "l4" and c.args.get("num_gpus") == 4 for c in final.tool_calls)


def test_kaggle_is_two_t4s(advisor):
    final = _ask(advisor, "免费的 Kaggle 能跑 Qwen2.5-14B 吗")
    assert any(c.args.get("gpu") == "t4" and c.args.get("num_gpus") == 2 for c in final.tool_calls)
    assert "Kaggle" in final.answer


def test_paid_tier_follow_up_keeps_the_model_sized_before(advisor):
    final = _ask(advisor, "Qwen2.5-7B LoRA 微调要多少显存？", "Colab Pro 可以满足吗")
    calls = [c for c in final.tool_calls if c.name == "estimate_vram"]
    assert calls and calls[0].args.get("model") == "qwen2.5-7b" and calls[0].args.get("gpu") == "a100-40gb-sxm"
    assert "可以" in _lead(final.answer) and "Colab Pro" in final.answer


def test_full_fine_tune_on_colab_pro_does_not_fit(advisor):
    final = _ask(advisor, "Colab Pro 能全参微调 Qwen2.5-7B 吗？")
    assert "放不下" in _lead(final.answer)


def test_instance_size_ask_leads_with_the_instance_and_its_memory(advisor):
    final = _ask(advisor, "What size EC2 instance do I need for gpt-j-6b?")
    lead = _lead(final.answer)
    assert "g4dn" in lead and "16 GB" in lead


def test_colab_ram_out_with_no_model_leads_with_the_ram(advisor):
    final = _ask(advisor, "colab内存最大13G，跑不起来，Loading checkpoint shards: 62% 到这里colab就内存爆掉重启了")
    assert "largest_model" not in [c.name for c in final.tool_calls]
    assert "系统内存" in _lead(final.answer)
