"""The mean RTT of the live-against-simulated dumbbell table (docs/validation.md, "CUBIC and
BBR: afsim against Linux"), computed the way the live side computes it: live, TCP_INFO's
smoothed RTT sampled every 100 ms after the warm-up and averaged (afsim.live.gen); afsim's
column, the mean of the sender's RTT samples (one timed segment per round trip, RFC 6298), a
different statistic. This script runs each row's afsim flows with their time series on
(`trace = true`) and reports, beside the live mean, (1) afsim's sample mean (the table's), (2)
afsim's smoothed RTT sampled every 100 ms after the warm-up and averaged (the live rule), and
(3) the RTT the mean queue implies (the path's 44 ms plus 1.2 ms per 1500 B packet queued at
10 Mb/s).

    PYTHONPATH=python python validation/live/rtt_statistic.py [--seeds 5]

Writes validation/live/rtt-statistic.json. The four-flow BBR row runs with the Linux options
the table's explanation uses (delayed ACKs, `ack_aggregation`, `quantization_budget`,
`policer_detection`, `tso_bursts`, `rack`: cc_linux_options.py's row "delayed ACKs + the three
+ tso_bursts + rack"), and once more with Linux's RTT sample from every ACK as well
(`rtt_every_ack = true`); the other rows as cc_compare.py runs them.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

import numpy as np

import afsim as api

sys.path.insert(0, str(Path(__file__).resolve().parent))
from cc_linux_options import AGGR, DELACK, LT, QUANT, RACK, TSO

ROOT = Path(__file__).resolve().parents[2]
DUMBBELL = ROOT / "scenarios" / "examples" / "cc-dumbbell.toml"
ROWS = (("reno", 1, []), ("reno", 4, []), ("cubic", 1, []), ("cubic", 4, []), ("bbr", 1, []),
        ("bbr", 4, DELACK + AGGR + QUANT + LT + TSO + RACK),
        # and Linux's RTT sample from every ACK (the estimator hypothesis of the 9 ms)
        ("bbr", 4, DELACK + AGGR + QUANT + LT + TSO + RACK + ["rtt_every_ack = true"]))
#: the path's round trip without queueing (2 × (1 + 20 + 1) ms) and one 1500 B packet at 10 Mb/s
BASE_S, PKT_S = 0.044, 1500 * 8 / 10e6


def sampled_srtt(traces, warm_s: float, end_s: float) -> float:
    """Each flow's smoothed RTT (a step function of its trace) read every 100 ms from the
    warm-up to the end, averaged over the readings of all flows (the live rule)."""
    grid = np.arange(warm_s, end_s, 0.1)
    vals = []
    for _, t in traces.groupby("flow"):
        t = t[t["srtt"] > 0]
        idx = np.searchsorted(t["time_s"].to_numpy(), grid, side="right") - 1
        vals.extend(t["srtt"].to_numpy()[idx[idx >= 0]])
    return float(np.mean(vals))


def cell(xs: list[float]) -> str:
    return f"{statistics.median(xs):.1f} ({min(xs):.1f}–{max(xs):.1f})"


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--out", type=Path, default=ROOT / "validation" / "live" / "rtt-statistic.json")
    args = ap.parse_args()
    live = {(r["cc"], r["n"]): r for r in json.loads((ROOT / "validation/live/cc-compare.json").read_text())["rows"]}
    out: dict = {"rows": []}
    print("| cc | N | afsim options | live: TCP_INFO srtt every 100 ms | afsim: sample mean (the table's) "
          "| afsim: srtt every 100 ms (the live rule) | afsim: 44 ms + mean queue × 1.2 ms | live: 44 ms + mean queue × 1.2 ms |")
    print("|---|---:|---|---:|---:|---:|---:|---:|")
    for cc, n, fields in ROWS:
        text = DUMBBELL.read_text() + "".join(f"{x}\n" for x in fields + ["trace = true"])
        sims = []
        for seed in range(1, args.seeds + 1):
            s = api.load_scenario(text=text, name="cc-dumbbell.toml", overrides={"cc": cc, "n": str(n)})
            res = api.run(s, seed=seed)
            fl = res.flows[res.flows["kind"].str.startswith("tcp")]
            q = res.queues[res.queues["name"] == "r1->r2"].iloc[0]
            sims.append({"sample_mean_ms": 1e3 * float(fl["rtt_mean_s"].mean()),
                         "srtt_sampled_ms": 1e3 * sampled_srtt(res.traces, 5.0, 30.0),
                         "queue_implied_ms": 1e3 * (BASE_S + PKT_S * float(q["mean_len_packets"])),
                         "mean_queue_pkt": float(q["mean_len_packets"])})
        lv = live[(cc, n)]
        lrtt = [r["rtt_mean_ms"] for r in lv["live_runs"]]
        lq = [1e3 * (BASE_S + PKT_S * r["mean_queue_pkt"]) for r in lv["live_runs"]]

        out["rows"].append({"cc": cc, "n": n, "fields": fields, "live_rtt_mean_ms": lrtt,
                            "live_queue_implied_ms": lq, "sim": sims})
        print(f"| {cc} | {n} | {', '.join(f.split(' =')[0] for f in fields) or 'as the table'} | {cell(lrtt)} | "
              + " | ".join(cell([x[k] for x in sims]) for k in ("sample_mean_ms", "srtt_sampled_ms", "queue_implied_ms"))
              + f" | {cell(lq)} |", flush=True)
    args.out.write_text(json.dumps(out, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
