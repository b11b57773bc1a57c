"""The AF experiment's network (scenario cc/af-mix: Reno, CUBIC and BBR senders, a token
bucket each, RIO-C) live and simulated, per controller (docs/validation.md, "CUBIC and BBR:
afsim against Linux").

    sudo python validation/live/cc_af_live.py [--duration 40s] [--seeds 3]
        [--out validation/live/cc-af-live.json]

One live run (Linux's reno, cubic and bbr, as the scenario's `cc` fields say), --seeds
simulator seeds, and the simulator once more with delayed ACKs at every receiver (Linux's
receivers delay ACKs; the scenario's do not). Per controller: its share of the bottleneck,
its senders' mean Respect of Service and retransmissions; the bottleneck's mean queue, drops
and total throughput.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import afsim as api

ROOT = Path(__file__).resolve().parents[2]


def afsim(*args: str) -> dict:
    p = subprocess.run([sys.executable, "-m", "afsim", *args, "--format", "json"],
                       capture_output=True, text=True, timeout=1800)
    if p.returncode != 0:
        raise SystemExit(f"afsim {' '.join(args)} failed: {p.stderr}")
    return json.loads(p.stdout)


def summary(s: dict) -> dict:
    tot = sum(f["throughput_kbps"] for f in s["flows"])
    q = next(q for q in s["queues"] if q["name"] == "edge->core")
    out: dict = {"throughput_mbps": tot / 1e3, "mean_queue_pkt": q["mean_len_packets"],
                 "drops": q["drops_total"]}
    for cc in ("reno", "cubic", "bbr"):
        fl = [f for f in s["flows"] if f["group"] == cc]
        out[cc] = {"share": sum(f["throughput_kbps"] for f in fl) / tot,
                   "ros": sum(f["respect_of_service"] for f in fl) / len(fl),
                   "retx": sum(f["retransmitted_packets"] or 0 for f in fl) / len(fl)}
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--duration", default="40s")
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--out", type=Path, default=ROOT / "validation" / "live" / "cc-af-live.json")
    args = ap.parse_args()
    scen = api.builtin_scenario("cc/af-mix")
    sets = ["--set", f"duration={args.duration}"]
    res = {"scenario": "cc/af-mix", "duration": args.duration,
           "live": summary(afsim("live", str(scen), *sets))}
    res["sim"] = [summary(afsim("run", str(scen), *sets, "--seed", str(k))) for k in range(1, args.seeds + 1)]
    with tempfile.TemporaryDirectory() as tmp:
        da = Path(tmp) / "af-mix-delack.toml"
        da.write_text(scen.read_text().replace('start_step = "50ms"', 'start_step = "50ms"\ndelayed_ack = true'))
        res["sim_delayed_ack"] = [summary(afsim("run", str(da), *sets, "--seed", str(k)))
                                  for k in range(1, args.seeds + 1)]
    args.out.write_text(json.dumps(res, indent=1) + "\n")
    for name in ("live",):
        print(name, json.dumps(res[name]))
    for name in ("sim", "sim_delayed_ack"):
        for r in res[name]:
            print(name, json.dumps(r))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
