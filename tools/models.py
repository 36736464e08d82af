"""Model architectures: the registry in knowledge/data/models/*.yaml, HF config.json parsing, param counts."""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field, PrivateAttr, ValidationError, model_validator

from tools._data import data_files, load_yaml
from tools.errors import AdvisorError
from tools.names import Entry, NameIndex
from tools.notes import Note, note

# Upper bounds far above any real model: they turn absurd configs into validation errors, not overflows.
DIM_MAX = 1_000_000
COUNT_MAX = 100_000


class MoE(BaseModel):
    """Mixture-of-experts layout; routed experts are all resident, `experts_per_token` are read per token."""

    num_experts: int = Field(gt=1, le=COUNT_MAX)
    experts_per_token: int = Field(gt=0, le=COUNT_MAX)
    expert_intermediate_size: int = Field(gt=0, le=DIM_MAX)
    num_shared_experts: int = Field(default=0, ge=0, le=COUNT_MAX)
    shared_intermediate_size: int | None = Field(
        default=None, gt=0, le=DIM_MAX, description="defaults to the expert size"
    )
    first_dense_layers: int = Field(default=0, ge=0, le=1000, description="leading layers with a dense MLP (DeepSeek)")
    layer_step: int = Field(
        default=1, ge=1, le=1000, description="every n-th layer after the dense ones is MoE, the rest dense (Llama 4)"
    )


class MLA(BaseModel):
    """DeepSeek multi-head latent attention: the KV cache stores a compressed latent per token."""

    q_lora_rank: int | None = Field(default=None, gt=0, le=DIM_MAX)
    kv_lora_rank: int = Field(gt=0, le=DIM_MAX)
    qk_rope_head_dim: int = Field(gt=0, le=DIM_MAX)
    qk_nope_head_dim: int = Field(gt=0, le=DIM_MAX)
    v_head_dim: int = Field(gt=0, le=DIM_MAX)


class Linear(BaseModel):
    """One kind of linear layer: shape and how many copies the model holds."""

    name: str  # q k v o gate up down (plus MLA: q_a q_b kv_a kv_b); router is excluded from LoRA
    kind: Literal["attn", "mlp", "expert", "router"]
    d_in: int
    d_out: int
    copies: int

    @property
    def params(self) -> int:
        return self.d_in * self.d_out * self.copies


class ModelArch(BaseModel):
    """A transformer decoder's architecture as its config.json describes it."""

    id: str
    name: str
    hf_repo: str | None = None
    family: str = "generic"
    series: str | None = Field(
        default=None, description="the generation within a family ('qwen2.5'): a size it lacks is scaled from it"
    )
    released: str | None = None
    aliases: list[str] = Field(default_factory=list)
    ollama: list[str] = Field(
        default_factory=list, description="Ollama library tags for this model ('qwen2.5:7b'); their builds are Q4_K_M"
    )
    native_precision: str | None = Field(
        default=None, description="the format the publisher ships the weights in when not bf16 (fp8, mxfp4)"
    )
    official_builds: list[str] = Field(
        default_factory=list,
        description="other formats the publisher itself ships beside bf16 (Meta's Llama-3.1-405B-Instruct-FP8, "
        "made to fit one 8 x H100 server): the first way to try on cards with native FP8",
    )
    num_layers: int = Field(gt=0, le=1000)
    hidden_size: int = Field(gt=0, le=DIM_MAX)
    num_attention_heads: int = Field(gt=0, le=COUNT_MAX)
    num_key_value_heads: int = Field(gt=0, le=COUNT_MAX)
    head_dim: int = Field(gt=0, le=DIM_MAX)
    intermediate_size: int = Field(gt=0, le=DIM_MAX)
    vocab_size: int = Field(gt=0, le=100 * DIM_MAX)
    tie_word_embeddings: bool = False
    attention_bias: bool = False
    qk_norm: bool = False
    norms_per_layer: int = 2
    mlp: Literal["gated", "plain"] = "gated"
    sliding_window: int | None = Field(default=None, gt=0, le=1000 * DIM_MAX)
    sliding_window_layers: float = Field(default=0.0, ge=0, le=1)
    max_context: int | None = Field(default=None, gt=0, le=1000 * DIM_MAX)
    moe: MoE | None = None
    mla: MLA | None = None
    extra_params_b: float = Field(
        default=0.0, ge=0, le=COUNT_MAX, description="weights outside the decoder, e.g. a vision tower"
    )
    kv_layer_share: float = Field(
        default=1.0, gt=0, le=1, description="share of layers with a KV cache (hybrid linear-attention models)"
    )
    attention_free: bool = Field(
        default=False,
        description="a recurrent model (RWKV-5/6/7): no KV cache; each layer keeps a fixed state per sequence of one "
        "heads x head_dim x head_dim matrix plus two token-shift vectors, whatever the context length",
    )
    official_params_b: float | None = None
    official_active_params_b: float | None = None
    pretrain_tokens_b: float | None = Field(
        default=None,
        gt=0,
        description="tokens (billions) the published model, or its standard reproduction, was pretrained on: what "
        "reproducing it from scratch takes when the user states no token count (GPT-2 in nanoGPT: ~295B)",
    )
    notes: str | None = None
    sources: list[str] = Field(default_factory=list)
    generic: bool = Field(default=False, description="True when the architecture was synthesized from a size")
    # linears() and param_groups() are asked for thousands of times per recommendation: computed once
    # per instance, forgotten when a field is set or the model is copied (a copy may have another shape).
    _memo: dict[str, Any] = PrivateAttr(default_factory=dict)

    @model_validator(mode="after")
    def _check(self) -> ModelArch:
        if self.num_attention_heads % self.num_key_value_heads:
            raise ValueError(
                f"num_attention_heads ({self.num_attention_heads}) must be a multiple of "
                f"num_key_value_heads ({self.num_key_value_heads})"
            )
        if self.moe and self.moe.experts_per_token > self.moe.num_experts:
            raise ValueError("experts_per_token cannot exceed num_experts")
        return self

    # ---- structure -------------------------------------------------------------------------
    @property
    def moe_layers(self) -> int:
        if self.moe is None:
            return 0
        return (self.num_layers - self.moe.first_dense_layers) // self.moe.layer_step

    @property
    def dense_layers(self) -> int:
        return self.num_layers - self.moe_layers

    def _memoized(self, name: str, compute: Callable[[], Any]) -> Any:
        memo = self.__pydantic_private__["_memo"]  # direct: pydantic's private-attribute lookup is slow
        value = memo.get(name)
        if value is None:
            value = memo[name] = compute()
        return value

    def __setattr__(self, name: str, value: Any) -> None:
        super().__setattr__(name, value)
        if name in type(self).model_fields:
            self._memo = {}  # the shape changed

    def model_copy(self, *, update: dict[str, Any] | None = None, deep: bool = False) -> ModelArch:
        copied = super().model_copy(update=update, deep=deep)
        copied._memo = {}  # a copy may have another shape, and must not share this one's memo
        return copied

    def linears(self) -> list[Linear]:
        """Every linear layer kind in the decoder with its copy count."""
        return list(self._memoized("linears", self._linears))

    def _linears(self) -> list[Linear]:
        h, n_layers, n_heads = self.hidden_size, self.num_layers, self.num_attention_heads
        out: list[Linear] = []
        if self.mla:
            m = self.mla
            qk = m.qk_nope_head_dim + m.qk_rope_head_dim
            if m.q_lora_rank:
                out += [
                    Linear(name="q_a", kind="attn", d_in=h, d_out=m.q_lora_rank, copies=n_layers),
                    Linear(name="q_b", kind="attn", d_in=m.q_lora_rank, d_out=n_heads * qk, copies=n_layers),
                ]
            else:
                out.append(Linear(name="q", kind="attn", d_in=h, d_out=n_heads * qk, copies=n_layers))
            out += [
                Linear(name="kv_a", kind="attn", d_in=h, d_out=m.kv_lora_rank + m.qk_rope_head_dim, copies=n_layers),
                Linear(
                    name="kv_b",
                    kind="attn",
                    d_in=m.kv_lora_rank,
                    d_out=n_heads * (m.qk_nope_head_dim + m.v_head_dim),
                    copies=n_layers,
                ),
                Linear(name="o", kind="attn", d_in=n_heads * m.v_head_dim, d_out=h, copies=n_layers),
            ]
        else:
            q_dim, kv_dim = n_heads * self.head_dim, self.num_key_value_heads * self.head_dim
            out += [
                Linear(name="q", kind="attn", d_in=h, d_out=q_dim, copies=n_layers),
                Linear(name="k", kind="attn", d_in=h, d_out=kv_dim, copies=n_layers),
                Linear(name="v", kind="attn", d_in=h, d_out=kv_dim, copies=n_layers),
                Linear(name="o", kind="attn", d_in=q_dim, d_out=h, copies=n_layers),
            ]
        out += self._mlp("mlp", self.intermediate_size, self.dense_layers)
        if self.moe:
            moe = self.moe
            out += self._mlp("expert", moe.expert_intermediate_size, self.moe_layers * moe.num_experts)
            if moe.num_shared_experts:
                shared = moe.shared_intermediate_size or moe.expert_intermediate_size
                out += self._mlp("mlp", shared, self.moe_layers * moe.num_shared_experts)
            out.append(Linear(name="router", kind="router", d_in=h, d_out=moe.num_experts, copies=self.moe_layers))
        return [lin for lin in out if lin.copies]

    def _mlp(self, kind: Literal["mlp", "expert"], inter: int, copies: int) -> list[Linear]:
        h = self.hidden_size
        names = ["gate", "up"] if self.mlp == "gated" else ["up"]
        return [Linear(name=n, kind=kind, d_in=h, d_out=inter, copies=copies) for n in names] + [
            Linear(name="down", kind=kind, d_in=inter, d_out=h, copies=copies)
        ]

    def param_groups(self) -> dict[str, int]:
        """Parameter counts by tensor class, summed over layers (the basis for mixed quant formats)."""
        return dict(self._memoized("param_groups", self._param_groups))

    def _param_groups(self) -> dict[str, int]:
        groups: dict[str, int] = {}
        for lin in self.linears():
            key = f"{'ffn' if lin.kind in ('mlp', 'expert') else lin.kind}_{lin.name}"
            groups[key] = groups.get(key, 0) + lin.params
        h, n_layers = self.hidden_size, self.num_layers
        other = 0
        if self.attention_bias and not self.mla:
            other += n_layers * (self.num_attention_heads + 2 * self.num_key_value_heads) * self.head_dim
        if self.qk_norm:
            other += n_layers * 2 * self.head_dim
        if self.mla:
            other += n_layers * (self.mla.kv_lora_rank + (self.mla.q_lora_rank or 0))  # latent norms
        groups["attn_other"] = other
        groups["norms"] = n_layers * self.norms_per_layer * h + h
        groups["embed"] = self.vocab_size * h
        groups["lm_head"] = 0 if self.tie_word_embeddings else self.vocab_size * h
        groups["extra"] = round(self.extra_params_b * 1e9)
        if self.generic and self.official_params_b:
            # a generic shape only approximates the size asked for; the count the user gave wins
            factor = self.official_params_b * 1e9 / sum(groups.values())
            groups = {k: round(v * factor) for k, v in groups.items()}
        return groups

    @property
    def params(self) -> int:
        """Total parameters, all experts included."""
        return sum(self.param_groups().values())

    @property
    def routed_expert_params(self) -> int:
        return sum(lin.params for lin in self.linears() if lin.kind == "expert")

    @property
    def active_params(self) -> int:
        """Parameters used per token: the routed experts count only for the `experts_per_token` chosen."""
        if not self.moe:
            return self.params
        unused = 1 - self.moe.experts_per_token / self.moe.num_experts
        return self.params - round(self.routed_expert_params * unused)

    def lora_params(self, rank: int, targets: Literal["all", "attention"]) -> int:
        """Trainable LoRA parameters: rank x (d_in + d_out) per targeted linear copy."""
        kinds = {"attn"} if targets == "attention" else {"attn", "mlp", "expert"}
        return sum(rank * (lin.d_in + lin.d_out) * lin.copies for lin in self.linears() if lin.kind in kinds)

    # ---- KV cache ---------------------------------------------------------------------------
    def kv_values_per_token(self, context_tokens: int) -> float:
        """Cached values per token (all layers), averaged over a sequence of `context_tokens`.

        MLA caches the compressed latent plus the shared RoPE key; sliding-window layers keep at
        most `sliding_window` tokens, so their per-token share falls once the context exceeds it.
        """
        if self.attention_free:  # a fixed state per sequence, spread over the sequence's tokens
            return self.state_values_per_sequence / max(1, context_tokens)
        layers = self.num_layers * self.kv_layer_share  # linear-attention layers keep a fixed-size state instead
        if self.mla:
            return layers * (self.mla.kv_lora_rank + self.mla.qk_rope_head_dim)
        per_layer = 2 * self.num_key_value_heads * self.head_dim
        if self.sliding_window and context_tokens > self.sliding_window and self.sliding_window_layers:
            local = layers * self.sliding_window_layers
            global_ = layers - local
            kept = self.sliding_window / context_tokens
            return per_layer * (global_ + local * kept)
        return per_layer * layers

    @property
    def state_values_per_sequence(self) -> int:
        """Values of a recurrent model's state for one sequence (0 for a transformer): per layer the WKV matrix
        (heads x head_dim x head_dim) and the token-shift vectors of time mixing and channel mixing (2 x hidden)."""
        if not self.attention_free:
            return 0
        per_layer = self.num_attention_heads * self.head_dim * self.head_dim + 2 * self.hidden_size
        return self.num_layers * per_layer

    def summary(self) -> str:
        """One line: layers, attention, experts."""
        parts = [f"{self.num_layers} layers", f"hidden {self.hidden_size}"]
        if self.attention_free:
            parts.append(f"recurrent, {self.num_attention_heads} heads x {self.head_dim}, no KV cache")
        elif self.mla:
            parts.append(f"MLA (kv_lora_rank {self.mla.kv_lora_rank})")
        else:
            kind = "MHA" if self.num_key_value_heads == self.num_attention_heads else "GQA"
            parts.append(f"{kind} {self.num_attention_heads}/{self.num_key_value_heads} heads x {self.head_dim}")
        if self.moe:
            parts.append(f"MoE {self.moe.num_experts} experts, top-{self.moe.experts_per_token}")
        return ", ".join(parts)

    def summary_notes(self) -> list[Note]:
        """The same line as notes, for a sentence in the reader's language."""
        parts = [note("arch_layers", layers=self.num_layers, hidden=self.hidden_size)]
        if self.attention_free:
            parts.append(note("arch_recurrent", heads=self.num_attention_heads, head_dim=self.head_dim))
        elif self.mla:
            parts.append(note("arch_mla", rank=self.mla.kv_lora_rank))
        else:
            kind = "MHA" if self.num_key_value_heads == self.num_attention_heads else "GQA"
            heads, kv_heads = self.num_attention_heads, self.num_key_value_heads
            parts.append(note("arch_attention", kind=kind, heads=heads, kv_heads=kv_heads, head_dim=self.head_dim))
        if self.moe:
            parts.append(note("arch_moe", experts=self.moe.num_experts, top_k=self.moe.experts_per_token))
        return parts


# ---- registry ------------------------------------------------------------------------------------


MODELS_DIR = "models"  # knowledge/data/models/*.yaml: one file per publisher group


@cache
def registry() -> dict[str, ModelArch]:
    """All models of knowledge/data/models/*.yaml by id (files in name order, rows in file order)."""
    out: dict[str, ModelArch] = {}
    for name in data_files(MODELS_DIR, ".yaml"):
        for row in load_yaml(name)["models"]:
            if row["id"] in out:
                raise ValueError(f"model id {row['id']!r} is defined twice ({name})")
            out[row["id"]] = ModelArch(**row)
    return out


@cache
def _index() -> NameIndex:
    entries = []
    for arch in registry().values():
        keys = (arch.id, arch.name, *(arch.aliases), *([arch.hf_repo] if arch.hf_repo else []))
        rank = float((arch.released or "0").replace("-", ""))
        entries.append(Entry(id=arch.id, display=arch.name, keys=keys, rank=rank))
    return NameIndex("model", entries)


def resolve_model(name: str) -> tuple[ModelArch, str | None]:
    """Resolve a fuzzy model name ("llama3-70b", "Qwen/Qwen2.5-7B-Instruct", "qwen 7b")."""
    entry, note = _index().resolve(name)
    return registry()[entry.id], note


def suggest_models(name: str) -> list[str]:
    return _index().suggest(name)


# ---- HF config.json ------------------------------------------------------------------------------


def _first(cfg: dict, *keys: str, default=None):
    for key in keys:
        if cfg.get(key) is not None:
            return cfg[key]
    return default


def from_hf_config(cfg: dict, name: str = "custom") -> ModelArch:
    """Build an architecture from a Hugging Face config.json dict (Llama, Qwen, Mistral, Mixtral,
    Qwen-MoE, DeepSeek-V2/V3, Gemma, Phi-3, ChatGLM field spellings)."""
    try:
        return _from_hf_config(cfg, name)
    except KeyError as exc:  # e.g. kv_lora_rank (MLA) without the head dims that go with it
        raise AdvisorError(f"config.json lacks the field {exc} that its other fields need") from None
    except (TypeError, ValueError, OverflowError, ZeroDivisionError) as exc:
        if isinstance(exc, AdvisorError):
            raise
        raise AdvisorError(
            f"config.json has a field of the wrong type or an impossible value ({exc}) — sizes and counts "
            "must be positive whole numbers"
        ) from None


def _from_hf_config(cfg: dict, name: str) -> ModelArch:
    text_cfg = cfg.get("text_config")  # multimodal wrappers (Gemma 3, Llama 4)
    text_cfg = text_cfg if isinstance(text_cfg, dict) and text_cfg else cfg
    c = {**cfg, **text_cfg}
    try:
        hidden = int(_first(c, "hidden_size", "n_embd", "d_model"))
        heads = int(_first(c, "num_attention_heads", "n_head", "num_heads"))
        kv_heads = int(_first(c, "num_key_value_heads", "multi_query_group_num", "num_kv_heads", default=heads))
        if c.get("multi_query_attention") is False:
            kv_heads = heads
        layers = int(_first(c, "num_hidden_layers", "num_layers", "n_layer"))
        inter = int(_first(c, "intermediate_size", "ffn_hidden_size", "n_inner", default=4 * hidden))
        vocab = int(_first(c, "vocab_size", "padded_vocab_size"))
    except (TypeError, ValueError) as exc:
        raise AdvisorError(
            "config.json lacks a required field (hidden_size, num_attention_heads, num_hidden_layers, "
            "vocab_size): is this a decoder-only transformer config?"
        ) from exc
    moe = None
    n_experts = _first(c, "num_local_experts", "n_routed_experts", "num_experts")
    if n_experts and int(n_experts) > 1:
        moe = MoE(
            num_experts=int(n_experts),
            experts_per_token=int(_first(c, "num_experts_per_tok", "moe_topk", default=2)),
            expert_intermediate_size=int(_first(c, "moe_intermediate_size", default=inter)),
            num_shared_experts=int(_first(c, "n_shared_experts", default=0)),
            shared_intermediate_size=c.get("shared_expert_intermediate_size") or None,
            first_dense_layers=int(_first(c, "first_k_dense_replace", default=0)),
        )
        if c.get("shared_expert_intermediate_size") and not moe.num_shared_experts:
            moe.num_shared_experts = 1  # Qwen2-MoE spells a single shared expert by its size
    mla = None
    if c.get("kv_lora_rank"):
        mla = MLA(
            q_lora_rank=c.get("q_lora_rank"),
            kv_lora_rank=int(c["kv_lora_rank"]),
            qk_rope_head_dim=int(c["qk_rope_head_dim"]),
            qk_nope_head_dim=int(c["qk_nope_head_dim"]),
            v_head_dim=int(c["v_head_dim"]),
        )
    window = c.get("sliding_window") if c.get("use_sliding_window", True) else None
    window_share = 0.0
    if window:
        if c.get("sliding_window_pattern"):
            pattern = int(c["sliding_window_pattern"])
            window_share = (pattern - 1) / pattern
        elif c.get("layer_types"):
            kinds = c["layer_types"]
            window_share = sum(1 for k in kinds if "sliding" in str(k)) / max(1, len(kinds))
        elif str(c.get("model_type", "")).startswith("gemma2"):
            window_share = 0.5
        else:
            window_share = 1.0
    model_type = str(c.get("model_type", ""))
    try:
        return ModelArch(
            id=name,
            name=name,
            family=model_type or "custom",
            num_layers=layers,
            hidden_size=hidden,
            num_attention_heads=heads,
            num_key_value_heads=kv_heads,
            head_dim=int(_first(c, "head_dim", "kv_channels", default=hidden // heads)),
            intermediate_size=inter,
            vocab_size=vocab,
            tie_word_embeddings=bool(c.get("tie_word_embeddings", False)),
            attention_bias=bool(
                _first(c, "attention_bias", "add_qkv_bias", "qkv_bias", default=model_type in ("qwen2", "qwen2_moe"))
            ),
            qk_norm=model_type.startswith(("qwen3", "gemma3")),
            norms_per_layer=4 if model_type.startswith(("gemma2", "gemma3")) else 2,
            mlp="plain"
            if str(c.get("hidden_act", "silu")).startswith(("gelu_new", "relu")) and "gate" not in json.dumps(c)
            else "gated",
            sliding_window=window,
            sliding_window_layers=window_share,
            max_context=_first(c, "max_position_embeddings", "seq_length", "n_positions"),
            moe=moe,
            mla=mla,
            sources=["user-supplied config.json"],
        )
    except ValidationError as exc:
        raise AdvisorError(f"config.json describes an impossible architecture: {exc.errors()[0]['msg']}") from exc


MAX_USER_FILE_BYTES = 10_000_000  # config.json and prices.yaml are kilobytes; refuse to slurp anything huge


def user_file(path: str | Path, what: str, hint: str) -> Path:
    """A readable regular file the user named, or an AdvisorError saying why not (bad ~user, too long, too big)."""
    try:
        p = Path(path).expanduser()
        size = p.stat().st_size if p.is_file() else None
    except (OSError, RuntimeError, ValueError):  # unknown ~user, name too long, NUL byte, no permission
        size = None
    if size is None:
        raise AdvisorError(f"{what} '{path}' does not exist ({hint})")
    if size > MAX_USER_FILE_BYTES:
        raise AdvisorError(f"{what} '{path}' is {size / 1e6:.0f} MB — too big to be a {what} ({hint})")
    return p


def load_config_file(path: str | Path) -> ModelArch:
    """Read a local config.json; errors say what is wrong with the file."""
    p = user_file(path, "config file", "give the path to a model's config.json")
    try:
        cfg = json.loads(p.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise AdvisorError(f"config file '{path}' is not valid JSON: {exc}") from exc
    except OSError as exc:
        raise AdvisorError(f"cannot read config file '{path}': {exc.strerror or exc}") from None
    if not isinstance(cfg, dict):
        raise AdvisorError(f"config file '{path}' must hold a JSON object")
    return from_hf_config(cfg, name=p.parent.name or p.stem)


# ---- generic architecture from a size -------------------------------------------------------------


def generic_arch(params_b: float) -> ModelArch:
    """A Llama-3-style dense GQA architecture scaled to `params_b` billion parameters.

    Shape rules (from the Llama-3 / Qwen2.5 families): head_dim 128, 8 KV heads, gated MLP with
    intermediate = 3.5 x hidden, vocab 128,256, untied embeddings; layers and hidden width are
    chosen so the count matches the requested size.
    """
    if not (params_b >= 0.001) or math.isinf(params_b):  # below 1M parameters the shape rounds to nothing
        raise AdvisorError("params_b must be a finite number of billions of parameters, at least 0.001 (1M)")
    target = params_b * 1e9
    vocab = 128_256
    # (billions, hidden) anchors from Llama-3.2-1B/3B, Llama-3-8B, Qwen2.5-14B, Llama-1-33B, Llama-3-70B, -405B
    anchors = [(1.0, 2048), (3.0, 3072), (8.0, 4096), (14.0, 5120), (32.0, 6656), (70.0, 8192), (405.0, 16384)]
    log_b = math.log(max(params_b, 0.05))
    xs = [math.log(b) for b, _ in anchors]
    if log_b <= xs[0]:
        hidden_f = anchors[0][1] * (params_b / anchors[0][0]) ** 0.5
    elif log_b >= xs[-1]:
        hidden_f = anchors[-1][1] * (params_b / anchors[-1][0]) ** 0.4
    else:
        i = next(k for k in range(1, len(xs)) if log_b <= xs[k])
        t = (log_b - xs[i - 1]) / (xs[i] - xs[i - 1])
        hidden_f = anchors[i - 1][1] + t * (anchors[i][1] - anchors[i - 1][1])
    step = 1024 if hidden_f >= 2048 else 256  # multiples of 1024 keep 8 KV heads of 128 dims possible
    hidden = max(256, int(round(hidden_f / step) * step))
    heads = max(2, hidden // 128)
    kv = 8 if heads % 8 == 0 else heads
    inter = int(round(3.5 * hidden / 256) * 256)
    small_vocab = 2 * vocab * hidden > 0.3 * target  # tiny models: a 128k vocab would dwarf the decoder
    vocab = 32_000 if small_vocab else vocab
    per_layer = 2 * hidden * hidden + 2 * hidden * kv * 128 + 3 * hidden * inter + 2 * hidden
    layers = max(1, min(400, round((target - 2 * vocab * hidden - hidden) / per_layer)))
    return ModelArch(
        id=f"generic-{params_b:g}b",
        name=f"Generic-{params_b:g}B",  # a name, not a phrase: answers in either language show it as is
        num_layers=layers,
        hidden_size=hidden,
        num_attention_heads=heads,
        num_key_value_heads=kv,
        head_dim=128,
        intermediate_size=inter,
        vocab_size=vocab,
        generic=True,
        official_params_b=params_b,
        sources=["generic Llama-3-style shape (tools/models.py generic_arch)"],
    )
