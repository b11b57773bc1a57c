"""``afsim bench --sweep``: what a sweep costs beyond its runs, and how it scales over cores.

Read this first. Two measurements, each on the built-in ``bench/udp-reference`` scenario (50
CBR sources, two routers) into a fresh temporary store, seeds 1, 2, …:

- **overhead**: ``OVERHEAD_RUNS`` runs of about one wall second each (``duration=400s``, as
  ``udp-reference-4x``) through ``execute`` with one worker (in this process): the sweep's wall
  time against the sum of the runs' own engine time (``RunRecord.wall_s``). The difference is
  what the sweep adds per run: loading and hashing each task, building its record, writing its
  Parquet files (fsynced) and catalog row. Reported as a fraction of the engine time. What a
  sweep pays once — importing pyarrow and pandas, creating the store, about a second — is
  measured apart first (``startup_s``: a one-run sweep's wall time less its engine time) and
  is not in that fraction.
- **scaling**: ``SCALING_RUNS`` runs (``duration=100s``, about a quarter of a second each) with
  one worker, then with ``os.cpu_count()`` worker processes: runs per wall second each way,
  and their ratio. The multi-process figure includes starting the workers.

The machine's load average (``os.getloadavg``) is recorded before and after: other programs
on the same cores change both figures.
"""

from __future__ import annotations

import os
import tempfile
import time
from typing import Any

import afsim
from afsim.sweep import Task, execute

OVERHEAD_RUNS = 20
SCALING_RUNS = 200


def _tasks(n: int, duration: str) -> list[Task]:
    path = str(afsim.builtin_scenario("bench/udp-reference"))
    return [Task(path, (("duration", duration),), seed) for seed in range(1, n + 1)]


def _timed(tasks: list[Task], workers: int) -> tuple[float, float]:
    """(sweep wall seconds, Σ engine seconds) of the tasks into a fresh store."""
    with tempfile.TemporaryDirectory(prefix="afsim-sweep-bench-") as d:
        start = time.perf_counter()
        out = execute(tasks, store=os.path.join(d, "store"), workers=workers)
        wall = time.perf_counter() - start
    if out.failures:
        raise RuntimeError(f"a bench run failed: {next(iter(out.failures.values()))}")
    return wall, sum(r.wall_s for r in out.records if r is not None)


def run(overhead_runs: int = OVERHEAD_RUNS, scaling_runs: int = SCALING_RUNS) -> dict[str, Any]:
    load_before = os.getloadavg()
    first_wall, first_engine = _timed(_tasks(1, "10s"), workers=1)
    wall, engine = _timed(_tasks(overhead_runs, "400s"), workers=1)
    cores = os.cpu_count() or 1
    tasks = _tasks(scaling_runs, "100s")
    one, _ = _timed(tasks, workers=1)
    many, _ = _timed(tasks, workers=cores)
    return {
        "startup_s": first_wall - first_engine,
        "overhead": {"runs": overhead_runs, "sweep_wall_s": wall, "engine_s": engine,
                     "mean_run_s": engine / overhead_runs,
                     "overhead_fraction": (wall - engine) / engine},
        "scaling": {"runs": scaling_runs, "workers": cores,
                    "one_worker_wall_s": one, "one_worker_runs_per_s": scaling_runs / one,
                    "all_workers_wall_s": many, "all_workers_runs_per_s": scaling_runs / many,
                    "speedup": one / many},
        "load_average_before": load_before, "load_average_after": os.getloadavg(),
    }


def print_table(r: dict[str, Any], console: Any) -> None:
    o, s = r["overhead"], r["scaling"]
    console.print(f"sweep start-up (once per sweep: imports, store): {r['startup_s']:.2f} s")
    console.print(f"sweep overhead: {o['runs']} runs of {o['mean_run_s']:.2f} s: sweep "
                  f"{o['sweep_wall_s']:.2f} s wall for {o['engine_s']:.2f} s of runs: "
                  f"{100 * o['overhead_fraction']:.1f}% overhead")
    console.print(f"sweep scaling: {s['runs']} runs: {s['one_worker_runs_per_s']:.2f} runs/s on "
                  f"1 worker, {s['all_workers_runs_per_s']:.2f} runs/s on {s['workers']}: "
                  f"{s['speedup']:.2f}x")
    lb, la = r["load_average_before"], r["load_average_after"]
    console.print(f"[dim]load average before {lb[0]:.2f} {lb[1]:.2f} {lb[2]:.2f}, after "
                  f"{la[0]:.2f} {la[1]:.2f} {la[2]:.2f}[/dim]")
