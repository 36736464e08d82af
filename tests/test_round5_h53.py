"""Conversation state and question parts (issue 19, round 5): the engine the user named stays for the
conversation; "run or fine-tune" answers both jobs; a service for N users with no model sizes a typical one."""

from __future__ import annotations

import uuid

from assistant.events import FinalEvent


def _session() -> str:
    return f"t-{uuid.uuid4().hex[:8]}"


def _calls(final: FinalEvent, name: str) -> list[dict]:
    return [c.args for c in final.tool_calls if c.name == name]


def _turns(advisor, *texts: str) -> list[FinalEvent]:
    sid = _session()
    out = [advisor.ask(sid, t) for t in texts]
    assert all(isinstance(f, FinalEvent) for f in out)
    return out  # type: ignore[return-value]


def test_the_engine_named_in_turn_one_sizes_a_follow_up_whose_first_calls_carried_none(advisor):
    _, second = _turns(advisor, "I use vLLM. What is the biggest model I can run on a 4090?", "and on a 3060?")
    (args,) = _calls(second, "largest_model")
    assert args.get("engine") == "vllm"
    assert args.get("precision") != "q4_k_m"  # vLLM loads no GGUF file


def test_the_engine_stays_in_chinese_and_for_llama_cpp(advisor):
    _, second = _turns(advisor, "我用ollama，4090能跑多大的模型？", "那3060呢？")
    (args,) = _calls(second, "largest_model")
    assert args.get("engine") == "ollama" or args.get("engine") == "llama.cpp"


def test_a_new_engine_named_replaces_the_old_one(advisor):
    first = "I use vLLM. What is the biggest model I can run on a 4090?"
    _, second = _turns(advisor, first, "I switched to Ollama, and on a 3060?")
    (args,) = _calls(second, "largest_model")
    assert args.get("engine") in ("ollama", "llama.cpp")


def test_a_fit_follow_up_keeps_the_engine(advisor):
    _, second = _turns(advisor, "我用vLLM，4090能跑Qwen2.5-14B吗？", "那3060呢？")
    assert "vLLM" in second.answer
    assert all(a.get("engine") == "vllm" for a in _calls(second, "estimate_vram") if a.get("gpu") == "rtx-3060-12gb")


def test_a_personal_purchase_under_vllm_sizes_awq_not_gguf(advisor):
    (final,) = _turns(advisor, "我用vLLM部署，预算2万买什么卡跑Qwen2.5-14B？")
    assert "q4_k_m" not in final.answer.split("\n")[0].lower()


def test_run_or_fine_tune_answers_both_jobs(advisor):
    for text in ("Which models can I run or fine-tune on my 4070 12GB?", "我的4070 12G能跑和微调哪些模型？"):
        (final,) = _turns(advisor, text)
        lead = final.answer.split("\n")[0]
        assert "Q4_K_M" in lead or "4-bit" in lead, text
        assert "QLoRA" in lead, text


def test_the_size_of_a_model_to_fine_tune_is_only_the_fine_tune(advisor):
    (final,) = _turns(advisor, "能跑多大的模型来微调，我有一张4090")
    (args,) = _calls(final, "largest_model")
    assert args["mode"] == "finetune"


def test_a_service_for_many_users_with_no_model_sizes_a_typical_one(advisor):
    for text in ("公司 200 人用知识库问答，要什么服务器", "100 concurrent users, what GPU?"):
        (final,) = _turns(advisor, text)
        rec = _calls(final, "recommend_gpus")
        assert rec and rec[0]["workload"]["model"] == "qwen2.5-14b", text
        assert "Qwen2.5-14B" in final.answer


def test_users_named_with_a_model_keep_the_model(advisor):
    (final,) = _turns(advisor, "50 concurrent users on Llama-3.1-8B, what GPU?")
    rec = _calls(final, "recommend_gpus")
    assert rec and rec[0]["workload"]["model"] == "llama-3.1-8b"


def test_memory_for_concurrent_users_with_no_model_sizes_the_typical_one(advisor):
    (final,) = _turns(advisor, "need to serve 20 concurrent users a chatbot, how much VRAM?")
    sized = _calls(final, "estimate_vram")
    assert sized and sized[0]["model"] == "qwen2.5-14b" and sized[0]["batch"] == 20
