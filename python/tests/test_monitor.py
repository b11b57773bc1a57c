"""Queue time series (`[[monitor]]`, `afsim run --monitor`, `Scenario.with_monitor`): samples on
the grid, RED's average beside the length, nothing else changed, errors before anything runs."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from conftest import DATA, afsim_cmd

import afsim
from afsim.results import Results

TCP_ECN = DATA / "tcp_ecn.toml"


def run(scenario: afsim.Scenario) -> Results:
    return Results.from_run(afsim._core.run(scenario))


def test_samples_on_the_grid_with_reds_average_and_the_report_unchanged() -> None:
    plain = afsim.load_scenario(TCP_ECN)
    watched = plain.with_monitor("r1->r2", "5ms")
    assert watched.monitors == [("r1->r2", pytest.approx(0.005))]
    r0, r1 = run(plain), run(watched)
    assert r0.summary_json == r1.summary_json, "sampling changes nothing the report says"
    assert r0.monitor.empty and list(r0.monitor.columns) == ["queue", "time_s", "len_packets",
                                                            "len_bytes", "avg", "avg_in"]
    m = r1.monitor
    assert set(m["queue"]) == {"r1->r2"}
    # 3 s at 5 ms: 0, 0.005, ..., 3.0
    assert len(m) == 601
    assert m["time_s"].iloc[-1] == pytest.approx(3.0)
    assert (m["time_s"].diff().dropna().round(9) == 0.005).all()
    q = r1.queues.set_index("name").loc["r1->r2"]
    assert m["len_packets"].max() <= q["max_len_packets"]
    assert m["len_packets"].max() >= 3, "three TCP flows through 2 Mb/s build a queue"
    assert (m["len_bytes"] >= m["len_packets"] * 40).all()
    # RED keeps an average (it starts at 0 and stays below the longest queue); no IN average
    assert m["avg"].notna().all() and m["avg"].max() > 0
    assert m["avg"].max() <= q["max_len_packets"]
    assert m["avg_in"].isna().all()
    # the time average the report integrates exactly, estimated from the samples
    assert m["len_packets"].mean() == pytest.approx(q["mean_len_packets"], rel=0.15, abs=0.2)


def test_a_monitor_table_in_the_file_and_monitor_parquet(tmp_path: Path) -> None:
    text = TCP_ECN.read_text() + '\n[[monitor]]\nqueue = "r1->r2"\ninterval = "100ms"\n'
    f = tmp_path / "m.toml"
    f.write_text(text)
    p = afsim_cmd("run", f, "--out", tmp_path / "out")
    assert p.returncode == 0, p.stderr
    assert "Sampled queues" in p.stdout and "r1->r2" in p.stdout
    m = pd.read_parquet(tmp_path / "out" / "monitor.parquet")
    assert len(m) == 31 and set(m["queue"]) == {"r1->r2"}
    # the same run with --monitor on the command line gives the same series
    p2 = afsim_cmd("run", TCP_ECN, "--monitor", "r1->r2@100ms", "--out", tmp_path / "out2")
    assert p2.returncode == 0, p2.stderr
    pd.testing.assert_frame_equal(m, pd.read_parquet(tmp_path / "out2" / "monitor.parquet"))


@pytest.mark.parametrize(("table", "field", "message"), [
    ('queue = "r1->r9"', "monitor[0].queue", "no queue 'r1->r9' (did you mean 'r1->r2'?)"),
    ('queue = "r1"', "monitor[0].queue", "is not a queue"),
    ('queue = "r1->r2"\ninterval = "0ms"', "monitor[0].interval", "greater than zero"),
    ('queue = "r1->r2"\ninterval = 5', "monitor[0].interval", "expected a time"),
    ('queue = "r1->r2"\nevery = "1ms"', "monitor[0].every", "the fields are: kind, queue, interval"),
    ('interval = "1ms"', "monitor[0]", "queue"),
])
def test_a_bad_monitor_names_its_file_line_and_field(tmp_path: Path, table: str, field: str,
                                                     message: str) -> None:
    f = tmp_path / "bad.toml"
    f.write_text(TCP_ECN.read_text() + "\n[[monitor]]\n" + table + "\n")
    p = afsim_cmd("run", f, "--out", tmp_path / "out")
    assert p.returncode == 2
    assert f"{f}:" in p.stderr and field in p.stderr and message in p.stderr, p.stderr
    assert not (tmp_path / "out").exists(), "nothing runs, nothing is written"


def test_two_monitors_on_one_queue_and_bad_options_are_refused() -> None:
    s = afsim.load_scenario(TCP_ECN).with_monitor("r1->r2")
    with pytest.raises(ValueError, match="already monitored"):
        s.with_monitor("r1->r2", "1ms")
    with pytest.raises(ValueError, match="with a unit"):
        s.with_monitor("r2->r1", "5")
    for bad in ("r1->r9", "r1->r2@0s", "r1->r2@fast"):
        p = afsim_cmd("run", TCP_ECN, "--monitor", bad)
        assert p.returncode == 2 and f"--monitor {bad}" in p.stderr, p.stderr


def test_a_monitor_does_not_change_the_store_key() -> None:
    s = afsim.load_scenario(TCP_ECN)
    assert s.resolved() == s.with_monitor("r1->r2").resolved()


def test_rio_samples_carry_both_averages() -> None:
    s = afsim.load_scenario(afsim.builtin_scenario("giacomazzi/scenario1"),
                            overrides={"max_data_packets": "20000"})
    r = run(s.with_monitor("border1->border2", "1ms"))
    m = r.monitor
    assert m["avg"].notna().all() and m["avg_in"].notna().all()
    # avg_total (over every packet) is at least the IN average's share of the traffic
    assert (m["avg"] >= 0).all() and m["avg"].max() > 0
    assert json.loads(r.summary_json)["stop_reason"] == "max_data_packets"


# afsim run --plot (afsim/plot.py): what the run recorded, drawn


def test_plot_draws_the_recorded_series(tmp_path: Path) -> None:
    png, svg = tmp_path / "run.png", tmp_path / "run.svg"
    p = afsim_cmd("run", TCP_ECN, "--monitor", "r1->r2@10ms", "--plot", png)
    assert p.returncode == 0, p.stderr
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and f"plotted to {png}" in p.stdout
    p = afsim_cmd("run", TCP_ECN, "--plot", svg, "--format", "json")
    assert p.returncode == 0, p.stderr
    text = svg.read_text()
    # the flows' panel always, the traced senders' cwnd (tcp_ecn.toml traces its flows)
    assert "<svg" in text and "TCP congestion windows" in text and "sampled queues" not in text
    assert json.loads(p.stdout)["scenario"] == "tcp-ecn", "--format json stays pure JSON"


@pytest.mark.parametrize(("target", "message"), [
    ("run.txt", "the plot's format comes from its suffix"),
    ("missing/run.png", "does not exist"),
    (".", "is a directory"),
])
def test_a_bad_plot_path_is_refused_before_the_run(tmp_path: Path, target: str, message: str) -> None:
    p = afsim_cmd("run", TCP_ECN, "--plot", tmp_path / target if target != "." else tmp_path,
                  "--out", tmp_path / "out")
    assert p.returncode == 2 and message in p.stderr, p.stderr
    assert not (tmp_path / "out").exists()
