"""The one runner: ns-2 through ``ns2``, afsim through the project's sweep machinery.

- ``ns2(tcl, args)`` runs ``ns TCL key=value ...`` (in this folder unless ``cwd``) and returns an
  ``Ns2Run``: its stdout and wall time, with the two readers of what the scripts print:
  ``report()`` (the validation scripts' dumbbell.tcl, af.tcl, diffserv.tcl: a JSON report
  followed by tagged lines awk appends as its pipes close — "MARKS n", "TIMEOUTS n0 n1 ...",
  "TRACE {...}") and ``twin()`` (the reproductions' twins and leung_gap.tcl:
  ``afsim.ns2.parse``). A failing run raises RuntimeError naming the command, with the end of
  its stderr.
- ``afsim_reports(tasks, workers=, store=)`` runs afsim points (``task(scenario, sets, seed)``,
  an ``afsim.sweep.Task``) with ``afsim.sweep.execute``: each scenario is loaded and checked
  first, the runs go to a local process pool, and with ``store`` (a results directory, as
  ``afsim sweep --store``) a point already run by this code is read back, not run again. Each
  task gives a ``dict`` (the report, ``RunResult.summary_json``, with ``wall_s`` beside it
  under ``_wall_s``) or the ``RunFailed`` that stopped it.
- ``run_jobs(jobs, ...)``: a script's whole list of runs, both simulators, as rows (see there).
- ``afsim_results(task)``: one point run in this process, its ``afsim.Results`` (for the
  traces, which a stored run does not keep).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from afsim.results import Results
    from afsim.sweep import Task

HERE = Path(__file__).resolve().parents[1]
REPO = HERE.parents[1]

T = TypeVar("T")
R = TypeVar("R")
J = TypeVar("J")

__all__ = ["HERE", "REPO", "Ns2Run", "afsim_reports", "afsim_results", "git_head", "ns2", "run_all",
           "run_jobs", "task"]

#: The tagged lines the validation scripts' awk pipes append to the JSON report.
TAGS = ("MARKS", "TIMEOUTS", "TRACE")


@dataclass(frozen=True)
class Ns2Run:
    """One ns-2 run: the command, its stdout and wall time (the whole process), seconds."""

    cmd: tuple[str, ...]
    stdout: str
    wall_s: float

    def report(self) -> tuple[dict[str, Any], dict[str, str]]:
        """The JSON report and the tagged lines after it ({"MARKS": "12", "TIMEOUTS": "0 1",
        "TRACE": "{...}"}: the text after the tag)."""
        out = self.stdout
        extra: dict[str, str] = {}
        for tag in TAGS:
            m = re.search(rf"^{tag} (.*)$", out, re.M)
            if m:
                extra[tag] = m.group(1).strip()
                out = out[: m.start()] + out[m.end():]
        return json.loads(out), extra

    def twin(self) -> dict[str, Any]:
        """A twin's output as ``afsim.ns2.parse`` reads it (the ``NS2`` object and the tagged
        number lists)."""
        from afsim.ns2 import parse

        return parse(self.stdout, " ".join(self.cmd))


def ns2(tcl: str | Path, args: Iterable[str], *, cwd: Path = HERE, nice: int = 0) -> Ns2Run:
    """Runs ns-2 on ``tcl`` with ``key=value`` arguments; RuntimeError when it fails."""
    cmd = [*(["nice", "-n", str(nice)] if nice else []), "ns", str(tcl), *args]
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False, cwd=cwd)
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)}: exit {proc.returncode}: {proc.stderr.strip()[-400:]}")
    return Ns2Run(tuple(cmd), proc.stdout, wall)


def task(scenario: str | Path, sets: Mapping[str, str], seed: int) -> Task:
    """An afsim point: a scenario file, its ``--set`` overrides and a seed."""
    from afsim.sweep import Task

    return Task(str(scenario), tuple((k, str(v)) for k, v in sets.items()), seed)


def afsim_reports(tasks: Sequence[Task], *, workers: int = 1,
                  store: str | Path | None = None) -> list[dict[str, Any] | Exception]:
    """Each task's report (``summary_json`` as a dict, its engine wall time under
    ``_wall_s``), or the exception that stopped it, in task order (see the module header).
    Bad input (a scenario or override afsim rejects) raises ``afsim.sweep.SweepError`` before
    anything runs."""
    from afsim.sweep import execute

    if not tasks:
        return []
    out = execute(tasks, store=store, workers=max(1, workers), tables=False)
    reports: list[dict[str, Any] | Exception] = []
    for i, rec in enumerate(out.records):
        if rec is None:
            reports.append(out.failures[i])
        else:
            rep = json.loads(rec.summary_json)
            rep["_wall_s"] = rec.wall_s
            reports.append(rep)
    return reports


def run_jobs(jobs: Sequence[J], *, sim: Callable[[J], str], head: Callable[[J], dict[str, Any]],
             ns2_metrics: Callable[[J], dict[str, Any]],
             afsim_tasks: Callable[[J], Sequence[Task]],
             afsim_metrics: Callable[[J, list[dict[str, Any]]], dict[str, Any]],
             n_jobs: int = 1, store: str | Path | None = None, timed: bool = False,
             progress_every: int = 0) -> list[dict[str, Any]]:
    """Every job's row, in the jobs' order: ``head(job)`` (which cell, seed, simulator) with
    ``ok`` and ``metrics``, or ``ok`` false and ``error``; with ``timed``, ``wall_s`` too (ns-2:
    the process; afsim: the engine, of the job's first run). ``sim(job)`` says which simulator
    runs it. The ns-2 jobs run first, ``ns2_metrics(job)`` on ``n_jobs`` threads (progress on
    stderr every ``progress_every`` runs); then every afsim job's runs (``afsim_tasks(job)``: one
    or more points, e.g. a run and its first seconds) go to the sweep machinery in one batch
    (``afsim_reports`` on ``n_jobs`` processes, ``store``), and ``afsim_metrics(job, reports)``
    reduces them. A job whose run or metrics raise is a failed row; bad input to afsim (a
    scenario it rejects) fails every afsim row with that message."""
    t0 = time.perf_counter()
    done = [0]

    def failed(row: dict[str, Any], e: BaseException) -> dict[str, Any]:
        return row | {"ok": False, "error": str(e)}

    def ns2_one(j: J) -> dict[str, Any]:
        row = head(j)
        t = time.perf_counter()
        try:
            row |= {"metrics": ns2_metrics(j), "ok": True}
        except Exception as e:
            row = failed(row, e)
        if timed:
            row["wall_s"] = time.perf_counter() - t
        done[0] += 1
        if progress_every and done[0] % progress_every == 0:
            print(f"{done[0]}/{len(jobs)} runs, {time.perf_counter() - t0:.0f} s", file=sys.stderr)
        return row

    rows: dict[int, dict[str, Any]] = {}
    ns_idx = [i for i, j in enumerate(jobs) if sim(j) == "ns-2"]
    rows.update(zip(ns_idx, run_all(ns2_one, [jobs[i] for i in ns_idx], n_jobs)))
    af_idx = [i for i, j in enumerate(jobs) if sim(j) != "ns-2"]
    per_job = [list(afsim_tasks(jobs[i])) for i in af_idx]
    flat = [t for ts in per_job for t in ts]
    try:
        reports: list[Any] = afsim_reports(flat, workers=n_jobs, store=store)
    except Exception as e:
        reports = [e] * len(flat)
    at = 0
    for i, ts in zip(af_idx, per_job):
        mine, at = reports[at:at + len(ts)], at + len(ts)
        row = head(jobs[i])
        try:
            bad = next((r for r in mine if isinstance(r, Exception)), None)
            if bad is not None:
                raise bad
            row |= {"metrics": afsim_metrics(jobs[i], mine), "ok": True}
        except Exception as e:
            row = failed(row, e)
        if timed:
            row["wall_s"] = mine[0]["_wall_s"] if mine and isinstance(mine[0], dict) else 0.0
        rows[i] = row
    return [rows[i] for i in range(len(jobs))]


def afsim_results(t: Task) -> Results:
    """One afsim point run in this process, with everything ``afsim.Results`` holds (traces
    included); ConservationError or ScenarioError as ``afsim.run`` raises them."""
    import afsim

    scenario = t.load()
    return afsim.run(scenario, seed=t.seed)


def run_all(fn: Callable[[T], R], items: Iterable[T], jobs: int) -> list[R]:
    """``fn`` over ``items`` on ``jobs`` threads (each run is a process of its own), in order."""
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        return list(pool.map(fn, items))


def git_head() -> str | None:
    """The short commit hash of the checkout, or None outside git."""
    try:
        out = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                             cwd=REPO, check=True)
        return out.stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None
