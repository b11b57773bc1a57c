"""The `afsim` command (afsim/cli.py), run as a user runs it: in a subprocess."""

from __future__ import annotations

import io
import json
import re
import sysconfig
from pathlib import Path

import pandas as pd
import pytest

import afsim
from afsim import cli
from afsim.results import OUTPUT_FILES

from conftest import afsim_cmd

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
    assert FLOW_FIELDS <= set(report["flows"][0])
    assert QUEUE_FIELDS <= set(report["queues"][0])
    assert CONSERVATION_FIELDS <= set(report["conservation"])
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
    p = afsim_cmd("run", "giacomazzi/scenario1", "--set", "max_packets=20000", "--format", "json")
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

    monkeypatch.setattr(afsim, "run", broken)
    assert cli.main(["run", str(tiny), "--format", "json"]) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert "5 = 3 + 1 + 0" in err


def test_keyboard_interrupt_exits_130(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tiny: Path
) -> None:
    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(afsim, "run", interrupted)
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
