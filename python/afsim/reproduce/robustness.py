"""Robustness to what the paper left open: its unstated parameters, a small space-filling design
over their plausible ranges, and per claim whether it holds across the range.

Read this first. An ``Unstated`` parameter is a scenario ``[params]`` entry the paper does not
give: its default (chosen from the text, its references or the simulator of its era, in that
order, and said in ``source``) and a plausible range — an interval (sampled linearly, or on a log
scale when it spans decades) or a set of choices. ``design`` draws a Latin hypercube of
``n`` points over the intervals (scipy.stats.qmc, seeded: the design is fixed before any run)
and deals the choices out evenly over the points. The experiments marked ``robust`` run at
every point; each claim is then evaluated at every point and ``summarise`` says:

- *holds throughout*: at every point of the design;
- *fails throughout*: at none;
- *holds only at points with …*: one parameter separates the points where it holds from those
  where it fails (a side of one interval, or a subset of one choice set), said in the design
  values observed — "holds only at points with d ≥ 19.88ms (1 of 3; fails at 6.614–10.68ms)" —
  never as a threshold between two design points, which the design did not measure;
- *holds in part; best split: …*: no single parameter separates them; the split that agrees
  with the most points, the values where the claim holds and where it fails, and how many of
  the points the split explains;
- *not evaluated*: the claim needs experiments the design does not run.

What this does not do: search for the values that make a claim hold; the design is the same
for every claim and every run of the reproduction.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from afsim.units import number_in


@dataclass(frozen=True)
class Unstated:
    """A parameter the paper does not give."""

    #: The scenario parameter (``--set name=value``).
    name: str
    #: What it is, in words.
    what: str
    #: The default as the scenario writes it ("10ms", 0.002, "reno").
    default: str
    #: Why that default, and where the range comes from.
    source: str
    #: An interval (low, high) in ``unit``, or ``choices``.
    low: float | None = None
    high: float | None = None
    unit: str = ""
    log: bool = False
    #: Whole numbers only (a buffer in packets).
    integer: bool = False
    choices: tuple[str, ...] = ()
    #: Scenario file names that have this parameter (empty: all of the paper's).
    scenarios: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        interval = self.low is not None and self.high is not None
        if interval == bool(self.choices):
            raise ValueError(f"unstated parameter {self.name}: give an interval or choices, not both")
        if interval and not (self.low is not None and self.high is not None and self.low < self.high):
            raise ValueError(f"unstated parameter {self.name}: empty interval")
        if self.log and interval and (self.low or 0) <= 0:
            raise ValueError(f"unstated parameter {self.name}: a log scale needs a positive interval")

    @property
    def is_interval(self) -> bool:
        return not self.choices

    def applies_to(self, scenario: Path) -> bool:
        return not self.scenarios or scenario.name in self.scenarios

    def value_at(self, u: float) -> float:
        """The interval's value at quantile u ∈ [0, 1]."""
        assert self.low is not None and self.high is not None
        if self.log:
            return math.exp(math.log(self.low) + u * (math.log(self.high) - math.log(self.low)))
        return self.low + u * (self.high - self.low)

    def render(self, x: float) -> str:
        """A value as the scenario parameter takes it (with its unit)."""
        text = str(round(x)) if self.integer else f"{x:.4g}"
        return f"{text}{self.unit}" if self.unit else text

    def range_text(self) -> str:
        if self.choices:
            return "{" + ", ".join(self.choices) + "}"
        return f"{self.render(self.low or 0)} … {self.render(self.high or 0)}" + (" (log scale)" if self.log else "")

    def as_dict(self) -> dict[str, Any]:
        return {"name": self.name, "what": self.what, "default": self.default, "source": self.source,
                "range": self.range_text(), "scenarios": list(self.scenarios)}


def design(params: Sequence[Unstated], n: int, seed: int) -> list[dict[str, str]]:
    """``n`` points: a Latin hypercube over the intervals, the choices dealt out evenly (in a
    seeded shuffle) so that each appears ⌊n/k⌋ or ⌈n/k⌉ times."""
    import numpy as np
    from scipy.stats import qmc

    if n <= 0:
        return []
    intervals = [p for p in params if p.is_interval]
    points: list[dict[str, str]] = [{} for _ in range(n)]
    if intervals:
        sample = qmc.LatinHypercube(d=len(intervals), seed=seed).random(n)
        for j, p in enumerate(intervals):
            for i in range(n):
                points[i][p.name] = p.render(p.value_at(float(sample[i, j])))
    rng = np.random.default_rng(seed)
    for p in params:
        if p.choices:
            dealt = [p.choices[i % len(p.choices)] for i in range(n)]
            order = rng.permutation(n)
            for i, k in enumerate(order):
                points[int(k)][p.name] = dealt[i]
    return points


def numeric(p: Unstated, text: str) -> float:
    """A design value back as a number (its unit stripped)."""
    return number_in(text, p.unit or None)


@dataclass(frozen=True)
class RobustVerdict:
    """How a claim fares over the design."""

    #: "holds throughout", "fails throughout", "holds only at points with …", "holds in part;
    #: best split: points with …", "holds in part", "not evaluated"
    summary: str
    holds_at: int
    evaluated: int
    #: Per design point: True / False / None.
    per_point: tuple[bool | None, ...]
    #: The best single-parameter split, in words, in design values ("d ≥ 12ms": the points
    #: whose d is 12ms or more); empty when there is nothing to split.
    split: str = ""
    #: How many of the evaluated points the split explains.
    explained: int = 0
    #: The split's parameter, and its values at the evaluated points where the claim holds and
    #: where it fails (design values as the scenario takes them, in ascending order).
    parameter: str = ""
    holds_values: tuple[str, ...] = ()
    fails_values: tuple[str, ...] = ()
    #: The split's relation ("≤", "≥", "=", "≠") and the design value it names.
    relation: str = ""
    value: str = ""
    #: The unit of an interval parameter's values ("" for choices), for ranges of them.
    unit: str = ""
    choices: bool = False

    @property
    def exact(self) -> bool:
        """Whether the split explains every evaluated point."""
        return bool(self.split) and self.explained == self.evaluated

    def text(self) -> str:
        """The summary with its counts and, for a split, the values it rests on: "holds only at
        points with d ≥ 12ms (2 of 4; fails at 2–5ms)"."""
        counts = f"{self.holds_at} of {self.evaluated}"
        if not self.split:
            return f"{self.summary} ({counts})"
        fails = self.values_text(self.fails_values)
        if self.exact:
            return f"{self.summary} ({counts}; fails at {fails})"
        return (f"{self.summary} ({counts}; holds at {self.values_text(self.holds_values)}, "
                f"fails at {fails}; the split explains {self.explained} of {self.evaluated})")

    def values_text(self, values: Sequence[str]) -> str:
        """Design values of the split's parameter: the range of an interval's ("6.614–10.68ms",
        or the one value), the distinct choices ("be_variant = reno or newreno")."""
        distinct = list(dict.fromkeys(values))
        if self.choices:
            return f"{self.parameter} = " + " or ".join(distinct)
        if len(distinct) == 1:
            return distinct[0]
        lo, hi = distinct[0], distinct[-1]
        if self.unit and lo.endswith(self.unit):
            lo = lo[: len(lo) - len(self.unit)]
        return f"{lo}–{hi}"

    def as_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"summary": self.summary, "text": self.text(),
                             "holds_at": self.holds_at, "evaluated": self.evaluated,
                             "per_point": list(self.per_point), "split": self.split,
                             "explained": self.explained}
        if self.split:
            d |= {"parameter": self.parameter, "relation": self.relation, "value": self.value,
                  "holds_values": list(self.holds_values), "fails_values": list(self.fails_values)}
        return d


@dataclass(frozen=True)
class Split:
    """A single-parameter rule over the design's points, named by a design value (no value
    between two design points is ever named: the design measured none)."""

    parameter: Unstated
    relation: str
    value: str
    explained: int

    @property
    def text(self) -> str:
        return f"{self.parameter.name} {self.relation} {self.value}"


def summarise(params: Sequence[Unstated], points: Sequence[dict[str, str]],
              holds: Sequence[bool | None]) -> RobustVerdict:
    """The verdict over the design (see the module header)."""
    pairs = [(pt, h) for pt, h in zip(points, holds, strict=True) if h is not None]
    per_point = tuple(holds)
    if not pairs:
        return RobustVerdict("not evaluated", 0, 0, per_point)
    k = sum(1 for _, h in pairs if h)
    n = len(pairs)
    if k == n:
        return RobustVerdict("holds throughout", k, n, per_point)
    if k == 0:
        return RobustVerdict("fails throughout", 0, n, per_point)
    split = best_split(params, pairs)
    if split is None:
        return RobustVerdict("holds in part", k, n, per_point)
    p = split.parameter
    key = (lambda v: numeric(p, v)) if p.is_interval else (lambda v: v)
    held = tuple(sorted((pt[p.name] for pt, h in pairs if h), key=key))
    failed = tuple(sorted((pt[p.name] for pt, h in pairs if not h), key=key))
    summary = (f"holds only at points with {split.text}" if split.explained == n
               else f"holds in part; best split: points with {split.text}")
    return RobustVerdict(summary, k, n, per_point, split.text, split.explained, p.name, held,
                         failed, split.relation, split.value, p.unit if p.is_interval else "",
                         not p.is_interval)


def best_split(params: Sequence[Unstated], pairs: Sequence[tuple[dict[str, str], bool]]) -> Split | None:
    """The single-parameter rule that agrees with the most points (ties: the first parameter,
    then the lower cut, "≤" before "≥"). An interval's rule keeps the points on one side of a
    cut between two consecutive design values a < b and is named by the design value on its
    side: "≤ a" or "≥ b". None when no parameter is set at every point."""
    best: Split | None = None
    for p in params:
        present = [(pt[p.name], h) for pt, h in pairs if p.name in pt]
        if len(present) < len(pairs):
            continue
        if p.is_interval:
            by_value: dict[float, str] = {}
            for v, _ in present:
                by_value.setdefault(numeric(p, v), v)
            xs = sorted(by_value)
            for a, b in zip(xs, xs[1:], strict=False):
                below = sum(1 for v, h in present if (numeric(p, v) <= a) == h)
                above = len(present) - below  # the rule "≥ b" agrees where "≤ a" disagrees
                for agree, rel, at in ((below, "≤", a), (above, "≥", b)):
                    if best is None or agree > best.explained:
                        best = Split(p, rel, by_value[at], agree)
        else:
            for c in p.choices:
                agree = sum(1 for v, h in present if (v == c) == h)
                if best is None or agree > best.explained:
                    best = Split(p, "=", c, agree)
                if len(p.choices) > 2 and len(present) - agree > best.explained:
                    best = Split(p, "≠", c, len(present) - agree)
    return best
