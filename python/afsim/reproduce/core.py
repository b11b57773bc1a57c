"""The paper-reproduction machinery, the same for every paper.

Read this first. A paper's reproduction (``Paper``) is a list of ``Experiment``s — a scenario
file × a grid of ``Point``s (each a set of ``--set`` overrides) — run ``Mode.replications``
times each with seeds ``base_seed, base_seed + 1, …`` and a packet budget (``max_packets``),
plus the paper's published values (a JSON data file, each value with its table, row and
column) and its checkable ``Claim``s. ``reproduce`` runs every (point, seed) once — identical
runs shared between experiments run once — in parallel over local processes, reduces each run
to a few numbers with the experiment's ``metrics`` function, and aggregates them over the
replications as a mean and a 95 % Student-t confidence interval. It then sets each published
value beside afsim's (difference, within the declared tolerance or not) and evaluates each claim
to holds / does not hold with the numbers it used. ``write_outputs`` renders a Markdown report,
JSON, a CSV of every run and the paper's figures (matplotlib, PNG and SVG).

What this module does not do: choose parameters. Every value a scenario uses is in its file;
the paper's published values are only ever compared with, never fed to a run; tolerances are
declared in the data file, before any run.
"""

from __future__ import annotations

import concurrent.futures as cf
import csv
import dataclasses
import json
import math
import multiprocessing
import os
import queue as queue_mod
import sys
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.console import Console

    from afsim.results import Results

#: Label values a point may carry (they appear in tables and JSON as they are).
Label = str | int | float | bool

#: ``metrics(results) -> {name: value}``: a module-level function (the worker processes import
#: it by name), reducing one run to numbers. NaN means "not defined for this run".
MetricsFn = Callable[["Results"], dict[str, float]]


# ---------------------------------------------------------------------------------------------
# Statistics: afsim.stats (the one implementation, shared with sweeps and reports)

from afsim.stats import Stat, t_quantile  # noqa: E402  (re-exported: afsim.reproduce.Stat)
from afsim.stats import json_number as _num  # noqa: E402


# ---------------------------------------------------------------------------------------------
# What a reproduction is made of


@dataclass(frozen=True)
class Point:
    """One grid point: its labels (how the paper names it: ``{"alpha": "0.4", "n_af": 10}``)
    and the scenario parameters it sets."""

    labels: Mapping[str, Label]
    overrides: Mapping[str, str]

    def matches(self, wanted: Mapping[str, Label]) -> bool:
        """Whether every label in ``wanted`` has that value here."""
        return all(k in self.labels and self.labels[k] == v for k, v in wanted.items())

    def label_text(self) -> str:
        return ", ".join(f"{k} = {v}" for k, v in self.labels.items())


@dataclass(frozen=True)
class Experiment:
    """A scenario file run at every point of a grid."""

    id: str
    title: str
    scenario: Path
    points: tuple[Point, ...]
    metrics: MetricsFn
    #: What afsim measures differently from the paper here, said in the report.
    notes: tuple[str, ...] = ()
    #: ``(experiment id, label)``: this experiment is another reading of that one (same
    #: points, an assumption changed), so that one's published values are compared with this
    #: one's results too, in tables titled "<table> — <label>".
    variant_of: tuple[str, str] | None = None

    def subset(self, n_points: int) -> Experiment:
        """The same experiment on its first ``n_points`` points (tests, smoke runs)."""
        return dataclasses.replace(self, points=self.points[:n_points])


@dataclass(frozen=True)
class Mode:
    """How much to simulate: the packet budget of every run, replications, first seed."""

    name: str
    max_packets: int
    replications: int
    base_seed: int = 1
    #: The paper's own packet budget, for the banner that says how far this mode is from it.
    paper_packets: int | None = None

    @property
    def seeds(self) -> list[int]:
        return [self.base_seed + r for r in range(self.replications)]

    @property
    def is_paper_budget(self) -> bool:
        return self.paper_packets is None or self.max_packets >= self.paper_packets

    def banner(self) -> str:
        """One line saying what this mode runs, and for a reduced mode that it is reduced."""
        text = (f"{self.name} mode: {self.max_packets:,} packets per run, "
                f"{self.replications} replication{'s' if self.replications != 1 else ''} "
                f"(seeds {self.seeds[0]}–{self.seeds[-1]})")
        if not self.is_paper_budget:
            text = (f"{self.name.upper()} MODE — {self.max_packets:,} packets per run instead of "
                    f"the paper's {self.paper_packets:,}, {self.replications} replication"
                    f"{'s' if self.replications != 1 else ''}: indicative only, not the "
                    "paper's statistics")
        return text


@dataclass(frozen=True)
class ClaimResult:
    """``holds`` is None when the claim could not be evaluated (its experiments did not run)."""

    holds: bool | None
    measured: dict[str, Any]
    detail: str = ""


@dataclass(frozen=True)
class Claim:
    """A checkable sentence of the paper, evaluated on the aggregated measurements."""

    id: str
    statement: str
    #: How it is checked, in words (thresholds included), for the report.
    test: str
    evaluate: Callable[[Aggregates], ClaimResult]


@dataclass(frozen=True)
class Figure:
    """A figure of the paper: ``metric`` of ``experiment`` against the point label ``x``, one
    line per value of the label ``series``, with the paper's values of the same metric."""

    id: str
    title: str
    experiment: str
    metric: str
    x: str
    series: str
    xlabel: str
    ylabel: str
    #: Horizontal reference line (the contracted rate), if any.
    reference: tuple[float, str] | None = None
    #: How the legend names the series label (default: the label's key).
    series_name: str | None = None


@dataclass(frozen=True)
class Paper:
    id: str
    title: str
    citation: str
    experiments: tuple[Experiment, ...]
    claims: tuple[Claim, ...]
    figures: tuple[Figure, ...]
    #: The published values (JSON, see ``load_paper_values``).
    data: Path


@dataclass(frozen=True)
class PaperValue:
    """One published number: where it is in the paper (table, row, column), and what it
    corresponds to in afsim (experiment, point labels, metric), with its tolerance kind."""

    table: str
    row: str
    column: str
    value: float
    experiment: str
    point: Mapping[str, Label]
    metric: str
    kind: str


def load_paper_values(path: Path) -> tuple[list[PaperValue], dict[str, dict[str, float]]]:
    """The values and tolerances of a paper's data file::

        {"tolerances": {"throughput": {"relative": 0.05}, ...},
         "values": [{"table": "Table 2", "row": "...", "column": "...", "value": 1381,
                     "experiment": "table2", "point": {...}, "metric": "throughput_kbps",
                     "kind": "throughput"}, ...]}
    """
    doc = json.loads(path.read_text(encoding="utf-8"))
    tolerances = doc["tolerances"]
    values = []
    for v in doc["values"]:
        if v["kind"] not in tolerances:
            raise ValueError(f"{path}: value {v} has kind {v['kind']!r} without a tolerance")
        values.append(PaperValue(v["table"], v["row"], v["column"], float(v["value"]),
                                 v["experiment"], v["point"], v["metric"], v["kind"]))
    return values, tolerances


def within_tolerance(kind: str, tol: Mapping[str, float], paper: float, afsim: float) -> bool:
    """Whether afsim's mean is within the declared tolerance of the paper's value.

    Tolerance fields: ``relative`` (|a − p| ≤ relative·|p|), ``absolute`` (|a − p| ≤ absolute),
    ``factor`` with ``floor`` (both at most ``floor``, or a/p and p/a at most ``factor``: for
    loss probabilities spanning decades). A kind may combine them: any that holds suffices.
    """
    if not math.isfinite(afsim):
        return False
    ok = False
    if "relative" in tol:
        ok |= abs(afsim - paper) <= tol["relative"] * abs(paper)
    if "absolute" in tol:
        ok |= abs(afsim - paper) <= tol["absolute"]
    if "factor" in tol:
        floor = tol.get("floor", 0.0)
        if paper <= floor and afsim <= floor:
            ok = True
        elif paper > 0 and afsim > 0:
            ok |= max(afsim / paper, paper / afsim) <= tol["factor"]
    return ok


# ---------------------------------------------------------------------------------------------
# Running


@dataclass(frozen=True)
class Task:
    """One simulation: a scenario file, its overrides (budget included), a seed."""

    scenario: str
    overrides: tuple[tuple[str, str], ...]
    seed: int
    metrics: MetricsFn


@dataclass(frozen=True)
class Outcome:
    """What one run left: its metrics and the engine's numbers."""

    metrics: dict[str, float]
    end_time_s: float
    stop_reason: str
    wall_s: float
    events: int
    packet_hops: int
    packets_generated: int


#: Worker-side queue of (task index, fraction done) progress messages.
_progress_queue: Any = None
#: Seconds between two progress messages of one worker.
_PROGRESS_EVERY_S = 0.5


def _init_worker(q: Any) -> None:
    global _progress_queue
    _progress_queue = q


class RunFailed(Exception):
    """A run that could not complete: ``kind`` is "scenario" (the file or an override is
    wrong), "conservation" (the run broke packet conservation) or "error". Plain strings only,
    so that it crosses from a worker process intact."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(kind, message)
        self.kind = kind
        self.message = message

    def __str__(self) -> str:
        return self.message


def run_task(index: int, task: Task) -> Outcome:
    """Runs one task in this process (a pool worker's job)."""
    from afsim._core import ConservationError, ScenarioError

    where = (f"{task.scenario} seed {task.seed} "
             + " ".join(f"--set {k}={v}" for k, v in task.overrides))
    try:
        return _run_task(index, task)
    except ScenarioError as e:
        raise RunFailed("scenario", f"{e.file}:{e.line}:{e.column}: {e.field}: {e.message} "
                                    f"({where})") from None
    except ConservationError as e:
        raise RunFailed("conservation", f"{e} \u2717 ({where})") from None


def _run_task(index: int, task: Task) -> Outcome:
    import afsim

    scenario = afsim.load_scenario(task.scenario, overrides=dict(task.overrides))
    last = [0.0]

    def progress(_sim_s: float, fraction: float | None, _events: int) -> None:
        now = time.monotonic()
        if _progress_queue is not None and fraction is not None and now - last[0] >= _PROGRESS_EVERY_S:
            last[0] = now
            try:
                _progress_queue.put_nowait((index, fraction))
            except Exception:  # a full or closed queue only costs the bar an update
                pass

    results = afsim.run(scenario, seed=task.seed, progress=progress)
    return Outcome(
        metrics={k: float(v) for k, v in task.metrics(results).items()},
        end_time_s=results.end_time_s,
        stop_reason=str(results.summary["stop_reason"]),
        wall_s=results.wall_seconds,
        events=results.events,
        packet_hops=results.packet_hops,
        packets_generated=int(results.summary["engine"]["packets_generated"]),
    )


def run_tasks(tasks: Sequence[Task], jobs: int, *, label: str = "simulating",
              show_progress: bool = False) -> list[Outcome]:
    """Runs every task, ``jobs`` at a time in worker processes (in this process when ``jobs``
    is 1), with a rich progress bar on stderr when ``show_progress``. Returns the outcomes in
    task order. A failing run (conservation broken, bad scenario) stops everything and raises;
    so does Ctrl-C, after the workers are stopped."""
    outcomes: list[Outcome | None] = [None] * len(tasks)
    bar = _Bar(len(tasks), label) if show_progress else None
    try:
        if jobs <= 1:
            for i, t in enumerate(tasks):
                outcomes[i] = run_task(i, t)
                if bar:
                    bar.done(i)
        else:
            _run_pool(tasks, jobs, outcomes, bar)
    finally:
        if bar:
            bar.close()
    return [o for o in outcomes if o is not None]


def _run_pool(tasks: Sequence[Task], jobs: int, outcomes: list[Outcome | None],
              bar: _Bar | None) -> None:
    # spawn: workers start clean (no inherited threads or rich state), on every platform alike
    ctx = multiprocessing.get_context("spawn")
    q = ctx.Queue(maxsize=10_000)
    pool = cf.ProcessPoolExecutor(max_workers=jobs, mp_context=ctx, initializer=_init_worker,
                                  initargs=(q,))
    futures = {pool.submit(run_task, i, t): i for i, t in enumerate(tasks)}
    pending = set(futures)
    try:
        while pending:
            done, pending = cf.wait(pending, timeout=0.25, return_when=cf.FIRST_COMPLETED)
            for f in done:
                i = futures[f]
                outcomes[i] = f.result()  # re-raises a worker's exception here
                if bar:
                    bar.done(i)
            while True:
                try:
                    i, fraction = q.get_nowait()
                except queue_mod.Empty:
                    break
                if bar:
                    bar.partial(i, fraction)
            if bar:
                bar.refresh()
    except BaseException:
        pool.shutdown(wait=False, cancel_futures=True)
        for p in list(getattr(pool, "_processes", {}).values()):
            p.terminate()  # our own workers, by handle
        raise
    pool.shutdown(wait=True)
    q.close()


class _Bar:
    """One rich progress bar over all runs, advanced by finished runs and by the running ones'
    fractions."""

    def __init__(self, total: int, label: str) -> None:
        from rich.console import Console
        from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn,
                                   TimeElapsedColumn, TimeRemainingColumn)

        self.fractions: dict[int, float] = {}
        self.finished = 0
        self.progress = Progress(
            TextColumn(label), BarColumn(), TextColumn("{task.fields[runs]}"),
            TimeElapsedColumn(), TextColumn("eta"), TimeRemainingColumn(),
            console=Console(file=sys.stderr), transient=False,
        )
        self.task = self.progress.add_task("runs", total=float(total), runs=f"0/{total} runs")
        self.total = total
        self.progress.start()

    def partial(self, i: int, fraction: float) -> None:
        self.fractions[i] = min(max(fraction, 0.0), 1.0)

    def done(self, i: int) -> None:
        self.fractions.pop(i, None)
        self.finished += 1
        self.refresh()

    def refresh(self) -> None:
        completed = self.finished + sum(self.fractions.values())
        self.progress.update(self.task, completed=completed,
                             runs=f"{self.finished}/{self.total} runs")

    def close(self) -> None:
        self.progress.stop()


# ---------------------------------------------------------------------------------------------
# Aggregates, comparison, claims


@dataclass
class Aggregates:
    """Every metric of every point of every experiment that ran, over its replications."""

    #: experiment id → list of (point, {metric: Stat})
    by_experiment: dict[str, list[tuple[Point, dict[str, Stat]]]] = field(default_factory=dict)

    def stat(self, experiment: str, labels: Mapping[str, Label], metric: str) -> Stat | None:
        """The metric at the first point of ``experiment`` whose labels match ``labels``."""
        for point, stats in self.by_experiment.get(experiment, []):
            if point.matches(labels):
                return stats.get(metric)
        return None

    def mean(self, experiment: str, labels: Mapping[str, Label], metric: str) -> float | None:
        """The mean, or None when the point did not run or the metric is undefined there."""
        s = self.stat(experiment, labels, metric)
        return s.mean if s is not None and s.n > 0 else None

    def points(self, experiment: str) -> list[Point]:
        return [p for p, _ in self.by_experiment.get(experiment, [])]


@dataclass(frozen=True)
class Comparison:
    value: PaperValue
    afsim: Stat | None
    within: bool | None

    @property
    def difference(self) -> float:
        return self.afsim.mean - self.value.value if self.afsim and self.afsim.n else math.nan

    @property
    def relative(self) -> float:
        if not self.afsim or not self.afsim.n or self.value.value == 0:
            return math.nan
        return self.difference / abs(self.value.value)

    @property
    def paper_in_ci(self) -> bool | None:
        a = self.afsim
        if a is None or a.n < 2 or not math.isfinite(a.ci95):
            return None
        return abs(a.mean - self.value.value) <= a.ci95

    def as_dict(self) -> dict[str, Any]:
        v = self.value
        return {
            "table": v.table, "row": v.row, "column": v.column, "paper": v.value,
            "afsim": self.afsim.as_dict() if self.afsim else None,
            "difference": _num(self.difference), "relative_difference": _num(self.relative),
            "within_tolerance": self.within, "paper_within_ci95": self.paper_in_ci,
            "experiment": v.experiment, "point": dict(v.point), "metric": v.metric,
            "kind": v.kind,
        }


def variant_values(values: Sequence[PaperValue], experiments: Iterable[Experiment]) -> list[PaperValue]:
    """The published values again for each variant experiment (``Experiment.variant_of``),
    pointed at the variant's results and filed under "<table> — <label>"."""
    out = []
    for e in experiments:
        if e.variant_of is None:
            continue
        base, label = e.variant_of
        out += [dataclasses.replace(v, experiment=e.id, table=f"{v.table} — {label}")
                for v in values if v.experiment == base]
    return out


def compare(values: Sequence[PaperValue], tolerances: Mapping[str, Mapping[str, float]],
            agg: Aggregates) -> list[Comparison]:
    """Each published value beside afsim's (None where its experiment did not run)."""
    out = []
    for v in values:
        s = agg.stat(v.experiment, v.point, v.metric)
        within = (within_tolerance(v.kind, tolerances[v.kind], v.value, s.mean)
                  if s is not None and s.n > 0 else None)
        out.append(Comparison(v, s, within))
    return out


@dataclass
class Reproduction:
    """Everything a reproduction produced."""

    paper: Paper
    mode: Mode
    jobs: int
    experiments: list[Experiment]
    tasks: list[Task]
    outcomes: list[Outcome]
    #: (experiment id, point index, seed, task index) of every run an experiment used.
    runs: list[tuple[str, int, int, int]]
    aggregates: Aggregates
    comparisons: list[Comparison]
    tolerances: dict[str, dict[str, float]]
    claims: list[tuple[Claim, ClaimResult]]
    wall_seconds: float
    afsim_version: str


def reproduce(paper: Paper, mode: Mode, *, jobs: int | None = None,
              only: Sequence[str] | None = None, show_progress: bool = False) -> Reproduction:
    """Runs a paper's experiments (``only`` those ids, if given) in ``mode`` and compares them
    with the paper."""
    import afsim

    start = time.monotonic()
    experiments = list(paper.experiments)
    if only:
        unknown = sorted(set(only) - {e.id for e in experiments})
        if unknown:
            raise ValueError(f"unknown experiment(s) {', '.join(unknown)}; "
                             f"the experiments are {', '.join(e.id for e in experiments)}")
        experiments = [e for e in experiments if e.id in set(only)]
    jobs = max(1, jobs if jobs is not None else (os.cpu_count() or 1))

    # one task per distinct (scenario, overrides, seed): shared points run once
    tasks: list[Task] = []
    index: dict[tuple[str, tuple[tuple[str, str], ...], int], int] = {}
    runs: list[tuple[str, int, int, int]] = []
    for e in experiments:
        for pi, p in enumerate(e.points):
            ov = dict(p.overrides)
            ov["max_packets"] = str(mode.max_packets)
            key_ov = tuple(sorted(ov.items()))
            for seed in mode.seeds:
                key = (str(e.scenario), key_ov, seed)
                if key not in index:
                    index[key] = len(tasks)
                    tasks.append(Task(str(e.scenario), key_ov, seed, e.metrics))
                runs.append((e.id, pi, seed, index[key]))

    outcomes = run_tasks(tasks, jobs, label=f"{paper.id} ({mode.name})",
                         show_progress=show_progress)

    agg = Aggregates()
    for e in experiments:
        rows = []
        for pi, p in enumerate(e.points):
            per_run = [outcomes[t].metrics for (eid, i, _s, t) in runs if eid == e.id and i == pi]
            names = sorted({k for m in per_run for k in m})
            rows.append((p, {k: Stat.of(m.get(k, math.nan) for m in per_run) for k in names}))
        agg.by_experiment[e.id] = rows

    values, tolerances = load_paper_values(paper.data)
    comparisons = compare(values + variant_values(values, experiments), tolerances, agg)
    claims = [(c, c.evaluate(agg)) for c in paper.claims]
    return Reproduction(paper, mode, jobs, experiments, tasks, outcomes, runs, agg, comparisons,
                        {k: dict(v) for k, v in tolerances.items()}, claims,
                        time.monotonic() - start, afsim.__version__)


# ---------------------------------------------------------------------------------------------
# Outputs


def to_json(rep: Reproduction) -> dict[str, Any]:
    """The reproduction as JSON: mode, tables (paper and afsim values), claims, runs."""
    tables: dict[str, list[dict[str, Any]]] = {}
    for c in rep.comparisons:
        if c.value.experiment in rep.aggregates.by_experiment:
            tables.setdefault(c.value.table, []).append(c.as_dict())
    return {
        "paper": {"id": rep.paper.id, "title": rep.paper.title, "citation": rep.paper.citation},
        "mode": rep.mode.name,
        "mode_note": rep.mode.banner(),
        "paper_budget": rep.mode.is_paper_budget,
        "max_packets": rep.mode.max_packets,
        "paper_packets": rep.mode.paper_packets,
        "replications": rep.mode.replications,
        "seeds": rep.mode.seeds,
        "jobs": rep.jobs,
        "afsim_version": rep.afsim_version,
        "wall_seconds": rep.wall_seconds,
        "experiments": [
            {"id": e.id, "title": e.title, "scenario": str(e.scenario), "notes": list(e.notes),
             "points": [
                 {"labels": dict(p.labels), "overrides": dict(p.overrides),
                  "metrics": {k: s.as_dict() for k, s in stats.items()}}
                 for p, stats in rep.aggregates.by_experiment[e.id]]}
            for e in rep.experiments
        ],
        "tolerances": rep.tolerances,
        "tables": [{"id": t, "title": t, "rows": rows} for t, rows in tables.items()],
        "claims": [
            {"id": c.id, "statement": c.statement, "test": c.test, "holds": r.holds,
             "measured": _jsonable(r.measured), "detail": r.detail}
            for c, r in rep.claims
        ],
        "runs": [_run_row(rep, i) for i in range(len(rep.tasks))],
    }


def _jsonable(x: Any) -> Any:
    if isinstance(x, float):
        return _num(x)
    if isinstance(x, Mapping):
        return {str(k): _jsonable(v) for k, v in x.items()}
    if isinstance(x, list | tuple):
        return [_jsonable(v) for v in x]
    return x


def _run_row(rep: Reproduction, i: int) -> dict[str, Any]:
    t, o = rep.tasks[i], rep.outcomes[i]
    used_by = sorted({f"{eid}[{pi}]" for (eid, pi, _s, ti) in rep.runs if ti == i})
    return {
        "scenario": t.scenario, "overrides": dict(t.overrides), "seed": t.seed,
        "used_by": used_by, "end_time_s": o.end_time_s, "stop_reason": o.stop_reason,
        "wall_s": o.wall_s, "events": o.events, "packet_hops": o.packet_hops,
        "packets_generated": o.packets_generated,
        "metrics": {k: _num(v) for k, v in o.metrics.items()},
    }


def fmt_value(x: float | None, kind: str) -> str:
    """A number as the paper prints its kind: loss probabilities in e-notation, rates and
    percentages with two decimals."""
    if x is None or not math.isfinite(x):
        return "–"
    if kind == "loss":
        return "0" if x == 0 else f"{x:.2e}"
    return f"{x:,.2f}"


def fmt_stat(s: Stat | None, kind: str) -> str:
    if s is None or s.n == 0:
        return "not run"
    text = fmt_value(s.mean, kind)
    if math.isfinite(s.ci95):
        text += f" ± {fmt_value(s.ci95, kind)}"
    return text


def _fmt_diff(c: Comparison) -> tuple[str, str]:
    d, r = c.difference, c.relative
    diff = "–" if not math.isfinite(d) else (f"{d:+.2e}" if c.value.kind == "loss" else f"{d:+,.2f}")
    rel = "–" if not math.isfinite(r) else f"{100 * r:+.1f} %"
    return diff, rel


def _mark(b: bool | None) -> str:
    return "–" if b is None else ("yes" if b else "**no**")


def render_markdown(rep: Reproduction, figures: Mapping[str, Sequence[Path]] | None = None,
                    out_dir: Path | None = None) -> str:
    """The Markdown report."""
    m = rep.mode
    lines = [f"# Reproduction: {rep.paper.title}", "", f"{rep.paper.citation}", ""]
    if not m.is_paper_budget:
        lines += [f"> **{m.banner()}**", ""]
    lines += [
        f"- mode: **{m.name}** — {m.max_packets:,} packets per run"
        + (f" (the paper: {m.paper_packets:,})" if m.paper_packets else "")
        + f", {m.replications} replication(s) per point (seeds {', '.join(map(str, m.seeds))})",
        f"- runs: {len(rep.tasks)} simulations on {rep.jobs} worker process(es), "
        f"{rep.wall_seconds:,.1f} s wall time; afsim {rep.afsim_version}",
        f"- simulated: {sum(o.end_time_s for o in rep.outcomes):,.0f} s in total; "
        f"{sum(o.packets_generated for o in rep.outcomes):,} packets generated; "
        f"mean {_mean([o.wall_s for o in rep.outcomes]):.1f} s of engine time per run",
        "- afsim values are the mean over the replications ± the half-width of the 95 % "
        "Student-t confidence interval; *difference* is afsim − paper; the tolerances are "
        "declared in the paper's data file, fixed independently of afsim's results: "
        + "; ".join(f"{k}: {_tol_text(v)}" for k, v in rep.tolerances.items()),
        "",
        "## Claims", "",
        "| claim | statement | test | holds | measured |",
        "|---|---|---|---|---|",
    ]
    for c, r in rep.claims:
        holds = "not evaluated" if r.holds is None else ("**holds**" if r.holds else "**does not hold**")
        lines.append(f"| {c.id} | {_md(c.statement)} | {_md(c.test)} | {holds} | "
                     f"{_md(_measured_text(r))} |")
    lines.append("")

    ran = [c for c in rep.comparisons if c.value.experiment in rep.aggregates.by_experiment]
    variants = {e.id: e.variant_of for e in rep.experiments if e.variant_of}
    primary = [c for c in rep.comparisons if c.value.experiment not in variants]
    ran_primary = [c for c in ran if c.value.experiment not in variants]
    n_within = sum(1 for c in ran_primary if c.within)
    lines += ["## Tables", "",
              f"{n_within} of {len(ran_primary)} published values are within tolerance "
              f"({len(primary) - len(ran_primary)} not compared: their experiments did not run)."]
    for eid, (base, label) in variants.items():
        comps = [c for c in ran if c.value.experiment == eid]
        if comps:
            lines.append(f"With {label} (experiment `{eid}`, the points of `{base}` with one "
                         f"assumption changed): {sum(1 for c in comps if c.within)} of "
                         f"{len(comps)} of the same values within tolerance.")
    lines.append("")
    by_table: dict[str, list[Comparison]] = {}
    for c in ran:
        by_table.setdefault(c.value.table, []).append(c)
    notes_by_exp = {e.id: e.notes for e in rep.experiments}
    for table, comps in by_table.items():
        within = sum(1 for c in comps if c.within)
        lines += [f"### {table}" + (f" — {m.name.upper()} MODE" if not m.is_paper_budget else ""),
                  "", f"{within} of {len(comps)} within tolerance.", ""]
        for exp_id in dict.fromkeys(c.value.experiment for c in comps):
            for note in notes_by_exp.get(exp_id, ()):
                lines.append(f"- note: {_md(note)}")
        lines += ["", "| row | column | paper | afsim (mean ± 95 % CI) | difference | relative | "
                  "within tolerance |", "|---|---|---|---|---|---|---|"]
        for c in comps:
            diff, rel = _fmt_diff(c)
            lines.append(f"| {_md(c.value.row)} | {_md(c.value.column)} | "
                         f"{fmt_value(c.value.value, c.value.kind)} | {fmt_stat(c.afsim, c.value.kind)} | "
                         f"{diff} | {rel} | {_mark(c.within)} |")
        lines.append("")
    if figures:
        lines += ["## Figures", ""]
        for fid, paths in figures.items():
            png = [p for p in paths if p.suffix == ".png"]
            if png:
                rel_path = png[0].relative_to(out_dir) if out_dir else png[0]
                lines += [f"![{fid}]({rel_path.as_posix()})", ""]
    return "\n".join(lines) + "\n"


def _mean(xs: Sequence[float]) -> float:
    return math.fsum(xs) / len(xs) if xs else math.nan


def _tol_text(t: Mapping[str, float]) -> str:
    parts = []
    if "relative" in t:
        parts.append(f"±{100 * t['relative']:g} % relative")
    if "absolute" in t:
        parts.append(f"±{t['absolute']:g} absolute")
    if "factor" in t:
        parts.append(f"within a factor {t['factor']:g}, or both ≤ {t.get('floor', 0):g}")
    return " or ".join(parts)


def _md(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _measured_text(r: ClaimResult) -> str:
    parts = [f"{k}: {_short(v)}" for k, v in r.measured.items()]
    text = "; ".join(parts)
    return f"{r.detail} {text}".strip() if r.detail else text


def _short(v: Any) -> str:
    if isinstance(v, float):
        if not math.isfinite(v):
            return "–"
        return f"{v:.3g}" if abs(v) < 0.01 and v != 0 else f"{v:,.2f}"
    if isinstance(v, Mapping):
        return "{" + ", ".join(f"{k}: {_short(x)}" for k, x in v.items()) + "}"
    if isinstance(v, list | tuple):
        return "[" + ", ".join(_short(x) for x in v) + "]"
    return str(v)


def render_figures(rep: Reproduction, out_dir: Path) -> dict[str, list[Path]]:
    """Each figure of the paper whose experiment ran, as PNG and SVG in ``out_dir``: afsim's
    means with their 95 % intervals as lines, the paper's values as open markers."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    written: dict[str, list[Path]] = {}
    for fig_spec in rep.paper.figures:
        rows = rep.aggregates.by_experiment.get(fig_spec.experiment)
        if not rows:
            continue
        fig, ax = plt.subplots(figsize=(7.0, 4.6))
        series: dict[Label, list[tuple[float, Stat]]] = {}
        for p, stats in rows:
            if fig_spec.metric in stats:
                series.setdefault(p.labels[fig_spec.series], []).append(
                    (float(p.labels[fig_spec.x]), stats[fig_spec.metric]))
        colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
        sname = fig_spec.series_name or fig_spec.series
        xs_all: set[float] = set()
        for k, (name, pts) in enumerate(series.items()):
            pts.sort(key=lambda t: t[0])
            xs = [x for x, _ in pts]
            ys = [s.mean for _, s in pts]
            err = [s.ci95 if math.isfinite(s.ci95) else 0.0 for _, s in pts]
            colour = colours[k % len(colours)]
            xs_all.update(xs)
            ax.errorbar(xs, ys, yerr=err, marker="o", capsize=3, color=colour,
                        label=f"afsim, {sname} = {name}")
            paper_pts = sorted(
                (float(c.value.point[fig_spec.x]), c.value.value) for c in rep.comparisons
                if c.value.experiment == fig_spec.experiment and c.value.metric == fig_spec.metric
                and c.value.point.get(fig_spec.series) == name)
            if paper_pts:
                ax.plot([x for x, _ in paper_pts], [y for _, y in paper_pts], linestyle="--",
                        marker="s", markerfacecolor="none", color=colour, alpha=0.8,
                        label=f"paper, {sname} = {name}")
        if fig_spec.reference:
            y, text = fig_spec.reference
            ax.axhline(y, color="grey", linewidth=0.8, linestyle=":")
            ax.annotate(text, (ax.get_xlim()[0], y), textcoords="offset points", xytext=(4, 3),
                        fontsize=8, color="grey")
        title = fig_spec.title
        if not rep.mode.is_paper_budget:
            title += f"\n{rep.mode.name.upper()} MODE: {rep.mode.max_packets:,} packets per run"
        ax.set_title(title, fontsize=10)
        if xs_all:
            ax.set_xticks(sorted(xs_all))
        ax.set_xlabel(fig_spec.xlabel)
        ax.set_ylabel(fig_spec.ylabel)
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=7, ncol=2)
        fig.tight_layout()
        paths = []
        for ext in ("png", "svg"):
            path = out_dir / f"{fig_spec.id}.{ext}"
            fig.savefig(path, dpi=150 if ext == "png" else None)
            paths.append(path)
        plt.close(fig)
        written[fig_spec.id] = paths
    return written


def write_outputs(rep: Reproduction, out_dir: str | Path) -> list[Path]:
    """Writes report.md, results.json, runs.csv and the figures (PNG and SVG) into
    ``out_dir`` (created if needed). Returns the paths written."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    figures = render_figures(rep, out)
    written = [p for ps in figures.values() for p in ps]
    doc = to_json(rep)
    json_path = out / "results.json"
    json_path.write_text(json.dumps(doc, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    report = out / "report.md"
    report.write_text(render_markdown(rep, figures, out), encoding="utf-8")
    runs_csv = out / "runs.csv"
    metric_names = sorted({k for o in rep.outcomes for k in o.metrics})
    with runs_csv.open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["experiments", "scenario", "seed", "overrides", "end_time_s", "stop_reason",
                    "wall_s", "events", "packet_hops", "packets_generated", *metric_names])
        for row in doc["runs"]:
            w.writerow([" ".join(row["used_by"]), row["scenario"], row["seed"],
                        " ".join(f"{k}={v}" for k, v in row["overrides"].items()),
                        row["end_time_s"], row["stop_reason"], row["wall_s"], row["events"],
                        row["packet_hops"], row["packets_generated"],
                        *(row["metrics"].get(k) for k in metric_names)])
    return [report, json_path, runs_csv, *written]


def print_summary(rep: Reproduction, console: Console) -> None:
    """The claims and every compared table, as rich tables; each title carries the mode."""
    from rich.markup import escape
    from rich.table import Table

    m = rep.mode
    tag = "" if m.is_paper_budget else f" — {m.name.upper()} MODE"
    console.print(f"[bold]{escape(rep.paper.title)}[/bold]")
    console.print(escape(m.banner()), style="bold yellow" if not m.is_paper_budget else None)
    claims = Table(title=f"Claims{tag}", title_justify="left", show_lines=True)
    for h in ("claim", "statement", "holds", "measured"):
        claims.add_column(h)
    for c, r in rep.claims:
        holds = ("[dim]not evaluated[/dim]" if r.holds is None
                 else ("[green]holds[/green]" if r.holds else "[red]does not hold[/red]"))
        claims.add_row(escape(c.id), escape(c.statement), holds, escape(_measured_text(r)))
    console.print(claims)
    by_table: dict[str, list[Comparison]] = {}
    for c in rep.comparisons:
        if c.value.experiment in rep.aggregates.by_experiment:
            by_table.setdefault(c.value.table, []).append(c)
    for table, comps in by_table.items():
        within = sum(1 for c in comps if c.within)
        t = Table(title=f"{table}{tag}: {within} of {len(comps)} within tolerance",
                  title_justify="left")
        for h, just in (("row", "left"), ("column", "left"), ("paper", "right"),
                        ("afsim (mean ± 95% CI)", "right"), ("difference", "right"),
                        ("relative", "right"), ("within", "center")):
            t.add_column(h, justify=just)  # type: ignore[arg-type]
        for c in comps:
            diff, rel = _fmt_diff(c)
            within_txt = "–" if c.within is None else ("[green]yes[/green]" if c.within else "[red]no[/red]")
            t.add_row(escape(c.value.row), escape(c.value.column),
                      fmt_value(c.value.value, c.value.kind), fmt_stat(c.afsim, c.value.kind),
                      diff, rel, within_txt)
        console.print(t)
    console.print(f"[dim]{len(rep.tasks)} runs · {rep.wall_seconds:,.1f} s wall · "
                  f"{rep.jobs} worker(s)[/dim]")
