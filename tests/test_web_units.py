"""The web app's pure parts: strings, what-if follow-ups, chat rendering, chart data, calculator forms, uploads."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from assistant.citations import Citation
from assistant.events import ErrorEvent, FinalEvent, TextEvent, ToolCallEvent, ToolResultEvent
from assistant.grounding import GroundingReport
from assistant.scenario import Scenario
from assistant.web import cards, charts, forms, launch_kwargs, parse_auth
from assistant.web.chat import (
    CONTEXT_CHOICES,
    TRAINING_PRECISIONS,
    TurnView,
    followup_text,
    link_citations,
    precision_choices,
    sources_block,
    user_message,
)
from assistant.web.i18n import lang_from_header, strings, t
from assistant.web.panel import scenario_markdown
from assistant.web.state import Session, valid_browser_id
from tools.gpu_search import GpuSpecsResult
from tools.tco import TcoRequest, calculate_tco
from tools.vram import VramRequest, VramResult, estimate_vram

# --- interface strings ---------------------------------------------------------------------------------------


def _entries(node: Any, path: str = "") -> list[tuple[str, dict]]:
    if isinstance(node, dict) and "en" in node:
        return [(path, node)]
    if isinstance(node, dict):
        return [e for k, v in node.items() for e in _entries(v, f"{path}.{k}".strip("."))]
    return []


def test_every_interface_string_exists_in_both_languages_with_the_same_fields() -> None:
    entries = _entries({k: v for k, v in strings().items() if k not in ("example_questions", "quick_replies")})
    assert len(entries) > 100
    for key, entry in entries:
        assert set(entry) == {"en", "zh"}, key
        fields = [set(re.findall(r"{(\w+)", entry[lang])) for lang in ("en", "zh")]
        assert fields[0] == fields[1], key


def test_example_questions_cover_both_languages() -> None:
    questions = strings()["example_questions"]
    assert any(re.search(r"[\u4e00-\u9fff]", q) for q in questions)
    assert any(not re.search(r"[\u4e00-\u9fff]", q) for q in questions)


def test_browser_language_picks_the_interface_language() -> None:
    assert lang_from_header("zh-CN,zh;q=0.9,en;q=0.8") == "zh"
    assert lang_from_header("en-US,en;q=0.9,zh;q=0.5") == "en"
    assert lang_from_header(None) == "en"


# --- what-if follow-ups are questions the planner understands --------------------------------------------------

WHAT_IFS = [
    ("precision", "int4", "precision", "int4"),
    ("precision", "q4_k_m", "precision", "q4_k_m"),
    *[("context_tokens", n, "context_tokens", n) for n in CONTEXT_CHOICES],
    ("batch", 16, "batch", 16),
    ("num_gpus", 4, "num_gpus", 4),
    ("mode", "qlora", "mode", "qlora"),
    ("mode", "full", "mode", "full"),
    ("mode", "inference", "mode", "inference"),
]


@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize(("slot", "value", "field", "expected"), WHAT_IFS)
def test_what_if_follow_ups_parse_back_to_the_changed_slot(
    lang: str, slot: str, value: Any, field: str, expected: Any
) -> None:
    from assistant.understanding import parse

    text = followup_text(slot, value, lang, mode="inference")
    parsed = parse(text)
    assert parsed.language == lang, text
    assert parsed.is_followup, text
    assert getattr(parsed, field) == expected, text


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_training_batch_follow_up_says_batch_size(lang: str) -> None:
    from assistant.understanding import parse

    text = followup_text("batch", 8, lang, mode="qlora")
    assert "batch size" in text
    assert parse(text).batch == 8


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_gpu_follow_ups_name_every_catalog_gpu_so_the_planner_finds_it(lang: str) -> None:
    from assistant.understanding import parse
    from tools.catalog import catalog

    for gpu in catalog().values():
        text = followup_text("gpu", cards.short_gpu_name(gpu.name), lang)
        assert parse(text).gpu == gpu.id, text


def test_follow_ups_read_naturally() -> None:
    assert followup_text("context_tokens", 32768, "en") == "What about 32k context?"
    assert followup_text("mode", "qlora", "zh") == "如果换成 QLoRA 微调呢？"  # the tools' method label


# --- chat rendering ----------------------------------------------------------------------------------------


def _final(answer: str, citations: list[Citation], untraceable: list[str] | None = None) -> FinalEvent:
    return FinalEvent(
        answer=answer,
        language="en",
        provider="offline",
        tool_calls=[],
        citations=citations,
        grounding=GroundingReport(numbers_checked=1, untraceable=untraceable or []),
        scenario=Scenario(model="qwen2.5-7b", mode="qlora"),
        latency_ms=12.0,
    )


CITATION = Citation(
    n=1,
    doc_id="training-memory.en",
    title="Training memory",
    section="QLoRA",
    lang="en",
    source="knowledge/guides/training-memory.en.md",
    text="QLoRA keeps a 4-bit base.",
)


def test_tool_calls_become_collapsible_messages_that_go_from_pending_to_done() -> None:
    history: list[dict] = [{"role": "user", "content": "QLoRA Qwen2.5-7B?"}]
    view = TurnView(history, "en", turn=3)
    args = {"model": "qwen2.5-7b", "mode": "qlora"}
    view.apply(ToolCallEvent(id="c1", name="estimate_vram", args=args))
    bubble = history[1]
    assert bubble["metadata"]["status"] == "pending" and "running" in bubble["metadata"]["title"]
    assert '"model": "qwen2.5-7b"' in bubble["content"]
    result = estimate_vram(VramRequest(**args))
    view.apply(
        ToolResultEvent(
            id="c1",
            name="estimate_vram",
            ok=True,
            result=result.model_dump(mode="json"),  # as it crosses from the assistant process
            summary="10.3 GiB per GPU",
            duration_ms=84.0,
        )
    )
    bubble = history[1]
    assert bubble["metadata"] == {
        "title": f"🛠️ Memory estimate — {result.per_gpu_gib:.1f} GiB per GPU (Qwen2.5-7B, QLoRA fine-tuning)",
        "id": "c1",
        "status": "done",
        "duration": 0.084,
    }
    assert view.latest(VramResult) == result  # the typed result, back from JSON
    assert view.latest(GpuSpecsResult) is None
    for word in ("About ", "**10.3 GiB** ", "per GPU [1]."):
        view.apply(TextEvent(delta=word))
    assert history[2] == {"role": "assistant", "content": "About **10.3 GiB** per GPU [1]."}
    view.apply(_final("About **10.3 GiB** per GPU [1].", [CITATION]))
    assert history[2]["content"] == 'About **10.3 GiB** per GPU <a href="#cite-3-1" class="cite-link">[1]</a>.'
    assert 'id="cite-3-1"' in history[3]["content"] and "QLoRA keeps a 4-bit base." in history[3]["content"]


def test_each_source_shows_once_in_the_chat_as_a_passage_the_answer_links_to() -> None:
    history: list[dict] = []
    view = TurnView(history, "en", turn=2)
    listed = f"Sources:\n[1] {CITATION.title} — {CITATION.section} ({CITATION.doc_id})"
    view.apply(_final(f"About **10.3 GiB** per GPU [1].\n\n{listed}", [CITATION]))
    shown = "\n".join(m["content"] for m in history)
    assert shown.count(f"{CITATION.title} — {CITATION.section}") == 1  # the collapsible block, not the list too
    assert "Sources:" not in history[0]["content"] and 'href="#cite-2-1"' in history[0]["content"]


def test_the_assumptions_fold_under_the_verdict_and_the_numbers() -> None:
    history: list[dict] = []
    view = TurnView(history, "zh", turn=1)
    assumed = "计算假设：\n- 权重格式 nf4_dq\n- 其余 3 条同上一轮。"
    answer = f"**放得下**：每卡约需 **9.8 GiB**。\n\n{assumed}\n\n注意：\n- 二手卡要烤机"
    view.apply(_final(answer, []))
    shown = history[0]["content"]
    assert shown.startswith("**放得下**") and "注意：\n- 二手卡要烤机" in shown  # verdict and warnings stay in view
    assert '<details class="assumptions"><summary>计算假设</summary>\n\n- 权重格式 nf4_dq' in shown


def test_failed_tools_and_errors_are_messages_not_tracebacks() -> None:
    history: list[dict] = []
    view = TurnView(history, "zh", turn=1)
    view.apply(ToolCallEvent(id="c1", name="gpu_specs", args={"names": ["H1000"]}))
    view.apply(
        ToolResultEvent(
            id="c1", name="gpu_specs", ok=False, error="unknown GPU 'H1000'", summary="error", duration_ms=1.0
        )
    )
    view.apply(ErrorEvent(message="the LLM endpoint timed out", kind="timeout"))
    assert history[0]["metadata"]["title"].startswith("❌ 显卡规格 — 失败: unknown GPU 'H1000'")
    assert history[1]["content"] == "⚠️ the LLM endpoint timed out"
    assert view.latest(GpuSpecsResult) is None


def test_untraceable_numbers_are_flagged_under_the_answer() -> None:
    history: list[dict] = []
    view = TurnView(history, "en", turn=1)
    view.apply(_final("It needs 99 GiB.", [], untraceable=["99"]))
    assert "Numbers not traced" in history[0]["content"] and "99" in history[0]["content"]


def test_only_cited_numbers_become_links() -> None:
    text = link_citations("See [1] and [2], not [3] or [link](x) [4](y).", {1, 2, 4}, turn=7)
    assert text.count("cite-link") == 2 and "[3]" in text and "[4](y)" in text
    assert 'href="#cite-7-2"' in text


def test_sources_block_escapes_titles() -> None:
    evil = CITATION.model_copy(update={"title": "<script>alert(1)</script>"})
    block = sources_block([evil], 1, "en")
    assert "<script>" not in block and "&lt;script&gt;" in block


def test_scenario_panel_lists_slots_with_display_names_and_tolerates_new_slots() -> None:
    session = Session(scenario=Scenario(model="qwen2.5-7b", mode="qlora", context_tokens=32768, utilization=0.25))
    summary = session.scenario.summary()
    summary["some_future_slot"] = 3
    text = scenario_markdown(summary, ["weights in nf4"], "zh", session.names())
    assert "**模型**: Qwen2.5-7B" in text and "**方式**: QLoRA 微调" in text and "32,768" in text and "25%" in text
    assert "some_future_slot" in text and "weights in nf4" in text
    assert scenario_markdown({"gpus": []}, [], "en") == t("en", "scenario_empty")


def test_a_user_message_shows_as_typed_not_as_html() -> None:
    message = user_message("<script>alert(1)</script> & <b>bold</b>?")
    assert message == {
        "role": "user",
        "content": "&lt;script&gt;alert(1)&lt;/script&gt; &amp; &lt;b&gt;bold&lt;/b&gt;?",
    }


def test_tool_bubbles_speak_the_interface_language() -> None:
    history: list[dict] = []
    view = TurnView(history, "zh", turn=1)
    args = {"model": "qwen2.5-7b", "mode": "qlora"}
    view.apply(ToolCallEvent(id="c1", name="estimate_vram", args=args))
    assert history[0]["metadata"]["title"] == "🛠️ 显存估算 — 计算中……"
    result = estimate_vram(VramRequest(**args))
    view.apply(
        ToolResultEvent(id="c1", name="estimate_vram", ok=True, result=result, summary="x GiB per GPU", duration_ms=1)
    )
    title = history[0]["metadata"]["title"]
    assert title == f"🛠️ 显存估算 — 每卡 {result.per_gpu_gib:.1f} GiB（Qwen2.5-7B，QLoRA 微调）"
    assert "estimate_vram" not in title and "per GPU" not in title
    assert view.args_of("estimate_vram") == args and view.args_of("calculate_tco") is None


def test_the_panel_shows_amounts_with_their_currency_and_labels_instead_of_ids() -> None:
    scenario = Scenario(
        model="qwen2.5-7b", mode="lora", budget=15000.0, currency="CNY", deployment="local", cloud_excluded=False
    )
    zh = Session(lang="zh", scenario=scenario).panel()
    assert "**预算**: ¥15,000" in zh and "1.5e+04" not in zh
    assert "本地自购" in zh and "local" not in zh and "False" not in zh and "cloud_excluded" not in zh
    en = Session(lang="en", scenario=scenario.model_copy(update={"budget_scope": "machine"})).panel()
    assert "**Budget (whole machine)**: ¥15,000" in en and "own hardware" in en


def test_the_panel_and_the_controls_show_what_the_answer_computed_with() -> None:
    """The scenario said int4; the full fine-tune was estimated in bf16: both the panel and the control say bf16."""
    session = Session(lang="en", scenario=Scenario(model="qwen2.5-7b", mode="full", precision="int4"))
    view = TurnView([], "en", turn=1)
    vram = estimate_vram(VramRequest(model="qwen2.5-7b", mode="full", grad_checkpointing=True))
    view.results.append(vram)
    view.final = _final("", []).model_copy(update={"scenario": session.scenario})
    session.absorb(view)
    assert session.whatif_values()["precision"] == vram.precision == "bf16"
    assert "**Precision**: bf16" in session.panel() and "int4" not in session.panel()


def test_a_recommendation_constrained_to_one_gpu_keeps_it_in_the_gpu_control() -> None:
    from tools.recommend import RecommendRequest, recommend_gpus

    args = {"workload": {"model": "qwen2.5-7b", "mode": "lora"}, "currency": "CNY", "gpus": ["rtx-4090"]}
    view = TurnView([], "zh", turn=2)
    view.apply(ToolCallEvent(id="r1", name="recommend_gpus", args=args))
    rec = recommend_gpus(RecommendRequest(**args))
    view.results.append(rec)
    view.final = _final("", []).model_copy(update={"scenario": Scenario(model="qwen2.5-7b", mode="lora")})
    session = Session(lang="zh")
    session.absorb(view)
    # the method the pick uses (QLoRA, the cheaper way on one 4090), not the LoRA asked (issue 21)
    assert rec.primary is not None and rec.primary.mode == "qlora"
    assert session.whatif_values()["gpu"] == "RTX 4090" and session.whatif_values()["mode"] == "qlora"
    assert "**显卡**: RTX 4090" in session.panel()


@pytest.mark.parametrize("mode", sorted(TRAINING_PRECISIONS))
def test_the_precision_control_offers_only_formats_that_keep_the_method(mode: str) -> None:
    for precision in precision_choices(mode):
        result = estimate_vram(VramRequest(model="qwen2.5-7b", mode=mode, precision=precision))
        assert result.mode == mode
    assert "fp8" in precision_choices("inference") and "fp8" not in precision_choices("lora")


def test_the_browser_keeps_only_ids_this_app_minted() -> None:
    session = Session()
    browser_id = session.bind(None)
    assert valid_browser_id(browser_id) == browser_id and session.thread_id == "web-" + browser_id
    assert session.bind("0" * 32) == browser_id  # bound once: a later value does not replace it
    assert Session().bind("0" * 32) == "0" * 32
    for forged in ("work", "__warm-up-1", "../etc", "A" * 32, 42):
        assert Session().bind(forged) != forged
    assert session.fresh().browser_id not in (None, browser_id)


# --- chart data --------------------------------------------------------------------------------------------


def test_memory_chart_stacks_the_components_next_to_the_card() -> None:
    from tools.sizing import default_headroom

    vram = estimate_vram(VramRequest(model="Qwen2.5-7B", mode="qlora", context_tokens=2048))
    chart = charts.memory_chart(vram, [cards.Card("RTX 4090", 24.0)], "en")
    need = chart.frame[chart.frame["bar"] != "RTX 4090"]
    assert need["gib"].sum() == pytest.approx(vram.per_gpu_gib, abs=0.05)
    card = chart.frame[chart.frame["bar"] == "RTX 4090"]
    assert card["gib"].sum() == pytest.approx(24.0)  # usable memory and the share kept free, stacked
    assert card["gib"].tolist() == pytest.approx([24.0 * (1 - default_headroom()), 24.0 * default_headroom()])
    assert chart.spec["color"] == "component" and set(chart.spec["color_map"]) == set(chart.frame["component"])


def test_tco_chart_draws_buy_rent_and_the_break_even_month() -> None:
    tco = calculate_tco(TcoRequest(gpu="RTX 4090", num_gpus=4, currency="CNY", utilization=1.0))  # busy: buying wins
    chart = charts.tco_chart(tco, "en")
    buy = chart.frame[chart.frame["series"] == "buy"]
    assert buy["cost"].tolist() == pytest.approx(tco.cumulative_buy, abs=0.01)
    assert tco.break_even_month is not None
    line = chart.frame[chart.frame["series"].str.startswith("break-even")]
    assert set(line["month"]) == {tco.break_even_month} and len(line) == 2


def test_gpu_charts_leave_out_gpus_without_the_numbers() -> None:
    rows = cards.catalog_rows("USD")
    price = charts.gpu_price_chart(rows, "USD", "zh")
    assert 0 < len(price.frame) <= len(rows) and price.frame["price"].notna().all()
    assert set(price.frame["segment"]) <= {"消费级", "工作站级", "数据中心级", "苹果"}  # the tools' segment labels
    assert len(charts.gpu_memory_chart(rows, "en").frame) == len(rows)


# --- calculator forms --------------------------------------------------------------------------------------


def test_memory_form_reports_the_calculator_number_and_the_fit() -> None:
    out = forms.run_vram("en", "Qwen2.5-7B", None, "qlora", "", "", 2048, 1, 1, True, "", "0", 16, "RTX 4090")
    want = estimate_vram(
        VramRequest(model="Qwen2.5-7B", mode="qlora", context_tokens=2048, grad_checkpointing=True, gpu="RTX 4090")
    )
    assert f"{want.per_gpu_gib:.2f} GiB per GPU" in out.markdown
    assert "Fits on RTX 4090" in out.markdown
    assert out.data == want and out.data.fit is not None and out.data.fit.fits


def test_memory_form_judges_fit_with_headroom_and_says_how_many_gpus() -> None:
    """The tab states estimate_vram's verdict (tools/sizing.py), not a comparison at 100% of the card."""
    out = forms.run_vram("en", "Llama-3.1-70B", None, "inference", "", "", 8192, 1, 1, False, "", None, 16, "RTX 4090")
    assert out.data is not None and out.data.fit is not None and not out.data.fit.fits
    assert "Does **not** fit on RTX 4090" in out.markdown
    assert f"It needs **{out.data.fit.gpus_needed} × RTX 4090**" in out.markdown
    on_many = forms.run_vram(
        "en", "Llama-3.1-70B", None, "inference", "", "", 8192, 1, out.data.fit.gpus_needed, False, "", None, 16, "4090"
    )
    assert on_many.data is not None and on_many.data.fit is not None and on_many.data.fit.fits
    assert f"Fits on {out.data.fit.gpus_needed} × RTX 4090" in on_many.markdown


def test_memory_form_zero_stage_defaults_to_auto() -> None:
    zero = next(f for f in forms.VRAM.fields if f.name == "zero_stage")
    assert zero.initial("en") == forms.AUTO and zero.options("en")[0] == (t("en", "choice.auto"), forms.AUTO)
    args = forms.VRAM.arguments({"model": "Qwen2.5-7B", "mode": "full", "num_gpus": 4, "zero_stage": forms.AUTO})
    assert "zero_stage" not in args  # the calculator's default: ZeRO-3 on several GPUs
    assert forms.VRAM.arguments({"model": "Qwen2.5-7B", "zero_stage": "2"})["zero_stage"] == 2


def test_forms_turn_bad_input_into_one_readable_line() -> None:
    out = forms.run_vram("en", "lama-3-70", None, "inference", "", "", 4096, 1, 1, False, "", "0", 16, "")
    assert out.markdown.startswith("⚠️ unknown model 'lama-3-70'") and "\n" not in out.markdown
    assert out.data is None
    assert forms.SPEED.call("zh", "", None, "4090", 1, "inference", None, "", 4096, 1).markdown.startswith("⚠️")
    assert forms.TCO.call("en", "H1000", 1, 3, 0.5, "USD", None, None, None).markdown.startswith("⚠️")


def test_a_form_builds_its_request_from_the_one_declaration() -> None:
    values = ("", 14, "qlora", "", 4096, None, 15000, 0, "CNY", "local", "cheapest")
    form_values = dict(zip(forms.RECOMMEND.names, values, strict=True))
    assert forms.RECOMMEND.arguments(form_values) == {
        "workload": {"params_b": 14.0, "mode": "qlora", "context_tokens": 4096},
        "budget": 15000.0,
        "currency": "CNY",
        "deployment": "local",
        "preference": "cheapest",
    }
    request = forms.RECOMMEND.request(form_values)
    assert request.workload.grad_checkpointing  # QLoRA recipes checkpoint activations
    named = forms.VRAM.arguments({"model": "Qwen2.5-7B", "params_b": 7, "compare_gpu": "RTX 4090"})
    assert named["model"] == "Qwen2.5-7B" and "params_b" not in named and named["gpu"] == "RTX 4090"
    gpus = forms.GPUS.arguments({"features": ["bf16", "nvlink"], "limit": 0})
    assert gpus["need_bf16"] and gpus["need_nvlink"] and gpus["limit"] == 20
    speed = dict(zip(forms.SPEED.names, ("Qwen2.5-7B", None, "4090", 1, "training", "lora", "", 2048, 1), strict=True))
    assert forms.SPEED.request(speed).grad_checkpointing
    assert not forms.SPEED.request(speed | {"workload": "inference"}).grad_checkpointing


def test_every_calculator_form_answers() -> None:
    assert (
        "tokens/s"
        in forms.SPEED.call("en", "Llama-3.1-8B", None, "RTX 4090", 1, "inference", None, "", 4096, 1).markdown
    )
    assert (
        "tokens/s"
        in forms.SPEED.call("zh", "Qwen2.5-7B", None, "RTX 4090", 1, "training", "qlora", "", 2048, 1).markdown
    )
    gpus = forms.GPUS.call("en", 48, None, "USD", "", "", ["bf16"], "price_per_gib", 10)
    assert gpus.table is not None and (gpus.table["GiB"] >= 48).all() and not gpus.charts["price"].empty
    tco = forms.TCO.call("zh", "RTX 4090", 2, 3, 0.5, "CNY", None, None, None)
    assert "CNY" in tco.markdown and not tco.charts["tco"].empty
    rec = forms.RECOMMEND.call(
        "en", "Qwen2.5-7B", None, "lora", "", None, None, None, None, "USD", "either", "balanced"
    )
    assert rec.table is not None and len(rec.table) > 0
    assert "code=" not in rec.markdown + rec.table.to_string()  # notes rendered as sentences, not models
    assert "| power supply |" in forms.BUILD.call("en", "RTX 4090", 2, "training").markdown


# --- uploads -----------------------------------------------------------------------------------------------


def test_uploads_outside_the_type_and_size_limits_are_refused_before_touching_the_store(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from assistant.web import kb

    monkeypatch.setenv("GPU_ADVISOR_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("GPU_ADVISOR_MAX_DOC_MB", "0.001")
    exe = tmp_path / "setup.exe"
    exe.write_bytes(b"MZ")
    big = tmp_path / "notes.md"
    big.write_text("# Notes\n\n" + "x" * 5000)
    assert kb.add_documents([str(exe)], "en").startswith("❌ unsupported file type '.exe'")
    message = kb.add_documents([str(big)], "zh")
    assert message.startswith("❌") and "limit" in message and str(tmp_path) not in message
    assert not (tmp_path / "data" / "uploads").exists()


def test_upload_names_cannot_escape_the_uploads_folder() -> None:
    from assistant.web.kb import safe_name

    assert safe_name("../../etc/passwd.md") == "passwd.md"
    assert safe_name("我的 笔记 (v2).MD") == "我的-笔记-v2.md"


# --- serving -----------------------------------------------------------------------------------------------


def test_serving_binds_loopback_without_a_share_link_by_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GPU_ADVISOR_MCP", raising=False)
    kwargs = launch_kwargs("127.0.0.1", 7860, None, False)
    assert kwargs["server_name"] == "127.0.0.1" and kwargs["share"] is False and kwargs["auth"] is None
    assert "mcp_server" not in kwargs
    assert launch_kwargs("0.0.0.0", 8080, "alice:s3:cret", False)["auth"] == ("alice", "s3:cret")


@pytest.mark.parametrize("bad", ["alice", "alice:", ":secret"])
def test_auth_must_be_user_colon_password(bad: str) -> None:
    with pytest.raises(ValueError, match="user:password"):
        parse_auth(bad)


def test_building_the_app_turns_gradio_analytics_off(monkeypatch: pytest.MonkeyPatch) -> None:
    from assistant.web import build_app

    monkeypatch.setenv("GRADIO_ANALYTICS_ENABLED", "True")
    demo = build_app(advisor=object())
    assert demo.analytics_enabled is False
    import os

    assert os.environ["GRADIO_ANALYTICS_ENABLED"] == "False"


def test_the_start_up_line_names_the_command_line_flags() -> None:
    from assistant.web import startup_line

    line = startup_line("127.0.0.1", 7860)
    assert "http://127.0.0.1:7860/" in line
    assert all(flag in line for flag in ("--host", "--auth", "--share")) and "launch()" not in line
    shared = startup_line("0.0.0.0", 8080, auth="a:b", share_url="https://x.gradio.live")
    assert "https://x.gradio.live" in shared and "--share" not in shared and "--auth" not in shared


def test_cli_chat_has_the_flags_the_start_up_line_names() -> None:
    from typer.testing import CliRunner

    from assistant.cli import app

    help_text = CliRunner().invoke(app, ["chat", "--help"], env={"COLUMNS": "200"}).output
    assert all(flag in help_text for flag in ("--share", "--host", "--auth"))


def test_buy_vs_rent_report_names_options_in_words() -> None:
    tco = forms.TCO.call("zh", "RTX 4090", 2, 3, 0.5, "CNY", None, None, None)
    assert "rent_on_demand" not in tco.markdown and "on_demand" not in tco.markdown
    assert "按需" in tco.markdown


def test_one_catalog_for_answers_and_interface_with_no_entry_twice() -> None:
    import re

    from assistant.strings import catalog
    from assistant.web.i18n import strings
    from tools.notes import _labels

    path = Path(__file__).resolve().parents[1] / "assistant" / "catalog.yaml"
    text = path.read_text(encoding="utf-8")
    keys = re.findall(r"^([A-Za-z0-9_]+):", text, flags=re.M)
    assert len(keys) == len(set(keys)), "a key defined twice: YAML would keep only the last"
    assert strings() is catalog() and catalog()["title"]["zh"] == "选卡助手"

    def entries(node: dict, prefix: str = "") -> dict[str, dict]:
        out = {}
        for k, v in node.items():
            if isinstance(v, dict) and isinstance(v.get("en"), str):
                out[prefix + str(k)] = v
            elif isinstance(v, dict):
                out |= entries(v, f"{prefix}{k}.")
        return out

    mine = entries(yaml.safe_load(text))
    assert all(isinstance(v.get("zh"), str) and (v["zh"] or not v["en"]) for v in mine.values()), "no Chinese"
    # a label group the tools already name (knowledge/data/notes.yaml labels) is used from there, not copied
    groups = {k: v for k, v in yaml.safe_load(text).items() if isinstance(v, dict) and "en" not in v}
    for name, group in groups.items():
        shared = set(group) & set(_labels().get(name, {}))
        assert not shared, f"{name}: {sorted(shared)} reworded here; the tools' {name} labels are the one wording"
        for tool_group, names in _labels().items():
            same = [k for k, v in group.items() if isinstance(v, dict) and names.get(k) == v]
            assert len(same) < max(2, len(group)), f"{name} copies the tools' {tool_group} labels: {same}"


@pytest.mark.parametrize(("session", "ui_lang"), [(0, "en"), (1, "en"), (1, "zh")])
def test_the_web_load_bench_checks_the_panel_as_the_panel_writes_it(session: int, ui_lang: str) -> None:
    from evals.bench import _conversation

    (_, qlora), (_, lora), (_, count) = _conversation(session, "Qwen2.5-7B", ui_lang=ui_lang)
    for mode, expected in (("qlora", qlora), ("lora", lora)):  # a Chinese question, an English interface
        shown = scenario_markdown({"model": "Qwen2.5-7B", "mode": mode, "num_gpus": 2}, [], ui_lang) + "\n"
        assert expected in shown and count in shown, (expected, shown)
