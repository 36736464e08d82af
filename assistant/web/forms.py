"""The Calculators tab's forms, declared as data: each field once, with its component, label, default,
choices and the request field it fills.

calculators.py builds the components, the event inputs and the API signature from a Form; `Form.run`
builds the request from the same declaration, calls the calculator and never raises: a bad input
becomes a one-line message a person can act on.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ValidationError

from assistant.errors import describe_error
from assistant.language import currency_for
from assistant.toolset import ToolName, ToolSpec, tool_spec
from assistant.web import reports
from assistant.web.cards import gpu_choices, model_choices
from assistant.web.chat import MODE_CHOICES, PRECISION_CHOICES
from assistant.web.i18n import has, t
from assistant.web.reports import CalcOutput
from tools.errors import AdvisorError
from tools.recommend import RecommendRequest
from tools.speed import SpeedRequest
from tools.vram import VramResult

Kind = Literal["dropdown", "number", "checkbox", "radio", "checkboxes", "slider"]
MERGE = "."  # a field whose parsed value is a dict of request fields (e.g. one checkbox per feature)
AUTO = "auto"
FEATURES = ("bf16", "fp8", "nvlink", "ecc", "mig")
TRAINING_METHODS = ("lora", "qlora")  # gradient checkpointing on: what LoRA/QLoRA recipes do


# --- form values -> request values (None: leave the request field at its default) ---------------------------


def text(value: Any) -> Any:
    """Empty text boxes and cleared numbers mean 'not given'."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    return value.strip() if isinstance(value, str) else value


def count(value: Any) -> int | None:
    """A positive whole number, or None: a cleared Gradio Number arrives as 0, which means 'not given' here."""
    value = text(value)
    return None if value is None or float(value) <= 0 else int(float(value))


def amount(value: Any) -> float | None:
    """A positive number, or None for empty / 0 (see `count`)."""
    value = text(value)
    return None if value is None or float(value) <= 0 else float(value)


def flag(value: Any) -> bool:
    return bool(value)


def stage(value: Any) -> int | None:
    """A ZeRO stage, or None for 'auto' (the calculator's default: 3 when training on several GPUs, else 0)."""
    value = text(value)
    return None if value is None or value == AUTO else int(value)


def needs(value: Any) -> dict[str, bool]:
    return {f"need_{f}": True for f in value or [] if f in FEATURES}


# --- declarations ------------------------------------------------------------------------------------------

Choices = Sequence[Any] | Callable[[], Sequence[Any]]


@dataclass(frozen=True)
class Field:
    """One input of a form: what shows it, and which request field it fills (dotted for a nested request)."""

    name: str  # the event function's parameter and the API's
    kind: Kind
    label: str  # i18n key
    default: Any = None  # a callable takes the interface language
    choices: Choices | None = None  # a callable is read when the app is built (the catalogs)
    choice_labels: str | None = None  # i18n prefix: choice v shows as t(prefix + v) where that string exists
    to: str | None = None  # request field; None: the field's own name
    parse: Callable[[Any], Any] = text
    fallback: Any = None  # sent when the parsed value is None (None: leave the request's default)
    unless: str | None = None  # left out when this other field is given (a model name beats a parameter count)
    row: int = 0
    props: Mapping[str, Any] = field(default_factory=dict)  # further arguments of the component

    @property
    def target(self) -> str:
        return self.name if self.to is None else self.to

    def initial(self, lang: str) -> Any:
        return self.default(lang) if callable(self.default) else self.default

    def options(self, lang: str) -> list[Any] | None:
        """The choices as the component takes them, labelled in `lang`."""
        if self.choices is None:
            return None
        values = self.choices() if callable(self.choices) else self.choices
        if self.choice_labels is None:
            return list(values)
        prefix = self.choice_labels
        return [(t(lang, prefix + (str(v) or "any")) if has(prefix + (str(v) or "any")) else str(v), v) for v in values]

    def fill(self, args: dict[str, Any], values: Mapping[str, Any]) -> None:
        """Put this field's value into the request arguments `args`."""
        if self.unless is not None and text(values.get(self.unless)) is not None:
            return
        value = self.parse(values.get(self.name))
        if value is None:
            value = self.fallback
        if value is None:
            return
        if self.target == MERGE:
            args.update(value)
            return
        *parents, leaf = self.target.split(".")
        node = args
        for part in parents:
            node = node.setdefault(part, {})
        node[leaf] = value


@dataclass(frozen=True)
class ChartSlot:
    """A chart a form draws: the CalcOutput.charts key, the Gradio plot kind, its title and element id."""

    key: str
    kind: Literal["bar", "scatter", "line"]
    title: str
    elem_id: str


@dataclass(frozen=True)
class Form:
    """A calculator form: its fields, the tool it runs and what it shows."""

    name: str  # API name and element-id prefix; its tab's title is the string calc_<name>
    tool: ToolName
    fields: tuple[Field, ...]
    report: Callable[[str, Any, Any], CalcOutput]
    finish: Callable[[Any], Any] | None = None  # the request -> the request, where fields combine
    charts: tuple[ChartSlot, ...] = ()
    table: tuple[str, ...] | None = None  # result columns shown as a table
    table_height: int = 360
    json: bool = True  # show the full result (JSON) under the summary

    @property
    def title(self) -> str:
        return f"calc_{self.name}"

    @property
    def spec(self) -> ToolSpec:
        spec = tool_spec(self.tool)
        assert spec is not None, self.tool  # every ToolName has a spec
        return spec

    @property
    def description(self) -> str:
        """The API endpoint's description: the tool's own."""
        return self.spec.description

    @property
    def names(self) -> list[str]:
        return [f.name for f in self.fields]

    def arguments(self, values: Mapping[str, Any]) -> dict[str, Any]:
        """The request's arguments from the form's values (by field name)."""
        args: dict[str, Any] = {}
        for f in self.fields:
            f.fill(args, values)
        return args

    def request(self, values: Mapping[str, Any]) -> BaseModel:
        """The tool's request from the form's values; raises what the request model raises."""
        request = self.spec.request(**self.arguments(values))
        return self.finish(request) if self.finish is not None else request

    def run(self, lang: str, values: Mapping[str, Any]) -> CalcOutput:
        """The calculator on the form's values (by field name); a bad input is a one-line message."""
        try:
            request = self.request(values)
            return self.report(lang, request, self.spec.run(request))
        except (AdvisorError, ValidationError, ValueError, TypeError, KeyError) as exc:
            return CalcOutput(markdown=t(lang, "calc_error", message=describe_error(exc)))

    def call(self, lang: str, *values: Any) -> CalcOutput:
        """`run` with the values in field order (as the event and the API pass them)."""
        return self.run(lang, dict(zip(self.names, values, strict=True)))


# --- field kinds and shared fields --------------------------------------------------------------------------

PRECISIONS = ("", *PRECISION_CHOICES, "nf4_dq", "q4_0", "q5_k_m", "q6_k")
KV_DTYPES = ("", "fp16", "bf16", "fp8", "int8", "q8_0", "q4_0")
OPTIMIZERS = ("", "adamw", "adamw_no_master", "adamw_bf16", "adamw8bit", "sgd")


SORT_KEYS = ("price_per_gib", "bf16_tflops_per_dollar", "bandwidth", "vram", "bf16_tflops", "price")
UTILIZATION_SLIDER = {"minimum": 0.05, "maximum": 1.0, "step": 0.05}


def whole(name: str, label: str, default: int, props: Mapping[str, Any] | None = None, **options: Any) -> Field:
    """A count (tokens, sequences, GPUs): empty or 0 leaves the request's default."""
    props = {"precision": 0, "minimum": 1} | dict(props or {})
    return Field(name, "number", label, default, parse=count, props=props, **options)


def money(name: str, label: str, props: Mapping[str, Any] | None = None, **options: Any) -> Field:
    """An amount (price, budget, GiB): empty or 0 means none given."""
    return Field(name, "number", label, None, parse=amount, props={"minimum": 0} | dict(props or {}), **options)


def pick(
    name: str,
    label: str,
    default: Any,
    choices: Choices,
    custom: bool = False,
    props: Mapping[str, Any] | None = None,
    **options: Any,
) -> Field:
    """A dropdown; `custom`: values beyond the list may be typed."""
    props = {"allow_custom_value": True} | dict(props or {}) if custom else dict(props or {})
    return Field(name, "dropdown", label, default, choices, props=props, **options)


def choose(name: str, label: str, choices: tuple[str, ...], choice_labels: str | None = None, **options: Any) -> Field:
    """A radio preset to its first choice, which is also what an empty value means."""
    return Field(name, "radio", label, choices[0], choices, choice_labels, fallback=choices[0], **options)


def model_fields(nested: str = "") -> tuple[Field, ...]:
    """The model by name, or a parameter count when no name is given."""
    return (
        pick("model", "f_model", "Qwen2.5-7B", model_choices, custom=True, to=nested + "model", props={"scale": 3}),
        money("params_b", "f_params_b", to=nested + "params_b", unless="model", props={"scale": 1}),
    )


def mode_field(default: str, nested: str = "", row: int = 1) -> Field:
    return Field(
        "mode", "radio", "f_mode", default, MODE_CHOICES, "method.", to=nested + "mode", fallback="inference", row=row
    )


def run_fields(context_tokens: int, nested: str = "", kv_dtype: bool = False, row: int = 2) -> tuple[Field, ...]:
    """Weight precision (and KV-cache dtype), context and batch: the run every sizing form describes."""
    kv = (pick("kv_dtype", "f_kv_dtype", "", KV_DTYPES, to=nested + "kv_dtype", row=row),) if kv_dtype else ()
    return (
        pick("precision", "f_precision", "", PRECISIONS, custom=True, to=nested + "precision", row=row),
        *kv,
        whole("context_tokens", "f_context", context_tokens, to=nested + "context_tokens", row=row),
        whole("batch", "f_batch", 1, to=nested + "batch", row=row),
    )


def gpu_field(row: int = 0) -> Field:
    return pick("gpu", "f_gpu", "RTX 4090", gpu_choices, custom=True, fallback="", row=row)


def currency_field(fallback: str, choices: tuple[str, ...] = ("USD", "CNY"), row: int = 0) -> Field:
    """The currency, preset to the interface language's."""
    return Field("currency", "radio", "f_currency", currency_for, choices, fallback=fallback, row=row)


def workload_field(name: str, label: str, to: str | None = None, row: int = 0) -> Field:
    return Field(
        name, "radio", label, "inference", ("inference", "training"), "method.", to=to, fallback="inference", row=row
    )


# --- the forms ---------------------------------------------------------------------------------------------

VRAM_FIELDS = (
    *model_fields(),
    mode_field("qlora"),
    *run_fields(2048, kv_dtype=True),
    whole("num_gpus", "f_num_gpus", 1, row=3),
    Field("grad_checkpointing", "checkbox", "f_grad_ckpt", True, parse=flag, row=3),
    pick("optimizer", "f_optimizer", "", OPTIMIZERS, choice_labels="optimizer.", row=3),
    pick("zero_stage", "f_zero", AUTO, (AUTO, "0", "1", "2", "3"), choice_labels="choice.", parse=stage, row=3),
    whole("lora_rank", "f_lora_rank", 16, row=3),
    pick("compare_gpu", "f_compare_gpu", "RTX 4090", lambda: ["", *gpu_choices()], custom=True, to="gpu", row=3),
)
VRAM_CHART = ChartSlot("memory", "bar", "chart_memory", "vram-chart")
VRAM = Form("vram", ToolName.ESTIMATE_VRAM, VRAM_FIELDS, reports.vram_report, charts=(VRAM_CHART,))


def run_vram(
    lang: str,
    model: str | None,
    params_b: float | None,
    mode: str,
    precision: str | None,
    kv_dtype: str | None,
    context_tokens: float | None,
    batch: float | None,
    num_gpus: float | None,
    grad_checkpointing: bool,
    optimizer: str | None,
    zero_stage: Any,
    lora_rank: float | None,
    compare_gpu: str | None,
) -> CalcOutput[VramResult]:
    """The memory form on these values: GPU memory for a workload, and whether it fits on `compare_gpu`."""
    values = dict(locals())  # the parameters are the form's field names
    return VRAM.run(values.pop("lang"), values)


def _checkpoint_adapter_training(request: SpeedRequest) -> SpeedRequest:
    """LoRA and QLoRA recipes checkpoint activations; the speed estimate assumes they do."""
    adapters = request.mode == "training" and request.method in TRAINING_METHODS
    return request.model_copy(update={"grad_checkpointing": adapters})


SPEED_FIELDS = (
    *model_fields(),
    gpu_field(row=1),
    whole("num_gpus", "f_num_gpus", 1, row=1),
    workload_field("workload", "f_speed_mode", to="mode", row=1),
    Field("method", "radio", "f_method", "lora", MODE_CHOICES[1:], "method.", row=1),
    *run_fields(4096),
)
SPEED = Form("speed", ToolName.ESTIMATE_SPEED, SPEED_FIELDS, reports.speed_report, finish=_checkpoint_adapter_training)

GPUS_FIELDS = (
    money("min_vram_gib", "f_min_vram"),
    money("max_price", "f_max_price"),
    currency_field("USD"),
    pick("vendor", "f_vendor", "", ("", "nvidia", "amd", "intel", "apple"), choice_labels="vendor."),
    pick("segment", "f_segment", "", ("", "consumer", "workstation", "datacenter", "apple"), choice_labels="segment."),
    Field("features", "checkboxes", "f_features", None, FEATURES, "feature.", to=MERGE, parse=needs, row=1),
    pick("sort_by", "f_sort", "price_per_gib", SORT_KEYS, choice_labels="sort.", fallback="price_per_gib", row=1),
    whole("limit", "f_limit", 20, fallback=20, row=1, props={"maximum": 100}),
)
GPU_CHARTS = (
    ChartSlot("price", "scatter", "chart_gpu_price", "gpus-chart-price"),
    ChartSlot("memory", "scatter", "chart_gpu_memory", "gpus-chart-memory"),
)
GPUS = Form(
    "gpus",
    ToolName.FIND_GPUS,
    GPUS_FIELDS,
    reports.gpus_report,
    charts=GPU_CHARTS,
    table=reports.GPU_TABLE_COLUMNS,
    json=False,
)

TCO_FIELDS = (
    gpu_field(),
    whole("num_gpus", "f_num_gpus", 1),
    Field("horizon_years", "number", "f_horizon", 3, parse=amount, props={"minimum": 0.1, "maximum": 10}),
    Field("utilization", "slider", "f_utilization", 0.5, parse=amount, props=UTILIZATION_SLIDER),
    currency_field("USD"),
    money("gpu_price", "f_gpu_price", row=1),
    money("electricity_price", "f_electricity", to="electricity_price_per_kwh", row=1),
    money("cloud_price", "f_cloud_price", to="cloud_price_per_gpu_hour", row=1),
)
TCO_CHART = ChartSlot("tco", "line", "chart_tco", "tco-chart")
TCO = Form("tco", ToolName.CALCULATE_TCO, TCO_FIELDS, reports.tco_report, charts=(TCO_CHART,))


def _checkpoint_adapters(request: RecommendRequest) -> RecommendRequest:
    """LoRA and QLoRA recipes checkpoint activations; the recommendation assumes they do."""
    if request.workload.mode not in TRAINING_METHODS:
        return request
    workload = request.workload.model_copy(update={"grad_checkpointing": True})
    return request.model_copy(update={"workload": workload})


RECOMMEND_FIELDS = (
    *model_fields("workload."),
    mode_field("lora", "workload."),
    *run_fields(2048, "workload."),
    money("budget", "f_budget", row=3),
    money("monthly_budget", "f_monthly_budget", row=3),
    currency_field("CNY", ("CNY", "USD"), row=3),
    choose("deployment", "f_deployment", ("either", "local", "cloud"), choice_labels="deployment.", row=3),
    choose("preference", "f_preference", ("balanced", "cheapest", "fastest"), choice_labels="preference.", row=3),
)
RECOMMEND = Form(
    "recommend",
    ToolName.RECOMMEND_GPUS,
    RECOMMEND_FIELDS,
    reports.recommend_report,
    finish=_checkpoint_adapters,
    table=reports.OPTION_COLUMNS,
    table_height=420,
    json=False,
)

BUILD_FIELDS = (
    gpu_field(),
    whole("num_gpus", "f_num_gpus", 2, fallback=1, props={"maximum": 16}),
    workload_field("use", "f_use"),
)
BUILD = Form("build", ToolName.PLAN_WORKSTATION, BUILD_FIELDS, reports.build_report)

FORMS = (VRAM, SPEED, GPUS, TCO, RECOMMEND, BUILD)
