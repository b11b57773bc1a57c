"""The paper-reproduction machinery, the same for every paper: what a reproduction is made of,
running it, and aggregating its runs.

Read this first. A paper's reproduction (``Paper``) is

- its ``Experiment``s — a scenario file × a grid of ``Point``s (each a set of ``--set``
  overrides) — run ``Mode.replications`` times each (at most ``Experiment.replications``) with
  seeds ``base_seed, base_seed + 1, …`` and the paper's budget (``Mode.budget`` of the scenario
  parameter ``Mode.budget_param``: packets, or a duration); a point that sets the budget
  parameter itself keeps its value (a time series: the same run stopped at t);
- its published values (a JSON data file: each value with its table, row and column, and a
  tolerance kind whose size and *source in the paper* the file declares: ``scoring``);
- every checkable statement of its text (``claims.Statement``: verbatim quote, location,
  class, and for a claim the test that decides it);
- a null model (``Paper.null_model``): the simplest model that needs no simulation, scored
  beside afsim on the same values and claims (``scoring``);
- named variants (``Variant``): readings of something the paper leaves open that differ from
  the default, run on the experiments they name and reported beside the default, never in its
  place;
- its unstated parameters (``robustness.Unstated``): each with the default chosen from the
  text, its references or the simulator of its era, and a plausible range; the experiments
  marked ``robust`` run at every point of a small space-filling design over those ranges, and
  each claim is then said to hold across the range, only in part of it, or nowhere
  (``Paper.design_overrides`` adds what a design value implies, such as the access delay that
  keeps a stated RTT when an unstated shared delay moves);
- optionally, figures the metric-against-label ``Figure`` cannot draw (time series):
  ``Paper.extra_figures(rep, out_dir)`` writes them and ``report`` lists them with the others.

``reproduce`` expands all of that into runs and runs every distinct (scenario, overrides, seed)
once with ``afsim.sweep.execute`` (local processes), reducing each run to numbers with the
experiment's ``metrics`` function (the sweep's reducer). With a ``store`` folder every finished
run is kept (``afsim.store``), so a reproduction killed at any moment resumes without redoing a
run; a store belongs to one build of afsim and one version of the metrics code
(``store_dir``). The runs are aggregated over the replications with ``afsim.stats`` (mean and
95 % Student-t interval); ``scoring``, ``claims`` and ``robustness`` then judge; ``report``
writes.

What this module does not do: choose parameters. Every value a scenario uses is in its file;
the paper's published values are only ever compared with, never fed to a run; tolerances and
their sources are declared in the data file before any run.

Optional hooks serve papers whose runs need them and change nothing for the others:
``Experiment.replicate`` gives each replication overrides of its own (for a deterministic
testbed whose repetitions differed only in timing: a start phase per seed); ``Mode`` can count
its budget in other units and name the paper's repetitions as what a quick mode reduces;
``Variant.unchanged`` lets a variant's claims read the experiments it does not change from the
default runs; ``Paper.extra_figures`` draws figures that are not a metric against a label (time
series of one run, distributions), re-running the runs it needs with ``rerun``.
"""

from __future__ import annotations

import dataclasses
import math
import os
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from afsim.reproduce.claims import ClaimVerdict, ClaimVerdicts, Kind

# what a reproduction is made of (re-exported: ``core.Point`` and the rest, as before)
from afsim.reproduce.model import (
    EVENTS,
    MIN_EVENTS,
    TRIALS,
    Aggregates,
    Experiment,
    Figure,
    Label,
    MetricsFn,
    Mode,
    Point,
    ReplicateFn,
    Variant,
    View,
    prob,
    replications_of,
)
from afsim.reproduce.robustness import summarise
from afsim.reproduce.scoring import (
    Comparison,
    Score,
    TableVerdict,
    Verdicts,
    compare,
    load_paper_values,
)
from afsim.reproduce.twin import claim_case

# statistics: afsim.stats, the one implementation (sweeps and reports use it too); re-exported
from afsim.stats import Stat, t_quantile

# a run that could not complete (scenario error, conservation broken): the sweep's
from afsim.sweep.worker import RunFailed

if TYPE_CHECKING:
    from afsim.reproduce.claims import Statement
    from afsim.reproduce.robustness import Unstated
    from afsim.reproduce.twin import Column, Twin
    from afsim.results import Results

__all__ = [
    "EVENTS",
    "MIN_EVENTS",
    "TRIALS",
    "Aggregates",
    "Experiment",
    "Figure",
    "Label",
    "MetricsFn",
    "Mode",
    "Paper",
    "Point",
    "ReplicateFn",
    "Reproduction",
    "RunFailed",
    "Stat",
    "Variant",
    "View",
    "aggregate",
    "evaluate_all",
    "expand",
    "find_scenarios_dir",
    "judge",
    "null_aggregates",
    "prob",
    "replications_of",
    "reproduce",
    "rerun",
    "run_tasks",
    "store_dir",
    "t_quantile",
]

#: ``null_model(experiment, point) -> {metric: value}``: the simplest prediction of each metric
#: at a point without simulating (module-level, so that a reproduction can be pickled).
NullModel = Callable[[Experiment, Point], dict[str, float]]
#: See ``Paper.design_overrides``.
DesignOverrides = Callable[[Experiment, Point, Mapping[str, str]], Mapping[str, str]]

#: ``extra_figures(reproduction, out_dir) -> {figure id: [paths]}``: a paper's figures that are
#: not a metric against a label (a run's time series, a distribution), written as PNG and SVG
#: into ``out_dir``; they may re-run single runs with ``rerun``.
ExtraFigures = Callable[["Reproduction", Path], dict[str, list[Path]]]


@dataclass(frozen=True, kw_only=True)
class Paper:
    id: str
    title: str
    citation: str
    experiments: tuple[Experiment, ...]
    statements: tuple[Statement, ...]
    figures: tuple[Figure, ...]
    #: The published values and tolerances (JSON, see ``scoring.load_paper_values``).
    data: Path
    null_model: NullModel
    #: What the null model is, in one sentence, for the report.
    null_description: str
    variants: tuple[Variant, ...] = ()
    unstated: tuple[Unstated, ...] = ()
    #: Seed of the robustness design (the design is part of the method, fixed in advance).
    design_seed: int = 2026
    #: ``design_overrides(experiment, point, values) -> overrides``: what a design point's
    #: unstated values imply at one point beyond themselves (module-level; None: nothing).
    design_overrides: DesignOverrides | None = None
    #: Figures ``report.write_outputs`` draws besides ``figures`` (None: none).
    extra_figures: ExtraFigures | None = None
    #: The ns-2 twin of the paper's experiments (``twin``; None: no ns-2 column).
    ns2: Twin | None = None


# ---------------------------------------------------------------------------------------------
# Where a paper's scenario files are


def find_scenarios_dir(folder: str, files: Sequence[str], start: Path | None = None) -> Path:
    """The folder holding a paper's scenario ``files``: ``$AFSIM_SCENARIOS/<folder>`` if set;
    else ``scenarios/<folder>`` in the current directory (or ``start``) or one above it, so that
    a checkout's files, edited or not, are the ones run; else the copies shipped in the package
    (``afsim scenarios`` lists them as ``<folder>/...``)."""
    from importlib import resources

    env = os.environ.get("AFSIM_SCENARIOS")
    candidates = []
    if env:
        candidates.append(Path(env) / folder)
    here = (start or Path.cwd()).resolve()
    candidates += [d / "scenarios" / folder for d in (here, *here.parents)]
    candidates.append(Path(str(resources.files("afsim") / "scenarios" / folder)))
    for c in candidates:
        if all((c / f).is_file() for f in files):
            return c
    raise FileNotFoundError(
        f"cannot find {folder}/{files[0]}: not under $AFSIM_SCENARIOS, the current "
        "directory, nor the installed package (reinstall afsim)")


# ---------------------------------------------------------------------------------------------
# Running: afsim.sweep's executor and store, the one implementation (``afsim sweep`` uses it)


@dataclass(frozen=True)
class Task:
    """One simulation: a scenario file, its overrides (budget included), a seed, and the
    experiment's metrics function (the sweep's reducer)."""

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
    data_packets_generated: int
    #: Read back from the store (an earlier, interrupted or identical run), not computed now.
    cached: bool = False


def metrics_fingerprint(fns: Sequence[MetricsFn]) -> str:
    """A hash of the code that turns a run into metrics (``afsim.codehash.fingerprint``): each
    metrics function's source and, transitively, every afsim function it calls and every
    module-level constant it reads. A stored run's metrics were computed by the code of its
    day, so runs are reused only while that code is unchanged; editing anything else in the
    module (a claim, a variant) keeps them."""
    from afsim.codehash import fingerprint

    return fingerprint(fns)


def store_dir(root: str | Path, tasks: Sequence[Task]) -> Path:
    """Where a reproduction keeps its finished runs under ``root``: one store per build of
    afsim and per version of the metrics code (a store made by other code is never added to,
    and never reused)."""
    from afsim.store import AFSIM_VERSION
    from afsim.store.metrics import default_metrics

    fns = [default_metrics, *(t.metrics for t in tasks)]
    return Path(root) / f"{AFSIM_VERSION}-{metrics_fingerprint(fns)}"


def run_tasks(tasks: Sequence[Task], jobs: int, *, store: str | Path | None = None,
              show_progress: bool = False) -> list[Outcome]:
    """Runs every task with ``afsim.sweep.execute`` (``jobs`` local processes), one call per
    metrics function; with a ``store`` (a folder; see ``store_dir``), finished runs are kept and
    a re-run skips them, so a reproduction killed at any moment resumes where it stopped.
    Returns the outcomes in task order; raises the first ``RunFailed`` after the others ran."""
    import json

    from afsim.store import Store
    from afsim.sweep import Task as SweepTask
    from afsim.sweep import execute

    outcomes: list[Outcome | None] = [None] * len(tasks)
    failures = []
    st = Store.open(store_dir(store, tasks)) if store is not None else None
    try:
        by_fn: dict[MetricsFn, list[int]] = {}
        for i, t in enumerate(tasks):
            by_fn.setdefault(t.metrics, []).append(i)
        for fn, idx in by_fn.items():
            out = execute([SweepTask(tasks[i].scenario, tasks[i].overrides, tasks[i].seed) for i in idx],
                          store=st, reducer=fn, workers=jobs, progress=show_progress, tables=False)
            failures += [out.failures[k] for k in sorted(out.failures)]
            for k, rec in enumerate(out.records):
                if rec is None:
                    continue
                engine = json.loads(rec.summary_json)["engine"]
                outcomes[idx[k]] = Outcome(
                    metrics={m: float(v) for m, v in rec.metrics.items()},
                    end_time_s=rec.end_time_s, stop_reason=rec.stop_reason, wall_s=rec.wall_s,
                    events=rec.events, packet_hops=rec.packet_hops,
                    packets_generated=int(engine["packets_generated"]),
                    data_packets_generated=int(engine.get("data_packets_generated", 0)),
                    cached=rec.cached)
    finally:
        if st is not None:
            st.close()
    if failures:
        raise failures[0]
    return [o for o in outcomes if o is not None]


def aggregate(experiments: Sequence[Experiment], runs: Sequence[tuple[str, int, int, int]],
              outcomes: Sequence[Outcome]) -> Aggregates:
    """Each point's metrics over its replications."""
    agg = Aggregates()
    for e in experiments:
        rows = []
        for pi, p in enumerate(e.points):
            per_run = [e.picked(p, outcomes[t].metrics)
                       for (eid, i, _s, t) in runs if eid == e.id and i == pi]
            names = sorted({k for m in per_run for k in m})
            rows.append((p, {k: Stat.of(m.get(k, math.nan) for m in per_run) for k in names}))
        agg.by_experiment[e.id] = rows
    return agg


def null_aggregates(paper: Paper, experiments: Sequence[Experiment]) -> Aggregates:
    """The null model's prediction at every point of the paper's own experiments."""
    agg = Aggregates()
    for e in experiments:
        if e.base is not None:
            continue
        agg.by_experiment[e.id] = [
            (p, {k: Stat.exact(v) for k, v in paper.null_model(e, p).items()}) for p in e.points]
    return agg


# ---------------------------------------------------------------------------------------------
# The whole reproduction


@dataclass
class Reproduction:
    """Everything a reproduction produced; ``scoring``, ``claims`` and ``robustness`` judge it
    (``judge`` fills ``verdicts``)."""

    paper: Paper
    mode: Mode
    jobs: int
    experiments: list[Experiment]
    tasks: list[Task]
    outcomes: list[Outcome]
    #: (experiment id, point index, seed, task index) of every run an experiment used.
    runs: list[tuple[str, int, int, int]]
    aggregates: Aggregates
    null: Aggregates
    #: The robustness design: one {parameter: value} per point (empty when none ran).
    design: list[dict[str, str]]
    #: This invocation's wall time (runs read back from the store took none of it).
    wall_seconds: float
    afsim_version: str
    verdicts: Any = None
    #: The store the runs were kept in, if any.
    store: Path | None = None
    #: The ns-2 column (``twin.collect``), if the paper has a twin and it was asked for.
    ns2: Column | None = None
    #: The live column (``live.collect``: afsim live's runs), if the paper has one and it was
    #: asked for.
    live: Any = None

    @property
    def runs_from_store(self) -> int:
        """Runs read back from the store (finished by an earlier invocation), not simulated by
        this one."""
        return sum(1 for o in self.outcomes if o.cached)

    @property
    def runs_simulated(self) -> int:
        """Runs this invocation simulated."""
        return len(self.outcomes) - self.runs_from_store

    @property
    def engine_seconds(self) -> float:
        """The engine time of every run, wherever it ran: the sum of each run's own wall time
        (``Outcome.wall_s``, kept in the store), unlike ``wall_seconds``, this invocation's."""
        return math.fsum(o.wall_s for o in self.outcomes)

    @property
    def engine_seconds_simulated(self) -> float:
        """The engine time of the runs this invocation simulated."""
        return math.fsum(o.wall_s for o in self.outcomes if not o.cached)


def expand(paper: Paper, mode: Mode, only: Sequence[str] | None = None, *,
           variants: bool = True, robustness: bool = True) -> tuple[list[Experiment], list[dict[str, str]]]:
    """The experiments to run: the paper's (``only`` those ids, if given), each variant's copies
    of the experiments it names, and the robust experiments at each point of the design."""
    from afsim.reproduce.robustness import design as make_design

    base = list(paper.experiments)
    if only:
        unknown = sorted(set(only) - {e.id for e in base})
        if unknown:
            raise ValueError(f"unknown experiment(s) {', '.join(unknown)}; "
                             f"the experiments are {', '.join(e.id for e in base)}")
        base = [e for e in base if e.id in set(only)]
    out = list(base)
    if variants:
        for v in paper.variants:
            for e in base:
                if e.id in v.experiments:
                    out.append(dataclasses.replace(
                        e, id=f"{e.id}@{v.id}", title=f"{e.title} — {v.label}",
                        points=tuple(p.with_overrides(v.overrides) for p in e.points),
                        base=e.id, reading=v.id, robust=False))
    points: list[dict[str, str]] = []
    if robustness and paper.unstated and mode.robust_points > 0:
        points = make_design(paper.unstated, mode.robust_points, paper.design_seed)
        for k, values in enumerate(points):
            for e in base:
                if not e.robust:
                    continue
                applies = {u.name: values[u.name] for u in paper.unstated
                           if u.applies_to(e.scenario) and u.name in values}
                out.append(dataclasses.replace(
                    e, id=f"{e.id}#{k}", title=f"{e.title} — robustness design point {k}",
                    points=tuple(p.with_overrides(_design_point(paper, e, p, applies))
                                 for p in e.points),
                    base=e.id, reading=f"#{k}", robust=False))
    return out, points


def _design_point(paper: Paper, e: Experiment, p: Point, applies: dict[str, str]) -> dict[str, str]:
    """A design point's overrides at one point: its unstated values and what they imply."""
    if paper.design_overrides is None:
        return applies
    return {**applies, **paper.design_overrides(e, p, applies)}


# ---------------------------------------------------------------------------------------------
# Judging: the published values (``scoring``) and the claims (``claims``) under every reading


def judge(rep: Reproduction) -> Verdicts:
    """Scores the published values and the claims under every reading that ran."""
    values, tolerances = load_paper_values(rep.paper.data)
    afsim_view = View(rep.aggregates, "afsim")
    null_view = View(rep.null, "null")
    ran = set(rep.aggregates.by_experiment)
    values = [v for v in values if v.experiment in ran]
    afsim = compare(values, tolerances, afsim_view)
    null = compare(values, tolerances, null_view, resolution=afsim_view)
    variants: dict[str, list[Comparison]] = {}
    for var in rep.paper.variants:
        vals = [v for v in values if f"{v.experiment}@{var.id}" in ran]
        if vals:
            variants[var.id] = compare(vals, tolerances, View(rep.aggregates, var.id, f"@{var.id}"))
    ns2 = (compare(values, tolerances, View(rep.ns2.aggregates, "ns-2"))
           if rep.ns2 is not None else None)
    tables = []
    for table in dict.fromkeys(v.table for v in values):
        def pick(comps: Sequence[Comparison], t: str = table) -> list[Comparison]:
            return [c for c in comps if c.value.table == t]
        tables.append(TableVerdict(table, Score.of(pick(afsim)), Score.of(pick(null)),
                                   {k: Score.of(pick(c)) for k, c in variants.items() if pick(c)},
                                   Score.of(pick(ns2)) if ns2 is not None else None))
    return Verdicts(values, tolerances, afsim, null, variants, tables, evaluate_all(rep), ns2=ns2)


def evaluate_all(rep: Reproduction) -> ClaimVerdicts:
    """Every claim under afsim's default, the null model, each variant and the robustness
    design."""
    paper = rep.paper
    afsim = View(rep.aggregates, "afsim")
    null = View(rep.null, "null")
    ran = set(rep.aggregates.by_experiment)
    variant_views = [View(rep.aggregates, v.id, f"@{v.id}", v.unchanged) for v in paper.variants
                     if any(e.endswith(f"@{v.id}") for e in ran)]
    out = []
    for s in paper.statements:
        if s.kind is not Kind.CLAIM:
            continue
        assert s.evaluate is not None
        variants = {}
        for view in variant_views:
            vid = view.name
            r = s.evaluate(view)
            if r.holds is not None:
                variants[vid] = r
        robust = None
        if rep.design:
            per_point = [s.evaluate(View(rep.aggregates, f"#{k}", f"#{k}")) for k in range(len(rep.design))]
            robust = summarise(paper.unstated, rep.design, [r.holds for r in per_point])
        cv = ClaimVerdict(s, s.evaluate(afsim), s.evaluate(null), variants, robust)
        if rep.ns2 is not None:
            cv.ns2 = s.evaluate(View(rep.ns2.aggregates, "ns-2"))
            cv.case, cv.differences = claim_case(cv.afsim, cv.ns2, rep.aggregates, rep.ns2.aggregates)
        out.append(cv)
    counts = {k.value: sum(1 for s in paper.statements if s.kind is k) for k in Kind}
    return ClaimVerdicts(list(paper.statements), out, counts)


# ---------------------------------------------------------------------------------------------
# Running a reproduction


def reproduce(paper: Paper, mode: Mode, *, jobs: int | None = None,
              only: Sequence[str] | None = None, show_progress: bool = False,
              variants: bool = True, robustness: bool = True,
              store: str | Path | None = None, ns2: str = "committed",
              live: str = "committed") -> Reproduction:
    """Runs a paper's experiments (``only`` those ids, if given), its variants and its
    robustness design in ``mode``, and judges them (``scoring.judge``). With ``store`` (a
    folder), finished runs are kept there and reused: an interrupted reproduction resumes.
    ``ns2`` is where the ns-2 column comes from: ``"committed"``, ``"run"`` or ``"off"``
    (``twin``); ``live`` where the live column comes from, likewise (``live``)."""
    import afsim
    from afsim.reproduce import live as live_column
    from afsim.reproduce.twin import collect

    start = time.monotonic()
    experiments, design_points = expand(paper, mode, only, variants=variants, robustness=robustness)
    jobs = max(1, jobs if jobs is not None else (os.cpu_count() or 1))

    # one task per distinct (scenario, overrides, seed): shared points run once
    tasks: list[Task] = []
    index: dict[tuple[str, tuple[tuple[str, str], ...], int], int] = {}
    runs: list[tuple[str, int, int, int]] = []
    for e in experiments:
        for pi, p in enumerate(e.points):
            for seed in mode.seeds_for(replications_of(e, mode)):
                # the mode's budget, unless the point sets it itself (a run stopped at t);
                # the points of a series read from one run share it (``one_run_without``)
                ov = {mode.budget_param: mode.budget_value, **e.run_overrides(p, seed)}
                key_ov = tuple(sorted(ov.items()))
                key = (str(e.scenario), key_ov, seed)
                if key not in index:
                    index[key] = len(tasks)
                    tasks.append(Task(str(e.scenario), key_ov, seed, e.metrics))
                runs.append((e.id, pi, seed, index[key]))

    outcomes = run_tasks(tasks, jobs, store=store, show_progress=show_progress)
    column = collect(paper, mode, experiments, source=ns2, jobs=jobs,
                     store=Path(store) if store is not None else None, progress=show_progress)
    rep = Reproduction(
        paper=paper, mode=mode, jobs=jobs, experiments=experiments, tasks=tasks,
        outcomes=outcomes, runs=runs, aggregates=aggregate(experiments, runs, outcomes),
        null=null_aggregates(paper, experiments), design=design_points,
        wall_seconds=time.monotonic() - start, afsim_version=afsim.__build__,
        store=store_dir(store, tasks) if store is not None else None, ns2=column,
        live=live_column.collect(paper, mode, experiments, source=live,
                                 store=Path(store) if store is not None else None,
                                 progress=show_progress))
    rep.verdicts = judge(rep)
    return rep


def rerun(rep: Reproduction, experiment: str, labels: Mapping[str, Label],
          seed: int | None = None) -> Results:
    """Runs again, in this process, the run of ``experiment`` at the first point matching
    ``labels`` with ``seed`` (default: its first seed), and returns its full results: the same
    run as the reproduction's (same scenario, overrides and seed), with its traces. KeyError if
    that run is not part of the reproduction."""
    import afsim

    e = next((x for x in rep.experiments if x.id == experiment), None)
    if e is None:
        raise KeyError(f"experiment {experiment!r} did not run")
    for pi, p in enumerate(e.points):
        if not p.matches(labels):
            continue
        for eid, i, s, t in rep.runs:
            if eid == experiment and i == pi and (seed is None or s == seed):
                task = rep.tasks[t]
                scenario = afsim.load_scenario(task.scenario, overrides=dict(task.overrides))
                return afsim.run(scenario, seed=task.seed)
    raise KeyError(f"no run of {experiment} at {dict(labels)}" + (f" seed {seed}" if seed else ""))
