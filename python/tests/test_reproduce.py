"""The paper-reproduction machinery (afsim/reproduce/core.py) on a tiny fake experiment, and a
smoke run of the Giacomazzi et al. reproduction (afsim/reproduce/giacomazzi.py) on a few grid
points with a tiny packet budget."""

from __future__ import annotations

import dataclasses
import json
import math
from pathlib import Path

import pytest

import afsim
from afsim import reproduce
from afsim.reproduce import core, giacomazzi
from afsim.reproduce.core import (
    Aggregates,
    Claim,
    ClaimResult,
    Experiment,
    Figure,
    Mode,
    Paper,
    Point,
    Stat,
)

from conftest import afsim_cmd

REPO = Path(__file__).resolve().parents[2]
GIACOMAZZI = REPO / "scenarios" / "giacomazzi"

# A bottleneck of 1 Mb/s fed by a jittered CBR source at `rate`: the seed moves the jitter, so
# replications differ a little; the budget is `max_packets`, as every reproduced scenario's.
FAKE_SCENARIO = """
[scenario]
name = "fake"
max_packets = "$max_packets"

[params]
rate = "500kbps"
max_packets = 1000

[[node]]
name = "a"
[[node]]
name = "b"

[[link]]
between = ["a", "b"]
rate = "1Mbps"
delay = "1ms"
queue = { kind = "droptail", limit = "5pkt" }

[[flow]]
name = "f"
from = "a"
to = "b"
kind = "cbr"
rate = "$rate"
packet_size = "500B"
jitter = true
"""


def fake_metrics(results) -> dict[str, float]:  # noqa: ANN001 (Results)
    """Module level, so the worker processes can import it by name."""
    f = results.flows.iloc[0]
    return {
        "throughput_kbps": float(f["throughput_kbps"]),
        "loss": float(f["packets_dropped"]) / float(f["packets_sent"]),
        "nan_metric": math.nan,
    }


def _fake_paper(tmp_path: Path) -> Paper:
    scenario = tmp_path / "fake.toml"
    scenario.write_text(FAKE_SCENARIO, encoding="utf-8")
    data = tmp_path / "fake.json"
    values = [
        # under the 1 Mb/s link the source gets its rate: within 5 % of 500 kb/s
        {"table": "Table 1", "row": "rate = 500", "column": "thr", "value": 500.0,
         "experiment": "fake", "point": {"rate": 500}, "metric": "throughput_kbps",
         "kind": "throughput"},
        # a made-up published value far from what the link can carry
        {"table": "Table 1", "row": "rate = 2000", "column": "thr", "value": 1500.0,
         "experiment": "fake", "point": {"rate": 2000}, "metric": "throughput_kbps",
         "kind": "throughput"},
        {"table": "Table 1", "row": "rate = 500", "column": "loss", "value": 0.0,
         "experiment": "fake", "point": {"rate": 500}, "metric": "loss", "kind": "loss"},
        # an experiment that is not run: compared with nothing
        {"table": "Table 9", "row": "x", "column": "thr", "value": 1.0,
         "experiment": "absent", "point": {}, "metric": "throughput_kbps",
         "kind": "throughput"},
    ]
    data.write_text(json.dumps({
        "tolerances": {"throughput": {"relative": 0.05}, "loss": {"factor": 2.0, "floor": 1e-3}},
        "values": values,
    }), encoding="utf-8")

    def holds_when_overloaded(agg: Aggregates) -> ClaimResult:
        thr = agg.mean("fake", {"rate": 2000}, "throughput_kbps")
        if thr is None:
            return ClaimResult(None, {}, "not run")
        return ClaimResult(thr < 1000.0, {"thr": thr})

    def never(agg: Aggregates) -> ClaimResult:
        return ClaimResult(False, {"thr": agg.mean("fake", {"rate": 500}, "throughput_kbps")})

    def needs_absent(agg: Aggregates) -> ClaimResult:
        return ClaimResult(None, {}, "its experiment did not run")

    exp = Experiment(
        "fake", "fake experiment", scenario,
        (Point({"rate": 500, "kind": "cbr"}, {"rate": "500kbps"}),
         Point({"rate": 2000, "kind": "cbr"}, {"rate": "2000kbps"})),
        fake_metrics, ("a note",),
    )
    return Paper(
        "fake", "A fake paper", "Nobody, 2024", (exp,),
        (Claim("capped", "The link caps throughput.", "thr < 1000", holds_when_overloaded),
         Claim("wrong", "A claim that does not hold.", "never", never),
         Claim("absent", "A claim about an experiment that did not run.", "–", needs_absent)),
        (Figure("fig1", "throughput", "fake", "throughput_kbps", x="rate", series="kind",
                xlabel="rate", ylabel="kb/s"),),
        data,
    )


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
    assert (s.n, s.mean, s.std) == (3, 2.0, 1.0)
    assert s.ci95 == pytest.approx(4.3026527 / math.sqrt(3), rel=1e-7)


def test_stat_skips_nan_and_has_no_interval_for_one_value() -> None:
    s = Stat.of([5.0, math.nan])
    assert (s.n, s.mean) == (1, 5.0)
    assert math.isnan(s.ci95) and math.isnan(s.std)
    empty = Stat.of([math.nan])
    assert empty.n == 0 and math.isnan(empty.mean)
    assert empty.as_dict() == {"n": 0, "mean": None, "std": None, "ci95": None}


# ---------------------------------------------------------------------------------------------
# comparison


def test_tolerance_kinds() -> None:
    rel = {"relative": 0.05}
    assert core.within_tolerance("t", rel, 1000.0, 1049.0)
    assert not core.within_tolerance("t", rel, 1000.0, 1051.0)
    ab = {"absolute": 2.0}
    assert core.within_tolerance("r", ab, 98.7, 96.8)
    assert not core.within_tolerance("r", ab, 98.7, 96.6)
    loss = {"factor": 2.0, "floor": 1e-5}
    assert core.within_tolerance("l", loss, 3.7e-4, 7.0e-4)
    assert not core.within_tolerance("l", loss, 3.7e-4, 8.0e-4)
    assert core.within_tolerance("l", loss, 0.0, 5e-6), "both under the floor"
    assert not core.within_tolerance("l", loss, 0.0, 1e-4), "a zero against a real loss"
    assert not core.within_tolerance("l", loss, 1e-3, 0.0)
    assert not core.within_tolerance("t", rel, 1000.0, math.nan)


def test_compare_matches_points_by_labels() -> None:
    p1 = Point({"alpha": "0.4", "n_af": 10}, {})
    p2 = Point({"alpha": "0.4", "n_af": 20}, {})
    agg = Aggregates({"e": [(p1, {"thr": Stat.of([1400.0, 1410.0])}),
                            (p2, {"thr": Stat.of([900.0])})]})
    values = [
        core.PaperValue("T", "r1", "c", 1381.0, "e", {"alpha": "0.4", "n_af": 10}, "thr", "t"),
        core.PaperValue("T", "r2", "c", 1346.0, "e", {"alpha": "0.4", "n_af": 20}, "thr", "t"),
        core.PaperValue("T", "r3", "c", 1.0, "e", {"alpha": "0.4", "n_af": 30}, "thr", "t"),
    ]
    c = core.compare(values, {"t": {"relative": 0.05}}, agg)
    assert c[0].within is True and c[0].difference == pytest.approx(24.0)
    assert c[0].relative == pytest.approx(24.0 / 1381.0)
    assert c[1].within is False and c[1].paper_in_ci is None
    assert c[2].afsim is None and c[2].within is None and math.isnan(c[2].difference)
    row = c[0].as_dict()
    assert row["paper"] == 1381.0 and row["afsim"]["n"] == 2 and row["within_tolerance"] is True


def test_mode_banner_says_a_reduced_budget() -> None:
    quick = Mode("quick", 1000, 2, paper_packets=40_000_000)
    assert not quick.is_paper_budget
    assert "QUICK MODE" in quick.banner() and "40,000,000" in quick.banner()
    full = Mode("full", 40_000_000, 3, paper_packets=40_000_000)
    assert full.is_paper_budget and "QUICK" not in full.banner()
    assert full.seeds == [1, 2, 3]


# ---------------------------------------------------------------------------------------------
# a whole reproduction of the fake paper


@pytest.mark.parametrize("jobs", [1, 2])
def test_fake_reproduction_runs_compares_and_evaluates(tmp_path: Path, jobs: int) -> None:
    paper = _fake_paper(tmp_path)
    rep = core.reproduce(paper, Mode("quick", 400, 3, paper_packets=10_000), jobs=jobs)
    assert len(rep.tasks) == 6 and len(rep.outcomes) == 6
    assert all(o.stop_reason == "max_packets" for o in rep.outcomes)
    low = rep.aggregates.stat("fake", {"rate": 500}, "throughput_kbps")
    high = rep.aggregates.stat("fake", {"rate": 2000}, "throughput_kbps")
    assert low is not None and high is not None
    assert low.n == 3 and low.mean == pytest.approx(500.0, rel=0.1)
    assert high.mean < 1000.0, "the 1 Mb/s link caps it"
    assert math.isfinite(low.ci95) and low.ci95 >= 0.0
    nan_metric = rep.aggregates.stat("fake", {"rate": 500}, "nan_metric")
    assert nan_metric is not None and nan_metric.n == 0

    by_row = {(c.value.table, c.value.row, c.value.column): c for c in rep.comparisons}
    assert by_row[("Table 1", "rate = 2000", "thr")].within is False
    assert by_row[("Table 9", "x", "thr")].within is None
    claims = {c.id: r for c, r in rep.claims}
    assert claims["capped"].holds is True and claims["capped"].measured["thr"] < 1000.0
    assert claims["wrong"].holds is False
    assert claims["absent"].holds is None


def test_fake_reproduction_writes_report_json_csv_and_figures(tmp_path: Path) -> None:
    paper = _fake_paper(tmp_path)
    rep = core.reproduce(paper, Mode("quick", 400, 2, paper_packets=10_000), jobs=1)
    out = tmp_path / "out"
    written = core.write_outputs(rep, out)
    names = {p.name for p in written}
    assert {"report.md", "results.json", "runs.csv", "fig1.png", "fig1.svg"} <= names
    for p in written:
        assert p.is_file() and p.stat().st_size > 0, p
    assert (out / "fig1.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

    doc = json.loads((out / "results.json").read_text(encoding="utf-8"))
    assert doc["mode"] == "quick" and "QUICK MODE" in doc["mode_note"]
    assert doc["paper_budget"] is False
    tables = {t["id"]: t for t in doc["tables"]}
    assert set(tables) == {"Table 1"}, "values of experiments that did not run are left out"
    row = tables["Table 1"]["rows"][0]
    assert {"table", "row", "column", "paper", "afsim", "difference", "within_tolerance"} <= set(row)
    assert row["paper"] == 500.0 and row["afsim"]["n"] == 2
    assert [c["id"] for c in doc["claims"]] == ["capped", "wrong", "absent"]
    assert [c["holds"] for c in doc["claims"]] == [True, False, None]
    assert {"id", "statement", "holds", "measured"} <= set(doc["claims"][0])
    assert len(doc["runs"]) == 4

    report = (out / "report.md").read_text(encoding="utf-8")
    assert "QUICK MODE" in report
    assert "**holds**" in report and "**does not hold**" in report and "not evaluated" in report
    assert "a note" in report and "fig1.png" in report
    runs = (out / "runs.csv").read_text(encoding="utf-8").splitlines()
    assert len(runs) == 1 + 4 and "throughput_kbps" in runs[0]


def test_a_failing_run_says_which_and_why(tmp_path: Path) -> None:
    paper = _fake_paper(tmp_path)
    bad = dataclasses.replace(paper.experiments[0],
                              points=(Point({"rate": 1}, {"rate": "fast"}),))
    with pytest.raises(core.RunFailed) as e:
        core.reproduce(dataclasses.replace(paper, experiments=(bad,)),
                       Mode("quick", 100, 1), jobs=1)
    assert e.value.kind == "scenario" and "rate" in str(e.value) and "fake.toml" in str(e.value)


def test_only_rejects_an_unknown_experiment(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="unknown experiment"):
        core.reproduce(_fake_paper(tmp_path), Mode("quick", 100, 1), only=["nope"])


# ---------------------------------------------------------------------------------------------
# Giacomazzi et al.


def test_every_published_value_has_a_point_and_a_known_metric() -> None:
    paper = giacomazzi.paper(GIACOMAZZI)
    values, tolerances = core.load_paper_values(paper.data)
    assert len(values) == 368, "Tables 2–9 as printed"
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
        allowed = metrics.get(v.experiment, {"throughput_kbps", "ros_pct"})
        assert v.metric in allowed, v


def test_identical_runs_of_different_tables_are_shared() -> None:
    paper = giacomazzi.paper(GIACOMAZZI)
    exps = {e.id: e for e in paper.experiments}
    csa10 = next(p for p in exps["table2"].points if p.labels == {"alpha": "CSA", "n_af": 10})
    same = [p for e in ("appendix_a", "appendix_b", "appendix_c") for p in exps[e].points
            if dict(p.overrides) == dict(csa10.overrides)]
    assert len(same) == 3, "Table 1's timers, b2 and B are Table 2's CSA rows"


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
    exist, the outputs are written and say they are reduced."""
    paper = giacomazzi.paper(GIACOMAZZI)
    exps = {e.id: e for e in paper.experiments}
    small = dataclasses.replace(paper, experiments=(exps["table2"].subset(2),
                                                    exps["table3"].subset(2)))
    mode = giacomazzi.mode(quick=True, max_packets=30_000, replications=2)
    rep = core.reproduce(small, mode, jobs=2)
    assert len(rep.tasks) == 8
    for point, stats in rep.aggregates.by_experiment["table2"]:
        assert point.labels["alpha"] == "0.4"
        for m in ("throughput_kbps", "ros_pct", "p_inb", "p_nc_1", "p_c_1", "alpha_mean"):
            assert stats[m].n == 2, (point.labels, m)
        assert 0.0 < stats["throughput_kbps"].mean < 2000.0
        assert stats["alpha_mean"].mean == pytest.approx(0.4)
    for point, stats in rep.aggregates.by_experiment["table3"]:
        assert point.labels["case"] == "a"
        for m in ("af1.throughput_kbps", "af3.ros_pct", "af1.p_c_ir", "be.throughput_kbps",
                  "be.p_ir"):
            assert stats[m].n == 2, (point.labels, m)
    claims = {c.id: r for c, r in rep.claims}
    assert claims["timers-insensitive"].holds is None, "Appendix A did not run"

    written = core.write_outputs(rep, tmp_path / "out")
    doc = json.loads((tmp_path / "out" / "results.json").read_text(encoding="utf-8"))
    assert doc["mode"] == "quick" and doc["max_packets"] == 30_000
    assert {t["id"] for t in doc["tables"]} == {"Table 2", "Table 3"}
    assert {p.name for p in written} >= {"fig7_throughput.png", "fig8_ros.svg", "report.md"}
    assert "QUICK MODE" in (tmp_path / "out" / "report.md").read_text(encoding="utf-8")


def test_cli_reproduce_rejects_unknown_paper_and_experiment(tmp_path: Path) -> None:
    p = afsim_cmd("reproduce", "nosuch", "--out", tmp_path)
    assert p.returncode == 2 and "giacomazzi" in p.stderr
    p = afsim_cmd("reproduce", "giacomazzi", "--only", "table99", "--out", tmp_path)
    assert p.returncode == 2 and "table2" in p.stderr
    p = afsim_cmd("reproduce", "giacomazzi", "--jobs", "0", "--out", tmp_path)
    assert p.returncode == 2


def test_cli_reproduce_quick_json(tmp_path: Path) -> None:
    out = tmp_path / "out"
    p = afsim_cmd("reproduce", "giacomazzi", "--quick", "--only", "table3", "--max-packets",
                  "20000", "--replications", "1", "--jobs", "2", "--format", "json",
                  "--out", out, timeout=120)
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    assert doc["mode"] == "quick" and "QUICK MODE" in doc["mode_note"]
    assert [t["id"] for t in doc["tables"]] == ["Table 3"]
    assert len(doc["runs"]) == 8
    assert (out / "report.md").is_file() and (out / "results.json").is_file()


@pytest.mark.slow
def test_cli_reproduce_quick_whole(tmp_path: Path) -> None:
    """The whole quick reproduction, as a user runs it (a few minutes on two cores)."""
    out = tmp_path / "out"
    p = afsim_cmd("reproduce", "giacomazzi", "--quick", "--out", out, timeout=3600)
    assert p.returncode == 0, p.stderr
    assert "QUICK MODE" in p.stdout
    doc = json.loads((out / "results.json").read_text(encoding="utf-8"))
    # Tables 2–9, plus Table 2 again with the other token clock (experiment table2_continuous)
    tables = [t["id"] for t in doc["tables"]]
    assert tables == [f"Table {k}" for k in range(2, 10)] + ["Table 2 — continuous token credit"]
    assert all(c["holds"] is not None for c in doc["claims"])


def test_reproduce_package_lists_its_papers() -> None:
    assert reproduce.PAPERS == {"giacomazzi": "afsim.reproduce.giacomazzi"}
    assert reproduce.paper_module("giacomazzi") is giacomazzi
    with pytest.raises(KeyError):
        reproduce.paper_module("nope")


def test_a_variant_experiment_is_compared_with_its_base_experiments_values() -> None:
    base = Experiment("e", "base", Path("s.toml"), (Point({"n": 1}, {}),), giacomazzi.scenario1_metrics)
    variant = Experiment("e_v", "variant", Path("s.toml"), (Point({"n": 1}, {"x": "1"}),),
                         giacomazzi.scenario1_metrics, variant_of=("e", "x = 1"))
    values = [core.PaperValue("Table 2", "r", "c", 5.0, "e", {"n": 1}, "thr", "throughput"),
              core.PaperValue("Table 3", "r", "c", 7.0, "other", {"n": 1}, "thr", "throughput")]
    extra = core.variant_values(values, [base, variant])
    assert [(v.table, v.experiment, v.value) for v in extra] == [("Table 2 — x = 1", "e_v", 5.0)]
    assert core.variant_values(values, [base]) == []
    # the variant's results, not the base's, meet the copied value
    agg = Aggregates()
    agg.by_experiment["e"] = [(base.points[0], {"thr": Stat.of([4.0])})]
    agg.by_experiment["e_v"] = [(variant.points[0], {"thr": Stat.of([5.1])})]
    tol = {"throughput": {"relative": 0.05}}
    comps = core.compare(values[:1] + extra, tol, agg)
    assert [(c.value.experiment, c.afsim.mean, c.within) for c in comps] == [("e", 4.0, False), ("e_v", 5.1, True)]
