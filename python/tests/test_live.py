"""`afsim live` (python/afsim/live, crate afsim-live): a real run, cleanup on every way out,
and the refusal without privileges.

The tests that create namespaces need root (CAP_NET_ADMIN, CAP_SYS_ADMIN) and skip with the
reason where it is missing; CI runs as root. Together they take about 20 s of wall time.
"""

from __future__ import annotations

import csv
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import DATA, afsim_cmd

from afsim.live import netns

SMALL = DATA / "live-small.toml"
TRANSFER = DATA / "live-transfer.toml"


def _privileged() -> str | None:
    try:
        netns.check_privileges()
    except netns.LivePermissionError as e:
        return str(e)
    except netns.LiveSetupError as e:
        return str(e)
    return None


needs_root = pytest.mark.skipif(_privileged() is not None, reason=f"needs root: {_privileged()}")


def _ours() -> set[str]:
    return set(netns.list_namespaces())


def _links_with_prefix() -> list[str]:
    out = subprocess.run(["ip", "-o", "link"], capture_output=True, text=True).stdout
    return [line for line in out.splitlines() if netns.PREFIX_RE.search(line.split(":")[1].strip())]


def test_without_privileges_it_exits_2_before_creating_anything() -> None:
    before = _ours()
    env = dict(os.environ, **{netns.FAKE_NONROOT_ENV: "1"})
    p = subprocess.run([sys.executable, "-m", "afsim", "live", str(SMALL)], capture_output=True,
                       text=True, env=env, timeout=60)
    assert p.returncode == 2, p.stderr
    assert "needs root" in p.stderr and "Nothing was created" in p.stderr
    assert _ours() == before
    # --cleanup is refused the same way
    p = subprocess.run([sys.executable, "-m", "afsim", "live", "--cleanup"], capture_output=True,
                       text=True, env=env, timeout=60)
    assert p.returncode == 2


@pytest.mark.skipif(os.geteuid() != 0 or not Path("/usr/bin/setpriv").exists(),
                    reason="needs root to drop it, and setpriv")
def test_a_really_unprivileged_user_gets_exit_2() -> None:
    drop = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--inh-caps=-all"]
    probe = subprocess.run([*drop, sys.executable, "-c", "import afsim"], capture_output=True,
                           text=True, timeout=60, cwd="/")
    if probe.returncode != 0:
        # e.g. a Python installed under /root (pyenv), which nobody may not read
        pytest.skip(f"nobody cannot run this interpreter with afsim: {probe.stderr.strip()[-120:]}")
    p = subprocess.run([*drop, sys.executable, "-m", "afsim", "live", str(SMALL)],
                       capture_output=True, text=True, timeout=60, cwd="/")
    assert p.returncode == 2, p.stderr
    assert "CAP_NET_ADMIN" in p.stderr


@needs_root
def test_a_live_run_carries_the_bottleneck_rate_and_leaves_nothing(tmp_path: Path) -> None:
    before = _ours()
    p = afsim_cmd("live", SMALL, "--format", "json", "--out", tmp_path, timeout=60)
    assert p.returncode == 0, p.stderr
    s = json.loads(p.stdout)
    assert json.loads((tmp_path / "summary.json").read_text()) == s
    assert s["mode"] == "live" and s["conservation"]["holds"]
    (flow,) = s["flows"]
    assert flow["kind"] == "tcp-reno"
    # a greedy TCP flow fills the 10 Mb/s bottleneck: the forwarder's pacing delivers its rate
    assert flow["throughput_kbps"] == pytest.approx(10_000, rel=0.01)
    assert flow["goodput_kbps"] > 9_000
    assert flow["rtt_mean_s"] > 0.024  # 2 × 12 ms of propagation, plus queueing
    q = {r["name"]: r for r in s["queues"]}
    assert q["r1->r2"]["utilization"] > 0.6
    # every drop is the model's, counted at its queue, and TCP saw it
    assert q["r1->r2"]["drops_total"] == flow["packets_dropped"]
    if flow["packets_dropped"]:
        assert flow["retransmitted_packets"] >= 1
    assert all(v is None for k, v in flow.items() if k in s["not_measured"])
    fw = s["live"]["forwarder"]
    assert sum(x["kernel_drops"] for x in fw["sockets"]) == 0
    assert fw["frames"]["oversize"] == 0
    assert _ours() == before
    assert _links_with_prefix() == []


def _start(*args: str) -> tuple[subprocess.Popen, str]:
    """Starts `afsim live`; returns it with the prefix of the namespaces it created."""
    before = _ours()
    p = subprocess.Popen([sys.executable, "-m", "afsim", "live", *args], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        new = _ours() - before
        # the forwarder and every host namespace exist: wait for the run to be under way
        if len(new) >= 3:
            time.sleep(1.0)
            return p, next(iter(new))[:10]
        time.sleep(0.05)
    p.kill()
    p.communicate()
    raise AssertionError("no namespaces appeared")


@needs_root
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_during_a_run_removes_its_namespaces(sig: signal.Signals) -> None:
    p, prefix = _start(str(SMALL), "--set", "duration=20s", "--format", "json")
    p.send_signal(sig)
    _, err = p.communicate(timeout=30)
    assert p.returncode != 0
    assert not any(n.startswith(prefix) for n in _ours()), err
    assert _links_with_prefix() == []


@needs_root
def test_sigkill_leaves_namespaces_that_cleanup_removes() -> None:
    p, prefix = _start(str(SMALL), "--set", "duration=20s", "--format", "json")
    p.kill()
    p.communicate(timeout=10)
    left = [n for n in _ours() if n.startswith(prefix)]
    assert left, "a SIGKILLed run cannot clean up: its namespaces are still there"
    r = afsim_cmd("live", "--cleanup", timeout=60)
    assert r.returncode == 0, r.stderr
    for n in left:
        assert f"removed namespace {n}" in r.stdout
    assert not any(n.startswith(prefix) for n in _ours())
    assert _links_with_prefix() == []
    # the run's processes died with it (PR_SET_PDEATHSIG) or with --cleanup
    ps = subprocess.run(["ps", "-eo", "args"], capture_output=True, text=True).stdout
    assert prefix not in ps


@needs_root
def test_cleanup_leaves_a_run_in_progress_alone() -> None:
    """`--cleanup` removes only what dead runs left: a run whose process still lives keeps its
    namespaces (two runs, or a run and a cleanup, can share a host); `--force` takes them too."""
    p, prefix = _start(str(SMALL), "--set", "duration=20s", "--format", "json")
    try:
        mine = {n for n in _ours() if n.startswith(prefix)}
        r = afsim_cmd("live", "--cleanup", timeout=60)
        assert r.returncode == 0, r.stderr
        assert f"left run {prefix}* alone" in r.stdout
        assert not any(f"removed namespace {n}" in r.stdout for n in mine)
        assert mine <= _ours() and p.poll() is None
    finally:
        p.kill()
        p.communicate(timeout=10)
    # its process is dead now: the same command removes them
    r = afsim_cmd("live", "--cleanup", timeout=60)
    assert r.returncode == 0, r.stderr
    assert all(f"removed namespace {n}" in r.stdout for n in mine)
    assert not any(n.startswith(prefix) for n in _ours())
    assert not (netns.OWNER_DIR / f"{prefix.rstrip('-')}.owner").exists()


def test_force_needs_cleanup() -> None:
    r = afsim_cmd("live", "--force", timeout=60)
    assert r.returncode == 2 and "--force goes with --cleanup" in r.stderr


def test_cc_option_parsing() -> None:
    from afsim.live.run import parse_cc

    flows = [{"name": "a0", "group": "a"}, {"name": "a1", "group": "a"}, {"name": "b", "group": "b"}]
    assert parse_cc([], flows) == ["reno"] * 3
    assert parse_cc(["cubic", "a1=bbr"], flows) == ["cubic", "bbr", "cubic"]
    assert parse_cc(["a=bbr"], flows) == ["bbr", "bbr", "reno"]
    with pytest.raises(ValueError, match="one of"):
        parse_cc(["vegas"], flows)
    with pytest.raises(ValueError, match="no flow"):
        parse_cc(["zz=bbr"], flows)


def test_scenarios_that_cannot_run_live_are_refused_with_the_reason() -> None:
    import afsim
    from afsim import _core

    s = afsim.load_scenario(text="""
[scenario]
name = "x"
duration = "1s"
[[node]]
name = "a"
[[node]]
name = "b"
[[link]]
between = ["a", "b"]
rate = "1Mbps"
delay = "1ms"
[[flow]]
name = "f"
from = "a"
to = "b"
kind = "cbr"
rate = "100kbps"
packet_size = "500B"
""")
    with pytest.raises(ValueError, match="through a router"):
        _core.live_plan(s)


@needs_root
@pytest.mark.skipif(shutil.which("tshark") is None, reason="needs tshark (apt-get install tshark)")
def test_capture_holds_every_tcp_segment_that_left_the_link(tmp_path: Path) -> None:
    before = _ours()
    t_start = time.time()
    p = afsim_cmd("live", SMALL, "--capture", "r1->r2", "--format", "json", "--out", tmp_path,
                  timeout=60)
    t_end = time.time()
    assert p.returncode == 0, p.stderr
    s = json.loads(p.stdout)
    pcap = tmp_path / "r1-r2.pcap"  # afsim run's name for the port's file
    (cap,) = s["live"]["captures"]
    assert (cap["port"], Path(cap["path"]), cap["error"]) == ("r1->r2", pcap.resolve(), None)
    q = {r["name"]: r for r in s["queues"]}["r1->r2"]
    fields = subprocess.run(
        ["tshark", "-r", str(pcap), "-n", "-T", "fields", "-E", "separator=,", "-e", "frame.time_epoch",
         "-e", "ip.src", "-e", "ip.dst", "-e", "ip.len", "-e", "tcp.dstport", "-e", "tcp.len",
         "-e", "ip.checksum.status"],
        capture_output=True, text=True, timeout=60, check=True).stdout.splitlines()
    rows = [line.split(",") for line in fields]
    # one record per packet the model started transmitting on r1->r2, to the frame
    assert len(rows) == q["departures"] == cap["frames"] > 1000
    # each a TCP segment of the flow, src to dst, whole (the bytes the link carried)
    assert {(r[1], r[2], r[4]) for r in rows} == {("10.200.0.2", "10.200.1.2", "5000")}
    assert sum(int(r[3]) for r in rows) == q["departure_bytes"]
    assert sum(int(r[5]) for r in rows) >= s["flows"][0]["goodput_bytes"]
    # wall-clock time stamps, in order, within the run
    stamps = [float(r[0]) for r in rows]
    assert stamps == sorted(stamps)
    assert t_start < stamps[0] and stamps[-1] < t_end
    assert _ours() == before


@needs_root
def test_host_capture_records_the_acks_as_the_sender_received_them(tmp_path: Path) -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "validation" / "live"))
    import ack_timing

    before = _ours()
    host, model = tmp_path / "src.pcap", tmp_path / "r1-src.pcap"
    p = afsim_cmd("live", SMALL, "--host-capture", f"src={host}", "--capture", f"r1->src={model}",
                  "--format", "json", timeout=60)
    assert p.returncode == 0, p.stderr
    s = json.loads(p.stdout)
    h, m = ack_timing.acks(host), ack_timing.acks(model)
    # the sender's interface received the ACKs the forwarder's r1->src port sent, in order
    # (those still on the 1 ms link when the run ended excepted)
    assert len(h[0]) > 1000 and 0 <= len(m[0]) - len(h[0]) <= 20
    assert h[1] == m[1][:len(h[1])]
    # after the model's arrival instant (departure + 1 ms + serialisation), and late by the
    # forwarder's hand-over only: tens of µs typically (a single ACK can wait tens of ms when
    # the machine's load delays the forwarder, so the median is what is tested)
    late = ack_timing.lateness(h, m, skip_s=0.0)
    assert late["matched"] == len(h[0])
    assert -50 < late["p50_us"] < 1000
    assert s["warnings"] == [] or all("late" in w for w in s["warnings"])
    assert _ours() == before
    # a host that is not in the scenario: exit 2, nothing created
    p = afsim_cmd("live", SMALL, "--host-capture", f"r1={host}", timeout=60)
    assert p.returncode == 2 and "--host-capture r1: no host named 'r1'" in p.stderr
    assert _ours() == before


@needs_root
def test_an_unknown_capture_port_exits_2_before_creating_anything(tmp_path: Path) -> None:
    before = _ours()
    p = afsim_cmd("live", SMALL, "--capture", "r1->r9", "--out", tmp_path, timeout=60)
    assert p.returncode == 2
    assert "--capture r1->r9: no port 'r1->r9'" in p.stderr and "r1->r2" in p.stderr
    assert _ours() == before
    p = afsim_cmd("live", SMALL, "--queue-trace", timeout=60)
    assert p.returncode == 2 and "--out" in p.stderr


@needs_root
def test_a_transfer_run_stops_when_acknowledged_and_traces_the_red_queue(tmp_path: Path) -> None:
    p = afsim_cmd("live", TRANSFER, "--queue-trace", "--format", "json", "--out", tmp_path,
                  timeout=60)
    assert p.returncode == 0, p.stderr
    s = json.loads(p.stdout)
    (flow,) = s["flows"]
    assert flow["completed"] and flow["goodput_bytes"] == 2_000_000
    # until_transfers_complete: the run ended with the transfer, not at its 20 s duration
    assert s["stop_reason"] == "transfers_complete"
    assert flow["completion_time_s"] <= s["end_time_s"] < flow["completion_time_s"] + 0.5
    assert s["end_time_s"] < 15
    # the queue trace: one row per arrival at the RED queue, its drops those of the report
    queues = {r["name"]: r for r in s["queues"]}
    q = queues["r1->r2"]
    with open(tmp_path / "queue-trace.csv", newline="") as f:
        every = list(csv.DictReader(f))
    # the link's RED queues, both directions (the ACKs cross r2->r1), and no drop-tail one
    assert {r["queue"] for r in every} == {"r1->r2", "r2->r1"}
    assert s["live"]["queue_trace"]["rows"] == len(every)
    assert sum(r["queue"] == "r2->r1" for r in every) == queues["r2->r1"]["arrivals"]
    rows = [r for r in every if r["queue"] == "r1->r2"]
    assert len(rows) == q["arrivals"]
    assert sum(r["fate"] != "queued" for r in rows) == q["drops_total"]
    assert sum(r["fate"] == "early" for r in rows) == q["drops"]["early"]
    assert max(int(r["len_packets"]) for r in rows) == q["max_len_packets"]
    assert 0 < max(float(r["avg"]) for r in rows) < 100


def _pcap(path: Path, recs: list[tuple[float, bytes]]) -> None:
    import struct

    out = [struct.pack("<IHHiIII", 0xA1B23C4D, 2, 4, 0, 0, 65535, 101)]
    for t, ip in recs:
        ns = round(t * 1e9)
        out.append(struct.pack("<IIII", ns // 10**9, ns % 10**9, len(ip), len(ip)) + ip)
    path.write_bytes(b"".join(out))


def _seg(seq: int, ack: int, flags: int, payload: int, sport: int, dport: int) -> bytes:
    import struct

    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 40 + payload, 0, 0x4000, 64, 6, 0,
                     bytes([10, 200, 0, 2]), bytes([10, 200, 1, 2]))
    return ip + struct.pack("!HHIIBBHHH", sport, dport, seq % 2**32, ack % 2**32, 5 << 4, flags, 65535, 0, 0) \
        + b"\0" * payload


def test_tcptrace_rtt_samples_acks_of_segments_sent_once(tmp_path: Path) -> None:
    from afsim.live.tcptrace import sender_rtts

    isn, port = 2**32 - 1500, 5003  # sequence numbers wrap past 2^32 after the first segment
    data = [(1.000, _seg(isn, 0, 0x02, 0, 40000, port))]
    # three 1000-byte segments at 1.1, 1.2, 1.3 s; the second is sent again at 1.5 s
    for k, t in enumerate((1.1, 1.2, 1.3)):
        data.append((t, _seg(isn + 1 + 1000 * k, 1, 0x10, 1000, 40000, port)))
    data.append((1.5, _seg(isn + 1001, 1, 0x10, 1000, 40000, port)))
    data.append((1.6, _seg(isn + 3001, 1, 0x10, 1000, 40000, 9999)))  # another connection
    ack = lambda a: _seg(1, (isn + a) % 2**32, 0x10, 0, port, 40000)
    acks = [(1.15, ack(1001)),   # segment 1, sent once: 0.05 s (+ 0.01 s to reach the sender)
            (1.16, ack(1001)),   # a duplicate: no sample
            (1.55, ack(3001)),   # covers segment 3 (once, 0.25 s) past the retransmitted 2
            (1.56, ack(2001))]   # older than what was acknowledged: no sample
    _pcap(tmp_path / "d.pcap", data)
    _pcap(tmp_path / "a.pcap", acks)
    r = sender_rtts(tmp_path / "d.pcap", tmp_path / "a.pcap", port, lambda n: 0.01)
    assert r["rtt_samples"] == 2
    assert r["rtt_mean_s"] == pytest.approx((0.06 + 0.26) / 2)
    assert r["rtt_std_s"] == pytest.approx(0.10)
    assert r["syn_s"] == pytest.approx(1.0)
    # the retransmitted segment's own ACK gives none (Karn)
    _pcap(tmp_path / "a2.pcap", [(1.55, ack(2001))])
    assert sender_rtts(tmp_path / "d.pcap", tmp_path / "a2.pcap", port, lambda n: 0.0)["rtt_samples"] == 0


@needs_root
def test_a_live_conditioner_checks_its_contract_against_what_its_flow_delivered(
        tmp_path: Path) -> None:
    before = _ours()
    f = tmp_path / "cond.toml"
    f.write_text(SMALL.read_text() + '\n[[conditioner]]\nname = "edge"\nat = "r1"\nfrom = "src"\n'
                 'meter = { kind = "token_bucket", rate = "4Mbps", depth = "15KB" }\n'
                 'green = "AF11"\nyellow = "AF12"\n')
    p = afsim_cmd("live", f, "--format", "json", timeout=60)
    assert p.returncode == 0, p.stderr
    s = json.loads(p.stdout)
    (c,) = s["conditioners"]
    (flow,) = s["flows"]
    # measured at the forwarder, as the flow's own throughput (no NaN, no null)
    assert c["contract_kbps"] == pytest.approx(4000.0)
    assert c["delivered_kbps"] == pytest.approx(flow["throughput_kbps"])
    assert c["delivered_ros"] == pytest.approx(flow["throughput_kbps"] / 4000.0)
    assert c["delivered_kbps"] > 0
    assert _ours() == before
