"""validation/ns2/ns2kit: the comparison, the tolerance rule, the table writer and the ns-2
output readers the cross-check scripts share (no ns-2 needed)."""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "validation" / "ns2"))

import ns2kit
from ns2kit import Ns2Run, compare, dump_json, stat, table, within


def test_stat_mean_sd_and_what_it_skips():
    s = stat([1.0, None, 3.0])
    assert s == {"mean": 2.0, "sd": math.sqrt(2.0), "n": 2, "min": 1.0, "max": 3.0}
    assert stat([None]) is None
    assert stat([5.0], extremes=False) == {"mean": 5.0, "sd": 0.0, "n": 1}
    assert stat([1.0, math.nan, 3.0], skip_nan=True)["n"] == 2


def test_compare_relative_percent_and_welch_z():
    ns = {"mean": 100.0, "sd": 10.0, "n": 4}
    af = {"mean": 110.0, "sd": 10.0, "n": 4}
    d = compare(ns, af)
    assert d.diff == pytest.approx(10.0)
    assert d.rel == pytest.approx(0.10)
    assert d.pct == pytest.approx(10.0)
    assert d.z == pytest.approx(10.0 / math.sqrt(50.0))
    assert d.z_signed == d.z


def test_compare_without_spread_or_a_side():
    same = {"mean": 3.0, "sd": 0.0, "n": 5}
    more = {"mean": 4.0, "sd": 0.0, "n": 5}
    assert compare(same, same).z is None and compare(same, same).z_signed == 0.0
    assert compare(same, more).z is None and compare(same, more).z_signed == math.inf
    assert compare(more, same).z_signed == -math.inf
    zero = {"mean": 0.0, "sd": 1.0, "n": 5}
    assert compare(zero, more).rel is None and compare(zero, more).pct is None
    none = compare(None, more)
    assert none.z is None and none.rel is None and none.diff == math.inf


def test_within_the_grid_tolerance_rule():
    ns = {"mean": 100.0, "sd": 0.1, "n": 5}
    # 5 % off and significant: outside a 3 % tolerance, inside a 10 % one
    far = compare(ns, {"mean": 105.0, "sd": 0.1, "n": 5})
    assert not within(far, 3.0)
    assert within(far, 10.0)
    # the same difference under an absolute floor of 5 is within
    assert within(far, 3.0, floor=5.0)
    assert not within(far, 3.0, floor=4.9)
    # not significant (|z| < 2): within whatever its size
    noisy = compare({"mean": 100.0, "sd": 50.0, "n": 5}, {"mean": 150.0, "sd": 50.0, "n": 5})
    assert within(noisy, 3.0)
    # a side missing: nothing to judge
    assert within(compare(None, ns), 3.0)


def test_table_rows_and_cells():
    ns = {"x": {"mean": 10.0, "sd": 1.0, "n": 4}, "y": None}
    af = {"x": {"mean": 11.0, "sd": 1.0, "n": 4}, "y": None}
    lines = table(ns, af, [("x", "the x", "{:.1f}"), ("y", "the y", "{:.0f}")])
    assert lines[0] == "| metric | ns-2.35 | afsim | afsim − ns-2 | z |"
    assert lines[2] == "| the x | 10.0 ± 1.0 | 11.0 ± 1.0 | +10.0% | +1.4 |"
    assert lines[3] == "| the y | n/a | n/a | - | - |"
    assert len(table(ns, af, [("y", "the y", "{:.0f}")], skip_empty=True)) == 2


def test_dump_json_one_line_per_run_reads_back():
    result = {"meta": {"a": 1}, "runs": [{"sim": "ns-2", "m": [1, 2]}, {"sim": "afsim", "m": None}]}
    text = dump_json(result, one_line="runs")
    assert json.loads(text) == result
    lines = text.splitlines()
    assert '  {"sim":"ns-2","m":[1,2]},' in lines and '  {"sim":"afsim","m":null}' in lines
    assert json.loads(dump_json(result)) == result and text.endswith("\n")


def test_ns2_report_reader_takes_the_tagged_lines_off():
    out = '{"flows": [1, 2],\n "wall_s": 0.5}\nMARKS 12\nTIMEOUTS 0 3\nTRACE {"drops": 4}\n'
    report, tags = Ns2Run(("ns", "x.tcl"), out, 0.1).report()
    assert report == {"flows": [1, 2], "wall_s": 0.5}
    assert tags == {"MARKS": "12", "TIMEOUTS": "0 3", "TRACE": '{"drops": 4}'}
    report, tags = Ns2Run(("ns",), '{"a": 1}\n', 0.1).report()
    assert report == {"a": 1} and tags == {}


def test_ns2_failure_names_the_command(tmp_path):
    if ns2kit.runner.subprocess.run(["sh", "-c", "command -v ns"], capture_output=True).returncode:
        pytest.skip("ns-2 not installed")
    with pytest.raises(RuntimeError, match=r"ns .*missing\.tcl.*exit"):
        ns2kit.ns2(tmp_path / "missing.tcl", ["seed=1"], cwd=tmp_path)
