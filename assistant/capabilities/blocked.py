"""Whether the card a model is sized on can run the job's engine at all.

"Can I run Llama 3 8B on a K80 with Ollama?", "P40 能用 vLLM 跑 Qwen2.5-7B 吗": memory is not the question when the
engine named (or the one the answer assumes) no longer supports the card's architecture. An expert leads with
that (and what to do instead: an older build, the CPU, a newer card), then says what the memory would allow. This
module answers "is the job blocked on this card?" from the turn's typed results, for the capabilities that order
and word the answer (support and risk lead, fit words its verdict as memory only).
"""

from __future__ import annotations

from assistant.capabilities.base import PlanContext, Turn
from assistant.capabilities.memory import verdict
from assistant.strings import Writer
from tools.card_risk import CardRiskResult
from tools.support import SupportResult
from tools.vram import VramResult

# Subjects whose "no" means nothing runs (an engine, a library that runs the model, the GPU platform); a missing
# kernel or format (FlashAttention-2, BF16 on a V100) has a fallback and leaves the job running.
_RUNS_THE_JOB = ("engine", "library", "platform")


def refusing_support(turn: Turn) -> list[SupportResult]:
    """The "no" verdicts of engines (or the platform) on the card the turn sizes: each leads the answer."""
    from tools.catalog import catalog

    s = turn.plan.scenario
    # a card only the fallback table knows ("RX 580") has another id in the support table: the one card named
    anyone = s.gpu is None or s.gpu not in catalog()
    return [
        r
        for _, r in turn.results(SupportResult)
        if r.verdict == "no" and r.kind in _RUNS_THE_JOB and (anyone or r.gpu_id in (s.gpu, None))
    ]


def blocking_support(turn: Turn) -> list[SupportResult]:
    """The refusals that stop the job as sized: the platform's, or the engine's the model was sized under (a P40
    refused by vLLM but sized under llama.cpp is not blocked)."""
    named = turn.plan.scenario.engine
    engine = _engine(named)

    def blocks(r: SupportResult) -> bool:
        if r.kind == "platform":
            return True
        if named is None:  # no engine in the scenario: an engine refused is the one the user means
            return r.kind == "engine"
        return _engine(r.engine) == engine or r.engine == named  # a library (Unsloth) does not stop plain PyTorch

    return [r for r in refusing_support(turn) if blocks(r)]


def _engine(name: str | None) -> str | None:
    """The sizing engine a support subject or a scenario engine means ('ollama' and 'llama_cpp': llama.cpp)."""
    from tools.sizing import engine_key

    return engine_key(name.replace("_", ".")) if name else None


def size_where_it_runs(ctx: PlanContext) -> None:
    """ "4 P40s, Llama 3 70B with vLLM?": the engine named does not run on the card, and llama.cpp (what the support
    table says to use instead) does: the model is sized under llama.cpp, so the answer after the engine's no is
    what the cards do run, not what memory would allow under an engine that never starts."""
    from tools.errors import AdvisorError
    from tools.support import SupportRequest, check_support

    s = ctx.scenario
    if not (ctx.has_model and s.gpu and s.engine) or (s.mode or "inference") != "inference":
        return
    if _engine(s.engine) == "llama.cpp" or not {"fit", "memory", "speed", "support"} & set(ctx.intents):
        return
    try:
        named = check_support(SupportRequest(engine=s.engine, gpu=s.gpu))
        gguf = check_support(SupportRequest(engine="llama.cpp", gpu=s.gpu))
    except (AdvisorError, ValueError):
        return
    instead = named.instead[0].code if named.instead else ""
    if named.verdict == "no" and instead.startswith("sup_use_llamacpp") and gguf.verdict != "no":
        s.engine = "llama.cpp"


def unsupported_card(turn: Turn) -> CardRiskResult | None:
    """The card-risk verdict when the sized card is out of support altogether (Kepler: no current build runs)."""
    for _, r in turn.results(CardRiskResult):
        if r.risk == "unsupported" and r.lead is not None:
            return r
    return None


def job_blocked(turn: Turn) -> bool:
    """The model is sized on a card its engine does not run on: the fit is what memory would allow, not a yes."""
    return bool(blocking_support(turn)) or unsupported_card(turn) is not None


def sizes_a_model(turn: Turn) -> bool:
    """The turn also sizes a model on the card (a fit, memory or speed answer sits beside the verdict)."""
    return bool({"fit", "memory", "speed"} & set(turn.plan.intents)) and bool(
        turn.plan.scenario.model or turn.plan.scenario.params_b
    )


def memory_only_verdict(w: Writer, r: VramResult) -> None:
    """The fit on a card the engine does not run on (a K80 under current Ollama): what memory alone would allow,
    never a "yes", since the verdict above it is no."""
    if r.fit is None or not r.fit.fits:
        verdict(w, r)
        return
    at = w.t("fits_at", format=w.label("format", r.precision)) if r.mode == "inference" else ""
    w.say("fits_memory_only", n=r.fit.num_gpus, gpu=r.fit.gpu, vram=r.fit.capacity_gib, need=r.per_gpu_gib, at=at)
