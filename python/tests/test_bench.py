"""`afsim bench` (afsim/bench.py): one fresh process per bench scenario."""

from __future__ import annotations

import json

from conftest import afsim_cmd

import afsim
from afsim import bench


def test_bench_scenarios_are_the_bench_folder() -> None:
    names = bench.bench_names()
    assert names == sorted(names)
    assert names, "no bench scenarios installed"
    for name in names:
        assert afsim.builtin_scenario(f"bench/{name}").is_file()


def test_bench_quick_json_has_the_row_keys() -> None:
    p = afsim_cmd("bench", "--quick", "--format", "json", timeout=900)
    assert p.returncode == 0, p.stderr
    report = json.loads(p.stdout)
    assert [r["name"] for r in report["rows"]] == bench.bench_names()
    for row in report["rows"]:
        assert set(bench.ROW_KEYS) <= set(row)
        assert row["packet_hops"] > 0
        assert row["events"] >= row["packet_hops"]
        assert row["wall_s"] > 0
        assert row["peak_rss_mib"] > 1
        assert row["pool_high_water"] >= 1
        assert row["quick"] is True
    assert {"cpu", "nproc", "python", "afsim"} <= set(report["machine"])
    assert report["machine"]["afsim"] == afsim.__version__
