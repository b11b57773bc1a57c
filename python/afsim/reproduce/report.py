"""Writing a judged reproduction: the Markdown report, JSON, a CSV of every run, the figures,
and the terminal summary.

Read this first. The report opens with what ran (the runs simulated now and those read back
from the store, this invocation's wall time and the engine time of all runs) and the headline —
afsim's score and the null model's side by side, the claims under the default, the null model
and each variant (beside the default's score on exactly the variant's values and claims), and
how the claims fare over the robustness design — then lists every statement found in the paper
with its class, every tolerance with its source, the variants and why they are not the default,
the unstated parameters with their ranges and the design, and every published value beside each
reading's.
Nothing here judges; ``scoring`` and ``claims`` did.
"""

from __future__ import annotations

import csv
import json
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from afsim.reproduce import report_live, report_ns2
from afsim.reproduce.claims import ClaimResult, ClaimVerdict, Kind
from afsim.reproduce.core import Experiment, Figure, Label, Reproduction, Stat
from afsim.reproduce.fmt import fmt_number, fmt_stat, fmt_value, verdict_mark
from afsim.reproduce.scoring import Score, Verdicts
from afsim.stats import json_number as _num

if TYPE_CHECKING:
    from rich.console import Console


# ---------------------------------------------------------------------------------------------
# Numbers as text


def _md(text: Any) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _short(v: Any) -> str:
    if isinstance(v, bool):
        return str(v)
    if isinstance(v, int | float):
        return fmt_number(v)
    if isinstance(v, Mapping):
        return "{" + ", ".join(f"{k}: {_short(x)}" for k, x in v.items()) + "}"
    if isinstance(v, list | tuple):
        return "[" + ", ".join(_short(x) for x in v) + "]"
    return str(v)


def _measured_text(r: ClaimResult) -> str:
    parts = [f"{k}: {_short(v)}" for k, v in r.measured.items()]
    text = "; ".join(parts)
    return f"{r.detail} {text}".strip() if r.detail else text


def holds_text(r: ClaimResult | None) -> str:
    if r is None or r.holds is None:
        return "not evaluated"
    return "holds" if r.holds else "does not hold"


# ---------------------------------------------------------------------------------------------
# Headline


def headline(rep: Reproduction) -> list[str]:
    """The report's first lines: the scores that matter, side by side."""
    v: Verdicts = rep.verdicts
    a, n = v.score("afsim"), v.score("null")
    lines = [
        f"- **Published values:** afsim matches **{a.match} of {a.resolved}** resolved values "
        f"within the paper's precision ({a.unresolved} unresolved: too few losses to tell); "
        f"the null model matches **{n.match} of {n.resolved}**"
        + (f" ({n.unresolved} unresolved)" if n.unresolved else "") + ".",
    ]
    nd = [t.table for t in v.tables if not t.discriminating]
    if nd:
        lines.append(f"- Not discriminating (the null model matches at least as many values as "
                     f"afsim): {', '.join(nd)}.")
    h, e = v.claims.holds("afsim")
    hn, en = v.claims.holds("null")
    both = sum(1 for c in v.claims.claims if c.afsim.holds and c.null.holds)
    lines.append(f"- **Claims:** {h} of {e} checkable claims hold under afsim's defaults; the "
                 f"null model satisfies {hn} of {en}, and {both} of afsim's {h} are claims the "
                 f"null model satisfies too (not discriminating).")
    lines += report_ns2.headline_lines(rep)
    lines += report_live.headline_lines(rep)
    for var in rep.paper.variants:
        if var.id in v.variants:
            lines.append(f"- Variant *{var.label}*: {variant_score_text(v, var.id)}.")
    if rep.design:
        rv = [c.robustness for c in v.claims.claims if c.robustness is not None
              and c.robustness.evaluated]
        thr = sum(1 for r in rv if r.summary == "holds throughout")
        fail = sum(1 for r in rv if r.summary == "fails throughout")
        lines.append(f"- **Robustness** over {len(rep.design)} points of the unstated parameters' "
                     f"ranges: of {len(rv)} claims evaluated there, {thr} hold throughout, "
                     f"{len(rv) - thr - fail} hold only in part, {fail} fail throughout.")
    c = v.claims.counts
    lines.append(f"- **Statements found:** {sum(c.values())}: {c.get('claim', 0)} claims, "
                 f"{c.get('identity', 0)} identities (true by construction, not counted), "
                 f"{c.get('restatement', 0)} restatements (counted once), "
                 f"{c.get('not checkable', 0)} not checkable.")
    return lines


def variant_score_text(v: Verdicts, vid: str) -> str:
    """A variant's score beside the default's on exactly the same published values and claims
    (a variant runs only some experiments: the default's whole score is not comparable)."""
    x = variant_scores(v, vid)
    s, d = x["values"], x["default_on_same_values"]
    c, dc = x["claims"], x["default_on_same_claims"]
    return (f"{s['match']} of {s['resolved']} resolved values (the default on the same values: "
            f"{d['match']} of {d['resolved']}); {c['hold']} of {c['evaluated']} claims it can "
            f"evaluate hold (the default on the same claims: {dc['hold']} of {dc['evaluated']})")


def variant_scores(v: Verdicts, vid: str) -> dict[str, Any]:
    """A variant's score and the default's on the same values and claims, as numbers
    (results.json; ``variant_score_text`` words them)."""
    s, d = v.score(vid), v.score_on("afsim", vid)
    hv, ev = v.claims.holds(vid)
    hd, ed = v.claims.holds_on("afsim", vid)
    return {"values": {**s.as_dict(), "resolved": s.resolved},
            "default_on_same_values": {**d.as_dict(), "resolved": d.resolved},
            "claims": {"hold": hv, "evaluated": ev},
            "default_on_same_claims": {"hold": hd, "evaluated": ed}}


def runs_text(rep: Reproduction) -> str:
    """How many runs, how many of them this invocation simulated and how many it read back from
    the store, this invocation's wall time and the engine time of all the runs."""
    n, cached = len(rep.outcomes), rep.runs_from_store
    if cached == 0:
        return (f"{n} simulations, all simulated by this invocation on {rep.jobs} worker "
                f"process(es) in {rep.wall_seconds:,.1f} s of wall time; they took "
                f"{rep.engine_seconds:,.1f} s of engine time (each run's own wall time, summed)")
    return (f"{n} simulations: {rep.runs_simulated} simulated by this invocation, {cached} read "
            f"back from the run store (finished by an earlier invocation); this invocation took "
            f"{rep.wall_seconds:,.1f} s of wall time on {rep.jobs} worker process(es), and its "
            f"{rep.runs_simulated} runs {rep.engine_seconds_simulated:,.1f} s of engine time; all "
            f"{n} runs took {rep.engine_seconds:,.1f} s of engine time (each run's own wall time, "
            "summed)")


# ---------------------------------------------------------------------------------------------
# Markdown


def render_markdown(rep: Reproduction, figures: Mapping[str, Sequence[Path]] | None = None,
                    out_dir: Path | None = None) -> str:
    m = rep.mode
    v: Verdicts = rep.verdicts
    lines = [f"# Reproduction: {rep.paper.title}", "", rep.paper.citation, ""]
    if not m.is_paper_budget:
        lines += [f"> **{m.banner()}**", ""]
    lines += [
        f"- mode: **{m.name}** — {m.budget:,} {m._unit()} per run"
        + (f" (the paper: {m.paper_budget:,})" if m.paper_budget else "")
        + f", {m.replications} replication(s) per point of the paper's experiments (seeds "
        f"{', '.join(map(str, m.seeds))})"
        + (f", {m.variant_replications} per variant point" if m.variant_replications else "")
        + (f", {m.robust_replications} per robustness point" if rep.design else ""),
        f"- runs: {runs_text(rep)}; afsim {rep.afsim_version}",
        f"- simulated: {sum(o.end_time_s for o in rep.outcomes):,.0f} s in total; "
        f"{sum(o.data_packets_generated for o in rep.outcomes):,} data packets and "
        f"{sum(o.packets_generated for o in rep.outcomes):,} packets in all generated",
        "",
        "## Headline", "", *headline(rep), "",
    ]
    lines += _statements_section(rep)
    lines += ["## Tolerances", "",
              "Declared in the paper's data file before any run, each with where its size comes "
              "from. A probability is compared only where the runs can resolve it (at least "
              "10 losses counted, or expected from the published value): elsewhere it is "
              "*unresolved*, never a pass. *(imprecise)* marks a value whose own 95 % interval is "
              "wider than the tolerance.", "",
              "| kind | tolerance | source |", "|---|---|---|"]
    for kind, t in v.tolerances.items():
        lines.append(f"| {kind} | {t.text()} | {_md(t.source)} |")
    lines += ["", "## The null model", "", rep.paper.null_description, ""]
    lines += report_ns2.section(rep)
    if rep.paper.variants:
        lines += ["## Variants", "",
                  "Readings of what the paper leaves open, other than the default. Each runs the "
                  "experiments it names and is scored against the same published values; none "
                  "replaces the default. Its score stands beside the default's on exactly the "
                  "same published values (each reading resolves a value at its own resolution) "
                  "and the same claims.", "",
                  "| variant | sets | runs | score (the default on the same values and claims) "
                  "| why it is not the default |", "|---|---|---|---|---|"]
        for var in rep.paper.variants:
            sets = ", ".join(f"`{k} = {x}`" for k, x in var.overrides.items())
            runs = ", ".join(var.experiments) + (
                f" (its claims read {', '.join(var.unchanged)} from the default runs, which it "
                "does not change)" if var.unchanged else "")
            score = variant_score_text(v, var.id) if var.id in v.variants else "not run"
            lines.append(f"| {_md(var.label)} (`{var.id}`) | {sets} | {runs} | {_md(score)} | "
                         f"{_md(var.why)} |")
        lines.append("")
    if rep.paper.unstated:
        lines += _unstated_section(rep)
    lines += _tables_section(rep)
    lines += report_live.section(rep)
    if figures:
        lines += ["## Figures", ""]
        for fid, paths in figures.items():
            png = [p for p in paths if p.suffix == ".png"]
            if png:
                rel_path = png[0].relative_to(out_dir) if out_dir else png[0]
                lines += [f"![{fid}]({rel_path.as_posix()})", ""]
    return "\n".join(lines) + "\n"


def _statements_section(rep: Reproduction) -> list[str]:
    v: Verdicts = rep.verdicts
    by_id: dict[str, ClaimVerdict] = {c.statement.id: c for c in v.claims.claims}
    variant_ids = [x.id for x in rep.paper.variants if x.id in v.variants]
    c = v.claims.counts
    lines = ["## Statements", "",
             f"Every sentence of the paper that states a checkable quantity, ordering, threshold "
             f"or trend: {sum(c.values())} found — {c.get('claim', 0)} claims, "
             f"{c.get('identity', 0)} identities (true by construction: not counted), "
             f"{c.get('restatement', 0)} restatements (counted once, under the claim they "
             f"restate), {c.get('not checkable', 0)} not checkable. The quotes are verbatim; "
             "an ellipsis marks text the page layout interrupts. A claim the null model "
             "satisfies too is *not discriminating*: agreeing there says nothing about the "
             "simulation. The numbers each verdict rests on follow the table.", ""]
    head = ["claim", "where", "afsim", "null model", *(f"{x}" for x in variant_ids)]
    if rep.ns2 is not None:
        head += ["ns-2", "beside ns-2"]
    if rep.design:
        head.append(f"robustness ({len(rep.design)} points)")
    lines += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for cv in v.claims.claims:
        afsim = f"**{holds_text(cv.afsim)}**"
        if cv.afsim.holds and not cv.discriminating:
            afsim += " (not discriminating)"
        row = [f"[{cv.statement.id}](#{cv.statement.id})", _md(cv.statement.where), afsim,
               holds_text(cv.null), *(holds_text(cv.variants.get(x)) for x in variant_ids)]
        if rep.ns2 is not None:
            row += [holds_text(cv.ns2), cv.case or "–"]
        if rep.design:
            r = cv.robustness
            row.append("–" if r is None else _md(r.text()))
        lines.append("| " + " | ".join(row) + " |")
    lines += ["", "### Claims in detail", ""]
    for cv in v.claims.claims:
        st = cv.statement
        restated = [x.id for x in rep.paper.statements if x.restates == st.id]
        lines += [f'<a id="{st.id}"></a>**{st.id}** ({_md(st.where)}): “{_md(st.quote)}”', "",
                  f"- test: {_md(st.test)}",
                  f"- afsim: **{holds_text(cv.afsim)}** — {_md(_measured_text(cv.afsim))}",
                  f"- null model: {holds_text(cv.null)} — {_md(_measured_text(cv.null))}"]
        for x in variant_ids:
            r = cv.variants.get(x)
            if r is not None:
                lines.append(f"- variant {x}: {holds_text(r)} — {_md(_measured_text(r))}")
        lines += report_ns2.claim_lines(cv, _measured_text)
        if cv.robustness is not None and cv.robustness.evaluated:
            r = cv.robustness
            marks = " ".join("✓" if h else "✗" if h is False else "–" for h in r.per_point)
            line = f"- robustness: {_md(r.text())}; per design point: {marks}"
            default = next((u.default for u in rep.paper.unstated if u.name == r.parameter), None)
            if default is not None and cv.afsim.holds is not None:
                line += (f"; with every unstated parameter at its default ({r.parameter} = "
                         f"{default}) it {holds_text(cv.afsim)}")
            lines.append(line)
        if restated:
            lines.append(f"- restated by: {', '.join(restated)}")
        lines.append("")
    lines += ["### The other statements", "",
              "| id | where | statement | class | why |", "|---|---|---|---|---|"]
    for s in rep.paper.statements:
        if s.id in by_id:
            continue
        klass = s.kind.value + (f" of {s.restates}" if s.restates else "")
        lines.append(f"| {s.id} | {_md(s.where)} | {_md(f'“{s.quote}”')} | {klass} | {_md(s.test)} |")
    lines.append("")
    return lines


def _unstated_section(rep: Reproduction) -> list[str]:
    lines = ["## What the paper leaves open", "",
             "Each unstated parameter with the default the scenario uses (and why) and the range "
             "the claims are tested across.", "",
             "| parameter | what | default | range | source of default and range |",
             "|---|---|---|---|---|"]
    for u in rep.paper.unstated:
        lines.append(f"| `{u.name}` | {_md(u.what)} | {u.default} | {u.range_text()} | {_md(u.source)} |")
    lines.append("")
    if rep.design:
        names = [u.name for u in rep.paper.unstated]
        lines += [f"The robustness design: {len(rep.design)} points (Latin hypercube over the "
                  f"intervals, seed {rep.paper.design_seed}; choices dealt out evenly), each "
                  f"running {', '.join(e.id for e in rep.paper.experiments if e.robust)} "
                  f"with {rep.mode.robust_replications} replication(s).", "",
                  "| point | " + " | ".join(names) + " |", "|---|" + "---|" * len(names)]
        for k, pt in enumerate(rep.design):
            lines.append(f"| #{k} | " + " | ".join(pt.get(n, "–") for n in names) + " |")
        lines.append("")
    return lines


def _tables_section(rep: Reproduction) -> list[str]:
    v: Verdicts = rep.verdicts
    variant_ids = list(v.variants)
    lines = ["## Published values", ""]
    notes_by_exp = {e.id: e.notes for e in rep.experiments}
    null_by = {id(c.value): c for c in v.null}
    ns2_by = {id(c.value): c for c in v.ns2} if v.ns2 is not None else None
    var_by = {vid: {(c.value.table, c.value.row, c.value.column): c for c in comps}
              for vid, comps in v.variants.items()}
    for t in v.tables:
        tag = f" — {rep.mode.name.upper()} MODE" if not rep.mode.is_paper_budget else ""
        lines += [f"### {t.table}{tag}", "",
                  f"afsim: {t.afsim.text()}; null model: {t.null.text()}"
                  + (f"; ns-2: {t.ns2.text()}" if t.ns2 is not None else "")
                  + "".join(f"; {vid}: {s.text()}" for vid, s in t.variants.items())
                  + ("" if t.discriminating else " — **not discriminating**"), ""]
        comps = [c for c in v.afsim if c.value.table == t.table]
        notes = [n for exp_id in dict.fromkeys(c.value.experiment for c in comps)
                 for n in notes_by_exp.get(exp_id, ())]
        for note in dict.fromkeys(notes):  # experiments of one table may share notes
            lines.append(f"- note: {_md(note)}")
        head = ["row", "column", "paper", "afsim (mean ± 95 % CI)", "verdict", "null model", "verdict"]
        if ns2_by is not None:
            head += ["ns-2 (mean ± 95 % CI)", "verdict"]
        for vid in variant_ids:
            head += [vid, "verdict"]
        lines += ["", "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        for c in comps:
            k = c.value.kind
            nc = null_by.get(id(c.value))
            row = [_md(c.value.row), _md(c.value.column), fmt_value(c.value.value, k),
                   fmt_stat(c.stat, k), verdict_mark(c),
                   fmt_value(nc.stat.mean if nc and nc.stat else None, k), verdict_mark(nc)]
            if ns2_by is not None:
                xc = ns2_by.get(id(c.value))
                why = report_ns2.not_in_ns2(rep, c)
                row += (["not in ns-2", "–"] if why else
                        [fmt_stat(xc.stat if xc else None, k), verdict_mark(xc)])
            for vid in variant_ids:
                vc = var_by[vid].get((c.value.table, c.value.row, c.value.column))
                row += [fmt_stat(vc.stat if vc else None, k), verdict_mark(vc)]
            lines.append("| " + " | ".join(row) + " |")
        lines.append("")
    return lines


# ---------------------------------------------------------------------------------------------
# JSON and CSV


def to_json(rep: Reproduction) -> dict[str, Any]:
    v: Verdicts = rep.verdicts
    null_by = {id(c.value): c for c in v.null}
    ns2_by = {id(c.value): c for c in v.ns2} if v.ns2 is not None else {}
    var_by = {vid: {id(c.value): c for c in comps} for vid, comps in v.variants.items()}
    values = []
    for c in v.afsim:
        x = c.value
        values.append({
            "table": x.table, "row": x.row, "column": x.column, "paper": x.value,
            "experiment": x.experiment, "point": dict(x.point), "metric": x.metric, "kind": x.kind,
            "afsim": c.as_dict(),
            "null": null_by[id(x)].as_dict() if id(x) in null_by else None,
            **({"ns2": ns2_by[id(x)].as_dict() if id(x) in ns2_by else None,
                "not_in_ns2": report_ns2.not_in_ns2(rep, c)} if v.ns2 is not None else {}),
            "variants": {vid: m[id(x)].as_dict() for vid, m in var_by.items() if id(x) in m},
        })
    claims_by = {c.statement.id: c for c in v.claims.claims}

    def result(r: ClaimResult | None) -> dict[str, Any] | None:
        if r is None:
            return None
        return {"holds": r.holds, "measured": _jsonable(r.measured), "detail": r.detail}

    statements = []
    for s in rep.paper.statements:
        d: dict[str, Any] = {"id": s.id, "where": s.where, "quote": s.quote, "class": s.kind.value,
                             "test": s.test, "restates": s.restates}
        cv = claims_by.get(s.id)
        if cv is not None:
            d |= {"afsim": result(cv.afsim), "null": result(cv.null),
                  "discriminating": cv.discriminating,
                  "variants": {k: result(r) for k, r in cv.variants.items()},
                  "robustness": cv.robustness.as_dict() if cv.robustness else None}
            if rep.ns2 is not None:
                d |= {"ns2": result(cv.ns2), "ns2_case": cv.case,
                      "ns2_differences": [x.as_dict() for x in cv.differences]}
        statements.append(d)
    m = rep.mode
    return {
        "paper": {"id": rep.paper.id, "title": rep.paper.title, "citation": rep.paper.citation},
        "mode": m.name, "mode_note": m.banner(), "paper_budget": m.is_paper_budget,
        "budget": m.budget, "budget_param": m.budget_param, "paper_packets": m.paper_budget,
        "replications": m.replications, "seeds": m.seeds,
        "variant_replications": m.variant_replications,
        "robust_replications": m.robust_replications,
        "jobs": rep.jobs, "afsim_version": rep.afsim_version,
        # this invocation's wall time; the engine time of every run, wherever it ran
        "wall_seconds": rep.wall_seconds, "runs_total": len(rep.outcomes),
        "runs_simulated": rep.runs_simulated, "runs_from_store": rep.runs_from_store,
        "engine_seconds": rep.engine_seconds,
        "engine_seconds_simulated": rep.engine_seconds_simulated,
        "headline": headline(rep),
        "scores": {"afsim": v.score("afsim").as_dict(), "null": v.score("null").as_dict(),
                   **({"ns2": v.score("ns2").as_dict()} if v.ns2 is not None else {}),
                   **{vid: v.score(vid).as_dict() for vid in v.variants}},
        "claims_hold": {r: dict(zip(("hold", "evaluated"), v.claims.holds(r), strict=True))
                        for r in ("afsim", "null", *(["ns2"] if v.ns2 is not None else []),
                                  *v.variants)},
        "ns2": report_ns2.to_json(rep),
        "live": report_live.to_json(rep),
        # each variant beside the default on exactly the same published values and claims
        "variants_against_default": {vid: variant_scores(v, vid) for vid in v.variants},
        "statement_counts": v.claims.counts,
        "statements": statements,
        "tolerances": {k: t.as_dict() for k, t in v.tolerances.items()},
        "null_model": rep.paper.null_description,
        "variants": [{"id": x.id, "label": x.label, "overrides": dict(x.overrides), "why": x.why,
                      "experiments": list(x.experiments),
                      **({"unchanged": list(x.unchanged)} if x.unchanged else {})}
                     for x in rep.paper.variants],
        "unstated": [u.as_dict() for u in rep.paper.unstated],
        "design": rep.design,
        "tables": [{"table": t.table, "afsim": t.afsim.as_dict(), "null": t.null.as_dict(),
                    **({"ns2": t.ns2.as_dict()} if t.ns2 is not None else {}),
                    "variants": {k: s.as_dict() for k, s in t.variants.items()},
                    "discriminating": t.discriminating} for t in v.tables],
        "values": values,
        "experiments": [
            {"id": e.id, "title": e.title, "scenario": scenario_name(e.scenario), "notes": list(e.notes),
             "base": e.base, "reading": e.reading,
             "points": [{"labels": dict(p.labels), "overrides": dict(p.overrides),
                         "metrics": {k: s.as_dict() for k, s in stats.items() if e.shows(k)}}
                        for p, stats in rep.aggregates.by_experiment[e.id]]}
            for e in rep.experiments
        ],
        "runs": _run_rows(rep),
    }


def _jsonable(x: Any) -> Any:
    if isinstance(x, float):
        return _num(x)
    if isinstance(x, Mapping):
        return {str(k): _jsonable(v) for k, v in x.items()}
    if isinstance(x, list | tuple):
        return [_jsonable(v) for v in x]
    return x


def _run_rows(rep: Reproduction) -> list[dict[str, Any]]:
    """Every run: what it was, who used it, and the metrics those experiments show."""
    used: dict[int, set[tuple[str, int]]] = {}
    for (eid, pi, _s, ti) in rep.runs:
        used.setdefault(ti, set()).add((eid, pi))
    exps = {e.id: e for e in rep.experiments}
    return [_run_row(rep, i, used.get(i, set()), exps) for i in range(len(rep.tasks))]


def scenario_name(path: str | Path) -> str:
    """A built-in scenario by its built-in name (``giacomazzi/scenario1``), so that the files a
    reproduction writes do not carry the absolute path of the machine that made them; any other
    file by its path as given."""
    from afsim import _scenarios_dir

    p = Path(path)
    try:
        return p.resolve().relative_to(_scenarios_dir().resolve()).with_suffix("").as_posix()
    except ValueError:
        return str(path)


def _run_row(rep: Reproduction, i: int, used: set[tuple[str, int]],
             exps: Mapping[str, Experiment]) -> dict[str, Any]:
    t, o = rep.tasks[i], rep.outcomes[i]
    used_by = sorted({f"{eid}[{pi}]" for (eid, pi) in used})
    users = [exps[eid] for eid in {eid for (eid, _p) in used}]
    return {
        "scenario": scenario_name(t.scenario), "overrides": dict(t.overrides), "seed": t.seed,
        "used_by": used_by, "end_time_s": o.end_time_s, "stop_reason": o.stop_reason,
        "wall_s": o.wall_s, "from_store": o.cached, "events": o.events,
        "packet_hops": o.packet_hops,
        "packets_generated": o.packets_generated,
        "data_packets_generated": o.data_packets_generated,
        "metrics": {k: _num(v) for k, v in o.metrics.items() if any(e.shows(k) for e in users)},
    }


# ---------------------------------------------------------------------------------------------
# Figures


def render_figures(rep: Reproduction, out_dir: Path) -> dict[str, list[Path]]:
    """Each figure of the paper whose experiment ran, as PNG and SVG in ``out_dir``: afsim's
    means with their 95 % intervals as lines, the paper's values as open markers."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    v: Verdicts = rep.verdicts
    written: dict[str, list[Path]] = {}
    for fig_spec in rep.paper.figures:
        rows = rep.aggregates.by_experiment.get(fig_spec.experiment)
        if not rows:
            continue
        fig, ax = plt.subplots(figsize=(7.0, 4.6))
        if fig_spec.draw is not None:
            # a paper's own drawing (bars over categories): titled and saved below
            fig_spec.draw(rep, fig_spec, ax)
            written[fig_spec.id] = _finish_figure(rep, fig_spec, fig, ax, out_dir)
            continue
        base = fig_spec.experiment.split("@")[0].split("#")[0]
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
            labels_of = {float(p.labels[fig_spec.x]): p.labels for p, _ in rows
                         if p.labels.get(fig_spec.series) == name}
            report_ns2.mark_points(
                ax, xs, [report_ns2.stat_at(rep, fig_spec.experiment, labels_of[x], fig_spec.metric)
                         for x in xs], colour=colour, label=f"ns-2, {sname} = {name}")
            paper_pts = sorted(
                (float(x.point[fig_spec.x]), x.value) for x in v.values
                if x.experiment == base and x.metric == fig_spec.metric
                and x.point.get(fig_spec.series) == name)
            if paper_pts:
                ax.plot([x for x, _ in paper_pts], [y for _, y in paper_pts], linestyle="--",
                        marker="s", markerfacecolor="none", color=colour, alpha=0.8,
                        label=f"paper, {sname} = {name}")
        if fig_spec.reference:
            y, text = fig_spec.reference
            ax.axhline(y, color="grey", linewidth=0.8, linestyle=":")
            ax.annotate(text, (ax.get_xlim()[0], y), textcoords="offset points", xytext=(4, 3),
                        fontsize=8, color="grey")
        if xs_all:
            ax.set_xticks(sorted(xs_all))
        ax.set_xlabel(fig_spec.xlabel)
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=7, ncol=2)
        written[fig_spec.id] = _finish_figure(rep, fig_spec, fig, ax, out_dir)
    return written


def _finish_figure(rep: Reproduction, fig_spec: Figure, fig: Any, ax: Any, out_dir: Path) -> list[Path]:
    """Titles a figure (saying a reduced mode), labels its y axis, saves it as PNG and SVG."""
    import matplotlib.pyplot as plt

    title = fig_spec.title
    if not rep.mode.is_paper_budget:
        title += f"\n{rep.mode.name.upper()} MODE: {rep.mode.reduction()}"
    ax.set_title(title, fontsize=10)
    ax.set_ylabel(fig_spec.ylabel)
    fig.tight_layout()
    paths = []
    for ext in ("png", "svg"):
        path = out_dir / f"{fig_spec.id}.{ext}"
        fig.savefig(path, dpi=150 if ext == "png" else None)
        paths.append(path)
    plt.close(fig)
    return paths


def write_outputs(rep: Reproduction, out_dir: str | Path) -> list[Path]:
    """Writes report.md, results.json, runs.csv and the figures (PNG and SVG: the paper's
    ``figures``, then its ``extra_figures`` if it has any) into ``out_dir`` (created if
    needed). Returns the paths written."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    figures = render_figures(rep, out)
    if rep.paper.extra_figures is not None:
        figures |= rep.paper.extra_figures(rep, out)
    written = [p for ps in figures.values() for p in ps]
    doc = to_json(rep)
    json_path = out / "results.json"
    json_path.write_text(json.dumps(doc, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    report = out / "report.md"
    report.write_text(render_markdown(rep, figures, out), encoding="utf-8")
    runs_csv = out / "runs.csv"
    metric_names = sorted({k for row in doc["runs"] for k in row["metrics"]})
    with runs_csv.open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["experiments", "scenario", "seed", "overrides", "end_time_s", "stop_reason",
                    "wall_s", "events", "packet_hops", "packets_generated",
                    "data_packets_generated", *metric_names])
        for row in doc["runs"]:
            w.writerow([" ".join(row["used_by"]), row["scenario"], row["seed"],
                        " ".join(f"{k}={v}" for k, v in row["overrides"].items()),
                        row["end_time_s"], row["stop_reason"], row["wall_s"], row["events"],
                        row["packet_hops"], row["packets_generated"],
                        row["data_packets_generated"],
                        *(row["metrics"].get(k) for k in metric_names)])
    ns2_csv = report_ns2.write_runs_csv(rep, out / "ns2-runs.csv")
    return [report, json_path, runs_csv, *([ns2_csv] if ns2_csv else []), *written]


# ---------------------------------------------------------------------------------------------
# Terminal


def print_summary(rep: Reproduction, console: Console) -> None:
    """The headline, the claims and every compared table, as rich tables; each title carries
    the mode."""
    from rich.markup import escape
    from rich.table import Table

    m = rep.mode
    v: Verdicts = rep.verdicts
    tag = "" if m.is_paper_budget else f" — {m.name.upper()} MODE"
    console.print(f"[bold]{escape(rep.paper.title)}[/bold]")
    console.print(escape(m.banner()), style="bold yellow" if not m.is_paper_budget else None)
    for line in headline(rep):
        console.print(escape(line.replace("**", "")))
    claims = Table(title=f"Claims{tag}", title_justify="left", show_lines=True)
    for h in ("claim", "where", "afsim", "null", *(["ns-2", "beside ns-2"] if rep.ns2 else []),
              *v.variants, *(["robustness"] if rep.design else [])):
        claims.add_column(h)

    def colour(r: ClaimResult | None) -> str:
        t = holds_text(r)
        return {"holds": "[green]holds[/green]", "does not hold": "[red]does not hold[/red]"}.get(
            t, "[dim]not evaluated[/dim]")

    for cv in v.claims.claims:
        row = [escape(cv.statement.id), escape(cv.statement.where), colour(cv.afsim)
               + ("" if cv.discriminating or not cv.afsim.holds else " [dim](not discr.)[/dim]"),
               colour(cv.null),
               *([colour(cv.ns2), escape(cv.case or "–")] if rep.ns2 else []),
               *(colour(cv.variants.get(x)) for x in v.variants)]
        if rep.design:
            row.append(escape(cv.robustness.text() if cv.robustness else "–"))
        claims.add_row(*row)
    console.print(claims)
    for t in v.tables:
        table = Table(title=f"{t.table}{tag}: afsim {t.afsim.text()}, null {t.null.text()}"
                      + ("" if t.discriminating else " — not discriminating"), title_justify="left")
        for h, just in (("row", "left"), ("column", "left"), ("paper", "right"),
                        ("afsim (mean ± 95% CI)", "right"), ("verdict", "center"),
                        ("null", "right"), *((("ns-2", "right"),) if v.ns2 is not None else ())):
            table.add_column(h, justify=just)  # type: ignore[arg-type]
        null_by = {id(c.value): c for c in v.null}
        ns2_by = {id(c.value): c for c in v.ns2} if v.ns2 is not None else None
        for c in v.afsim:
            if c.value.table != t.table:
                continue
            k = c.value.kind
            nc = null_by.get(id(c.value))
            table.add_row(escape(c.value.row), escape(c.value.column), fmt_value(c.value.value, k),
                          fmt_stat(c.stat, k), verdict_mark(c).replace("**", ""),
                          fmt_value(nc.stat.mean if nc and nc.stat else None, k),
                          *([("not in ns-2" if report_ns2.not_in_ns2(rep, c) else
                              fmt_stat(ns2_by[id(c.value)].stat if id(c.value) in ns2_by else None, k))]
                            if ns2_by is not None else []))
        console.print(table)
    console.print(f"[dim]{escape(terminal_runs_line(rep))}[/dim]")


def terminal_runs_line(rep: Reproduction) -> str:
    """The terminal summary's closing line: "374 runs (120 simulated now, 254 from the store) ·
    936.1 s wall · 5,210.3 s engine time in all · 2 worker(s)"."""
    n, cached = len(rep.outcomes), rep.runs_from_store
    runs = f"{n} runs" + (f" ({rep.runs_simulated} simulated now, {cached} from the store)"
                          if cached else "")
    return (f"{runs} · {rep.wall_seconds:,.1f} s wall · {rep.engine_seconds:,.1f} s engine time "
            f"in all · {rep.jobs} worker(s)")


__all__ = [
    "Kind",
    "Score",
    "fmt_number",
    "fmt_stat",
    "fmt_value",
    "headline",
    "print_summary",
    "render_figures",
    "render_markdown",
    "to_json",
    "write_outputs",
]
