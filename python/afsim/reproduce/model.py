"""What a reproduction is made of, below everything that judges or runs it: a grid ``Point``,
an ``Experiment`` (a scenario file over points), a ``Variant`` (another reading), a ``Mode``
(budget and replications), a ``Figure``, and the numbers a claim or a comparison reads — each
point's ``Aggregates`` over its replications and a ``View`` of one reading of them.

``claims``, ``scoring``, ``twin`` and ``robustness`` build on this module; ``core`` (the
``Paper``, running, judging: the whole ``Reproduction``) builds on all of them and re-exports
these names, so the layers go one way: model → claims → scoring / twin → core → report and
the papers' packages.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

# statistics: afsim.stats, the one implementation (sweeps and reports use it too); re-exported
from afsim.stats import Stat, t_quantile

if TYPE_CHECKING:
    from afsim.results import Results

__all__ = [
    "EVENTS", "MIN_EVENTS", "TRIALS", "Aggregates", "Experiment", "Figure", "Label", "MetricsFn",
    "Mode", "Point", "ReplicateFn", "Stat", "Variant", "View", "prob", "replications_of",
    "t_quantile",
]

#: Label values a point may carry (they appear in tables and JSON as they are).
Label = str | int | float | bool

#: ``metrics(results) -> {name: value}``: a module-level function (the worker processes import
#: it by name), reducing one run to numbers. NaN means "not defined for this run". A loss
#: probability ``m`` comes with ``m.events`` (the losses counted) and ``m.trials`` (what they
#: are counted among), so that a comparison knows how far the run can resolve it.
MetricsFn = Callable[["Results"], dict[str, float]]

#: ``replicate(overrides, seed) -> {name: value}``: overrides one replication adds to its point's
#: (the point's own, design values included, are passed in). Called when the runs are planned.
ReplicateFn = Callable[[Mapping[str, str], int], Mapping[str, str]]

#: Suffixes of the counts behind a probability (summed over replications, not averaged).
EVENTS, TRIALS = ".events", ".trials"

#: Fewer losses than this, counted or expected, cannot resolve a probability (a Poisson count of
#: 10 has a relative standard error of 32 %): ``scoring`` claims neither agreement nor
#: disagreement, ``claims.Checks.seen`` no loss seen.
MIN_EVENTS = 10


def prob(name: str, events: int, trials: int) -> dict[str, float]:
    """A loss probability ``name`` with the counts behind it (``name.events``,
    ``name.trials``); 0 where nothing was counted among (the papers print 0)."""
    return {name: events / trials if trials else 0.0, f"{name}{EVENTS}": float(events),
            f"{name}{TRIALS}": float(trials)}


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

    def with_overrides(self, extra: Mapping[str, str]) -> Point:
        return Point(self.labels, {**dict(self.overrides), **dict(extra)})


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
    #: Run at every point of the robustness design (the experiments the claims rest on).
    robust: bool = False
    #: Set on the copies ``reproduce`` makes: the experiment this one re-runs, and the variant
    #: id ("periodic") or the robustness design point ("#3") it re-runs it under.
    base: str | None = None
    reading: str | None = None
    #: Overrides of each replication beyond the point's (None: replications differ by seed
    #: only). The report's notes should say what it varies.
    replicate: ReplicateFn | None = None

    def overrides_for(self, point: Point, seed: int) -> dict[str, str]:
        """The overrides of one replication of ``point``."""
        ov = dict(point.overrides)
        if self.replicate is not None:
            ov.update(self.replicate(ov, seed))
        return ov
    #: At most this many replications of each point (None: the mode's): a time series of
    #: many points drawn from fewer seeds than the tables.
    replications: int | None = None
    #: The metrics results.json and runs.csv list for it (``fnmatch`` patterns; None: every
    #: one, the sweep's default scalars of a run included): a series of many short runs
    #: lists only its own. Scoring and claims read them all.
    shown: tuple[str, ...] | None = None

    #: A time series read from one run: the overrides in which this experiment's points differ
    #: only to stop a run at an instant (``duration``, ``warmup``), left out of the run, so
    #: that every point equal in the rest reads the same longer run; ``pick`` then takes each
    #: point's metrics out of that run's (empty: each point is its own run).
    one_run_without: tuple[str, ...] = ()
    #: A point's metrics out of the metrics of the run it shares (None: all of them).
    pick: Callable[[Point, Mapping[str, float]], dict[str, float]] | None = None

    def run_overrides(self, point: Point, seed: int) -> dict[str, str]:
        """The overrides of the run one replication of ``point`` reads: ``overrides_for``
        without ``one_run_without``."""
        return {k: v for k, v in self.overrides_for(point, seed).items()
                if k not in self.one_run_without}

    def picked(self, point: Point, metrics: Mapping[str, float]) -> dict[str, float]:
        """The metrics of ``point`` from those of its run."""
        return self.pick(point, metrics) if self.pick is not None else dict(metrics)

    def shows(self, metric: str) -> bool:
        from fnmatch import fnmatchcase

        return self.shown is None or any(fnmatchcase(metric, pat) for pat in self.shown)

    def subset(self, n_points: int) -> Experiment:
        """The same experiment on its first ``n_points`` points (tests, smoke runs)."""
        return dataclasses.replace(self, points=self.points[:n_points])


@dataclass(frozen=True)
class Variant:
    """Another reading of something the paper leaves open: the same points of ``experiments``
    with ``overrides`` added, reported beside the default (never instead of it)."""

    id: str
    label: str
    overrides: Mapping[str, str]
    #: Why this is a variant and not the default, said in the report (for a reading once
    #: adopted because it matched the published numbers, say so).
    why: str
    experiments: tuple[str, ...]
    #: Experiments this reading leaves unchanged (none of their scenarios has what it sets):
    #: the claims under it read them from the default runs instead of leaving them unevaluated.
    unchanged: tuple[str, ...] = ()


@dataclass(frozen=True)
class Mode:
    """How much to simulate.

    ``budget`` packets of the scenario parameter ``budget_param`` per run and ``replications``
    seeds per point for the paper's experiments; ``variant_replications`` for the variants; the
    robustness design has ``robust_points`` points, each run ``robust_replications`` times.
    A budget that is not a packet count (a cap on simulated time) names its unit: the value is
    written ``f"{budget}{budget_unit}"`` and called ``budget_noun``. A mode is reduced when its
    budget is below ``paper_budget`` or its replications below ``paper_replications`` (for a
    paper that gives its repetitions, not a budget); every output of a reduced mode says so.
    A point that sets ``budget_param`` itself (a run stopped at t) keeps its own value."""

    name: str
    budget: int
    replications: int
    base_seed: int = 1
    #: The paper's own budget, for the banner that says how far this mode is from it.
    paper_budget: int | None = None
    budget_param: str = "max_data_packets"
    variant_replications: int | None = None
    robust_points: int = 0
    robust_replications: int = 1
    budget_unit: str = ""
    budget_noun: str | None = None
    paper_replications: int | None = None

    @property
    def seeds(self) -> list[int]:
        return self.seeds_for(self.replications)

    def seeds_for(self, replications: int) -> list[int]:
        return [self.base_seed + r for r in range(replications)]

    @property
    def budget_value(self) -> str:
        """The budget as the scenario parameter takes it."""
        return f"{self.budget}{self.budget_unit}"

    @property
    def is_paper_budget(self) -> bool:
        """Whether this mode runs the paper's budget and repetitions (False: reduced)."""
        return ((self.paper_budget is None or self.budget >= self.paper_budget)
                and (self.paper_replications is None or self.replications >= self.paper_replications))

    def banner(self) -> str:
        """One line saying what this mode runs, and for a reduced mode that it is reduced."""
        reps = (f"{self.replications} replication{'s' if self.replications != 1 else ''} "
                f"(seeds {self.seeds[0]}–{self.seeds[-1]})")
        if self.paper_budget is not None and self.budget < self.paper_budget:
            return (f"{self.name.upper()} MODE — {self.budget:,} {self._unit()} per run instead "
                    f"of the paper's {self.paper_budget:,}, {reps}: indicative only, not the "
                    "paper's statistics")
        if not self.is_paper_budget:
            return (f"{self.name.upper()} MODE — {reps} per point instead of the paper's "
                    f"{self.paper_replications}, {self.budget:,} {self._unit()} per run: "
                    "indicative only, not the paper's statistics")
        return f"{self.name} mode: {self.budget:,} {self._unit()} per run, {reps}"

    def reduction(self) -> str:
        """What a reduced mode reduces, in a few words (figure titles)."""
        if self.paper_budget is not None and self.budget < self.paper_budget:
            return f"{self.budget:,} {self._unit()} per run"
        return f"{self.replications} replication(s) per point"

    def _unit(self) -> str:
        if self.budget_noun:
            return self.budget_noun
        return "data packets" if self.budget_param == "max_data_packets" else "packets"


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
    #: A paper's own drawing, for a figure that is not lines over a numeric label (bar charts
    #: over categories): ``draw(reproduction, figure, axes)`` draws afsim's values and the
    #: paper's on the matplotlib axes; the machinery still titles the figure (with the mode),
    #: saves it as PNG and SVG and lists it in the report. A module-level function. None: the
    #: default lines (``x``, ``series``, ``reference``).
    draw: Callable[[Any, Figure, Any], None] | None = None



# ---------------------------------------------------------------------------------------------
# Aggregates


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

    def points(self, experiment: str) -> list[Point]:
        return [p for p, _ in self.by_experiment.get(experiment, [])]


class View:
    """What a claim or a comparison reads: the aggregates of one reading — the default
    (experiment ids as they are), a variant (``table2`` read from ``table2@periodic``), a point
    of the robustness design (``table2#3``), or the null model's predictions."""

    def __init__(self, agg: Aggregates, name: str = "afsim", suffix: str = "",
                 unchanged: Sequence[str] = ()) -> None:
        self.agg = agg
        self.name = name
        self.suffix = suffix
        #: Experiments read without the suffix (a variant's ``unchanged``).
        self.unchanged = frozenset(unchanged)

    def _id(self, experiment: str) -> str:
        return experiment if experiment in self.unchanged else experiment + self.suffix

    def stat(self, experiment: str, labels: Mapping[str, Label], metric: str) -> Stat | None:
        return self.agg.stat(self._id(experiment), labels, metric)

    def mean(self, experiment: str, labels: Mapping[str, Label], metric: str) -> float | None:
        """The mean, or None when the point did not run or the metric is undefined there."""
        s = self.stat(experiment, labels, metric)
        return s.mean if s is not None and s.n > 0 and math.isfinite(s.mean) else None

    def total(self, experiment: str, labels: Mapping[str, Label], metric: str) -> float | None:
        """The sum over replications (event counts), or None."""
        s = self.stat(experiment, labels, metric)
        return s.total if s is not None and s.n > 0 and math.isfinite(s.mean) else None

    def ran(self, experiment: str) -> bool:
        return self._id(experiment) in self.agg.by_experiment


def replications_of(e: Experiment, mode: Mode) -> int:
    if e.reading is None:
        n = mode.replications
    elif e.reading.startswith("#"):
        return mode.robust_replications
    else:
        n = mode.variant_replications or mode.replications
    return min(n, e.replications) if e.replications else n


