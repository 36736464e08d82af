"""Published reference figures: every estimate is within tolerance or its gap is explained in writing."""

import pytest

from evals.references import REFERENCES, check, run, summary, tolerance


@pytest.fixture(scope="module")
def checks():
    return run(REFERENCES)


def test_enough_references_of_each_kind(checks):
    assert len(checks) >= 20
    kinds = {c.kind for c in checks}
    assert {"kv_cache", "weights", "vram_inference", "vram_training", "decode_speed"} <= kinds
    assert sum(c.kind.startswith("vram") or c.kind in ("kv_cache", "weights") for c in checks) >= 10


def test_every_reference_runs_and_is_within_tolerance_or_explained(checks):
    bad = [f"{c.id}: {c.status} {c.error or c.relative_error}" for c in checks if c.status in ("fail", "error")]
    assert not bad, "\n".join(bad)


def test_most_references_pass_outright(checks):
    passed = sum(c.status == "pass" for c in checks)
    assert passed / len(checks) >= 0.8
    for kind, row in summary(checks).items():
        assert row["pass"] >= row["n"] // 2, kind


def test_tolerances_follow_the_issue():
    assert tolerance("vram_inference") == ("relative", 0.10)
    assert tolerance("vram_training") == ("relative", 0.20)
    assert tolerance("decode_speed") == ("factor", 1.5)


def test_training_memory_median_error_is_within_8_percent(checks):
    assert summary(checks)["vram_training"]["median_abs_error"] <= 0.08


def test_an_upper_bound_holds_only_at_or_below_the_published_figure():
    entry = {
        "id": "bound",
        "kind": "vram_training",
        "title": "fits",
        "tool": "estimate_vram",
        "request": {"params_b": 1, "context_tokens": 1, "overhead_gib": 0},
        "metric": "total_gib",
        "unit": "GiB",
        "source": "test",
        "published_is": "upper_bound",
    }
    estimate = check(entry | {"published": 1.0}).estimate
    assert check(entry | {"published": estimate * 1.01}).status == "pass"
    assert check(entry | {"published": estimate / 1.05}).status == "fail"  # no tolerance above a bound
