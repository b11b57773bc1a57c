"""pcap capture (crates/afsim-core/src/net/pcap.rs) read back by tshark: the DSCP, ECN bits and
TCP sequence numbers it shows are the ones afsim's own counters say were sent."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections import Counter
from pathlib import Path

import pytest
from conftest import DATA, afsim_cmd

TCP_ECN = DATA / "tcp_ecn.toml"


def tshark_fields(pcap: Path, *fields: str, extra: tuple[str, ...] = ()) -> list[list[str]]:
    if shutil.which("tshark") is None:
        if os.environ.get("CI"):
            pytest.fail("tshark is not installed (.ci/run installs it)")
        pytest.skip("tshark is not installed (apt-get install tshark)")
    args = ["tshark", "-n", "-r", str(pcap), *extra, "-T", "fields"]
    for f in fields:
        args += ["-e", f]
    p = subprocess.run(args, capture_output=True, text=True, timeout=60, check=False)
    assert p.returncode == 0, p.stderr
    return [line.split("\t") for line in p.stdout.splitlines()]


@pytest.fixture(scope="module")
def captured(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    out = tmp_path_factory.mktemp("capture")
    p = afsim_cmd("run", TCP_ECN, "--format", "json", "--capture", f"s1->r1={out / 'data.pcap'}",
                  "--capture", f"r1->r2={out / 'bottleneck.pcap'}",
                  "--capture", f"r2->r1={out / 'acks.pcap'}")
    assert p.returncode == 0, p.stderr
    return out, json.loads(p.stdout)


def flow(report: dict, name: str) -> dict:
    return next(f for f in report["flows"] if f["name"] == name)


def queue(report: dict, name: str) -> dict:
    return next(q for q in report["queues"] if q["name"] == name)


def test_one_record_per_departure_with_the_flows_dscp(captured: tuple[Path, dict]) -> None:
    out, report = captured
    rows = tshark_fields(out / "bottleneck.pcap", "ip.dsfield.dscp", "ip.src", "ip.dst")
    assert len(rows) == queue(report, "r1->r2")["departures"]
    assert Counter(r[0] for r in rows) == {"10": len(rows)}, "every data packet is AF11"
    # node indices: s0..s2 = 0..2 → 10.0.0.1..3; d0..d2 = 5..7 → 10.0.0.6..8
    assert {r[1] for r in rows} == {"10.0.0.1", "10.0.0.2", "10.0.0.3"}
    assert {r[2] for r in rows} == {"10.0.0.6", "10.0.0.7", "10.0.0.8"}


def test_ce_marks_on_the_wire_are_the_queues_ecn_marks(captured: tuple[Path, dict]) -> None:
    out, report = captured
    q = queue(report, "r1->r2")
    assert q["ecn_marks"] > 0, "the scenario must mark for this test to mean anything"
    ecn = Counter(r[0] for r in tshark_fields(out / "bottleneck.pcap", "ip.dsfield.ecn"))
    # a packet marked on arrival leaves marked, unless it is still queued when the run ends
    assert q["ecn_marks"] - q["len_packets_end"] <= ecn["3"] <= q["ecn_marks"]
    # everything else is ECT(0) except the SYNs and retransmissions (RFC 3168 §6.1.1, §6.1.5)
    syns_and_retx = sum(1 + flow(report, f"t{i}")["retransmitted_packets"] for i in range(3))
    # (a retransmission dropped before the bottleneck never reaches it)
    assert 3 <= ecn["0"] <= syns_and_retx
    assert ecn["2"] + ecn["3"] + ecn["0"] == q["departures"]


def test_sequence_numbers_count_the_bytes_afsim_sent(captured: tuple[Path, dict]) -> None:
    out, report = captured
    t1 = flow(report, "t1")
    rows = tshark_fields(out / "data.pcap", "tcp.seq_raw", "tcp.len", "tcp.flags.syn",
                         "ip.len")
    assert len(rows) == t1["packets_sent"]
    assert rows[0][0] == "0" and rows[0][2] == "1", "the SYN carries the ISN, 0"
    seqs = Counter(r[0] for r in rows[1:])
    assert sum(n - 1 for n in seqs.values()) == t1["retransmitted_packets"]
    assert sum(int(r[1]) for r in rows) == t1["bytes_sent"] - 40 * t1["packets_sent"]
    # data byte k has sequence number 1 + k; segments are MSS = 960 bytes long
    assert sorted(int(s) for s in seqs)[:3] == [1, 961, 1921]
    # IP lengths are afsim's sizes, plus the SYN's 4-byte SACK-permitted option, which afsim
    # (like ns-2) does not count
    assert sum(int(r[3]) for r in rows) == t1["bytes_sent"] + 4


def test_acks_carry_ece_sack_blocks_and_valid_checksums(captured: tuple[Path, dict]) -> None:
    out, report = captured
    rows = tshark_fields(out / "acks.pcap", "tcp.flags.ece", "tcp.options.sack.count",
                         "tcp.checksum.status", "ip.checksum.status", "tcp.ack_raw",
                         "tcp.dstport",
                         extra=("-o", "tcp.check_checksum:TRUE", "-o", "ip.check_checksum:TRUE"))
    assert len(rows) == queue(report, "r2->r1")["departures"]
    assert all(r[2] == "1" and r[3] == "1" for r in rows), "checksums verify (status 1: good)"
    assert sum(r[0] == "1" for r in rows) > 0, "receivers echo CE marks"
    assert sum(r[1] not in ("", "0") for r in rows) > 0, "losses make SACK blocks"
    # the receiver of t1 (source port 10001) acknowledges at most what it delivered in order
    acks = [int(r[4]) for r in rows if r[5] == "10001"]
    assert max(acks) - 1 == flow(report, "t1")["goodput_bytes"]


def test_an_unknown_port_or_unwritable_file_is_exit_2_before_the_run(tmp_path: Path) -> None:
    p = afsim_cmd("run", TCP_ECN, "--capture", "r1->r9")
    assert p.returncode == 2
    assert "--capture r1->r9: no port 'r1->r9'; the ports are: s0->r1" in p.stderr
    p = afsim_cmd("run", TCP_ECN, "--capture", f"r1->r2={tmp_path / 'missing' / 'x.pcap'}")
    assert p.returncode == 2
    assert "does not exist" in p.stderr
    bad = tmp_path / "bad.toml"
    bad.write_text(TCP_ECN.read_text() + '\n[[capture]]\nport = "r1->r3"\nfile = "x.pcap"\n')
    p = afsim_cmd("run", bad)
    assert p.returncode == 2
    assert f"{bad}:" in p.stderr and "capture[0].port: no port 'r1->r3'" in p.stderr


def test_a_capture_table_in_the_scenario_writes_its_file(tmp_path: Path) -> None:
    scen = tmp_path / "cap.toml"
    pcap = tmp_path / "out.pcap"
    scen.write_text(TCP_ECN.read_text() + f'\n[[capture]]\nport = "r2->r1"\nfile = "{pcap}"\n')
    p = afsim_cmd("run", scen, "--format", "json")
    assert p.returncode == 0, p.stderr
    report = json.loads(p.stdout)
    assert len(tshark_fields(pcap, "frame.number")) == queue(report, "r2->r1")["departures"]
