"""The conversation's current scenario, derived from the tool calls made so far in a session."""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

if TYPE_CHECKING:
    from tools.recommend import Pick, RecommendResult


class ScenarioPick(BaseModel):
    """The option an answer chose (a recommendation's primary, a comparison's verdict): what the user was told to
    buy, rent or run. The scenario's own slots keep what the user asked ("LoRA"); the pick is what the answer made
    of it ("QLoRA, nf4, on one used 3090"), so the panel shows it and a follow-up starts from it
    (planner/followup.py start_from_pick)."""

    gpu: str  # catalog id
    count: int
    mode: str | None = None
    precision: str | None = None
    deployment: str | None = None  # "local" (bought) or "cloud" (rented); None: a comparison's pick
    by: str  # the question type that chose it: "recommend" or "compare"


class Scenario(BaseModel):
    """What the user is sizing; follow-up questions change only what they mention."""

    model: str | None = None
    params_b: float | None = None
    mode: str | None = None
    precision: str | None = None
    kv_dtype: str | None = None
    context_tokens: int | None = None
    batch: int | None = None
    gpu: str | None = None
    num_gpus: int | None = None
    # the count above is one an answer worked out ("4 × A6000 are needed"), not one the user said: a follow-up that
    # swaps the card ("what about with 4090s instead") counts anew (planner/model.py sets it, plan.py reads it)
    count_sized: bool = False
    budget: float | None = None
    monthly_budget: float | None = None
    currency: str | None = None
    electricity_price: float | None = None
    utilization: float | None = None
    horizon_years: float | None = None
    deployment: str | None = None
    preference: str | None = None
    gpus: list[str] = []
    # different cards in one machine ("3080 10G + 2080Ti 22G"), one id per card: sized as a layer split in
    # proportion to each card's memory (tools/vram.py gpu_mix); `gpu` is then the smallest and `num_gpus` their number
    gpu_mix: list[str] = []
    lora_rank: int | None = None
    lora_targets: str | None = None  # "attention": adapters on the attention projections only (tools/vram.py)
    cpu_offload: str | None = None  # training: ZeRO-Offload of the optimizer states ("optimizer_and_params": ZeRO-3)
    optimizer: str | None = None
    zero_stage: int | None = None
    persona: str | None = None
    max_gpus: int | None = None
    cloud_excluded: bool = False
    serving: bool = False
    min_card_gib: float | None = None
    users: int | None = None
    shared_by: int | None = None  # a team's budget buys one shared machine for this many people (tools/recommend.py)
    budget_scope: str | None = None
    gpu_price: float | None = None
    cloud_price: float | None = None
    fused_loss: bool | None = None  # training with a fused/chunked cross-entropy (Unsloth, Liger)
    engine: str | None = None  # the engine named (tools/sizing.py keys): the fit verdict's headroom
    engine_name: str | None = None  # as named ("ollama" is llama.cpp's headroom, but offloads whole layers only)
    # an engine that runs the model from system RAM by design ("ktransformers": system_memory.yaml offload_engines)
    offload_engine: str | None = None
    ram_gib: float | None = None  # system RAM, for CPU offload
    ram_type: str | None = None  # "ddr4", "ddr5-6000"
    machine: str | None = None  # CPU platform class (system_memory.yaml machines)
    support_subject: str | None = None  # engine / feature a support question named (tools/support.py ids)
    # a training run's data: hours to train come from samples x tokens per sample x epochs (tools/speed.py)
    dataset_samples: int | None = None
    sample_tokens: int | None = None
    dataset_tokens: float | None = None
    epochs: float | None = None
    rl: str | None = None  # "PPO", "GRPO": the RL algorithm named; "8*24G 4090 sorry!" keeps sizing that run
    # a service's usage and the API it is priced against (tools/api_cost.py): "每天 1 万次调用" carries over
    requests_per_day: float | None = None
    tokens_per_month: float | None = None
    api: str | None = None
    rent_provider: str | None = None  # "on AWS": where the user rents (tools/rent.py provider names)
    last_intents: list[str] = []
    # the models the last turn that sized any sized, each a part of its answer ("Qwen2.5-7B 和 14B 微调要多少显存"):
    # a follow-up naming only a card checks each of them on it (planner/followup.py models_in_play)
    models: list[str] = []
    # what the last answered turn chose, when it was a recommendation or a comparison (None after any other turn)
    pick: ScenarioPick | None = None

    def apply_tool_call(self, name: str, args: dict[str, Any]) -> None:
        """Update the slots a tool call fixed (each tool's home capability knows which)."""
        from assistant.capabilities import home_of

        home = home_of(name)
        if home is not None:
            home.apply(self, name, args)  # type: ignore[arg-type]  # home_of only finds known ToolNames

    def summary(self) -> dict[str, Any]:
        """The slots that are set, for display."""
        return {k: v for k, v in self.model_dump(exclude={"last_intents"}).items() if v is not None}


def scenario_from_messages(messages: list[Any]) -> Scenario:
    """Replay every tool call of a conversation (LangChain messages) into a Scenario."""
    scenario = Scenario()
    turn_calls: list[dict[str, Any]] = []
    results: list[tuple[dict[str, Any], Any]] = []  # this turn's recommendation and comparison results, unread
    answered: list[tuple[dict[str, Any], Any]] = []  # those of the last turn that ran tools: only its pick counts
    for msg in messages:
        if getattr(msg, "type", "") == "human":
            if turn_calls:
                _end_turn(scenario, turn_calls)
                answered = results
            turn_calls, results = [], []
        if getattr(msg, "type", "") == "tool":
            call = next((c for c in turn_calls if c.get("id") == getattr(msg, "tool_call_id", None)), None)
            if call is not None and call.get("name") in _PICKING:
                results.append((call, msg.content))
        for call in getattr(msg, "tool_calls", None) or []:
            if _describes_workload(call):
                scenario.apply_tool_call(call["name"], call.get("args") or {})
            elif kept := _kept_args(call):  # an example call that still carries what the user stated
                scenario.apply_tool_call(call["name"], kept)
            turn_calls.append(call)
    if turn_calls:
        _end_turn(scenario, turn_calls)
        answered = results
    # the first pick: a question of several parts leads with the first part's
    scenario.pick = next((p for call, content in answered if (p := _pick_of(call, content)) is not None), None)
    return scenario


def _end_turn(scenario: Scenario, calls: list[dict[str, Any]]) -> None:
    """What a turn that ran tools leaves: the question types it answered and the models it sized."""
    scenario.last_intents = _intents(calls)
    scenario.models = _sized_models(calls) or scenario.models


def recommended(result: RecommendResult) -> Pick | None:
    """The option a recommendation's answer leads with: its primary, else, when nothing fits the budget, the
    nearest option over it (capabilities/recommend.py `_nothing_fits` names that one)."""
    if result.primary is not None:
        return result.primary
    return result.stretch if result.budget else None


_PICKING = ("recommend_gpus", "compare_gpus")  # the tools whose result names an option to take


def _pick_of(call: dict[str, Any], content: Any) -> ScenarioPick | None:
    """The option a recommendation or a comparison of the user's workload chose, from its tool message."""
    if not _describes_workload(call):
        return None
    pick = _read_pick(call["name"], content) if isinstance(content, str) else None
    return pick.model_copy() if pick is not None else None  # the cached one stays as read


@lru_cache(maxsize=64)
def _read_pick(name: str, content: str) -> ScenarioPick | None:
    """Reading a result takes milliseconds, and every step of a turn replays the conversation: read each once."""
    import json

    from assistant.toolset import typed_result
    from tools.compare import CompareResult
    from tools.recommend import RecommendResult

    try:
        data = json.loads(content)
    except ValueError:  # a plain-text error, not a result
        return None
    if not isinstance(data, dict) or set(data) == {"error"}:
        return None
    result = typed_result(name, data)
    if isinstance(result, RecommendResult) and (p := recommended(result)) is not None:
        return ScenarioPick(
            gpu=p.gpu_id, count=p.count, mode=p.mode, precision=p.precision, deployment=p.deployment, by="recommend"
        )
    if isinstance(result, CompareResult) and result.verdict.pick is not None and result.model:
        row = result.rows[result.verdict.pick]  # a comparison of cards with no workload picks no job to size
        count = row.count or row.count_asked or 1
        return ScenarioPick(gpu=row.gpu_id, count=count, mode=row.mode, precision=row.precision, by="compare")
    return None


_SIZED_PARTS = ("memory", "fit", "recommend")  # the question types that answer each model a message names


def _sized_models(calls: list[dict[str, Any]]) -> list[str]:
    """The models a turn sized as parts of its answer (not those of a reference figure or an alternative)."""
    from assistant.capabilities import home_of
    from assistant.capabilities.base import owner_from_id

    out: list[str] = []
    for call in calls:
        home = home_of(call["name"])
        intent = owner_from_id(call.get("id") or "") or (home.intent if home else None)
        model = (call.get("args") or {}).get("model")
        if intent in _SIZED_PARTS and model and model not in out and _describes_workload(call):
            out.append(model)
    return out


def _describes_workload(call: dict[str, Any]) -> bool:
    """A call the planning capability marks as a reference figure does not change the scenario."""
    from assistant.capabilities import REGISTRY
    from assistant.capabilities.base import owner_from_id
    from assistant.toolset import ToolName

    owner = owner_from_id(call.get("id") or "")
    planner = next((c for c in REGISTRY if c.intent == owner), None)
    if planner is None or call["name"] not in ToolName.__members__.values():
        return True
    return planner.records(ToolName(call["name"]))


def _kept_args(call: dict[str, Any]) -> dict[str, Any]:
    """The arguments of a call marked as an example that still describe the user's workload (a dataset size
    sent with an example card), as the planning capability says."""
    from assistant.capabilities import REGISTRY
    from assistant.capabilities.base import owner_from_id

    owner = owner_from_id(call.get("id") or "")
    planner = next((c for c in REGISTRY if c.intent == owner), None)
    return planner.kept_args(call["name"], call.get("args") or {}) if planner is not None else {}


def _intents(calls: list[dict[str, Any]]) -> list[str]:
    """The question types a turn answered: the planning capability of each call (its id says, for the
    offline planner), else the tool's home capability; the guide search alone means a concept question."""
    from assistant.capabilities import home_of
    from assistant.capabilities.base import owner_from_id

    out: list[str] = []
    for call in calls:
        home = home_of(call["name"])
        intent = owner_from_id(call.get("id") or "") or (home.intent if home else None)
        if intent and intent not in out and not (intent == "concept" and len(calls) > 1):
            out.append(intent)
    return out or ["concept"]
