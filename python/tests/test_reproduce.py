"""The paper-reproduction machinery (afsim/reproduce/) on a tiny fake paper and on synthetic
results, and the Giacomazzi et al. reproduction (afsim/reproduce/giacomazzi/): its
statements, its null model, its claims on the paper's own numbers, and a smoke run."""

from __future__ import annotations

import dataclasses
import json
import math
import re
from pathlib import Path

import pytest
from conftest import afsim_cmd

import afsim
from afsim import reproduce
from afsim.reproduce import core, giacomazzi, robustness, scoring
from afsim.reproduce.claims import Checks, ClaimResult, Kind, Statement, gt
from afsim.reproduce.core import (
    Aggregates,
    Experiment,
    Figure,
    Mode,
    Paper,
    Point,
    Stat,
    Variant,
    View,
)
from afsim.reproduce.robustness import Unstated
from afsim.reproduce.scoring import PaperValue, Tolerance, Verdict

REPO = Path(__file__).resolve().parents[2]
GIACOMAZZI = REPO / "scenarios" / "giacomazzi"

# A bottleneck of 1 Mb/s fed by a jittered CBR source at `rate`: the seed moves the jitter, so
# replications differ a little; the budget is `max_data_packets`, as every reproduced
# scenario's, and `delay` is an "unstated" parameter of the fake paper.
FAKE_SCENARIO = """
[scenario]
name = "fake"
max_data_packets = "$max_data_packets"

[params]
rate = "500kbps"
max_data_packets = 1000
delay = "1ms"
limit = 5

[[node]]
name = "a"
[[node]]
name = "b"

[[link]]
between = ["a", "b"]
rate = "1Mbps"
delay = "$delay"
queue = { kind = "droptail", limit = "${limit}pkt" }

[[flow]]
name = "f"
from = "a"
to = "b"
kind = "cbr"
rate = "$rate"
packet_size = "500B"
jitter = true
"""


def fake_metrics(results) -> dict[str, float]:
    """Module level, so the worker processes can import it by name."""
    f = results.flows.iloc[0]
    sent, lost = int(f["packets_sent"]), int(f["packets_dropped"])
    return {
        "throughput_kbps": float(f["throughput_kbps"]),
        "loss": lost / sent, "loss.events": float(lost), "loss.trials": float(sent),
        "nan_metric": math.nan,
    }


def fake_null(experiment: Experiment, point: Point) -> dict[str, float]:
    """The fake paper's null model: every source gets its rate, capped by the link; no loss."""
    rate = float(point.overrides["rate"].removesuffix("kbps"))
    return {"throughput_kbps": min(rate, 1000.0), "loss": 0.0}


def _capped(view: View) -> ClaimResult:
    c = Checks(view)
    thr = c.mean("thr", "fake", {"rate": 2000}, "throughput_kbps")
    c.that(None if thr is None else thr <= 1000.0)
    return c.result()


def _loses_when_overloaded(view: View) -> ClaimResult:
    c = Checks(view)
    c.that(c.seen("loss 2000", "fake", {"rate": 2000}, "loss"))
    return c.result()


def _never(view: View) -> ClaimResult:
    c = Checks(view)
    c.that(gt(c.mean("thr", "fake", {"rate": 500}, "throughput_kbps"), 1e9))
    return c.result()


def _needs_absent(view: View) -> ClaimResult:
    c = Checks(view)
    c.mean("x", "absent", {}, "throughput_kbps")
    c.that(True)
    return c.result()


FAKE_STATEMENTS = (
    Statement("capped", "The link caps throughput.", "§1", Kind.CLAIM, "thr ≤ 1000", _capped),
    Statement("loses", "Overload loses packets.", "§1", Kind.CLAIM, "≥ 10 losses", _loses_when_overloaded),
    Statement("wrong", "A claim that does not hold.", "§2", Kind.CLAIM, "never", _never),
    Statement("absent", "A claim about an experiment that did not run.", "§2", Kind.CLAIM, "–", _needs_absent),
    Statement("again", "The link caps it, again.", "§3", Kind.RESTATEMENT, "–", restates="capped"),
    Statement("def", "Throughput is bits over time.", "§3", Kind.IDENTITY, "a definition"),
    Statement("vague", "Performance is acceptable.", "§3", Kind.NOT_CHECKABLE, "no threshold"),
)


def _fake_paper(tmp_path: Path, *, unstated: bool = True) -> Paper:
    scenario = tmp_path / "fake.toml"
    scenario.write_text(FAKE_SCENARIO, encoding="utf-8")
    data = tmp_path / "fake.json"
    values = [
        # under the 1 Mb/s link the source gets its rate
        {"table": "Table 1", "row": "rate = 500", "column": "thr", "value": 500.0,
         "experiment": "fake", "point": {"rate": 500}, "metric": "throughput_kbps", "kind": "throughput"},
        # a made-up published value far from what the link can carry
        {"table": "Table 1", "row": "rate = 2000", "column": "thr", "value": 1500.0,
         "experiment": "fake", "point": {"rate": 2000}, "metric": "throughput_kbps", "kind": "throughput"},
        # nothing is lost below the link rate: 0 against 0 is unresolved, never a pass
        {"table": "Table 1", "row": "rate = 500", "column": "loss", "value": 0.0,
         "experiment": "fake", "point": {"rate": 500}, "metric": "loss", "kind": "loss"},
        # half the packets are lost at twice the link rate
        {"table": "Table 1", "row": "rate = 2000", "column": "loss", "value": 0.5,
         "experiment": "fake", "point": {"rate": 2000}, "metric": "loss", "kind": "loss"},
        # an experiment that is not run: compared with nothing
        {"table": "Table 9", "row": "x", "column": "thr", "value": 1.0,
         "experiment": "absent", "point": {}, "metric": "throughput_kbps", "kind": "throughput"},
    ]
    data.write_text(json.dumps({
        "tolerances": {"throughput": {"relative": 0.05, "source": "the fake paper's §9"},
                       "loss": {"factor": 1.6, "source": "the fake paper's §9"}},
        "values": values,
    }), encoding="utf-8")
    exp = Experiment(
        "fake", "fake experiment", scenario,
        (Point({"rate": 500, "kind": "cbr"}, {"rate": "500kbps"}),
         Point({"rate": 2000, "kind": "cbr"}, {"rate": "2000kbps"})),
        fake_metrics, ("a note",), robust=True,
    )
    return Paper(
        id="fake", title="A fake paper", citation="Nobody, 2024", experiments=(exp,),
        statements=FAKE_STATEMENTS,
        figures=(Figure("fig1", "throughput", "fake", "throughput_kbps", x="rate", series="kind",
                        xlabel="rate", ylabel="kb/s"),),
        data=data, null_model=fake_null,
        null_description="every source gets its rate, capped by the link",
        variants=(Variant("deep", "a deeper queue", {"limit": "50"}, "the fake paper gives 5", ("fake",)),),
        unstated=(Unstated("delay", "the link's delay", "1ms", "not given", low=0.5, high=5.0, unit="ms"),)
        if unstated else (),
    )


FAKE_MODE = Mode("quick", 400, 2, paper_budget=10_000, variant_replications=1, robust_points=3)


# ---------------------------------------------------------------------------------------------
# statistics


@pytest.mark.parametrize(("df", "expected"), [
    (1, 12.7062047), (2, 4.3026527), (4, 2.7764451), (9, 2.2621572), (29, 2.0452296),
    (1000, 1.9623391),
])
def test_t_quantile_matches_the_tables(df: int, expected: float) -> None:
    assert core.t_quantile(0.975, df) == pytest.approx(expected, abs=1e-6)


def test_t_quantile_is_symmetric_and_checks_its_arguments() -> None:
    assert core.t_quantile(0.025, 5) == pytest.approx(-core.t_quantile(0.975, 5))
    assert core.t_quantile(0.5, 3) == pytest.approx(0.0, abs=1e-9)
    with pytest.raises(ValueError):
        core.t_quantile(1.0, 3)
    with pytest.raises(ValueError):
        core.t_quantile(0.9, 0)


def test_stat_is_mean_and_student_t_interval() -> None:
    s = Stat.of([1.0, 2.0, 3.0])
    assert (s.n, s.mean, s.std, s.total) == (3, 2.0, 1.0, 6.0)
    assert s.ci95 == pytest.approx(4.3026527 / math.sqrt(3), rel=1e-7)


def test_stat_skips_nan_and_has_no_interval_for_one_value() -> None:
    s = Stat.of([5.0, math.nan])
    assert (s.n, s.mean) == (1, 5.0)
    assert math.isnan(s.ci95) and math.isnan(s.std)
    empty = Stat.of([math.nan])
    assert empty.n == 0 and math.isnan(empty.mean) and math.isnan(empty.total)
    assert empty.as_dict() == {"n": 0, "mean": None, "std": None, "ci95": None}


# ---------------------------------------------------------------------------------------------
# tolerances and verdicts


def test_tolerance_kinds() -> None:
    rel = Tolerance(relative=0.019, source="s")
    assert rel.holds(1000.0, 1018.0) and not rel.holds(1000.0, 1020.0)
    ab = Tolerance(absolute=1.8, source="s")
    assert ab.holds(98.7, 96.9) and not ab.holds(98.7, 96.8)
    fac = Tolerance(factor=1.6, source="s")
    assert fac.holds(3.7e-4, 5.9e-4) and not fac.holds(3.7e-4, 6.0e-4)
    assert fac.holds(3.7e-4, 2.4e-4) and not fac.holds(3.7e-4, 2.2e-4)
    assert not fac.holds(1e-3, 0.0) and not rel.holds(1000.0, math.nan)
    assert "±1.9 % relative" in rel.text() and "factor 1.6" in fac.text()


def test_a_tolerance_without_a_source_is_refused(tmp_path: Path) -> None:
    data = tmp_path / "d.json"
    data.write_text(json.dumps({"tolerances": {"t": {"relative": 0.05}}, "values": []}))
    with pytest.raises(ValueError, match="where its size comes from"):
        scoring.load_paper_values(data)


def _loss(value: float) -> PaperValue:
    return PaperValue("T", "r", "c", value, "e", {}, "p", "loss")


FAC = Tolerance(factor=1.6, source="s")


@pytest.mark.parametrize(("paper", "afsim", "events", "trials", "verdict"), [
    # nothing seen, and the published value would not be seen either: cannot tell
    (0.0, 0.0, 0, 1_000_000, Verdict.UNRESOLVED),
    (5e-6, 0.0, 0, 1_000_000, Verdict.UNRESOLVED),
    (5e-6, 4e-6, 4, 1_000_000, Verdict.UNRESOLVED),
    # the published value would have given 12 losses; afsim saw none: a miss
    (1.2e-5, 0.0, 0, 1_000_000, Verdict.MISS),
    # the paper saw none where afsim counts many: a miss
    (0.0, 2e-5, 20, 1_000_000, Verdict.MISS),
    # both resolved: the factor decides
    (1e-3, 1.5e-3, 1500, 1_000_000, Verdict.MATCH),
    (1e-3, 1.7e-3, 1700, 1_000_000, Verdict.MISS),
])
def test_a_probability_is_judged_only_where_the_runs_resolve_it(
        paper: float, afsim: float, events: int, trials: int, verdict: Verdict) -> None:
    assert scoring.judge_value(_loss(paper), FAC, Stat.exact(afsim), events, trials) is verdict


def test_values_that_did_not_run_are_not_run() -> None:
    v = PaperValue("T", "r", "c", 1.0, "e", {}, "thr", "throughput")
    assert scoring.judge_value(v, Tolerance(relative=0.1, source="s"), None, None, None) is Verdict.NOT_RUN


def test_compare_matches_points_by_labels_and_judges_the_null_at_afsims_resolution() -> None:
    p1 = Point({"alpha": "0.4", "n_af": 10}, {})
    p2 = Point({"alpha": "0.4", "n_af": 20}, {})
    agg = Aggregates({"e": [(p1, {"thr": Stat.of([1400.0, 1410.0]), "p": Stat.of([2e-3, 2e-3]),
                                  "p.events": Stat.of([200.0, 200.0]), "p.trials": Stat.of([1e5, 1e5])}),
                            (p2, {"thr": Stat.of([900.0])})]})
    values = [
        PaperValue("T", "r1", "c", 1381.0, "e", {"alpha": "0.4", "n_af": 10}, "thr", "t"),
        PaperValue("T", "r2", "c", 1346.0, "e", {"alpha": "0.4", "n_af": 20}, "thr", "t"),
        PaperValue("T", "r3", "c", 1.0, "e", {"alpha": "0.4", "n_af": 30}, "thr", "t"),
        PaperValue("T", "r1", "p", 1.5e-3, "e", {"alpha": "0.4", "n_af": 10}, "p", "loss"),
    ]
    tol = {"t": Tolerance(relative=0.019, source="s"), "loss": FAC}
    c = scoring.compare(values, tol, View(agg))
    assert [x.verdict for x in c] == [Verdict.MATCH, Verdict.MISS, Verdict.NOT_RUN, Verdict.MATCH]
    assert c[0].difference == pytest.approx(24.0) and c[0].relative == pytest.approx(24.0 / 1381.0)
    assert c[0].imprecise, "a 95 % interval of ±64 kb/s is wider than 1.9 % of 1381"
    assert c[3].events == 400 and c[3].trials == 2e5
    null = Aggregates({"e": [(p1, {"thr": Stat.exact(1400.0), "p": Stat.exact(0.0)})]})
    n = scoring.compare(values, tol, View(null, "null"), resolution=View(agg))
    assert n[0].verdict is Verdict.MATCH, "1400 is within 1.9 % of 1381"
    assert n[3].verdict is Verdict.MISS, "the null's 0 against 1.5e-3 that afsim's runs resolve"
    assert n[3].trials == 2e5


def test_mode_banner_says_a_reduced_budget() -> None:
    quick = Mode("quick", 1000, 2, paper_budget=40_000_000)
    assert not quick.is_paper_budget
    assert "QUICK MODE" in quick.banner() and "40,000,000" in quick.banner()
    assert "data packets" in quick.banner()
    full = Mode("full", 40_000_000, 3, paper_budget=40_000_000)
    assert full.is_paper_budget and "QUICK" not in full.banner()
    assert full.seeds == [1, 2, 3] and full.seeds_for(2) == [1, 2]


# ---------------------------------------------------------------------------------------------
# statements


def test_a_statement_is_a_claim_with_an_evaluator_or_something_else_without() -> None:
    with pytest.raises(ValueError, match="has an evaluate"):
        Statement("x", "q", "w", Kind.CLAIM, "t")
    with pytest.raises(ValueError, match="has an evaluate"):
        Statement("x", "q", "w", Kind.IDENTITY, "t", _never)
    with pytest.raises(ValueError, match="names what it restates"):
        Statement("x", "q", "w", Kind.RESTATEMENT, "t")


def test_checks_say_not_evaluated_when_a_number_is_missing() -> None:
    c = Checks(View(Aggregates()))
    c.that(gt(c.mean("x", "e", {}, "m"), 1.0))
    r = c.result()
    assert r.holds is None and math.isnan(r.measured["x"])


# ---------------------------------------------------------------------------------------------
# robustness


def test_the_design_is_a_seeded_latin_hypercube_with_choices_dealt_evenly() -> None:
    params = (Unstated("d", "delay", "10ms", "s", low=1.0, high=25.0, unit="ms"),
              Unstated("w", "weight", "0.002", "s", low=0.001, high=0.01, log=True),
              Unstated("n", "limit", "240", "s", low=150, high=480, integer=True),
              Unstated("v", "variant", "reno", "s", choices=("reno", "newreno")))
    a = robustness.design(params, 8, seed=7)
    assert a == robustness.design(params, 8, seed=7), "fixed by its seed"
    assert a != robustness.design(params, 8, seed=8)
    d = sorted(robustness.numeric(params[0], p["d"]) for p in a)
    # one point in each eighth of the interval: the Latin hypercube's promise
    assert [int((x - 1.0) / 3.0) for x in d] == list(range(8))
    assert all(0.001 <= float(p["w"]) <= 0.01 for p in a)
    assert all(p["n"].isdigit() and 150 <= int(p["n"]) <= 480 for p in a)
    assert sorted(p["v"] for p in a) == ["newreno"] * 4 + ["reno"] * 4
    with pytest.raises(ValueError):
        Unstated("x", "x", "1", "s", low=1.0, high=2.0, choices=("a",))
    with pytest.raises(ValueError):
        Unstated("x", "x", "1", "s", low=2.0, high=1.0)


def test_robust_verdicts_name_the_split_that_explains_them() -> None:
    params = (Unstated("d", "delay", "10ms", "s", low=1.0, high=25.0, unit="ms"),
              Unstated("v", "variant", "reno", "s", choices=("reno", "newreno")))
    pts = [{"d": f"{x}ms", "v": v} for x, v in ((2, "reno"), (5, "newreno"), (12, "reno"), (20, "newreno"))]
    assert robustness.summarise(params, pts, [True] * 4).summary == "holds throughout"
    assert robustness.summarise(params, pts, [False] * 4).summary == "fails throughout"
    assert robustness.summarise(params, pts, [None] * 4).summary == "not evaluated"
    r = robustness.summarise(params, pts, [True, True, False, False])
    assert r.summary == "holds only at points with d ≤ 5ms" and (r.holds_at, r.evaluated, r.explained) == (2, 4, 4)
    r = robustness.summarise(params, pts, [False, True, False, True])
    assert r.summary == "holds only at points with v = newreno" and r.explained == 4
    assert r.text() == "holds only at points with v = newreno (2 of 4; fails at v = reno)"
    r = robustness.summarise(params, pts, [True, None, False, True])
    assert (r.holds_at, r.evaluated) == (2, 3)


def test_a_robust_split_names_observed_design_values_never_a_cut_between_them() -> None:
    """The report once said "holds only where backbone_delay > 15.28ms": a midpoint between two
    design points, which the design never measured. A split is said in the values observed."""
    params = (Unstated("access_delay", "a", "1ms", "s", low=0.1, high=5.0, unit="ms", log=True),
              Unstated("backbone_delay", "b", "10ms", "s", low=1.0, high=25.0, unit="ms"))
    # the Giacomazzi design of 3 points
    pts = [{"access_delay": "1.075ms", "backbone_delay": "19.88ms"},
           {"access_delay": "3.148ms", "backbone_delay": "10.68ms"},
           {"access_delay": "0.1573ms", "backbone_delay": "6.614ms"}]
    r = robustness.summarise(params, pts, [True, False, False])
    assert r.summary == "holds only at points with backbone_delay ≥ 19.88ms"
    assert r.text() == "holds only at points with backbone_delay ≥ 19.88ms (1 of 3; fails at 6.614–10.68ms)"
    assert "15.28" not in r.text()
    d = r.as_dict()
    assert (d["parameter"], d["relation"], d["value"]) == ("backbone_delay", "≥", "19.88ms")
    assert d["holds_values"] == ["19.88ms"] and d["fails_values"] == ["6.614ms", "10.68ms"]
    # on a log scale too: no 0.6161ms (the mean of 0.1573 and 1.075) is ever named
    r = robustness.summarise(params[:1], pts, [False, False, True])
    assert r.text() == "holds only at points with access_delay ≤ 0.1573ms (1 of 3; fails at 1.075–3.148ms)"
    # a split that explains only some points says so, with the values where it holds and fails
    five = [{"backbone_delay": f"{x}ms"} for x in (2, 5, 12, 20, 24)]
    r = robustness.summarise(params[1:], five, [False, True, False, True, True])
    assert r.summary == "holds in part; best split: points with backbone_delay ≥ 5ms"
    assert r.text() == ("holds in part; best split: points with backbone_delay ≥ 5ms (3 of 5; "
                        "holds at 5–24ms, fails at 2–12ms; the split explains 4 of 5)")
    assert r.as_dict()["holds_values"] == ["5ms", "20ms", "24ms"]


# ---------------------------------------------------------------------------------------------
# a whole reproduction of the fake paper


@pytest.mark.parametrize("jobs", [1, 2])
def test_fake_reproduction_runs_scores_and_evaluates(tmp_path: Path, jobs: int) -> None:
    rep = core.reproduce(_fake_paper(tmp_path), FAKE_MODE, jobs=jobs)
    # 2 points × 2 seeds, the variant's 2 × 1, the design's 3 × 2 × 1
    assert len(rep.tasks) == 4 + 2 + 6 and len(rep.outcomes) == 12
    assert all(o.stop_reason == "max_data_packets" and o.data_packets_generated == 400 for o in rep.outcomes)
    assert len(rep.design) == 3 and {"fake", "fake@deep", "fake#0", "fake#2"} <= set(rep.aggregates.by_experiment)
    low = rep.aggregates.stat("fake", {"rate": 500}, "throughput_kbps")
    high = rep.aggregates.stat("fake", {"rate": 2000}, "throughput_kbps")
    assert low is not None and high is not None and low.n == 2
    assert low.mean == pytest.approx(500.0, rel=0.1) and high.mean < 1000.0
    v = rep.verdicts
    by = {(c.value.row, c.value.column): c for c in v.afsim}
    assert by[("rate = 500", "thr")].verdict is Verdict.MATCH
    assert by[("rate = 2000", "thr")].verdict is Verdict.MISS
    assert by[("rate = 500", "loss")].verdict is Verdict.UNRESOLVED, "0 against 0 is no pass"
    assert by[("rate = 2000", "loss")].verdict is Verdict.MATCH
    assert ("x", "thr") not in by, "values of experiments that did not run are left out"
    null = {(c.value.row, c.value.column): c.verdict for c in v.null}
    assert null[("rate = 500", "thr")] is Verdict.MATCH and null[("rate = 2000", "loss")] is Verdict.MISS
    assert v.score("afsim").match == 2 and v.score("null").match == 1
    assert v.tables[0].discriminating, "afsim matches 2, the null model 1"
    claims = {c.statement.id: c for c in v.claims.claims}
    assert set(claims) == {"capped", "loses", "wrong", "absent"}, "only claims are evaluated"
    assert claims["capped"].afsim.holds is True and claims["capped"].null.holds is True
    assert not claims["capped"].discriminating, "the null model caps it too"
    assert claims["loses"].afsim.holds is True and claims["loses"].null.holds is False
    assert claims["loses"].discriminating
    assert claims["wrong"].afsim.holds is False and claims["absent"].afsim.holds is None
    assert claims["capped"].variants["deep"].holds is True
    assert claims["capped"].robustness is not None
    assert claims["capped"].robustness.summary == "holds throughout"
    assert claims["absent"].robustness.summary == "not evaluated"
    assert v.claims.counts == {"claim": 4, "identity": 1, "restatement": 1, "not checkable": 1}
    assert v.claims.holds("afsim") == (2, 3)


def test_fake_reproduction_writes_report_json_csv_and_figures(tmp_path: Path) -> None:
    rep = core.reproduce(_fake_paper(tmp_path), FAKE_MODE, jobs=1)
    out = tmp_path / "out"
    written = reproduce.write_outputs(rep, out)
    names = {p.name for p in written}
    assert {"report.md", "results.json", "runs.csv", "fig1.png", "fig1.svg"} <= names
    for p in written:
        assert p.is_file() and p.stat().st_size > 0, p
    assert (out / "fig1.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

    doc = json.loads((out / "results.json").read_text(encoding="utf-8"))
    assert doc["mode"] == "quick" and "QUICK MODE" in doc["mode_note"] and doc["paper_budget"] is False
    assert doc["scores"]["afsim"] == {"match": 2, "miss": 1, "unresolved": 1, "not_run": 0}
    assert doc["scores"]["null"]["match"] == 1 and "deep" in doc["scores"]
    assert doc["statement_counts"]["claim"] == 4
    assert [s["class"] for s in doc["statements"]] == ["claim"] * 4 + ["restatement", "identity", "not checkable"]
    capped = doc["statements"][0]
    assert capped["afsim"]["holds"] is True and capped["discriminating"] is False
    assert capped["robustness"]["summary"] == "holds throughout" and len(doc["design"]) == 3
    assert doc["tolerances"]["loss"]["source"] == "the fake paper's §9"
    assert doc["values"][0]["afsim"]["verdict"] == "match" and doc["values"][0]["null"]["verdict"] == "match"
    assert len(doc["runs"]) == 12

    report = (out / "report.md").read_text(encoding="utf-8")
    assert "QUICK MODE" in report and "## Headline" in report
    assert "afsim matches **2 of 3**" in report and "the null model matches **1 of" in report
    assert "**holds** (not discriminating)" in report and "**does not hold**" in report
    assert "not evaluated" in report and "holds throughout" in report
    assert "“The link caps throughput.”" in report and "restatement of capped" in report
    assert "restated by: again" in report and "per design point: ✓ ✓ ✓" in report
    assert "a note" in report and "fig1.png" in report and "the fake paper's §9" in report
    assert "a deeper queue" in report and "the fake paper gives 5" in report
    runs = (out / "runs.csv").read_text(encoding="utf-8").splitlines()
    assert len(runs) == 1 + 12 and "throughput_kbps" in runs[0] and "data_packets_generated" in runs[0]


def test_variants_and_robustness_can_be_left_out(tmp_path: Path) -> None:
    rep = core.reproduce(_fake_paper(tmp_path), FAKE_MODE, jobs=1, variants=False, robustness=False)
    assert len(rep.tasks) == 4 and rep.design == [] and rep.verdicts.variants == {}
    assert all(c.robustness is None and not c.variants for c in rep.verdicts.claims.claims)


def test_a_reproduction_with_a_store_resumes_without_redoing_a_run(tmp_path: Path) -> None:
    paper = _fake_paper(tmp_path)
    store = tmp_path / "store"
    first = core.reproduce(paper, FAKE_MODE, jobs=1, store=store)
    assert not any(o.cached for o in first.outcomes)
    assert first.store is not None and first.store.parent == store
    assert first.store.name.startswith(afsim.__build__ + "-"), "one store per build of afsim"
    again = core.reproduce(paper, FAKE_MODE, jobs=2, store=store)
    assert all(o.cached for o in again.outcomes), "every run read back, none recomputed"
    assert [repr(o.metrics) for o in again.outcomes] == [repr(o.metrics) for o in first.outcomes]
    assert again.verdicts.score("afsim") == first.verdicts.score("afsim")
    # more replications: only the new seeds run
    more = core.reproduce(paper, dataclasses.replace(FAKE_MODE, replications=3), jobs=1, store=store)
    assert sum(not o.cached for o in more.outcomes) == 2, "the third seed of each point"


def _terminal(rep) -> str:
    from rich.console import Console

    console = Console(record=True, width=400, color_system=None)
    reproduce.print_summary(rep, console)
    return console.export_text()


def test_a_resumed_reproduction_says_what_it_simulated_and_what_it_read_from_the_store(
        tmp_path: Path) -> None:
    """A resumed run once reported "374 simulations on 2 worker process(es), 936.1 s wall time"
    where most runs came from the store: the runs simulated now, those read back, this
    invocation's wall time and the engine time of all runs are said apart."""
    paper = dataclasses.replace(_fake_paper(tmp_path, unstated=False), variants=())
    store = tmp_path / "store"
    mode = Mode("quick", 300, 2)
    first = core.reproduce(paper, mode, jobs=1, store=store)
    assert (first.runs_simulated, first.runs_from_store) == (4, 0)
    engine = math.fsum(o.wall_s for o in first.outcomes)
    assert first.engine_seconds == pytest.approx(engine) and engine > 0
    md = reproduce.render_markdown(first)
    assert ("- runs: 4 simulations, all simulated by this invocation on 1 worker process(es) in "
            f"{first.wall_seconds:,.1f} s of wall time; they took {engine:,.1f} s of engine time "
            "(each run's own wall time, summed); afsim ") in md
    # one more seed: 2 runs simulated now, 4 read back with the engine time they took then
    more = core.reproduce(paper, dataclasses.replace(mode, replications=3), jobs=1, store=store)
    assert (more.runs_simulated, more.runs_from_store) == (2, 4)
    new = math.fsum(o.wall_s for o in more.outcomes if not o.cached)
    assert more.engine_seconds == pytest.approx(engine + new)
    md = reproduce.render_markdown(more)
    assert ("- runs: 6 simulations: 2 simulated by this invocation, 4 read back from the run store "
            "(finished by an earlier invocation); this invocation took "
            f"{more.wall_seconds:,.1f} s of wall time on 1 worker process(es), and its 2 runs "
            f"{new:,.1f} s of engine time; all 6 runs took {more.engine_seconds:,.1f} s of engine time "
            "(each run's own wall time, summed); afsim ") in md
    doc = reproduce.to_json(more)
    assert (doc["runs_total"], doc["runs_simulated"], doc["runs_from_store"]) == (6, 2, 4)
    assert doc["engine_seconds"] == pytest.approx(sum(r["wall_s"] for r in doc["runs"]))
    assert doc["engine_seconds_simulated"] == pytest.approx(new)
    assert doc["wall_seconds"] == more.wall_seconds
    assert sorted(r["from_store"] for r in doc["runs"]) == [False] * 2 + [True] * 4
    assert (f"6 runs (2 simulated now, 4 from the store) · {more.wall_seconds:,.1f} s wall · "
            f"{more.engine_seconds:,.1f} s engine time in all · 1 worker(s)") in _terminal(more)
    # the same runs read back twice: the same report, this invocation's wall time aside
    a, b = (core.reproduce(paper, dataclasses.replace(mode, replications=3), jobs=1, store=store)
            for _ in range(2))
    assert a.runs_from_store == 6 and a.engine_seconds == more.engine_seconds
    assert (reproduce.render_markdown(dataclasses.replace(a, wall_seconds=0.0))
            == reproduce.render_markdown(dataclasses.replace(b, wall_seconds=0.0)))


def _reads_other(view: View) -> ClaimResult:
    c = Checks(view)
    c.that(gt(c.mean("thr other", "other", {"rate": 500}, "throughput_kbps"), 0.0))
    return c.result()


def test_a_variant_is_scored_beside_the_default_on_the_same_values_and_claims(tmp_path: Path) -> None:
    """A variant that runs some of the experiments was once printed beside the default's score
    over all of them; the default's score on exactly the variant's values and claims is set
    beside it."""
    from afsim.reproduce.report import headline

    paper = _fake_paper(tmp_path)
    fake = paper.experiments[0]
    other = dataclasses.replace(fake, id="other", points=fake.points[:1], robust=False)
    data = json.loads(paper.data.read_text(encoding="utf-8"))
    data["values"].append({"table": "Table 2", "row": "rate = 500", "column": "thr", "value": 500.0,
                           "experiment": "other", "point": {"rate": 500},
                           "metric": "throughput_kbps", "kind": "throughput"})
    paper.data.write_text(json.dumps(data), encoding="utf-8")
    statements = (*FAKE_STATEMENTS, Statement("other", "Other.", "§4", Kind.CLAIM, "> 0", _reads_other))
    paper = dataclasses.replace(paper, experiments=(fake, other), statements=statements)
    rep = core.reproduce(paper, dataclasses.replace(FAKE_MODE, robust_points=0), jobs=1)
    v = rep.verdicts
    # the default over everything: fake's 2 of 3 and other's 1 of 1; the variant ran fake only
    assert (v.score("afsim").match, v.score("afsim").resolved) == (3, 4)
    assert (v.score_on("afsim", "deep").match, v.score_on("afsim", "deep").resolved) == (2, 3)
    assert v.claims.holds("afsim") == (3, 4) and v.claims.holds_on("afsim", "deep") == (2, 3)
    s, (hv, ev) = v.score("deep"), v.claims.holds("deep")
    line = (f"- Variant *a deeper queue*: {s.match} of {s.resolved} resolved values (the default "
            f"on the same values: 2 of 3); {hv} of {ev} claims it can evaluate hold (the default "
            f"on the same claims: 2 of 3).")
    assert line in headline(rep)
    md = reproduce.render_markdown(rep)
    assert line in md
    variants_row = next(x for x in md.splitlines() if x.startswith("| a deeper queue (`deep`)"))
    assert "(the default on the same values: 2 of 3)" in variants_row
    assert "(the default on the same claims: 2 of 3)" in variants_row
    doc = reproduce.to_json(rep)["variants_against_default"]["deep"]
    assert doc["default_on_same_values"] == {"match": 2, "miss": 1, "unresolved": 1, "not_run": 0,
                                             "resolved": 3}
    assert doc["default_on_same_claims"] == {"hold": 2, "evaluated": 3}
    assert doc["claims"] == {"hold": hv, "evaluated": ev} and doc["values"]["match"] == s.match


def test_the_report_says_a_robust_split_in_design_values_and_the_default_beside_it(tmp_path: Path) -> None:
    rep = core.reproduce(_fake_paper(tmp_path), FAKE_MODE, jobs=1)
    capped = next(c for c in rep.verdicts.claims.claims if c.statement.id == "capped")
    delay = rep.paper.unstated[0]
    low, mid, high = sorted((p["delay"] for p in rep.design), key=lambda v: robustness.numeric(delay, v))
    # make the claim hold at the design point of the smallest delay only
    capped.robustness = robustness.summarise(rep.paper.unstated, rep.design,
                                             [p["delay"] == low for p in rep.design])
    text = f"holds only at points with delay ≤ {low} (1 of 3; fails at {mid.removesuffix('ms')}–{high})"
    assert capped.robustness.text() == text
    md = reproduce.render_markdown(rep)
    row = next(x for x in md.splitlines() if x.startswith("| [capped]"))
    assert row.endswith(f"| {text} |")
    assert (f"- robustness: {text}; per design point: "
            f"{' '.join('✓' if h else '✗' for h in capped.robustness.per_point)}; with every "
            "unstated parameter at its default (delay = 1ms) it holds") in md
    doc = next(s for s in reproduce.to_json(rep)["statements"] if s["id"] == "capped")["robustness"]
    assert doc["holds_values"] == [low] and doc["fails_values"] == [mid, high]
    assert doc["text"] == text and (doc["parameter"], doc["relation"], doc["value"]) == ("delay", "≤", low)


def test_numbers_in_the_claims_keep_their_digits_and_counts_say_they_are_sums() -> None:
    """The claims' numbers once printed with two decimals (0.06, 0.00 for 3e-05) and their
    loss counts, summed over the seeds, as "events: 130,011.00"."""
    from afsim.reproduce.report import _measured_text, fmt_number

    assert [fmt_number(x) for x in (0.0, 0.0115, 0.06, 0.0577, 0.5, 3.24e-06, -2.4e-05, 0.001,
                                    72.72, 1399.98, 29_905_384_364.5)] == [
        "0", "0.0115", "0.0600", "0.0577", "0.500", "3.24e-06", "-2.40e-05", "0.00100",
        "72.72", "1,399.98", "29,905,384,364.50"]
    assert fmt_number(130011) == "130,011" and fmt_number(math.nan) == "–"
    agg = Aggregates({"e": [(Point({"n": 1}, {}), {
        "p": Stat.of([0.0114, 0.0116]), "p.events": Stat.of([65_000.0, 65_011.0])})]})
    c = Checks(View(agg))
    assert c.seen("P", "e", {"n": 1}, "p") is True
    c.that(True)
    r = c.result()
    assert r.measured["P events (sum over 2 seeds)"] == 130_011
    assert isinstance(r.measured["P events (sum over 2 seeds)"], int)
    assert _measured_text(r) == "P: 0.0115; P events (sum over 2 seeds): 130,011"
    one = Aggregates({"e": [(Point({"n": 1}, {}), {"p": Stat.of([1e-4]), "p.events": Stat.of([12.0])})]})
    c = Checks(View(one))
    c.seen("P", "e", {"n": 1}, "p")
    assert c.measured == {"P": 1e-4, "P events (sum over 1 seed)": 12}
    assert _measured_text(ClaimResult(True, {"P_c,ir": 0.0, "thr": 1400.0})) == "P_c,ir: 0; thr: 1,400.00"


def test_the_metrics_fingerprint_follows_the_code_metrics_reach_and_nothing_else() -> None:
    import types

    ns: dict = {}
    code = (
        "SCALE = 2.0\nUNUSED = 5\n"
        "def helper(x):\n    return x * SCALE\n"
        "def metrics(results):\n    return {'m': helper(1.0)}\n"
        "def other(results):\n    return {}\n"
    )
    mod = types.ModuleType("fp_mod")
    exec(compile(code, "<fp>", "exec"), mod.__dict__)
    base = core.metrics_fingerprint([mod.metrics])
    mod.UNUSED = 6
    mod.other = lambda r: {"x": 1.0}
    assert core.metrics_fingerprint([mod.metrics]) == base, "code the metrics never reach"
    mod.SCALE = 3.0
    assert core.metrics_fingerprint([mod.metrics]) != base, "a constant they read"
    mod.SCALE = 2.0
    assert core.metrics_fingerprint([mod.metrics]) == base
    # the Giacomazzi metrics reach their helpers: editing a claim does not orphan stored runs
    fp = core.metrics_fingerprint([giacomazzi.scenario1_metrics])
    assert fp == core.metrics_fingerprint([giacomazzi.scenario1_metrics])
    del ns


def test_the_store_of_a_reproduction_follows_its_metrics_code() -> None:
    t1 = core.Task("s.toml", (), 1, fake_metrics)
    t2 = core.Task("s.toml", (), 1, giacomazzi.scenario1_metrics)
    assert core.store_dir("x", [t1]) == core.store_dir("x", [t1, t1])
    assert core.store_dir("x", [t1]) != core.store_dir("x", [t2])
    assert re.fullmatch(r"\d+\.\d+\.\d+\+[0-9a-f]{12}", afsim.__build__)


def test_a_failing_run_says_which_and_why(tmp_path: Path) -> None:
    paper = _fake_paper(tmp_path)
    bad = dataclasses.replace(paper.experiments[0], points=(Point({"rate": 1}, {"rate": "fast"}),))
    from afsim.sweep import SweepError

    # every run's scenario is loaded before any runs: nothing is simulated
    with pytest.raises(SweepError) as e:
        core.reproduce(dataclasses.replace(paper, experiments=(bad,)), Mode("quick", 100, 1), jobs=1)
    assert "flow[0].rate" in str(e.value) and "fake.toml" in str(e.value) and "rate=fast" in str(e.value)


def test_only_rejects_an_unknown_experiment(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="unknown experiment"):
        core.reproduce(_fake_paper(tmp_path), Mode("quick", 100, 1), only=["nope"])


# ---------------------------------------------------------------------------------------------
# optional hooks: per-replication overrides, a budget in other units, reduced repetitions,
# variants that leave an experiment unchanged, extra figures and re-runs


def _delay_per_seed(overrides, seed: int) -> dict[str, str]:
    return {"delay": f"{seed}ms"}


def test_replicate_gives_each_replication_its_own_overrides(tmp_path: Path) -> None:
    paper = _fake_paper(tmp_path, unstated=False)
    e = dataclasses.replace(paper.experiments[0], replicate=_delay_per_seed)
    assert e.overrides_for(e.points[0], 2) == {"rate": "500kbps", "delay": "2ms"}
    rep = core.reproduce(dataclasses.replace(paper, experiments=(e,), variants=()),
                         Mode("quick", 200, 2), jobs=1)
    assert sorted(dict(t.overrides)["delay"] for t in rep.tasks) == ["1ms", "1ms", "2ms", "2ms"]
    assert all(dict(t.overrides)["delay"] == f"{t.seed}ms" for t in rep.tasks)


def test_a_budget_with_a_unit_and_reduced_repetitions_are_said(tmp_path: Path) -> None:
    m = Mode("quick", 30, 2, budget_param="duration", budget_unit="s",
             budget_noun="s of simulated time at most", paper_replications=5)
    assert m.budget_value == "30s" and not m.is_paper_budget
    assert "QUICK MODE" in m.banner() and "instead of the paper's 5" in m.banner()
    assert "30 s of simulated time at most per run" in m.banner()
    assert m.reduction() == "2 replication(s) per point"
    full = dataclasses.replace(m, name="full", replications=5)
    assert full.is_paper_budget and "QUICK" not in full.banner()
    # a budget below the paper's is still said first
    assert Mode("quick", 10, 1, paper_budget=100).reduction() == "10 data packets per run"


def test_a_variant_reads_the_experiments_it_leaves_unchanged_from_the_default(tmp_path: Path) -> None:
    paper = _fake_paper(tmp_path, unstated=False)
    base = paper.experiments[0]
    other = dataclasses.replace(base, id="other", points=base.points[1:])

    def reads_both(view: View) -> ClaimResult:
        c = Checks(view)
        c.that(gt(c.mean("a", "fake", {"rate": 500}, "throughput_kbps"), 0.0))
        c.that(gt(c.mean("b", "other", {"rate": 2000}, "throughput_kbps"), 0.0))
        return c.result()

    statements = (Statement("both", "Both.", "§1", Kind.CLAIM, "both > 0", reads_both),)
    variants = (Variant("deep", "deeper", {"limit": "50"}, "why", ("fake",)),
                Variant("deep2", "deeper, other unchanged", {"limit": "50"}, "why", ("fake",),
                        unchanged=("other",)))
    rep = core.reproduce(dataclasses.replace(paper, experiments=(base, other), statements=statements,
                                             variants=variants), Mode("quick", 200, 1), jobs=1)
    claim = rep.verdicts.claims.claims[0]
    assert "deep" not in claim.variants, "without `unchanged` the claim cannot be read"
    assert claim.variants["deep2"].holds is True
    assert "other@deep2" not in rep.aggregates.by_experiment, "nothing is re-run for it"
    md = reproduce.render_markdown(rep)
    assert "its claims read other from the default runs" in md
    assert reproduce.to_json(rep)["variants"][1]["unchanged"] == ["other"]
    assert "unchanged" not in reproduce.to_json(rep)["variants"][0]


def _extra(rep, out_dir: Path) -> dict[str, list[Path]]:
    results = core.rerun(rep, "fake", {"rate": 2000})
    path = out_dir / "extra.txt"
    path.write_text(f"{results.flows['packets_sent'].iloc[0]}", encoding="utf-8")
    return {"extra": [path]}


def test_extra_figures_are_drawn_from_reruns_of_the_reproductions_runs(tmp_path: Path) -> None:
    paper = dataclasses.replace(_fake_paper(tmp_path, unstated=False), variants=(), extra_figures=_extra)
    rep = core.reproduce(paper, Mode("quick", 300, 2), jobs=1)
    again = core.rerun(rep, "fake", {"rate": 2000}, seed=2)
    outcome = rep.outcomes[next(t for (e, i, s, t) in rep.runs if e == "fake" and i == 1 and s == 2)]
    mine = {k: v for k, v in fake_metrics(again).items() if math.isfinite(v)}
    assert mine and all(outcome.metrics[k] == v for k, v in mine.items()), \
        "the same run: same scenario, overrides, seed"
    written = reproduce.write_outputs(rep, tmp_path / "out")
    assert (tmp_path / "out" / "extra.txt").read_text(encoding="utf-8") == "300"
    assert tmp_path / "out" / "extra.txt" in written
    with pytest.raises(KeyError):
        core.rerun(rep, "fake", {"rate": 7})
    with pytest.raises(KeyError):
        core.rerun(rep, "nope", {})


def test_scenarios_are_found_by_folder_and_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AFSIM_SCENARIOS", str(REPO / "scenarios"))
    assert core.find_scenarios_dir("laatu", ("sima.toml",), tmp_path) == REPO / "scenarios" / "laatu"
    monkeypatch.delenv("AFSIM_SCENARIOS")
    with pytest.raises(FileNotFoundError, match=r"nope/x\.toml"):
        core.find_scenarios_dir("nope", ("x.toml",), tmp_path)


# ---------------------------------------------------------------------------------------------
# Giacomazzi et al.: statements, published values, null model, synthetic results








def test_every_published_value_has_a_point_and_a_known_metric() -> None:
    paper = giacomazzi.paper(GIACOMAZZI)
    values, tolerances = scoring.load_paper_values(paper.data)
    assert len(values) == 368, "Tables 2–9 as printed"
    assert tolerances["throughput"].relative == 0.019 and tolerances["ros"].absolute == 1.8
    assert tolerances["loss"].factor == 1.6
    assert all("Table" in t.source or "Appendix" in t.source for t in tolerances.values())
    exps = {e.id: e for e in paper.experiments}
    metrics = {
        "table2": {"throughput_kbps", "ros_pct", "p_inb", "p_nc_1", "p_c_1"},
        "table3": {f"{g}.{m}" for g in ("af1", "af3") for m in
                   ("throughput_kbps", "ros_pct", "p_inb", "p_nc_br", "p_c_br", "p_nc_ir",
                    "p_c_ir")} | {"be.throughput_kbps", "be.p_ir"},
    }
    for v in values:
        assert v.kind in tolerances
        matching = [p for p in exps[v.experiment].points if p.matches(v.point)]
        assert len(matching) == 1, v
        assert v.metric in metrics.get(v.experiment, {"throughput_kbps", "ros_pct"}), v


def _synthetic(paper: Paper, fill) -> Aggregates:
    """Aggregates whose every published metric is ``fill(value)``, with counts that resolve
    every probability (a billion trials)."""
    values, _ = scoring.load_paper_values(paper.data)
    agg = Aggregates()
    for e in paper.experiments:
        rows = []
        for pt in e.points:
            stats = {}
            for v in values:
                if v.experiment == e.id and pt.matches(v.point):
                    x = fill(v)
                    stats[v.metric] = Stat.exact(x)
                    if v.kind == "loss":
                        stats[v.metric + ".events"] = Stat.exact(x * 1e9)
                        stats[v.metric + ".trials"] = Stat.exact(1e9)
            rows.append((pt, stats))
        agg.by_experiment[e.id] = rows
    return agg


def test_a_perfect_result_matches_every_value_and_satisfies_the_claims_it_can_read() -> None:
    """The paper's own numbers, fed back as afsim's: every value matches, and every claim
    whose numbers the paper prints holds (a claim that failed on the paper's own numbers would
    misread its sentence)."""
    paper = giacomazzi.paper(GIACOMAZZI)
    values, tol = scoring.load_paper_values(paper.data)
    perfect = View(_synthetic(paper, lambda v: v.value), "perfect")
    comps = scoring.compare(values, tol, perfect)
    assert all(c.verdict in (Verdict.MATCH, Verdict.UNRESOLVED) for c in comps)
    zeros = sum(1 for v in values if v.kind == "loss" and v.value == 0)
    assert sum(c.verdict is Verdict.MATCH for c in comps) == len(values) - zeros
    assert sum(c.verdict is Verdict.UNRESOLVED for c in comps) == zeros == 70, "a printed 0 is unresolved"
    unread = set()
    for s in paper.statements:
        if s.evaluate is None:
            continue
        r = s.evaluate(perfect)
        if r.holds is None:
            unread.add(s.id)
        else:
            assert r.holds, (s.id, r.measured)
    # claims on numbers the paper does not print (α, congestion shares, Jain, the b1
    # experiment, losses per downgraded packet) cannot be read off its tables
    assert unread == {"intro-fairness", "ctrl-out-lost-more", "rem-high-loss", "gs-b1",
                      "s2-a-no-congestion"}


def test_a_null_result_scores_as_the_null_model_and_fails_the_discriminating_claims() -> None:
    paper = giacomazzi.paper(GIACOMAZZI)
    values, tol = scoring.load_paper_values(paper.data)
    null_agg = core.null_aggregates(paper, list(paper.experiments))
    perfect = View(_synthetic(paper, lambda v: v.value), "perfect")
    as_afsim = scoring.compare(values, tol, View(null_agg, "afsim"), resolution=perfect)
    as_null = scoring.compare(values, tol, View(null_agg, "null"), resolution=perfect)
    assert [c.verdict for c in as_afsim] == [c.verdict for c in as_null]
    # the null model gets the token-bucket-limited throughputs and the high RoS rows right …
    assert 0 < sum(c.verdict is Verdict.MATCH for c in as_null) < len(values)
    # … and misses every probability the paper resolves
    assert all(c.verdict is not Verdict.MATCH for c in as_null if c.value.kind == "loss")
    holds = {s.id: s.evaluate(View(null_agg, "null")).holds for s in paper.statements if s.evaluate}
    for collapse in ("pa-poor", "s1-fixed-decrease", "s1-a02-ros70", "s2-b-not-guaranteed",
                     "s2-d-unfair", "s1-csa-rio-loss", "s1-a0-inb"):
        assert holds[collapse] is False, collapse
    for easy in ("s1-csa-ros", "appa", "s2-b-ros99"):
        assert holds[easy] is True, easy


@pytest.mark.parametrize(("n", "alpha", "expected"), [
    (10, "0.4", 1400.0), (30, "0.4", 30_792.0 / 30), (30, "0", 1000.0), (20, "0.2", 1200.0),
])
def test_the_null_model_of_scenario_1(n: int, alpha: str, expected: float) -> None:
    paper = giacomazzi.paper(GIACOMAZZI)
    e = next(x for x in paper.experiments if x.id == "table2")
    p = Point({"alpha": alpha, "n_af": n}, giacomazzi._s1(n, alpha))
    m = giacomazzi.null_model(e, p)
    assert m["throughput_kbps"] == pytest.approx(expected)
    assert (m["ros_pct"], m["p_nc_1"], m["p_inb"]) == (100.0, 0.0, 0.0)


def test_the_null_model_of_scenario_2_shares_what_af_leaves_among_best_effort() -> None:
    paper = giacomazzi.paper(GIACOMAZZI)
    e = next(x for x in paper.experiments if x.id == "table3")
    by = {(p.labels["case"], p.labels["internal_csa"]): p for p in e.points}
    a = giacomazzi.null_model(e, by[("a", False)])
    # 5 × min(1.4 × 1600, 2000) + 5 × 1.4 × 400 = 12.8 Mb/s; 10 BE sources share 17.992 Mb/s
    assert a["af1.throughput_kbps"] == pytest.approx(2000.0)
    assert a["af3.throughput_kbps"] == pytest.approx(560.0)
    assert a["be.throughput_kbps"] == pytest.approx(1799.2)
    d = giacomazzi.null_model(e, by[("d", True)])
    # 13 × 2000 + 12 × 560 = 32.72 Mb/s > 30.792: AF scaled down, nothing left for BE
    assert d["af1.throughput_kbps"] == pytest.approx(2000.0 * 30_792 / 32_720)
    assert d["be.throughput_kbps"] == 0.0


def test_identical_runs_of_different_tables_are_shared() -> None:
    paper = giacomazzi.paper(GIACOMAZZI)
    exps = {e.id: e for e in paper.experiments}
    csa10 = next(p for p in exps["table2"].points if p.labels == {"alpha": "CSA", "n_af": 10})
    same = [p for e in ("appendix_a", "appendix_b", "appendix_c", "b1") for p in exps[e].points
            if dict(p.overrides) == dict(csa10.overrides)]
    assert len(same) == 4, "Table 1's timers, b2, B and b1 are Table 2's CSA rows"


def test_variants_and_unstated_parameters_are_declared_with_their_reasons() -> None:
    paper = giacomazzi.paper(GIACOMAZZI)
    ids = {v.id for v in paper.variants}
    assert {"periodic", "per_period", "per_bucket"} <= ids
    periodic = next(v for v in paper.variants if v.id == "periodic")
    assert periodic.overrides == {"token_clock": "periodic"} and "match" in periodic.why
    names = {u.name for u in paper.unstated}
    assert {"access_delay", "backbone_delay", "w_q", "rio_limit", "be_variant"} <= names
    # every unstated parameter is a [params] entry of the scenarios it applies to, with the
    # declared default
    import tomllib

    for u in paper.unstated:
        for f in ("scenario1.toml", "scenario2.toml"):
            if u.scenarios and f not in u.scenarios:
                continue
            params = tomllib.loads((GIACOMAZZI / f).read_text(encoding="utf-8"))["params"]
            assert str(params[u.name]) == u.default, (f, u.name)
    s1 = tomllib.loads((GIACOMAZZI / "scenario1.toml").read_text(encoding="utf-8"))["params"]
    assert (s1["token_clock"], s1["csa_rules"], s1["csa_scope"]) == ("continuous", "text", "shared")
    assert s1["max_data_packets"] == giacomazzi.PAPER_PACKETS


def test_scenarios_dir_from_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AFSIM_SCENARIOS", str(REPO / "scenarios"))
    assert giacomazzi.find_scenarios_dir(tmp_path) == GIACOMAZZI
    monkeypatch.delenv("AFSIM_SCENARIOS")
    found = giacomazzi.find_scenarios_dir(GIACOMAZZI / "sub" / "dir")
    assert found.resolve() == GIACOMAZZI.resolve(), "found upwards"


def test_scenarios_dir_falls_back_to_the_files_shipped_in_the_package(tmp_path: Path) -> None:
    found = giacomazzi.find_scenarios_dir(tmp_path)
    assert found == Path(afsim.__file__).parent / "scenarios" / "giacomazzi"
    assert (found / "scenario1.toml").read_bytes() == (GIACOMAZZI / "scenario1.toml").read_bytes()


def test_giacomazzi_smoke_on_a_few_points(tmp_path: Path) -> None:
    """Two Table 2 points and two Table 3 points with a tiny budget, in parallel: the metrics
    and their counts exist, the outputs are written and say they are reduced."""
    paper = giacomazzi.paper(GIACOMAZZI)
    exps = {e.id: e for e in paper.experiments}
    small = dataclasses.replace(paper, experiments=(dataclasses.replace(exps["table2"].subset(2), robust=False),
                                                    dataclasses.replace(exps["table3"].subset(2), robust=False)),
                                variants=paper.variants[:1])
    mode = giacomazzi.mode(quick=True, budget=15_000, replications=2)
    rep = core.reproduce(small, mode, jobs=2)
    assert len(rep.tasks) == 8 + 4, "2 × 2 points × 2 seeds, and the periodic variant's 4 × 1"
    for point, stats in rep.aggregates.by_experiment["table2"]:
        assert point.labels["alpha"] == "0.4"
        for m in ("throughput_kbps", "ros_pct", "p_inb", "p_nc_1", "p_c_1", "alpha_mean",
                  "p_nc_1.events", "p_nc_1.trials", "jain"):
            assert stats[m].n == 2, (point.labels, m)
        assert 0.0 < stats["throughput_kbps"].mean < 2000.0
        assert stats["alpha_mean"].mean == pytest.approx(0.4)
    for point, stats in rep.aggregates.by_experiment["table3"]:
        assert point.labels["case"] == "a"
        for m in ("af1.throughput_kbps", "af3.ros_pct", "af1.p_c_ir", "be.throughput_kbps",
                  "be.p_ir", "core.congested_share", "af1.p_nc_ir.trials"):
            assert stats[m].n == 2, (point.labels, m)
    claims = {c.statement.id: c for c in rep.verdicts.claims.claims}
    assert claims["appa"].afsim.holds is None, "Appendix A did not run"
    written = reproduce.write_outputs(rep, tmp_path / "out")
    doc = json.loads((tmp_path / "out" / "results.json").read_text(encoding="utf-8"))
    assert doc["mode"] == "quick" and doc["budget"] == 15_000
    assert {t["table"] for t in doc["tables"]} == {"Table 2", "Table 3"}
    assert {p.name for p in written} >= {"fig7_throughput.png", "fig8_ros.svg", "report.md",
                                         "fig7_throughput_periodic.png"}
    assert "QUICK MODE" in (tmp_path / "out" / "report.md").read_text(encoding="utf-8")


def test_cli_reproduce_rejects_unknown_paper_experiment_and_a_file_as_out(tmp_path: Path) -> None:
    p = afsim_cmd("reproduce", "nosuch", "--out", tmp_path)
    assert p.returncode == 2 and "giacomazzi" in p.stderr
    p = afsim_cmd("reproduce", "giacomazzi", "--only", "table99", "--out", tmp_path)
    assert p.returncode == 2 and "table2" in p.stderr
    p = afsim_cmd("reproduce", "giacomazzi", "--jobs", "0", "--out", tmp_path)
    assert p.returncode == 2
    f = tmp_path / "afile"
    f.write_text("x")
    p = afsim_cmd("reproduce", "giacomazzi", "--quick", "--out", f)
    assert p.returncode == 2 and "not a directory" in p.stderr


def test_cli_reproduce_quick_json(tmp_path: Path) -> None:
    out = tmp_path / "out"
    p = afsim_cmd("reproduce", "giacomazzi", "--quick", "--only", "table3", "--budget",
                  "10000", "--replications", "1", "--jobs", "2", "--format", "json",
                  "--no-variants", "--no-robustness", "--out", out, timeout=120)
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    assert doc["mode"] == "quick" and "QUICK MODE" in doc["mode_note"]
    assert [t["table"] for t in doc["tables"]] == ["Table 3"]
    assert len(doc["runs"]) == 8 and doc["design"] == []
    assert (out / "report.md").is_file() and (out / "results.json").is_file()


def test_cli_reproduce_resizes_the_design_and_says_so(tmp_path: Path) -> None:
    out = tmp_path / "out"
    for flag in ("--robust-points", "--variant-replications"):
        p = afsim_cmd("reproduce", "giacomazzi", flag, "0", "--out", out)
        assert p.returncode == 2 and f"{flag} must be at least 1" in p.stderr
    p = afsim_cmd("reproduce", "giacomazzi", "--quick", "--only", "table3", "--budget", "10000",
                  "--replications", "1", "--variant-replications", "1", "--robust-points", "1",
                  "--jobs", "2", "--format", "json", "--out", out, timeout=300)
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    assert doc["mode"] == "quick" and "QUICK MODE" in doc["mode_note"], "quick says it already"
    assert len(doc["design"]) == 1
    # the design's own sizes, or larger ones, keep the mode's name
    from afsim.cli import build_parser
    from afsim.cli_reproduce import _resize_design

    args = build_parser().parse_args(["reproduce", "giacomazzi", "--robust-points", "9"])
    full = giacomazzi.mode(False, None, None)
    assert _resize_design(full, full, args).name == "full"
    assert _resize_design(full, full, args).robust_points == 9
    args = build_parser().parse_args(["reproduce", "giacomazzi", "--variant-replications", "1"])
    assert _resize_design(full, full, args).name == "full, reduced design"
    quick = giacomazzi.mode(True, None, None)
    assert _resize_design(quick, quick, args).name == "quick"


@pytest.mark.slow
def test_cli_reproduce_quick_whole(tmp_path: Path) -> None:
    """The whole quick reproduction, as a user runs it (minutes on two cores)."""
    out = tmp_path / "out"
    p = afsim_cmd("reproduce", "giacomazzi", "--quick", "--out", out, timeout=3600)
    assert p.returncode == 0, p.stderr
    assert "QUICK MODE" in p.stdout
    doc = json.loads((out / "results.json").read_text(encoding="utf-8"))
    assert [t["table"] for t in doc["tables"]] == [f"Table {k}" for k in range(2, 10)]
    assert set(doc["scores"]) == {"afsim", "null", "ns2", "periodic", "per_period", "per_bucket"}
    # the frame's ns-2 runs of quick mode are committed: nothing missing; no row maps
    assert doc["ns2"]["missing"] == 0 and doc["ns2"]["planned"] > 0
    assert doc["ns2"]["summary"]["cases"]["not in ns-2"] == len(
        [s for s in doc["statements"] if s["class"] == "claim"])
    claims = [s for s in doc["statements"] if s["class"] == "claim"]
    assert all(s["afsim"]["holds"] is not None for s in claims)
    assert all(s["robustness"] is not None for s in claims)
    assert len(doc["design"]) == giacomazzi.QUICK.robust_points


def test_reproduce_package_lists_its_papers() -> None:
    assert reproduce.PAPERS["giacomazzi"] == "afsim.reproduce.giacomazzi"
    assert {"giacomazzi", "laatu", "leung", "gtfrc"} <= set(reproduce.PAPERS)
    assert reproduce.paper_module("giacomazzi") is giacomazzi
    with pytest.raises(KeyError):
        reproduce.paper_module("nope")


def test_output_files_name_a_built_in_scenario_by_its_name_not_a_machine_s_path(tmp_path: Path) -> None:
    from afsim.reproduce.report import scenario_name

    assert scenario_name(afsim.builtin_scenario("giacomazzi/scenario1")) == "giacomazzi/scenario1"
    assert scenario_name(str(afsim.builtin_scenario("bench/udp-reference"))) == "bench/udp-reference"
    own = tmp_path / "mine.toml"
    assert scenario_name(own) == str(own), "a file of the user's own keeps its path"
    assert scenario_name(str(own)) == str(own)
