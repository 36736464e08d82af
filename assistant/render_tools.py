"""One short line per tool call in the terminal: the tool and what a person needs to see of its arguments
(model, method, GPUs, the key numbers), never its JSON; a guide search shows the sections it found.

The retrieval query is the user's words padded with topic words on purpose (assistant/capabilities/guides.py),
so it is never shown: a Chinese conversation would read English padding.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text

from assistant.strings import catalog, label
from tools.notes import money, plurals

SEPARATOR = " · "
MAX_SECTIONS = 2  # a guide search names the sections it found first; the sources list names them all


def _line(key: str, lang: str, **fields: Any) -> str:
    return plurals(catalog()["tool_line"][key][lang].format(**fields))


def _method(mode: str, lang: str) -> str:
    if mode in ("inference", "training", "finetune"):  # a way of running, not a fine-tuning method
        return _line(f"use_{mode}", lang)
    return label("method_short", mode, lang)


def _gpus(args: dict[str, Any], lang: str) -> str | None:
    gpus = args.get("gpus") or args.get("names")  # gpu_specs names its cards as typed
    if isinstance(gpus, list) and gpus:
        return " / ".join(str(g) for g in gpus)
    gpu, count = args.get("gpu"), args.get("num_gpus")
    if gpu and isinstance(count, int) and count > 1:
        return _line("count", lang, n=count, gpu=gpu)
    return str(gpu) if gpu else None


def _numbers(args: dict[str, Any], lang: str) -> list[str]:
    currency = str(args.get("currency") or ("CNY" if lang == "zh" else "USD"))
    out: list[str] = []
    if isinstance(args.get("max_gpus"), int):
        out.append(_line("max_gpus", lang, n=args["max_gpus"]))
    if args.get("budget"):
        out.append(_line("budget", lang, amount=money(float(args["budget"]), currency)))
    if args.get("monthly_budget"):
        out.append(_line("monthly_budget", lang, amount=money(float(args["monthly_budget"]), currency)))
    if args.get("hours_per_month"):
        out.append(_line("hours", lang, hours=float(args["hours_per_month"])))
    if args.get("horizon_years"):
        out.append(_line("years", lang, years=float(args["horizon_years"])))
    if isinstance(args.get("context_tokens"), int):
        out.append(_line("context", lang, tokens=args["context_tokens"]))
    users = args.get("users") or (args.get("batch") if isinstance(args.get("batch"), int) else None)
    if isinstance(users, int) and users > 1:
        out.append(_line("users", lang, n=users))
    return out


def _sections(result: Any, cited: list[str] | None) -> list[str]:
    """The sections a guide search found, best first, each once; those the answer cites when it says."""
    found = [p.section for p in getattr(result, "passages", None) or []]
    seen: list[str] = []
    for path in cited if cited else found:
        section = path.split(" > ")[-1]  # the heading itself, not the path above it
        if section and section not in seen:
            seen.append(section)
    return seen[:MAX_SECTIONS]


def call_parts(
    name: str, args: dict[str, Any], lang: str, result: Any = None, cited: list[str] | None = None
) -> list[str]:
    """What the line shows after the tool's name."""
    if name == "search_guides":
        return _sections(result, cited)
    flat = {**(args.get("workload") or {}), **{k: v for k, v in args.items() if k != "workload"}}
    parts = [str(flat[k]) for k in ("model", "app", "engine", "feature") if isinstance(flat.get(k), str)]
    if isinstance(flat.get("mode"), str):
        parts.append(_method(flat["mode"], lang))
    if isinstance(flat.get("precision"), str):
        parts.append(flat["precision"])
    if isinstance(flat.get("use"), str) and flat["use"] in ("training", "inference"):
        parts.append(_line(f"use_{flat['use']}", lang))
    gpus = _gpus(flat, lang)
    if gpus:
        parts.append(gpus)
    return list(dict.fromkeys(parts + _numbers(flat, lang)))  # "fp8" asked as the feature and the precision: once


def tool_call_line(
    name: str, args: dict[str, Any], lang: str = "en", result: Any = None, cited: list[str] | None = None
) -> Text:
    """`recommend_gpus · qwen2.5-14b · LoRA · ≤1 GPU · budget ¥15,000`; `search_guides: <sections found>`
    (`cited`: the sections the answer quotes, which name what was found better than the runners-up)."""
    parts = call_parts(name, args, lang, result, cited)
    if name == "search_guides":
        return Text(f"{name}: {'; '.join(parts)}" if parts else name, style="dim")
    return Text(SEPARATOR.join([name, *parts]), style="dim")
