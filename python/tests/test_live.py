"""`afsim live` (python/afsim/live, crate afsim-live): a real run, cleanup on every way out,
and the refusal without privileges.

The tests that create namespaces need root (CAP_NET_ADMIN, CAP_SYS_ADMIN) and skip with the
reason where it is missing; CI runs as root. Together they take about 20 s of wall time.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import DATA, afsim_cmd

from afsim.live import netns

SMALL = DATA / "live-small.toml"


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
