"""`afsim bench --scale` (afsim/bench_scale.py): one run at many flows (issue 28)."""

from __future__ import annotations

import json

import pytest
from conftest import afsim_cmd

import afsim
from afsim import bench_scale


def test_overrides_start_the_flows_within_a_second_and_size_the_tree() -> None:
    o = bench_scale.overrides("tcp-dumbbell", 1000, 20.0)
    assert o == {"flows": "1000", "start_step": "1000000ns", "duration": "20000ms"}
    t = bench_scale.overrides("tcp-tree", 100_000, 20.0)
    assert (t["access"], t["agg"]) == ("2000", "100")
    s = afsim.load_scenario(afsim.builtin_scenario("scale/tcp-tree"),
                            overrides=bench_scale.overrides("tcp-tree", 1000, 1.0))
    # 1000 hosts a side, 20 access and 1 aggregation routers a side, r1 and r2
    assert s.n_nodes == 2 * (1000 + 20 + 1) + 2
    assert s.n_links == s.n_nodes - 1


def test_the_slope_is_kib_per_flow() -> None:
    rows = [{"flows": 1000, "peak_rss_mib": 10.0}, {"flows": 3000, "peak_rss_mib": 14.0}]
    assert bench_scale.slope_kib_per_flow(rows) == pytest.approx(4 * 1024 / 2000)
    assert bench_scale.slope_kib_per_flow(rows[:1]) is None


def test_bench_scale_json_has_a_row_per_scenario_and_flow_count() -> None:
    p = afsim_cmd("bench", "--scale", "--flows", "20,40", "--format", "json", timeout=600)
    assert p.returncode == 0, p.stderr
    report = json.loads(p.stdout)
    got = [(r["name"], r["flows"]) for r in report["rows"]]
    assert got == [(n, f) for n in bench_scale.SCENARIOS for f in (20, 40)]
    for r in report["rows"]:
        assert r["packet_hops"] > 0 and r["peak_rss_mib"] > 0
        assert r["build_s"] >= 0 and r["run_s"] > 0
    assert set(report["kib_per_flow"]) == set(bench_scale.SCENARIOS)


def test_bench_scale_refuses_bad_flow_counts() -> None:
    p = afsim_cmd("bench", "--scale", "--flows", "10,x")
    assert p.returncode == 2
    assert "--flows" in p.stderr
