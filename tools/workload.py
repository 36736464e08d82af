"""What every estimator needs first: which model (by name, config.json, inline config or size)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field, model_validator

from tools.model_match import match_model
from tools.models import ModelArch, from_hf_config, generic_arch, load_config_file
from tools.notes import Note, note


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

    def resolve(self) -> tuple[ModelArch, list[Note]]:
        """Return the architecture and assumption notes that say how it was obtained."""
        notes: list[Note] = []
        if self.model:
            match = match_model(self.model)
            arch = match.arch
            notes += match.name_notes()
        elif self.config_path:
            arch = load_config_file(self.config_path)
            notes.append(note("arch_config_file", path=self.config_path))
        elif self.arch:
            arch = from_hf_config(self.arch, name=str(self.arch.get("name", "custom")))
            if self.arch.get("mlp") in ("gated", "plain"):
                arch = arch.model_copy(update={"mlp": self.arch["mlp"]})
            notes.append(note("arch_inline"))
        else:
            assert self.params_b is not None
            arch = generic_arch(self.params_b)
            notes.append(
                note("arch_generic", params_b=self.params_b, summary=arch.summary_notes(), vocab=arch.vocab_size)
            )
            return arch, notes
        computed = dict(model=arch.name, summary=arch.summary_notes(), params=arch.params / 1e9)
        if arch.official_params_b:
            notes.append(note("arch_computed_official", **computed, official=arch.official_params_b))
        else:
            notes.append(note("arch_computed", **computed))
        if arch.moe:
            notes.append(note("arch_moe_resident", total=arch.params / 1e9, active=arch.active_params / 1e9))
        return arch, notes

    def weight_format(self, mode: str, native: bool = True) -> tuple[str | None, list[Note]]:
        """The weight format the model's name or publisher fixes when a request names none: "-AWQ", an Ollama
        tag's default build, DeepSeek-V3's FP8 weights. Only inference runs in it (fine-tuning starts from
        16-bit weights; QLoRA keeps a 4-bit integer base the name names). `native` False: only a format the
        name itself carries (fit_on_gpu searches the formats for the best that fits otherwise)."""
        if not self.model:
            return None, []
        match = match_model(self.model)
        if match.precision is None or (match.precision_how == "native" and not native):
            return None, []
        from tools.precision import resolve_precision

        kind = resolve_precision(match.precision).kind
        if mode == "inference" or (mode == "qlora" and kind == "int"):
            return match.precision, match.format_notes()
        return None, []
