"""The purchase proposal (assistant/proposal/): built from a real offline conversation, it states the answer's
numbers as the answer states them, and its Markdown, PDF, XLSX and CSV agree on the total."""

from __future__ import annotations

import csv
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from assistant.advisor import Advisor
from assistant.events import FinalEvent
from assistant.proposal import NothingToPropose, build_proposal, proposal_files, write_proposal
from assistant.proposal.model import Proposal
from assistant.settings import Settings
from assistant.turns import turns
from tools.notes import money
from tools.recommend import Pick, RecommendResult
from tools.workstation import WorkstationPlan

ZH = "预算 20 万，公司内部 30 人用 Qwen2.5-32B 做知识库问答，服务器怎么配？"
EN = "We need to serve Llama 3.1 70B to 50 users, budget $60,000 — what should we buy?"
QUESTIONS = {"zh": ZH, "en": EN}
POPPLER = shutil.which("pdftoppm") and shutil.which("pdftotext")


@pytest.fixture(scope="module")
def advisor(knowledge_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Advisor:
    from knowledge.retrieval import get_retriever

    get_retriever().refresh()
    store = tmp_path_factory.mktemp("proposal-sessions") / "sessions.sqlite"
    return Advisor(Settings(_env_file=None, provider="offline", sessions_url=str(store)))


@pytest.fixture(scope="module")
def answered(advisor: Advisor) -> dict[str, FinalEvent]:
    return {lang: advisor.ask(lang, question) for lang, question in QUESTIONS.items()}


@pytest.fixture(scope="module")
def files(advisor: Advisor, answered: dict[str, FinalEvent], tmp_path_factory: pytest.TempPathFactory) -> dict:
    out = tmp_path_factory.mktemp("proposals")
    return {lang: proposal_files(advisor.sessions().messages(lang), lang, out / lang) for lang in QUESTIONS}


def proposal_of(advisor: Advisor, lang: str) -> Proposal:
    return build_proposal(advisor.sessions().messages(lang), lang)


def recommendation(final: FinalEvent) -> RecommendResult:
    return next(r.result for r in final.tool_calls if isinstance(r.result, RecommendResult))


def plain(answer: str) -> str:
    return answer.replace("**", "")


def said_numbers(p: Pick, lang: str) -> list[str]:
    """The pick's figures as the answer writes them (catalog rec_pick: {need:.1f}, {usable:g}, {tps:,.0f}, money)."""
    count = f"{p.count} 张" if lang == "zh" else f"{p.count} × "
    return [
        count,
        p.gpu,
        f"{p.memory_per_gpu_gib:.1f} GiB" if lang == "zh" else f"{p.memory_per_gpu_gib:.1f} of",
        f"{p.usable_gib_per_gpu:g} GiB",
        f"{p.tokens_per_s:,.0f} tokens/s",
        money(p.spend, p.currency),
    ]


# ---- the document says what the answer says -------------------------------------------------------


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_markdown_states_the_pick_as_the_answer_does(answered, files, lang: str) -> None:
    final = answered[lang]
    r = recommendation(final)
    assert final.language == lang and r.primary is not None
    markdown = files[lang][".md"].read_text(encoding="utf-8")
    verdict = plain(final.answer).split("\n")[0].strip()
    assert verdict in markdown  # the answer's first sentence, word for word
    for figure in said_numbers(r.primary, lang):
        assert figure in plain(final.answer), figure
        assert figure in markdown, figure
    # every number of the verdict, one by one
    for number in re.findall(r"\d[\d,]*(?:\.\d+)?", verdict):
        assert number in markdown
    # the alternatives as the answer lists them, with the price of each
    for alt in r.alternatives:
        cost = money(alt.monthly if alt.deployment == "cloud" else alt.spend, alt.currency)
        assert cost in final.answer and cost in markdown


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_costs_are_the_recommendations_own(advisor, answered, lang: str) -> None:
    p = recommendation(answered[lang]).primary
    proposal = proposal_of(advisor, lang)
    assert proposal.total_text == money(p.machine_cost, p.currency)  # cards + the rest of the machine
    assert proposal.parts.total == pytest.approx(p.machine_cost, abs=0.01)
    cost = next(s for s in proposal.sections if s.key == "cost")
    cells = [c for row in cost.table.rows for c in row]
    assert money(p.gpu_cost, p.currency) in cells
    assert money(p.cost_over_horizon, p.currency) in cells  # the 3-year total recommend_gpus computed
    budget = recommendation(answered[lang]).budget
    left = money(budget - p.spend, p.currency)
    assert any(left in line for line in cost.paragraphs)


def test_the_chinese_proposal_reads_in_chinese(advisor) -> None:
    proposal = proposal_of(advisor, "zh")
    assert proposal.title == "GPU 选型与采购建议书：Qwen2.5-32B"
    need = next(s for s in proposal.sections if s.key == "need")
    assert "预算：¥200,000（买卡的钱）" in " ".join(need.lead) and "使用人数：30" in " ".join(need.lead)
    titles = [s.title for s in proposal.sections]
    assert titles[:5] == ["1. 需求", "2. 推荐方案", "3. 整机配置", "4. 费用", "5. 考虑过的其他方案"]
    # our own words are Chinese: no sentence of labels.yaml in English
    for word in ("Budget", "Recommended", "Rest of the machine", "Total", "Sources"):
        assert word not in proposal.model_dump_json()


def test_the_machine_is_the_turns_plan_or_planned_for_the_pick(advisor, answered) -> None:
    zh, en = proposal_of(advisor, "zh"), proposal_of(advisor, "en")
    zh_plan = next(r.result for r in answered["zh"].tool_calls if isinstance(r.result, WorkstationPlan))
    machine = next(s for s in zh.sections if s.key == "machine")
    assert f"电源：{zh_plan.psu_layout.render('zh')}" in machine.bullets
    assert not any("补算" in line for line in machine.lead)  # the answer planned it
    assert any(f"{max(zh_plan.transient_peaks_w.values()):,.0f} W" in b for b in machine.bullets)  # transient margin
    assert not any(isinstance(r.result, WorkstationPlan) for r in answered["en"].tool_calls)
    machine = next(s for s in en.sections if s.key == "machine")
    assert any("plan_workstation" in line for line in machine.lead)  # planned here, and said so
    assert any(line.startswith("PSU:") for line in machine.bullets)


def test_alternatives_risks_and_sources(advisor, answered) -> None:
    en = proposal_of(advisor, "en")
    r = recommendation(answered["en"])
    alternatives = next(s for s in en.sections if s.key == "alternatives").bullets
    assert len(alternatives) == len(r.alternatives) + (1 if r.stretch else 0)
    assert alternatives[0].startswith("As you asked: 4 × new NVIDIA L40")
    risks = next(s for s in en.sections if s.key == "risks").bullets
    assert any("estimate" in b and "NVIDIA H200 NVL" in b for b in risks)  # gpus.yaml: an estimated price
    sources = next(s for s in en.sections if s.key == "sources").bullets
    assert any(b.startswith("NVIDIA H200 NVL price:") and "(2026-11)" in b for b in sources)
    assert en.recheck.startswith("Prices are dated market observations")
    buy_rent = " ".join(next(s for s in en.sections if s.key == "cost").paragraphs)
    # the break-even (836 busy hours a month) is past a month's 730 hours: owning never catches up
    assert "buying would not pay off even at 24/7 use" in buy_rent
    zh = proposal_of(advisor, "zh")
    assert any("第 26 个月起买更划算" in line for line in next(s for s in zh.sections if s.key == "cost").paragraphs)


def test_the_chart_has_each_options_memory_against_its_capacity(advisor, answered) -> None:
    r = recommendation(answered["en"])
    bars = proposal_of(advisor, "en").chart
    options = [r.primary, *r.alternatives, r.stretch]
    assert [(b.need_gib, b.usable_gib) for b in bars] == [(o.memory_per_gpu_gib, o.usable_gib_per_gpu) for o in options]
    assert [b.chosen for b in bars] == [True] + [False] * (len(options) - 1)


# ---- the files --------------------------------------------------------------------------------------


def _pdftotext(pdf: Path) -> str:
    return subprocess.run(["pdftotext", "-layout", str(pdf), "-"], capture_output=True, text=True, check=True).stdout


def _ink_share(pdf: Path, tmp_path: Path) -> float:
    """The share of non-white pixels of page 1 (pdftoppm's binary PGM: a header, then one byte a pixel)."""
    subprocess.run(["pdftoppm", "-gray", "-r", "40", "-f", "1", "-l", "1", str(pdf), str(tmp_path / "p")], check=True)
    data = next(tmp_path.glob("p*.pgm")).read_bytes()
    header = re.match(rb"P5\s+(\d+)\s+(\d+)\s+(\d+)\s", data)
    assert header is not None
    width, height = int(header.group(1)), int(header.group(2))
    pixels = data[header.end() : header.end() + width * height]
    return sum(1 for b in pixels if b < 200) / len(pixels)


@pytest.mark.skipif(not POPPLER, reason="poppler-utils (pdftoppm, pdftotext) not installed")
@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_pdf_shows_the_title_and_the_totals(advisor, answered, files, lang: str, tmp_path: Path) -> None:
    pdf = files[lang][".pdf"]
    text = re.sub(r"\s+", "", _pdftotext(pdf))  # a long line wraps anywhere in Chinese
    proposal = proposal_of(advisor, lang)
    p = recommendation(answered[lang]).primary
    title = "GPU选型与采购建议书" if lang == "zh" else "GPUpurchaseproposal"
    assert title in text
    assert re.sub(r"\s+", "", f"{proposal.total_label}: {proposal.total_text}") in text
    assert money(p.spend, p.currency) in text and money(p.cost_over_horizon, p.currency) in text
    assert f"{p.memory_per_gpu_gib:.1f}/{p.usable_gib_per_gpu:g}GiB" in text  # the chart's and the table's figure
    assert 0.02 < _ink_share(pdf, tmp_path) < 0.5  # drawn, not blank (nor a black page)


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_xlsx_total_equals_the_documents(advisor, files, lang: str) -> None:
    from openpyxl import load_workbook

    proposal = proposal_of(advisor, lang)
    sheet = load_workbook(files[lang][".xlsx"]).active
    rows = list(sheet.iter_rows(values_only=True))
    assert list(rows[0]) == proposal.parts_header
    *lines, total = rows[1:]
    assert total[0] == proposal.parts_total_label
    assert total[6] == pytest.approx(sum(r[6] or 0 for r in lines), abs=0.01)
    assert money(total[6], total[3]) == proposal.total_text
    assert proposal.total_text in files[lang][".md"].read_text(encoding="utf-8")
    gpu = lines[0]
    assert gpu[1] * gpu[2] == pytest.approx(gpu[6]) and gpu[4] and gpu[5]  # quantity × unit price, source, date


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_csv_total_equals_the_documents(advisor, files, lang: str) -> None:
    proposal = proposal_of(advisor, lang)
    with files[lang][".csv"].open(encoding="utf-8-sig", newline="") as f:
        rows = list(csv.reader(f))
    assert rows[0] == proposal.parts_header
    *lines, total = rows[1:]
    assert float(total[6]) == pytest.approx(sum(float(r[6]) for r in lines if r[6]), abs=0.01)
    assert money(float(total[6]), total[3]) == proposal.total_text


# ---- errors -----------------------------------------------------------------------------------------


def test_a_session_with_nothing_to_propose_says_what_to_ask(advisor) -> None:
    advisor.ask("nothing", "RTX 4090 有多少显存？")
    with pytest.raises(NothingToPropose) as caught:
        build_proposal(advisor.sessions().messages("nothing"), "nothing")
    message = str(caught.value)
    assert "无法生成建议书" in message and "gpu-advisor ask" in message and "--session nothing" in message


def test_no_cjk_font_names_the_package_to_install(advisor, answered, monkeypatch, tmp_path: Path) -> None:
    from assistant.proposal import fonts
    from assistant.proposal.fonts import NoCjkFont

    monkeypatch.setattr(fonts.shutil, "which", lambda name: None)  # no fontconfig: no font found
    monkeypatch.delenv("GPU_ADVISOR_CJK_FONT", raising=False)
    proposal = proposal_of(advisor, "en")
    with pytest.raises(NoCjkFont, match="fonts-noto-cjk"):
        write_proposal(proposal, tmp_path / "p.pdf")
    written = proposal_files(advisor.sessions().messages("en"), "en", tmp_path)
    assert set(written) == {".md", ".xlsx", ".csv"}  # the rest still comes out


def test_turns_carry_typed_results(advisor, answered) -> None:
    session = turns(advisor.sessions().messages("zh"))
    assert [t.question for t in session] == [ZH] and session[0].language == "zh"
    assert session[0].answer == answered["zh"].answer
    assert isinstance(session[0].results(RecommendResult)[0], RecommendResult)
    assert [r.name for r in session[0].records] == [r.name for r in answered["zh"].tool_calls]


# ---- a comparison, and a rented pick ------------------------------------------------------------------

COMPARE = "买一张 4090D 还是两张 3090 跑 Qwen2.5-32B 推理？"
RENT = "想租卡跑 Qwen2.5-72B 推理，每月预算 3000 元，租哪个？"


def test_a_comparisons_verdict_is_proposed_with_its_own_figures(advisor) -> None:
    from tools.compare import CompareResult

    final = advisor.ask("compare", COMPARE)
    c = next(r.result for r in final.tool_calls if isinstance(r.result, CompareResult))
    row = c.rows[c.verdict.pick]
    proposal = proposal_of(advisor, "compare")
    said = [
        f"{row.count} 张",
        f"{row.memory_per_gpu_gib:.1f} GiB",
        f"{row.fit.usable_gib_per_gpu:.1f} GiB",
        f"{row.tokens_per_s:,.1f} tokens/s",
        money(row.cards_cost, c.currency),
    ]
    for figure in said:
        assert figure in final.answer, figure
        assert figure in proposal.summary, figure
    alternatives = next(s for s in proposal.sections if s.key == "alternatives").bullets
    other = c.rows[c.verdict.others[0].index]
    assert (
        len(alternatives) == 1
        and other.gpu in alternatives[0]
        and money(other.cards_cost, c.currency) in alternatives[0]
    )
    cost = next(s for s in proposal.sections if s.key == "cost")
    assert money(row.rent_per_month, c.currency) in [cell for line in cost.table.rows for cell in line]


def test_a_rented_pick_is_priced_by_the_month(advisor) -> None:
    final = advisor.ask("rent", RENT)
    p = recommendation(final).primary
    assert p.deployment == "cloud"
    proposal = proposal_of(advisor, "rent")
    assert [s.key for s in proposal.sections][:3] == ["need", "recommendation", "cloud"]
    assert proposal.parts.kind == "rent" and proposal.total_text == money(p.monthly, p.currency)
    assert money(p.monthly, p.currency) in final.answer and money(p.hourly, p.currency) in final.answer
    cost = " ".join(next(s for s in proposal.sections if s.key == "cost").paragraphs)
    assert f"每月预算 ¥3,000：每月 {money(p.monthly, p.currency)}" in cost
    titles = [s.title for s in proposal.sections]
    assert [t.split(".")[0] for t in titles] == [str(i) for i in range(1, len(titles) + 1)]  # numbered, no gaps
