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
- *holds only where …*: the single-parameter split (a threshold on one interval, or a subset of
  one choice set) that best separates the points where it holds from those where it fails, and
  how many of the points that split explains;
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
    return float(text[: len(text) - len(p.unit)] if p.unit and text.endswith(p.unit) else text)


@dataclass(frozen=True)
class RobustVerdict:
    """How a claim fares over the design."""

    #: "holds throughout", "fails throughout", "holds only where …", "not evaluated"
    summary: str
    holds_at: int
    evaluated: int
    #: Per design point: True / False / None.
    per_point: tuple[bool | None, ...]
    #: The best single-parameter split, in words (empty when there is nothing to split).
    split: str = ""
    #: How many of the evaluated points the split explains.
    explained: int = 0

    def as_dict(self) -> dict[str, Any]:
        return {"summary": self.summary, "holds_at": self.holds_at, "evaluated": self.evaluated,
                "per_point": list(self.per_point), "split": self.split, "explained": self.explained}


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
    split, explained = best_split(params, pairs)
    return RobustVerdict(f"holds only where {split}" if split else "holds in part", k, n, per_point,
                         split, explained)


def best_split(params: Sequence[Unstated], pairs: Sequence[tuple[dict[str, str], bool]]) -> tuple[str, int]:
    """The single-parameter rule that agrees with the most points (ties: the first parameter,
    then the lower threshold). Returns (rule in words, points it explains)."""
    best = ("", -1)
    for p in params:
        present = [(pt[p.name], h) for pt, h in pairs if p.name in pt]
        if len(present) < len(pairs):
            continue
        if p.is_interval:
            xs = sorted({numeric(p, v) for v, _ in present})
            for a, b in zip(xs, xs[1:], strict=False):
                t = (a + b) / 2
                below = sum(1 for v, h in present if (numeric(p, v) <= t) == h)
                above = len(present) - below  # the rule "> t" agrees where "≤ t" disagrees
                for agree, rel in ((below, "≤"), (above, ">")):
                    if agree > best[1]:
                        best = (f"{p.name} {rel} {p.render(t)}", agree)
        else:
            for c in p.choices:
                agree = sum(1 for v, h in present if (v == c) == h)
                if agree > best[1]:
                    best = (f"{p.name} = {c}", agree)
                if len(p.choices) > 2 and len(present) - agree > best[1]:
                    best = (f"{p.name} ≠ {c}", len(present) - agree)
    return best if best[1] >= 0 else ("", 0)
