"""compare_gpus: every option computed with the one fit rule, a verdict consistent with the rows, interconnect
facts from the catalog; and the chat's comparisons through the offline planner (no knowledge store)."""

from __future__ import annotations

import json
import re

import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from pydantic import ValidationError

from assistant.planner.model import OfflinePlanner
from assistant.scenario import Scenario
from assistant.toolset import ToolName, run_tool, tool_spec
from assistant.understanding import parse
from tools import advice
from tools.compare import CompareRequest, CompareResult, CompareRow, compare_gpus
from tools.notes import codes
from tools.vram import VramRequest, estimate_vram


def _compare(**kw) -> CompareResult:
    return compare_gpus(CompareRequest(**kw))


def _row(r: CompareResult, gpu_id: str, **match) -> CompareRow:
    return next(x for x in r.rows if x.gpu_id == gpu_id and all(getattr(x, k) == v for k, v in match.items()))


def _pick(r: CompareResult) -> CompareRow:
    assert r.verdict.pick is not None
    return r.rows[r.verdict.pick]


# ---- the tool ---------------------------------------------------------------------------------------------


def test_gpu_compare_computes_every_column_and_picks_the_faster_card_at_a_similar_price() -> None:
    r = _compare(workload=VramRequest(params_b=13), gpus=["L40S", "A100 80G"], currency="CNY")
    assert r.axis == "gpus" and [x.gpu_id for x in r.rows] == ["l40s", "a100-80gb-sxm"]
    for row in r.rows:
        assert row.fit is not None and row.fit.fits and row.count == 1
        assert row.memory_per_gpu_gib and row.tokens_per_s and row.tokens_per_s_per_user
        assert row.price_each and row.cards_cost and row.rent_per_hour and row.cost_per_1m_tokens
        assert row.ecc is True
    assert _row(r, "l40s").link_kind == "pcie" and _row(r, "a100-80gb-sxm").link_kind == "nvlink"
    assert _pick(r).gpu_id == "a100-80gb-sxm"  # 2x the decode speed for ~15% more money
    reasons = {n.code for n in r.verdict.reasons}
    assert "fits_one_card" in reasons and reasons & {"cmp_fastest", "cmp_fastest_times"}
    assert r.market == "cn" and any(n.code == "cmp_not_sold_new_cn" for n in _row(r, "l40s").notes)


def test_methods_compare_without_a_gpu_sizes_each_on_reference_cards_and_leads_with_lora() -> None:
    r = _compare(workload=VramRequest(model="qwen2.5-7b", mode="full"), methods=["full", "lora", "qlora"])
    assert r.axis == "methods" and [x.mode for x in r.rows] == ["full", "lora", "qlora"]
    full, lora, qlora = r.rows
    assert full.count and full.count > 1 and not full.fit.fits  # full fine-tuning needs several 80 GB cards
    assert lora.count == 1 and qlora.count == 1
    assert qlora.memory_per_gpu_gib < lora.memory_per_gpu_gib < full.fit.per_gpu_gib
    assert all(x.tokens_per_s and x.tokens_per_s_per_user is None for x in r.rows)  # training tokens/s
    assert _pick(r).mode == "lora"
    assert "cmp_quality_lora" in {n.code for n in r.verdict.reasons}
    assert "cmp_reference_cards" in {n.code for n in r.assumptions}
    assert all(x.context_tokens == 2048 for x in r.rows)  # the training default, stated
    assert "default_context_training" in {n.code for n in r.assumptions}


def test_precision_compare_on_one_gpu_picks_the_format_that_needs_fewer_cards() -> None:
    r = _compare(workload=VramRequest(model="llama-3.1-70b"), gpus=["H100"], precisions=["fp8", "bf16"])
    assert r.axis == "precisions"
    fp8, bf16 = _row(r, "h100-sxm", precision="fp8"), _row(r, "h100-sxm", precision="bf16")
    assert fp8.fit.fits and fp8.count == 1
    assert not bf16.fit.fits and bf16.count == bf16.fit.gpus_needed == 2
    assert _pick(r).precision == "fp8"
    assert {"cmp_one_card_enough", "cmp_quality_fp8"} <= {n.code for n in r.verdict.reasons}
    other = next(o for o in r.verdict.others if o.index == r.rows.index(bf16))
    assert {"cmp_needs_more_cards", "cmp_offers_quality"} <= {n.code for n in other.notes}


def test_equal_cards_keep_the_higher_quality_way() -> None:
    r = _compare(workload=VramRequest(model="qwen2.5-7b", mode="lora"), gpus=["A100 80G"], methods=["lora", "qlora"])
    assert all(x.count == 1 for x in r.rows)
    assert _pick(r).mode == "lora"  # QLoRA fits as well but is no faster: LoRA's quality wins


def test_mi300x_talks_over_infinity_fabric() -> None:
    r = _compare(workload=VramRequest(model="llama-3.1-70b"), gpus=["H100", "H200", "MI300X"])
    mi = _row(r, "mi300x")
    assert (mi.link_kind, mi.link_gbs) == ("infinity_fabric", 896)
    assert _row(r, "h100-sxm").link_kind == "nvlink"
    assert mi.count == 1 and _pick(r).gpu_id == "mi300x"  # one card holds 70B in bf16, at half the price
    assert any(n.code == "rocm_inference" for n in mi.notes)
    texts = [n.render(lang) for n in r.verdict.reasons + mi.notes for lang in ("en", "zh")]
    assert not any("PCIe" in t for t in texts)


def test_gaudi_and_apple_links() -> None:
    r = _compare(gpus=["Gaudi 3", "M4 Max"])
    assert [(x.link_kind, x.link_gbs) for x in r.rows] == [("ethernet", 1200), ("none", None)]


def test_counts_are_the_setup_asked_and_a_count_that_does_not_fit_says_so() -> None:
    w = VramRequest(params_b=13, mode="lora", grad_checkpointing=True)
    r = _compare(workload=w, gpus=["4090", "A100 80G"], counts={"4090": 4, "A100 80G": 1})
    rtx = _row(r, "rtx-4090")
    assert rtx.count_asked == rtx.count == 4 and rtx.fit.fits
    assert _pick(r).gpu_id == "a100-80gb-sxm"  # one card beats four at a similar price
    r = _compare(workload=VramRequest(model="llama-3.1-70b", precision="bf16"), gpus=["4090"], counts={"4090": 2})
    row = r.rows[0]
    assert not row.fit.fits and row.count == row.fit.gpus_needed and row.count > 2
    assert any(n.code == "cmp_not_fits_asked" for n in row.notes)


def test_no_workload_compares_the_cards_and_still_gives_a_verdict() -> None:
    r = _compare(gpus=["4090", "A6000", "L40S"], currency="CNY")
    assert r.axis == "cards" and r.verdict.pick is not None
    assert all(x.price_each and x.fit is None for x in r.rows)
    # no job to size: memory per money, room to grow (48 GB for 40% more than the 24 GB 4090); the 4090 is said faster
    assert _pick(r).gpu_id == "rtx-a6000" and r.focus == "memory"
    rtx = next(o for o in r.verdict.others if r.rows[o.index].gpu_id == "rtx-4090")
    assert {"less_memory", "faster_by", "cmp_no_ecc"} <= {n.code for n in rtx.notes}
    assert "cmp_no_workload" in {n.code for n in r.assumptions}


def test_a_way_the_estimator_refuses_is_a_row_with_an_error() -> None:
    r = _compare(workload=VramRequest(model="qwen2.5-7b", mode="full"), gpus=["H100"], precisions=["bf16", "nf4"])
    bad = _row(r, "h100-sxm", precision="nf4")
    assert bad.error and "qlora" in bad.error and bad.count is None
    assert _pick(r).precision == "bf16"
    assert any(n.code == "cmp_error" for o in r.verdict.others for n in o.notes)


def test_a_mac_is_one_chip() -> None:
    r = _compare(workload=VramRequest(model="llama-3.1-405b"), gpus=["M2 Max", "H100"])
    mac = _row(r, "apple-m2-max-96gb")
    assert mac.count is None and any(n.code == "cmp_one_chip" for n in mac.notes)
    assert _pick(r).gpu_id == "h100-sxm"


def test_nothing_fits_is_a_verdict_too() -> None:
    r = _compare(workload=VramRequest(model="llama-3.1-70b", precision="bf16"), gpus=["M4 Pro"])
    assert r.verdict.pick is None and r.verdict.reasons[0].code == "cmp_nothing_fits"


CASES = [
    dict(workload=VramRequest(params_b=13), gpus=["L40S", "A100 80G"]),
    dict(workload=VramRequest(model="qwen2.5-14b"), gpus=["3090", "4090"], currency="CNY"),
    dict(workload=VramRequest(model="qwen2.5-7b", mode="full"), methods=["full", "lora", "qlora"]),
    dict(workload=VramRequest(model="llama-3.1-70b"), gpus=["H100", "H200", "MI300X"]),
    dict(workload=VramRequest(model="llama-3.1-70b"), gpus=["H100"], precisions=["fp8", "bf16"]),
    dict(workload=VramRequest(model="qwen2.5-32b", batch=16), gpus=["4090", "A6000", "L40S", "H100"]),
    dict(workload=VramRequest(model="mixtral-8x7b", mode="qlora"), gpus=["4090", "MI300X"]),
    dict(workload=VramRequest(model="qwen2.5-7b"), precisions=["bf16", "awq", "q4_k_m"]),
    dict(workload=VramRequest(model="qwen2.5-14b", mode="lora"), gpus=["4090", "3090"], methods=["lora", "qlora"]),
    dict(gpus=["H20", "H800"], currency="CNY"),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: "-".join(c.get("gpus", [])) or "no-gpu")
def test_the_verdict_is_consistent_with_the_rows(case: dict) -> None:
    r = _compare(**case)
    v = r.verdict
    assert v.reasons, "a verdict always says why"
    assert sorted(v.order) == list(range(len(r.rows)))
    assert sorted(o.index for o in v.others) == sorted(i for i in range(len(r.rows)) if i != v.pick)
    if any(x.count is not None and x.error is None for x in r.rows):
        p = _pick(r)
        assert v.order[0] == v.pick and p.error is None and p.count is not None
        assert v.label == p.label and v.gpu_id == p.gpu_id
        if p.fit is not None:  # it fits on the count it is shown with
            assert p.fit.fits or p.count == p.fit.gpus_needed
    for n in [*v.reasons, *r.assumptions, *r.warnings, *(n for o in v.others for n in o.notes)]:
        assert n.code in codes()
        assert n.render("en") and n.render("zh")


@pytest.mark.parametrize("case", CASES[:-1], ids=lambda c: "-".join(c.get("gpus", [])) or "no-gpu")
def test_the_fit_is_estimate_vrams_fit(case: dict) -> None:
    """The one fit rule: each row's fit is estimate_vram(gpu=...).fit of that row's workload, never recomputed."""
    r = _compare(**case)
    w = case["workload"]
    for row in r.rows:
        if row.error:
            continue
        mode = row.mode or w.mode
        same = w.model_dump(exclude={"gpu", "num_gpus", "tp", "mode", "precision", "context_tokens"})
        training = mode != "inference"
        direct = estimate_vram(
            VramRequest(
                **same | ({"grad_checkpointing": True} if training else {}),
                mode=mode,
                precision=row.precision,
                context_tokens=row.context_tokens,
                gpu=row.gpu_id,
                num_gpus=row.count_asked or 1,
            )
        )
        assert direct.fit is not None and row.fit is not None
        assert (row.fit.fits, row.fit.gpus_needed, row.fit.per_gpu_gib) == (
            direct.fit.fits,
            direct.fit.gpus_needed,
            direct.fit.per_gpu_gib,
        )
        if row.count == direct.fit.gpus_needed and row.count != (row.count_asked or 1):
            assert row.memory_per_gpu_gib == direct.fit.per_gpu_gib_needed


def test_requests_that_cannot_be_compared_say_what_to_do() -> None:
    with pytest.raises(ValidationError, match="needs the workload"):
        CompareRequest(gpus=["4090"], methods=["lora", "qlora"])
    with pytest.raises(ValidationError, match="name 1-4 GPUs"):
        CompareRequest()
    with pytest.raises(ValidationError, match="not in gpus"):
        CompareRequest(gpus=["4090"], counts={"A100": 2})
    with pytest.raises(ValidationError, match="at most 8"):
        CompareRequest(
            workload=VramRequest(model="qwen2.5-7b"), gpus=["4090", "3090", "A100"], precisions=["bf16", "fp8", "awq"]
        )
    with pytest.raises(ValidationError):
        CompareRequest(workload=VramRequest(model="qwen2.5-7b"), precisions=["bf16", "fp7"])


def test_the_tool_runs_through_the_toolset() -> None:
    spec = tool_spec(ToolName.COMPARE_GPUS)
    assert spec is not None and spec.request is CompareRequest and spec.result is CompareResult
    out = run_tool(spec, {"gpus": ["4090", "5090"], "workload": {"model": "qwen2.5-14b", "precision": "awq"}})
    assert out.ok, out.error
    out = run_tool(spec, {"gpus": []})
    assert not out.ok and "name 1-4 GPUs" in (out.error or "")


# ---- the parser slots the capability reads -------------------------------------------------------------------


def test_parser_lists_every_method_and_format_named() -> None:
    q = parse("full finetune vs lora vs qlora on qwen2.5 7b")
    assert q.modes_mentioned == ["full", "lora", "qlora"] and q.mode == "full"
    q = parse("FP8 vs BF16 for Llama-3.1-70B on H100")
    assert q.precisions_mentioned == ["fp8", "bf16"] and q.precision == "fp8"
    assert parse("LoRA vs 全参 微调 Qwen2.5-7B").modes_mentioned == ["lora", "full"]
    assert parse("4090 支持 BF16 吗").precisions_mentioned == []  # a feature asked about, not a format
    assert parse("不用 FP8，用 BF16 跑 Llama-3.1-70B").precisions_mentioned == ["bf16"]


# ---- the chat, through the offline planner -----------------------------------------------------------------


def chat(question: str) -> tuple[str, list[tuple[str, dict, object]]]:
    """The offline planner's turn, tools run as the agent runs them (no guide search: no store needed)."""
    names = [s for s in ToolName if s != ToolName.SEARCH_GUIDES]
    planner = OfflinePlanner().bind_tools([{"name": str(n)} for n in names])
    messages: list = [HumanMessage(question)]
    calls: list[tuple[str, dict, object]] = []
    for _ in range(4):
        reply = planner.respond(messages)
        messages.append(reply)
        if not reply.tool_calls:
            return str(reply.content), calls
        for call in reply.tool_calls:
            outcome = run_tool(tool_spec(call["name"]), call["args"])
            assert outcome.ok, (call, outcome.error)
            calls.append((call["name"], call["args"], outcome.result))
            messages.append(ToolMessage(json.dumps(outcome.result), tool_call_id=call["id"]))
    raise AssertionError("the planner did not finish")


def _compared(calls: list) -> tuple[dict, CompareResult]:
    found = [(args, CompareResult.model_validate(res)) for name, args, res in calls if name == ToolName.COMPARE_GPUS]
    assert len(found) == 1, [c[0] for c in calls]
    return found[0]


def _verdict_then_table(answer: str, head: str) -> None:
    assert answer.startswith(head), answer[:120]
    assert answer.index(head) < answer.index("\n| ")  # the verdict comes first, then the table


def test_chat_l40s_vs_a100_for_13b_inference() -> None:
    answer, calls = chat("比较一下 L40S 和 A100 80G，做 13B 推理选哪个")
    args, r = _compared(calls)
    assert args["gpus"] == ["l40s", "a100-80gb-sxm"] and args["currency"] == "CNY"
    assert args["workload"]["params_b"] == 13 and args["workload"]["mode"] == "inference"
    assert ToolName.RECOMMEND_GPUS not in [c[0] for c in calls]
    _verdict_then_table(answer, "**结论：选")
    assert "A100" in answer.split("\n")[0] and "L40S" in answer
    for row in r.rows:
        assert f"{row.tokens_per_s:,.1f}" in answer


def test_chat_methods_compare() -> None:
    answer, calls = chat("full finetune vs lora vs qlora on qwen2.5 7b")
    args, r = _compared(calls)
    assert args["methods"] == ["full", "lora", "qlora"] and args["workload"]["model"] == "qwen2.5-7b"
    _verdict_then_table(answer, "**Pick: LoRA")
    for label in ("full fine-tuning", "LoRA fine-tuning", "QLoRA fine-tuning"):
        assert label in answer
    assert all(f"{row.memory_per_gpu_gib:.1f} GiB" in answer for row in r.rows)


def test_chat_h100_h200_mi300x() -> None:
    answer, calls = chat("H100 vs H200 vs MI300X for Llama-3.1-70B serving")
    args, r = _compared(calls)
    assert args["gpus"] == ["h100-sxm", "h200-sxm", "mi300x"] and r.rows[2].link_kind == "infinity_fabric"
    _verdict_then_table(answer, "**Pick:")
    assert "Infinity Fabric 896 GB/s" in answer
    assert not re.search(r"MI300X[^\n|]*(?:over PCIe|PCIe only)", answer)


def test_chat_three_cards_in_chinese_is_all_chinese() -> None:
    answer, calls = chat("4090、A6000、L40S 选哪个")
    args, r = _compared(calls)
    assert args["gpus"] == ["rtx-4090", "rtx-a6000", "l40s"] and r.axis == "cards"
    _verdict_then_table(answer, "**结论：选")
    names = sorted({row.gpu for row in r.rows} | {row.memory_type for row in r.rows}, key=len, reverse=True)
    rest = answer.replace("GB/s", " ").replace("tokens/s", " ")
    for name in names:
        rest = rest.replace(name, " ")
    units = {"GiB", "GB", "TFLOPS", "BF16", "FP8", "ECC", "NVLink", "PCIe", "RoCE", "CUDA", "GPU", "RTX", "Tensor"}
    units |= {"AWQ", "INT8", "bit", "B"}  # each card's largest model: "4-bit（AWQ）最大约 130B"
    words = {w for w in re.findall(r"[A-Za-z][A-Za-z0-9_\-]*", rest) if not re.search(r"\d", w)} - units
    assert not words, words


def test_chat_fp8_vs_bf16_on_h100() -> None:
    answer, calls = chat("FP8 vs BF16 for Llama-3.1-70B on H100")
    args, r = _compared(calls)
    assert args["gpus"] == ["h100-sxm"] and args["precisions"] == ["fp8", "bf16"] and r.axis == "precisions"
    assert "precision" not in args["workload"]
    _verdict_then_table(answer, "**Pick: FP8")
    assert "BF16 on 2 × NVIDIA H100" in answer


def test_which_one_is_faster_after_a_comparison_compares_again() -> None:
    names = [s for s in ToolName if s != ToolName.SEARCH_GUIDES]
    planner = OfflinePlanner().bind_tools([{"name": str(n)} for n in names])
    messages: list = [HumanMessage("Compare the RTX 4090 and the RTX 5090.")]
    for question in (None, "Which one runs Qwen2.5-14B faster at int4?"):
        if question:
            messages.append(HumanMessage(question))
        while True:
            reply = planner.respond(messages)
            messages.append(reply)
            if not reply.tool_calls:
                break
            for call in reply.tool_calls:
                out = run_tool(tool_spec(call["name"]), call["args"])
                messages.append(ToolMessage(json.dumps(out.result), tool_call_id=call["id"]))
    last = next(m for m in reversed(messages) if isinstance(m, AIMessage) and m.tool_calls)
    call = next(c for c in last.tool_calls if c["name"] == ToolName.COMPARE_GPUS)
    assert call["args"]["gpus"] == ["rtx-4090", "rtx-5090"]
    assert call["args"]["workload"]["model"] == "qwen2.5-14b" and call["args"]["workload"]["precision"] == "int4"


def test_a_compare_call_sets_the_scenario() -> None:
    s = Scenario()
    s.apply_tool_call(
        "compare_gpus",
        {"gpus": ["h100-sxm"], "counts": {"h100-sxm": 2}, "workload": {"model": "llama-3.1-70b"}, "currency": "USD"},
    )
    assert (s.gpu, s.num_gpus, s.model, s.currency) == ("h100-sxm", 2, "llama-3.1-70b", "USD")
    s.apply_tool_call("compare_gpus", {"gpus": ["rtx-4090", "l40s"]})
    assert s.gpus == ["rtx-4090", "l40s"]


def test_the_budget_is_a_hard_limit_and_the_least_over_leads_when_all_are_over() -> None:
    w = VramRequest(model="qwen2.5-14b", precision="q4_k_m")
    r = _compare(workload=w, gpus=["4090", "3090"], currency="CNY", budget=10000)
    rtx4090, rtx3090 = _row(r, "rtx-4090"), _row(r, "rtx-3090")
    assert rtx4090.over_budget_by and rtx3090.over_budget_by is None
    assert _pick(r).gpu_id == "rtx-3090" and "within_budget_gpus" in {n.code for n in r.verdict.reasons}
    other = next(o for o in r.verdict.others if o.index == r.rows.index(rtx4090))
    assert "over_budget" in {n.code for n in other.notes}
    r = _compare(workload=w, gpus=["4090 D", "3090"], counts={"4090 D": 1, "3090": 2}, currency="CNY", budget=10000)
    assert all(x.over_budget_by for x in r.rows)
    assert _pick(r).gpu_id == "rtx-3090"  # two used 3090s are the least over
    assert "cmp_all_over_budget" in {n.code for n in r.verdict.reasons}


# ---- the job's bottleneck leads (advice.md §9) ----------------------------------------------------------------


def _codes(notes: list) -> list[str]:
    return [n.code for n in notes]


def test_training_cards_are_compared_on_dense_bf16_per_card_at_the_same_count() -> None:
    r = _compare(gpus=["H20", "A100"], counts={"H20": 8}, focus="training", currency="CNY")
    assert [x.count for x in r.rows] == [8, 8]  # "8张H20 比 A100": like for like
    lead = r.verdict.bottleneck
    assert lead is not None and lead.code == "cmp_focus_training_tflops_per_card"
    assert (lead.params["fast_v"], lead.params["slow_v"]) == (312, 148)
    assert "慢" in lead.render("zh") and _pick(r).gpu_id == "a100-80gb-sxm"
    assert "cmp_one_card_enough" not in _codes(r.verdict.reasons)  # no job named: "enough" means nothing


def test_training_cards_say_which_trains_bigger_models() -> None:
    r = _compare(gpus=["3090", "4090"], counts={"3090": 2, "4090": 1}, focus="training")
    room = r.verdict.bottleneck.params["room"]
    assert room and room[0].code == "cmp_focus_train_room"
    assert all(x.sizes and x.sizes[0].mode == "qlora" for x in r.rows)


def test_cards_without_a_job_list_what_each_runs() -> None:
    r = _compare(gpus=["H100", "A100"])
    assert r.verdict.bottleneck.code == "cmp_focus_decode_gbs"
    assert all(x.sizes and x.sizes[0].mode == "inference" and x.sizes[0].max_params_b for x in r.rows)


def test_prompt_processing_ranks_the_setups_by_compute_in_a_format_they_all_hold() -> None:
    r = _compare(
        gpus=["A6000", "6000 Ada", "A100", "H100"],
        counts={"A6000": 4, "6000 Ada": 4, "A100": 2, "H100": 2},
        workload=VramRequest(params_b=120),
        focus="prefill",
    )
    assert all(x.count == x.count_asked for x in r.rows)  # each setup as named, not resized
    assert len({x.precision for x in r.rows}) == 1 and "cmp_fitted_way" in _codes(r.assumptions)
    lead = r.verdict.bottleneck
    assert lead.code == "cmp_focus_prefill_tps_rank" and "H100" in lead.params["items"][0].render("en")


def test_a_fine_tune_left_open_is_qlora_on_the_cards_named_and_says_it_needs_sharding() -> None:
    r = _compare(
        gpus=["4090", "3090"],
        counts={"4090": 2, "3090": 2},
        workload=VramRequest(params_b=65, mode="lora"),
        method_open=True,
    )
    assert {x.mode for x in r.rows} == {"qlora"}
    notes = [n for x in r.rows for n in x.notes]
    assert "cmp_sharded_training" in _codes(notes)


def test_a_4bit_gpu_format_on_volta_notes_the_slower_kernel() -> None:
    r = _compare(gpus=["4090", "V100"], workload=VramRequest(params_b=32, precision="gptq"))
    assert "sup_gptq_plain" in _codes(_row(r, "v100-sxm2-32gb").notes)
    assert "sup_gptq_plain" not in _codes(_row(r, "rtx-4090").notes)


def test_chat_training_comparison_leads_with_the_pick_then_the_bottleneck() -> None:
    answer, calls = chat("8张H20训练效率会比A100低很多吗")
    args, _ = _compared(calls)
    assert args["focus"] == "training"
    first_two = answer.split("\n")[0]
    assert first_two.startswith("**结论：选") and "148" in first_two and "312" in first_two


def test_a_named_count_bigger_than_the_job_needs_says_fewer_cards_hold_it() -> None:
    # "是否比8张4090要好" for a 6B LoRA (~14.6 GiB): one 4090 holds it, the other seven buy speed only
    w = VramRequest(model="chatglm3-6b", mode="lora", grad_checkpointing=True)
    r = _compare(workload=w, gpus=["4090", "M2 Ultra 192GB"], counts={"4090": 8})
    rtx = _row(r, "rtx-4090")
    assert rtx.count == 8 and rtx.fit.gpus_needed == 1
    assert _pick(r).gpu_id == "rtx-4090"  # CUDA first for training
    held = [n for n in r.verdict.reasons if n.code == "fewer_cards_hold_it"]
    assert held and held[0].params["count"] == 1
    # a count the job needs is said as it is, with no such sentence
    r = _compare(workload=VramRequest(model="llama-3.1-70b", precision="bf16"), gpus=["H100"], counts={"H100": 2})
    assert all(n.code != "fewer_cards_hold_it" for n in r.verdict.reasons)


def test_too_slow_for_chat_is_said_of_an_alternative_only_when_the_pick_is_not() -> None:
    # "A6000 和两张 3090 跑 70B": 2 x 3090 ~14 and the A6000 ~11.6 tokens/s are both under the chat floor, so "too
    # slow" is no difference between them; the gap in % still says which is slower
    r = _compare(workload=VramRequest(params_b=70, precision="q4_k_m"), gpus=["A6000", "3090"], counts={"3090": 2})
    p = r.rows[r.verdict.pick]
    assert p.gpu_id == "rtx-3090" and p.tokens_per_s_per_user < advice.min_chat_speed()
    a6000 = next(o for o in r.verdict.others if r.rows[o.index].gpu_id == "rtx-a6000")
    codes = {n.code for n in a6000.notes}
    assert "cmp_too_slow" not in codes and "slower_by" in codes
