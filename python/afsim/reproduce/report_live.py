"""The live column of a reproduction's report: its headline line, its section (what the live
runs are, where they came from, the machine's load while they ran, and every published value
beside afsim's, ns-2's where present, and the live runs' mean), and its JSON.

Read this first. ``report`` calls these where a reproduction has a live column
(``Reproduction.live``, from ``live.collect``); without one they add nothing. Live values are
judged with the paper's own tolerances (``scoring.compare``), as afsim's are; a value whose
point has no usable live run is "not run", never filled from elsewhere.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from afsim.reproduce.core import View
from afsim.reproduce.scoring import Comparison, Score, compare

if TYPE_CHECKING:
    from afsim.reproduce.core import Reproduction


def _md(text: Any) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def comparisons(rep: Reproduction) -> list[Comparison] | None:
    """Every published value beside the live runs' mean (None: no live column)."""
    if rep.live is None:
        return None
    v = rep.verdicts
    return compare(v.values, v.tolerances, View(rep.live.aggregates, "live"))


def _experiments(rep: Reproduction) -> set[str]:
    return set(rep.live.aggregates.by_experiment) if rep.live is not None else set()


def headline_lines(rep: Reproduction) -> list[str]:
    comps = comparisons(rep)
    if comps is None:
        return []
    s = Score.of([c for c in comps if c.verdict.value != "not run"])
    ran = {id(c.value) for c in comps if c.verdict.value != "not run"}
    same = Score.of([c for c in rep.verdicts.afsim if id(c.value) in ran
                     and c.verdict.value != "not run"])
    return [f"- **afsim live, real Linux {rep.live.spec.cc} through afsim's models** "
            f"({rep.live.summary()}): on the published values it ran, the live runs match "
            f"**{s.match} of {s.resolved}** and afsim **{same.match} of {same.resolved}** on "
            "the same values."]


def section(rep: Reproduction) -> list[str]:
    """The report's "afsim live" section: the published values, paper | afsim | (ns-2) | live."""
    from afsim.reproduce.fmt import fmt_stat, fmt_value, verdict_mark

    col = rep.live
    comps = comparisons(rep)
    if col is None or comps is None:
        return []
    loads = col.loads()
    lines = ["## afsim live: the paper's points on real Linux TCP", "", _md(col.spec.description),
             "",
             f"- runs: {col.summary()}; {col.spec.replications} per point, seeds 1–"
             f"{col.spec.replications} (the simulator's phases); source: `--live {col.source}`.",
             (f"- the machine's 1-minute load average before and after the runs used: "
              f"{min(loads):.2f}–{max(loads):.2f} (2 shared cores; every run's is in the "
              "committed data)." if loads else "- no live run was used.")]
    for m in col.messages:
        lines.append(f"- {_md(m)}")
    for f in col.failed[:20]:
        lines.append(f"- failed: {_md(f)}")
    warned = col.warned()
    lines.append(f"- runs whose live report warned (a source short of its rate, lost frames, "
                 f"late frames): {len(warned)}" + (":" if warned else "."))
    lines += [f"  - {_md(w)}" for w in warned[:20]]
    if col.spec.not_measured:
        lines.append("- not measured live (left out, never filled from elsewhere): "
                     + "; ".join(f"{k}: {_md(why)}" for k, why in col.spec.not_measured.items()))
    lines.append("")
    ns2_by = ({id(c.value): c for c in rep.verdicts.ns2} if rep.verdicts.ns2 is not None else None)
    afsim_by = {id(c.value): c for c in rep.verdicts.afsim}
    live_by = {id(c.value): c for c in comps}
    exps = _experiments(rep)
    for table in dict.fromkeys(c.value.table for c in comps):
        mine = [c for c in comps if c.value.table == table and c.value.experiment in exps]
        if not mine:
            continue
        s = Score.of([c for c in mine if c.verdict.value != "not run"])
        lines += [f"### {table}: live beside the paper and afsim", "",
                  f"live: {s.text()} (mean ± 95 % CI over the live runs; n: runs)", ""]
        head = ["row", "column", "paper", "afsim (mean ± 95 % CI)", "verdict"]
        if ns2_by is not None:
            head += ["ns-2", "verdict"]
        head += ["live (mean ± 95 % CI)", "n", "verdict"]
        lines += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        for c in mine:
            k = c.value.kind
            a = afsim_by.get(id(c.value))
            row = [_md(c.value.row), _md(c.value.column), fmt_value(c.value.value, k),
                   fmt_stat(a.stat if a else None, k), verdict_mark(a)]
            if ns2_by is not None:
                x = ns2_by.get(id(c.value))
                row += [fmt_stat(x.stat if x else None, k), verdict_mark(x)]
            lc = live_by[id(c.value)]
            row += [fmt_stat(lc.stat, k), str(lc.stat.n if lc.stat else 0), verdict_mark(lc)]
            lines.append("| " + " | ".join(row) + " |")
        lines.append("")
    return lines


def to_json(rep: Reproduction) -> dict[str, Any] | None:
    comps = comparisons(rep)
    if rep.live is None or comps is None:
        return None
    col = rep.live
    loads = col.loads()
    exps = _experiments(rep)
    return {
        "source": col.source, "cc": col.spec.cc, "replications": col.spec.replications,
        "cap_s": col.spec.cap_s, "description": col.spec.description,
        "planned": len(col.planned), "ran": col.ran, "stored": col.stored,
        "committed": col.committed, "missing": col.missing, "stale": col.stale,
        "failed": col.failed, "messages": col.messages, "warned": col.warned(),
        "load_average": [min(loads), max(loads)] if loads else None,
        "not_measured": dict(col.spec.not_measured),
        "score": Score.of([c for c in comps if c.verdict.value != "not run"]).as_dict(),
        "values": [{"table": c.value.table, "row": c.value.row, "column": c.value.column,
                    "paper": c.value.value, "live": c.as_dict()}
                   for c in comps if c.value.experiment in exps],
    }
