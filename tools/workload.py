"""What every estimator needs first: which model (by name, config.json, inline config or size)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field, model_validator

from tools.models import ModelArch, from_hf_config, generic_arch, load_config_file, resolve_model


class ModelRef(BaseModel):
    """Exactly one way of naming the model."""

    model: str | None = Field(default=None, description="Model name, fuzzy: 'llama3-70b', 'Qwen/Qwen2.5-7B-Instruct'")
    params_b: float | None = Field(
        default=None, gt=0, le=20000, description="Parameter count in billions, when the model is not in the registry"
    )
    config_path: str | None = Field(default=None, description="Path to a local Hugging Face config.json")
    arch: dict[str, Any] | None = Field(default=None, description="Architecture fields as in a config.json")

    @model_validator(mode="after")
    def _one_source(self) -> ModelRef:
        given = [k for k in ("model", "params_b", "config_path", "arch") if getattr(self, k) not in (None, "", {})]
        if len(given) != 1:
            raise ValueError(
                "give exactly one of model (a name), params_b (billions of parameters), config_path or arch"
                + (f"; got {', '.join(given)}" if given else "")
            )
        return self

    def resolve(self) -> tuple[ModelArch, list[str]]:
        """Return the architecture and assumption lines that say how it was obtained."""
        notes: list[str] = []
        if self.model:
            arch, note = resolve_model(self.model)
            if note:
                notes.append(note)
        elif self.config_path:
            arch = load_config_file(self.config_path)
            notes.append(f"architecture read from {self.config_path}")
        elif self.arch:
            arch = from_hf_config(self.arch, name=str(self.arch.get("name", "custom")))
            if self.arch.get("mlp") in ("gated", "plain"):
                arch = arch.model_copy(update={"mlp": self.arch["mlp"]})
            notes.append("architecture given inline")
        else:
            assert self.params_b is not None
            arch = generic_arch(self.params_b)
            notes.append(
                f"no model named: generic {self.params_b:g}B dense decoder assumed "
                f"({arch.summary()}, vocab {arch.vocab_size:,}); a real model's layout changes KV cache and "
                "activation sizes — name the model for an exact figure"
            )
            return arch, notes
        official = f"; official {arch.official_params_b:g}B" if arch.official_params_b else ""
        notes.append(
            f"{arch.name}: {arch.summary()}; {arch.params / 1e9:.2f}B parameters computed from the "
            f"architecture{official}"
        )
        if arch.moe:
            notes.append(
                f"MoE: all {arch.params / 1e9:.1f}B parameters stay resident; "
                f"{arch.active_params / 1e9:.1f}B are active per token"
            )
        return arch, notes
