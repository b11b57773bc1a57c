"""The ns-2 column of a reproduction's report: its headline lines, its section (what the twin
is, where its runs came from, the claims case by case, every number afsim and ns-2 set apart
beyond seed noise), its JSON, its CSV of runs, and its marks on the figures.

Read this first. ``report`` calls these where a reproduction has an ns-2 column
(``Reproduction.ns2``, from ``twin.collect``); without one they add nothing. The cases of a
claim are ``twin``'s.
"""

from __future__ import annotations

import csv
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from afsim.reproduce.core import Label, Stat
from afsim.reproduce.twin import BOTH_FAIL, BOTH_HOLD, GAP, NS2_CANNOT, THRESHOLD, Difference, difference
from afsim.stats import json_number as _num

if TYPE_CHECKING:
    from afsim.reproduce.claims import ClaimVerdict
    from afsim.reproduce.core import Reproduction
    from afsim.reproduce.scoring import Comparison, Verdicts

CASES = (BOTH_HOLD, BOTH_FAIL, GAP, THRESHOLD, NS2_CANNOT)


def _md(text: Any) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def summary_counts(rep: Reproduction) -> dict[str, Any]:
    """Of the claims: how many hold in afsim, how many ns-2 decides and how many hold there,
    and each case's count."""
    v: Verdicts = rep.verdicts
    h, e = v.claims.holds("afsim")
    hn, en = v.claims.holds("ns2")
    cases = v.claims.cases()
    return {"claims": len(v.claims.claims), "afsim_hold": h, "afsim_evaluated": e,
            "ns2_hold": hn, "ns2_evaluated": en, "cases": {c: cases.get(c, 0) for c in CASES}}


def summary_line(rep: Reproduction) -> str:
    """One sentence: of N claims, how many hold in afsim, in ns-2, and where the two disagree."""
    s = summary_counts(rep)
    c = s["cases"]
    return (f"of {s['claims']} claims, {s['afsim_hold']} hold in afsim; ns-2 can decide "
            f"{s['ns2_evaluated']} (the others need a mechanism ns-2 lacks) and {s['ns2_hold']} "
            f"hold there; {c[BOTH_HOLD]} hold in both, {c[BOTH_FAIL]} fail in both, and the two "
            f"disagree on {c[GAP] + c[THRESHOLD]} ({c[GAP]} with numbers apart beyond seed "
            f"noise, {c[THRESHOLD]} within it)")


def headline_lines(rep: Reproduction) -> list[str]:
    col = rep.ns2
    if col is None:
        return []
    v: Verdicts = rep.verdicts
    s = v.score("ns2")
    same = v.score_on("afsim", "ns2")
    return [
        f"- **ns-2, the paper's own simulator** ({col.summary()}): on the published values it "
        f"can run, ns-2 matches **{s.match} of {s.resolved}** and afsim **{same.match} of "
        f"{same.resolved}** on the same values; claims: {summary_line(rep)}.",
    ]


def not_in_ns2(rep: Reproduction, comp: Comparison) -> str | None:
    """Why ns-2 has no number for a published value's point, if it has none for that reason."""
    col = rep.ns2
    if col is None:
        return None
    for e in rep.experiments:
        if e.id != comp.value.experiment:
            continue
        for pi, p in enumerate(e.points):
            if p.matches(comp.value.point):
                return col.not_in_ns2(e.id, pi)
    return None


def section(rep: Reproduction) -> list[str]:
    """The report's "ns-2" section."""
    col = rep.ns2
    if col is None:
        return []
    v: Verdicts = rep.verdicts
    lines = ["## ns-2, the paper's own simulator", "", _md(col.twin.description), "",
             f"- runs: {col.summary()}; ns-2's own event-loop time summed over the runs used: "
             f"{col.engine_seconds:,.1f} s (each run's whole process: {col.process_seconds:,.1f} "
             f"s); this invocation's ns-2 column took {col.wall_seconds:,.1f} s of wall time "
             f"with {rep.jobs} ns-2 processes at a time; source: `--ns2 {col.source}`."]
    for m in col.messages:
        lines.append(f"- {_md(m)}")
    for f in col.failed[:10]:
        lines.append(f"- failed: {_md(f)}")
    refused = sorted(set(col.refused.values()))
    if refused:
        lines += ["- not in ns-2 (points reported as such, never filled from elsewhere):"]
        lines += [f"  - {_md(r)}" for r in refused]
    lines += ["", f"**Claims:** {summary_line(rep)}.", "",
              "| case | claims |", "|---|---|"]
    by_case: dict[str, list[str]] = {}
    for cv in v.claims.claims:
        by_case.setdefault(cv.case or NS2_CANNOT, []).append(cv.statement.id)
    for case in CASES:
        ids = by_case.get(case, [])
        lines.append(f"| {case} | {len(ids)}: {', '.join(ids) if ids else '–'} |")
    lines.append("")
    gaps = [cv for cv in v.claims.claims if cv.case in (GAP, THRESHOLD)]
    if gaps:
        lines += ["### Where afsim and ns-2 decide a claim differently", ""]
        for cv in gaps:
            sig = [d for d in cv.differences if d.significant]
            lines.append(f"- **{cv.statement.id}** — afsim {_holds(cv.afsim.holds)}, ns-2 "
                         f"{_holds(cv.ns2.holds if cv.ns2 else None)}: {cv.case}"
                         + (": " + "; ".join(_md(d.text()) for d in sig[:6]) if sig else
                            " (every number it reads is within seed noise of ns-2's)"))
        lines.append("")
    rows = point_differences(rep)
    lines += ["### Every number apart beyond seed noise", "",
              "Each number a claim or a published value reads, at each point ns-2 runs, set "
              "beside ns-2's over the same seeds (Welch's t-test at 95 %; means within 0.1 % "
              "of each other count as equal). "
              f"{sum(1 for d in rows if d.significant)} of {len(rows)} differ beyond seed noise.",
              ""]
    sig = [d for d in rows if d.significant]
    if sig:
        lines += ["| experiment | point | metric | afsim | ns-2 | afsim − ns-2 | t |",
                  "|---|---|---|---|---|---|---|"]
        for d in sig:
            rel = (d.afsim.mean - d.ns2.mean) / abs(d.ns2.mean) if d.ns2.mean else math.nan
            lines.append(f"| {d.experiment} | {_md(', '.join(f'{k} = {x}' for k, x in d.labels.items()))} "
                         f"| {d.metric} | {d.afsim.mean:.4g} | {d.ns2.mean:.4g} | "
                         f"{100 * rel:+.1f} % | {d.t:+.1f} |")
        lines.append("")
    lines += _frame_tables(rep)
    return lines


def _frame_tables(rep: Reproduction) -> list[str]:
    """Experiments that no published value or claim reads (a frame run only beside ns-2): every
    metric at every point, afsim beside ns-2."""
    col = rep.ns2
    assert col is not None
    v: Verdicts = rep.verdicts
    read = {c.value.experiment for c in v.afsim}
    for cv in v.claims.claims:
        read |= {e for (e, _l, _m) in cv.afsim.reads}
    lines: list[str] = []
    for eid, rows in col.aggregates.by_experiment.items():
        if eid in read:
            continue
        lines += [f"### {eid}: afsim beside ns-2 at every point", "",
                  "No published value or claim reads this experiment: it is run for the "
                  "comparison itself (mean over the seeds; t: Welch's, where both have two or "
                  "more).", "",
                  "| point | metric | afsim | ns-2 | afsim − ns-2 | t |", "|---|---|---|---|---|---|"]
        for p, stats in rows:
            label = _md(", ".join(f"{k} = {x}" for k, x in p.labels.items()))
            for metric in sorted(stats):
                if metric.endswith((".events", ".trials")):
                    continue
                a = rep.aggregates.stat(eid, p.labels, metric)
                b = stats[metric]
                if a is None or not (math.isfinite(a.mean) and math.isfinite(b.mean)):
                    continue
                d = difference(eid, p.labels, metric, a, b)
                rel = (a.mean - b.mean) / abs(b.mean) if b.mean else math.nan
                t = f"{d.t:+.1f}" if d is not None and abs(d.t) < 1e3 else (
                    "(no seed noise)" if d is not None else "–")
                lines.append(f"| {label} | {metric} | {a.mean:.4g} | {b.mean:.4g} | "
                             + (f"{100 * rel:+.1f} %" if math.isfinite(rel) else "–")
                             + f" | {t} |")
        lines.append("")
    return lines


def _holds(h: bool | None) -> str:
    return "holds" if h else "fails" if h is False else "not evaluated"


def point_differences(rep: Reproduction) -> list[Difference]:
    """afsim against ns-2 on every (experiment, point, metric) that a claim or a published value
    reads and both simulators have."""
    col = rep.ns2
    if col is None:
        return []
    v: Verdicts = rep.verdicts
    wanted: set[str] = {c.value.metric for c in v.afsim}
    for cv in v.claims.claims:
        wanted |= {m for (_e, _l, m) in cv.afsim.reads}
    out = []
    for eid, rows in col.aggregates.by_experiment.items():
        for p, stats in rows:
            for metric in sorted(wanted & set(stats)):
                a = rep.aggregates.stat(eid, p.labels, metric)
                if a is None:
                    continue
                d = difference(eid, p.labels, metric, a, stats[metric])
                if d is not None:
                    out.append(d)
    return out


def claim_lines(cv: ClaimVerdict, measured: Any) -> list[str]:
    """The ns-2 lines of one claim in the report's "Claims in detail"."""
    if cv.ns2 is None:
        return []
    lines = [f"- ns-2: {_holds(cv.ns2.holds)} — {_md(measured(cv.ns2))}",
             f"- beside ns-2: {cv.case}"]
    sig = [d for d in cv.differences if d.significant]
    if sig:
        lines[-1] += "; apart beyond seed noise: " + "; ".join(_md(d.text()) for d in sig[:8])
    return lines


def to_json(rep: Reproduction) -> dict[str, Any] | None:
    col = rep.ns2
    if col is None:
        return None
    return {
        "description": col.twin.description, "script": col.twin.script, "source": col.source,
        "planned": col.planned, "ran": col.ran, "from_store": col.stored,
        "from_committed": col.committed, "missing": col.missing, "failed": col.failed,
        "engine_seconds": col.engine_seconds, "process_seconds": col.process_seconds,
        "wall_seconds": col.wall_seconds, "messages": col.messages,
        "not_in_ns2": [{"experiment": e, "point": pi, "reason": r}
                       for (e, pi), r in sorted(col.refused.items())],
        "summary": summary_counts(rep),
        "differences": [d.as_dict() for d in point_differences(rep)],
        "experiments": [
            {"id": eid, "points": [{"labels": dict(p.labels),
                                    "metrics": {k: s.as_dict() for k, s in stats.items()}}
                                   for p, stats in rows]}
            for eid, rows in col.aggregates.by_experiment.items()],
    }


def write_runs_csv(rep: Reproduction, path: Path) -> Path | None:
    """Every ns-2 run used: its arguments, where it came from and its raw counters."""
    col = rep.ns2
    if col is None or not col.records:
        return None
    with path.open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["key", "script", "args", "wall_s", "output"])
        for key in sorted(col.records):
            rec = col.records[key]
            args = rec.get("args", [])
            out = {k: x for k, x in rec.items() if k not in ("args", "wall_s", "process_s")}
            w.writerow([key, col.twin.script, " ".join(args), _num(float(rec.get("wall_s", math.nan))),
                        _compact(out)])
    return path


def _compact(x: Any) -> str:
    import json

    return json.dumps(x, sort_keys=True, separators=(",", ":"))


def stat_at(rep: Reproduction, experiment: str, labels: Mapping[str, Label], metric: str) -> Stat | None:
    """ns-2's number at a point of the paper's own experiment (figures), or None."""
    if rep.ns2 is None:
        return None
    return rep.ns2.aggregates.stat(experiment.split("@")[0].split("#")[0], labels, metric)


def mark_points(ax: Any, xs: Sequence[float], stats: Sequence[Stat | None], *,
                colour: str | None = None, label: str | None = "ns-2") -> None:
    """ns-2's means (with their 95 % intervals) as black crosses on a figure."""
    pts = [(x, s) for x, s in zip(xs, stats, strict=True) if s is not None and s.n > 0
           and math.isfinite(s.mean)]
    if not pts:
        return
    ax.errorbar([x for x, _ in pts], [s.mean for _, s in pts],
                yerr=[s.ci95 if math.isfinite(s.ci95) else 0.0 for _, s in pts],
                fmt="x", color=colour or "black", capsize=2, markersize=7, linestyle="none",
                label=label, zorder=5)
