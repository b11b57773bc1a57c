#!/usr/bin/env python3
"""Speed of afsim against ns-2.35 on the TCP dumbbells, in one sitting on one machine.

Read this first: for each dumbbell (10 flows at 10 Mb/s, 100 flows at 100 Mb/s; no ECN, 60 s,
seed 1) runs ns-2 (dumbbell.tcl, without the mark and event traces) and afsim (scenarios/validation/) in
alternation, `--reps` times each, and keeps the best (smallest) wall time of each. The figure
of merit is bottleneck packets per wall second: departures of the r1->r2 queue over the wall
time. Two wall times are kept for each simulator:

- run: the simulation proper. ns-2: the event loop from simulated time 0 to the end (clock
  microseconds in the script; building the nodes and links, and the route computation that
  `$ns run` does before time 0, are left out); afsim: `RunResult.wall_seconds`, what `afsim
  bench` reports: `afsim_core::run`, which also builds the world from the loaded scenario and
  writes the report (so afsim's figure carries a little setup that ns-2's does not).
- process: the whole command, interpreter start, scenario building and report included
  (ns-2: `ns dumbbell.tcl`; afsim: a Python process that imports afsim, loads and runs).

    python3 validation/ns2/speed.py              # 5 repetitions, 60 s scenarios
    python3 validation/ns2/speed.py --reps 3 --json speed.json

The issue's target is a run ratio (afsim / ns-2) of at least 3.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from ns2kit import ns2

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
TCL = HERE / "dumbbell.tcl"

#: name -> (flows, bottleneck Mb/s); the afsim file is scenarios/validation/<name>.toml.
DUMBBELLS = {"tcp-dumbbell-10": (10, 10), "tcp-dumbbell-100": (100, 100)}

AFSIM_WORKER = r"""
import json, sys, time
t0 = time.perf_counter()
import afsim
scenario = afsim.load_scenario(sys.argv[1], overrides={"duration": sys.argv[3]})
result = afsim._core.run(scenario, seed=int(sys.argv[2]))
summary = json.loads(result.summary_json())
q = next(q for q in summary["queues"] if q["name"] == "r1->r2")
print(json.dumps({"wall_s": result.wall_seconds, "departures": q["departures"],
                  "events": result.events, "inner_process_s": time.perf_counter() - t0}))
"""


def ns2_once(flows: int, rate: int, duration: float, seed: int) -> dict[str, Any]:
    run = ns2(TCL, [f"flows={flows}", f"rate={rate}Mb", "ecn=0", f"seed={seed}", f"duration={duration:g}",
                    "marks=0", "events=0"])
    rep, _ = run.report()
    return {"run_s": rep["wall_s"], "process_s": run.wall_s,
            "departures": rep["bottleneck"]["departures"]}


def afsim_once(name: str, duration: float, seed: int) -> dict[str, Any]:
    """One afsim run in a fresh Python process (not through ``ns2kit.afsim_reports``: the
    process's wall time, interpreter start and import included, is what is measured)."""
    path = REPO / "scenarios" / "validation" / f"{name}.toml"
    cmd = [sys.executable, "-c", AFSIM_WORKER, str(path), str(seed), f"{duration:g}s"]
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False, cwd=REPO)
    process = time.perf_counter() - t0
    if proc.returncode != 0:
        raise RuntimeError(f"afsim on {path.name}: exit {proc.returncode}\n{proc.stderr.strip()}")
    rep = json.loads(proc.stdout)
    return {"run_s": rep["wall_s"], "process_s": process, "departures": rep["departures"],
            "events": rep["events"]}


def best(samples: list[dict[str, Any]]) -> dict[str, Any]:
    run = min(s["run_s"] for s in samples)
    proc = min(s["process_s"] for s in samples)
    dep = samples[0]["departures"]
    return {"departures": dep, "run_s": run, "process_s": proc,
            "pkts_per_s_run": dep / run, "pkts_per_s_process": dep / proc,
            "samples": samples}


def machine() -> dict[str, Any]:
    cpu = platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    ns_version = subprocess.run(["dpkg-query", "-W", "-f", "${Package} ${Version}", "ns2"],
                                capture_output=True, text=True, check=False).stdout.strip()
    return {"cpu": cpu, "nproc": os.cpu_count(), "python": platform.python_version(),
            "ns": ns_version or "ns-2"}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--duration", type=float, default=60.0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", type=Path, help="also write the measurements here")
    args = ap.parse_args(argv)

    rows = []
    for name, (flows, rate) in DUMBBELLS.items():
        ns_s, af_s = [], []
        for _ in range(args.reps):  # alternate, so that drifting machine load hits both
            ns_s.append(ns2_once(flows, rate, args.duration, args.seed))
            af_s.append(afsim_once(name, args.duration, args.seed))
        ns, af = best(ns_s), best(af_s)
        rows.append({"name": name, "ns-2": ns, "afsim": af,
                     "ratio_run": af["pkts_per_s_run"] / ns["pkts_per_s_run"],
                     "ratio_process": af["pkts_per_s_process"] / ns["pkts_per_s_process"]})

    m = machine()
    print(f"best of {args.reps}, {args.duration:g} s simulated, seed {args.seed}; "
          f"{m['cpu']}, {m['nproc']} CPUs; {m['ns']}\n")
    print("| scenario | bottleneck pkts | ns-2 run (s) | afsim run (s) | ns-2 pkts/s | afsim pkts/s "
          "| ratio (run) | ns-2 process (s) | afsim process (s) | ratio (process) |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        ns, af = r["ns-2"], r["afsim"]
        print(f"| {r['name']} | {ns['departures']:,} / {af['departures']:,} | {ns['run_s']:.3f} "
              f"| {af['run_s']:.3f} | {ns['pkts_per_s_run'] / 1e6:.3f} M | "
              f"{af['pkts_per_s_run'] / 1e6:.3f} M | {r['ratio_run']:.2f} | {ns['process_s']:.3f} "
              f"| {af['process_s']:.3f} | {r['ratio_process']:.2f} |")
    if args.json:
        args.json.write_text(json.dumps({"machine": m, "reps": args.reps,
                                         "duration_s": args.duration, "rows": rows}, indent=1) + "\n")
    ok = all(r["ratio_run"] >= 3.0 for r in rows)
    print(f"\ntarget (afsim >= 3x ns-2 bottleneck packets per wall second, run): "
          f"{'met' if ok else 'NOT met'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
