"""CUBIC and BBR live against simulated: the same dumbbell through `afsim live` (Linux's
tcp_cubic / tcp_bbr) and `afsim run` (afsim's RFC 9438 CUBIC and draft-00 BBR), side by side
(docs/validation.md, "CUBIC and BBR: afsim against Linux").

    sudo python validation/live/cc_compare.py [--cc reno cubic bbr] [--n 1 4] [--duration 30s]
        [--repeats 5] [--seeds 5] [--out validation/live/cc-compare.json] [--figures docs/figures]
        [--merge] [--set KEY=VALUE ...] [--tag SUFFIX]

Scenario: scenarios/examples/cc-dumbbell.toml (N greedy flows, 100 Mb/s access, 10 Mb/s
20 ms drop-tail bottleneck of 100 packets, SACK, initial window 10), with `trace = true` on
the flow so that the simulator records cwnd. For each controller and N: --repeats live runs
(each with the machine's load average before and after it, and whether the forwarder got its
SCHED_FIFO priority; a run that fails is tried again, at most twice) and --seeds simulator
seeds; the row's "summary" gives each metric's median, minimum and maximum on both sides. Per run, over the scenario's measured interval (after 5 s): aggregate
and per-flow throughput, retransmitted segments, mean RTT (live: TCP_INFO's smoothed RTT every
100 ms; simulated: every RTT sample), the bottleneck's mean queue and drops. Over time (one
figure per controller and N): each flow's cwnd (live: TCP_INFO every 100 ms; simulated: the
sender's trace) and its rate through the bottleneck in 0.5 s bins (from a capture of r1->r2 on
both sides, the flows told apart by their source address, in the same order on both sides).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import struct
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import ack_timing

ROOT = Path(__file__).resolve().parents[2]
SCEN = ROOT / "scenarios" / "examples" / "cc-dumbbell.toml"
MSS_SIM = 1460  # afsim: packet_size 1500 − 40
BIN_S = 0.5


def afsim(*args: str) -> dict:
    p = subprocess.run([sys.executable, "-m", "afsim", *args, "--format", "json"],
                       capture_output=True, text=True, timeout=1800)
    if p.returncode != 0:
        raise SystemExit(f"afsim {' '.join(args)} failed: {p.stderr}")
    return json.loads(p.stdout)


def pcap_rates(path: Path) -> tuple[list[float], list[list[float]]]:
    """Per-source data rate (Mb/s) in BIN_S bins from a LINKTYPE_RAW pcap, sources in address
    order; times from the first record."""
    data = path.read_bytes()
    scale = 1e-9 if struct.unpack_from("<I", data, 0)[0] == 0xA1B23C4D else 1e-6
    at, t0 = 24, None
    bins: dict[bytes, dict[int, int]] = {}
    while at + 16 <= len(data):
        sec, frac, incl, _ = struct.unpack_from("<IIII", data, at)
        t = sec + frac * scale
        pkt = data[at + 16:at + 16 + incl]
        at += 16 + incl
        t0 = t if t0 is None else t0
        if len(pkt) < 20 or pkt[9] != 6:
            continue
        ip_len = struct.unpack_from(">H", pkt, 2)[0]
        if ip_len < 200:  # ACKs and SYNs: not data
            continue
        b = bins.setdefault(pkt[12:16], {})
        k = int((t - t0) / BIN_S)
        b[k] = b.get(k, 0) + ip_len
    n = max((max(b) for b in bins.values()), default=-1) + 1
    times = [(k + 0.5) * BIN_S for k in range(n)]
    return times, [[b.get(k, 0) * 8 / BIN_S / 1e6 for k in range(n)] for _, b in sorted(bins.items())]


def metrics(s: dict) -> dict:
    q = next(q for q in s["queues"] if q["name"] == "r1->r2")
    flows = [f for f in s["flows"] if f["kind"].startswith("tcp")]
    thr = [f["throughput_kbps"] / 1e3 for f in flows]
    rtts = [f["rtt_mean_s"] for f in flows if f["rtt_mean_s"] is not None]
    return {
        "throughput_mbps": sum(thr),
        "per_flow_mbps": thr,
        "jain": sum(thr) ** 2 / (len(thr) * sum(x * x for x in thr)) if any(thr) else None,
        "retransmissions": sum(f["retransmitted_packets"] or 0 for f in flows),
        # live: the sender namespaces' TcpExt counters (one sender per host here)
        "timeouts": sum(f["timeouts"] or 0 for f in flows),
        "fast_recoveries": sum(f["fast_recoveries"] or 0 for f in flows),
        "rtt_mean_ms": 1e3 * sum(rtts) / len(rtts) if rtts else None,
        "mean_queue_pkt": q["mean_len_packets"],
        "drops": q["drops_total"],
    }


SUMMARY_KEYS = ("throughput_mbps", "jain", "retransmissions", "timeouts", "fast_recoveries", "rtt_mean_ms",
                "mean_queue_pkt", "drops",
                "ack_gap_median_us", "ack_bunched_share", "ack_burst_mean", "ack_new_data_share",
                "ack_acked_bytes_median", "ack_lateness_p50_us", "ack_lateness_p99_us")
ACK_KEYS = {"gap_median_us": "ack_gap_median_us", "bunched_share": "ack_bunched_share",
            "burst_mean_acks": "ack_burst_mean", "new_data_share": "ack_new_data_share",
            "acked_bytes_median": "ack_acked_bytes_median"}


def ack_metrics(pcap: Path, model: Path | None = None) -> dict:
    """ACK timing at the first sender (validation/live/ack_timing.py): pcap is the sender's own
    capture (live) or the capture of the port feeding it (simulated); model, live only, the
    forwarder's capture of that port, for the lateness of the ACKs' arrival."""
    a = ack_timing.acks(pcap)
    st = ack_timing.stats(a[0], a[1])
    out = {ACK_KEYS[k]: v for k, v in st.items() if k in ACK_KEYS}
    out["ack_timing"] = st
    if model is not None:
        late = ack_timing.lateness(a, ack_timing.acks(model))
        out["ack_lateness"] = late
        out["ack_lateness_p50_us"], out["ack_lateness_p99_us"] = late.get("p50_us"), late.get("p99_us")
    return out


def spread(values: list) -> dict | None:
    """Median, minimum and maximum of the values that are not None."""
    v = [x for x in values if x is not None]
    if not v:
        return None
    return {"median": statistics.median(v), "min": min(v), "max": max(v), "n": len(v)}


def summarise(live_runs: list[dict], sim: list[dict], keys: tuple[str, ...] = SUMMARY_KEYS) -> dict:
    return {k: {"live": spread([r.get(k) for r in live_runs]), "sim": spread([m.get(k) for m in sim])}
            for k in keys}


def live_run(*args: str, tries: int = 3) -> tuple[dict, dict]:
    """One `afsim live` run, tried again (at most tries − 1 times) if it fails (a generator
    killed under the machine's load); the summary and the run's conditions: the 1-, 5- and
    15-minute load averages before and after, whether the forwarder ran under SCHED_FIFO, its
    lateness, the attempts it took and the run's warnings."""
    errors = []
    for attempt in range(1, tries + 1):
        before = os.getloadavg()
        try:
            s = afsim("live", *args)
        except SystemExit as e:
            errors.append(str(e)[-500:])
            print(f"  live run failed (attempt {attempt}): {str(e)[-200:]}", flush=True)
            continue
        fw = s["live"]["forwarder"]
        return s, {"load_before": [round(x, 2) for x in before],
                   "load_after": [round(x, 2) for x in os.getloadavg()],
                   "forwarder_realtime": fw["realtime"], "lateness_us": fw["lateness_us"],
                   "attempts": attempt, "failed_attempts": errors, "warnings": s["warnings"]}
    raise SystemExit(f"afsim live {' '.join(args)}: failed {tries} times: {errors}")


def run_pair(cc: str, n: int, duration: str, seeds: int, work: Path, extra: list[str],
             repeats: int = 5) -> dict:
    scen = work / "cc-dumbbell-trace.toml"
    scen.write_text(SCEN.read_text() + "trace = true\n")
    sets = ["--set", f"cc={cc}", "--set", f"n={n}", "--set", f"duration={duration}"]
    sets += [x for kv in extra for x in ("--set", kv)]
    live_runs = []
    for k in range(repeats):
        cap = work / f"live-{cc}-{n}-{k}.pcap"
        host, model = work / "live-src0.pcap", work / "live-r1-src0.pcap"
        s, cond = live_run(str(scen), *sets, "--cc", cc, "--capture", f"r1->r2={cap}",
                           "--host-capture", f"src0={host}", "--capture", f"r1->src0={model}")
        m = {**metrics(s), **cond, **ack_metrics(host, model)}
        if k == 0:
            # the first run's time series (the figure's solid lines)
            m["series"] = [
                {"t": [p[0] for p in f["live"].get("series", [])],
                 "cwnd_segments": [p[1] for p in f["live"].get("series", [])]}
                for f in s["flows"] if f["kind"].startswith("tcp")]
            m["rate_t"], m["rate_mbps"] = pcap_rates(cap)
        cap.unlink(missing_ok=True)
        live_runs.append(m)
        print(f"  live {k + 1}/{repeats}: q {m['mean_queue_pkt']:.1f} rtt {m['rtt_mean_ms']:.1f} "
              f"retx {m['retransmissions']} load {cond['load_before'][0]}->{cond['load_after'][0]} "
              f"ack {m['ack_timing']} late {m['ack_lateness']}", flush=True)
    live = live_runs[0]
    sim = []
    for seed in range(1, seeds + 1):
        cap = work / f"sim-{cc}-{n}-{seed}.pcap"
        acap = work / f"sim-{cc}-{n}-{seed}-r1-src0.pcap"
        s = afsim("run", str(scen), *sets, "--seed", str(seed), "--capture", f"r1->r2={cap}",
                  "--capture", f"r1->src0={acap}")
        m = {**metrics(s), **ack_metrics(acap)}
        if seed == 1:
            # the first seed's time series (the figure's dashed lines)
            import afsim as api
            over = {"cc": cc, "n": str(n), "duration": duration, **dict(kv.split("=", 1) for kv in extra)}
            res = api.run(api.load_scenario(scen, overrides=over), seed=seed)
            tr = res.traces
            m["series"] = [{"t": tr[tr.flow == name]["time_s"].round(4).tolist(),
                            "cwnd_segments": (tr[tr.flow == name]["cwnd"] / MSS_SIM).round(2).tolist()}
                           for name in res.flows["name"]]
            m["rate_t"], m["rate_mbps"] = pcap_rates(cap)
        sim.append(m)
    return {"cc": cc, "n": n, "duration": duration, "live": live,
            "live_runs": [{k: v for k, v in r.items() if k not in ("series", "rate_t", "rate_mbps")}
                          for r in live_runs],
            "sim": sim, "summary": summarise(live_runs, sim)}


def figure(row: dict, out: Path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    live, sim = row["live"], row["sim"][0]
    fig, (a, b) = plt.subplots(2, 1, figsize=(8, 6), sharex=True)
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for i, (fl, fs) in enumerate(zip(live["series"], sim["series"])):
        c = colours[i % len(colours)]
        a.plot(fl["t"], fl["cwnd_segments"], color=c, lw=1, label=f"tcp{i} Linux" if i < 2 else None)
        a.plot(fs["t"], fs["cwnd_segments"], color=c, lw=1, ls="--", label=f"tcp{i} afsim" if i < 2 else None)
    for i, (rl, rs) in enumerate(zip(live["rate_mbps"], sim["rate_mbps"])):
        c = colours[i % len(colours)]
        b.plot(live["rate_t"][:len(rl)], rl, color=c, lw=1)
        b.plot(sim["rate_t"][:len(rs)], rs, color=c, lw=1, ls="--")
    a.set_ylabel("cwnd (segments)")
    a.set_yscale("log")
    b.set_ylabel(f"rate through r1->r2 (Mb/s, {BIN_S} s bins)")
    b.set_xlabel("time (s)")
    a.legend(fontsize=8, loc="upper right")
    a.set_title(f"{row['cc']}, {row['n']} flow(s): Linux (solid) and afsim (dashed), "
                "10 Mb/s, 44 ms, 100-packet drop-tail")
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)


def fmt(s: dict | None) -> str:
    return "-" if s is None else f"{s['median']:.4g} [{s['min']:.4g}, {s['max']:.4g}]"


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cc", nargs="+", default=["reno", "cubic", "bbr"])
    ap.add_argument("--n", nargs="+", type=int, default=[1, 4])
    ap.add_argument("--duration", default="30s")
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--repeats", type=int, default=5, help="live runs per controller and N")
    ap.add_argument("--out", type=Path, default=ROOT / "validation" / "live" / "cc-compare.json")
    ap.add_argument("--figures", type=Path, default=ROOT / "docs" / "figures")
    ap.add_argument("--set", dest="sets", action="append", default=[], metavar="KEY=VALUE",
                    help="a scenario parameter for both sides (e.g. hystart=true: the simulator's only)")
    ap.add_argument("--tag", default="", help="suffix of the figures' names")
    ap.add_argument("--merge", action="store_true",
                    help="keep the rows of --out for the (cc, n) not run this time")
    args = ap.parse_args()
    args.figures.mkdir(parents=True, exist_ok=True)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for cc in args.cc:
            for n in args.n:
                row = run_pair(cc, n, args.duration, args.seeds, Path(tmp), args.sets, args.repeats)
                row["sets"] = args.sets
                rows.append(row)
                figure(row, args.figures / f"cc-live-{cc}-{n}{args.tag}.png")
                print(f"{cc} n={n}: median [min, max], live | sim: " + "; ".join(
                    f"{k} {fmt(v['live'])} | {fmt(v['sim'])}" for k, v in row["summary"].items()), flush=True)
    if args.merge and args.out.exists():
        done = {(r["cc"], r["n"]) for r in rows}
        old = [r for r in json.loads(args.out.read_text())["rows"] if (r["cc"], r["n"]) not in done]
        order = {cc: i for i, cc in enumerate(("reno", "cubic", "bbr"))}
        rows = sorted(old + rows, key=lambda r: (order.get(r["cc"], 9), r["n"]))
    args.out.write_text(json.dumps({"scenario": str(SCEN.relative_to(ROOT)), "rows": rows}) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
