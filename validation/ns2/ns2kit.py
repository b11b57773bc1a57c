"""What the ns-2 cross-checks share: running a simulator process, summarising replications,
comparing afsim's mean with ns-2's, and writing the comparison as a Markdown table.

Read this first. Every script here (run.py, diffserv.py, diffserv_ecn.py, tfrc.py, grid.py,
exact.py, ...) runs ns-2 2.35 and afsim on the same network with the same seeds, reduces each
run to metrics, and sets the two side by side. The pieces they have in common are here, once:

- ``run_process(cmd, cwd=..., env=...)``: one simulator run (ns-2's ``ns``, or afsim through
  ``python -m afsim`` or a worker), its stdout and wall time, RuntimeError naming the command
  and its stderr when it fails;
- ``run_all(fn, items, jobs)``: the runs on a thread pool (each is its own process), results in
  the items' order;
- ``stat(values)`` and ``summarise(rows, keys)``: mean, sample sd, n, min and max over seeds;
- ``compare(ns, af)``: afsim's mean against ns-2's, as (relative difference, Welch z), and
  ``pct_text``/``z_text``/``fmt`` to print them;
- ``table(ns_summary, af_summary, rows)``: the Markdown table every report prints
  (| metric | ns-2.35 | afsim | afsim − ns-2 | z |);
- ``jain``: Jain's index, afsim's own (``afsim.stats.jain``, as afsim-core computes it);
- ``git_head()``: the commit a report was made at.

The scripts are run as files (``python3 validation/ns2/grid.py``), so this folder is on
``sys.path`` and they import this module by name.
"""

from __future__ import annotations

import math
import statistics
import subprocess
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

try:
    from afsim.stats import jain
except ImportError:  # afsim not installed: the ns-2 side alone still runs
    def jain(xs: Sequence[float]) -> float:  # type: ignore[misc]
        sq = sum(x * x for x in xs)
        return sum(xs) ** 2 / (len(xs) * sq) if len(xs) and sq > 0 else math.nan

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]

T = TypeVar("T")
R = TypeVar("R")

__all__ = ["HERE", "REPO", "compare", "fmt", "git_head", "jain", "pct_text", "run_all",
           "run_process", "stat", "summarise", "table", "z_text"]


def run_process(cmd: Sequence[str], *, cwd: Path = HERE, env: Mapping[str, str] | None = None,
                what: str | None = None) -> tuple[str, float]:
    """Runs ``cmd``; returns (stdout, wall seconds). RuntimeError ("WHAT: exit N" and stderr)
    when it exits non-zero; ``what`` names it (default: the command line)."""
    t0 = time.perf_counter()
    proc = subprocess.run(list(cmd), capture_output=True, text=True, check=False, cwd=cwd,
                          env=dict(env) if env is not None else None)
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        raise RuntimeError(f"{what or ' '.join(cmd)}: exit {proc.returncode}\n{proc.stderr.strip()}")
    return proc.stdout, wall


def run_all(fn: Callable[[T], R], items: Iterable[T], jobs: int) -> list[R]:
    """``fn`` over ``items`` on ``jobs`` threads (each run is a process of its own), in order."""
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        return list(pool.map(fn, items))


def stat(values: Iterable[float | None], *, extremes: bool = True) -> dict[str, float] | None:
    """Mean, sample sd (0 for one value) and n over the values that are not None, and with
    ``extremes`` their min and max; None when there is none."""
    vals = [v for v in values if v is not None]
    if not vals:
        return None
    out = {"mean": statistics.fmean(vals), "sd": statistics.stdev(vals) if len(vals) > 1 else 0.0,
           "n": len(vals)}
    if extremes:
        out |= {"min": min(vals), "max": max(vals)}
    return out


def summarise(rows: Sequence[Mapping[str, Any]], keys: Iterable[str]) -> dict[str, Any]:
    """``stat`` of each key over the rows (one row of metrics per seed)."""
    return {k: stat(row.get(k) for row in rows) for k in keys}


def compare(ns: Mapping[str, float] | None, af: Mapping[str, float] | None) -> tuple[float | None, float | None]:
    """(relative difference, Welch z) of afsim's mean against ns-2's; None where undefined
    (a side missing, ns-2's mean 0, both without spread)."""
    if not ns or not af:
        return None, None
    d = af["mean"] - ns["mean"]
    rel = None if ns["mean"] == 0 else d / ns["mean"]
    se = math.sqrt(ns["sd"] ** 2 / ns["n"] + af["sd"] ** 2 / af["n"])
    return rel, (None if se == 0 else d / se)


def pct_text(rel: float | None) -> str:
    return "-" if rel is None else f"{100 * rel:+.1f}%"


def z_text(z: float | None) -> str:
    return "-" if z is None else f"{z:+.1f}"


def fmt(s: Mapping[str, float] | None, f: str) -> str:
    """"mean ± sd" in the format ``f`` ("{:.1f}"), "n/a" for nothing."""
    return "n/a" if not s else f"{f.format(s['mean'])} ± {f.format(s['sd'])}"


def table(ns: Mapping[str, Any], af: Mapping[str, Any], rows: Iterable[tuple[str, str, str]]) -> list[str]:
    """The comparison as Markdown lines: one row per (metric key, label, format)."""
    lines = ["| metric | ns-2.35 | afsim | afsim − ns-2 | z |", "|---|---:|---:|---:|---:|"]
    for key, label, f in rows:
        rel, z = compare(ns.get(key), af.get(key))
        lines.append(f"| {label} | {fmt(ns.get(key), f)} | {fmt(af.get(key), f)} | {pct_text(rel)} | {z_text(z)} |")
    return lines


def git_head() -> str | None:
    """The short commit hash of the checkout, or None outside git."""
    try:
        out = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                             cwd=REPO, check=True)
        return out.stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None
