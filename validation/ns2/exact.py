#!/usr/bin/env python3
"""The exact ns-2 comparison: afsim's TCP (`preset = "ns2"`) against ns-2.35, packet for packet
where nothing is random (docs/validation.md, "Parity grid").

Read this first. On the dumbbell of the parity grid with a drop-tail bottleneck instead of RED
(`dumbbell.tcl bq=droptail`, `scenarios/validation/dumbbell-droptail.toml`), deterministic flow
starts and `overhead_ 0`, the only randomness left is the phase of each sender's coarse clock
(ns-2 `boot_time_`, drawn from each simulator's own generator); a 0.1 ms tick makes it too small
to change a retransmission timeout. Two correct models of the same TCP then send the same
packets at the same instants, so their per-flow counts — data packets sent, retransmissions,
timeouts, in-order payload delivered — and the bottleneck's drops must be *equal*, not close.
For every configuration this prints whether they are; with `--bisect`, where they are not, the
first instant (to 20 µs) at which they part and the flows that differ then.

    python3 validation/ns2/exact.py                     # 3 senders x 3 flow counts x 3 rates x LT on/off, 20 s
    python3 validation/ns2/exact.py --bisect --only reno/30/5/1
    python3 validation/ns2/exact.py --access 104 --out /tmp/exact-104.json   # access links off 100 Mb/s
    python3 validation/ns2/exact.py --min-rto 2 --bisect --out /tmp/exact-rto2.json  # see below

`--min-rto 2` takes the clocks' phase out as well: each sender samples RTTs on a 0.1 ms clock
whose phase is random (ns-2 `boot_time_`), so its RTO can differ by a tick between the two
simulators once queueing lifts it above the 200 ms floor; a floor of 2 s is never passed here,
and the RTO is then the same in both.

Needs `ns` on PATH and afsim importable. Writes validation/ns2/exact.json.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
import ns2kit
from grid import VARIANTS
from ns2kit import afsim_reports, task

TOML = REPO / "scenarios" / "validation" / "dumbbell-droptail.toml"
BQ_LIMIT = 100  # ns-2 queue-limit of the bottleneck: 99 packets waiting
TICK_S = 0.0001

Config = tuple[str, int, int, bool]  # variant, flows, rate (Mb/s), limited transmit


def configs() -> list[Config]:
    return [(v, f, r, lt) for v in VARIANTS for f in (3, 10, 30) for r in (5, 10, 20) for lt in (True, False)]


def key(c: Config) -> str:
    return f"{c[0]}/{c[1]}/{c[2]}/{int(c[3])}"


Counts = tuple[list[tuple[int, int, int, int]], int]


#: Rate of the access links, Mb/s (a decimal string; `--access`), and the RTO floor, seconds
#: (`--min-rto`).
ACCESS_MBPS = "100"
MIN_RTO_S = "0.2"


def ns2(c: Config, t: float) -> Counts:
    v, flows, rate, lt = c
    args = ["bq=droptail", f"bq_limit={BQ_LIMIT}", f"tick={TICK_S}", f"flows={flows}", f"rate={rate}Mb",
            f"variant={v}", f"lt={int(lt)}", "seed=1", "marks=0", f"duration={t:.6f}",
            f"access_rate={ACCESS_MBPS}Mb", f"minrto={MIN_RTO_S}"]
    rep, extra = ns2kit.ns2(HERE / "dumbbell.tcl", args).report()
    timeouts = [int(x) for x in extra["TIMEOUTS"].split()]
    # goodput in whole segments; 1000 payload bytes each
    flows_ = [(f["data_pkts_sent"], f["rexmit_pkts"], k, f["goodput_bytes"] // 1000)
              for f, k in zip(rep["flows"], timeouts)]
    return flows_, rep["bottleneck"]["drops"]


def afsim(c: Config, t: float) -> Counts:
    v, flows, rate, lt = c
    sets = {"duration": f"{t * 1e6:.0f}us", "flows": str(flows), "rate": f"{rate}Mbps", "variant": v,
            "limited_transmit": str(lt).lower(), "start_step": f"{round(1e9 / flows)}ns",
            "limit": f"{BQ_LIMIT - 1}pkt", "tick": f"{TICK_S * 1e6:g}us",
            "access_rate": f"{ACCESS_MBPS}Mbps", "min_rto": f"{float(MIN_RTO_S) * 1000:g}ms"}
    (rep,) = afsim_reports([task(TOML, sets, 1)])
    if isinstance(rep, Exception):
        raise rep
    q = next(q for q in rep["queues"] if q["name"] == "r1->r2")
    flows_ = [(f["packets_sent"], f["retransmitted_packets"], f["timeouts"], f["goodput_bytes"] // 1000)
              for f in rep["flows"]]
    return flows_, q["drops_total"]


def differing(a: Counts, b: Counts) -> list[dict[str, Any]]:
    return [{"flow": i, "ns-2": x, "afsim": y} for i, (x, y) in enumerate(zip(a[0], b[0])) if x != y]


def bisect(c: Config, hi: float) -> dict[str, Any]:
    """The first instant (to 20 µs) at which the two runs' counts differ."""
    lo = 0.0
    while hi - lo > 2e-5:
        mid = round((lo + hi) / 2, 6)
        if ns2(c, mid) == afsim(c, mid):
            lo = mid
        else:
            hi = mid
    a, b = ns2(c, hi), afsim(c, hi)
    return {"after_s": lo, "by_s": hi, "flows": differing(a, b)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--duration", type=float, default=20.0)
    ap.add_argument("--only", nargs="*", help="configurations as variant/flows/rate/lt, e.g. reno/30/5/1")
    ap.add_argument("--bisect", action="store_true", help="find where the runs that differ part")
    ap.add_argument("--out", type=Path, default=HERE / "exact.json")
    ap.add_argument("--access", default="100", help="access-link rate, Mb/s (default 100)")
    ap.add_argument("--min-rto", default="0.2", help="RTO floor, seconds (default 0.2)")
    args = ap.parse_args(argv)
    global ACCESS_MBPS, MIN_RTO_S
    ACCESS_MBPS, MIN_RTO_S = args.access, args.min_rto
    todo = [c for c in configs() if not args.only or key(c) in args.only]
    t0 = time.perf_counter()
    rows = []
    for c in todo:
        a, b = ns2(c, args.duration), afsim(c, args.duration)
        row: dict[str, Any] = {"config": key(c), "identical": a == b, "drops": [a[1], b[1]],
                               "segments_sent": [sum(x[0] for x in a[0]), sum(x[0] for x in b[0])]}
        if a != b and args.bisect:
            row["parts"] = bisect(c, args.duration)
        rows.append(row)
        where = ""
        if "parts" in row:
            p = row["parts"]
            where = f"; first difference by {p['by_s']:.5f} s: " + ", ".join(
                f"flow {d['flow']} {d['ns-2']} vs {d['afsim']}" for d in p["flows"][:3])
        print(f"{key(c):18s} {'identical' if a == b else 'DIFFERENT'}  drops {a[1]}/{b[1]}{where}", flush=True)
    same = sum(r["identical"] for r in rows)
    print(f"{same} of {len(rows)} identical over {args.duration:g} s ({time.perf_counter() - t0:.0f} s wall)")
    args.out.write_text(json.dumps({"duration_s": args.duration, "tick_s": TICK_S, "bq_limit": BQ_LIMIT,
                                    "access_mbps": args.access, "min_rto_s": args.min_rto,
                                    "rows": rows}, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
