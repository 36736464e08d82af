"""Support: will an engine, kernel, library or feature run on a GPU ("vLLM 能在 P40 上跑吗", "FP8 on a 3090?").

The verdict leads (yes / no / with a caveat) with the requirement and where the card stands, then what to use
instead, then the caveats and the dated sources: check_support's notes, rendered in the user's language. With a
GPU and no engine named ("gfx906 not supported"), the usual engines for the card's vendor are checked in one list.
"""

from __future__ import annotations

import re
from typing import Any, ClassVar

from pydantic import BaseModel

from assistant.capabilities.base import Capability, PlanContext, Turn
from assistant.scenario import Scenario
from assistant.strings import Writer
from assistant.toolset import ToolName
from assistant.understanding import ParsedQuery
from tools.notes import render_all
from tools.support import SupportResult, SupportSource, platform_vendor

_MAX_SUBJECTS = 3
_MAX_GPUS = 4
_MAX_SOURCES = 6


def _subjects(parsed: ParsedQuery, scenario: Scenario) -> list[str]:
    """The engines and features asked about: a feature that is only the format the engine runs ("vLLM FP8 on a
    3090") is checked with the engine, not on its own."""
    from tools.support import subjects

    # "V100 不是不支持 bf16 嘛" beside pasted Transformers code: the feature asked about comes before the engine
    asked = [a for a in parsed.asks if subjects().get(a, {}).get("kind") == "feature"]
    named = list(dict.fromkeys([*asked, *parsed.support_subjects]))
    if len(named) > 1 and parsed.precision:
        named = [s for s in named if s != parsed.precision] or named
    if len(named) > 1:  # "Unsloth ... CUDA = 6.1" in a log: the software the user runs, not the platform under it
        # ... unless that platform cannot run on the card ("R9 390 能用 ROCm 跑 llama.cpp 吗"): its "no" leads
        failing = [s for s in named if platform_vendor(s) is not None and _fails_on_card(s, parsed)]
        named = [*failing, *(s for s in named if platform_vendor(s) is None)] or named
    if named:
        return named[:_MAX_SUBJECTS]
    return [scenario.support_subject] if scenario.support_subject else []


def _fails_on_card(platform: str, parsed: ParsedQuery) -> bool:
    """The platform (ROCm, CUDA) says no on a card the user named of its own vendor."""
    from tools.errors import AdvisorError
    from tools.support import SupportRequest, check_support

    for gpu in parsed.support_targets or parsed.gpu_mentions:
        try:
            if check_support(SupportRequest(engine=platform, gpu=gpu)).verdict == "no":
                return True
        except AdvisorError:
            continue
    return False


def _gpus(parsed: ParsedQuery, scenario: Scenario) -> list[str]:
    gpus = parsed.support_targets or parsed.gpu_mentions or ([scenario.gpu] if scenario.gpu else [])
    if parsed.owns_hardware and parsed.gpu and gpus and parsed.gpu != gpus[0]:
        # "others boast 4090s ... my paltry 6700xt": the user's own card is the one to check first
        gpus = [parsed.gpu, *(g for g in gpus if g != parsed.gpu)]
    return _distinct_cards(gpus)[:_MAX_GPUS]


def _distinct_cards(gpus: list[str]) -> list[str]:
    """One check per card: the catalog's name and the support table's ("Radeon RX 580", "RX 580") are one card."""
    from tools.errors import AdvisorError
    from tools.support import resolve_target

    seen: set[str] = set()
    out: list[str] = []
    for g in gpus:
        try:
            key = resolve_target(g)[0].id or g
        except AdvisorError:
            key = g
        if key not in seen:
            seen.add(key)
            out.append(g)
    return out


def _precision(parsed: ParsedQuery) -> str | None:
    """The weight format the user named (not the GGUF default the engine's name implies)."""
    if parsed.precision and not getattr(parsed, "precision_from_engine", False):
        return parsed.precision
    return parsed.model_precision


def _overview(gpu: str) -> list[str]:
    from tools.errors import AdvisorError
    from tools.support import overview_subjects, resolve_target

    try:
        target, _ = resolve_target(gpu)
    except AdvisorError:
        return []
    return overview_subjects(target.vendor)


def _relevant(subject: str, gpus: list[str], text: str = "") -> list[str]:
    """A platform asked about among several cards is checked on its own vendor's ("MI300X vs H100: how mature is
    ROCm?" is about the MI300X); asked about one card, or none of its vendor, every card is checked. A platform
    said of another vendor's cards ("amd显卡不支持cuda", "no CUDA on AMD") is checked on those cards first: the
    doubt is whether they run it."""
    from tools.errors import AdvisorError
    from tools.support import platform_vendor, resolve_target

    vendor = platform_vendor(subject)
    if vendor is None or len(gpus) < 2:
        return gpus
    said_of = _vendors_said_of(subject, text)
    mine, doubted = [], []
    for gpu in gpus:
        try:
            card_vendor = resolve_target(gpu)[0].vendor
        except AdvisorError:
            continue
        if card_vendor == vendor:
            mine.append(gpu)
        elif card_vendor in said_of:
            doubted.append(gpu)
    return [*doubted, *mine] or gpus


def _vendors_said_of(subject: str, text: str) -> set[str]:
    """The vendors whose name stands within a few words of the platform's ("AMD 显卡不支持 CUDA", "CUDA on AMD")."""
    from assistant.understanding.lexicon import lexicon_raw
    from tools.support import subjects

    names = [subject, *subjects().get(subject, {}).get("aliases", [])]
    platform = "|".join(re.escape(n) for n in names if n)
    out: set[str] = set()
    for vendor, words in lexicon_raw()["support_vendor_words"].items():
        vendor_rx, gap = "|".join(words), r"[^,，;；。.?？!！]{0,16}?"
        near = rf"(?:{vendor_rx}){gap}(?:{platform})|(?:{platform}){gap}(?:{vendor_rx})"
        if re.search(near, text, re.I):
            out.add(vendor)
    return out


def _why(w: Writer, r: SupportResult) -> list[str]:
    return render_all(r.why, w.lang)


def result_lines(w: Writer, r: SupportResult) -> None:
    """One verdict in full: the verdict with its first reason, the other reasons and the card, what instead."""
    why = _why(w, r)
    instead = render_all(r.instead, w.lang)
    w.say(f"support_verdict_{r.verdict}", why=why[0] if why else "")
    if r.verdict == "no" and instead:  # "No: vLLM needs 7.5. Use llama.cpp ...": what to do is the second sentence
        w.lines[-1] += w.t("support_instead_inline", what=instead.pop(0))
    rest = [*why[1:], *render_all([r.card], w.lang)]
    if rest:
        w.add("\n".join(f"- {line}" for line in rest))
    head = "support_instead_head" if r.verdict != "yes" else "support_alternatives_head"
    w.bullets(head, instead, limit=4)


def overview_lines(w: Writer, results: list[SupportResult], also: list[str] | None = None) -> None:
    """Several engines on one card: one line each, verdict first (`also`: other cards named with the same target,
    "RX9070/9070XT", checked with it)."""
    _overview_verdict(w, results)
    w.say("support_overview_head", gpu=" / ".join([results[0].gpu, *(also or [])]))
    lines = []
    for r in results:
        why = _why(w, r)
        verdict = w.label("support_word", r.verdict)
        lines.append(w.t("support_overview_line", subject=r.engine_name, verdict=verdict, why=why[0] if why else ""))
    w.add("\n".join(f"- {line}" for line in lines))
    instead = dict.fromkeys(t for r in results if r.verdict != "yes" for t in render_all(r.instead, w.lang))
    w.bullets("support_instead_head", list(instead))


def _overview_verdict(w: Writer, results: list[SupportResult]) -> None:
    """ "RX 580 8GB: useless for AI, or can I use it?": the verdict over every engine leads, in one sentence (what
    runs on the card and what does not), before the line per engine; the sizes it holds follow (capacity)."""
    sep = "、" if w.lang == "zh" else ", "
    runs = [r.engine_name for r in results if r.verdict == "yes"]  # a caveat is said on its own line below
    not_runs = [r.engine_name for r in results if r.verdict == "no"]
    if runs and not_runs:
        w.say("support_overview_some", gpu=results[0].gpu, yes=sep.join(runs), no=sep.join(not_runs))
    elif not_runs:
        w.say("support_overview_none", gpu=results[0].gpu, no=sep.join(not_runs))


def trailer_lines(w: Writer, results: list[SupportResult]) -> None:
    """Caveats, assumptions and the dated sources, once for all the verdicts."""
    warnings = list(dict.fromkeys(t for r in results for t in render_all(r.warnings, w.lang)))
    assumptions = list(dict.fromkeys(t for r in results for t in render_all(r.assumptions, w.lang)))
    w.bullets("warnings_head", warnings, limit=4)
    w.bullets("assumptions_head", assumptions, limit=4)
    sources: dict[str, SupportSource] = {s.id: s for r in results for s in r.sources}
    lines = [w.t("support_source_line", url=s.url, date=s.date) for s in list(sources.values())[:_MAX_SOURCES]]
    if lines:
        w.add(w.t("support_sources_head", as_of=results[0].as_of) + "\n" + "\n".join(f"- {line}" for line in lines))


def support_lines(
    w: Writer, results: list[SupportResult], overview: bool = False, also: list[str] | None = None
) -> None:
    if overview and len(results) > 1:
        overview_lines(w, results, also)
    else:
        _cards_lead(w, results)
        for r in results:
            result_lines(w, r)
    trailer_lines(w, results)


def _cards_lead(w: Writer, results: list[SupportResult]) -> None:
    """One engine on several cards ("一张5090和macbook pro能玩vllm吗"): one sentence with every card's verdict
    leads, so no card waits behind the first one's details."""
    engines = {r.engine for r in results}
    cards = list(dict.fromkeys(r.gpu for r in results))
    if len(engines) != 1 or len(cards) < 2:
        return
    sep = "；" if w.lang == "zh" else "; "
    items = [w.t("support_cards_item", gpu=r.gpu, verdict=w.label("support_word", r.verdict)) for r in results]
    w.say("support_cards_lead", subject=results[0].engine_name, verdicts=sep.join(items))


def _same_target(turn: Turn, first: SupportResult) -> list[str]:
    """Other cards the message names that share the checked card's target ("RX9070/9070XT": both gfx1201)."""
    from tools.errors import AdvisorError
    from tools.support import resolve_target

    out: list[str] = []
    for name in turn.parsed.support_targets:
        try:
            target, _ = resolve_target(name)
        except AdvisorError:
            continue
        if target.target == (first.gfx_target or first.compute_capability) and target.name not in (first.gpu, *out):
            out.append(target.name)
    return out


# "risk" sizes nothing when a model is named (it only sizes a card's capacity when none is): "P40 能用 vLLM 跑
# Qwen2.5-7B 吗" still gets what the memory allows below the engine's no
_SIZED = ("memory", "fit", "speed", "compare", "capacity", "diagnose", "offload")


def supported_before_purchase(turn: Turn) -> bool:
    """Every engine checked runs on the card, and the message also asks what to buy (a recommendation was made)."""
    from tools.recommend import RecommendResult

    results = turn.own(Support.intent, SupportResult)
    bought = any(r.primary is not None for r in turn.own("recommend", RecommendResult))
    return bool(results) and bought and all(r.verdict == "yes" for r in results)


# each vendor's own GPU platform: "Metal on an M2 Max" is a given, not a question about the card
_NATIVE = {"apple": {"metal", "mlx"}, "nvidia": {"cuda"}, "amd": {"rocm"}}


def _supported_beside_comparison(turn: Turn) -> bool:
    """ "An M2 Max with 96GB ... MPS ... in the same ballpark as Nvidia cards?": the cards were weighed, and the only
    support checked is each card's own platform (Metal on a Mac), which it runs: the comparison is the question,
    the yes backs it and follows. An engine or feature in doubt ("does the V100 do flash-attention?") still leads."""
    from tools.compare import CompareResult

    results = turn.own(Support.intent, SupportResult)
    weighed = any(r.verdict.pick is not None for r in turn.own("compare", CompareResult))
    native = all(r.verdict == "yes" and r.engine in _NATIVE.get(r.vendor, set()) for r in results)
    return bool(results) and weighed and native


def supported_line(w: Writer, turn: Turn) -> None:
    """ "Yes: vLLM, llama.cpp and Ollama all run on the GeForce RTX 40 series (compute capability 8.9)." """
    results = turn.own(Support.intent, SupportResult)
    first = results[0]
    sep = "、" if w.lang == "zh" else ", "
    engines = sep.join(dict.fromkeys(r.engine_name for r in results))
    cc = first.compute_capability
    target = w.t("support_cc", cc=cc) if cc else (first.gfx_target or first.architecture or "-")
    w.say("support_all_yes", engines=engines, gpu=first.gpu, target=target)


def _size_the_model(ctx: PlanContext) -> None:
    """ "VLLM V1 不支持 V100 ... model_tag='./DeepSeek-R1-Distill-Qwen-7B/'": the verdict is about the engine, and the
    model the user runs is sized on their card beside it (whether it fits, with what the engine keeps back)."""
    from tools.catalog import resolve_gpu
    from tools.errors import AdvisorError

    s = ctx.scenario
    try:  # a catalog card, or one only the fallback table knows ("RX 6600 XT")
        card = resolve_gpu(s.gpu)[0] if s.gpu else None
    except AdvisorError:
        card = None
    if ctx.has_model and card is not None and not set(ctx.intents) & set(_SIZED):
        if s.precision is None and not card.has_bf16:
            s.precision = "fp16"  # a card without BF16 runs 16-bit models in FP16 (vLLM's `--dtype half`)
        ctx.intents.append("fit")
        ctx.delegate("fit")


def _another_engine_runs(turn: Turn) -> bool:
    """No engine named, and one engine runs on the card ("the 70b on my 6700xt, and the state of AMD support?":
    vLLM refuses gfx1031, llama.cpp runs it): the verdict on the model leads, the support list follows it. A
    platform refusal (no ROCm at all) or a refusal of the engine the user named still leads."""
    if turn.plan.scenario.engine:
        return False
    results = [r for _, r in turn.results(SupportResult)]
    if any(r.kind == "platform" and r.verdict == "no" for r in results):
        return False
    return any(r.kind == "engine" and r.verdict == "yes" for r in results)


class Support(Capability):
    intent = "support"
    owns = (ToolName.CHECK_SUPPORT,)
    scenario_fields: ClassVar[dict[ToolName, dict[str, str]]] = {ToolName.CHECK_SUPPORT: {"engine": "support_subject"}}
    cites_guides = False  # its facts carry their own dated sources
    render_phase = 0  # the verdict leads the answer (see `phase`)

    def plan(self, ctx: PlanContext) -> None:
        gpus = _gpus(ctx.parsed, ctx.scenario)
        if not gpus:
            ctx.need("need_gpu")
            return
        subjects = _subjects(ctx.parsed, ctx.scenario)
        precision = _precision(ctx.parsed)
        if subjects:
            for subject in subjects:
                for gpu in _relevant(subject, gpus, ctx.parsed.text):
                    args = {"engine": subject, "gpu": gpu, **({"precision": precision} if precision else {})}
                    n = ctx.parsed.gpu_counts.get(gpu) or ctx.parsed.num_gpus or 1
                    args |= {"num_gpus": n} if n > 1 else {}  # "two 3090s, does ExLlamaV2 do dual GPU?": and how
                    ctx.add(self.intent, ToolName.CHECK_SUPPORT, **args)
            _size_the_model(ctx)
            p = ctx.parsed
            if p.buy_or_rent == "buy" and not (p.owns_hardware or ctx.has_model or p.model_family):
                self._what_it_runs(ctx)  # "we plan to buy 5090s for Ollama, is it supported?": and what they hold
            return
        for subject in _overview(gpus[0]):  # "gfx906 not supported": what runs on it
            ctx.add(self.intent, ToolName.CHECK_SUPPORT, engine=subject, gpu=gpus[0])
        if not (ctx.has_model or ctx.parsed.model_family):
            self._what_it_runs(ctx)  # "useless for AI, or can I use it?": and the models it holds

    def _what_it_runs(self, ctx: PlanContext) -> None:
        """The models the card holds (capacity), after the engines' verdicts."""
        if "capacity" not in ctx.intents:
            ctx.intents.append("capacity")
            ctx.delegate("capacity")

    def phase(self, turn: Turn) -> int:
        """First when support is the question asked; beside another question ("MI300X or H100? How mature is
        ROCm?") it follows that answer, with the card facts. "Does it support RTX 40? Should I buy one?" with every
        verdict yes: the purchase leads with a one-line yes (recommend.py), the sources follow it."""
        if supported_before_purchase(turn) or _supported_beside_comparison(turn):
            return 2
        from assistant.capabilities.blocked import refusing_support, sizes_a_model

        if refusing_support(turn) and sizes_a_model(turn) and not _another_engine_runs(turn):
            return -1  # "Llama 3 8B on a K80 with Ollama?": the engine does not run there, before what memory allows
        return 0 if turn.plan.intents[:1] == [self.intent] else 2

    def render(self, w: Writer, turn: Turn) -> None:
        results = turn.own(self.intent, SupportResult)
        if results and supported_before_purchase(turn):
            trailer_lines(w, results)  # the yes itself leads the recommendation
        elif results:
            overview = not turn.parsed.support_subjects and len({r.engine for r in results}) > 1
            support_lines(w, results, overview=overview, also=_same_target(turn, results[0]) if overview else None)

    def apply(self, scenario: Scenario, tool: ToolName, args: dict[str, Any]) -> None:
        from tools.catalog import catalog

        if args.get("engine"):
            scenario.support_subject = str(args["engine"])
        if args.get("gpu") in catalog():
            scenario.gpu = str(args["gpu"])  # a family or a bare target ("gfx906") is no card to size on

    def summary(self, tool: ToolName, result: BaseModel, lang: str) -> str:
        if not isinstance(result, SupportResult):
            return str(tool)
        from assistant.strings import label, text

        verdict = label("support_word", result.verdict, lang)
        return text("support_summary", lang, subject=result.engine_name, gpu=result.gpu, verdict=verdict)
