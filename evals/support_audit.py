"""Does "will X run on Y" agree with the published support tables? (knowledge/data/support_published.yaml)

For every catalog GPU a transcribed table speaks about, ask check_support (tools/support.py) and compare its verdict
with the table's; compare the catalog's compute capability with NVIDIA's CUDA GPUs list. Run it:
`python -m evals.support_audit` prints "N GPUs x M subjects: K checks, A agree" and every disagreement.
tests/test_round15_support_published.py fails on any disagreement.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

from tools._data import load_yaml
from tools.catalog import catalog
from tools.support import SupportRequest, check_support

# published verdict -> our verdicts that agree with it (accept_caveat / accept_yes widen it, with a written reason)
_AGREES = {"yes": {"yes"}, "no": {"no"}, "not_listed": {"no", "caveat"}, "limited": {"yes", "caveat"}}


@dataclass(frozen=True)
class Check:
    table: str
    subject: str
    precision: str | None
    gpu_id: str
    stated_as: str  # the source's own name or rule for this GPU
    published: str
    ours: str
    exception: str | None  # the written reason a caveat (or a yes) is accepted, when one was needed

    @property
    def agrees(self) -> bool:
        return self.ours in _AGREES[self.published] or self.exception is not None


@dataclass(frozen=True)
class CcCheck:
    gpu_id: str
    nvidia_name: str
    published: str
    ours: str | None

    @property
    def agrees(self) -> bool:
        return self.published == self.ours


@cache
def published() -> dict[str, Any]:
    return load_yaml("support_published.yaml")


def published_cc() -> dict[str, tuple[str, str]]:
    """Catalog id -> (compute capability, NVIDIA's name) from NVIDIA's CUDA GPUs list."""
    return {
        gid: (str(row["cc"]), row["name"]) for row in published()["nvidia_cuda_gpus"]["gpus"] for gid in row["catalog"]
    }


def cc_checks() -> list[CcCheck]:
    cat = catalog()
    return [
        CcCheck(gid, name, cc, cat[gid].compute_capability if gid in cat else None)
        for gid, (cc, name) in published_cc().items()
    ]


def _rule_gpus(rule: dict[str, Any]) -> list[str]:
    """Catalog ids a rule speaks about: by vendor, and for NVIDIA by the compute capability NVIDIA publishes."""
    arch_cc = published()["nvidia_cuda_gpus"]["architectures"]
    allowed = {str(c) for a in rule.get("arch", []) for c in arch_cc[a]} | {str(c) for c in rule.get("cc", [])}
    pub = published_cc()
    out = []
    for gid, gpu in catalog().items():
        if gpu.vendor != rule["vendor"] or gid in rule.get("exclude", []):
            continue
        if gpu.vendor == "nvidia":
            if gid not in pub:
                continue  # a card NVIDIA's list does not name: no published capability to apply the rule with
            cc = pub[gid][0]
            if allowed and cc not in allowed:
                continue
            if "cc_min" in rule and float(cc) < float(rule["cc_min"]):
                continue
            if "cc_below" in rule and float(cc) >= float(rule["cc_below"]):
                continue
        out.append(gid)
    return out


def _stated(rule: dict[str, Any]) -> str:
    keys = ("vendor", "arch", "cc", "cc_min", "cc_below")
    return ", ".join(f"{k}={rule[k]}" for k in keys if k in rule)


def expectations() -> list[tuple[dict[str, Any], str, str, str, str | None]]:
    """(table, catalog id, stated as, published verdict, accepted-exception reason) per GPU a table speaks about."""
    out = []
    for table in published()["tables"]:
        seen: set[str] = set()
        for entry in table.get("gpus", []):
            for gid in entry["catalog"]:
                seen.add(gid)
                out.append((table, gid, entry["name"], entry["verdict"], _exception(entry)))
        for rule in table.get("rules", []):
            for gid in _rule_gpus(rule):
                if gid not in seen:  # a name entry wins; the first rule that speaks about a GPU decides
                    seen.add(gid)
                    out.append((table, gid, _stated(rule), rule["verdict"], _exception(rule)))
    return out


def _exception(entry: dict[str, Any]) -> dict[str, str]:
    return {v: entry[k] for k, v in (("accept_caveat", "caveat"), ("accept_yes", "yes")) if k in entry}


def checks() -> list[Check]:
    out = []
    for table, gid, stated, verdict, accepted in expectations():
        precision = table.get("precision")
        ours = check_support(SupportRequest(engine=table["subject"], gpu=gid, precision=precision)).verdict
        reason = accepted.get(ours) if ours not in _AGREES[verdict] else None
        out.append(Check(table["id"], table["subject"], precision, gid, stated, verdict, ours, reason))
    return out


@dataclass(frozen=True)
class Audit:
    checks: list[Check]
    cc: list[CcCheck]

    @property
    def gpus(self) -> int:
        return len({c.gpu_id for c in self.checks} | {c.gpu_id for c in self.cc})

    @property
    def subjects(self) -> int:
        return len({(c.subject, c.precision) for c in self.checks}) + 1  # + the compute capability itself

    @property
    def disagreements(self) -> list[Check | CcCheck]:
        return [c for c in [*self.cc, *self.checks] if not c.agrees]

    def summary(self) -> str:
        total = len(self.checks) + len(self.cc)
        agree = total - len(self.disagreements)
        excepted = sum(1 for c in self.checks if c.exception)
        return (
            f"{self.gpus} catalog GPUs x {self.subjects} subjects (engine/feature/precision + compute capability): "
            f"{total} checks, {agree} agree ({excepted} with a written exception), {len(self.disagreements)} differ"
        )


def audit() -> Audit:
    return Audit(checks=checks(), cc=cc_checks())


def main() -> int:
    result = audit()
    print(result.summary())
    for c in result.disagreements:
        print("  DIFFER", c)
    return 1 if result.disagreements else 0


if __name__ == "__main__":
    raise SystemExit(main())
