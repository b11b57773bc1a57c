"""Time series of every kind (`[[monitor]] kind = ...`, `--monitor flows`, `--trace-queue`),
delay percentiles, the series in a results store and in the reports, and the built-in example
`examples/three-customers` (issue 27)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from conftest import DATA, afsim_cmd

import afsim
from afsim.results import QUEUE_EVENT_COLUMNS, Results

TCP_ECN = DATA / "tcp_ecn.toml"


def run(scenario: afsim.Scenario) -> Results:
    return Results.from_run(afsim._core.run(scenario))


def watched(s: afsim.Scenario) -> afsim.Scenario:
    return (s.with_monitor("r1->r2", "10ms").with_monitor("flows", "100ms")
            .with_queue_trace("r1->r2"))


def test_every_kind_leaves_the_report_unchanged_and_adds_up_to_it() -> None:
    plain = afsim.load_scenario(TCP_ECN)
    s = watched(plain)
    assert s.monitors == [("r1->r2", pytest.approx(0.01)), ("flows", pytest.approx(0.1))]
    assert s.traced_queues == ["r1->r2"]
    assert s.resolved() == plain.resolved(), "monitors stay out of the store key"
    r0, r = run(plain), run(s)
    assert r0.summary_json == r.summary_json
    assert r0.monitor_flows.empty and r0.queue_events.empty and r0.queue_delays.empty
    f = r.monitor_flows
    # 3 s at 100 ms: 30 instants (0.1 … 3.0 s), one row per flow each
    assert len(f) == 30 * len(r.flows) and f["time_s"].max() == pytest.approx(3.0)
    sums = f.groupby("flow")[["delivered_bytes", "dropped_packets"]].sum()
    flows = r.flows.set_index("name")
    assert (sums["delivered_bytes"] == flows.loc[sums.index, "bytes_delivered"]).all()
    assert (sums["dropped_packets"] == flows.loc[sums.index, "packets_dropped"]).all()
    assert f["rate_kbps"].max() <= 2000.0 * 1.01, "no flow beats the 2 Mb/s bottleneck"
    q = r.queues.set_index("name").loc["r1->r2"]
    ev = r.queue_events
    counts = ev["event"].value_counts()
    assert counts["dequeue"] == q["departures"]
    assert counts.get("mark", 0) == q["ecn_marks"] > 0, "RED marks the ECN flows' packets"
    assert counts.get("drop", 0) == q["drops_total"]
    assert counts["enqueue"] + counts.get("mark", 0) + counts.get("drop", 0) == q["arrivals"]
    assert set(ev["reason"][ev["event"] == "drop"]) <= {"overflow", "early"}
    assert set(ev["flow"]) <= set(r.flows["name"])
    lv = r.monitor_levels
    assert lv["ecn_marks"].sum() == q["ecn_marks"] and lv["arrivals"].sum() == q["arrivals"]
    # per code point: the code_points rows, and every mark of the event record on its code point
    cp = r.monitor_code_points.groupby(["direction", "code_point"])[
        ["arrivals", "drops_overflow", "drops_early", "ecn_marks"]].sum()
    rows = r.code_points[r.code_points["queue"] == "r1->r2"].set_index(
        ["direction", "code_point"])
    for col in ("arrivals", "drops_overflow", "drops_early"):
        assert (cp.loc[rows.index, col] == rows[col]).all(), col
    marks = ev[ev["event"] == "mark"].groupby("dscp").size()
    by_dscp = r.monitor_code_points.groupby("dscp")["ecn_marks"].sum()
    assert (by_dscp[by_dscp > 0] == marks).all() and by_dscp.sum() == q["ecn_marks"]
    d = r.queue_delays.set_index("queue").loc["r1->r2"]
    assert d["count"] == q["departures"]
    assert d["p50_s"] <= d["p90_s"] <= d["p99_s"] <= d["max_s"]
    # no packet waits longer than a full 30-packet buffer of 1000 B takes to drain at 2 Mb/s
    assert d["max_s"] <= 30 * 1000 * 8 / 2e6 + 1e-3
    assert r.queue_delay_hist["count"].sum() == q["departures"]


def test_delay_percentiles_per_flow_and_per_code_point() -> None:
    r = run(afsim.load_scenario(TCP_ECN))
    f = r.flows
    assert (f["delay_p50_s"] <= f["delay_p90_s"]).all()
    assert (f["delay_p99_s"] <= f["delay_max_s"]).all()
    assert (f["mean_delay_s"] <= f["delay_max_s"]).all()
    c = r.delay_classes
    assert list(c["code_point"]) == ["AF11"], "the flows mark AF11 and nothing re-marks them"
    assert c["packets"].sum() == f["packets_delivered"].sum()
    assert c["delay_max_s"].iloc[0] == pytest.approx(f["delay_max_s"].max())


def test_monitor_kinds_in_the_file_and_on_the_command_line_write_the_same_parquet(
        tmp_path: Path) -> None:
    text = TCP_ECN.read_text() + (
        '\n[[monitor]]\nkind = "flows"\ninterval = "50ms"\n'
        '\n[[monitor]]\nkind = "events"\nqueue = "r1->r2"\n')
    f = tmp_path / "m.toml"
    f.write_text(text)
    p = afsim_cmd("run", f, "--out", tmp_path / "a")
    assert p.returncode == 0, p.stderr
    assert "One-way delay per code point" in p.stdout
    p2 = afsim_cmd("run", TCP_ECN, "--monitor", "flows@50ms", "--trace-queue", "r1->r2",
                   "--out", tmp_path / "b")
    assert p2.returncode == 0, p2.stderr
    for name in ("monitor_flows", "queue_events"):
        a = pd.read_parquet(tmp_path / "a" / f"{name}.parquet")
        assert len(a) > 0
        pd.testing.assert_frame_equal(a, pd.read_parquet(tmp_path / "b" / f"{name}.parquet"))
    assert not (tmp_path / "a" / "monitor_conditioners.parquet").exists()
    assert (tmp_path / "a" / "delay_classes.csv").is_file()


@pytest.mark.parametrize(("table", "field", "message"), [
    ('kind = "flow"', "monitor[0].kind", "unknown monitor kind"),
    ('kind = "flows"\nqueue = "r1->r2"', "monitor[0].queue", "takes no queue"),
    ('kind = "events"\nqueue = "r1->r2"\ninterval = "1ms"', "monitor[0].interval",
     "no sampling interval"),
    ('kind = "events"', "monitor[0]", "queue"),
])
def test_a_bad_monitor_kind_names_its_file_line_and_field(tmp_path: Path, table: str, field: str,
                                                          message: str) -> None:
    f = tmp_path / "bad.toml"
    f.write_text(TCP_ECN.read_text() + "\n[[monitor]]\n" + table + "\n")
    p = afsim_cmd("run", f)
    assert p.returncode == 2
    assert f"{f}:" in p.stderr and field in p.stderr and message in p.stderr, p.stderr


def test_a_second_flows_monitor_is_refused_in_the_file_and_in_the_api(tmp_path: Path) -> None:
    f = tmp_path / "twice.toml"
    f.write_text(TCP_ECN.read_text() + '\n[[monitor]]\nkind = "flows"\n\n[[monitor]]\n'
                 'kind = "flows"\ninterval = "1s"\n')
    p = afsim_cmd("run", f)
    assert p.returncode == 2 and "monitor[1].kind" in p.stderr and "already" in p.stderr
    s = afsim.load_scenario(TCP_ECN).with_monitor("flows")
    with pytest.raises(ValueError, match="already monitored"):
        s.with_monitor("flows", "1s")
    with pytest.raises(ValueError, match="no port"):
        s.with_queue_trace("r1->r9")


def test_the_store_keeps_a_series_table_per_run(tmp_path: Path) -> None:
    from afsim.store import Store
    from afsim.sweep import Task as SweepTask
    from afsim.sweep import execute

    text = TCP_ECN.read_text() + '\n[[monitor]]\nkind = "flows"\ninterval = "500ms"\n' \
        '\n[[monitor]]\nqueue = "r1->r2"\ninterval = "100ms"\n' \
        '\n[[monitor]]\nkind = "events"\nqueue = "r1->r2"\n'
    f = tmp_path / "s.toml"
    f.write_text(text)
    with Store.open(tmp_path / "store") as st:
        execute([SweepTask(str(f), (), seed) for seed in (1, 2)], store=st, workers=1)
        flows = st.table("monitor_flows")
        queue = st.table("monitor")
        levels = st.table("monitor_levels")
        code_points = st.table("monitor_code_points")
        events = st.table("queue_events")
        queues = st.table("queues")
        keys = set(st.runs()["key"])
    assert set(flows["key"]) == keys and len(keys) == 2
    assert len(flows) == 2 * 6 * 3, "2 runs x 6 instants x 3 flows"
    assert set(queue["queue"]) == {"r1->r2"} and len(queue) == 2 * 31
    assert levels["arrivals"].sum() > 0
    assert code_points["arrivals"].sum() == levels["arrivals"].sum()
    assert set(code_points["key"]) == keys
    # the event record, stored with each run: a row per arrival and departure of the queue
    assert set(events["key"]) == keys and list(events.columns) == ["key", "queue", *QUEUE_EVENT_COLUMNS]
    bottleneck = queues[queues["name"] == "r1->r2"].set_index("key")
    per_run = events.groupby("key")["event"].value_counts().unstack(fill_value=0)
    assert (per_run["dequeue"] == bottleneck.loc[per_run.index, "departures"]).all()
    assert (per_run.sum(axis=1) - per_run["dequeue"]
            == bottleneck.loc[per_run.index, "arrivals"]).all()
    p = afsim_cmd("results", tmp_path / "store", "--export", tmp_path / "export")
    assert p.returncode == 0, p.stderr
    exported = pd.read_parquet(tmp_path / "export" / "queue_events.parquet")
    assert len(exported) == len(events)
    assert (tmp_path / "export" / "monitor_code_points.parquet").is_file()
    from afsim.report import store_report

    with Store.open(tmp_path / "store", write=False) as st:
        page = store_report(st).html()
    for caption in ("Queue length over time", "Drops per drop-precedence level",
                    "ECN marks per code point", "Delivered rate per flow group"):
        assert caption in page, caption


def test_the_example_runs_by_name_and_plots_every_series(tmp_path: Path) -> None:
    png = tmp_path / "three.png"
    p = afsim_cmd("run", "examples/three-customers", "--set", "duration=12s", "--plot", png,
                  "--out", tmp_path / "out")
    assert p.returncode == 0, p.stderr
    assert png.read_bytes()[:4] == b"\x89PNG"
    out = tmp_path / "out"
    flows = pd.read_parquet(out / "monitor_flows.parquet")
    assert set(flows["flow"]) == {f"{c}{i}" for c in "abc" for i in range(4)} | {"be"}
    cond = pd.read_parquet(out / "monitor_conditioners.parquet")
    assert set(cond["conditioner"]) == {"contract0", "contract1", "contract2"}
    assert (cond[["green_packets", "yellow_packets", "red_packets"]].sum() > 0).all()
    assert (out / "monitor.parquet").is_file() and (out / "queue_delays.parquet").is_file()
    cps = pd.read_parquet(out / "monitor_code_points.parquet")
    forward = set(cps.loc[cps["direction"] == "forward", "code_point"])
    assert {"AF11", "AF12", "AF13", "BE"} <= forward, "AF13 and best effort apart"
    classes = pd.read_csv(out / "delay_classes.csv")
    assert {"AF11", "AF12", "AF13", "BE"} <= set(classes["code_point"])
