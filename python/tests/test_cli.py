"""The `afsim` command (afsim/cli.py), run as a user runs it: in a subprocess."""

from __future__ import annotations

import io
import json
import re
import sysconfig
from pathlib import Path

import pandas as pd
import pytest
from conftest import afsim_cmd

import afsim
from afsim import cli
from afsim.results import OUTPUT_FILES

FLOW_FIELDS = {
    "name", "src", "dst", "packets_sent", "packets_delivered", "packets_dropped",
    "packets_in_flight", "throughput_kbps",
}
QUEUE_FIELDS = {
    "name", "discipline", "arrivals", "departures", "drops", "drops_total", "mean_len_packets",
    "utilization",
}
CONSERVATION_FIELDS = {"sent", "delivered", "dropped_total", "in_flight", "holds", "identity"}


def test_console_script_is_installed() -> None:
    script = Path(sysconfig.get_path("scripts")) / "afsim"
    assert script.is_file()


def test_default_run_prints_the_tables() -> None:
    p = afsim_cmd("run")
    assert p.returncode == 0, p.stderr
    # the default scenario is Assured Forwarding: TCP flows with contracts, markers, RIO
    # (headers may wrap in a narrow terminal, so look for words, not whole headers)
    for text in ("Flows", "Queues", "throughput", "goodput", "contract", "RoS", "utilisation",
                 "Queues by colour", "Edge conditioners", "Flow groups", "FIEB",
                 "sent = delivered + dropped + in flight:", "\u2713", "packet-hops",
                 "simulated s per wall s"):
        assert text in p.stdout, text
    assert p.stderr == ""


def test_json_is_the_report_and_nothing_else(tiny: Path) -> None:
    p = afsim_cmd("run", tiny, "--format", "json")
    assert p.returncode == 0, p.stderr
    report = json.loads(p.stdout)
    assert {"flows", "queues", "conservation", "engine"} <= set(report)
    assert set(report["flows"][0]) >= FLOW_FIELDS
    assert set(report["queues"][0]) >= QUEUE_FIELDS
    assert set(report["conservation"]) >= CONSERVATION_FIELDS
    assert p.stdout == afsim.run(afsim.load_scenario(tiny)).summary_json + "\n"


def test_same_seed_gives_byte_identical_json(busy: Path) -> None:
    a = afsim_cmd("run", busy, "--seed", "5", "--format", "json")
    b = afsim_cmd("run", busy, "--seed", "5", "--format", "json")
    assert a.returncode == b.returncode == 0
    assert a.stdout == b.stdout


def test_another_seed_changes_a_jittered_scenario(busy: Path) -> None:
    a = json.loads(afsim_cmd("run", busy, "--seed", "5", "--format", "json").stdout)
    b = json.loads(afsim_cmd("run", busy, "--seed", "6", "--format", "json").stdout)
    assert (a["seed"], b["seed"]) == (5, 6)
    assert a["flows"] != b["flows"]


def test_set_changes_a_result(tiny: Path) -> None:
    base = json.loads(afsim_cmd("run", tiny, "--format", "json").stdout)
    more = json.loads(afsim_cmd("run", tiny, "--set", "rate=2Mbps", "--format", "json").stdout)
    assert more["flows"][0]["packets_sent"] > base["flows"][0]["packets_sent"]


def test_csv_is_flows_blank_line_queues(tiny: Path) -> None:
    p = afsim_cmd("run", tiny, "--format", "csv")
    assert p.returncode == 0, p.stderr
    flows_text, queues_text = p.stdout.split("\n\n")
    flows = pd.read_csv(io.StringIO(flows_text))
    queues = pd.read_csv(io.StringIO(queues_text))
    assert list(flows["name"]) == ["f"]
    assert sorted(queues["name"]) == ["a->b", "b->a"]
    assert "drops_overflow" in queues.columns


def test_out_writes_every_output_file(tiny: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    p = afsim_cmd("run", tiny, "--out", out, "--format", "json")
    assert p.returncode == 0, p.stderr
    assert sorted(f.name for f in out.iterdir()) == sorted(OUTPUT_FILES)
    assert (out / "summary.json").read_text(encoding="utf-8") + "\n" == p.stdout
    flows = pd.read_parquet(out / "flows.parquet")
    queues = pd.read_parquet(out / "queues.parquet")
    assert list(flows["name"]) == ["f"]
    assert len(queues) == 2
    assert flows["packets_sent"].iloc[0] == json.loads(p.stdout)["flows"][0]["packets_sent"]


def test_scenarios_lists_the_builtin_ones() -> None:
    p = afsim_cmd("scenarios")
    assert p.returncode == 0, p.stderr
    names = [line.split()[0] for line in p.stdout.splitlines()]
    assert names == afsim.builtin_scenarios()
    assert "default" in names
    assert {"giacomazzi/scenario1", "giacomazzi/scenario2"} <= set(names), "the papers' scenarios ship"


def test_run_takes_a_builtin_scenario_by_name() -> None:
    p = afsim_cmd("run", "giacomazzi/scenario1", "--set", "max_data_packets=10000", "--format", "json")
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    assert out["scenario"] == "giacomazzi-scenario1"
    assert out["conservation"]["holds"]


# ---------------------------------------------------------------------------------------------
# Bad input: exit 2, the place in stderr, nothing on stdout.


def test_missing_file_exits_2(tmp_path: Path) -> None:
    p = afsim_cmd("run", tmp_path / "nope.toml")
    assert p.returncode == 2
    assert p.stdout == ""
    assert "nope.toml" in p.stderr
    assert "built-in scenarios:" in p.stderr and "giacomazzi/scenario1" in p.stderr, "says what a name could be"


def test_set_without_equals_is_a_usage_error(tiny: Path) -> None:
    p = afsim_cmd("run", tiny, "--set", "rate")
    assert p.returncode == 2
    assert p.stdout == ""
    assert "KEY=VALUE" in p.stderr


def test_unknown_set_key_exits_2(tiny: Path) -> None:
    p = afsim_cmd("run", tiny, "--set", "no_such_param=3", "--format", "json")
    assert p.returncode == 2
    assert p.stdout == ""
    assert p.stderr.startswith("afsim: error: ")
    assert "no_such_param" in p.stderr


TINY = (Path(__file__).parent / "data" / "tiny.toml").read_text(encoding="utf-8")

# (case, text replaced in tiny.toml, replacement). The error must name the replacement's line.
MALFORMED = [
    ("toml_syntax", 'name = "tiny"', 'name = "tiny'),
    ("unknown_field", 'delay = "5ms"', 'delay = "5ms"\ncolour = "red"'),
    ("wrong_unit", 'delay = "5ms"', 'delay = "5kg"'),
    ("negative_rate", 'rate = "$rate"', 'rate = "-1Mbps"'),
    ("missing_node", 'between = ["a", "b"]', 'between = ["a", "zz"]'),
    ("route_loop", 'queue = { kind = "droptail", limit = "50pkt" }',
     'queue = { kind = "droptail", limit = "50pkt" }\n\n[[route]]\npath = ["a", "b", "a", "b"]'),
    ("unused_parameter", 'rate = "1Mbps"', 'rate = "1Mbps"\nunused = "3"'),
    ("sima_buffer", 'limit = "50pkt" }', 'limit = "50pkt" }\nreverse_queue = { kind = "sima", nrt_limit = "10B" }'),
    ("sima_weight", 'limit = "50pkt" }', 'limit = "50pkt" }\nreverse_queue = { kind = "sima", rt_weight = 2 }'),
    ("sima_nbr", 'packet_size = "500B"',
     'packet_size = "500B"\n\n[[conditioner]]\nname = "c"\nat = "a"\n'
     'meter = { kind = "sima", nbr = "4bps", capacity = "10Mbps", alpha = 0.01 }'),
    ("tfrc_headers_fill_the_packet", 'kind = "cbr"\nrate = "$rate"\npacket_size = "500B"',
     'kind = "tfrc"\npacket_size = "20B"'),
    ("tfrc_target_zero", 'kind = "cbr"\nrate = "$rate"\npacket_size = "500B"',
     'kind = "tfrc"\ntarget_rate = "0bps"'),
    ("link_loss_above_one", 'delay = "5ms"', 'delay = "5ms"\nloss = 1.5'),
]


@pytest.mark.parametrize(("case", "old", "new"), MALFORMED, ids=[m[0] for m in MALFORMED])
def test_malformed_scenario_exits_2_with_file_and_line(
    tmp_path: Path, case: str, old: str, new: str
) -> None:
    assert TINY.count(old) >= 1, old
    text = TINY.replace(old, new, 1)
    path = tmp_path / f"{case}.toml"
    path.write_text(text, encoding="utf-8")
    # The line of the last line of the replacement (where the fault is).
    fault_line = text[: text.index(new) + len(new)].count("\n") + 1
    p = afsim_cmd("run", path, "--format", "json")
    assert p.returncode == 2, p.stderr
    assert p.stdout == ""
    match = re.match(rf"afsim: error: (.*{case}\.toml):(\d+):(\d+): ", p.stderr)
    assert match, p.stderr
    assert int(match.group(2)) in (fault_line, fault_line - new.count("\n")), p.stderr
    assert p.stderr.count("\n") == 1  # one line, no traceback


# ---------------------------------------------------------------------------------------------
# Exit codes of failures that input cannot trigger, through cli.main in this process.


def test_conservation_error_exits_1(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tiny: Path
) -> None:
    def broken(*args: object, **kwargs: object) -> None:
        raise afsim.ConservationError(
            "packet conservation violated: sent = delivered + dropped + in flight: 5 = 3 + 1 + 0"
        )

    monkeypatch.setattr(afsim._core, "run", broken)
    assert cli.main(["run", str(tiny), "--format", "json"]) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert "5 = 3 + 1 + 0" in err


def test_keyboard_interrupt_exits_130(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tiny: Path
) -> None:
    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(afsim._core, "run", interrupted)
    assert cli.main(["run", str(tiny)]) == 130
    assert "interrupted" in capsys.readouterr().err


@pytest.mark.parametrize("fmt", ["table", "json", "csv"])
def test_a_reader_that_goes_away_stops_every_format_the_same_way(tiny: Path, fmt: str) -> None:
    """`afsim run | head`: exit 141 (a filter killed by SIGPIPE), no traceback. The pipe's
    reading end is closed before the command starts, so its first write fails."""
    import os
    import subprocess
    import sys

    r, w = os.pipe()
    os.close(r)
    try:
        p = subprocess.run([sys.executable, "-m", "afsim", "run", str(tiny), "--format", fmt],
                           stdout=w, stderr=subprocess.PIPE, text=True, timeout=120, check=False)
    finally:
        os.close(w)
    assert p.returncode == cli.EXIT_BROKEN_PIPE, p.stderr
    assert "Traceback" not in p.stderr


# ---------------------------------------------------------------------------------------------
# A command line fit for scripts: checks before the run, warnings, light imports


def test_run_format_json_imports_neither_pandas_nor_pyarrow_nor_numpy(tiny: Path) -> None:
    import subprocess
    import sys

    code = ("import json, sys; from afsim import cli; rc = cli.main(['run', sys.argv[1], "
            "'--format', 'json']); heavy = sorted({m.split('.')[0] for m in sys.modules} & "
            "{'pandas', 'pyarrow', 'numpy', 'rich', 'scipy', 'matplotlib'}); "
            "print(json.dumps(heavy), file=sys.stderr); sys.exit(rc)")
    p = subprocess.run([sys.executable, "-c", code, str(tiny)], capture_output=True, text=True,
                       timeout=60, check=False)
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stderr.strip().splitlines()[-1]) == []
    assert json.loads(p.stdout)["scenario"] == "tiny"


@pytest.mark.parametrize("kind", ["directory", "fifo", "loop", "dangling"])
def test_a_scenario_path_that_is_no_file_is_named_as_what_it_is(tmp_path: Path, kind: str) -> None:
    import os

    path = tmp_path / "s.toml"
    if kind == "directory":
        path.mkdir()
        expected = "a directory, not a scenario file"
    elif kind == "fifo":
        os.mkfifo(path)
        expected = "a FIFO (named pipe), not a scenario file"
    elif kind == "loop":
        os.symlink(tmp_path / "t.toml", path)
        os.symlink(path, tmp_path / "t.toml")
        expected = "a symbolic link loop"
    else:
        os.symlink(tmp_path / "gone.toml", path)
        expected = f"a symbolic link to '{tmp_path / 'gone.toml'}', which does not exist"
    p = afsim_cmd("run", path, timeout=30)
    assert p.returncode == 2, p.stderr
    assert p.stderr.startswith(f"afsim: error: {path}: {expected}"), p.stderr
    assert "no such scenario file" not in p.stderr


@pytest.mark.parametrize("kind", ["file", "missing parent", "parent is a file"])
def test_a_bad_out_is_exit_2_before_the_run(tiny: Path, tmp_path: Path, kind: str) -> None:
    (tmp_path / "f").write_text("x")
    out = {"file": tmp_path / "f", "missing parent": tmp_path / "no" / "out",
           "parent is a file": tmp_path / "f" / "out"}[kind]
    expected = {"file": "a file is in the way", "missing parent": "does not exist",
                "parent is a file": "is not a directory"}[kind]
    p = afsim_cmd("run", tiny, "--out", out, "--set", "rate=1Mbps")
    assert p.returncode == 2
    assert p.stderr.startswith(f"afsim: error: --out {out}: "), p.stderr
    assert expected in p.stderr
    assert "Traceback" not in p.stderr and p.stdout == "", "nothing ran"


def test_surely_unmeant_settings_are_warned_about_on_stderr_and_in_the_json(
        tiny: Path, tmp_path: Path) -> None:
    text = tiny.read_text().replace('packet_size = "500B"', 'packet_size = "500B"\nstart = "3s"')
    text = text.replace('limit = "50pkt"', 'limit = "400B"')
    scen = tmp_path / "late.toml"
    scen.write_text(text)
    p = afsim_cmd("run", scen, "--format", "json")
    assert p.returncode == 0, p.stderr
    lines = p.stderr.splitlines()
    assert len(lines) == 2, lines
    assert lines[0].startswith(f"afsim: warning: {scen}:20:") and "link[0].queue" in lines[0]
    assert "its limit of 400 B is less than one 500-byte packet of flow 'f'" in lines[0]
    assert lines[1].startswith(f"afsim: warning: {scen}:29:9: flow[0].start: flow 'f' starts "
                               "at 3s, not before the run ends (2s)")
    report = json.loads(p.stdout)
    assert [w["field"] for w in report["warnings"]] == ["link[0].queue", "flow[0].start"]


# ---------------------------------------------------------------------------------------------
# afsim sweep / results / report


def test_sweep_results_and_report_from_the_command_line(tiny: Path, tmp_path: Path) -> None:
    store = tmp_path / "store"
    p = afsim_cmd("sweep", tiny, "--grid", "rate=1Mbps,2Mbps", "--replications", "2",
                  "--store", store, "--workers", "1", "--format", "json")
    assert p.returncode == 0, p.stderr
    points = json.loads(p.stdout)
    assert [pt["param.rate"] for pt in points] == ["1Mbps", "2Mbps"]
    assert points[1]["throughput_kbps_total.mean"] == pytest.approx(1996.0)
    assert points[0]["runs"] == 2
    assert "4 runs: 4 computed, 0 from the store" in p.stderr
    again = afsim_cmd("sweep", tiny, "--grid", "rate=1Mbps,2Mbps,4Mbps", "--replications", "2",
                      "--store", store, "--workers", "1", "--format", "csv")
    assert again.returncode == 0, again.stderr
    assert "6 runs: 2 computed, 4 from the store" in again.stderr
    runs = pd.read_csv(io.StringIO(afsim_cmd("results", store, "--format", "csv").stdout))
    assert len(runs) == 6 and set(runs["param.rate"]) == {"1Mbps", "2Mbps", "4Mbps"}
    doc = json.loads(afsim_cmd("results", store, "--format", "json").stdout)
    assert len(doc["runs"]) == 6 and len(doc["points"]) == 3
    table = afsim_cmd("results", store)
    assert table.returncode == 0 and "4Mbps" in table.stdout and "6 runs in" in table.stdout
    export = tmp_path / "export"
    p = afsim_cmd("results", store, "--export", export, "--format", "csv")
    assert p.returncode == 0, p.stderr
    assert {f.name for f in export.iterdir()} >= {"runs.csv", "runs.parquet", "points.csv",
                                                   "flows.parquet", "queues.parquet"}
    assert len(pd.read_parquet(export / "flows.parquet")) == 6
    p = afsim_cmd("report", store, "-o", tmp_path / "r.html")
    assert p.returncode == 0 and (tmp_path / "r.html").stat().st_size > 10_000


@pytest.mark.parametrize("args, message", [
    (["--grid", "nope=1,2"], "--grid/--set nope: unknown parameter 'nope'; the parameters are: rate"),
    (["--grid", "rate"], "--grid 'rate': expected NAME=V1,V2,..."),
    (["--grid", "rate=1Mbps", "--set", "rate=2Mbps"], "rate: both swept (--grid) and set (--set)"),
    (["--replications", "0"], "--replications must be at least 1"),
    (["--grid", "rate=1Mbps,-1Mbps"], "tiny.toml:"),
])
def test_sweep_input_errors_are_exit_2(tiny: Path, tmp_path: Path, args: list[str],
                                       message: str) -> None:
    p = afsim_cmd("sweep", tiny, "--store", tmp_path / "s", *args)
    assert p.returncode == 2, p.stderr
    assert message in p.stderr
    assert "Traceback" not in p.stderr


def test_a_store_of_another_afsim_version_is_exit_2_for_a_sweep(tiny: Path,
                                                                tmp_path: Path) -> None:
    import sqlite3

    store = tmp_path / "s"
    assert afsim_cmd("sweep", tiny, "--store", store, "--workers", "1").returncode == 0
    with sqlite3.connect(store / "catalog.sqlite") as db:
        db.execute("UPDATE meta SET value = '0.0.1' WHERE name = 'afsim_version'")
    p = afsim_cmd("sweep", tiny, "--store", store)
    assert p.returncode == 2
    assert "this store holds runs of afsim 0.0.1" in p.stderr
    assert afsim_cmd("results", store).returncode == 0, "still readable"


def test_results_and_report_of_a_path_that_is_no_store_are_exit_2(tmp_path: Path) -> None:
    for cmd in ("results", "report"):
        p = afsim_cmd(cmd, tmp_path / "nothing")
        assert p.returncode == 2 and "no results store here" in p.stderr


@pytest.mark.parametrize("command", [
    ["run", "{tiny}", "--out", "/proc/afsim-out"],
    ["results", "{store}", "--export", "/proc/afsim-out"],
    ["report", "{store}", "-o", "/proc/afsim-out.html"],
])
def test_an_out_that_exists_but_cannot_be_written_is_exit_2_before_anything_runs(
        tiny: Path, tmp_path: Path, command: list[str]) -> None:
    # the parent (/proc) exists and root may write it by its mode bits, yet nothing can be
    # made there: found by making the directory and a probe file first
    store = tmp_path / "s"
    assert afsim_cmd("sweep", tiny, "--store", store).returncode == 0
    p = afsim_cmd(*(a.format(tiny=tiny, store=store) for a in command))
    assert p.returncode == 2, p.stderr
    assert "Traceback" not in p.stderr and p.stdout == ""
    assert re.search(r"afsim: error: (--out|--export|-o) /proc/afsim-out(\.html: its directory "
                     r"/proc)?:? .*cannot write there", p.stderr), p.stderr


def test_sweep_help_writes_percent_signs_once() -> None:
    p = afsim_cmd("sweep", "--help")
    assert p.returncode == 0
    assert "95% confidence" in " ".join(p.stdout.split()) and "%%" not in p.stdout


def test_tables_print_at_most_rows_rows_and_say_how_many_are_left() -> None:
    # issue 28: a run of 100,000 flows printed every flow (minutes, gigabytes); --rows bounds it
    p = afsim_cmd("run", "bench/af-reference", "--set", "duration=2s", "--rows", "5")
    assert p.returncode == 0, p.stderr
    assert "… and 45 more flows" in p.stdout, p.stdout
    assert "cbr4 " in p.stdout and "cbr5 " not in p.stdout
    every = afsim_cmd("run", "bench/af-reference", "--set", "duration=2s", "--rows", "0")
    assert "more flows" not in every.stdout and "cbr49 " in every.stdout
    bad = afsim_cmd("run", "--rows", "-1")
    assert bad.returncode == 2 and "--rows" in bad.stderr, bad.stderr
