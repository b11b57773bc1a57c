"""Statistics over replications (afsim/stats.py), shared by sweeps and reproductions."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from afsim import reproduce
from afsim.stats import Stat, aggregate, natural_key, t_quantile


def test_the_reproductions_use_this_module() -> None:
    assert reproduce.Stat is Stat and reproduce.t_quantile is t_quantile


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
