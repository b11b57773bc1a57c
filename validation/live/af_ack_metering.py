"""What cc/af-mix's token buckets meter: each sender's data only, as the scenario does since
issue 26's fix, or, as it did before, its receiver's ACKs too on their way back through the edge
(docs/validation.md, "BBR's Respect of Service in the AF network"; docs/cc-af.md, "Before the fix").

    python validation/live/af_ack_metering.py [--seeds 3] [--out validation/live/af-ack-metering.json]
    python validation/live/af_ack_metering.py --live 5    # root: also 5 live runs of (b), about 4 min

Before the fix the conditioner (`at = "edge"`, `match = { protocol = "tcp" }`, one token bucket
per flow) had no `from`: it metered every TCP packet the edge received, the ACKs that came back
from the core included, and a packet cost one token whatever its size (af_mix_variants.py
rebuilds it). Simulator only: cc/af-mix with delayed ACKs at every receiver and the three Linux
options at the BBR senders, with and without `tso_bursts`, each (a) with the old conditioner
and (b) as the scenario is now, three conditioners `from = "reno"`, `"cubic"`, `"bbr"` (the
senders' input lines only: data). Per run: each controller's mean Respect of Service and the
green packets' mean size (bytes: 1500 for data alone, less when ACKs take tokens). With --live
N, N live runs of (b) (Linux's reno, cubic and bbr as the scenario's `cc` fields say, Linux's
own receivers), each with its load and SCHED_FIFO, beside cc-af-live.json's runs of (a).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path

import afsim as api

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from af_mix_variants import ack_metered
from cc_compare import afsim

LINUX = "\nack_aggregation = true\nquantization_budget = true\npolicer_detection = true"


def variant(text: str, data_only: bool, tso: bool) -> str:
    if not data_only:
        text = ack_metered(text)
    text = text.replace('start_step = "50ms"', 'start_step = "50ms"\ndelayed_ack = true')
    return text.replace('cc = "bbr"', 'cc = "bbr"' + LINUX + ("\ntso_bursts = true" if tso else ""))


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--out", type=Path, default=HERE / "af-ack-metering.json")
    ap.add_argument("--live", type=int, default=0, help="live runs of the data-only variant")
    args = ap.parse_args()
    base = api.builtin_scenario("cc/af-mix").read_text()
    rows = []
    live = []
    if args.live:
        from cc_compare import live_run

        with tempfile.TemporaryDirectory() as tmp:
            scen = Path(tmp) / "af-data-only.toml"
            scen.write_text(base)
            for k in range(args.live):
                s, cond = live_run(str(scen), "--set", "duration=40s")
                ros = {g: statistics.mean(f["respect_of_service"] for f in s["flows"] if f["group"] == g)
                       for g in ("reno", "cubic", "bbr")}
                green = sum(c["green_bytes"] for c in s["conditioners"])
                pkts = sum(c["green_packets"] for c in s["conditioners"])
                live.append({"ros": ros, "green_packet_bytes": green / pkts, **cond})
                print("live", k + 1, {g: round(v, 3) for g, v in ros.items()}, round(green / pkts),
                      "load", cond["load_before"][0], flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        scen = Path(tmp) / "af.toml"
        for data_only in (False, True):
            for tso in (False, True):
                scen.write_text(variant(base, data_only, tso))
                runs = []
                for k in range(1, args.seeds + 1):
                    s = afsim("run", str(scen), "--set", "duration=40s", "--seed", str(k))
                    ros = {g: statistics.mean(f["respect_of_service"] for f in s["flows"] if f["group"] == g)
                           for g in ("reno", "cubic", "bbr")}
                    green = sum(c["green_bytes"] for c in s["conditioners"])
                    pkts = sum(c["green_packets"] for c in s["conditioners"])
                    runs.append({"ros": ros, "green_packet_bytes": green / pkts})
                row = {"meters": "data only (from = sender groups)" if data_only else "ACKs too (before the fix)",
                       "tso_bursts": tso, "runs": runs}
                rows.append(row)
                print(row["meters"], "tso_bursts" if tso else "-",
                      [(round(r["ros"]["reno"], 3), round(r["ros"]["cubic"], 3), round(r["ros"]["bbr"], 3),
                        round(r["green_packet_bytes"])) for r in runs], flush=True)
    args.out.write_text(json.dumps({"scenario": "cc/af-mix", "duration": "40s", "rows": rows,
                                    "live_data_only": live}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
