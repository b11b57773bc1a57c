#!/usr/bin/env python3
"""Cross-check of ECN marking with RIO against ns-2.35's DiffServ module: ECN-capable TCP and a
RIO-C bottleneck that marks instead of dropping (Leung & Muppala's setting, paper 004).

Read this first: the network is the DiffServ cross-check's (validation/ns2/diffserv.py: 20 NewReno
flows, a token bucket per source marking AF11 in profile and AF12 beyond it, a 10 Mb/s RIO-C
bottleneck of 50 packets, 200 s) with ECN on at both ends: ns-2 runs diffserv.tcl with `ecn=1`
(Agent/TCP ecn_ 1 and the core queue's ecn_ 1), afsim scenarios/validation/diffserv-rio-ecn.toml
(TCP ecn = true; RIO ecn = "tail", ecn_forced = "mark"). ns-2's dsredq.cc (redQueue::enque)
queues an ECN-capable arrival first and then returns PKT_MARKED wherever it would have dropped
it — at a random early decision *and* beyond max_th — so only a full buffer drops; dsREDQueue
then sets CE in that arrival (mark-tail). afsim's RIO does the same with ecn_forced = "mark"
(queue/red.rs `act`). Both sides are reduced with diffserv.py's metrics, plus each class's ECN
window reductions (ns-2 `necnresponses_`, afsim `ecn_reductions`).

    python3 validation/ns2/diffserv_ecn.py              # 10 seeds x 200 s, limited transmit on
                                                        # and off (about a minute)
    python3 validation/ns2/diffserv_ecn.py --seeds 3 --duration 50

Writes validation/ns2/diffserv-ecn-results.json (every run and the summary) and
diffserv-ecn-results.md (the table). Seeds of the two simulators are unrelated: only
distributions over seeds are compared; z is the difference of the means over its standard error
(Welch).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
import diffserv as ds
from ns2kit import run_jobs

TOML = ds.REPO / "scenarios" / "validation" / "diffserv-rio-ecn.toml"
OUT_JSON = HERE / "diffserv-ecn-results.json"
OUT_MD = HERE / "diffserv-ecn-results.md"

ROWS = [
    ("AF11.arrivals", "AF11 arrivals at the bottleneck", "{:.0f}"),
    ("AF11.drops", "AF11 drops (all)", "{:.1f}"),
    ("AF12.arrivals", "AF12 arrivals at the bottleneck", "{:.0f}"),
    ("AF12.drops", "AF12 drops (all)", "{:.1f}"),
    ("overflow", "overflow drops (buffer full), both code points", "{:.1f}"),
    ("drops", "all drops", "{:.1f}"),
    ("a.ecn_responses", "class a (CIR 200 kb/s): ECN window reductions", "{:.0f}"),
    ("b.ecn_responses", "class b (CIR 600 kb/s): ECN window reductions", "{:.0f}"),
    ("edge.out_share", "share marked AF12 at the edge", "{:.4f}"),
    ("utilization", "bottleneck utilisation", "{:.4f}"),
    ("mean_queue_pkts", "mean queue length (packets)", "{:.2f}"),
    ("goodput_mbps", "aggregate goodput (Mb/s)", "{:.3f}"),
    ("a.goodput_mbps", "class a: goodput, 10 flows (Mb/s)", "{:.3f}"),
    ("b.goodput_mbps", "class b: goodput, 10 flows (Mb/s)", "{:.3f}"),
    ("a.retransmissions", "class a: retransmitted segments", "{:.1f}"),
    ("b.retransmissions", "class b: retransmitted segments", "{:.1f}"),
    ("a.timeouts", "class a: retransmission timeouts (every expiry)", "{:.1f}"),
    ("b.timeouts", "class b: retransmission timeouts (every expiry)", "{:.1f}"),
    ("a.timeouts_nrexmit", "class a: ns-2's nrexmit_ (without those that end an ECN reduction)", "{:.1f}"),
    ("b.timeouts_nrexmit", "class b: ns-2's nrexmit_", "{:.1f}"),
    ("jain", "Jain's index of per-flow goodput, all 20", "{:.4f}"),
]


def ecn_by_class(per_flow: list[int]) -> dict[str, int]:
    return {f"{cls}.ecn_responses": sum(per_flow[i] for i in idx) for cls, (idx, _) in ds.CLASSES.items()}


def run_ns2(seed: int, duration_s: float, lt: bool) -> dict[str, Any]:
    out = ds.ns2_raw(seed, duration_s, lt, ("ecn=1", "events=1"))
    m = ds.metrics_ns2(out["report"], out["trace"])
    m |= ecn_by_class([f["ecn_responses"] for f in out["report"]["flows"]])
    # timeouts as afsim counts them, every expiry (the TIMEOUT events; as the parity grid);
    # nrexmit_ leaves out those that end an ECN window reduction (tcp.cc TcpAgent::timeout)
    for cls, (idx, _) in ds.CLASSES.items():
        m[f"{cls}.timeouts_nrexmit"] = m[f"{cls}.timeouts"]
        m[f"{cls}.timeouts"] = sum(out["timeouts"][i] for i in idx)
    return m


def afsim_metrics(rep: dict[str, Any], duration_s: float) -> dict[str, Any]:
    m = ds.metrics_afsim(rep, duration_s)
    flows = {f["name"]: f for f in rep["flows"]}
    order = [f"a{i}" for i in range(10)] + [f"b{i}" for i in range(10)]
    m |= ecn_by_class([flows[n]["ecn_reductions"] for n in order])
    m["ecn_marks"] = sum(c["ecn_marks"] for c in rep["colours"] if c["queue"] == ds.BOTTLENECK)
    return m


def runs_of(seeds: int, duration_s: float, lt: bool, n_jobs: int, store: Path | None) -> list[dict[str, Any]]:
    """Both simulators over the seeds (``ns2kit.run_jobs``), ns-2 and afsim alternating."""
    jobs = [(sim, s) for s in range(1, seeds + 1) for sim in ("ns-2", "afsim")]
    return run_jobs(jobs, sim=lambda j: j[0], head=lambda j: {"sim": j[0], "seed": j[1]},
                    ns2_metrics=lambda j: run_ns2(j[1], duration_s, lt),
                    afsim_tasks=lambda j: [ds.afsim_task(j[1], duration_s, lt, TOML)],
                    afsim_metrics=lambda _, reports: afsim_metrics(reports[0], duration_s),
                    n_jobs=n_jobs, store=store)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--duration", type=float, default=200.0)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--store", type=Path, help="an afsim results store: afsim runs already in it are read, "
                    "not run again (afsim sweep --store)")
    args = ap.parse_args(argv)
    doc: dict[str, Any] = {"seeds": args.seeds, "duration_s": args.duration, "afsim_commit": ds.git_head()}
    lines = ["# ECN with RIO: afsim against ns-2.35's dsRED", "",
             f"`python3 validation/ns2/diffserv_ecn.py --seeds {args.seeds} --duration {args.duration:g}` "
             f"(afsim commit {ds.git_head() or 'unknown'}); mean ± standard deviation over "
             f"{args.seeds} seeds of each simulator; z: Welch's, |z| < 2 is within the seed-to-seed "
             "spread. Network: diffserv-results.md's, with ECN-capable TCP and a marking RIO-C "
             "bottleneck (see this script's header)."]
    bad = []
    for lt in (True, False):
        runs = runs_of(args.seeds, args.duration, lt, args.jobs, args.store)
        bad += [r for r in runs if not r["ok"]]
        summary = {sim: ds.summarise([r for r in runs if r["sim"] == sim]) for sim in ("ns-2", "afsim")}
        tag = "limited_transmit_on" if lt else "limited_transmit_off"
        doc[tag] = {"runs": runs, "summary": summary}
        lines += ["", f"## Limited transmit {'on (ns-2.35 singledup_ 1)' if lt else 'off (singledup_ 0)'}",
                  "", *ds.table(summary, ROWS)]
    for r in bad:
        print(f"{r['sim']} seed {r['seed']}: {r['error']}", file=sys.stderr)
    OUT_JSON.write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
    lines.append("")
    OUT_MD.write_text("\n".join(lines), encoding="utf-8")
    print("\n".join(lines))
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
