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


@pytest.fixture(scope="module")
def sima() -> Results:
    """The Laatu SIMA testbed without background: a 1 MB transfer marked at Border1."""
    path = afsim.builtin_scenario("laatu/sima")
    return afsim.simulate(path, overrides={"bg4_flows": "0", "low_flows": "0"})


def test_sima_runs_fill_the_sima_tables_and_the_dp_trace(sima: Results) -> None:
    q = sima.sima_queues.set_index("queue")
    assert "core1->core2" in q.index
    assert all(sum(shares) == pytest.approx(1.0) for shares in q["dpa_time_share"])
    lv = sima.sima_levels
    dropped = lv["drops_below_dpa"] + lv["drops_overflow"]
    assert (lv["arrivals"] == lv["departures"] + dropped + lv["queued_end"]).all()
    tcp = sima.flows.set_index("name").loc["tcp"]
    counts = [tcp[f"dp{k}_packets"] for k in range(8)]
    trace = sima.dp_trace
    assert list(trace.columns) == ["conditioner", "time_s", "flow", "dp", "mbr_bps"]
    assert len(trace) == sum(counts) == tcp["packets_sent"]
    assert (trace["flow"] == "tcp").all() and (trace["conditioner"] == "access").all()
    assert list(trace["dp"].value_counts().sort_index()) == [c for c in counts if c > 0]


def test_sima_results_write_the_sima_tables_and_the_dp_trace(sima: Results, tmp_path: Path) -> None:
    paths = sima.write(tmp_path)
    names = [p.name for p in paths]
    assert {"sima_queues.csv", "sima_levels.parquet", "dp_trace.parquet"} <= set(names)
    back = pd.read_parquet(tmp_path / "sima_levels.parquet")
    pd.testing.assert_frame_equal(back, sima.sima_levels)
    shares = pd.read_parquet(tmp_path / "sima_queues.parquet")["dpa_time_share"]
    assert [list(s) for s in shares] == [list(s) for s in sima.sima_queues["dpa_time_share"]]
    trace = pd.read_parquet(tmp_path / "dp_trace.parquet")
    assert len(trace) == len(sima.dp_trace)


TFRC_LOSSY = """
[scenario]
duration = "20s"
[[node]]
name = "a"
[[node]]
name = "b"
[[link]]
between = ["a", "b"]
rate = "2Mbps"
delay = "20ms"
loss = 0.02
[[flow]]
name = "v"
from = "a"
to = "b"
kind = "tfrc"
trace = true
"""


def test_tfrc_traces_and_link_losses_reach_the_tables(tmp_path: Path) -> None:
    r = Results.from_run(afsim._core.run(afsim.load_scenario(text=TFRC_LOSSY, name="lossy.toml")))
    t = r.tfrc_traces
    assert list(t.columns) == ["flow", "time_s", "x_kbps", "x_recv_kbps", "p", "rtt_s"]
    assert (t["flow"] == "v").all() and len(t) > 10
    assert t["time_s"].is_monotonic_increasing
    assert (t["p"].iloc[-1] > 0) and (t["rtt_s"].iloc[-1] > 0.04)
    flow = r.flows.iloc[0]
    assert flow["kind"] == "tfrc"
    assert flow["loss_events"] > 0 and flow["feedback_packets"] > 0
    lossy = r.queues.set_index("name").loc["a->b"]
    assert lossy["link_losses"] > 0 and r.queues.set_index("name").loc["b->a", "link_losses"] == 0
    assert r.conservation["dropped"]["link a->b"]["link_loss"] == lossy["link_losses"]
    names = [p.name for p in r.write(tmp_path)]
    assert "tfrc_traces.parquet" in names
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "tfrc_traces.parquet"), t)
    # without trace = true the table is empty, with the same columns
    untraced = afsim.load_scenario(text=TFRC_LOSSY.replace("trace = true", ""), name="x.toml")
    empty = Results.from_run(afsim._core.run(untraced)).tfrc_traces
    assert list(empty.columns) == list(t.columns) and len(empty) == 0


def test_the_head_is_the_report_without_flows_and_queues_and_results_pickle(results: Results) -> None:
    import pickle

    full = dict(results.summary)
    assert full.pop("flows") and full.pop("queues")
    assert results.head == full
    # the run's handle is not pickled; the report's text is
    fresh = Results.from_run(afsim._core.run(afsim.load_scenario(Path(__file__).parent / "data" / "busy.toml")))
    back = pickle.loads(pickle.dumps(fresh))
    assert back._run is None
    assert back.summary_json == results.summary_json
    assert back.summary == results.summary
