#!/usr/bin/env python3
"""Side-by-side wall time of two afsim-core builds' `run_file` (no Python) on the bench
scenarios: A and B alternately (A B, then B A, ...) PAIRS times each, every scenario at its full
duration; prints per scenario the medians of the engine's wall time (run_file's "s wall") and of
the whole process's CPU time (user + system), and the load average after. For a build of another
commit: `git worktree add DIR COMMIT`, touch its sources (an old tree's mtimes fool cargo's
freshness check), `CARGO_TARGET_DIR=T cargo build --release -p afsim-core --example run_file`.

    python3 tools/run_file_ab.py OLD_RUN_FILE NEW_RUN_FILE [--pairs 5] [--scenarios udp-reference ...]

Or one scenario file with parameter overrides (e.g. the scale dumbbell at 2,000 flows):

    python3 tools/run_file_ab.py OLD NEW --file python/afsim/scenarios/scale/tcp-dumbbell.toml \
        --set flows=2000 start_step=500000ns
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import statistics
import subprocess
from pathlib import Path

BENCH = Path(__file__).resolve().parents[1] / "python" / "afsim" / "scenarios" / "bench"
SCENARIOS = ("udp-reference", "af-reference", "sima-testbed", "tcp-dumbbell-10", "tcp-dumbbell-100")


def one(binary: str, scenario: str, overrides: list[str]) -> tuple[float, float]:
    """(engine wall s, process CPU s) of one run (`scenario`: a bench name or a file's path)."""
    path = scenario if scenario.endswith(".toml") else str(BENCH / f"{scenario}.toml")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run([binary, path, *overrides], capture_output=True, text=True,
                         check=True).stdout
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return float(re.search(r"([\d.]+) s wall", out).group(1)), cpu


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--pairs", type=int, default=5)
    ap.add_argument("--scenarios", nargs="+", default=list(SCENARIOS))
    ap.add_argument("--file", help="one scenario file instead of the bench scenarios")
    ap.add_argument("--set", nargs="+", default=[], metavar="KEY=VALUE",
                    help="parameter overrides passed to run_file")
    args = ap.parse_args()
    if args.file:
        args.scenarios = [args.file]
    print("| scenario | engine wall s: old → new | new/old | process CPU s: old → new |")
    print("|---|---:|---:|---:|")
    for sc in args.scenarios:
        runs: dict[str, list[tuple[float, float]]] = {"old": [], "new": []}
        for k in range(args.pairs):
            for tag in ("old", "new") if k % 2 == 0 else ("new", "old"):
                runs[tag].append(one(getattr(args, tag), sc, args.set))
        wall = {t: statistics.median(w for w, _ in r) for t, r in runs.items()}
        cpu = {t: statistics.median(c for _, c in r) for t, r in runs.items()}
        print(f"| {sc} | {wall['old']:.3f} → {wall['new']:.3f} | {wall['new'] / wall['old']:.2f} | "
              f"{cpu['old']:.2f} → {cpu['new']:.2f} |", flush=True)
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
