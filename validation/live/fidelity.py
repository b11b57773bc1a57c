"""afsim live's own faithfulness: achieved rate, added delay and jitter, forwarder CPU, and the
highest rate the forwarder holds (docs/validation.md, "afsim live: the emulation's
faithfulness").

    sudo python validation/live/fidelity.py [--quick] [--out validation/live/fidelity.json]

Every number comes from a live run of scenarios/validation/live-rate.toml (`afsim live
--format json`):

- achieved rate: UDP CBR at 1.2× the bottleneck rate; the rate is the IP bytes the receiving
  *application* counted in its own namespace over the measured interval (independent of the
  forwarder's counters), against the scenario's rate;
- added delay: the forwarder's lateness (the wall-clock instant a frame was handed to the
  destination's veth minus the instant the model delivered it; percentiles), and TCP's minimum
  RTT (TCP_INFO) against the model's base RTT;
- CPU: the forwarder process's user + system time over its wall time, per Mb/s carried over the
  bottleneck;
- highest rate: greedy TCP (cubic) over bottlenecks of rising rate: held while the throughput
  stays within 1 % of the rate and the forwarder's sockets drop nothing.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCENARIO = ROOT / "scenarios" / "validation" / "live-rate.toml"


def live(*sets: str, cc: str = "cubic") -> dict:
    args = [sys.executable, "-m", "afsim", "live", str(SCENARIO), "--format", "json", "--cc", cc]
    for s in sets:
        args += ["--set", s]
    p = subprocess.run(args, capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        raise SystemExit(f"afsim live failed: {p.stderr}")
    return json.loads(p.stdout)


def mbps(text: str) -> float:
    return float(text.removesuffix("Mbps"))


def access_mbps(s: dict) -> float:
    return next(q["rate_bps"] for q in s["queues"] if q["name"] == "tcp->r1") / 1e6


def row(kind: str, rate: str, s: dict) -> dict:
    fw = s["live"]["forwarder"]
    q = next(q for q in s["queues"] if q["name"] == "r1->r2")
    flow = s["flows"][0] if kind == "udp" else s["flows"][1]
    r = mbps(rate)
    out = {
        "kind": kind,
        "rate_mbps": r,
        "forwarder_mbps": flow["throughput_kbps"] / 1e3,
        "lateness_us": fw["lateness_us"],
        "cpu_share": fw["cpu_share"],
        "socket_drops": sum(x["kernel_drops"] for x in fw["sockets"]),
        "send_errors": sum(x["send_errors"] for x in fw["sockets"]),
        "bottleneck_utilisation": q["utilization"],
        "bottleneck_drops": q["drops_total"],
        "realtime": fw["realtime"],
    }
    if kind == "udp":
        got = flow["live"]["app_goodput_kbps"] / 1e3
        out["receiver_mbps"] = got
        out["rate_error"] = got / r - 1
        out["sender_app_packets"] = flow["live"]["app_packets_sent"]
        out["offered_mbps"] = flow["bytes_sent"] * 8 / s["end_time_s"] / 1e6
    else:
        out["receiver_goodput_mbps"] = flow["goodput_kbps"] / 1e3
        out["rate_error"] = flow["throughput_kbps"] / 1e3 / r - 1
        out["min_rtt_ms"] = (flow["live"].get("min_rtt_s") or 0) * 1e3
        # the smallest RTT sample is the handshake's (Linux takes min_rtt from every sample):
        # the model's: 2 × (1 + 10 + 1) ms and a 60-B SYN and SYN-ACK through every transmitter
        base = 24e-3 + 2 * 60 * 8 / (r * 1e6) + 4 * 60 * 8 / (access_mbps(s) * 1e6)
        out["model_min_rtt_ms"] = base * 1e3
        out["retransmitted_packets"] = flow["retransmitted_packets"]
    out["cpu_per_mbps"] = out["cpu_share"] / max(q["departure_bytes"] * 8 / 1e6 / s["end_time_s"], 1e-9)
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", type=Path, default=ROOT / "validation" / "live" / "fidelity.json")
    ap.add_argument("--quick", action="store_true", help="10 and 100 Mb/s only")
    args = ap.parse_args()
    rows = []
    for rate in ("10Mbps", "100Mbps"):
        udp = f"{mbps(rate) * 1.2:g}Mbps"
        rows.append(row("udp", rate, live(f"rate={rate}", f"udp_rate={udp}", "tcp_start=100s",
                                          "limit=1000pkt")))
        print(json.dumps(rows[-1]), flush=True)
        rows.append(row("tcp", rate, live(f"rate={rate}", "udp_start=100s", "tcp_start=0s",
                                          "limit=1000pkt")))
        print(json.dumps(rows[-1]), flush=True)
    if not args.quick:
        for rate in ("200Mbps", "400Mbps", "800Mbps"):
            rows.append(row("tcp", rate, live(f"rate={rate}", "access=10Gbps", "udp_start=100s",
                                              "tcp_start=0s", "limit=2000pkt")))
            print(json.dumps(rows[-1]), flush=True)
    args.out.write_text(json.dumps(rows, indent=1) + "\n")
    print(f"{'kind':4} {'rate':>6} {'achieved':>9} {'error':>7} {'late p50/p99/p99.9/max (µs)':>30} "
          f"{'CPU':>6} {'CPU/Mb/s':>9} {'minRTT/model (ms)':>18} {'sock drops':>10}")
    for r in rows:
        lat = r["lateness_us"]
        got = r.get("receiver_mbps", r["forwarder_mbps"])
        rtt = f"{r['min_rtt_ms']:.2f}/{r['model_min_rtt_ms']:.2f}" if "min_rtt_ms" in r else "–"
        print(f"{r['kind']:4} {r['rate_mbps']:6g} {got:9.3f} {100 * r['rate_error']:+6.2f}% "
              f"{lat['p50']:>6}/{lat['p99']}/{lat['p999']}/{lat['max']:.0f}".rjust(30) +
              f" {100 * r['cpu_share']:5.1f}% {100 * r['cpu_per_mbps']:8.3f}% {rtt:>18} {r['socket_drops']:>10}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
