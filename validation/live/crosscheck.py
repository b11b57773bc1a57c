"""Live against simulated: the same scenario through `afsim live` (real Linux TCP) and `afsim
run` (afsim's TCP), side by side (docs/validation.md, "afsim live against afsim run").

    sudo python validation/live/crosscheck.py [SCENARIO] [--runs 3] [--seeds 5] [--cc reno]
        [--set KEY=VALUE ...] [--out validation/live/crosscheck-tcp-dumbbell-10.json]

Default scenario: scenarios/validation/tcp-dumbbell-10.toml (10 greedy flows, 10 Mb/s RED
bottleneck, 60 s). Metrics, over the scenario's measured interval: bottleneck utilisation, its
drops (early, overflow), the flows' retransmissions, retransmissions per drop, aggregate
throughput and Jain's fairness index over the flows' throughputs. The live run-to-run spread
(min–max over --runs runs) is set beside the simulator's seed-to-seed spread (--seeds seeds).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def afsim(*args: str) -> dict:
    p = subprocess.run([sys.executable, "-m", "afsim", *args, "--format", "json"], capture_output=True,
                       text=True, timeout=1200)
    if p.returncode != 0:
        raise SystemExit(f"afsim {' '.join(args)} failed: {p.stderr}")
    return json.loads(p.stdout)


def metrics(s: dict, bottleneck: str) -> dict:
    q = next(q for q in s["queues"] if q["name"] == bottleneck)
    flows = [f for f in s["flows"] if f["kind"].startswith("tcp")]
    thr = [f["throughput_kbps"] for f in flows]
    retx = sum(f["retransmitted_packets"] or 0 for f in flows)
    drops = q["drops_total"]
    return {
        "utilisation": q["utilization"],
        "drops": drops,
        "drops_early": q["drops"].get("early", 0),
        "drops_overflow": q["drops"].get("overflow", 0),
        "retransmissions": retx,
        "retx_per_drop": retx / drops if drops else None,
        "throughput_mbps": sum(thr) / 1e3,
        "jain": sum(thr) ** 2 / (len(thr) * sum(x * x for x in thr)) if thr else None,
        "mean_queue_pkt": q["mean_len_packets"],
        "timeouts": sum(f["timeouts"] or 0 for f in flows) if all(f["timeouts"] is not None for f in flows) else None,
    }


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("scenario", nargs="?", default=str(ROOT / "scenarios/validation/tcp-dumbbell-10.toml"))
    ap.add_argument("--bottleneck", default="r1->r2")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--cc", default="reno")
    ap.add_argument("--set", dest="sets", action="append", default=[])
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    sets = [x for s in args.sets for x in ("--set", s)]
    live = []
    for _ in range(args.runs):
        s = afsim("live", args.scenario, "--cc", args.cc, *sets)
        live.append(metrics(s, args.bottleneck))
        print("live", json.dumps(live[-1]), flush=True)
    sim = []
    for seed in range(1, args.seeds + 1):
        s = afsim("run", args.scenario, "--seed", str(seed), *sets)
        sim.append(metrics(s, args.bottleneck))
        print("sim ", json.dumps(sim[-1]), flush=True)
    out = args.out or ROOT / "validation" / "live" / f"crosscheck-{Path(args.scenario).stem}.json"
    out.write_text(json.dumps({"scenario": args.scenario, "cc": args.cc, "sets": args.sets,
                               "live": live, "sim": sim}, indent=1) + "\n")

    def span(rows: list[dict], k: str) -> str:
        xs = [r[k] for r in rows if r[k] is not None]
        if not xs:
            return "–"
        mean = sum(xs) / len(xs)
        return f"{mean:,.3g} [{min(xs):,.3g}–{max(xs):,.3g}]"

    print(f"\n{'metric':18} {'live (' + str(args.runs) + ' runs)':>30} {'afsim run (' + str(args.seeds) + ' seeds)':>30}")
    for k in ("utilisation", "throughput_mbps", "drops", "drops_early", "drops_overflow", "retransmissions",
              "retx_per_drop", "timeouts", "jain", "mean_queue_pkt"):
        print(f"{k:18} {span(live, k):>30} {span(sim, k):>30}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
