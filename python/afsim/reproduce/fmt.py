"""How the reproduction reports print numbers and verdicts, shared by ``report`` and the
columns' own sections (``report_ns2``, and any other column a report adds) so that none of
them imports ``report``: a published value as the paper prints its kind, a mean with its
interval, a number a claim rests on, a comparison's verdict."""

from __future__ import annotations

import math

from afsim.reproduce.model import Stat
from afsim.reproduce.scoring import Comparison, Verdict

__all__ = ["fmt_number", "fmt_stat", "fmt_value", "verdict_mark"]


def fmt_value(x: float | None, kind: str) -> str:
    """A number as the paper prints its kind: probabilities in e-notation, rates and
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


def fmt_number(x: float) -> str:
    """A number a claim rests on, with at least three significant digits: an integer (a count)
    with thousands separators; 0 as 0; below 10⁻³ in e-notation (3.24e-06, as the tables print
    probabilities); below 1 with three significant digits (0.0626); from 1 on with two
    decimals and thousands separators (1,399.98)."""
    if isinstance(x, int) and not isinstance(x, bool):
        return f"{x:,}"
    if not math.isfinite(x):
        return "–"
    if x == 0:
        return "0"
    a = abs(x)
    if a < 1e-3:
        return f"{x:.2e}"
    if a < 1:
        return f"{x:.{2 - math.floor(math.log10(a))}f}"
    return f"{x:,.2f}"


def verdict_mark(c: Comparison | None) -> str:
    if c is None:
        return "–"
    return {Verdict.MATCH: "match", Verdict.MISS: "**miss**", Verdict.UNRESOLVED: "unresolved",
            Verdict.NOT_RUN: "not run"}[c.verdict] + (" (imprecise)" if c.imprecise else "")
