#!/usr/bin/env python3
"""Whole-process speed of afsim against htsim on issue 25's two TCP dumbbells (and, with
`--scale-flows`, issue 28's scale dumbbell), in one sitting.

Read this first: the cases are issue 25's table — 10 flows behind a 10 Mb/s bottleneck and
100 flows behind a 100 Mb/s one, 600 simulated seconds each (python/afsim/scenarios/bench/
tcp-dumbbell-10.toml and -100.toml with `duration=600s`; htsim: validation/htsim/dumbbell.cpp,
the same network over csg-htsim's own TcpSrc, Queue and Pipe, its bottleneck drop-tail where
afsim's is RED, its TCP htsim's, as dumbbell.cpp's head says). Each repetition runs every
command once, in turn (htsim, then each afsim build), so that drifting load hits all of them;
the figure is the median wall time of the whole process (start, build, run, report), and the
ratio is htsim's median over afsim's: above 1, afsim is faster.

    python3 validation/htsim/speed.py --htsim /path/to/csg-htsim/sim \\
        --run-file target/release/examples/run_file [--old-run-file OLD [--old-label NAME]] [--reps 5]

`--run-file` is the Rust runner (`cargo build --release -p afsim-core --example run_file`),
what the issue measured; `--python PY` adds the Python front (`PY -m afsim run FILE --set
duration=600s --format json`, the report printed to a pipe and discarded) as a user runs it.

`--scale-flows 2000[,N...]` adds issue 28's cases: python/afsim/scenarios/scale/tcp-dumbbell.toml
with `flows=N start_step=<1 s / N>` (a 100 Mb/s RED bottleneck, 20 simulated seconds; the
duration is the file's, not `--duration`) against `dumbbell N` (htsim's same network, its own
defaults: 100 Mb/s, 20 s, flow i starting at i/N s). `--scale-only` leaves issue 25's out.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
BENCH = REPO / "python" / "afsim" / "scenarios" / "bench"
SCALE = REPO / "python" / "afsim" / "scenarios" / "scale" / "tcp-dumbbell.toml"

#: name -> (flows, bottleneck Mb/s, start step in s); the afsim file is bench/<name>.toml.
CASES = {"tcp-dumbbell-10": (10, 10, 0.1), "tcp-dumbbell-100": (100, 100, 0.01)}


def build_htsim(sim: Path) -> Path:
    """Builds libhtsim.a (htsim's own Makefile) and dumbbell.cpp against it, as run.sh does."""
    if not (sim / "libhtsim.a").exists():
        subprocess.run(["make", "-C", str(sim), "libhtsim.a"], check=True)
    exe = HERE / "dumbbell"
    subprocess.run(["g++", "-O3", "-std=c++11", f"-I{sim}", str(HERE / "dumbbell.cpp"),
                    str(sim / "libhtsim.a"), "-o", str(exe)], check=True)
    return exe


def timed(cmd: list[str]) -> tuple[float, float]:
    """Wall seconds and peak RSS (MiB, from `/usr/bin/time`: a child forked by this Python
    would carry the interpreter's own peak) of one whole process; its output is discarded."""
    env = {**os.environ, "PYTHONPATH": str(REPO / "python")}
    with tempfile.NamedTemporaryFile("r") as rss, tempfile.TemporaryFile() as err:
        t0 = time.perf_counter()
        proc = subprocess.run(["/usr/bin/time", "-f", "%M", "-o", rss.name, *cmd],
                              stdout=subprocess.DEVNULL, stderr=err, cwd=REPO, env=env,
                              check=False)
        wall = time.perf_counter() - t0
        if proc.returncode != 0:
            err.seek(0)
            raise SystemExit(f"{' '.join(cmd)}: exit {proc.returncode}\n"
                             f"{err.read().decode(errors='replace').strip()}")
        return wall, int(rss.read().split()[-1]) / 1024.0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--htsim", type=Path, required=True, help="csg-htsim's sim directory")
    ap.add_argument("--run-file", type=Path, required=True, help="afsim's Rust runner (new build)")
    ap.add_argument("--old-run-file", type=Path, help="an older build's runner, measured beside")
    ap.add_argument("--old-label", default="old build",
                    help="its name in the table (e.g. 'profile-guided build' for another build "
                         "of the same code)")
    ap.add_argument("--python", help="a Python with afsim importable: the front, measured beside")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--duration", type=float, default=600.0, help="simulated seconds")
    ap.add_argument("--scale-flows", default="", metavar="N,N,...",
                    help="issue 28's scale dumbbell at these flow counts, beside")
    ap.add_argument("--scale-only", action="store_true", help="only the --scale-flows cases")
    args = ap.parse_args(argv)
    try:
        scale = [int(n) for n in args.scale_flows.split(",") if n.strip()]
    except ValueError:
        ap.error(f"--scale-flows: {args.scale_flows!r} is not a list of flow counts (e.g. 2000)")
    if any(n < 1 for n in scale) or (args.scale_only and not scale):
        ap.error("--scale-flows: flow counts are positive; --scale-only needs at least one")
    for p in (args.run_file, args.old_run_file):
        if p is not None and not p.is_file():
            ap.error(f"--run-file/--old-run-file: {p}: no such file")
    if args.reps < 1 or args.duration <= 0:
        ap.error("--reps must be at least 1 and --duration positive")
    htsim = build_htsim(args.htsim)

    print(f"medians of {args.reps} repetitions in turn, {args.duration:g} s simulated "
          f"(issue 25's cases), load average at start {os.getloadavg()[0]:.2f}\n")
    print("| case | command | wall (s) | peak RSS (MiB) | htsim ÷ this |")
    print("|---|---|---:|---:|---:|")
    cases = [] if args.scale_only else [
        (name, str(BENCH / f"{name}.toml"), [f"duration={args.duration:g}s"],
         [str(flows), str(mbps), f"{args.duration:g}", f"{step:g}"])
        for name, (flows, mbps, step) in CASES.items()]
    cases += [(f"scale dumbbell, {n} flows", str(SCALE),
               [f"flows={n}", f"start_step={10**9 // n}ns"], [str(n)]) for n in scale]
    for name, scenario, sets, htsim_args in cases:
        cmds = {"htsim": [str(htsim), *htsim_args],
                "afsim run_file": [str(args.run_file), scenario, *sets]}
        if args.old_run_file:
            cmds[f"afsim run_file ({args.old_label})"] = [str(args.old_run_file), scenario, *sets]
        if args.python:
            cmds["afsim (Python front)"] = [
                args.python, "-m", "afsim", "run", scenario,
                *(a for kv in sets for a in ("--set", kv)), "--format", "json"]
        walls: dict[str, list[float]] = {k: [] for k in cmds}
        rss: dict[str, float] = {}
        for _ in range(args.reps):
            for k, cmd in cmds.items():
                w, r = timed(cmd)
                walls[k].append(w)
                rss[k] = r
        ref = statistics.median(walls["htsim"])
        for k in cmds:
            m = statistics.median(walls[k])
            print(f"| {name} | {k} | {m:.3f} | {rss[k]:.1f} | {ref / m:.2f} |")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
