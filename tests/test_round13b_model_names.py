"""Round 13b, models named the way people write them:

- a fine-tune named by its own name ("Dolly v2", "Zephyr", "WizardLM 13B", "极光 Aurora") is its base model's shape
  (model_names.yaml `fine_tunes`, each with its model card's base_model), read as that base and said so in the
  user's language;
- a model the registry already holds under its own name (Vicuna, Mistral-7B) keeps reading as itself;
- a bare model name in a slow-speed report ("Command R runs slowly on my Mac", "mistral 跑得很慢") is the build its
  Ollama library's default tag pulls (Command R: the 08-2024 build), said in one line, so the diagnosis has a model.
"""

import pytest
from asking import ask_checked, planned_turn

from assistant.understanding import _parse


@pytest.mark.parametrize(
    ("text", "model"),
    [
        ("How much VRAM to fine-tune Dolly v2 12B on an A100?", "pythia-12b"),
        ("dolly-v2-3b 在 3060 上能跑吗", "pythia-2.8b"),
        ("Can I run dolly v1 on a 3090?", "gpt-j-6b"),
        ("Can I run zephyr on a 3060 12GB?", "mistral-7b-v0.1"),
        ("OpenHermes 2.5 on a 4060 Ti 16GB, will it fit?", "mistral-7b-v0.1"),
        ("WizardLM 13B on a 4090?", "llama-2-13b"),
        ("两张4090能微调 Aurora 吗", "mixtral-8x7b"),
        ("用 airoboros 70b 推理需要几张 3090", "llama-2-70b"),
        ("[sahil280114/codealpaca] How long did it take? — Assuming Lambda Labs 8xA100 and 80gb", "llama-1-7b"),
        ("stanford alpaca 13b 微调要多少显存", "llama-1-13b"),
        ("chinese-alpaca-2-13b 用 3090 能跑吗", "llama-2-13b"),
        ("Chinese-LLaMA-Alpaca 7B 在 2080Ti 上微调显存够吗", "llama-1-7b"),
    ],
)
def test_a_fine_tune_named_by_its_own_name_is_its_base_model(text, model) -> None:
    q = _parse(text)
    assert q.model == model, (q.model, q.model_how, q.unknown_model)
    assert q.unknown_model is None


@pytest.mark.parametrize(
    ("text", "model"),
    [
        ("Can I run vicuna 13b on a 3090?", "vicuna-13b"),
        ("Can I run Mistral-7B-v0.3 on a 3060?", "mistral-7b-v0.3"),
        ("Mixtral 8x7B 两张 4090 能跑吗", "mixtral-8x7b"),
    ],
)
def test_a_model_named_by_its_own_registry_name_is_untouched(text, model) -> None:
    assert _parse(text).model == model


@pytest.mark.parametrize(
    "text",
    [
        "How long to fine-tune on the alpaca dataset with 8x A100?",
        "用 databricks-dolly-15k 微调要多久，8张A100",
        "alpaca 格式的数据集 10万条，微调需要多少显存",
    ],
)
def test_a_fine_tunes_instruction_set_is_no_model(text) -> None:
    q = _parse(text)
    assert q.model not in ("llama-1-7b", "pythia-12b", "gpt-j-6b"), q.model


@pytest.mark.parametrize(
    ("text", "said", "absent"),
    [
        ("Can I run zephyr on a 3060 12GB?", "fine-tune of Mistral-7B-v0.1", None),
        ("Zephyr 在 3060 12G 上能跑吗", "Mistral-7B-v0.1 上微调", "fine-tune"),
        ("两张4090能微调 Aurora 吗", "Aurora 是在 Mixtral-8x7B 上微调", "fine-tune"),
        ("dolly 推理需要多少显存", "Pythia-12B", "fine-tune"),
    ],
)
def test_the_answer_says_which_base_was_sized(advisor, text, said, absent) -> None:
    final = ask_checked(advisor, text, consistent=True)
    assert said in final.answer, final.answer
    if absent:
        assert absent not in final.answer, final.answer


@pytest.mark.parametrize(
    ("text", "model", "said"),
    [
        ("Command R runs very slowly on my M2 Pro 32GB Mac, 1 token every 20 seconds", "command-r-08-2024", "08-2024"),
        ("Command R 在 M2 Pro 32G 的 Mac 上跑得特别慢，20 秒才出一个 token", "command-r-08-2024", "默认标签"),
        ("mistral runs very slowly on my 3060, 2 tokens/s", "mistral-7b-v0.3", "mistral:latest"),
        ("qwen2.5 在 4060 上跑得很慢，每秒只有 2 个 token", "qwen2.5-7b", "qwen2.5:latest"),
        ("llama3 is really slow on my GTX 1660, about 1 token/s", "llama-3-8b", "llama3:latest"),
    ],
)
def test_a_bare_name_in_a_slow_report_is_its_default_build(text, model, said) -> None:
    plan, answer = planned_turn(text, traceable=False)
    diagnosed = [c.args for c in plan.calls if c.name == "diagnose"]
    assert diagnosed and diagnosed[0].get("model") == model, (plan.calls, answer)
    assert said in answer, answer


@pytest.mark.parametrize(
    ("text", "model"),
    [
        ("Can I run Command R on a 4090?", "command-r-08-2024"),
        ("command r 在两张 3090 上能跑吗", "command-r-08-2024"),
        ("Command R 03-2024 on a 4090?", "command-r-35b"),
        ("Command R+ on 4x 3090?", "command-r-plus-104b"),
        ("command r+ 需要几张 4090", "command-r-plus-104b"),
        ("Command R7B on a 3060?", "command-r7b"),
    ],
)
def test_command_r_alone_is_its_default_build_and_its_plus_is_the_plus_model(text, model) -> None:
    plan, answer = planned_turn(text, traceable=False)
    assert plan.scenario.model == model, (plan.calls, answer)
    if model == "command-r-08-2024":
        assert "08-2024" in answer.split("\n\n")[1], answer  # the build assumed, said right after the lead
