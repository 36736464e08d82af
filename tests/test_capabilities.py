"""The capability registry: every tool has one home, every intent the parser can read has a capability,
and the planner, composer and scenario work through it."""

from __future__ import annotations

from langchain_core.messages import AIMessage, HumanMessage

from assistant.capabilities import REGISTRY, capability, home_of
from assistant.capabilities.base import call_id, owner_from_id
from assistant.planner.model import parse
from assistant.planner.plan import make_plan
from assistant.scenario import Scenario, scenario_from_messages
from assistant.toolset import ToolName, tool_specs
from tools._data import load_yaml


def test_every_tool_has_exactly_one_home() -> None:
    homes = [tool for cap in REGISTRY for tool in cap.owns]
    assert sorted(homes) == sorted(ToolName), "each tool is owned by exactly one capability"
    assert {s.name for s in tool_specs()} == set(ToolName)
    for tool in ToolName:
        assert home_of(tool) is not None


def test_every_intent_the_lexicon_knows_has_a_capability() -> None:
    intents = set(load_yaml("lexicon.yaml")["intents"]) | {"help", "out_of_scope"}
    for intent in intents:
        assert capability(intent).intent == intent
    assert len({c.intent for c in REGISTRY}) == len(REGISTRY)


def test_call_ids_name_the_planning_capability() -> None:
    assert owner_from_id(call_id("gpu_info")) == "gpu_info"
    assert owner_from_id("call_abc") is None  # an LLM's id: the tool's home capability answers for it


def test_a_compare_turn_is_remembered_as_a_comparison() -> None:
    parsed = parse("Compare the RTX 4090 and the A100 80GB for Qwen2.5-7B inference")
    plan = make_plan(parsed, Scenario())
    assert plan.intents[0] == "compare"
    owners = {c.owner for c in plan.calls if c.name != ToolName.SEARCH_GUIDES}
    assert owners == {"compare"}
    calls = [{"name": str(c.name), "args": c.args, "id": call_id(c.owner)} for c in plan.calls]
    replayed = scenario_from_messages([HumanMessage("q"), AIMessage(content="", tool_calls=calls)])
    assert replayed.last_intents == ["compare"]
    assert replayed.gpus == ["rtx-4090", "a100-80gb-sxm"]


def test_an_llm_call_is_attributed_to_the_tool_home() -> None:
    calls = [{"name": "estimate_vram", "args": {"model": "qwen2.5-7b"}, "id": "call_xyz"}]
    replayed = scenario_from_messages([HumanMessage("q"), AIMessage(content="", tool_calls=calls)])
    assert replayed.last_intents == ["memory"] and replayed.model == "qwen2.5-7b"


def test_scenario_fields_come_from_the_tool_home() -> None:
    s = Scenario()
    s.apply_tool_call("recommend_gpus", {"workload": {"model": "qwen2.5-14b", "mode": "lora"}, "budget": 15000})
    assert (s.model, s.mode, s.budget) == ("qwen2.5-14b", "lora", 15000)
    s.apply_tool_call("gpu_specs", {"names": ["rtx-4090"]})
    assert s.gpu == "rtx-4090"
    s.apply_tool_call("calculate_tco", {"gpu": "a100-80gb-sxm", "electricity_price_per_kwh": 0.6})
    assert (s.gpu, s.electricity_price) == ("a100-80gb-sxm", 0.6)


def test_negated_requirements_do_not_filter_the_catalog() -> None:
    plan = make_plan(parse("after migrating off the cloud, which GPUs have 80GB?"), Scenario())
    find = next(c for c in plan.calls if c.name == ToolName.FIND_GPUS)
    assert find.args.get("min_vram_gib") == 80 and "need_mig" not in find.args
    plan = make_plan(parse("哪些卡有 NVLink？不需要 FP8"), Scenario())
    find = next(c for c in plan.calls if c.name == ToolName.FIND_GPUS)
    assert find.args.get("need_nvlink") is True and "need_fp8" not in find.args


def test_stated_zero_stage_reaches_the_estimator() -> None:
    plan = make_plan(parse("Full fine-tune Qwen2.5-7B on 8x A100 80GB with ZeRO-2"), Scenario())
    vram = next(c for c in plan.calls if c.name == ToolName.ESTIMATE_VRAM)
    assert vram.args["zero_stage"] == 2 and vram.args["num_gpus"] == 8


def test_compare_is_the_home_of_compare_gpus_and_answers_the_memory_asked_with_it() -> None:
    home = home_of("compare_gpus")
    assert home is not None and home.intent == "compare"
    plan = make_plan(parse("For serving Llama-3.1-70B, how much memory does FP8 save compared with BF16?"), Scenario())
    assert plan.intents == ["compare"]  # every option's memory is in the comparison, verdict first
    calls = [c for c in plan.calls if c.name != ToolName.SEARCH_GUIDES]
    assert [c.name for c in calls] == [ToolName.COMPARE_GPUS] and calls[0].args["precisions"] == ["fp8", "bf16"]
    plan = make_plan(parse("LoRA vs QLoRA"), Scenario())  # no model to size: the guides explain the difference
    assert not any(c.name == ToolName.COMPARE_GPUS for c in plan.calls)


def test_one_citation_per_section_quoted_from_where_the_section_starts_and_about_the_asked_concept():
    from assistant.citations import citations_from
    from knowledge.passage import Passage, SearchResult

    def passage(chunk: str, doc: str, section: str, text: str) -> Passage:
        return Passage(
            doc_id=doc,
            title=doc,
            section=section,
            section_path=[section],
            lang="en",
            source=f"{doc}.md",
            text=text,
            score=1.0,
            chunk_id=f"{doc}#{chunk}",
            collection="guides",
        )

    ranked = SearchResult(
        passages=[
            passage("15", "software-ecosystem.en", "MIG", "When a team uses MIG instances: notebooks, CI."),
            passage("3", "scenario-playbooks.en", "Small team", "A small team rents A100 nodes for big runs."),
            passage("14", "software-ecosystem.en", "MIG", "MIG (Multi-Instance GPU) partitions one GPU."),
        ]
    )
    cited = citations_from([ranked])
    assert [c.doc_id for c in cited] == ["software-ecosystem.en", "scenario-playbooks.en"]  # each section once
    assert cited[0].text.startswith("MIG (Multi-Instance GPU)")  # the guide's order: the definition first
    about = citations_from([ranked], about=["MIG"])
    assert [c.doc_id for c in about] == ["software-ecosystem.en"] and about[0].n == 1
    assert len(citations_from([ranked], about=["NVLink"])) == 2  # nothing names it: keep what was found


def test_nothing_fits_names_the_way_asked_not_a_cheaper_way_or_the_16_bit_reference():
    from assistant.capabilities.recommend import _workload_text
    from assistant.strings import Writer
    from tools.recommend import RecommendRequest, recommend_gpus

    def named(workload: dict) -> str:
        r = recommend_gpus(RecommendRequest(workload=workload, currency="CNY", budget=3000, deployment="local"))
        return _workload_text(Writer("zh"), r)

    assert "LoRA 微调（bf16" in named({"model": "qwen2.5-72b", "mode": "lora"})  # QLoRA was also sized
    assert "推理（q4_k_m" in named({"model": "llama-3.1-70b", "mode": "inference"})  # bf16 is the reference
