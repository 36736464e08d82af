"""The calculators as LLM tools: thin LangChain StructuredTool wrappers whose schemas are the request models."""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from functools import cache
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field, ValidationError

from assistant.errors import describe_error
from knowledge.passage import SearchResult
from tools.boards import expand_board
from tools.errors import AdvisorError

log = logging.getLogger(__name__)
UNEXPECTED_HINT = "try other inputs; if it keeps happening, please report it with the question you asked"


class ToolName(StrEnum):
    """The LLM-facing tool names: the only place they are spelled."""

    ESTIMATE_VRAM = "estimate_vram"
    ESTIMATE_SPEED = "estimate_speed"
    FIND_GPUS = "find_gpus"
    GPU_SPECS = "gpu_specs"
    COMPARE_GPUS = "compare_gpus"
    CALCULATE_TCO = "calculate_tco"
    FIT_ON_GPU = "fit_on_gpu"
    RECOMMEND_GPUS = "recommend_gpus"
    PLAN_WORKSTATION = "plan_workstation"
    SEARCH_GUIDES = "search_guides"
    CHECK_SUPPORT = "check_support"
    LARGEST_MODEL = "largest_model"
    ESTIMATE_OFFLOAD = "estimate_offload"
    DIAGNOSE = "diagnose"
    ASSESS_CARD = "assess_card"
    RENT_PROVIDERS = "rent_providers"
    COMPARE_API = "compare_api"
    ESTIMATE_RL = "estimate_rl"
    SIZE_FLEET = "size_fleet"


class SearchGuidesRequest(BaseModel):
    """Search the guide knowledge base (Chinese and English) for passages to cite."""

    query: str = Field(min_length=1, max_length=2000, description="What to look up, in the user's words")
    k: int = Field(default=4, ge=1, le=10, description="How many passages")
    lang: str | None = Field(default=None, description="Preferred language: zh or en (default: the query's)")
    whole_sections: bool = Field(
        default=False, description="Also return the rest of each section found (to explain a concept from its start)"
    )


@dataclass(frozen=True)
class ToolSpec:
    """One tool: its LLM-facing name, description, request and result models, and implementation."""

    name: ToolName
    description: str
    request: type[BaseModel]
    result: type[BaseModel]
    run: Callable[[Any], BaseModel]


def _search_guides(req: SearchGuidesRequest) -> SearchResult:
    from knowledge.retrieval import search, section_passages  # heavy: imported on first use

    try:
        passages = search(req.query, k=req.k * 2 if req.lang else req.k, lang=req.lang)
        # An answer cites guides in its own language (every bundled guide has a zh and an en twin); the other
        # language's passages count only when none in the answer's language matched.
        same = [p for p in passages if p.lang == req.lang]
        if req.lang and not same:  # an English-heavy question ("grok-1 cloud GPU"): look deeper for the twin
            same = [p for p in search(req.query, k=req.k * 6, lang=req.lang) if p.lang == req.lang]
        passages = (same or passages)[: req.k]
        rest = section_passages(passages) if req.whole_sections else []
    except (AdvisorError, ValueError):  # StoreError, EmbeddingError, bad query: their messages say what to do
        raise
    except Exception as exc:  # the store failed underneath (e.g. its files changed while the app ran)
        from knowledge.store import KnowledgeConfig

        log.warning("search_guides failed", exc_info=True)
        raise AdvisorError(
            f"the guide knowledge base could not be searched ({type(exc).__name__}) — restart GPU Advisor; if that "
            f"does not help, move {KnowledgeConfig().data_dir} away and run `gpu-advisor ingest --guides`"
        ) from None
    return SearchResult(passages=passages, section_passages=rest)


@cache
def _specs() -> tuple[ToolSpec, ...]:
    from tools.api_cost import ApiCostRequest, ApiCostResult, compare_api
    from tools.capacity import CapacityRequest, CapacityResult, largest_model
    from tools.card_risk import CardRiskRequest, CardRiskResult, assess_card
    from tools.compare import CompareRequest, CompareResult, compare_gpus
    from tools.diagnose import DiagnoseRequest, DiagnoseResult, diagnose
    from tools.fit import FitRequest, FitResult, fit_on_gpu
    from tools.fleet import FleetRequest, FleetResult, size_fleet
    from tools.gpu_search import FindGpusRequest, FindGpusResult, GpuSpecsRequest, GpuSpecsResult, find_gpus, gpu_specs
    from tools.offload import OffloadRequest, OffloadResult, estimate_offload
    from tools.recommend import RecommendRequest, RecommendResult, recommend_gpus
    from tools.rent import RentRequest, RentResult, rent_providers
    from tools.rl import RlRequest, RlResult, estimate_rl
    from tools.speed import SpeedRequest, SpeedResult, estimate_speed
    from tools.support import SupportRequest, SupportResult, check_support
    from tools.tco import TcoRequest, TcoResult, calculate_tco
    from tools.vram import VramRequest, VramResult, estimate_vram
    from tools.workstation import WorkstationPlan, WorkstationRequest, plan_workstation

    return (
        ToolSpec(
            ToolName.ESTIMATE_VRAM,
            "GPU memory (GiB) for inference, full fine-tuning, LoRA or QLoRA of a model, with a breakdown and "
            "assumptions; with `gpu`, also whether it fits and how many of that GPU it needs.",
            VramRequest,
            VramResult,
            estimate_vram,
        ),
        ToolSpec(
            ToolName.ESTIMATE_SPEED,
            "Decode tokens/s, prefill tokens/s, time to first token, or training tokens/s "
            "and time to train, for a model on named GPUs.",
            SpeedRequest,
            SpeedResult,
            estimate_speed,
        ),
        ToolSpec(
            ToolName.FIND_GPUS,
            "Filter and rank the GPU catalog by memory, price, features (BF16, FP8, NVLink, ECC, "
            "MIG), vendor and segment.",
            FindGpusRequest,
            FindGpusResult,
            find_gpus,
        ),
        ToolSpec(
            ToolName.GPU_SPECS,
            "Checked specs of one or more GPUs by fuzzy name, side by side (dense tensor TFLOPS, "
            "memory, bandwidth, NVLink, ECC, MIG, TDP, price).",
            GpuSpecsRequest,
            GpuSpecsResult,
            gpu_specs,
        ),
        ToolSpec(
            ToolName.COMPARE_GPUS,
            "Compare 1-4 GPUs (with counts), or methods (full vs LoRA vs QLoRA), or precisions (FP8 vs BF16) for "
            "one workload: each option's fit, memory per GPU, tokens/s, purchase price, rent, cost per 1M tokens, "
            "GPU link (NVLink, Infinity Fabric, PCIe) and ECC in one table, then a verdict with reasons.",
            CompareRequest,
            CompareResult,
            compare_gpus,
        ),
        ToolSpec(
            ToolName.CALCULATE_TCO,
            "Buy versus rent over a horizon: hardware, power, maintenance, resale vs cloud "
            "on-demand/spot/reserved; break-even hours per month.",
            TcoRequest,
            TcoResult,
            calculate_tco,
        ),
        ToolSpec(
            ToolName.FIT_ON_GPU,
            "On given GPUs: the best precision that fits a model, the longest context and the "
            "most concurrent sequences.",
            FitRequest,
            FitResult,
            fit_on_gpu,
        ),
        ToolSpec(
            ToolName.RECOMMEND_GPUS,
            "Ranked GPU x count options (local or cloud) that fit a workload and budget, with speed and cost.",
            RecommendRequest,
            RecommendResult,
            recommend_gpus,
        ),
        ToolSpec(
            ToolName.PLAN_WORKSTATION,
            "PSU wattage, RAM, CPU cores, PCIe lanes, slot spacing, NVLink bridge and "
            "cooling for an N-GPU workstation.",
            WorkstationRequest,
            WorkstationPlan,
            plan_workstation,
        ),
        ToolSpec(
            ToolName.ESTIMATE_OFFLOAD,
            "A model that does not fit in GPU memory run partly (or wholly) from system RAM: layers on the GPU "
            "(llama.cpp -ngl), MoE experts in RAM (--cpu-moe, ktransformers) or CPU only; GPU and RAM GiB, the RAM "
            "needed, and decode tokens/s from RAM bandwidth (DDR type x channels).",
            OffloadRequest,
            OffloadResult,
            estimate_offload,
        ),
        ToolSpec(
            ToolName.SIZE_FLEET,
            "GPUs to serve a request rate (requests per second) with a model: one replica's prefill and batched "
            "decode rates, the tokens per second the rate needs, and how many replicas (GPUs) carry it.",
            FleetRequest,
            FleetResult,
            size_fleet,
        ),
        ToolSpec(
            ToolName.ESTIMATE_RL,
            "GPU memory per GPU for reinforcement-learning fine-tuning (GRPO, PPO / RLHF, DPO): the policy being "
            "trained plus the reference, critic, reward and rollout (vLLM) models the algorithm holds, added up on "
            "the cards named (colocated, or the rollout engine on a card of its own for LoRA), with the verdict.",
            RlRequest,
            RlResult,
            estimate_rl,
        ),
        ToolSpec(
            ToolName.DIAGNOSE,
            "Why a measured speed or an out-of-memory on named hardware is what it is: the computed ceiling (decode "
            "tokens/s on the GPUs, or with the model partly in RAM) against the measured number, then the causes that "
            "apply, most likely first (offload, engine settings such as --enforce-eager, PCIe tensor parallel, "
            "nn.DataParallel, fp32 loading, old-card kernels), each with what to change and its sources.",
            DiagnoseRequest,
            DiagnoseResult,
            diagnose,
        ),
        ToolSpec(
            ToolName.ASSESS_CARD,
            "What to know before relying on an old (Kepler to Turing), memory-modified or multi-GPU card for a job "
            "(inference, training, buying): the verdict, compute capability, tensor cores, FP16 rate, BF16 and "
            "FlashAttention-2, engine support, end of driver/CUDA support, GPUs per board, cooling, a decode speed "
            "for the model asked about, what to do on it, and better cards for the same money.",
            CardRiskRequest,
            CardRiskResult,
            assess_card,
        ),
        ToolSpec(
            ToolName.LARGEST_MODEL,
            "The biggest model given GPUs (or a card of a stated memory) run or fine-tune, per way of running it: "
            "16-bit, 8-bit and 4-bit inference, full / LoRA / QLoRA fine-tuning; the largest size that fits and the "
            "largest current models that do, each checked; with system RAM, one bigger model with CPU offload.",
            CapacityRequest,
            CapacityResult,
            largest_model,
        ),
        ToolSpec(
            ToolName.CHECK_SUPPORT,
            "Will an engine, library, kernel or feature run on a GPU (vLLM, SGLang, TensorRT-LLM, llama.cpp, "
            "Ollama, ExLlamaV2/V3, bitsandbytes, PyTorch/Transformers, MLX, DeepSpeed, Unsloth, xFormers, "
            "FlashAttention-2/3/4, Marlin, BF16, FP8, FP4, CUDA, ROCm, Metal, Vulkan), optionally with a weight "
            "format: yes / no / caveat, why (compute capability or gfx target), what to use instead, dated sources.",
            SupportRequest,
            SupportResult,
            check_support,
        ),
        ToolSpec(
            ToolName.RENT_PROVIDERS,
            "Where to rent a GPU (or enough GPU memory for a job): dated on-demand and interruptible offers per "
            "GPU-hour cheapest first, in the user's market (Chinese platforms such as AutoDL, or RunPod, Vast.ai, "
            "Lambda, the big clouds), with billing unit, what storage survives a stop, free tiers (Colab, Kaggle) "
            "and how not to lose work.",
            RentRequest,
            RentResult,
            rent_providers,
        ),
        ToolSpec(
            ToolName.COMPARE_API,
            "API or self-hosting: a token volume (requests a day x tokens, tokens a month, or a monthly bill) priced "
            "at dated API list prices (DeepSeek, Qwen, OpenAI, Anthropic, Gemini, Groq, Together) against an open "
            "model on rented or bought GPUs kept up the hours a day the service runs; the break-even volume, and "
            "what the self-hosted model is next to the API's.",
            ApiCostRequest,
            ApiCostResult,
            compare_api,
        ),
        ToolSpec(
            ToolName.SEARCH_GUIDES,
            "Passages from the GPU buying guides (doc id, title, section, language) to cite "
            "for explanations and advice.",
            SearchGuidesRequest,
            SearchResult,
            _search_guides,
        ),
    )


def tool_specs() -> list[ToolSpec]:
    """Every tool of DESIGN.md plus search_guides."""
    return list(_specs())


def tool_spec(name: str) -> ToolSpec | None:
    return next((s for s in _specs() if s.name == name), None)


def typed_result(name: str, data: Any) -> BaseModel | None:
    """A tool's JSON result as its pydantic model: the boundary where results enter the assistant.

    None for an unknown tool or a payload that is not that tool's result (e.g. an LLM-invented tool)."""
    if data is None:
        return None
    spec = tool_spec(name)
    if spec is None:
        return None
    if isinstance(data, spec.result):
        return data
    try:
        return spec.result.model_validate(data)
    except ValidationError:
        log.warning("a %s result does not match its model", name, exc_info=True)
        return None


@dataclass
class ToolOutcome:
    """What one tool call produced, for events and the answer composer."""

    ok: bool
    result: Any
    error: str | None
    duration_ms: float


def _check_finite(result: Any) -> None:
    """Refuse results with NaN or infinity: they are not JSON, and no answer should quote them."""
    try:
        json.dumps(result, allow_nan=False)
    except ValueError:
        raise ArithmeticError("a result overflowed to infinity or NaN") from None


def run_tool(spec: ToolSpec, args: dict[str, Any]) -> ToolOutcome:
    """Validate args with the request model and run the tool; errors become messages, never tracebacks."""
    start = time.perf_counter()
    try:
        # A multi-GPU board (Tesla K80: 2 x 12 GB) is sized as the GPUs software sees, never as one card of its total
        args = expand_board(spec.name, args, set(spec.request.model_fields))
        req = spec.request(**args)
        result = spec.run(req).model_dump(mode="json")
        _check_finite(result)
        return ToolOutcome(True, result, None, (time.perf_counter() - start) * 1000)
    except (AdvisorError, ValidationError, ValueError, TypeError) as exc:
        return ToolOutcome(False, None, describe_error(exc), (time.perf_counter() - start) * 1000)
    except ArithmeticError as exc:  # overflow or division by zero from extreme inputs
        message = f"these inputs are outside what {spec.name} can compute ({exc}) — check for zero, tiny or huge values"
        return ToolOutcome(False, None, message, (time.perf_counter() - start) * 1000)
    except Exception as exc:  # a bug: the user (or the LLM) still gets a sentence, the log gets the traceback
        log.exception("tool %s failed on %r", spec.name, args)
        message = f"{spec.name} failed unexpectedly ({type(exc).__name__}) — {UNEXPECTED_HINT}"
        return ToolOutcome(False, None, message, (time.perf_counter() - start) * 1000)


PATH_FIELDS = ("config_path", "prices_file")  # request fields that name a local file


def refuse_local_paths(args: Any) -> str | None:
    """Why a tool call from the chat may not read the files it names (None if it names none or only
    allowed ones): see knowledge/allowed.py — by default only files uploaded to the knowledge base."""
    from knowledge.allowed import PathNotAllowed, chat_roots, check_path
    from knowledge.store import KnowledgeConfig

    named = list(_path_values(args))
    if not named:
        return None
    roots = chat_roots(Path(KnowledgeConfig().data_dir).expanduser())
    for value in named:
        try:
            check_path(value, roots)
        except PathNotAllowed as exc:
            return f"{exc}. In the chat, upload the file on the Knowledge tab first"
    return None


def _path_values(value: Any) -> list[str]:
    if isinstance(value, BaseModel):  # LangChain hands nested requests over as models
        value = value.model_dump()
    if isinstance(value, dict):
        found = [str(v) for k, v in value.items() if k in PATH_FIELDS and v not in (None, "")]
        return found + [p for k, v in value.items() if k not in PATH_FIELDS for p in _path_values(v)]
    if isinstance(value, list | tuple):
        return [p for v in value for p in _path_values(v)]
    return []


def as_langchain_tools(specs: list[ToolSpec] | None = None) -> list:
    """StructuredTools for create_agent. A failed call returns 'error: ...' to the model so it can correct."""
    from langchain_core.tools import StructuredTool

    tools = []
    for spec in specs or tool_specs():

        def _call(_spec: ToolSpec = spec, **kwargs: Any) -> str:
            refused = refuse_local_paths(kwargs)
            if refused:
                return json.dumps({"error": refused}, ensure_ascii=False)
            outcome = run_tool(_spec, kwargs)
            if not outcome.ok:
                return json.dumps({"error": outcome.error}, ensure_ascii=False)
            return json.dumps(outcome.result, ensure_ascii=False)

        tools.append(
            StructuredTool.from_function(
                func=_call,
                name=spec.name,
                description=spec.description,
                args_schema=spec.request,
                infer_schema=False,
                handle_validation_error=lambda exc: json.dumps({"error": describe_error(exc)}, ensure_ascii=False),
            )
        )
    return tools
