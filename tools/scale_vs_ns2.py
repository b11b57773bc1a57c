#!/usr/bin/env python3
"""afsim against ns-2.35 at many flows: the scale dumbbell, side by side, whole processes.

Read this first: for each flow count, runs ns-2 on validation/ns2/dumbbell.tcl (flows=N,
100 Mb/s, no ECN, seed 1, flows starting over the first second, no traces) and afsim on
scenarios/scale/tcp-dumbbell.toml with the same N (`python -m afsim.bench_scale --worker
tcp-dumbbell --bottleneck`), alternately, `--reps` times each, and keeps each one's best wall
time. Both are timed as whole processes under `/usr/bin/time` (interpreter start, building
the network and the route computation, the run and the output included), with their peak
RSS. ns-2 is skipped beyond `--ns2-max` flows (it slows down more than linearly). Writes a
JSON file whose `ns2` list tools/scale_plot.py draws:

    python3 tools/scale_vs_ns2.py --flows 100,1000,2000,5000 --reps 2 --json out.json

Needs `ns` (apt-get install ns2) and afsim importable by `--python`.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
TCL = REPO / "validation" / "ns2" / "dumbbell.tcl"


def timed(cmd: list[str], cwd: Path) -> tuple[str, float, float]:
    """stdout, wall seconds and peak RSS (MiB) of a whole process, by /usr/bin/time."""
    with tempfile.NamedTemporaryFile("r", suffix=".time") as t:
        proc = subprocess.run(["/usr/bin/time", "-o", t.name, "-f", "%e %M", *cmd], cwd=cwd,
                              capture_output=True, text=True, check=False)
        if proc.returncode != 0:
            raise RuntimeError(f"{cmd[0]} failed (exit {proc.returncode}):\n{proc.stderr[-2000:]}")
        wall, kib = t.read().split()[-2:]
    return proc.stdout, float(wall), int(kib) / 1024.0


def ns2_once(flows: int, duration: float) -> dict[str, Any]:
    out, wall, mib = timed(["ns", str(TCL), f"flows={flows}", "rate=100Mb", "ecn=0", "seed=1",
                            f"duration={duration:g}", "marks=0", "events=0"], TCL.parent)
    rep = json.loads(out)
    return {"process_s": wall, "peak_rss_mib": mib, "run_s": rep["wall_s"],
            "departures": rep["bottleneck"]["departures"]}


def afsim_once(python: str, flows: int, duration: float) -> dict[str, Any]:
    out, wall, _process_mib = timed([python, "-m", "afsim.bench_scale", "--worker", "tcp-dumbbell",
                            "--flows", str(flows), "--duration", str(duration), "--bottleneck"],
                           REPO)
    rep = json.loads(out)
    # afsim's peak RSS is the worker's own, read before it builds the queue columns for the
    # bottleneck count (which the whole process's figure would include)
    return {"process_s": wall, "peak_rss_mib": rep["peak_rss_mib"],
            "run_s": rep["build_s"] + rep["run_s"] + rep["report_s"],
            "departures": rep["bottleneck_departures"]}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--flows", default="100,1000,2000")
    ap.add_argument("--reps", type=int, default=2)
    ap.add_argument("--duration", type=float, default=20.0)
    ap.add_argument("--ns2-max", type=int, default=5000)
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args(argv)
    rows = []
    for n in (int(x) for x in args.flows.split(",")):
        ns_s: list[dict[str, Any]] = []
        af_s: list[dict[str, Any]] = []
        for _ in range(args.reps):
            if n <= args.ns2_max:
                ns_s.append(ns2_once(n, args.duration))
            af_s.append(afsim_once(args.python, n, args.duration))
        af = min(af_s, key=lambda s: s["process_s"])
        row: dict[str, Any] = {"flows": n, "afsim_process_s": af["process_s"],
                               "afsim_peak_rss_mib": af["peak_rss_mib"],
                               "afsim_departures": af["departures"], "afsim_samples": af_s}
        if ns_s:
            ns = min(ns_s, key=lambda s: s["process_s"])
            row |= {"ns2_process_s": ns["process_s"], "ns2_peak_rss_mib": ns["peak_rss_mib"],
                    "ns2_run_s": ns["run_s"], "ns2_departures": ns["departures"],
                    "ratio_process": ns["process_s"] / af["process_s"], "ns2_samples": ns_s}
        rows.append(row)
        print(json.dumps({k: v for k, v in row.items() if not k.endswith("samples")}), flush=True)
    print("\n| flows | ns-2 process (s) | afsim process (s) | ns-2 / afsim | ns-2 peak RSS (MiB) "
          "| afsim peak RSS (MiB) | bottleneck departures ns-2 / afsim |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        if "ns2_process_s" in r:
            print(f"| {r['flows']:,} | {r['ns2_process_s']:.2f} | {r['afsim_process_s']:.2f} | "
                  f"{r['ratio_process']:.1f} | {r['ns2_peak_rss_mib']:.0f} | "
                  f"{r['afsim_peak_rss_mib']:.0f} | {r['ns2_departures']:,} / "
                  f"{r['afsim_departures']:,} |")
        else:
            print(f"| {r['flows']:,} | – | {r['afsim_process_s']:.2f} | – | – | "
                  f"{r['afsim_peak_rss_mib']:.0f} | – / {r['afsim_departures']:,} |")
    if args.json:
        args.json.write_text(json.dumps({"reps": args.reps, "duration_s": args.duration,
                                         "rows": rows}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
