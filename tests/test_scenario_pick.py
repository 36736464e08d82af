"""Issue 21, item 4: after a recommendation or a comparison the scenario holds the answer's pick (its method,
format, card and count), the web panel and the what-if controls show it, the memory chart draws it against its
card, and a typed what-if starts from it.

Every expected value is read from the tool result the answer was written from, never typed in here.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest

from assistant.events import FinalEvent
from assistant.scenario import ScenarioPick, recommended
from tools.catalog import catalog
from tools.compare import CompareResult
from tools.recommend import RecommendResult

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).with_name("gpu-advisor")

FINE_TUNE = {
    "zh": "预算 1.5 万，在家用一张卡微调 Qwen2.5-14B",
    "en": "I have a $2000 budget to fine-tune Qwen2.5-14B at home on one card",
}
SERVING = {
    "zh": "预算 3 万，给 20 个人部署 Llama-3.1-8B 推理服务，买什么卡？",
    "en": "Which GPU should I buy to serve Llama-3.1-8B to 20 users, budget $5000?",
}
COMPARE_THREE = {
    "zh": "RTX 4090、RTX 3090 和 RTX A6000 哪个适合 LoRA 微调 Qwen2.5-14B？",
    "en": "RTX 4090, RTX 3090 or RTX A6000: which is best for LoRA fine-tuning Qwen2.5-14B?",
}


def _session() -> str:
    return f"pick-{uuid.uuid4().hex[:8]}"


def _result(final: FinalEvent, kind: type) -> Any:
    found = [c.result for c in final.tool_calls if isinstance(c.result, kind)]
    assert found, [c.name for c in final.tool_calls]
    return found[0]


def _args(final: FinalEvent, tool: str) -> dict[str, Any]:
    found = [c.args for c in final.tool_calls if c.name == tool]
    assert found, (tool, [c.name for c in final.tool_calls], final.answer[:300])
    return found[0]


def _expected_from_recommendation(final: FinalEvent) -> ScenarioPick:
    p = recommended(_result(final, RecommendResult))
    assert p is not None, final.answer[:300]
    return ScenarioPick(
        gpu=p.gpu_id, count=p.count, mode=p.mode, precision=p.precision, deployment=p.deployment, by="recommend"
    )


# --- the scenario after a recommendation or a comparison ---------------------------------------------------


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_budgeted_fine_tune_holds_the_pick_not_the_method_asked(advisor: Any, lang: str) -> None:
    final = advisor.ask(_session(), FINE_TUNE[lang])
    pick = final.scenario.pick
    assert pick == _expected_from_recommendation(final)
    # the case: LoRA asked, QLoRA on a used 3090 chosen; the scenario keeps both apart
    assert final.scenario.mode == "lora" and pick.mode == "qlora" and pick.precision
    assert pick.count == 1 and catalog()[pick.gpu].vram_gib >= 16
    assert catalog()[pick.gpu].name in final.answer.split("\n\n")[0]  # the pick is the one the answer leads with


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_serving_recommendation_holds_its_pick(advisor: Any, lang: str) -> None:
    final = advisor.ask(_session(), SERVING[lang])
    pick = final.scenario.pick
    assert pick == _expected_from_recommendation(final)
    assert pick.mode == "inference" and pick.precision  # the format the policy chose for a service
    assert final.scenario.precision is None  # the user named none


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_comparison_of_three_cards_holds_the_verdicts_row(advisor: Any, lang: str) -> None:
    final = advisor.ask(_session(), COMPARE_THREE[lang])
    result = _result(final, CompareResult)
    assert len(result.rows) == 3 and result.verdict.pick is not None
    row = result.rows[result.verdict.pick]
    pick = final.scenario.pick
    assert pick is not None and pick.by == "compare"
    assert (pick.gpu, pick.count, pick.mode, pick.precision) == (row.gpu_id, row.count, row.mode, row.precision)
    assert len(final.scenario.gpus) == 3  # "which one is faster?" still refers to the three


def test_a_turn_that_picks_nothing_leaves_no_pick(advisor: Any) -> None:
    sid = _session()
    assert advisor.ask(sid, FINE_TUNE["en"]).scenario.pick is not None
    after = advisor.ask(sid, "How much VRAM does Llama-3.1-70B need at 8k context?")
    assert after.scenario.pick is None and after.scenario.model == "llama-3.1-70b"


# --- a typed what-if starts from the pick --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("lang", "followup"), [("zh", "换成两张 4090 呢"), ("en", "what about two RTX 4090s instead?")]
)
def test_a_card_what_if_keeps_the_picks_method_and_format(advisor: Any, lang: str, followup: str) -> None:
    sid = _session()
    pick = advisor.ask(sid, FINE_TUNE[lang]).scenario.pick
    after = advisor.ask(sid, followup)
    args = _args(after, "recommend_gpus")
    assert args["gpus"] == ["rtx-4090"] and args["num_gpus"] == 2
    assert args["workload"]["mode"] == pick.mode and args["workload"]["precision"] == pick.precision
    assert after.scenario.pick is not None and (after.scenario.pick.gpu, after.scenario.pick.count) == ("rtx-4090", 2)


@pytest.mark.parametrize(("lang", "followup"), [("zh", "8-bit 呢"), ("en", "what about at 8-bit")])
def test_a_precision_what_if_keeps_the_picks_method(advisor: Any, lang: str, followup: str) -> None:
    sid = _session()
    pick = advisor.ask(sid, FINE_TUNE[lang]).scenario.pick
    assert pick.mode == "qlora"
    workload = _args(advisor.ask(sid, followup), "recommend_gpus")["workload"]
    assert workload["mode"] == pick.mode and workload["precision"] == "int8"


@pytest.mark.parametrize(("lang", "followup"), [("zh", "多快？"), ("en", "how fast is it?")])
def test_how_fast_after_a_recommendation_is_the_picks_speed(advisor: Any, lang: str, followup: str) -> None:
    sid = _session()
    pick = advisor.ask(sid, FINE_TUNE[lang]).scenario.pick
    after = advisor.ask(sid, followup)
    args = _args(after, "estimate_speed")  # before: "which GPU?"
    assert (args["gpu"], args.get("num_gpus", 1), args["precision"]) == (pick.gpu, pick.count, pick.precision)
    assert args.get("method", args.get("mode")) == pick.mode


@pytest.mark.parametrize(("lang", "followup"), [("zh", "如果预算 3 万呢"), ("en", "what if my budget were $4000?")])
def test_a_new_budget_asks_the_choice_again_from_the_job_asked(advisor: Any, lang: str, followup: str) -> None:
    sid = _session()
    advisor.ask(sid, FINE_TUNE[lang])
    workload = _args(advisor.ask(sid, followup), "recommend_gpus")["workload"]
    assert workload["mode"] == "lora" and "precision" not in workload  # the policy may choose the method again


# --- the web session: panel, controls and chart ------------------------------------------------------------


def _web_turn(advisor: Any, lang: str, questions: list[str]) -> Any:
    from assistant.web.chat import TurnView
    from assistant.web.state import Session

    session = Session(lang=lang)
    history: list[dict[str, Any]] = []
    for question in questions:
        session.turn += 1
        view = TurnView(history, lang, session.turn)
        for event in advisor.stream_turn(session.thread_id, question):
            view.apply(event)
        session.absorb(view)
    return session


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_panel_controls_and_chart_show_the_pick(advisor: Any, lang: str) -> None:
    from assistant.web.cards import gpu_card
    from assistant.web.charts import options_chart
    from assistant.web.i18n import t

    session = _web_turn(advisor, lang, [FINE_TUNE[lang]])
    pick = session.scenario.pick
    card = gpu_card(pick.gpu)
    values = session.whatif_values()
    assert (values["mode"], values["precision"], values["gpu"], values["num_gpus"]) == (
        pick.mode,
        pick.precision,
        card.name,
        pick.count,
    )
    panel = session.panel()
    method_line = f"**{t(lang, 'slot.mode')}**: {t(lang, f'method.{pick.mode}')}\n"
    assert method_line in panel and f"**{t(lang, 'slot.mode')}**: {t(lang, 'method.lora')}\n" not in panel
    assert f"{pick.precision}" in panel and card.name in panel
    # the chart: the pick first, against its usable memory, then the other options
    assert session.vram is None  # the full fine-tune sized as an example is not drawn as the user's job
    first = session.options[0]
    assert first.picked and first.gpu == card.name and first.count == pick.count
    assert first.need_gib <= first.usable_gib <= first.capacity_gib
    assert len(session.options) > 1 and not any(o.picked for o in session.options[1:])
    chart = options_chart(session.options, lang)
    bars = list(dict.fromkeys(chart.frame["bar"]))
    assert len(bars) == len(session.options)  # each option its own bar, no two labelled alike
    assert bars[0].endswith(card.name) and card.name in chart.caption
    need = chart.frame[(chart.frame["bar"] == bars[0]) & (chart.frame["component"] == t(lang, "pick_need"))]
    assert list(need["gib"]) == [round(first.need_gib, 2)]


def test_the_panel_follows_a_what_if_from_the_pick(advisor: Any) -> None:
    session = _web_turn(advisor, "zh", [FINE_TUNE["zh"], "换成两张 4090 呢"])
    values = session.whatif_values()
    assert (values["gpu"], values["num_gpus"], values["mode"]) == ("RTX 4090", 2, "qlora")
    assert session.options[0].picked and session.options[0].gpu == "RTX 4090"


def test_a_comparison_draws_every_card_against_its_capacity(advisor: Any) -> None:
    session = _web_turn(advisor, "en", [COMPARE_THREE["en"]])
    names = {o.gpu for o in session.options}
    assert names == {"RTX 4090", "RTX 3090", "RTX A6000"}
    assert [o.picked for o in session.options].count(True) == 1
    assert all(o.need_gib <= o.usable_gib for o in session.options)


# --- the terminal: `ask --json` ----------------------------------------------------------------------------


def test_ask_json_reports_the_pick(knowledge_dir: Path) -> None:
    env = dict(os.environ, GPU_ADVISOR_DATA_DIR=str(knowledge_dir), COLUMNS="80", HF_HUB_OFFLINE="1")
    cmd = [str(BIN), "ask", "--json", FINE_TUNE["zh"]]
    done = subprocess.run(cmd, env=env, cwd=ROOT, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    data = json.loads(done.stdout)
    pick = data["scenario"]["pick"]
    rec = next(c["result"] for c in data["tool_calls"] if c["name"] == "recommend_gpus")
    primary = rec["primary"]
    assert (pick["gpu"], pick["count"], pick["mode"], pick["precision"]) == (
        primary["gpu_id"],
        primary["count"],
        primary["mode"],
        primary["precision"],
    )
    assert data["scenario"]["mode"] == "lora"  # what was asked stays beside what was chosen
