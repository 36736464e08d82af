"""One rule for "does it fit / how many GPUs": the chat answer, fit_on_gpu, recommend_gpus and the
calculators tab must agree on random workloads and GPUs (tools/sizing.py is the rule's one home)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from langchain_core.messages import HumanMessage, ToolMessage

from assistant.planner.model import OfflinePlanner
from assistant.toolset import ToolName, run_tool, tool_spec
from assistant.web.forms import run_vram
from tools.fit import FitRequest, fit_on_gpu
from tools.recommend import RecommendRequest, recommend_gpus
from tools.vram import VramRequest, VramResult, estimate_vram

# GPUs with a purchase price or a cloud rate, so recommend_gpus can offer them; named as people type them.
GPUS = {
    "rtx-4060-ti-16gb": "RTX 4060 Ti 16GB",
    "rtx-3090": "RTX 3090",
    "rtx-4090": "RTX 4090",
    "rtx-5090": "RTX 5090",
    "rtx-a6000": "RTX A6000",
    "l40s": "L40S",
    "a100-80gb-pcie": "A100 80GB PCIe",
    "h100-sxm": "H100 SXM",
    "h200-sxm": "H200 SXM",
}
MODELS = {
    "qwen2.5-7b": "Qwen2.5-7B",
    "llama-3.1-8b": "Llama-3.1-8B",
    "qwen2.5-14b": "Qwen2.5-14B",
    "qwen2.5-32b": "Qwen2.5-32B",
    "llama-3.1-70b": "Llama-3.1-70B",
    "mixtral-8x7b": "Mixtral-8x7B",
}
MODE_WORDS = {
    "inference": "inference",
    "lora": "LoRA fine-tuning",
    "qlora": "QLoRA fine-tuning",
    "full": "full fine-tuning",
}
INFERENCE_PRECISIONS = {"bf16": "BF16", "fp8": "FP8", "awq": "AWQ", "q4_k_m": "Q4_K_M"}
MAX_GPUS = 16  # recommend_gpus offers at most 16 of one card


@dataclass
class Case:
    model: str
    gpu: str
    mode: str
    precision: str | None
    context: int
    batch: int

    def question(self) -> str:
        precision = f" in {INFERENCE_PRECISIONS[self.precision]}" if self.precision else ""
        users = f" for {self.batch} concurrent users" if self.batch > 1 else ""
        return (
            f"How much memory does {MODELS[self.model]} need for {MODE_WORDS[self.mode]}{precision}{users} "
            f"at {self.context} tokens of context on an {GPUS[self.gpu]}?"
        )


@st.composite
def cases(draw: st.DrawFn) -> Case:
    mode = draw(st.sampled_from(list(MODE_WORDS)))
    inference = mode == "inference"
    return Case(
        model=draw(st.sampled_from(list(MODELS))),
        gpu=draw(st.sampled_from(list(GPUS))),
        mode=mode,
        precision=draw(st.sampled_from([None, *INFERENCE_PRECISIONS])) if inference else None,
        context=draw(st.sampled_from([2048, 4096, 8192, 32768])),
        batch=draw(st.sampled_from([1, 4, 16, 64])) if inference else 1,
    )


def chat(question: str) -> tuple[str, list[tuple[dict, VramResult]]]:
    """The offline planner's turn, tools run as the agent runs them (no guide search: no store needed)."""
    names = [s for s in ToolName if s != ToolName.SEARCH_GUIDES]
    planner = OfflinePlanner().bind_tools([{"name": str(n)} for n in names])
    messages: list = [HumanMessage(question)]
    estimates: list[tuple[dict, VramResult]] = []
    for _ in range(4):
        reply = planner.respond(messages)
        messages.append(reply)
        if not reply.tool_calls:
            return str(reply.content), estimates
        for call in reply.tool_calls:
            outcome = run_tool(tool_spec(call["name"]), call["args"])
            assert outcome.ok, (call, outcome.error)
            if call["name"] == ToolName.ESTIMATE_VRAM:
                estimates.append((call["args"], VramResult.model_validate(outcome.result)))
            messages.append(ToolMessage(json.dumps(outcome.result), tool_call_id=call["id"]))
    raise AssertionError("the planner did not finish")


def verdict_in(text: str, gpu_name: str) -> tuple[bool, int | None]:
    """Fits on one? and the GPU count the answer says the job needs."""
    if re.search(r"Yes, it fits\*\*(?: at [^*\n]+?)? on one ", text):  # "… fits** at FP8 (8-bit) on one"
        return True, 1
    gpu = re.escape(gpu_name)
    m = re.search(rf"\*\*(\d+) × {gpu}\*\* are needed|needs \*\*(\d+) × {gpu}", text)
    return False, (int(m.group(1) or m.group(2)) if m else None)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases())
def test_chat_fit_recommend_and_calculators_agree(case: Case) -> None:
    # the chat: the question as a user types it
    answer, estimates = chat(case.question())
    asked, first = estimates[0]
    assert asked["model"] == case.model and asked["mode"] == case.mode, asked
    assert asked["context_tokens"] == case.context and asked["batch"] == case.batch, asked
    assert asked.get("precision") == case.precision, asked
    assert first.fit is not None and first.fit.gpu_id == case.gpu
    fit = first.fit
    says_fits, says_count = verdict_in(answer, fit.gpu)
    assert says_fits == fit.fits, answer
    if not fit.fits:
        assert says_count == fit.gpus_needed, answer

    # the calculator, called directly on the chat's workload
    workload = {k: v for k, v in asked.items() if k not in ("gpu", "num_gpus")}
    direct = estimate_vram(VramRequest(**workload, gpu=case.gpu)).fit
    assert direct is not None and (direct.fits, direct.gpus_needed) == (fit.fits, fit.gpus_needed)

    # the calculators tab
    form = run_vram(
        "en",
        MODELS[case.model],
        None,
        case.mode,
        case.precision or "",
        "",
        case.context,
        case.batch,
        1,
        case.mode != "inference",  # the chat turns gradient checkpointing on for every fine-tune
        "",
        None,
        16,
        GPUS[case.gpu],
    )
    assert isinstance(form.data, VramResult) and form.data.fit is not None, form.markdown
    assert (form.data.fit.fits, form.data.fit.gpus_needed) == (fit.fits, fit.gpus_needed)

    # fit_on_gpu: the most concurrent sequences at this context, with the precision fixed
    if case.mode == "inference":
        served = fit_on_gpu(
            FitRequest(model=case.model, gpu=case.gpu, precision=first.precision, context_tokens=case.context)
        )
        fits_here = served.max_concurrent_sequences is not None and served.max_concurrent_sequences >= case.batch
        assert fits_here == fit.fits, (served.max_concurrent_sequences, fit)

    # recommend_gpus restricted to this GPU, the workload as asked (no cheaper method or precision):
    # the same count, or nothing when it needs more than 16
    fixed = VramRequest(**workload | {"precision": first.precision})
    rec = recommend_gpus(
        RecommendRequest(
            workload=fixed, gpus=[case.gpu], max_gpus=MAX_GPUS, currency="USD", method_flexible=False, persona="team"
        )
    )
    if fit.gpus_needed is not None and fit.gpus_needed <= MAX_GPUS:
        assert rec.options and {o.count for o in rec.options} == {fit.gpus_needed}, (rec.options, fit)
    else:
        assert rec.nothing_fits, rec.options


def test_headroom_is_one_number_everywhere() -> None:
    from tools.sizing import default_headroom

    r = estimate_vram(VramRequest(model="qwen2.5-7b", gpu="rtx-4090"))
    served = fit_on_gpu(FitRequest(model="qwen2.5-7b", gpu="rtx-4090"))
    assert r.fit is not None
    assert r.fit.usable_gib_per_gpu == served.usable_gib_per_gpu == round(24 * (1 - default_headroom()), 2)
