"""The grounding check: numbers must trace to tool results, passages or the user's words."""

from assistant.grounding import check_grounding


def test_numbers_from_tools_are_traceable_with_rounding_and_units():
    result = {"per_gpu_gib": 10.2987, "decode_tokens_per_s": 1602.4, "max_context": 41908}
    answer = "About 10.3 GiB per GPU, 1,602 tokens/s, up to 41,908 tokens."
    assert check_grounding(answer, [result], [], []).untraceable == []


def test_invented_numbers_are_reported():
    report = check_grounding("You need 37.5 GiB and 999 tokens/s.", [{"per_gpu_gib": 10.3}], [], [])
    assert report.untraceable == ["37.5", "999"]


def test_user_numbers_and_chinese_amounts_count():
    report = check_grounding("预算 20,000 元，15000 也行", [], [], ["预算2万，或者1.5万"])
    assert report.untraceable == []


def test_names_and_citations_are_not_claims():
    report = check_grounding("Llama-3.1-70B on an A100 [1] with Qwen2.5-7B", [], [], [])
    assert report.numbers_checked == 0
