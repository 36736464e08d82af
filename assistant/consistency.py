"""Consistency check: nothing below an answer's lead contradicts it, and the lead agrees with the numbers.

The grounding check asks whether every number has a source; this one asks whether the answer tells one
story. Run on every answer (the eval gates it on every scenario), it flags:
- a speed shown for a setup the answer's own estimate says does not fit ("放不下" then tokens/s on those cards);
- a speed on fewer cards than the lead says are needed ("needs 4 x A100", then a speed on 2);
- a buy / rent lead the cost figures contradict (the lead says rent while buying is the cheaper option);
- an option called the cheapest when a cheaper listed option also does the job;
- a verdict to buy below a lead that says rent ("Rent ..." then "Worth buying if it passes the checks").
Verdict words live in consistency_terms.yaml; everything else is read from the typed results.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, Field

_TERMS = Path(__file__).with_name("consistency_terms.yaml")
_SENTENCE = re.compile(r"(?<=[。！？!?\n])|(?<=\.)(?=\s)")
_NUMBER = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?")


class ConsistencyReport(BaseModel):
    """What in an answer contradicts its lead or the numbers behind it (empty: one story)."""

    contradictions: list[str] = Field(default_factory=list)

    @property
    def consistent(self) -> bool:
        return not self.contradictions


@cache
def _terms() -> dict[str, re.Pattern[str]]:
    raw = yaml.safe_load(_TERMS.read_text(encoding="utf-8"))
    return {k: re.compile("|".join(re.escape(w) for w in words), re.I) for k, words in raw.items()}


def lead_of(answer: str, sentences: int = 2) -> str:
    text = re.sub(r"[*#`>]", "", answer)
    parts = [p.strip() for p in _SENTENCE.split(text) if p.strip()]
    return " ".join(parts[:sentences])


# a speed as answers print it: the number, then its unit ("30.1 tokens/s", "约 **68.9 tokens/s**", "1,420 tokens")
_SPEED = re.compile(r"(\d[\d,]*(?:\.\d+)?)\**\s*(?:个\s*)?(?:tokens?|tok)\b", re.I)


def _shows(answer: str, value: float | None, pattern: re.Pattern[str] | None = None) -> bool:
    """Whether the answer states `value` (to the precision answers print it) as a fact, not in a paragraph about
    what would happen on other terms (consistency_terms.yaml `hypothetical`)."""
    if value is None:
        return False
    for paragraph in answer.split("\n"):
        if _terms()["hypothetical"].search(paragraph):
            continue
        for raw in (pattern or _NUMBER).findall(paragraph):
            n = float(raw.replace(",", ""))
            if abs(n - value) <= max(0.051, 0.005 * abs(value)):
                return True
    return False


def _names_count(lead: str, n: int) -> bool:
    """Whether the lead names a count of cards ("4 × A100", "需要 4 张"), not a digit inside another number."""
    return re.search(rf"(?<![\d.,]){n}\s*(?:×|x|张|块|cards?|GPUs?)", lead, re.I) is not None


def _short(name: str) -> str:
    return re.sub(r"^(?:NVIDIA\s+)?(?:GeForce\s+)?", "", name).strip()


def check_consistency(answer: str, results: list[Any]) -> ConsistencyReport:
    """Every contradiction between the lead, the rest of the answer and the typed results."""
    from tools.recommend import RecommendResult
    from tools.speed import SpeedResult
    from tools.tco import TcoResult
    from tools.vram import VramResult

    lead = lead_of(answer)
    vrams = [r for r in results if isinstance(r, VramResult) and r.fit is not None]
    speeds = [r for r in results if isinstance(r, SpeedResult) and _shows(answer, _speed_value(r), _SPEED)]
    out: list[str] = []
    out += _speeds_on_setups_that_do_not_fit(vrams, speeds)
    out += _speeds_below_the_count_needed(lead, vrams, speeds)
    out += _buy_or_rent(lead, [r for r in results if isinstance(r, TcoResult)])
    out += _buy_below_rent(answer, lead, [r for r in results if isinstance(r, TcoResult)])
    out += _cheapest(answer, [r for r in results if isinstance(r, RecommendResult)])
    return ConsistencyReport(contradictions=list(dict.fromkeys(out)))


def _speed_value(r: Any) -> float | None:
    return r.training_tokens_per_s if r.method != "inference" else r.decode_tokens_per_s


def _same_job(v: Any, s: Any) -> bool:
    method = s.method if s.method != "inference" else "inference"
    return v.model == s.model and v.mode == method and v.precision == s.precision


def _speeds_on_setups_that_do_not_fit(vrams: list[Any], speeds: list[Any]) -> list[str]:
    out = []
    for s in speeds:
        for v in vrams:
            if v.fit.gpu == s.gpu and v.num_gpus == s.num_gpus and _same_job(v, s) and not v.fit.fits:
                out.append(
                    f"a speed ({_speed_value(s):g} tokens/s) is given for {s.num_gpus} x {_short(s.gpu)}, "
                    f"on which the answer's own estimate ({v.per_gpu_gib:g} GiB per GPU) does not fit"
                )
    return out


def _speeds_below_the_count_needed(lead: str, vrams: list[Any], speeds: list[Any]) -> list[str]:
    if not _terms()["not_fit"].search(lead):
        return []
    out = []
    for v in vrams:
        needed = v.fit.gpus_needed
        if v.fit.fits or not needed or not _names_count(lead, needed):
            continue
        for s in speeds:
            if s.gpu == v.fit.gpu and _same_job(v, s) and s.num_gpus < needed:
                out.append(
                    f"the lead says {needed} x {_short(v.fit.gpu)} are needed, "
                    f"but a speed is given for {s.num_gpus} of them"
                )
    return out


def _lead_choice(lead: str) -> str | None:
    t = _terms()
    rent, buy = bool(t["rent"].search(lead)), bool(t["buy"].search(lead))
    return "rent" if rent and not buy else "buy" if buy and not rent else None


def _buy_or_rent(lead: str, tcos: list[Any]) -> list[str]:
    choice = _lead_choice(lead)
    if choice is None or len(tcos) != 1 or not tcos[0].rent:
        # several cost comparisons (or none), or no rental on record to compare: the lead's one word cannot be
        # checked against them ("no rental of the DGX Spark is on record" is no verdict to rent)
        return []
    cheaper = "buy" if tcos[0].cheapest == "buy" else "rent"
    if choice != cheaper:
        return [f"the lead says {choice}, but the cost comparison finds {tcos[0].cheapest} cheaper"]
    return []


def _buy_below_rent(answer: str, lead: str, tcos: list[Any]) -> list[str]:
    """A lead that says rent must not be followed by a verdict to buy: a block about buying is conditional. The
    lead says rent when its words do, or when the one cost comparison finds renting cheaper and the lead does not say
    buy (a rent lead names buying too: "Rent ...: buying pays off only above 680 hours")."""
    choice = _lead_choice(lead)
    rents = len(tcos) == 1 and bool(tcos[0].rent) and tcos[0].cheapest != "buy"
    if choice != "rent" and not (rents and choice is None):
        return []
    rest = [p for p in answer.split("\n")[1:] if not _terms()["hypothetical"].search(p)]
    hits = [m.group(0) for p in rest if (m := _terms()["buy_verdict"].search(p))]
    return [f"the lead says rent, but the answer then says '{hits[0]}'"] if hits else []


def _cheapest(answer: str, recs: list[Any]) -> list[str]:
    """An option called the cheapest must not cost more than another listed option that does the job."""
    out = []
    sentences = [p for p in _SENTENCE.split(answer) if _terms()["cheapest"].search(p)]
    for rec in recs:
        picks = [p for p in (rec.primary, *rec.alternatives) if p is not None and p.label != "stretch"]
        shown = [p for p in picks if _short(p.gpu) in answer]
        for sentence in sentences:
            called = [p for p in shown if _short(p.gpu) in sentence]
            for p in called:
                cheaper = [
                    q
                    for q in shown
                    if q is not p and q.deployment == p.deployment and q.spend < p.spend * 0.98 and q not in called
                ]
                if cheaper:
                    q = min(cheaper, key=lambda x: x.spend)
                    out.append(
                        f"{_short(p.gpu)} is called the cheapest, but {q.count} x {_short(q.gpu)} "
                        f"({q.spend:,.0f} {q.currency}) is listed for less than {p.spend:,.0f}"
                    )
    return out
