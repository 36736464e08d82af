"""Compose the offline planner's answer from tool results and passages, in the user's language."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel

from assistant.planner.parse import ParsedQuery, looks_like_injection
from assistant.planner.plan import Plan


class Citation(BaseModel):
    """A guide passage the answer cites as [n]."""

    n: int
    doc_id: str
    title: str
    section: str
    lang: str
    source: str
    text: str


class Composed(BaseModel):
    answer: str
    citations: list[Citation]


@cache
def _strings() -> dict:
    return yaml.safe_load((Path(__file__).with_name("strings.yaml")).read_text(encoding="utf-8"))


def static_texts() -> list[str]:
    """The planner's fixed texts (help examples): numbers in them are examples, not claims."""
    return [_strings()["help"]["en"], _strings()["help"]["zh"]]


class Writer:
    """Collects lines in one language."""

    def __init__(self, lang: str) -> None:
        self.lang = lang
        self.lines: list[str] = []

    def t(self, key: str, **kw: Any) -> str:
        entry = _strings()[key]
        return entry[self.lang].format(**kw)

    def label(self, group: str, key: str) -> str:
        entry = _strings()[group].get(key)
        return entry[self.lang] if entry else key

    def add(self, text: str) -> None:
        self.lines.append(text)

    def bullets(self, head_key: str, items: list[str], limit: int = 4) -> None:
        items = [i for i in items if i][:limit]
        if items:
            self.add(self.t(head_key) + "\n" + "\n".join(f"- {i}" for i in items))


def _num(value: float | None, fmt: str = "{:g}") -> str:
    return "-" if value is None else fmt.format(value)


def compose(plan: Plan, parsed: ParsedQuery, outcomes: list[tuple[str, dict, dict]]) -> Composed:
    """`outcomes`: (tool name, args, {"ok", "result", "error"}) in call order."""
    w = Writer(parsed.language)
    if parsed.injection:
        w.add(w.t("injection"))
    if plan.ask:
        _ask(w, plan, parsed)
        return Composed(answer="\n\n".join(w.lines), citations=[])
    if not plan.calls:
        w.add(w.t("out_of_scope" if "out_of_scope" in plan.intents else "help"))
        if "out_of_scope" in plan.intents:
            w.add(w.t("help"))
        return Composed(answer="\n\n".join(w.lines), citations=[])
    citations = citations_from([(name, out["result"]) for name, _args, out in outcomes if out["ok"]])
    for key in plan.notes:
        w.add(w.t(key))
    done: set[int] = set()
    search_error = None  # a broken knowledge store is said, not passed off as "nothing found"
    for i, (name, _args, out) in enumerate(outcomes):
        if not out["ok"] and name == "search_guides":
            search_error = out["error"]
        elif not out["ok"]:
            w.add(w.t("tool_error", tool=name, error=out["error"]))
            done.add(i)
    results = {
        i: (name, args, out["result"]) for i, (name, args, out) in enumerate(outcomes) if out["ok"] and i not in done
    }
    specs = [r for n, _, r in results.values() if n == "gpu_specs"]
    last_vram = max((i for i, (n, _, _) in results.items() if n == "estimate_vram"), default=None)
    for i, (name, _args, result) in results.items():
        if name == "estimate_vram" and "compare" not in plan.intents:
            _memory(w, result, specs, detail=i == last_vram, capacity=_stated_capacity(parsed.text))
        elif name == "estimate_speed" and "compare" not in plan.intents:
            _speed(w, result)
        elif name == "fit_on_gpu":
            _fit(w, result)
        elif name == "recommend_gpus":
            _recommend(w, result, plan)
        elif name == "calculate_tco":
            _tco(w, result)
        elif name == "plan_workstation":
            _build(w, result)
        elif name == "find_gpus":
            _catalog(w, result)
    if "compare" in plan.intents:
        _compare(w, results, parsed)
    elif "gpu_info" in plan.intents or parsed.claims or parsed.asks:
        for spec in specs:
            _gpu_info(w, spec, parsed)
    if citations:
        # A passage that gives instructions (e.g. a user document with a prompt injection) is cited, never quoted.
        quotable = [c for c in citations if not looks_like_injection(c.text)]
        if "concept" in parsed.intents and not set(plan.intents) <= {"concept"} and quotable:
            w.add(f"> {_excerpt(quotable[0].text)} [{quotable[0].n}]")
        if set(plan.intents) <= {"concept"} or not any(n != "search_guides" for n, _, _ in outcomes):
            w.add(w.t("concept_head"))
            for c in quotable[:2]:
                w.add(f"> {_excerpt(c.text)} [{c.n}]")
        else:
            w.add(w.t("read_more", refs=", ".join(f"{c.title} — {c.section} [{c.n}]" for c in citations)))
        w.add(
            w.t("sources_head") + "\n" + "\n".join(f"[{c.n}] {c.title} — {c.section} ({c.doc_id})" for c in citations)
        )
    elif search_error:
        w.add(w.t("knowledge_error", error=search_error))
    elif set(plan.intents) <= {"concept"}:
        w.add(w.t("no_passages"))
    return Composed(answer="\n\n".join(w.lines), citations=citations)


def _ask(w: Writer, plan: Plan, parsed: ParsedQuery) -> None:
    if plan.ask == "unknown_model":
        w.add(
            w.t(
                "unknown_model", name=parsed.unknown_model or "", suggestions=", ".join(parsed.model_suggestions) or "-"
            )
        )
    elif plan.ask == "unknown_gpu":
        w.add(w.t("unknown_gpu", name=parsed.unknown_gpu or "", suggestions=", ".join(parsed.gpu_suggestions) or "-"))
    else:
        w.add(w.t(plan.ask or "help"))


def citations_from(results: list[tuple[str, Any]]) -> list[Citation]:
    """Number the distinct passages that search_guides returned, in order: [1], [2], ..."""
    out: list[Citation] = []
    for name, result in results:
        if name != "search_guides" or not isinstance(result, dict):
            continue
        for p in result.get("passages", []):
            if any(c.doc_id == p.get("doc_id") and c.section == p.get("section") for c in out):
                continue
            out.append(
                Citation(
                    n=len(out) + 1,
                    doc_id=p.get("doc_id", ""),
                    title=p.get("title", ""),
                    section=p.get("section") or "",
                    lang=p.get("lang", ""),
                    source=p.get("source") or "",
                    text=p.get("text", ""),
                )
            )
    return out[:4]


def _excerpt(text: str, limit: int = 420) -> str:
    """The first sentences of a passage, cut at a sentence end."""
    flat = " ".join(line.strip() for line in text.splitlines() if line.strip() and not line.startswith("#"))
    if len(flat) <= limit:
        return flat
    cut = max(flat.rfind(mark, 0, limit) for mark in ("。", ". ", "！", "？", "; "))
    return flat[: cut + 1] if cut > 80 else flat[:limit] + "…"


_CAPACITY = re.compile(r"(\d{1,3})\s*(?:G|GB|GiB)\s*(?:显存|vram|memory)?\s*(?:的)?\s*(?:卡|显卡|card|gpu)", re.I)


def _stated_capacity(text: str) -> float | None:
    """'一张 24G 显存的卡', 'a 16GB card': a capacity the user names instead of a GPU."""
    m = _CAPACITY.search(text)
    return float(m.group(1)) if m else None


def _memory(w: Writer, r: dict, specs: list[dict], detail: bool = True, capacity: float | None = None) -> None:
    n = r["num_gpus"]
    total_part = w.t("memory_total_part", total=r["total_gib"], n=n) if n > 1 else ""
    w.add(
        w.t(
            "memory_head",
            model=r["model"],
            mode_label=w.label("mode_label", r["mode"]),
            precision=r["precision"],
            context=r["context_tokens"],
            batch=r["batch"],
            per_gpu=r["per_gpu_gib"],
            total_part=total_part,
        )
    )
    items = [f"{w.label('component', k)} {v:.2f} GiB" for k, v in r["per_gpu_breakdown_gib"].items() if v >= 0.005]
    w.add(w.t("breakdown", items=", ".join(items)))
    for spec in specs:
        for g in spec["gpus"]:
            usable = g["usable_gib"]
            if r["per_gpu_gib"] <= usable:
                w.add(
                    w.t("fits", gpu=g["name"], vram=usable)
                    if n == 1
                    else w.t("fits_n", n=n, gpu=g["name"], vram=usable)
                )
            else:
                w.add(w.t("not_fits", n=n, gpu=g["name"], vram=usable))
    if not specs and capacity:
        w.add(w.t("fits_capacity" if r["per_gpu_gib"] <= capacity else "not_fits_capacity", vram=capacity))
    if detail:
        w.bullets("assumptions_head", r["assumptions"][:5], limit=5)
        w.bullets("warnings_head", r["warnings"])


def _speed(w: Writer, r: dict) -> None:
    bound = w.label("bound", r["bound"])
    if r.get("training_tokens_per_s") is not None:
        hours = r.get("time_to_train_hours")
        time_part = ""
        if hours is not None:
            time_part = f", ~{hours:,.1f} h to train" if w.lang == "en" else f"，训练约需 {hours:,.1f} 小时"
        w.add(
            w.t(
                "train_speed_line",
                model=r["model"],
                method=r["precision"],
                n=r["num_gpus"],
                gpu=r["gpu"],
                tps=r["training_tokens_per_s"],
                time_part=time_part,
                bound=bound,
            )
        )
    else:
        w.add(
            w.t(
                "speed_line",
                model=r["model"],
                n=r["num_gpus"],
                gpu=r["gpu"],
                precision=r["precision"],
                decode=r["decode_tokens_per_s"],
                total=r["decode_tokens_per_s_total"],
                batch=r["batch"],
                context=r["context_tokens"],
                ttft=r["ttft_s"] or 0,
                prefill=r["prefill_tokens_per_s"] or 0,
                bound=bound,
            )
        )
    w.bullets("assumptions_head", r["assumptions"], limit=5)
    w.bullets("warnings_head", r["warnings"])


def _fit(w: Writer, r: dict) -> None:
    if r["best_precision"] is None:
        w.add(w.t("fit_none", model=r["model"], n=r["num_gpus"], gpu=r["gpu"], limiting=r["limiting_factor"]))
        return
    mem = r.get("memory_at_answer") or {}
    w.add(
        w.t(
            "fit_line",
            n=r["num_gpus"],
            gpu=r["gpu"],
            usable=r["usable_gib_per_gpu"],
            precision=r["best_precision"],
            max_context=r["max_context"],
            context=mem.get("context_tokens", 0),
            max_seq=r["max_concurrent_sequences"] or 0,
            limiting=r["limiting_factor"],
        )
    )
    w.bullets("warnings_head", r["warnings"], limit=3)


def _recommend(w: Writer, r: dict, plan: Plan) -> None:
    s = plan.scenario
    budget_part = w.t("budget_part", budget=s.budget, currency=s.currency) if s.budget else ""
    if r["nothing_fits"]:
        w.add(w.t("recommend_none", workload=r["workload"], budget_part=budget_part))
        w.add("\n".join(f"- {x}" for x in r["suggestions"]))
        return
    w.add(w.t("recommend_head", workload=r["workload"], budget_part=budget_part))
    w.add("\n".join(f"{i}. {o['why']}" for i, o in enumerate(r["options"], 1)))
    w.bullets("assumptions_head", r["assumptions"], limit=4)


def _tco(w: Writer, r: dict) -> None:
    cur = r["currency"]
    w.add(
        w.t(
            "cost_line",
            n=r["num_gpus"],
            gpu=r["gpu"],
            months=r["horizon_months"],
            hours=r["busy_hours_per_month"],
            upfront=r["upfront"],
            cur=cur,
            buy_total=r["buy_total"],
            power=r["power_monthly"],
            resale=r["resale_value"],
        )
    )
    lines = []
    for o in r["rent"]:
        be = o["break_even_hours_per_month"]
        be_text = w.t("break_even", hours=be) if be is not None and be <= 730 else w.t("never")
        lines.append(
            w.t(
                "rent_line",
                kind=w.label("kind_label", o["kind"]),
                rate=o["price_per_gpu_hour"],
                cur=cur,
                monthly=o["monthly"],
                total=o["total"],
                be=be_text,
            )
        )
    if lines:
        w.add("\n".join(lines))
    w.add(w.t("cheapest", option=w.label("option_label", r["cheapest"])))
    w.bullets("assumptions_head", r["assumptions"], limit=5)
    w.bullets("warnings_head", r["warnings"])


def _build(w: Writer, r: dict) -> None:
    w.add(w.t("build_head", n=r["num_gpus"], gpu=r["gpu"]))
    facts = []
    if r.get("psu_w"):
        facts.append(f"PSU: {r['psu_layout']}" if r.get("psu_layout") else f"PSU {r['psu_w']} W")
    if r.get("wall_power_w"):
        facts.append(f"{'wall power' if w.lang == 'en' else '满载墙插功率'} ~{r['wall_power_w']:,.0f} W")
    if r.get("system_ram_gib"):
        facts.append(f"{'system RAM' if w.lang == 'en' else '内存'} {r['system_ram_gib']} GiB")
    if r.get("cpu_cores"):
        facts.append(f"{'CPU cores' if w.lang == 'en' else 'CPU 核心'} ≥ {r['cpu_cores']}")
    if r.get("pcie_lanes_needed"):
        facts.append(f"PCIe lanes {r['pcie_lanes_needed']}")
    platform = r.get("platform")
    if isinstance(platform, dict) and platform.get("name"):
        facts.append(platform["name"])
    if facts:
        w.add("\n".join(f"- {f}" for f in facts))
    notes = [r.get("nvlink_note", ""), *r.get("cooling_notes", [])]
    w.bullets("warnings_head", [*r.get("warnings", []), *notes], limit=5)
    w.bullets("assumptions_head", r.get("assumptions", []), limit=4)


def _catalog(w: Writer, r: dict) -> None:
    w.add(w.t("catalog_head", matched=r["matched"]))
    rows = []
    for g in r["gpus"]:
        price = _price(w, g)
        rows.append(
            w.t(
                "catalog_row",
                name=g["name"],
                vram=g["usable_gib"],
                bw=g["bandwidth_gbs"],
                bf16=_num(g["bf16_tflops"]),
                price=price,
            )
        )
    w.add("\n".join(rows))


def _price(w: Writer, g: dict) -> str:
    return w.t("price_word", price=g["price"], currency=g["currency"]) if g["price"] else w.t("no_price")


def _yes_no(w: Writer, value: Any) -> str:
    return w.t("yes_word") if value else w.t("no_word")


def _compare(w: Writer, results: dict[int, tuple[str, dict, Any]], parsed: ParsedQuery) -> None:
    for name, _args, r in results.values():
        if name == "gpu_specs":
            w.add(w.t("compare_head"))
            rows = []
            for g in r["gpus"]:
                price = _price(w, g)
                rows.append(
                    w.t(
                        "compare_row",
                        name=g["name"],
                        vram=g["usable_gib"],
                        mem=g["memory_type"],
                        bw=g["bandwidth_gbs"],
                        bf16=_num(g["bf16_tflops"]),
                        fp8=_num(g["fp8_tflops"]) if g["fp8_tflops"] else w.t("none_word"),
                        nvlink=_num(g["nvlink_gbs"]) + " GB/s" if g["nvlink"] else w.t("no_word"),
                        ecc=_yes_no(w, g["ecc"]),
                        price=price,
                    )
                )
            w.add("\n".join(rows))
            w.add("\n".join(f"- {d}" for d in r["differences"]))
    vrams = [r for n, _, r in results.values() if n == "estimate_vram"]
    speeds = [r for n, _, r in results.values() if n == "estimate_speed"]
    usable = {g["name"]: g["usable_gib"] for n, _, r in results.values() if n == "gpu_specs" for g in r["gpus"]}
    rows = []
    for s in speeds:
        v = next((v for v in vrams if v["num_gpus"] == s["num_gpus"]), None)
        per_gpu = v["per_gpu_gib"] if v else s["memory_per_gpu_gib"]
        fits = per_gpu <= usable.get(s["gpu"], s["gpu_memory_gib"])
        if s.get("training_tokens_per_s") is not None:
            speed = f"~{s['training_tokens_per_s']:,.0f} training tokens/s"
        else:
            speed = f"~{s['decode_tokens_per_s_total']:,.1f} tokens/s"
        rows.append(
            w.t(
                "config_row",
                n=s["num_gpus"],
                gpu=s["gpu"],
                per_gpu=per_gpu,
                fit=w.t("fits_word") if fits else w.t("not_fits_word"),
                speed=speed,
            )
        )
    if rows:
        mode = vrams[0]["mode"] if vrams else "inference"
        w.add(f"**{speeds[0]['model']}** ({w.label('mode_label', mode)}):\n" + "\n".join(rows))


_TFLOPS = re.compile(r"(\d[\d,]*(?:\.\d+)?)\s*(?:dense\s*|sparse\s*)?(?:TFLOPS|TOPS|T)", re.I)
_GBS = re.compile(r"(\d[\d,]*(?:\.\d+)?)\s*(?:GB/s|GB每秒)", re.I)


def _numeric_claims(w: Writer, g: dict, parsed: ParsedQuery) -> None:
    """Check numbers the user quotes (TFLOPS, GB/s, GB) against the catalog; say which row they are."""
    dense = {
        "BF16": g.get("bf16_tflops"),
        "FP16": g.get("fp16_fp16acc_tflops") or g.get("fp16_tflops"),
        "FP8": g.get("fp8_tflops"),
    }
    for m in _TFLOPS.finditer(parsed.text):
        value = float(m.group(1).replace(",", ""))
        if value < 20:
            continue
        exact = next((k for k, d in dense.items() if d and abs(value - d) / d < 0.02), None)
        sparse = next((k for k, d in dense.items() if d and abs(value - 2 * d) / (2 * d) < 0.02), None)
        if exact:
            w.add(w.t("tflops_dense", value=value, prec=exact, name=g["name"]))
        elif sparse:
            w.add(w.t("tflops_sparse", value=value, prec=sparse, dense=dense[sparse], name=g["name"]))
        else:
            w.add(
                w.t(
                    "tflops_unknown",
                    value=value,
                    name=g["name"],
                    bf16=_num(g.get("bf16_tflops")),
                    fp8=_num(g.get("fp8_tflops")),
                )
            )
    for m in _GBS.finditer(parsed.text):
        value = float(m.group(1).replace(",", ""))
        link = g.get("nvlink_gbs")
        if "nvlink" in parsed.text.lower() and link and abs(value - link) / link > 0.02:
            w.add(w.t("nvlink_value_false", value=value, name=g["name"], actual=link))
        elif "nvlink" not in parsed.text.lower() and abs(value - g["bandwidth_gbs"]) / g["bandwidth_gbs"] > 0.02:
            w.add(w.t("bandwidth_value_false", value=value, name=g["name"], actual=g["bandwidth_gbs"]))
    for claim in parsed.claims:
        if claim.topic == "vram" and isinstance(claim.asserted, float | int) and not isinstance(claim.asserted, bool):
            if _GBS.search(parsed.text):
                continue  # "600 GB/s" was a link speed, handled above
            if abs(float(claim.asserted) - g["vram_gib"]) > 0.5 and (not claim.gpu or claim.gpu == g["id"]):
                w.add(w.t("vram_value_false", value=float(claim.asserted), name=g["name"], actual=g["vram_gib"]))


def _gpu_info(w: Writer, spec: dict, parsed: ParsedQuery) -> None:
    for g in spec["gpus"]:
        w.add(
            w.t(
                "gpu_info_head",
                name=g["name"],
                vram=g["usable_gib"],
                mem=g["memory_type"],
                bw=g["bandwidth_gbs"],
                bf16=_num(g["bf16_tflops"]),
                fp8=_num(g["fp8_tflops"]) if g["fp8_tflops"] else w.t("none_word"),
                nvlink=(_num(g["nvlink_gbs"]) + " GB/s") if g["nvlink"] else w.t("no_word"),
                ecc=_yes_no(w, g["ecc"]),
                mig=_yes_no(w, g["mig"]),
                tdp=_num(g["tdp_w"]),
            )
        )
        for claim in parsed.claims:
            if claim.gpu and claim.gpu != g["id"]:
                continue
            if claim.topic == "nvlink" and _GBS.search(parsed.text):
                continue  # a quoted NVLink speed is checked as a number
            key = f"{claim.topic}_{str(claim.asserted).lower()}"
            truth = {
                "bf16": bool(g["bf16_tflops"]),
                "nvlink": g["nvlink"],
                "fp8": bool(g["fp8_tflops"]),
                "ecc": bool(g["ecc"]),
                "mig": g["mig"],
            }.get(claim.topic)
            if truth is None or key not in _strings()["claim_text"]:
                continue
            text = _strings()["claim_text"][key][w.lang].format(name=g["name"])
            w.add(w.t("claim_true" if truth == claim.asserted else "claim_false", claim=text))
        _numeric_claims(w, g, parsed)
        asks = parsed.asks or [c.topic for c in parsed.claims]
        if "bf16" in asks:
            w.add(
                w.t("ask_bf16_yes", name=g["name"], bf16=g["bf16_tflops"])
                if g["bf16_tflops"]
                else w.t("ask_bf16_no", name=g["name"])
            )
        if "nvlink" in asks:
            w.add(
                w.t("ask_nvlink_yes", nvlink_gbs=g["nvlink_gbs"] or 0)
                if g["nvlink"]
                else w.t("ask_nvlink_no", name=g["name"])
            )
        if "fp8" in asks:
            w.add(w.t("ask_fp8_yes", fp8=g["fp8_tflops"]) if g["fp8_tflops"] else w.t("ask_fp8_no", name=g["name"]))
        if "ecc" in asks:
            w.add(w.t("ask_ecc", value=_yes_no(w, g["ecc"])))
        if "mig" in asks:
            w.add(w.t("ask_mig", value=_yes_no(w, g["mig"])))
