"""``afsim live``: run a scenario on real Linux TCP/UDP between network namespaces, through
afsim-core's own links, queues and conditioners driven by the wall clock.

Read this first — a live run, in order:

1. the privilege check (root: CAP_NET_ADMIN and CAP_SYS_ADMIN), before anything is created;
2. the scenario is loaded as ``afsim run`` loads it, and its plan taken (``_core.live_plan``:
   which nodes are hosts, the flows' parameters; what cannot run live is refused here);
3. namespaces and veths are created under a run-unique prefix (``netns.Topology``); from here
   on, whatever happens (an error, Ctrl-C, SIGTERM, SIGHUP), ``finally`` removes them;
4. the forwarder process starts in the forwarder namespace (``afsim.live.forwarder``), one
   generator process per host namespace (``gen.py``); each prints ``ready``;
5. the run's time zero (CLOCK_MONOTONIC, shared by every namespace) is sent to all of them;
   they run for the scenario's duration and print their results — or, for a scenario with
   ``until_transfers_complete``, until every finite TCP transfer is acknowledged: each sender
   says ``done`` when TCP_INFO shows its last byte acknowledged, and once all have, the
   generators are told ``stop`` and the forwarder gets SIGTERM (it ends its counters then:
   ``end_time_s``, ``stop_reason = "transfers_complete"``);
6. the results are joined into afsim's report shape (``summary``): the per-flow, per-queue,
   per-colour and per-conditioner rows, with every value measured live; what cannot be measured
   live is ``None`` and named in ``not_measured``.

Children die with this process (``PR_SET_PDEATHSIG``); a run killed with SIGKILL leaves only
namespaces, which ``afsim live --cleanup`` removes.
"""

from __future__ import annotations

import ctypes
import json
import os
import queue
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from afsim.live import netns
from afsim.live.netns import LivePermissionError, LiveSetupError, Topology

__all__ = ["LivePermissionError", "LiveSetupError", "live", "CC_NAMES", "parse_cc"]

CC_NAMES = ("reno", "cubic", "bbr")
FLOW_PORT_BASE = 5000
#: Fields of the report's flow rows that a live run cannot measure (always None live).
NOT_MEASURED = {
    "ecn_reductions": "Linux counts no per-flow ECN window reductions",
    "ce_received": "the receiver's CE count is not in TCP_INFO (see live.delivered_ce)",
    "x_kbps": "TFRC does not run live",
    "x_recv_kbps": "TFRC does not run live",
    "loss_event_rate": "TFRC does not run live",
    "loss_events": "TFRC does not run live",
    "feedback_packets": "TFRC does not run live",
    "nofeedback_expiries": "TFRC does not run live",
}


class _Stop(BaseException):
    """SIGTERM or SIGHUP arrived: unwind and clean up."""


def parse_cc(specs: list[str], flows: list[dict]) -> list[str]:
    """Congestion control per flow from ``--cc`` values: ``NAME`` for every flow, or
    ``FLOW=NAME`` / ``GROUP=NAME`` for some (later ones win). Default: the flow's ``cc`` in
    the scenario (reno when it has none)."""
    cc = [f.get("cc") or "reno" for f in flows]
    for spec in specs:
        target, _, name = spec.rpartition("=")
        if name not in CC_NAMES:
            raise ValueError(f"--cc {spec}: congestion control must be one of {', '.join(CC_NAMES)}")
        hit = False
        for i, f in enumerate(flows):
            if not target or target in (f["name"], f["group"]):
                cc[i] = name
                hit = True
        if not hit:
            raise ValueError(f"--cc {spec}: no flow or group named '{target}'")
    return cc


def _pdeathsig() -> None:
    # runs in the child between fork and exec: die with the parent (`ip netns exec` execs
    # the command in place, so the setting carries over)
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


def _spawn(ns: str, argv: list[str]) -> subprocess.Popen:
    return subprocess.Popen(
        ["ip", "netns", "exec", ns, *argv], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True, preexec_fn=_pdeathsig, start_new_session=True)


class _Lines:
    """A child's stdout, line by line, read by a thread of its own (so that lines already
    buffered are never missed by a select); a generator's ``done FLOW T`` lines go to
    ``done`` instead."""

    def __init__(self, p: subprocess.Popen, done: queue.Queue | None = None) -> None:
        self.p = p
        self.lines: queue.Queue = queue.Queue()
        self.done = done
        self.error = ""
        import threading

        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        try:
            for line in self.p.stdout:
                line = line.strip()
                if self.done is not None and line.startswith("done "):
                    _, flow, t = line.split()
                    self.done.put((int(flow), float(t)))
                    continue
                self.lines.put(line)
        except (OSError, ValueError) as e:
            self.error = f"{type(e).__name__}: {e}"
        self.lines.put(None)

    def next(self, what: str, timeout: float) -> str:
        try:
            line = self.lines.get(timeout=timeout)
        except queue.Empty:
            raise LiveSetupError(f"{what} did not answer within {timeout:.0f} s") from None
        if line is None:
            self.lines.put(None)
            try:
                code = self.p.wait(timeout=2)
                err = self.p.stderr.read()
            except (subprocess.TimeoutExpired, OSError, ValueError):
                code, err = None, ""
            why = self.error or (f"exit status {code}" if code is not None else "still running")
            raise LiveSetupError(f"{what} exited ({why}): {err.strip()[-2000:]}")
        return line


def live(path: Path, overrides: dict[str, str] | None = None, seed: int | None = None,
         cc: list[str] | None = None, log: Any = None, realtime: bool = True,
         spin_us: float = 0.0, captures: list[tuple[str, Path]] | None = None,
         queue_trace: Path | None = None, until_complete: bool | None = None,
         host_captures: list[tuple[str, Path]] | None = None) -> dict:
    """Runs ``path`` live; returns the summary (a dict in the report's shape).

    ``captures``: (port ``from->to``, pcap file) pairs, as ``afsim run --capture``;
    ``queue_trace``: a CSV file for every arrival at a RED/WRED/RIO queue (time, length,
    average, fate); ``until_complete``: stop once every finite TCP transfer is acknowledged
    (None: as the scenario's ``until_transfers_complete`` says); ``host_captures``: (host node
    name, pcap file) pairs: every packet that host's interface receives, headers only,
    with the kernel's time stamps inside the host's namespace (gen.py's ``host_capture``). A
    bad port or host is a ValueError naming it, raised before anything is created."""
    import afsim
    from afsim import _core

    netns.check_privileges()
    overrides = dict(overrides or {})
    scenario = afsim.load_scenario(path, overrides=overrides)
    if seed is not None:
        scenario = scenario.with_seed(seed)
    captures = [(port, Path(file).resolve()) for port, file in (captures or [])]
    for port, file in captures:
        try:
            scenario = scenario.with_capture(port, file, origin=f"--capture {port}")
        except ValueError as e:
            raise ValueError(f"--capture {port}: {e}") from None
    try:
        plan = json.loads(_core.live_plan(scenario))
    except ValueError as e:
        raise LiveSetupError(f"{path}: {e}") from None
    if plan["duration_s"] is None:
        raise LiveSetupError(f"{path}: a live run needs a duration ([scenario] duration)")
    ccs = parse_cc(cc or [], plan["flows"])
    host_names = {n["name"]: i for i, n in enumerate(plan["nodes"]) if n["host"]}
    host_cap: dict[int, str] = {}
    for name, file in host_captures or []:
        if name not in host_names:
            raise ValueError(f"--host-capture {name}: no host named '{name}' (hosts: "
                             f"{', '.join(sorted(host_names))})")
        host_cap[host_names[name]] = str(Path(file).resolve())
    dur = plan["duration_s"]
    finite = {i for i, f in enumerate(plan["flows"])
              if f["kind"] == "tcp" and f.get("transfer_bytes") is not None and f["start_s"] < dur}
    stop_early = bool(finite) and (plan.get("until_transfers_complete", False)
                                   if until_complete is None else until_complete)
    prefix = netns.new_prefix()
    topo = Topology(prefix, plan)
    say = log or (lambda msg: None)

    old = {s: signal.getsignal(s) for s in (signal.SIGTERM, signal.SIGHUP)}

    def stop(signum: int, frame: Any) -> None:
        raise _Stop(signal.Signals(signum).name)

    for s in old:
        signal.signal(s, stop)
    procs: list[subprocess.Popen] = []
    tmp = tempfile.TemporaryDirectory(prefix=prefix)
    try:
        say(f"creating namespaces {prefix}* ({len(topo.hosts)} hosts + forwarder)")
        netns.claim(prefix)
        topo.create()
        hosts = [topo.host_info(k) for k in range(len(topo.hosts))]
        host_of_node = {h["node"]: h for h in hosts}
        flows = plan["flows"]
        matches = []
        for i, f in enumerate(flows):
            matches.append({"flow": i, "protocol": 6 if f["kind"] == "tcp" else 17,
                            "src_ip": _ip(host_of_node[f["src"]]["ip"]),
                            "dst_ip": _ip(host_of_node[f["dst"]]["ip"]),
                            "port": FLOW_PORT_BASE + i})
        fwd_cfg = {
            "scenario_path": str(Path(path).resolve()),
            "overrides": sorted(overrides.items()),
            "seed": seed,
            "captures": [[port, str(file)] for port, file in captures],
            "forwarder": {
                "hosts": [{"node": h["node"], "ip": _ip(h["ip"]), "mac": _mac(h["mac"]),
                           "router_mac": _mac(h["router_mac"])} for h in hosts],
                "ifaces": [h["router_iface"] for h in hosts],
                "flows": matches,
                "duration_ns": int(round(plan["duration_s"] * 1e9)),
                "stop_on_signals": True,
                "realtime": realtime,
                "spin_ns": int(spin_us * 1000),
                "queue_trace": str(Path(queue_trace).resolve()) if queue_trace else None,
            },
        }
        fwd_file = Path(tmp.name) / "forwarder.json"
        fwd_file.write_text(json.dumps(fwd_cfg))
        procs.append(_spawn(topo.fwd, [sys.executable, "-m", "afsim.live.forwarder", str(fwd_file)]))
        gens = []
        for h in hosts:
            roles = []
            for i, f in enumerate(flows):
                if h["node"] not in (f["src"], f["dst"]):
                    continue
                sender = h["node"] == f["src"]
                peer = host_of_node[f["dst"]]["ip"]
                kind = "tcp" if f["kind"] == "tcp" else "udp"
                r = dict(f, flow=i, role=f"{kind}-{'sender' if sender else 'receiver'}",
                         peer=peer, port=FLOW_PORT_BASE + i, cc=ccs[i],
                         seed=(plan["seed"] * 1_000_003 + i) & 0xFFFFFFFF)
                roles.append(r)
            cfg = {"host": plan["nodes"][h["node"]]["name"], "iface": h["iface"], "roles": roles,
                   "ecn": any(r["role"] == "tcp-sender" and r.get("ecn") for r in roles),
                   "duration_s": plan["duration_s"], "warmup_s": plan["warmup_s"],
                   "realtime_priority": 10 if realtime else 0,
                   "capture": host_cap.get(h["node"])}
            gfile = Path(tmp.name) / f"gen-{h['node']}.json"
            gfile.write_text(json.dumps(cfg))
            gens.append(_spawn(h["ns"], [sys.executable, "-S", str(Path(__file__).with_name("gen.py")),
                                         str(gfile)]))
        procs.extend(gens)
        done: queue.Queue = queue.Queue()
        fwd_lines = _Lines(procs[0])
        gen_lines = [_Lines(g, done) for g in gens]
        ready = fwd_lines.next("the forwarder", 60)
        if ready != "ready":
            raise LiveSetupError(f"the forwarder: {json.loads(ready).get('error', ready)}")
        for h, gl in zip(hosts, gen_lines):
            line = gl.next(f"the generator of {h['ns']}", 30)
            if line != "ready":
                raise LiveSetupError(f"the generator of {h['ns']}: {line}")
        t0 = time.monotonic_ns() + 200_000_000
        for p in procs:
            p.stdin.write(f"{t0}\n")
            p.stdin.flush()
        say(f"running {dur:g} s live" + (" at most (until the transfers complete)" if stop_early else ""))
        completed: dict[int, float] = {}
        stopped_early = False
        if stop_early:
            limit = t0 * 1e-9 + dur + 0.5
            while len(completed) < len(finite) and time.monotonic() < limit:
                try:
                    flow, t = done.get(timeout=0.05)
                except queue.Empty:
                    continue
                completed[flow] = t
            if len(completed) >= len(finite):
                stopped_early = True
                say("every transfer is complete: stopping")
                for g in gens:
                    try:
                        g.stdin.write("stop\n")
                        g.stdin.flush()
                    except OSError:
                        pass
                if procs[0].poll() is None:
                    procs[0].send_signal(signal.SIGTERM)
        fwd_out = json.loads(fwd_lines.next("the forwarder", dur + 30))
        gen_out = []
        for h, gl in zip(hosts, gen_lines):
            gen_out.append(json.loads(gl.next(f"the generator of {h['ns']}", 30)))
        for p in procs:
            p.wait(timeout=10)
        summary = _summary(plan, ccs, fwd_out, gen_out, prefix, scenario, seed)
        summary["live"]["forwarder"]["spin_us"] = spin_us
        if stopped_early:
            summary["stop_reason"] = "transfers_complete"
        summary["live"]["captures"] = fwd_out.get("captures", [])
        summary["live"]["queue_trace"] = fwd_out.get("queue_trace")
        for c in fwd_out.get("captures", []):
            if c.get("error"):
                summary["warnings"].append(f"capture of {c['port']}: {c['error']}")
        qt = fwd_out.get("queue_trace")
        if qt and qt.get("error"):
            summary["warnings"].append(f"queue trace: {qt['error']}")
        return summary
    finally:
        for s, h in old.items():
            signal.signal(s, h)
        # ignore further stop signals while cleaning up: a second Ctrl-C must not leave debris
        prev_int = signal.signal(signal.SIGINT, signal.SIG_IGN)
        prev_term = signal.signal(signal.SIGTERM, signal.SIG_IGN)
        try:
            for p in procs:
                if p.poll() is None:
                    p.terminate()
            for p in procs:
                try:
                    p.wait(timeout=2)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()
                for f in (p.stdin, p.stdout, p.stderr):
                    try:
                        f.close()
                    except OSError:
                        pass
            left = topo.destroy()
            if not left:
                netns.release(prefix)
            tmp.cleanup()
            if left:
                print(f"afsim: warning: could not remove namespaces {', '.join(left)}; "
                      "run 'afsim live --cleanup'", file=sys.stderr)
        finally:
            signal.signal(signal.SIGINT, prev_int)
            signal.signal(signal.SIGTERM, prev_term)


def _ip(text: str) -> list[int]:
    return [int(x) for x in text.split(".")]


def _mac(text: str) -> list[int]:
    return [int(x, 16) for x in text.split(":")]


def _warnings(plan: dict, rows: list[dict], fwd: dict) -> list[str]:
    """What makes a live run's numbers doubtful: sources that could not keep up (a starved
    generator), flows that failed, frames lost outside the models."""
    out = []
    # the run's end: its duration, or when its transfers completed
    dur = fwd.get("end_s", plan["duration_s"])
    for f, row in zip(plan["flows"], rows):
        live = row["live"]
        for k in ("error", "receiver_error"):
            if live.get(k):
                out.append(f"flow {f['name']}: {live[k]}")
        if f["kind"] == "cbr" and live.get("app_packets_sent") is not None:
            start, stop = f["start_s"], min(dur, f["stop_s"] if f["stop_s"] is not None else dur)
            want = max(0.0, stop - start) * f["rate_bps"] / (8 * f["packet_size"])
            if f.get("max_packets") is not None:
                want = min(want, f["max_packets"])
            if want >= 10 and live["app_packets_sent"] < 0.97 * want:
                out.append(f"flow {f['name']}: its generator sent {live['app_packets_sent']} of "
                           f"{want:.0f} packets (starved of CPU?): the offered load was lower "
                           "than the scenario's")
        if f["kind"] == "tcp" and f["start_s"] < dur and not row["packets_sent"]:
            out.append(f"flow {f['name']}: no packet reached the forwarder")
    drops = sum(s["kernel_drops"] for s in fwd["driver"]["sockets"])
    errors = sum(s["send_errors"] for s in fwd["driver"]["sockets"])
    if drops or errors:
        out.append(f"the forwarder's sockets lost {drops} frames on receive and {errors} on send, "
                   "outside the models (it could not keep up)")
    lat = fwd["lateness_us"]
    if lat["p99"] is not None and lat["p99"] > 1000:
        out.append(f"99 % of frames left up to {lat['p99']:.0f} µs after their instant: the "
                   "forwarder was short of CPU")
    return out


def _summary(plan: dict, ccs: list[str], fwd: dict, gens: list[dict], prefix: str,
             scenario: Any, seed: int | None) -> dict:
    """Joins the forwarder's and the generators' results into the report's shape."""
    nodes = plan["nodes"]
    span = fwd.get("end_s", plan["duration_s"]) - plan["warmup_s"]
    roles: dict[tuple[int, str], dict] = {}
    host_netstat: dict[int, dict] = {}
    senders_per_host: dict[int, int] = {}
    for g in gens:
        for r in g["roles"]:
            roles[(r["flow"], r["role"])] = r
    for i, f in enumerate(plan["flows"]):
        senders_per_host[f["src"]] = senders_per_host.get(f["src"], 0) + (f["kind"] == "tcp")
    for g in gens:
        host = next(i for i, n in enumerate(nodes) if n["name"] == g["host"])
        host_netstat[host] = g["netstat"]
    rows = []
    for i, f in enumerate(plan["flows"]):
        net = fwd["flows"][i]
        row: dict[str, Any] = {
            "name": f["name"], "group": f["group"],
            "kind": f"tcp-{ccs[i]}" if f["kind"] == "tcp" else "cbr",
            "src": nodes[f["src"]]["name"], "dst": nodes[f["dst"]]["name"],
            **{k: net[k] for k in ("packets_sent", "bytes_sent", "packets_delivered", "bytes_delivered",
                                   "packets_dropped", "packets_in_flight", "throughput_kbps",
                                   "first_delivery_s", "last_delivery_s", "mean_delay_s")},
            "finite": f.get("transfer_bytes") is not None or f.get("max_packets") is not None,
            "completed": False, "completion_time_s": None,
            "dscp": f["dscp"],
            "goodput_kbps": None, "goodput_bytes": None, "retransmitted_packets": None,
            "retransmitted_bytes": None, "timeouts": None, "fast_recoveries": None,
            "rtt_mean_s": None, "rtt_std_s": None,
            **{k: None for k in NOT_MEASURED},
            "contract_kbps": net["contract_kbps"], "conformant_kbps": net["conformant_kbps"],
            "respect_of_service": None, "excess_kbps": None,
        }
        if net["contract_kbps"]:
            row["respect_of_service"] = net["conformant_kbps"] / net["contract_kbps"]
            row["excess_kbps"] = net["throughput_kbps"] - net["contract_kbps"]
        extra: dict[str, Any] = {"cc": ccs[i] if f["kind"] == "tcp" else None}
        if f["kind"] == "tcp":
            s = roles.get((i, "tcp-sender"), {})
            r = roles.get((i, "tcp-receiver"), {})
            if "goodput_bytes" in r:
                row["goodput_bytes"] = r["goodput_bytes"]
                row["goodput_kbps"] = r["measured_bytes"] * 8 / span / 1e3 if span > 0 else 0.0
            # complete: the sender saw every byte acknowledged (the simulator's meaning), else
            # (an older generator) the receiver read the end of the stream
            if "acked_all_s" in s:
                row["completed"] = True
                row["completion_time_s"] = s["acked_all_s"]
            elif "completion_time_s" in r:
                row["completed"] = True
                row["completion_time_s"] = r["completion_time_s"]
            for k in ("retransmitted_packets", "retransmitted_bytes", "rtt_mean_s", "rtt_std_s"):
                row[k] = s.get(k)
            ns = host_netstat.get(f["src"], {})
            if senders_per_host.get(f["src"]) == 1 and ns:
                # per namespace counters: exact for the one TCP sender of its host
                row["timeouts"] = ns.get("TCPTimeouts")
                row["fast_recoveries"] = ns.get("TCPSackRecovery", 0) + ns.get("TCPRenoRecovery", 0)
                extra["netstat"] = ns
            for k in ("cwnd_mean_segments", "cwnd_end_segments", "min_rtt_s", "snd_mss", "segs_out",
                      "delivered_ce", "error", "connect_s", "series"):
                if k in s:
                    extra[k] = s[k]
            if "error" in r:
                extra["receiver_error"] = r["error"]
        else:
            s = roles.get((i, "udp-sender"), {})
            r = roles.get((i, "udp-receiver"), {})
            extra.update(app_packets_sent=s.get("packets_sent"), app_packets_received=r.get("packets_received"),
                         app_goodput_kbps=(r.get("measured_bytes", 0) * 8 / span / 1e3) if span > 0 else None)
        row["live"] = extra
        rows.append(row)
    warnings = _warnings(plan, rows, fwd)
    totals = fwd["totals"]
    dropped: dict[str, dict] = {}
    for q in fwd["queues"]:
        nz = {k: v for k, v in q["drops"].items() if v}
        if nz:
            dropped[f"queue {q['name']}"] = nz
        if q["link_losses"]:
            dropped[f"link {q['name']}"] = {"link_loss": q["link_losses"]}
    dropped.update(fwd["other_drops"])
    d = fwd["driver"]
    cpu = d["cpu_user_s"] + d["cpu_sys_s"]
    carried_mbit = sum(q["departure_bytes"] for q in fwd["queues"]) * 8 / 1e6
    return {
        "scenario": plan["name"],
        "seed": scenario.seed,
        "mode": "live",
        "end_time_s": fwd.get("end_s", plan["duration_s"]),
        "stop_reason": "signal" if d["stopped_by_signal"] else "duration",
        "warmup_s": plan["warmup_s"],
        "flows": rows,
        "queues": fwd["queues"],
        "colours": fwd["colours"],
        "conditioners": fwd["conditioners"],
        "conservation": {
            "holds": totals["holds"],
            "identity": f"{totals['sent']} sent = {totals['delivered']} delivered + "
                        f"{totals['dropped']} dropped + {totals['in_flight']} in flight",
            "sent": totals["sent"], "delivered": totals["delivered"],
            "dropped_total": totals["dropped"], "in_flight": totals["in_flight"],
            "dropped": dropped,
            "scope": "packets that entered the forwarder (hosts' own kernels are outside it)",
        },
        "not_measured": NOT_MEASURED,
        "warnings": warnings,
        "live": {
            "prefix": prefix,
            "forwarder": {
                "wall_s": d["wall_s"], "cpu_user_s": d["cpu_user_s"], "cpu_sys_s": d["cpu_sys_s"],
                "cpu_share": cpu / d["wall_s"] if d["wall_s"] else None,
                "cpu_s_per_mbit": cpu / carried_mbit if carried_mbit else None,
                "carried_mbit": carried_mbit,
                "loop_turns": d["loop_turns"], "sleeps": d["sleeps"],
                "realtime": d["realtime"],
                "lateness_us": fwd["lateness_us"],
                "frames": fwd["frames"],
                "sockets": d["sockets"],
            },
            "generators": {g["host"]: {"netstat": g["netstat"], "offloads_left_on": g["offloads_left_on"]}
                           for g in gens},
            "kernel": os.uname().release,
        },
    }
