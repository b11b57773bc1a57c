"""afsim.results: Results tables and the files Results.write produces."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import afsim
from afsim.results import OUTPUT_FILES, Results


@pytest.fixture(scope="module")
def results() -> Results:
    busy = Path(__file__).parent / "data" / "busy.toml"
    return Results.from_run(afsim._core.run(afsim.load_scenario(busy)))


def test_results_hold_the_report(results: Results) -> None:
    assert results.scenario == "busy"
    assert results.seed == 7
    assert json.loads(results.summary_json) == results.summary
    assert results.conservation == results.summary["conservation"]
    assert results.conservation["holds"] is True
    assert results.events == results.summary["engine"]["events"]
    assert results.packet_hops == results.summary["engine"]["packet_hops"]
    assert results.end_time_s == pytest.approx(8.0)
    assert results.sim_seconds_per_wall_second > 0


def test_tables_have_one_row_per_flow_and_queue(results: Results) -> None:
    assert list(results.flows["name"]) == [f["name"] for f in results.summary["flows"]]
    assert list(results.queues["name"]) == [q["name"] for q in results.summary["queues"]]
    assert len(results.queues) == 4  # two links, both directions
    assert results.flows["packets_sent"].dtype == np.uint64
    assert results.flows["throughput_kbps"].dtype == np.float64


def test_flow_counts_add_up(results: Results) -> None:
    f = results.flows
    accounted = f["packets_delivered"] + f["packets_dropped"] + f["packets_in_flight"]
    assert (f["packets_sent"] == accounted).all()
    assert int(f["packets_sent"].sum()) == results.conservation["sent"]


def test_write_produces_every_output_file(results: Results, tmp_path: Path) -> None:
    out = tmp_path / "nested" / "out"
    paths = results.write(out)
    assert [p.name for p in paths] == list(OUTPUT_FILES)
    assert sorted(p.name for p in out.iterdir()) == sorted(OUTPUT_FILES)
    assert (out / "summary.json").read_text(encoding="utf-8") == results.summary_json


@pytest.mark.parametrize("table", ["flows", "queues"])
def test_parquet_and_csv_read_back(results: Results, tmp_path: Path, table: str) -> None:
    results.write(tmp_path)
    frame: pd.DataFrame = getattr(results, table)
    from_parquet = pd.read_parquet(tmp_path / f"{table}.parquet")
    pd.testing.assert_frame_equal(from_parquet, frame, check_dtype=True)
    from_csv = pd.read_csv(tmp_path / f"{table}.csv")
    assert list(from_csv.columns) == list(frame.columns)
    assert len(from_csv) == len(frame)
    for column in frame.columns:
        if frame[column].dtype.kind in "uif":
            np.testing.assert_allclose(
                from_csv[column].to_numpy(float), frame[column].to_numpy(float), rtol=1e-12
            )
