"""`afsim bench` (afsim/bench.py): one fresh process per bench scenario."""

from __future__ import annotations

import json

import pytest
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


@pytest.mark.skipif(not bench.have_valgrind(), reason="needs valgrind (cachegrind)")
def test_instructions_per_hop_of_a_bench_row() -> None:
    # tcp-dumbbell-10 at 0.6 s and 6 s of its 60: the difference leaves out start-up and report
    row = bench.instructions("tcp-dumbbell-10")
    assert row["hops_long"] > 10 * row["hops_short"] > 0
    assert row["instr_long"] > row["instr_short"]
    # an engine doing per-packet-hop work, not counting Python: hundreds, not tens of thousands
    assert 100 < row["instr_per_hop"] < 5000, row


def test_bench_table_shows_instructions_when_counted() -> None:
    from rich.console import Console

    row = {"name": "x", "packet_hops": 10, "events": 12, "wall_s": 1.0, "packet_hops_per_s": 10.0,
           "events_per_s": 12.0, "bottleneck_pkts_per_s": 5.0, "peak_rss_mib": 20.0,
           "pool_high_water": 3}
    machine = {"cpu": "c", "nproc": 2, "python": "3", "afsim": "0"}
    for counted in (False, True):
        console = Console(record=True, width=250)
        r = row | ({"instr_per_hop": 871.25} if counted else {})
        bench.print_table({"rows": [r], "machine": machine}, console)
        text = console.export_text()
        assert ("instr/hop" in text) == counted
        assert ("871.2" in text) == counted
