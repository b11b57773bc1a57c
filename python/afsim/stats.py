"""Statistics over replications: mean, sample standard deviation and the 95 % Student-t
confidence interval of the mean. The one implementation afsim has: sweeps, reports and the
paper reproductions (``afsim.reproduce``) all use it.

Read this first. ``Stat.of(values)`` drops NaN and infinite values (a metric undefined in a
run), then gives n, the mean, the sample standard deviation (n − 1 in the denominator) and the
half-width t(0.975, n − 1)·s/√n of the 95 % confidence interval, with the quantile from
``scipy.stats.t`` (imported only when an interval is computed). One value has no spread: its
std and ci95 are NaN. ``aggregate`` applies it to every metric column of a table of runs, per
group (grid point).

Not done here: anything beyond independent replications (no batch means, no bootstrap, no
correction for multiple comparisons).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

#: Confidence level of every interval afsim reports, and the t quantile it takes.
LEVEL = 0.95
_UPPER = 0.975


def t_quantile(p: float, df: float) -> float:
    """The ``p`` quantile of Student's t with ``df`` degrees of freedom (scipy.stats.t)."""
    from scipy.stats import t

    if not 0.0 < p < 1.0:
        raise ValueError(f"p must lie in (0, 1), got {p}")
    if df <= 0:
        raise ValueError(f"degrees of freedom must be positive, got {df}")
    return float(t.ppf(p, df))


def json_number(x: float | None) -> float | None:
    """A float for JSON: NaN and infinities become None (null)."""
    return float(x) if x is not None and math.isfinite(x) else None


@dataclass(frozen=True)
class Stat:
    """A metric over the replications of one point: count, mean, sample standard deviation,
    and the half-width of the 95 % confidence interval of the mean (Student t, n − 1 degrees of
    freedom). NaN where undefined (no value; a single value has no spread)."""

    n: int
    mean: float
    std: float
    ci95: float

    @classmethod
    def of(cls, values: Iterable[float | None]) -> Stat:
        xs = [float(v) for v in values if v is not None and math.isfinite(float(v))]
        n = len(xs)
        if n == 0:
            return cls(0, math.nan, math.nan, math.nan)
        mean = math.fsum(xs) / n
        if n == 1:
            return cls(1, mean, math.nan, math.nan)
        var = math.fsum((x - mean) ** 2 for x in xs) / (n - 1)
        std = math.sqrt(var)
        return cls(n, mean, std, t_quantile(_UPPER, n - 1) * std / math.sqrt(n))

    @classmethod
    def exact(cls, value: float) -> Stat:
        """A value known without sampling (a model's prediction): one value, no interval."""
        return cls(1, float(value), math.nan, math.nan)

    @property
    def total(self) -> float:
        """The sum over the replications (event counts); NaN when there is none."""
        return self.mean * self.n if self.n else math.nan

    @property
    def low(self) -> float:
        """Lower end of the interval (the mean when there is no interval)."""
        return self.mean - self.ci95 if math.isfinite(self.ci95) else self.mean

    @property
    def high(self) -> float:
        return self.mean + self.ci95 if math.isfinite(self.ci95) else self.mean

    def as_dict(self) -> dict[str, Any]:
        return {"n": self.n, "mean": json_number(self.mean), "std": json_number(self.std),
                "ci95": json_number(self.ci95)}


def natural_key(v: Any) -> tuple[Any, ...]:
    """Sort key that puts numbers in numeric order and values with units by value ("800kbps"
    before "1Mbps" before "1200kbps", ``afsim.units``), other text by its digits' values
    ("run2" before "run10")."""
    import re

    from afsim.units import quantity

    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return (0, float(v), "")
    q = quantity(v)
    if q is not None:
        return (0, q.value, q.dimension)
    parts = re.split(r"(\d+(?:\.\d+)?)", str(v))
    return (1, 0.0, tuple((0, float(p), "") if i % 2 else (1, 0.0, p)
                          for i, p in enumerate(parts) if p))


def aggregate(runs: pd.DataFrame, by: Sequence[str], metrics: Sequence[str]) -> pd.DataFrame:
    """One row per distinct combination of the ``by`` columns (a grid point), sorted by them
    in natural order (``natural_key``), with ``<metric>.n``, ``.mean``, ``.std`` and ``.ci95`` for every metric
    (``Stat.of`` over that point's runs)."""
    import pandas as pd

    rows: list[dict[str, Any]] = []
    groups = runs.groupby(list(by), sort=False, dropna=False) if by else [((), runs)]
    for values, group in groups:
        values = values if isinstance(values, tuple) else (values,)
        row: dict[str, Any] = dict(zip(by, values))
        row["runs"] = len(group)
        for m in metrics:
            s = Stat.of(pd.to_numeric(group[m], errors="coerce")) if m in group else Stat.of([])
            row.update({f"{m}.n": s.n, f"{m}.mean": s.mean, f"{m}.std": s.std, f"{m}.ci95": s.ci95})
        rows.append(row)
    rows.sort(key=lambda r: tuple(natural_key(r[c]) for c in by))
    return pd.DataFrame(rows)


_SUPERSCRIPT = str.maketrans("-0123456789",
                             "\u207b\u2070\u00b9\u00b2\u00b3\u2074\u2075\u2076\u2077\u2078\u2079")


def _exp3(x: float) -> int:
    """The engineering exponent of ``x``: a multiple of 3, with 1 ≤ |x| / 10^e < 1000."""
    return 3 * math.floor(math.floor(math.log10(abs(x))) / 3) if x else 0


def _power(e: int) -> str:
    return f" \u00d710{str(e).translate(_SUPERSCRIPT)}" if e else ""


def format_eng(x: float, digits: int = 4) -> str:
    """``x`` in engineering notation with ``digits`` significant digits: 11630 → "11.63 ×10³",
    0.05 → "50.00 ×10⁻³", 2.5 → "2.500"; NaN → "–"."""
    if not math.isfinite(x):
        return "–" if x != x else str(x)
    e = _exp3(x)
    m = x / 10**e
    lead = math.floor(math.log10(abs(m))) if m else 0
    return f"{m:.{max(0, digits - 1 - lead)}f}{_power(e)}"


def format_mean_ci(mean: float, ci: float, digits: int = 2) -> str:
    """Mean ± 95 % half-width in engineering notation: the half-width to ``digits``
    significant digits, the mean to the same decimal place (at most 4 significant digits:
    a half-width far below that shows as 0), one shared power of ten:
    (11630, 200) → "11.63 ± 0.20 ×10³"; (1.0, 5e-18) → "1.000 ± 0.000"; no interval → the mean
    alone (``format_eng``)."""
    if not math.isfinite(mean):
        return "–" if mean != mean else str(mean)
    if not (math.isfinite(ci) and ci > 0):
        return format_eng(mean)
    e = _exp3(mean if mean else ci)
    m, c = mean / 10**e, ci / 10**e
    decimals = (digits - 1) - math.floor(math.log10(c))
    if m:
        decimals = min(decimals, 3 - math.floor(math.log10(abs(m))))
    decimals = max(0, decimals)
    return f"{m:.{decimals}f} \u00b1 {c:.{decimals}f}{_power(e)}"


def jain(xs: Sequence[float], *, exact_sums: bool = False) -> float:
    """Jain's fairness index (Σx)² / (n·Σx²) of ``xs``, as afsim-core's
    ``metrics::fairness::jain`` (the report's groups table has it per group; this is for other
    sets of flows): sums in order, as the core's; with ``exact_sums``, exactly rounded sums
    (``math.fsum``), as the sweep's default metrics have always stored it (the two can differ
    in the last digit). NaN for no value or squares that sum to zero."""
    total = math.fsum if exact_sums else sum
    sq = total(x * x for x in xs)
    return total(xs) ** 2 / (len(xs) * sq) if len(xs) and sq > 0 else math.nan


def fieb(p: Sequence[float], r: Sequence[float]) -> float:
    """Leung and Muppala's Fairness Index on Excess Bandwidth: Jain's index of the excess
    ``p[i] - r[i]`` of each throughput over its target (afsim-core's
    ``metrics::fairness::fieb``; the groups table has it for a group with contracts)."""
    return jain([a - b for a, b in zip(p, r, strict=True)])
