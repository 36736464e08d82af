"""Property tests: memory grows with parameters, context, batch and bits, and is never negative."""

from hypothesis import given, settings
from hypothesis import strategies as st

from tools.vram import VramRequest, estimate_vram

PRECISIONS_BY_BITS = ["q2_k", "q3_k_m", "q4_k_m", "q5_k_m", "q6_k", "q8_0", "bf16", "fp32"]
MODES = st.sampled_from(["inference", "full", "lora", "qlora"])


def total(**kw) -> float:
    return estimate_vram(VramRequest(**kw)).total_gib


FAMILY_LADDERS = [
    ["qwen2.5-0.5b", "qwen2.5-1.5b", "qwen2.5-3b", "qwen2.5-7b", "qwen2.5-14b", "qwen2.5-32b", "qwen2.5-72b"],
    ["llama-3.2-1b", "llama-3.2-3b", "llama-3.1-8b", "llama-3.1-70b", "llama-3.1-405b"],
    ["qwen3-0.6b", "qwen3-1.7b", "qwen3-4b", "qwen3-8b", "qwen3-14b", "qwen3-32b"],
]


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(FAMILY_LADDERS), MODES, st.integers(1, 32_768), st.integers(1, 8))
def test_bigger_model_of_a_family_needs_more(ladder, mode, context, batch):
    totals = [total(model=m, mode=mode, context_tokens=context, batch=batch) for m in ladder]
    assert totals == sorted(totals)


@settings(max_examples=40, deadline=None)
@given(st.floats(0.2, 500), st.floats(1.01, 3), MODES)
def test_more_parameters_more_model_state(params, factor, mode):
    """For a bare size, weights and training states grow with it (the generic shape changes in steps, so
    activations of two generic shapes need not be ordered)."""

    def states(p: float) -> float:
        r = estimate_vram(VramRequest(params_b=p, mode=mode, context_tokens=1))
        return sum(r.breakdown_gib[k] for k in ("weights", "gradients", "optimizer", "adapters"))

    assert states(params * factor) >= states(params)
    if mode == "inference":
        assert total(params_b=params * factor) >= total(params_b=params)


@settings(max_examples=40, deadline=None)
@given(
    st.sampled_from(["llama-3.1-8b", "qwen2.5-72b", "mixtral-8x7b", "deepseek-v3", "gemma-2-9b"]),
    st.integers(1, 200_000),
    st.integers(1, 4),
    MODES,
)
def test_more_context_more_memory(model, context, factor, mode):
    assert total(model=model, context_tokens=context * factor, mode=mode) >= total(
        model=model, context_tokens=context, mode=mode
    )


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 512), st.integers(1, 8), MODES)
def test_more_batch_more_memory(batch, extra, mode):
    assert total(model="qwen2.5-7b", batch=batch + extra, mode=mode) >= total(
        model="qwen2.5-7b", batch=batch, mode=mode
    )


@settings(max_examples=20, deadline=None)
@given(st.sampled_from(["llama-3.1-8b", "qwen2.5-0.5b", "mixtral-8x7b", "phi-4"]), st.integers(1, 32_768))
def test_more_bits_more_memory(model, context):
    totals = [total(model=model, precision=p, context_tokens=context) for p in PRECISIONS_BY_BITS]
    assert totals == sorted(totals)


@settings(max_examples=60, deadline=None)
@given(
    st.floats(0.05, 2000),
    MODES,
    st.integers(1, 1_000_000),
    st.integers(1, 64),
    st.sampled_from([1, 2, 4, 8]),
    st.sampled_from([0, 1, 2, 3]),
)
def test_never_negative(params, mode, context, batch, gpus, zero):
    r = estimate_vram(
        VramRequest(params_b=params, mode=mode, context_tokens=context, batch=batch, num_gpus=gpus, zero_stage=zero)
    )
    assert r.total_gib > 0 and r.per_gpu_gib > 0
    assert all(v >= 0 for v in r.breakdown_gib.values())
