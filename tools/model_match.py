"""Which model a typed name means, in a fixed order, and how it was decided.

1. the registry: an Ollama tag listed on a row, then the name (exact, alias, or every typed token in one
   entry's name: "llama3.1 70b" is Llama-3.1-70B);
2. the family's architecture at the typed size: the nearest entry of the closest series, its layer count
   scaled to the size ("Qwen2.5-20B" from Qwen2.5-14B), stated in one line;
3. a generic decoder at the typed size: dense ("Foo-13B", "671B"), or MoE when the name says so ("8x7B",
   "30B-A3B"), stated.

A name with neither a size nor a family raises UnknownNameError with close matches: only then does the
assistant ask back. A name never silently becomes another model: every step after an exact hit says so.
"""

from __future__ import annotations

import math
import re
from functools import cache, lru_cache
from typing import Literal

from pydantic import BaseModel, Field
from rapidfuzz import fuzz

from tools._data import load_yaml
from tools.errors import AdvisorError, UnknownNameError
from tools.model_names import NameParts, Sizes, ollama_default_precision, split_name
from tools.models import ModelArch, MoE, generic_arch, registry, resolve_model, suggest_models
from tools.notes import Note, note
from tools.precision import resolve_precision

MAX_PARAMS_B = 20_000  # the estimators' bound on a parameter count (tools/workload.py ModelRef.params_b)
How = Literal["registry", "read_as", "ollama", "scaled", "generic", "generic_moe"]


class ModelMatch(BaseModel):
    """A typed name resolved to an architecture, with how it was resolved and the format it carries."""

    typed: str
    arch: ModelArch
    how: How
    base: str | None = Field(default=None, description="The registry model a scaled shape comes from")
    base_layers: int | None = Field(default=None, description="The base's layer count, when a scaled shape's differ")
    base_hidden: int | None = Field(default=None, description="The base's hidden width, when a scaled shape's differ")
    precision: str | None = Field(default=None, description="The weight format the name carries, if any")
    precision_how: Literal["name", "nearest", "ollama_default", "native"] | None = None
    nearest_of: str | None = Field(default=None, description="The i-quant typed, read as the nearest K-quant")
    context_tokens: int | None = Field(default=None, description="A context the name states ('-128k', '-1M')")
    library_default: bool = Field(default=False, description="A name with no size read as its Ollama default tag")

    @property
    def exact(self) -> bool:
        return self.how in ("registry", "ollama")

    def name_notes(self) -> list[Note]:
        """How the name was read, for the answer's assumptions (none for an exact registry hit)."""
        out: list[Note] = []
        if self.library_default:
            said = default_tag_note(self.typed, self.arch.id)
            out.append(said or note("read_as", typed=self.typed, name=self.arch.name))
        elif self.how == "read_as":
            out.append(note("read_as", typed=self.typed, name=self.arch.name))
        elif self.how == "ollama":
            out.append(note("model_ollama_tag", typed=self.typed, name=self.arch.name))
        elif self.how == "scaled" and self.base_hidden and self.base_hidden != self.arch.hidden_size:
            out.append(
                note(
                    "model_scaled_wide",
                    typed=self.typed,
                    base=self.base or "",
                    size=self.arch.official_params_b or 0,
                    layers=self.arch.num_layers,
                    hidden=self.arch.hidden_size,
                    base_layers=self.base_layers or 0,
                    base_hidden=self.base_hidden,
                )
            )
        elif self.how == "scaled":
            out.append(
                note("model_scaled", typed=self.typed, base=self.base or "", size=self.arch.official_params_b or 0)
            )
        elif self.how in ("generic", "generic_moe"):
            s = self.arch
            active = (s.active_params / 1e9) if s.moe else None
            out.append(
                note(
                    "model_generic_moe" if s.moe else "model_generic",
                    typed=self.typed,
                    size=round(s.params / 1e9, 1),
                    active=active or 0,
                )
            )
        return out

    def format_notes(self) -> list[Note]:
        """Where the weight format came from, when the name (not the request) fixed it."""
        out: list[Note] = []
        if self.precision_how == "ollama_default":
            out.append(note("precision_ollama_default", typed=self.typed, precision=self.precision or ""))
        elif self.precision_how == "nearest":
            out.append(note("precision_nearest_quant", typed=self.nearest_of or "", precision=self.precision or ""))
        elif self.precision_how == "name":
            out.append(note("precision_from_name", typed=self.typed, precision=self.precision or ""))
        elif self.precision_how == "native":
            out.append(note("precision_native", name=self.arch.name, precision=self.precision or ""))
        return out


@cache
def _ollama_index() -> dict[str, str]:
    return {tag.lower(): arch.id for arch in registry().values() for tag in arch.ollama}


@lru_cache(maxsize=1024)
def match_model(typed: str) -> ModelMatch:
    """Resolve any typed model name (see the module docstring for the order); the result is shared: read only."""
    parts = split_name(typed)
    sized = parts.ollama_keys or parts.sizes.total_b or parts.sizes.effective_b
    default = None if sized else library_default(parts.name)
    if default is not None:
        return _with_format(ModelMatch(typed=typed, arch=default, how="ollama", library_default=True), parts)
    hit = _registry_hit(parts)
    if hit is not None:
        arch, how = hit
        return _with_format(ModelMatch(typed=typed, arch=arch, how=how), parts)
    sizes = parts.sizes
    if _target_b(sizes) > MAX_PARAMS_B:
        raise AdvisorError(
            f"'{typed}' names {_target_b(sizes):,g}B parameters; no model is larger than {MAX_PARAMS_B:,}B — "
            "check the size (B = billions)"
        )
    if sizes.total_b or sizes.effective_b:
        base = _family_base(parts)
        if base is not None and _same_moe_total(base, sizes):
            # "qwen3vl-30B-A2B": the series' own 30B MoE with another active count typed (a typo, or a variant the
            # registry lacks): the registry's layout, read as that model and said so, not a rescaled copy
            return _with_format(ModelMatch(typed=typed, arch=base, how="read_as"), parts)
        if base is not None and abs(_target_b(split_name(base.name).sizes) - _target_b(sizes)) < 0.05:
            # "Llama-3-portuguese-Tom-cat-8b-instruct", "llama2-chinese-13b": a fine-tune at a size its series has is
            # that model's architecture, read as it and said so (a rescaled copy would only rename it)
            return _with_format(ModelMatch(typed=typed, arch=base, how="read_as"), parts)
        if base is not None:
            arch = scaled_arch(base, _target_b(sizes), _display(parts))
            scaled = ModelMatch(
                typed=typed,
                arch=arch,
                how="scaled",
                base=base.name,
                base_layers=base.num_layers,
                base_hidden=base.hidden_size,
            )
            return _with_format(scaled, parts)
        if sizes.total_b and (sizes.experts or sizes.active_b):
            arch = generic_moe_arch(sizes, _display(parts))
            return _with_format(ModelMatch(typed=typed, arch=arch, how="generic_moe"), parts)
        arch = generic_arch(_target_b(sizes)).model_copy(update={"name": _display(parts), "id": _slug(parts)})
        return _with_format(ModelMatch(typed=typed, arch=arch, how="generic"), parts)
    raise UnknownNameError("model", typed, likely_models(parts.name or typed))


def _library_keys(name: str) -> list[str]:
    """The Ollama library names a typed name may be ("Llama 3" -> llama3, "deepseek r1" -> deepseek-r1)."""
    low = name.strip().lower()
    return list(dict.fromkeys([re.sub(r"\s+", "-", low), re.sub(r"[-_\s]+", "", low)]))


def library_default(name: str) -> ModelArch | None:
    """A name with no size that is an Ollama library's name ("mistral", "llama3", "qwen2.5", "gemma2"): the model
    the library's default tag (`<library>:latest`, listed on the registry row) pulls, which is what people running
    it get. Not for a name the registry holds as one model ("deepseek-r1" is the 671B model; "ollama run
    deepseek-r1" is read as a tag by the parser), nor for a family word people use for the whole family
    (model_names.yaml `likely`: "qwen", "gemma" ask which one)."""
    if not name.strip() or _key(name) in load_yaml("model_names.yaml").get("likely", {}):
        return None
    for key in _library_keys(name):
        arch_id = _ollama_index().get(f"{key}:latest")
        if arch_id is None:
            continue
        return None if _one_model_named(name) else registry()[arch_id]
    return None


def _one_model_named(name: str) -> bool:
    """Whether the registry holds `name` as one model's own name or alias ("deepseek-r1", "phi4", "qwq")."""
    try:
        return resolve_model(name)[1] is None
    except UnknownNameError:
        return False


def default_tag_note(mention: str, model_id: str) -> Note | None:
    """The line saying a name typed with no size was read as its Ollama library's default model, or None."""
    parts = split_name(mention)
    if parts.sizes.total_b or parts.sizes.effective_b or not parts.name:
        return None
    if _one_model_named(parts.name) and resolve_model(parts.name)[0].id == model_id:
        return None  # "mistral-nemo", "phi4": the name is that one model, nothing was assumed
    for key in _library_keys(parts.name):
        if _ollama_index().get(f"{key}:latest") == model_id:
            return note(
                "model_library_default",
                typed=mention.strip().rstrip(":"),
                name=registry()[model_id].name,
                tag=f"{key}:latest",
            )
    return None


def likely_models(typed: str, limit: int = 3) -> list[str]:
    """The models a name most likely means when nothing can be computed from it: for a bare family word the
    ones people mean most (model_names.yaml `likely`), else the family's newest of different sizes, else the
    closest spellings."""
    stem = _key(_stem(typed))
    family = re.match(r"[a-z]+", stem)
    listed = load_yaml("model_names.yaml").get("likely", {})
    names = [registry()[i].name for i in listed.get(stem, []) if i in registry()]
    if not names and family and family.group(0) in _families():
        rows = sorted(_families()[family.group(0)], key=lambda a: a.released or "", reverse=True)
        seen: set[float] = set()
        for arch in rows:
            size = round(arch.official_params_b or arch.params / 1e9)
            if size not in seen:
                seen.add(size)
                names.append(arch.name)
    return (names or suggest_models(typed))[:limit]


def _same_moe_total(base: ModelArch, sizes: Sizes) -> bool:
    """An MoE name whose total size is the registry entry's own, only its active count differing (names round the
    total: Qwen3-VL-30B-A3B has 31.1B parameters)."""
    total = float(sizes.total_b or 0)
    official = base.official_params_b or base.params / 1e9
    return bool(base.moe and sizes.active_b and total) and abs(official - total) <= 0.1 * total


def _target_b(sizes: Sizes) -> float:
    return float(sizes.total_b or sizes.effective_b or 0)


def _registry_hit(parts: NameParts) -> tuple[ModelArch, How] | None:
    for key in parts.ollama_keys:
        if key in _ollama_index():
            return registry()[_ollama_index()[key]], "ollama"
    if not parts.name:
        return None
    first = _first_generation(parts.name)
    if first is not None:
        return first, "registry"
    size = parts.sizes.total_b
    # as typed; then without a release date or a thinking/preview suffix ("Qwen3-30B-A3B-Instruct-2507");
    # then without the size, when the registry names the model without one ("deepseek-r1:671b", "Kimi-K2 1T")
    tries = [(parts.name, False), (_DATE.sub("", _NOISE.sub("", parts.name)), True)]
    if size:
        tries.append((_SIZE_WORD.sub("", parts.name), True))
    for name, loose in dict.fromkeys(tries):
        hit = _lookup(name, size)
        if hit is not None:
            arch, read_as = hit
            exact = not read_as and not loose
            return arch, ("ollama" if parts.is_ollama else "registry" if exact else "read_as")
    return _checkpoint_of(parts.name, size)


# a fine-tuned checkpoint's name: its base up to the size, then the fine-tuner's own tags ("OA_SFT_Llama_30B_6",
# "Qwen2.5-7B-Instruct-SFT", "llama-2-7b-chat-sft-v2")
_CHECKPOINT = re.compile(
    r"^(?:[a-z]{1,6}_(?:sft|rm|rl|ppo|dpo)_)?(?P<base>.*?\d(?:\.\d+)?b)(?:[-_ .][a-z0-9]+)+$", re.IGNORECASE
)


def _checkpoint_of(name: str, size: float | None) -> tuple[ModelArch, How] | None:
    """The registry model a fine-tuned checkpoint is made from, read as that model (same layout and size) when
    nothing matched the whole name: the tags after the size change the weights, not the memory."""
    m = _CHECKPOINT.match(name.strip())
    if m is None or not size:
        return None
    base = m.group("base")
    first = _first_generation(base)
    if first is not None:
        return first, "read_as"
    hit = _lookup(base, size)
    return (hit[0], "read_as") if hit is not None else None


_FIRST_GEN = re.compile(
    r"^(?P<family>[a-z]+)[-_]?(?P<size>\d+(?:\.\d+)?)b(?:[-_](?:chat|instruct|base|hf|int4|int8))*$", re.I
)


def _first_generation(name: str) -> ModelArch | None:
    """ "Qwen-7B-Chat", "qwen_72B": a family word glued to its size with no generation number is the family's
    first generation where it was published under that name (model_names.yaml first_generation_names)."""
    m = _FIRST_GEN.match(name.strip())
    if m is None:
        return None
    names = load_yaml("model_names.yaml")
    family = m.group("family").lower()
    chat = re.search(r"[-_]chat(?![a-z0-9])", name.lower()) is not None
    series = (chat and names.get("chat_generation_names", {}).get(family)) or names.get(
        "first_generation_names", {}
    ).get(family)
    if series is None:
        return None
    size = float(m.group("size"))
    rows = [a for a in _series().get(_key(series), []) if _same_size(a, size, name)]
    return min(rows, key=lambda a: abs((a.official_params_b or a.params / 1e9) - size)) if rows else None


_DATE = re.compile(r"[-_\s]?(?<![a-z0-9])(?:0\d{3}|2[0-9]{3})(?![a-z0-9])")


def _lookup(name: str, size: float | None) -> tuple[ModelArch, bool] | None:
    """A registry entry for `name` whose size agrees with the typed one; (entry, read fuzzily)."""
    if not name.strip("-_ ."):
        return None
    try:
        arch, read_as = resolve_model(name)
    except UnknownNameError:
        return None
    if read_as and size is None and not re.search(r"\d", name):
        return None  # "llama" alone reads as one particular Llama: ambiguous, the caller lists the choices
    if size and not _same_size(arch, size, name):
        return None  # the tokens matched but the size does not: the family's shape at that size, said so
    return arch, bool(read_as)


def _same_size(arch: ModelArch, size_b: float, typed: str) -> bool:
    """Whether a registry entry is the size the name states ("Mixtral-8x22B" is the 141B row: the layout, not
    8 x 22, names it)."""
    official = arch.official_params_b or arch.params / 1e9
    layout = re.search(r"\d+x\d+(?:\.\d+)?b", typed.lower())
    if layout and layout.group(0) in f"{arch.id} {arch.name.lower()}":
        return True
    return abs(official - size_b) / max(size_b, 1e-9) <= 0.2 or f"{size_b:g}b" in arch.id


def _with_format(m: ModelMatch, parts: NameParts) -> ModelMatch:
    m.context_tokens = parts.context_tokens
    if parts.precision:
        m.precision, m.precision_how = parts.precision, ("nearest" if parts.nearest_of else "name")
        m.nearest_of = parts.nearest_of
    elif parts.ollama_default:
        # Ollama's builds are Q4_K_M GGUF files, whatever the publisher ships (deepseek-r1:671b too), except
        # where the publisher's own format is already 4-bit and Ollama serves it as is (gpt-oss: MXFP4)
        native = m.arch.native_precision
        four_bit = native is not None and resolve_precision(native).bits <= 4.5
        m.precision = native if four_bit else ollama_default_precision()
        m.precision_how = "native" if four_bit else "ollama_default"
    elif m.arch.native_precision:
        m.precision, m.precision_how = m.arch.native_precision, "native"
    return m


# ---- 2. the family's shape at the typed size -------------------------------------------------------

_SIZE_WORD = re.compile(
    r"(?<![a-z0-9.])(?:\d+x)?\d+(?:\.\d+)?[bmt](?![a-z0-9])|(?<![a-z0-9])[ae]\d+(?:\.\d+)?b(?![a-z0-9])"
)
_NOISE = re.compile(r"(?<![a-z0-9])(?:instruct|chat|base|it|hf|preview|thinking)(?![a-z0-9])")


def _stem(name: str) -> str:
    """The name without its sizes and packaging: "Qwen2.5-20B-Instruct" -> "qwen2.5"."""
    text = _NOISE.sub(" ", _SIZE_WORD.sub(" ", name.lower()))
    text = re.sub(r"(?<![a-z0-9])\d{4}(?![a-z0-9])", " ", text)  # a date such as 2507 is no series
    return re.sub(r"[-_\s]+", "-", text).strip("-. ")


def _key(text: str) -> str:
    return re.sub(r"[^a-z0-9.]", "", text.lower())


@cache
def _series() -> dict[str, list[ModelArch]]:
    out: dict[str, list[ModelArch]] = {}
    for arch in registry().values():
        out.setdefault(_key(arch.series or _stem(arch.name)), []).append(arch)
    return out


@cache
def _families() -> dict[str, list[ModelArch]]:
    out: dict[str, list[ModelArch]] = {}
    for arch in registry().values():
        out.setdefault(_key(arch.family), []).append(arch)
    return out


def _family_base(parts: NameParts) -> ModelArch | None:
    """The registry entry whose shape a size the registry lacks is scaled from, or None."""
    stem = _key(_stem(parts.name))
    if not stem:
        return None
    target = _target_b(parts.sizes)
    moe_wanted = bool(parts.sizes.active_b or parts.sizes.experts)
    rows = _series().get(stem)
    if rows is None:
        family = re.match(r"[a-z]+", stem)
        rows = _families().get(family.group(0)) if family else None
        if rows is None:
            return None
        # a name that says nothing of experts is a dense model: scale a dense series of the family if it has one
        rows = [a for a in rows if bool(a.moe) == moe_wanted] or rows
        # the closest series by spelling ("qwen2" -> qwen2.5 before qwen3), newest first on a tie
        by_series: dict[str, list[ModelArch]] = {}
        for arch in rows:
            by_series.setdefault(_key(arch.series or _stem(arch.name)), []).append(arch)
        # a series the name starts with first ("llama3portuguese" is Llama 3, not the closer-spelled llama3.2vision)
        prefix = [k for k in by_series if stem.startswith(k) and not stem[len(k) : len(k) + 1].isdigit()]
        best = max(prefix, key=len) if prefix else None
        best = best or max(by_series, key=lambda k: (fuzz.ratio(stem, k), max(a.released or "" for a in by_series[k])))
        rows = by_series[best]
    pool = [a for a in rows if bool(a.moe) == moe_wanted] or rows
    return min(pool, key=lambda a: (abs(math.log((a.official_params_b or a.params / 1e9) / target)), a.released or ""))


# Within this factor of the base's size only the layer count changes (a depth-upscaled merge such as a 10.7B
# built from a 7B keeps its widths); beyond it the widths scale too, as real families do (Llama-3.2-1B is 16
# layers x 2048, Llama-3-70B 80 x 8192: depth and width grow together, their ratio roughly kept).
_LAYERS_ONLY_FACTOR = 2.0


def _round_to(x: float, step: int) -> int:
    return max(step, round(x / step) * step)


def _widened(base: ModelArch, s: float) -> ModelArch:
    """`base` with its widths times `s` and its layer count times `s` (the depth/width ratio kept), head size,
    GQA grouping, vocabulary and expert count kept."""
    group = max(1, base.num_attention_heads // base.num_key_value_heads)
    kv = max(1, round(base.num_key_value_heads * s))
    update: dict[str, object] = {
        "num_layers": max(1, min(1000, round(base.num_layers * s))),
        "hidden_size": _round_to(base.hidden_size * s, 64),
        "num_attention_heads": kv * group,
        "num_key_value_heads": kv,
        "intermediate_size": _round_to(base.intermediate_size * s, 64),
    }
    if base.moe:
        moe = {"expert_intermediate_size": _round_to(base.moe.expert_intermediate_size * s, 64)}
        if base.moe.shared_intermediate_size:
            moe["shared_intermediate_size"] = _round_to(base.moe.shared_intermediate_size * s, 64)
        update["moe"] = base.moe.model_copy(update=moe)
    return base.model_copy(update=update)


def _width_scale(base: ModelArch, target: float) -> float:
    """The width factor at which `_widened(base, s)` holds `target` parameters (bisection on log s)."""
    lo, hi = math.log(1e-3), math.log(50.0)
    for _ in range(40):
        mid = (lo + hi) / 2
        if _widened(base, math.exp(mid)).params < target:
            lo = mid
        else:
            hi = mid
    return math.exp((lo + hi) / 2)


def scaled_arch(base: ModelArch, params_b: float, name: str) -> ModelArch:
    """`base`'s shape scaled to `params_b`: near the base's size only the layer count changes (widths, heads and
    vocabulary kept); far from it the widths and layers scale together, keeping the base's depth/width ratio,
    so a 1B named after a 12B family gets a 1B's width and KV cache, not one layer of the 12B."""
    target = params_b * 1e9
    ratio = target / max(1.0, base.params)
    shape = base
    if not 1 / _LAYERS_ONLY_FACTOR <= ratio <= _LAYERS_ONLY_FACTOR:
        shape = _widened(base, _width_scale(base, target))
    groups = shape.param_groups()
    fixed = groups["embed"] + groups["lm_head"] + groups["extra"]
    per_layer = max(1.0, (shape.params - fixed) / shape.num_layers)
    layers = max(1, min(1000, round((target - fixed) / per_layer)))
    how = (
        f"{base.name}'s architecture with {layers} layers instead of {base.num_layers}"
        if shape is base
        else f"{base.name}'s architecture scaled in width and depth (depth/width ratio kept): {layers} layers "
        f"x hidden {shape.hidden_size} instead of {base.num_layers} x {base.hidden_size}"
    )
    update = {
        "id": re.sub(r"[^a-z0-9.]+", "-", name.lower()).strip("-"),
        "name": name,
        "num_layers": layers,
        "aliases": [],
        "ollama": [],
        "generic": True,  # the count the name states wins over the scaled shape's
        "official_params_b": params_b,
        "official_active_params_b": None,
        "hf_repo": None,
        "sources": [how],
    }
    if shape.moe:
        update["moe"] = shape.moe.model_copy(
            update={"first_dense_layers": min(shape.moe.first_dense_layers, layers - 1)}
        )
    return shape.model_copy(update=update)


# ---- 3. a generic MoE decoder -------------------------------------------------------------------------


def generic_moe_arch(sizes: Sizes, name: str) -> ModelArch:
    """A MoE decoder with the stated total (and active, or experts x size) parameters.

    "8x7B": 8 experts, top-2 (Mixtral's layout), each expert the MLP of a generic 7B. "30B-A3B": attention
    and embeddings of a generic dense model of the active size, 8 of E experts active, E chosen so the
    total comes out (Qwen3-MoE's layout)."""
    total = float(sizes.total_b or 0)
    if sizes.experts and sizes.expert_b:
        dense = generic_arch(sizes.expert_b)
        top_k, n_experts, expert_inter = 2, sizes.experts, dense.intermediate_size
    else:
        active = float(sizes.active_b or total / 10)
        dense = generic_arch(active)
        groups = dense.param_groups()
        mlp = sum(v for k, v in groups.items() if k.startswith("ffn_"))
        other = dense.params - mlp
        top_k = 8
        expert_inter = max(64, dense.intermediate_size // top_k)
        per_expert = mlp / top_k
        n_experts = max(top_k + 1, min(1024, round((total * 1e9 - other) / per_expert)))
    arch = dense.model_copy(
        update={
            "id": re.sub(r"[^a-z0-9.]+", "-", name.lower()).strip("-"),
            "name": name,
            "moe": MoE(num_experts=n_experts, experts_per_token=top_k, expert_intermediate_size=expert_inter),
            # "8x7B" names a layout, not a total (Mixtral-8x7B holds 46.7B, not 56B): the layout's own count
            "official_params_b": None if sizes.experts else total,
            "generic": True,
            "sources": ["generic MoE shape (tools/model_match.py generic_moe_arch)"],
        }
    )
    return arch


def _display(parts: NameParts) -> str:
    """The name to show for a model the registry does not hold: as typed, less its format and packaging."""
    return parts.name or parts.typed.strip()


def _slug(parts: NameParts) -> str:
    return re.sub(r"[^a-z0-9.]+", "-", _display(parts).lower()).strip("-")


_COMMON_SIZES_B = (7.0, 14.0, 32.0, 70.0)  # what "the X models" spans when a size is not named


def series_in_name(name: str) -> str | None:
    """The registry series (or family) a name without a size starts with: "CrazyBoyM/llama3-Chinese-chat" is a
    Llama 3 fine-tune, "FooLab/Qwen2.5-Finetune" a Qwen2.5 one. The longest series wins; a digit right after
    it means another series ("llama31" is Llama 3.1, not Llama 3)."""
    repos = {k.lower(): v for k, v in load_yaml("model_names.yaml").get("github_repos", {}).items()}
    repo = repos.get(name.strip().strip("[]").lower())
    if repo:
        return f"series:{_key(repo)}"  # that generation only, though its name may also be a family's
    key = _key(split_name(name).name)
    keys = [k for k in (*_series(), *_families()) if len(k) > 2]
    hits = [k for k in keys if key.startswith(k) and not key[len(k) : len(k) + 1].isdigit()]
    return max(hits, key=len) if hits else None


def coder_series(family: str) -> str | None:
    """The newest code series of a family ("qwen" -> "series:qwen3coder"), for a family named for coding."""
    rows = _families().get(_key(family.removeprefix("series:"))) or []
    coders = [a for a in rows if a.series and re.search(r"cod(?:e|er)", a.series)]
    if not coders:
        return None
    newest = max(coders, key=lambda a: a.released or "")
    return f"series:{_key(newest.series or '')}"


def of_family(model_id: str, family: str) -> bool:
    """Whether a registry model belongs to a family key as series_in_name returns it ("series:qwen1", "qwen")."""
    arch = registry().get(model_id)
    if arch is None:
        return False
    if family.startswith("series:"):
        rows = _series().get(family.removeprefix("series:")) or []
        return any(a.family == arch.family for a in rows)
    return _key(arch.family) == _key(family) or _key(arch.series or "") == _key(family)


def in_series_of(model_id: str, anchors: list[str]) -> str | None:
    """The model of an anchor's series with `model_id`'s size and family: "llama 70b" read as the newest Llama 70B
    is Llama-2-70B in a message that also names "llama 2 70B" or "Llama-2-7B" (one generation, as people write)."""
    reg = registry()
    arch = reg.get(model_id)
    if arch is None:
        return None
    size = arch.official_params_b or arch.params / 1e9
    for anchor in anchors:
        other = reg.get(anchor)
        if other is None or other.family != arch.family or other.series == arch.series or not other.series:
            continue
        rows = [a for a in _series().get(_key(other.series), []) if bool(a.moe) == bool(arch.moe)]
        near = [a for a in rows if abs((a.official_params_b or a.params / 1e9) - size) <= 0.12 * size]
        if near:
            return min(near, key=lambda a: abs((a.official_params_b or a.params / 1e9) - size)).id
    return None


def in_named_series(model_id: str, name: str) -> str | None:
    """The model of the series a sizeless name spells ("llama2") with `model_id`'s size: "When I load llama2 ...
    Loading llama-70B" is Llama-2-70B, not the newest Llama 70B the loose "llama-70B" alone reads as."""
    arch = registry().get(model_id)
    key = (series_in_name(name) or "").removeprefix("series:")
    rows = _series().get(key) if arch and key and key != _key(arch.series or "") else None
    if not rows or any(a.family != arch.family for a in rows):
        return None
    size = arch.official_params_b or arch.params / 1e9
    near = [a for a in rows if bool(a.moe) == bool(arch.moe)]
    near = [a for a in near if abs((a.official_params_b or a.params / 1e9) - size) <= 0.12 * size]
    return min(near, key=lambda a: abs((a.official_params_b or a.params / 1e9) - size)).id if near else None


def family_models(family: str, limit: int = 4) -> list[str]:
    """The models a family name stands for when no size is given ("the code llama models", "千问"): from the
    newest generation that comes in at least two of the common sizes (7B, 14B, 32B, 70B), leaving out vision,
    math and guard variants; dense models, smallest first."""
    if family.startswith("series:"):
        key = family.removeprefix("series:")
        rows = _series().get(key) or []
    else:
        key = _key(family)
        rows = _families().get(key) or _series().get(key) or []
    if not rows:
        rows = [a for k, v in _families().items() if k.replace("-", "") == key.replace("-", "") for a in v]
    dense = [a for a in rows if not a.moe and not _VARIANT.search(f"{a.series or ''} {a.id}")] or rows
    by_series: dict[str, list[ModelArch]] = {}
    for a in dense:
        by_series.setdefault(a.series or a.id, []).append(a)
    best: list[ModelArch] = []
    best_key: tuple[int, str, int] = (0, "", 0)
    for members in by_series.values():
        picks = _nearest_sizes(members)
        # the newest generation with at least two of the common sizes; the widest one when none has two
        key_ = (min(len(picks), 2), max(a.released or "" for a in members), len(picks))
        if key_ > best_key:
            best, best_key = picks, key_
    if not best and rows:  # a series of giant MoE models only (DeepSeek-V3 / R1): its newest, as published
        best = sorted(rows, key=lambda a: a.released or "", reverse=True)[:1]
    return [a.id for a in best][:limit]


def series_flagship(family: str) -> str | None:
    """The largest model of one series named with no size ("Qwen3-VL": Qwen3-VL-235B-A22B), the one a team asking
    what hardware the series needs may mean; None for a family word that spans generations ("qwen")."""
    rows = _series().get(_key(family.removeprefix("series:"))) or []
    return max(rows, key=lambda a: a.params).id if len(rows) >= 2 else None


def newer_version_of(name: str, family: str) -> str | None:
    """The nearest known model for a version of a family the registry does not hold yet ("Kimi K3", "DeepSeek V5"):
    the family's newest release, its largest model. None when the name is the family word alone or a known series
    ("qwen3"), which name a family's sizes rather than one model."""
    rows = _families().get(_key(family)) or []
    rest = _key(name).removeprefix(_key(family))
    if not rows or not re.search(r"\d", rest) or family.startswith("series:"):
        return None
    rows = [a for a in rows if not _VARIANT.search(f"{a.series or ''} {a.id}")] or rows
    newest = max(a.released or "" for a in rows)
    return max((a for a in rows if (a.released or "") == newest), key=lambda a: a.params).id


_VERSIONED = re.compile(r"([a-z]+)(\d+(?:\.\d+)?)")


def newer_version_at_size(typed: str) -> str | None:
    """The model a version newer than the registry holds is sized as when typed with a size ("Qwen4 32B",
    "Llama 5 70B", "Gemma 4 27B"): the family's newest model of that size, a published shape, never a guessed one.
    None when the version is one the registry holds ("Llama 4 8B" is scaled from Llama 4), or no model of the family
    has that size."""
    parts = split_name(typed)
    size = parts.sizes.total_b
    m = _VERSIONED.fullmatch(_key(_stem(parts.name)))
    if not size or parts.sizes.active_b or m is None:
        return None
    rows = [a for a in _families().get(m.group(1)) or [] if not _VARIANT.search(f"{a.series or ''} {a.id}")]
    known = [_VERSIONED.match(_key(a.series or _stem(a.name))) for a in rows]
    versions = [float(k.group(2)) for k in known if k is not None and k.group(1) == m.group(1)]
    if not versions:
        return None
    typed_version, newest = float(m.group(2)), max(versions)
    if not newest < typed_version <= math.floor(newest) + 1:
        return None  # the next version only: "Qwen9-7B" is a typo, scaled and said so as any unknown name
    same = [a for a in rows if not a.moe and abs(math.log((a.official_params_b or a.params / 1e9) / size)) < 0.1]
    # the general model of that size first: "Phi-5 14B" is sized as Phi-4, not Phi-4-reasoning
    return max(same, key=lambda a: (not _SPECIALISED.search(a.id), a.released or "")).id if same else None


_SPECIALISED = re.compile(r"reasoning|coder|distill|guard|-r1")


_VARIANT = re.compile(r"(?<![a-z])(?:vl|vision|math|guard|omni|audio)(?![a-z])|-vl-|-math-")


def _nearest_sizes(members: list[ModelArch]) -> list[ModelArch]:
    def size(a: ModelArch) -> float:
        return a.official_params_b or a.params / 1e9

    picks: list[ModelArch] = []
    for target in _COMMON_SIZES_B:
        near = min(members, key=lambda a: (abs(math.log(size(a) / target)), a.released or ""))
        if near not in picks and abs(math.log(size(near) / target)) < 0.7:
            picks.append(near)
    return sorted(picks, key=size)
