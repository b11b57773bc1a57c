"""Statistics over replications (afsim/stats.py), shared by sweeps and reproductions."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pandas as pd
import pytest

from afsim.stats import Stat, aggregate, fieb, jain, natural_key, t_quantile

GOLDEN = sorted((Path(__file__).parent / "golden").glob("*.json"))


def test_a_reproduction_aggregates_its_replications_as_a_sweep_does() -> None:
    from afsim.reproduce import core

    e = core.Experiment("e", "e", Path("x.toml"), (core.Point({"rate": "2Mbps"}, {}),),
                        core.prob)  # the metrics function is not called here
    values = [10.0, 12.0, 17.0]
    outcomes = [core.Outcome({"thr": v}, 1.0, "duration", 0.1, 1, 1, 1, 1) for v in values]
    agg = core.aggregate([e], [("e", 0, s, s) for s in range(3)], outcomes)
    mine = agg.stat("e", {"rate": "2Mbps"}, "thr")
    theirs = aggregate(pd.DataFrame({"rate": ["2Mbps"] * 3, "thr": values}), ["rate"], ["thr"])
    assert mine is not None
    assert mine.mean == theirs["thr.mean"].iloc[0] == 13.0
    assert mine.ci95 == pytest.approx(theirs["thr.ci95"].iloc[0])
    assert mine.ci95 == pytest.approx(t_quantile(0.975, 2) * mine.std / math.sqrt(3))


def test_jain_and_fieb_are_the_cores_on_every_golden_report() -> None:
    checked = 0
    for path in GOLDEN:
        report = json.loads(path.read_text(encoding="utf-8"))
        for g in report["groups"]:
            flows = [f for f in report["flows"] if f["group"] == g["name"]]
            thr = [f["throughput_kbps"] for f in flows]
            if g["jain"] is not None:
                assert jain(thr) == pytest.approx(g["jain"], rel=1e-12), (path.name, g["name"])
                checked += 1
            if g["fieb"] is not None:
                assert fieb(thr, [f["contract_kbps"] for f in flows]) == pytest.approx(
                    g["fieb"], rel=1e-12), (path.name, g["name"])
                checked += 1
    assert checked >= 10
    assert math.isnan(jain([])) and math.isnan(jain([0.0, 0.0])) and jain([5.0, 0, 0, 0]) == 0.25
    xs = [0.1 * k + 1e-9 * k * k for k in range(1, 40)]
    assert jain(xs, exact_sums=True) == pytest.approx(jain(xs), rel=1e-14)
    assert jain(xs, exact_sums=True) == math.fsum(xs) ** 2 / (len(xs) * math.fsum(x * x for x in xs))


def test_a_stat_has_the_sample_sd_and_the_student_t_interval() -> None:
    s = Stat.of([1.0, 2.0, 3.0, float("nan"), None])
    assert (s.n, s.mean, s.std) == (3, 2.0, 1.0)
    assert s.ci95 == pytest.approx(4.302653 / math.sqrt(3), rel=1e-6)  # t(0.975, 2)
    assert (s.low, s.high) == pytest.approx((2.0 - s.ci95, 2.0 + s.ci95))
    one = Stat.of([5.0])
    assert one.n == 1 and math.isnan(one.ci95) and (one.low, one.high) == (5.0, 5.0)


def test_aggregate_gives_one_row_per_point_in_natural_order() -> None:
    runs = pd.DataFrame({"rate": ["10Mbps", "2Mbps", "10Mbps", "2Mbps"],
                         "thr": [10.0, 2.0, 12.0, 4.0]})
    points = aggregate(runs, ["rate"], ["thr", "absent"])
    assert list(points["rate"]) == ["2Mbps", "10Mbps"]
    assert list(points["thr.mean"]) == [3.0, 11.0]
    assert list(points["runs"]) == [2, 2]
    assert points["thr.ci95"].iloc[0] == pytest.approx(12.706205 * math.sqrt(2) / math.sqrt(2))
    assert (points["absent.n"] == 0).all()


def test_natural_order_puts_numbers_in_numeric_order() -> None:
    assert sorted(["10Mbps", "2Mbps", "1.5Mbps"], key=natural_key) == ["1.5Mbps", "2Mbps",
                                                                       "10Mbps"]
    assert sorted([10, 2.5, 3], key=natural_key) == [2.5, 3, 10]
