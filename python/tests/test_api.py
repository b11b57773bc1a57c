"""The compiled module afsim._core and the curated API in afsim/__init__.py."""

from __future__ import annotations

import json
import os
import signal
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import afsim
from afsim import _core


def test_curated_api_exports_what_it_promises() -> None:
    for name in afsim.__all__:
        assert hasattr(afsim, name), name
    assert afsim.ScenarioError is _core.ScenarioError
    assert issubclass(afsim.ScenarioError, ValueError)
    assert issubclass(afsim.ConservationError, RuntimeError)
    assert afsim.__version__.count(".") == 2


def test_scenario_properties(tiny: Path) -> None:
    s = afsim.load_scenario(tiny)
    assert (s.name, s.seed, s.n_nodes, s.n_links, s.n_flows) == ("tiny", 1, 2, 1, 1)
    assert s.duration_s == pytest.approx(2.0)


def test_load_from_text_equals_load_from_file(tiny: Path) -> None:
    from_file = _core.run(afsim.load_scenario(tiny))
    from_text = _core.run(afsim.load_scenario(text=tiny.read_text(), name=str(tiny)))
    assert from_text.summary_json() == from_file.summary_json()


@pytest.mark.parametrize("kwargs", [{}, {"path": "x.toml", "text": "x"}])
def test_load_scenario_takes_exactly_one_source(kwargs: dict[str, Any]) -> None:
    with pytest.raises(TypeError):
        afsim.load_scenario(**kwargs)


def test_with_seed_returns_a_new_scenario(tiny: Path) -> None:
    s = afsim.load_scenario(tiny)
    t = s.with_seed(99)
    assert (s.seed, t.seed) == (1, 99)
    assert t.name == s.name


def test_scenario_error_carries_the_place(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text('[scenario]\nname = "x"\nduration = "2 parsecs"\n')
    with pytest.raises(afsim.ScenarioError) as info:
        afsim.load_scenario(bad)
    e = info.value
    assert isinstance(e, ValueError)
    assert e.file.endswith("bad.toml")
    assert e.line == 3
    assert e.column >= 1
    assert "duration" in e.field
    assert e.message
    assert str(e) == f"{e.file}:{e.line}:{e.column}: {e.field}: {e.message}"


def test_overrides_change_the_result(tiny: Path) -> None:
    base = json.loads(_core.run(afsim.load_scenario(tiny)).summary_json())
    fast = json.loads(
        _core.run(afsim.load_scenario(tiny, overrides={"rate": "2Mbps"})).summary_json()
    )
    assert fast["flows"][0]["packets_sent"] > base["flows"][0]["packets_sent"]


def test_unknown_override_is_a_scenario_error(tiny: Path) -> None:
    with pytest.raises(afsim.ScenarioError):
        afsim.load_scenario(tiny, overrides={"no_such_param": "1"})


def test_run_result_matches_its_report(tiny: Path) -> None:
    r = _core.run(afsim.load_scenario(tiny))
    report = json.loads(r.summary_json())
    assert report["engine"]["events"] == r.events
    assert report["engine"]["packet_hops"] == r.packet_hops
    assert report["conservation"]["holds"] is r.conservation_holds is True
    assert r.wall_seconds > 0
    assert "wall" not in r.summary_json()


def test_same_seed_same_bytes_and_seed_override(busy: Path) -> None:
    s = afsim.load_scenario(busy)
    a = _core.run(s).summary_json()
    assert _core.run(s).summary_json() == a
    assert _core.run(s, seed=s.seed).summary_json() == a
    other = _core.run(s, seed=s.seed + 1).summary_json()
    assert json.loads(other)["seed"] == s.seed + 1
    assert other != a


def _flatten(row: dict[str, object]) -> dict[str, object]:
    flat: dict[str, object] = {}
    for key, value in row.items():
        if isinstance(value, dict):
            flat.update({f"{key}_{k}": v for k, v in value.items()})
        else:
            flat[key] = value
    return flat


@pytest.mark.parametrize("table", ["flows", "queues"])
def test_columns_are_the_report_rows_pivoted(busy: Path, table: str) -> None:
    r = _core.run(afsim.load_scenario(busy))
    rows = [_flatten(row) for row in json.loads(r.summary_json())[table]]
    cols = r.flows_columns() if table == "flows" else r.queues_columns()
    assert rows
    # Every JSON field has its column, in the same order, and nothing else.
    assert list(cols) == list(rows[0])
    for key, col in cols.items():
        assert len(col) == len(rows)
        values = [row[key] for row in rows]
        if isinstance(col, list):
            assert col == values
            continue
        assert isinstance(col, np.ndarray)
        kinds = {type(v) for v in values}
        if kinds <= {int}:
            assert col.dtype == np.uint64, key
        elif kinds <= {bool}:
            assert col.dtype == np.bool_, key
        else:
            assert col.dtype == np.float64, key
        expected = np.array([np.nan if v is None else v for v in values], dtype=col.dtype)
        np.testing.assert_array_equal(col, expected, err_msg=key)


def test_queue_drops_map_becomes_one_column_per_reason(busy: Path) -> None:
    r = _core.run(afsim.load_scenario(busy))
    report = json.loads(r.summary_json())
    cols = r.queues_columns()
    reasons = report["queues"][0]["drops"]
    assert "overflow" in reasons
    for reason in reasons:
        assert list(cols[f"drops_{reason}"]) == [q["drops"][reason] for q in report["queues"]]
    assert sum(cols["drops_overflow"]) > 0  # the bottleneck overflows


def test_progress_callback_gets_time_fraction_events(busy: Path) -> None:
    calls: list[tuple[float, float | None, int]] = []
    r = _core.run(afsim.load_scenario(busy), progress=lambda *a: calls.append(a))
    assert len(calls) >= 2
    for t, fraction, events in calls:
        assert isinstance(t, float) and isinstance(events, int)
        assert fraction is not None and 0.0 <= fraction <= 1.0
    times = [c[0] for c in calls]
    assert times == sorted(times)
    assert calls[-1][2] <= r.events


def test_progress_exception_stops_the_run_and_is_raised(busy: Path) -> None:
    calls = 0

    def boom(t: float, fraction: float | None, events: int) -> None:
        nonlocal calls
        calls += 1
        raise ZeroDivisionError("from the callback")

    with pytest.raises(ZeroDivisionError, match="from the callback"):
        _core.run(afsim.load_scenario(busy), progress=boom)
    assert calls == 1


def test_ctrl_c_stops_a_long_run(busy: Path) -> None:
    """SIGINT while the core runs (GIL released, no callback) stops it within an interval."""
    long = afsim.load_scenario(busy, overrides={"duration": "100000s"})
    # Python's own handler, whatever this process inherited: a shell starts background jobs
    # with SIGINT ignored, and then Python never raises KeyboardInterrupt
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    timer = threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGINT))
    start = time.monotonic()
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            _core.run(long)
    finally:
        timer.cancel()
        signal.signal(signal.SIGINT, previous)
    assert time.monotonic() - start < 30


def test_builtin_scenarios_are_files() -> None:
    names = afsim.builtin_scenarios()
    assert "default" in names
    for name in names:
        path = afsim.builtin_scenario(name)
        assert path.is_file()
        assert afsim.load_scenario(path).n_flows >= 1
    with pytest.raises(FileNotFoundError, match="default"):
        afsim.builtin_scenario("no_such_scenario")


def test_simulate_loads_and_runs(tiny: Path) -> None:
    res = afsim.simulate(tiny, seed=3, overrides={"rate": "2Mbps"})
    assert res.seed == 3
    assert res.scenario == "tiny"
    assert len(res.flows) == 1


def test_run_returns_dataframes(busy: Path) -> None:
    import pandas as pd

    results = afsim.run(afsim.load_scenario(busy), seed=3)
    assert isinstance(results, afsim.Results)
    assert isinstance(results.flows, pd.DataFrame) and isinstance(results.queues, pd.DataFrame)
    assert results.seed == 3
    assert results.summary_json == _core.run(afsim.load_scenario(busy), seed=3).summary_json()
