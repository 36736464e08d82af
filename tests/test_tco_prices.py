"""Cloud prices and the buy-versus-rent calculator, checked by hand."""

import statistics

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from tools.catalog import resolve_gpu
from tools.errors import AdvisorError
from tools.prices import PriceBook, PriceRow, bundled_prices, load_prices, used_purchase_price
from tools.tco import TcoRequest, calculate_tco


def test_price_rows_are_dated_and_sourced():
    book = bundled_prices()
    assert len(book.rows) >= 40
    for row in book.rows:
        assert row.date and row.source
        assert any(row.price(k) is not None for k in ("on_demand", "spot", "reserved_1y", "reserved_3y"))
        resolve_gpu(row.gpu)  # every priced GPU is in the catalog


def test_currency_conversion_round_trips():
    book = load_prices(cny_per_usd=7.2)
    assert book.convert(100, "USD", "CNY") == pytest.approx(720)
    assert book.convert(720, "CNY", "USD") == pytest.approx(100)


def test_user_price_file_overrides_rows(tmp_path):
    path = tmp_path / "prices.yaml"
    path.write_text(
        yaml.safe_dump(
            {
                "exchange_rate": {"cny_per_usd": 7.5},
                "prices": [
                    {
                        "gpu": "RTX 4090",
                        "provider": "MyCloud",
                        "offering": "4090x1",
                        "region": "cn",
                        "on_demand_per_gpu_hour": 1.5,
                        "currency": "CNY",
                        "date": "2026-11-30",
                        "source": "our contract",
                    }
                ],
            }
        )
    )
    book = load_prices(str(path))
    assert book.cny_per_usd == 7.5
    assert any(r.provider == "MyCloud" for r in book.rows_for(resolve_gpu("4090")[0]))
    with pytest.raises(AdvisorError, match="does not exist"):
        load_prices(str(tmp_path / "missing.yaml"))


def test_tco_arithmetic_by_hand():
    r = calculate_tco(
        TcoRequest(
            gpu="RTX 4090",
            num_gpus=2,
            horizon_years=2,
            utilization=0.5,
            currency="USD",
            gpu_price=2000,
            host_cost=1000,
            electricity_price_per_kwh=0.2,
            pue=1.0,
            average_load_share=0.8,
            maintenance_per_year_share=0.05,
            resale_share=0.5,
            cloud_price_per_gpu_hour=0.5,
        )
    )
    assert r.upfront == 5000
    busy, idle_h = 365, 365
    busy_kw = 2 * 450 * 0.8 / 1000
    idle_kw = 2 * 450 * 0.1 / 1000
    host_kw = 0.15 + 0.05 * 2
    kwh = (busy_kw + host_kw) * busy + (idle_kw + host_kw * 0.5) * idle_h
    assert r.power_monthly == pytest.approx(kwh * 0.2, abs=0.01)
    assert r.maintenance_monthly == pytest.approx(5000 * 0.05 / 12, abs=0.01)
    assert r.resale_value == 2000
    assert r.buy_total == pytest.approx(5000 + 24 * (r.power_monthly + r.maintenance_monthly) - 2000, abs=1)
    od = next(o for o in r.rent if o.kind == "on_demand")
    assert od.monthly == pytest.approx(0.5 * 2 * 365)
    assert od.total == pytest.approx(0.5 * 2 * 365 * 24)
    # at the break-even usage, owning and renting cost the same over the horizon
    be = od.break_even_hours_per_month
    # (the host draws power too, busy and idle: the break-even uses the same bill as the totals)
    idle_all, busy_all = idle_kw + host_kw * 0.5, busy_kw + host_kw
    fixed = 5000 - 2000 + r.maintenance_monthly * 24 + idle_all * 0.2 * 730 * 24
    assert be == pytest.approx(fixed / (24 * (0.5 * 2 - (busy_all - idle_all) * 0.2)), rel=1e-3)
    assert len(r.cumulative_buy) == 25 and r.cumulative_buy[0] == 5000


def test_cost_per_million_tokens():
    r = calculate_tco(
        TcoRequest(
            gpu="H100 SXM",
            num_gpus=1,
            currency="USD",
            gpu_price=30000,
            cloud_price_per_gpu_hour=3.0,
            utilization=1.0,
            throughput_tokens_per_s=1000,
        )
    )
    od = next(o for o in r.rent if o.kind == "on_demand")
    assert od.cost_per_million_tokens == pytest.approx(3.0 / 3.6, rel=1e-3)  # $3/h over 3.6M tokens/h
    assert r.buy_cost_per_million_tokens > 0


def test_heavy_use_favours_buying_light_use_renting():
    heavy = calculate_tco(TcoRequest(gpu="RTX 4090", num_gpus=1, utilization=1.0, horizon_years=3))
    light = calculate_tco(TcoRequest(gpu="RTX 4090", num_gpus=1, utilization=0.05, horizon_years=3))
    assert heavy.cheapest == "buy"
    assert light.cheapest.startswith("rent")


def test_renting_another_card_prices_that_card():
    """A DGX Spark (no rental on record) bought against renting an H100: the H100's rate, the Spark's costs."""
    alone = calculate_tco(TcoRequest(gpu="dgx-spark", currency="USD", gpu_price=4000))
    assert alone.rent == [] and alone.rent_gpu is None
    other = calculate_tco(TcoRequest(gpu="dgx-spark", currency="USD", gpu_price=4000, rent_gpu="H100 SXM"))
    h100 = calculate_tco(TcoRequest(gpu="H100 SXM", currency="USD", gpu_price=30000))
    od, h100_od = (next(o for o in r.rent if o.kind == "on_demand") for r in (other, h100))
    assert od.price_per_gpu_hour == h100_od.price_per_gpu_hour  # the rented card's rate
    assert other.rent_gpu == h100.gpu and other.rent_num_gpus == 1
    assert other.buy_total == alone.buy_total  # owning is the Spark's, unchanged
    # 2 rented cards against 1 bought: twice the rent an hour
    two = calculate_tco(
        TcoRequest(gpu="dgx-spark", currency="USD", gpu_price=4000, rent_gpu="H100 SXM", rent_num_gpus=2)
    )
    assert next(o for o in two.rent if o.kind == "on_demand").monthly == pytest.approx(2 * od.monthly, rel=1e-3)


def test_missing_price_is_a_clear_error():
    with pytest.raises(AdvisorError, match="pass gpu_price"):
        calculate_tco(TcoRequest(gpu="A800 80GB SXM"))


def test_cny_and_usd_agree_through_the_exchange_rate():
    usd = calculate_tco(TcoRequest(gpu="L40S", currency="USD", cny_per_usd=7.0, electricity_price_per_kwh=0.1))
    cny = calculate_tco(TcoRequest(gpu="L40S", currency="CNY", cny_per_usd=7.0, electricity_price_per_kwh=0.7))
    assert cny.rent[0].total == pytest.approx(usd.rent[0].total * 7.0, rel=1e-3)


# ---------------------------------------------------------------- China market rows


def test_cn_rows_are_cny_dated_sourced_and_in_the_catalog():
    cn = [r for r in bundled_prices().rows if r.market == "cn"]
    assert len({r.provider for r in cn if r.on_demand_per_gpu_hour}) >= 3  # at least three Chinese clouds
    for row in cn:
        assert row.currency == "CNY"
        assert row.date and row.source
        resolve_gpu(row.gpu)
    covered = {resolve_gpu(r.gpu)[0].id for r in cn}
    assert {"rtx-4090", "rtx-3090", "a10", "t4", "l20"} <= covered
    assert all(r.market == "global" for r in bundled_prices().rows if r.currency == "USD")


def test_typical_with_market_cn_uses_cn_rows():
    book = bundled_prices()
    gpu = resolve_gpu("RTX 4090")[0]
    price, rows = book.typical(gpu, "on_demand", "CNY", market="cn")
    assert rows and all(r.market == "cn" for r in rows)
    cn_od = [r.on_demand_per_gpu_hour for r in book.rows_for(gpu) if r.market == "cn" and r.on_demand_per_gpu_hour]
    assert price == pytest.approx(statistics.median(cn_od))
    everything, all_rows = book.typical(gpu, "on_demand", "CNY")
    assert len(all_rows) > len(rows)
    assert price < everything  # Chinese platforms rent RTX-class cards for less


def test_typical_market_falls_back_to_all_rows():
    book = bundled_prices()
    h100 = resolve_gpu("H100 SXM")[0]  # no cn rows
    assert book.typical(h100, "on_demand", "USD", market="cn") == book.typical(h100, "on_demand", "USD")
    h800 = resolve_gpu("H800")[0]  # a cn lease row but no on-demand price anywhere
    assert book.typical(h800, "on_demand", "CNY", market="cn") == book.typical(h800, "on_demand", "CNY")


def test_typical_market_median_by_hand():
    def row(provider: str, price: float, market: str, currency: str = "CNY") -> PriceRow:
        return PriceRow(
            gpu="RTX 4090",
            provider=provider,
            offering="x1",
            on_demand_per_gpu_hour=price,
            currency=currency,
            date="2026-10-01",
            source="test",
            market=market,
        )

    book = PriceBook(cny_per_usd=7.0, rows=[row("A", 1.0, "cn"), row("B", 3.0, "cn"), row("C", 1.0, "global", "USD")])
    gpu = resolve_gpu("RTX 4090")[0]
    assert book.typical(gpu, "on_demand", "CNY", market="cn")[0] == pytest.approx(2.0)
    assert book.typical(gpu, "on_demand", "CNY", market="global")[0] == pytest.approx(7.0)
    assert book.typical(gpu, "on_demand", "CNY")[0] == pytest.approx(3.0)  # median of 1, 3, 7


def test_market_defaults_to_global_for_user_files(tmp_path):
    path = tmp_path / "prices.yaml"
    path.write_text(
        yaml.safe_dump(
            {
                "prices": [
                    {
                        "gpu": "RTX 4090",
                        "provider": "MyCloud",
                        "offering": "x1",
                        "on_demand_per_gpu_hour": 0.5,
                        "date": "2026-11-30",
                        "source": "our contract",
                    }
                ]
            }
        )
    )
    mine = next(r for r in load_prices(str(path)).rows if r.provider == "MyCloud")
    assert mine.market == "global"


def test_used_price_is_reported_as_indicative():
    book = bundled_prices()
    price, basis = used_purchase_price(resolve_gpu("RTX 3090")[0], "CNY", book)
    assert price == pytest.approx(5250) and "indicative" in basis and "2026-05-06" in basis
    usd, _ = used_purchase_price(resolve_gpu("RTX 3090")[0], "USD", book)
    assert usd == pytest.approx(5250 / book.cny_per_usd)
    assert used_purchase_price(resolve_gpu("H100 SXM")[0], "USD", book) is None


@settings(max_examples=60, deadline=None)
@given(
    st.sampled_from(["RTX 4090", "A100 80G", "H100", "L40S", "RTX 3090", "RTX A6000", "L4"]),
    st.sampled_from(["USD", "CNY"]),
    st.floats(0.02, 1.0),
    st.sampled_from([0.5, 1, 2, 3, 5]),
)
def test_break_even_agrees_with_the_totals(gpu, currency, utilization, years):
    """Above the break-even hours buying must cost less than renting, below it more: the same formulas."""
    r = calculate_tco(TcoRequest(gpu=gpu, currency=currency, utilization=utilization, horizon_years=years))
    for option in r.rent:
        if abs(r.buy_total - option.total) < 0.05 or option.break_even_hours_per_month is None:
            continue
        assert (r.buy_total < option.total) == (r.busy_hours_per_month > option.break_even_hours_per_month), option
