#!/usr/bin/env python3
"""Cross-check of afsim's TCP against ns-2.35 on a RED dumbbell (docs/validation.md, "TCP
against ns-2").

Read this first: for each configuration (10 flows at 10 Mb/s, the same with ECN, 100 flows at
100 Mb/s) and each seed, runs ns-2 on dumbbell.tcl and afsim on the matching file in
scenarios/validation/, reduces both reports to the same metrics (`metrics_ns2`,
`metrics_afsim`), and summarises them over the seeds as mean and sample standard deviation.
Writes validation/ns2/results.json (every run's metrics and the summary) and prints one
Markdown table per configuration.

    python3 validation/ns2/run.py                 # 3 configurations x 5 seeds, 60 s each
    python3 validation/ns2/run.py --seeds 2 --duration 20 --configs tcp-dumbbell-10
    python3 validation/ns2/run.py --limited-transmit off    # -> results-no-lt.json
    python3 validation/ns2/run.py --split 5                 # also the interval 5-60 s

Needs `ns` (Debian package ns2) on PATH and afsim installed (`pip install .`). A side that
fails (afsim not accepting the scenario yet, say) is recorded with its error and left out of
the tables; the other side still runs.

The seeds of the two simulators are unrelated: seed k of ns-2 and seed k of afsim are two
independent samples, and only the distributions over seeds are compared. The "noise" column
is the difference of the means over its standard error (Welch); |z| < 2 means the difference
is within what the seed-to-seed spread explains.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import ns2kit
from ns2kit import jain, ns2, table, task

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
TCL = HERE / "dumbbell.tcl"
SCENARIOS = REPO / "scenarios" / "validation"

#: IP bytes of a data segment (1000 payload + 40 header) and its payload.
SEGMENT_IP_BYTES = 1040
SEGMENT_PAYLOAD = 1000
#: The bottleneck queue, as afsim names it.
BOTTLENECK = "r1->r2"


@dataclass(frozen=True)
class Config:
    name: str  # also the afsim scenario's file stem
    flows: int
    rate_mbps: int
    ecn: bool

    @property
    def toml(self) -> Path:
        return SCENARIOS / f"{self.name}.toml"


CONFIGS = [
    Config("tcp-dumbbell-10", 10, 10, False),
    Config("tcp-dumbbell-10-ecn", 10, 10, True),
    Config("tcp-dumbbell-100", 100, 100, False),
]

#: (key, label, format) of the compared metrics, in table order.
METRICS: list[tuple[str, str, str]] = [
    ("utilization", "bottleneck utilisation", "{:.4f}"),
    ("goodput_mbps", "aggregate goodput (Mb/s)", "{:.3f}"),
    ("drops", "bottleneck drops, all", "{:.0f}"),
    ("early_drops", "  random early drops", "{:.0f}"),
    ("forced_drops", "  forced drops (avg >= max_th, or overflow)", "{:.0f}"),
    ("marks", "CE marks", "{:.0f}"),
    ("timeouts", "retransmission timeouts", "{:.1f}"),
    ("retransmissions", "retransmitted segments", "{:.0f}"),
    ("mean_queue_pkts", "mean queue length (packets)", "{:.2f}"),
    ("flow_goodput_min", "per-flow goodput min (Mb/s)", "{:.3f}"),
    ("flow_goodput_median", "per-flow goodput median (Mb/s)", "{:.3f}"),
    ("flow_goodput_max", "per-flow goodput max (Mb/s)", "{:.3f}"),
    ("jain", "Jain's index of per-flow goodput", "{:.4f}"),
]


# ---------------------------------------------------------------------- metrics


def spread(goodputs_bytes: list[int], duration_s: float) -> dict[str, float]:
    mbps = sorted(g * 8 / duration_s / 1e6 for g in goodputs_bytes)
    return {
        "goodput_mbps": sum(mbps),
        "flow_goodput_min": mbps[0],
        "flow_goodput_median": statistics.median(mbps),
        "flow_goodput_max": mbps[-1],
        "jain": jain(mbps),
    }


def metrics_ns2(report: dict[str, Any], marks: int | None, timeouts: int, cfg: Config) -> dict[str, Any]:
    b = report["bottleneck"]
    flows = report["flows"]
    t = report["duration_s"]
    m: dict[str, Any] = {
        "utilization": b["bdepartures"] * 8 / (cfg.rate_mbps * 1e6 * t),
        "drops": b["drops"],
        "early_drops": b["early_drops"],
        "forced_drops": b["forced_drops"],
        "marks": marks if cfg.ecn else 0,
        # every expiry of the retransmission timer (the agents' event trace, as afsim counts);
        # nrexmit_ leaves out those that end an ECN reduction or find nothing outstanding
        "timeouts": timeouts,
        "timeouts_nrexmit": sum(f["timeouts"] for f in flows),
        "retransmissions": sum(f["rexmit_pkts"] for f in flows),
        "mean_queue_pkts": b["mean_len_packets"],
        "bottleneck_departures": b["departures"],
        "wall_s": report["wall_s"],
        "per_flow_goodput_bytes": [f["goodput_bytes"] for f in flows],
    }
    m.update(spread(m["per_flow_goodput_bytes"], t))
    return m


def _opt_sum(rows: list[dict[str, Any]], key: str) -> int | None:
    vals = [r.get(key) for r in rows]
    return None if any(v is None for v in vals) else int(sum(vals))  # type: ignore[arg-type]


def metrics_afsim(report: dict[str, Any], cfg: Config, duration_s: float) -> dict[str, Any]:
    q = next(q for q in report["queues"] if q["name"] == BOTTLENECK)
    flows = [f for f in report["flows"] if f.get("group", "tcp") == "tcp"]
    drops = q["drops"]
    early_all = drops.get("early", 0)  # random early drops plus drops forced by avg >= max_th
    overflow = drops.get("overflow", 0)
    forced_avg = q.get("drops_forced", drops.get("forced"))
    # CE marks: the queue's own count when the report has one, else the colour rows of the
    # queue, else the CE-marked segments the receivers saw (the same number: no data packet
    # crosses a second marking queue)
    marks = q.get("ecn_marks")
    if marks is None:
        rows = [c for c in report.get("colours", []) if c.get("queue") == BOTTLENECK]
        if rows and all(c.get("ecn_marks") is not None for c in rows):
            marks = sum(c["ecn_marks"] for c in rows)
    if marks is None:
        marks = _opt_sum(flows, "ce_received")
    goodput = [f.get("goodput_bytes") for f in flows]
    if any(g is None for g in goodput):
        # no goodput field yet: in-order payload is not reported; fall back to delivered
        # packets (retransmitted duplicates included), which overstates goodput slightly
        goodput = [f["packets_delivered"] * SEGMENT_PAYLOAD for f in flows]
    m: dict[str, Any] = {
        "utilization": q["departure_bytes"] * 8 / (cfg.rate_mbps * 1e6 * duration_s),
        "drops": q["drops_total"],
        "early_drops": None if forced_avg is None else early_all - forced_avg,
        "forced_drops": None if forced_avg is None else forced_avg + overflow,
        "early_drops_incl_forced": early_all,
        "overflow_drops": overflow,
        "marks": marks if cfg.ecn else 0,
        "timeouts": _opt_sum(flows, "timeouts"),
        "retransmissions": _opt_sum(flows, "retransmitted_packets"),
        "mean_queue_pkts": q["mean_len_packets"],
        "bottleneck_departures": q["departures"],
        "per_flow_goodput_bytes": goodput,
    }
    m.update(spread(goodput, duration_s))  # type: ignore[arg-type]
    return m


#: Counters that subtract over an interval.
COUNTERS = ("drops", "early_drops", "forced_drops", "marks", "timeouts", "retransmissions",
            "bottleneck_departures")


def interval(head: dict[str, Any], whole: dict[str, Any], t0: float, t1: float) -> dict[str, Any]:
    """Metrics of [t0, t1] from a run of [0, t0] (`head`) and one of [0, t1] (`whole`)."""
    m: dict[str, Any] = {}
    for k in COUNTERS:
        a, b = head.get(k), whole.get(k)
        m[k] = None if a is None or b is None else b - a
    span = t1 - t0
    m["utilization"] = (whole["utilization"] * t1 - head["utilization"] * t0) / span
    m["mean_queue_pkts"] = (whole["mean_queue_pkts"] * t1 - head["mean_queue_pkts"] * t0) / span
    per_flow = [b - a for a, b in zip(head["per_flow_goodput_bytes"], whole["per_flow_goodput_bytes"])]
    m["per_flow_goodput_bytes"] = per_flow
    m.update(spread(per_flow, span))
    return m


# ---------------------------------------------------------------------- runs


def run_ns2(cfg: Config, seed: int, duration_s: float, lt: bool) -> dict[str, Any]:
    args = [f"flows={cfg.flows}", f"rate={cfg.rate_mbps}Mb", f"ecn={int(cfg.ecn)}", f"seed={seed}",
            f"duration={duration_s:g}", f"marks={int(cfg.ecn)}", f"lt={int(lt)}"]
    run = ns2(TCL, args)
    # the JSON report, then what awk prints as its pipes close: "MARKS n" (ECN runs) and
    # "TIMEOUTS n0 n1 ..." (every timeout, by flow)
    report, tags = run.report()
    if "TIMEOUTS" not in tags:
        raise RuntimeError(f"{' '.join(run.cmd)}: no TIMEOUTS line")
    marks = int(tags["MARKS"]) if "MARKS" in tags else None
    timeouts = sum(int(x) for x in tags["TIMEOUTS"].split())
    m = metrics_ns2(report, marks, timeouts, cfg)
    m["process_wall_s"] = run.wall_s
    return m


def afsim_task(cfg: Config, seed: int, duration_s: float, lt: bool) -> Any:
    return task(cfg.toml, {"duration": f"{duration_s:g}s", "limited_transmit": str(lt).lower()}, seed)


def afsim_metrics(cfg: Config, report: dict[str, Any], duration_s: float) -> dict[str, Any]:
    """The metrics of an afsim run's report; ``run_wall_s``: the engine's wall time."""
    m = metrics_afsim(report, cfg, duration_s)
    m["run_wall_s"] = report["_wall_s"]
    return m


def run_jobs(jobs: list[tuple[str, Config, int]], duration_s: float, lt: bool, split_s: float | None,
             n_jobs: int, store: Path | None) -> list[dict[str, Any]]:
    """Each job's row, in order (``ns2kit.run_jobs``). With `split_s`, each run is repeated up
    to `split_s`: the first split_s seconds of a run are the same events as a run that stops
    there (same seed), so the difference of the two is the interval [split_s, end] (`steady`)."""
    spans = [duration_s] + ([split_s] if split_s is not None else [])

    def ns2_metrics(j: tuple[str, Config, int]) -> dict[str, Any]:
        m = run_ns2(j[1], j[2], duration_s, lt)
        if split_s is not None:
            m["steady"] = interval(run_ns2(j[1], j[2], split_s, lt), m, split_s, duration_s)
        return m

    def afsim_of(j: tuple[str, Config, int], reports: list[dict[str, Any]]) -> dict[str, Any]:
        m = afsim_metrics(j[1], reports[0], duration_s)
        if split_s is not None:
            m["steady"] = interval(afsim_metrics(j[1], reports[1], split_s), m, split_s, duration_s)
        return m

    return ns2kit.run_jobs(
        jobs, sim=lambda j: j[0], head=lambda j: {"sim": j[0], "config": j[1].name, "seed": j[2]},
        ns2_metrics=ns2_metrics, afsim_tasks=lambda j: [afsim_task(j[1], j[2], d, lt) for d in spans],
        afsim_metrics=afsim_of, n_jobs=n_jobs, store=store)


# ---------------------------------------------------------------------- summary


def summarise(runs: list[dict[str, Any]], part: str | None = None) -> dict[str, Any]:
    rows = [r["metrics"] if part is None else r["metrics"][part] for r in runs if r["ok"]]
    return ns2kit.summarise(rows, [key for key, _, _ in METRICS])


def markdown(summary: dict[str, Any], seeds: list[int], span: str, lt: bool) -> str:
    lines = []
    for cfg in CONFIGS:
        if cfg.name not in summary:
            continue
        s = summary[cfg.name]
        title = (f"**{cfg.name}**: {cfg.flows} flows, {cfg.rate_mbps} Mb/s bottleneck"
                 f"{', ECN' if cfg.ecn else ''}, limited transmit {'on' if lt else 'off'}; "
                 f"{span}; mean ± sd over seeds {seeds[0]}–{seeds[-1]}")
        lines += [title, "", *table(s["ns-2"], s["afsim"], METRICS)]
        lines.append("")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seeds", type=int, default=5, help="seeds 1..N (default 5)")
    ap.add_argument("--duration", type=float, default=60.0, help="simulated seconds (default 60)")
    ap.add_argument("--configs", nargs="*", default=[c.name for c in CONFIGS],
                    choices=[c.name for c in CONFIGS])
    ap.add_argument("--sims", nargs="*", default=["ns-2", "afsim"], choices=["ns-2", "afsim"])
    ap.add_argument("--limited-transmit", choices=["on", "off"], default="on",
                    help="ns-2 singledup_ / afsim limited_transmit in both (default on, ns-2.35's default)")
    ap.add_argument("--split", type=float, metavar="T0",
                    help="also report the interval [T0, duration] (each run is repeated up to T0)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--store", type=Path, help="an afsim results store: afsim runs already in it are read, "
                    "not run again (afsim sweep --store)")
    ap.add_argument("--out", type=Path, help="default validation/ns2/results.json "
                    "(results-no-lt.json with --limited-transmit off)")
    args = ap.parse_args(argv)
    lt = args.limited_transmit == "on"
    if args.out is None:
        args.out = HERE / ("results.json" if lt else "results-no-lt.json")
    if args.split is not None and not 0 < args.split < args.duration:
        ap.error("--split must be inside (0, duration)")

    seeds = list(range(1, args.seeds + 1))
    configs = [c for c in CONFIGS if c.name in args.configs]
    jobs = [(sim, cfg, seed) for cfg in configs for seed in seeds for sim in args.sims]
    t0 = time.perf_counter()
    runs = run_jobs(jobs, args.duration, lt, args.split, args.jobs, args.store)
    wall = time.perf_counter() - t0

    summary: dict[str, Any] = {}
    steady: dict[str, Any] = {}
    for cfg in configs:
        mine = {sim: [r for r in runs if r["sim"] == sim and r["config"] == cfg.name]
                for sim in ("ns-2", "afsim")}
        summary[cfg.name] = {sim: summarise(rs) for sim, rs in mine.items()}
        if args.split is not None:
            steady[cfg.name] = {sim: summarise(rs, "steady") for sim, rs in mine.items()}
    errors = [r for r in runs if not r["ok"]]
    result = {
        "seeds": seeds,
        "duration_s": args.duration,
        "limited_transmit": lt,
        "split_s": args.split,
        "wall_s": wall,
        "configs": {c.name: {"flows": c.flows, "rate_mbps": c.rate_mbps, "ecn": c.ecn,
                             "afsim_scenario": str(c.toml.relative_to(REPO))} for c in configs},
        "summary": summary,
        "summary_steady": steady or None,
        "runs": runs,
    }
    args.out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    print(markdown(summary, seeds, f"0–{args.duration:g} s", lt))
    if args.split is not None:
        print(markdown(steady, seeds, f"{args.split:g}–{args.duration:g} s only", lt))
    for r in errors:
        first = r["error"].strip().splitlines()
        print(f"FAILED {r['sim']} {r['config']} seed {r['seed']}: {' / '.join(first[:3])}",
              file=sys.stderr)
    print(f"{len(runs)} runs ({len(errors)} failed) in {wall:.1f} s wall; wrote "
          f"{args.out.relative_to(REPO) if args.out.is_relative_to(REPO) else args.out}",
          file=sys.stderr)
    return 1 if len(errors) == len(runs) else 0


if __name__ == "__main__":
    sys.exit(main())
