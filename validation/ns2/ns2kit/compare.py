"""The one comparison of afsim's runs with ns-2's: summaries over seeds, the difference of the
means (relative, in %, and as Welch's z), and the tolerance rule.

The seeds of the two simulators are unrelated: seed k of ns-2 and seed k of afsim are two
independent samples, so only distributions over seeds are compared. z is the difference of
the means over its standard error, sqrt(sd_ns² / n_ns + sd_af² / n_af); |z| < 2 is within what
the seed-to-seed spread explains.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

try:
    from afsim.stats import jain
except ImportError:  # afsim not installed: the ns-2 side alone still runs
    def jain(xs: Sequence[float]) -> float:  # type: ignore[misc]
        sq = sum(x * x for x in xs)
        return sum(xs) ** 2 / (len(xs) * sq) if len(xs) and sq > 0 else math.nan

__all__ = ["Diff", "compare", "jain", "stat", "summarise", "within"]


def stat(values: Iterable[float | None], *, extremes: bool = True,
         skip_nan: bool = False) -> dict[str, float] | None:
    """Mean, sample sd (0 for one value) and n over the values that are not None (nor NaN
    with ``skip_nan``), and with ``extremes`` their min and max; None when there is none."""
    vals = [v for v in values if v is not None and not (skip_nan and math.isnan(v))]
    if not vals:
        return None
    out = {"mean": statistics.fmean(vals), "sd": statistics.stdev(vals) if len(vals) > 1 else 0.0,
           "n": len(vals)}
    if extremes:
        out |= {"min": min(vals), "max": max(vals)}
    return out


def summarise(rows: Sequence[Mapping[str, Any]], keys: Iterable[str], *,
              extremes: bool = True) -> dict[str, Any]:
    """``stat`` of each key over the rows (one row of metrics per seed)."""
    return {k: stat((row.get(k) for row in rows), extremes=extremes) for k in keys}


@dataclass(frozen=True)
class Diff:
    """afsim's mean against ns-2's. ``diff``: afsim − ns-2 (inf when a side is missing);
    ``rel``: that over ns-2's mean and ``pct`` the same in % (None when a side is missing or
    ns-2's mean is 0); ``z``: Welch's z (None when a side is missing or neither has spread);
    ``z_signed``: the same but 0 for equal means without spread and ±inf for different ones
    (the parity grid's convention)."""

    diff: float
    rel: float | None
    pct: float | None
    z: float | None
    z_signed: float | None


def compare(ns: Mapping[str, float] | None, af: Mapping[str, float] | None) -> Diff:
    """The difference of the two summaries' means (``stat``'s dicts)."""
    if not ns or not af:
        return Diff(math.inf, None, None, None, None)
    d = af["mean"] - ns["mean"]
    rel = None if ns["mean"] == 0 else d / ns["mean"]
    pct = None if ns["mean"] == 0 else 100 * d / ns["mean"]
    se = math.sqrt(ns["sd"] ** 2 / ns["n"] + af["sd"] ** 2 / af["n"])
    if se == 0:
        return Diff(d, rel, pct, None, 0.0 if d == 0 else math.copysign(math.inf, d))
    return Diff(d, rel, pct, d / se, d / se)


def within(d: Diff, tolerance_pct: float, floor: float = 0.0) -> bool:
    """The parity grid's tolerance rule: a metric agrees when |z| < 2 (the seed spread explains
    the difference), or the means are less than ``floor`` apart (an absolute difference too
    small to mean anything), or |difference| ≤ ``tolerance_pct`` % of ns-2's mean. A side
    missing counts as agreeing (nothing to compare)."""
    if d.z_signed is None or abs(d.z_signed) < 2 or abs(d.diff) <= floor:
        return True
    return d.pct is not None and abs(d.pct) <= tolerance_pct
