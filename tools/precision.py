"""Weight formats and KV-cache dtypes: real bits per weight, including mixed GGUF file types."""

from __future__ import annotations

import re
from functools import cache
from typing import Literal

from pydantic import BaseModel

from tools._data import load_yaml
from tools.errors import AdvisorError
from tools.models import ModelArch

# Tensor classes that quantized checkpoints (bnb, GPTQ, AWQ, FP8) quantize: the decoder's linears.
_BLOCK_GROUPS = ("attn_", "ffn_")


class Precision(BaseModel):
    """A resolved weight format."""

    name: str
    kind: Literal["float", "float8", "float4", "int", "gguf"]
    bits: float  # nominal bits per quantized weight (GGUF: of the base block type)
    compute: str  # dtype the matmuls run in
    applies_to: Literal["all", "blocks", "gguf"]
    group_size: int | None = None
    note: str | None = None
    head_bits: float | None = None  # a bits-per-weight file's output layer (EXL2/EXL3 "h6": 6 bits)


@cache
def _table() -> dict:
    return load_yaml("precisions.yaml")


def precision_names() -> list[str]:
    """All accepted precision names (aliases excluded)."""
    t = _table()
    return [*t["formats"], *t["gguf"]]


def bpw_precision(bits: float, head_bits: int | None = None) -> Precision:
    """A format given as an average bits per weight ("4.65bpw", EXL2/EXL3 "5.0bpw h6", "3.5 bits per weight")."""
    spec = _table()["bits_per_weight"]
    lo, hi = spec["min_bits"], spec["max_bits"]
    if not lo <= bits <= hi:
        raise AdvisorError(f"{bits:g} bits per weight is outside {lo:g}-{hi:g}; a quantized file is in that range")
    head = head_bits or spec["head_bits"]
    return Precision(
        name=f"{bits:g}bpw" + (f"_h{head}" if head != spec["head_bits"] else ""),
        kind="int",
        bits=bits,
        compute=spec["compute"],
        applies_to="blocks",
        head_bits=head,
        note=spec["note"],
    )


_BPW_NAME = re.compile(r"(?:exl[23][-_]?)?(\d+(?:\.\d+)?)bpw(?:[-_]?h(\d))?")


def is_bpw(name: str) -> bool:
    """ "4.65bpw", "exl2-5.0bpw_h8": a format named by its bits per weight."""
    return _BPW_NAME.fullmatch(name.strip().lower().replace(" ", "")) is not None


def resolve_precision(name: str) -> Precision:
    """Parse 'bf16', 'Q4_K_M', 'awq', 'gptq_g32', 'nf4-dq', '4.65bpw', 'exl2-5.0bpw_h8' (case-insensitive)."""
    key = name.strip().lower().replace(" ", "")
    t = _table()
    m = _BPW_NAME.fullmatch(key)
    if m:
        return bpw_precision(float(m.group(1)), int(m.group(2)) if m.group(2) else None)
    group = None
    m = re.fullmatch(r"(gptq|awq|int4)[-_]?g(\d+)", key)
    if m:
        key, group = m.group(1), int(m.group(2))
        if group not in (32, 64, 128, 256, 1024):
            raise AdvisorError(f"group size {group} is unusual; use 32, 64, 128 or 256")
    for fmt, spec in t["formats"].items():
        if key == fmt or key in [a.lower() for a in spec.get("aliases", [])]:
            bits = spec["bits"]
            if group:  # 16-bit scale + 4-bit zero point per group
                bits = 4 + 20 / group
            return Precision(
                name=fmt if not group else f"{fmt}_g{group}",
                kind=spec["kind"],
                bits=bits,
                compute=spec["compute"],
                applies_to=spec["applies_to"],
                group_size=group or spec.get("group_size"),
                note=spec.get("note"),
            )
    gguf_key = key.replace("-", "_")
    if gguf_key in t["gguf"]:
        rule = t["gguf"][gguf_key]
        return Precision(
            name=gguf_key,
            kind="gguf",
            bits=t["gguf_block_bits"][rule["base"]],
            compute="fp16",
            applies_to="gguf",
            note="llama.cpp GGUF file type (mixed per-tensor block types)",
        )
    raise AdvisorError(f"unknown precision '{name}' — use one of: {', '.join(precision_names())}")


def kv_bytes(dtype: str) -> float:
    """Bytes per cached element for a KV-cache dtype."""
    t = _table()
    key = dtype.strip().lower()
    key = t["kv_aliases"].get(key, key)
    if key not in t["kv_dtypes"]:
        raise AdvisorError(f"unknown KV-cache dtype '{dtype}' — use one of: {', '.join(t['kv_dtypes'])}")
    return float(t["kv_dtypes"][key])


def normalize_kv_dtype(dtype: str) -> str:
    t = _table()
    key = dtype.strip().lower()
    return t["kv_aliases"].get(key, key)


def _use_more_bits(i: int, n: int) -> bool:
    """llama.cpp's use_more_bits(): first and last eighth of the layers and every third in between."""
    return i < n // 8 or i >= 7 * n // 8 or (i - n // 8) % 3 == 2


def _layer_share(selector: str, n: int) -> float:
    """Share of the `n` layers a GGUF rule upgrades."""
    if selector == "all":
        return 1.0
    if selector == "more_bits":
        return sum(_use_more_bits(i, n) for i in range(n)) / n
    if selector == "first_eighth":
        return (n // 8) / n
    if selector == "first_sixteenth":
        return (n // 16) / n
    if selector.startswith("first_"):
        return min(n, int(selector.split("_")[1])) / n
    raise AdvisorError(f"bad GGUF layer selector '{selector}' in precisions.yaml")


def gguf_bits_by_group(arch: ModelArch, ftype: str) -> dict[str, float]:
    """Average bits per weight for each tensor class of `arch` under GGUF file type `ftype`."""
    t = _table()
    rule = t["gguf"][ftype]
    block = t["gguf_block_bits"]
    base = block[rule["base"]]
    out_bits = block[rule["output"]]
    bits: dict[str, float] = {}
    for group in arch.param_groups():
        bits[group] = base
    bits["norms"] = 32.0  # llama.cpp keeps 1-D tensors in F32
    bits["attn_other"] = 32.0
    bits["lm_head"] = out_bits
    bits["embed"] = out_bits if arch.tie_word_embeddings else base  # a tied table is also the output
    bits["extra"] = 16.0
    for tensor, group_names in (("attn_v", ("attn_v",)), ("ffn_down", ("ffn_down",)), ("attn_output", ("attn_o",))):
        upgrade = rule.get(tensor)
        if not upgrade:
            continue
        share = _layer_share(upgrade.get("layers", "all"), arch.num_layers)
        hi = block[upgrade["type"]]
        lo = block[upgrade.get("else", rule["base"])]
        for g in group_names:
            bits[g] = share * hi + (1 - share) * lo
    return bits


def weight_bits_by_group(arch: ModelArch, precision: Precision) -> dict[str, float]:
    """Bits per weight for each tensor class (non-quantized classes stay at 16 bits)."""
    groups = arch.param_groups()
    if precision.applies_to == "gguf":
        return gguf_bits_by_group(arch, precision.name)
    if precision.applies_to == "all":
        return dict.fromkeys(groups, precision.bits)
    bits = {g: (precision.bits if g.startswith(_BLOCK_GROUPS) and g != "attn_other" else 16.0) for g in groups}
    if precision.head_bits and "lm_head" in bits:
        bits["lm_head"] = float(precision.head_bits)  # EXL2/EXL3 quantize the output layer too (a tied one stays 16)
    return bits


def weight_bytes(arch: ModelArch, precision: Precision) -> float:
    """Bytes the weights occupy in this format."""
    groups = arch.param_groups()
    bits = weight_bits_by_group(arch, precision)
    return sum(n * bits[g] for g, n in groups.items()) / 8


def effective_bits(arch: ModelArch, precision: Precision) -> float:
    """Whole-model bits per weight (what llama.cpp prints as BPW)."""
    return 8 * weight_bytes(arch, precision) / arch.params
