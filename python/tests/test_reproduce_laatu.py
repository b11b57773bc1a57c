"""The Laatu, Harju, Loula reproduction (afsim/reproduce/laatu/): its statements and their
quotes, its published values, its null model, its claims on the paper's own numbers and on the
null model's, the replications' start phases, the metrics of real runs, a smoke run and the
command."""

from __future__ import annotations

import dataclasses
import json
import math
import tomllib
from pathlib import Path

import pytest
from conftest import afsim_cmd

import afsim
from afsim import reproduce
from afsim.reproduce import core, laatu, scoring
from afsim.reproduce.claims import Kind
from afsim.reproduce.core import Aggregates, Stat, View
from afsim.reproduce.laatu import mbr as laatu_mbr
from afsim.reproduce.scoring import Verdict

REPO = Path(__file__).resolve().parents[2]
LAATU = REPO / "scenarios" / "laatu"


def _paper() -> core.Paper:
    return laatu.paper(LAATU)


def _experiments() -> dict[str, core.Experiment]:
    return {e.id: e for e in _paper().experiments}


# ---------------------------------------------------------------------------------------------
# statements







def test_exactly_the_25_claims_of_the_text() -> None:
    assert sum(1 for s in laatu.STATEMENTS if s.kind is Kind.CLAIM) == 25



# ---------------------------------------------------------------------------------------------
# published values and tolerances


def test_every_published_value_has_a_point_and_a_metric_a_run_produces() -> None:
    paper = _paper()
    values, tolerances = scoring.load_paper_values(paper.data)
    assert len(values) == 95, "Tables I–III as printed"
    assert {v.table for v in values} == {"Table I", "Table II", "Table III"}
    for kind, t in tolerances.items():
        assert "§4.1" in t.source or "printed" in t.source or "Inf." in t.source, kind
    exps = _experiments()
    # one real run per experiment, at its first point: the metrics the values name exist
    produced = {}
    for eid, e in exps.items():
        point = e.points[0] if eid != "table2" else e.points[-1]
        overrides = {**e.overrides_for(point, 1), "duration": "60s"}
        results = afsim.simulate(e.scenario, overrides=overrides)
        produced[eid] = set(laatu.metrics(results))
    for v in values:
        assert v.kind in tolerances
        matching = [p for p in exps[v.experiment].points if p.matches(v.point)]
        assert len(matching) == 1, v
        assert v.metric in produced[v.experiment], v


def test_tolerances_are_the_spreads_the_paper_calls_no_remarkable_difference() -> None:
    _, tol = scoring.load_paper_values(laatu.DATA)
    # Table I's unloaded rows (SIMA off / on): each tolerance just covers the paper's own pair
    for kind, (a, b) in {"throughput_mbps": (5.99, 6.05), "transfer_time": (1.32, 1.34),
                         "rtt_mean": (43.7, 44.4), "rtt_dev": (17.3, 18.4)}.items():
        rel = tol[kind].relative
        assert rel is not None and (b - a) / a <= rel < (b - a) / a + 0.0001, kind
    assert tol["throughput_kbps"].relative == laatu.INSIGNIFICANT_THR
    assert tol["rexmt"].absolute == 0.5 and tol["rexmt"].relative is None
    assert tol["completion"].holds(0.0, 0.0) and not tol["completion"].holds(0.0, 0.2)


# ---------------------------------------------------------------------------------------------
# the null model


def _null(eid: str, labels: dict) -> dict[str, float]:
    e = _experiments()[eid]
    point = next(p for p in e.points if p.matches(labels))
    return laatu.null_model(e, point)


def test_the_null_model_gives_tcp_what_the_background_leaves() -> None:
    m = _null("table1_off", {"background_mbps": 8.5})
    assert m["throughput_mbps"] == pytest.approx(1.5)
    assert m["transfer_time_s"] == pytest.approx(8.0 / 1.5)
    assert (m["rexmt_bytes"], m["rtt_dev_ms"], m["completed"]) == (0.0, 0.0, 1.0)
    # 5 × ((1526 + 78) B × 8 at 10 Mb/s + 2 × 0.1 ms)
    assert m["rtt_mean_ms"] == pytest.approx(5 * (1604 * 8 / 10_000 + 0.2))
    full = _null("table1_off", {"background_mbps": 10})
    assert full["throughput_mbps"] == 0.0 and full["completed"] == 0.0
    assert math.isnan(full["transfer_time_s"]) and math.isnan(full["rtt_mean_ms"])
    assert _null("table1_off", {"background_mbps": 0})["throughput_mbps"] == pytest.approx(10.0)


def test_the_null_model_gives_sima_its_nbr_up_to_what_dp4_leaves() -> None:
    assert _null("table1_on", {"background_mbps": 0})["throughput_mbps"] == pytest.approx(1.2)
    low = _null("table2", {"nbr_kbps": 400})
    assert low["throughput_kbps"] == pytest.approx(400.0) and low["transfer_time_s"] == pytest.approx(20.0)
    assert _null("table2", {"nbr_kbps": 1600})["throughput_kbps"] == pytest.approx(1500.0)
    assert low["bg4_reduction_kbps"] == 0.0 and low["low_loss"] == 1.0
    four = _null("table3", {"flows": 4})
    assert [four[f"flow{k}.throughput_kbps"] for k in range(1, 5)] == [200.0] * 4
    assert four["flow4.transfer_time_s"] == pytest.approx(10.0) and four["jain"] == 1.0


# ---------------------------------------------------------------------------------------------
# the claims on synthetic results


def _synthetic(fill) -> Aggregates:
    paper = _paper()
    values, _ = scoring.load_paper_values(paper.data)
    agg = Aggregates()
    for e in paper.experiments:
        rows = []
        for pt in e.points:
            rows.append((pt, {v.metric: Stat.exact(fill(v)) for v in values
                              if v.experiment == e.id and pt.matches(v.point)}))
        agg.by_experiment[e.id] = rows
    return agg


#: Claims on numbers the paper does not print (DP shares, time in congestion avoidance, the
#: background's losses, packets in the first second).
UNPRINTED = {"abs-ca", "s35-dp4-accepted", "s41-below4", "s41-udp-through", "s42-low-dp",
             "s42-above4", "s42-too-high"}


def test_a_perfect_result_matches_every_value_and_satisfies_the_claims_it_can_read() -> None:
    """The paper's own numbers, fed back as afsim's: every value matches, and every claim whose
    numbers the paper prints holds (a claim failing here would misread its sentence)."""
    paper = _paper()
    values, tol = scoring.load_paper_values(paper.data)
    perfect = View(_synthetic(lambda v: v.value), "perfect")
    comps = scoring.compare(values, tol, perfect)
    assert all(c.verdict is Verdict.MATCH for c in comps)
    results = {s.id: s.evaluate(perfect) for s in paper.statements if s.evaluate is not None}
    assert {k for k, r in results.items() if r.holds is None} == UNPRINTED
    failing = {k: r.measured for k, r in results.items() if r.holds is False}
    assert not failing, failing


def test_a_value_off_by_more_than_its_tolerance_misses() -> None:
    paper = _paper()
    values, tol = scoring.load_paper_values(paper.data)
    off = View(_synthetic(lambda v: v.value * 1.07 + 1.0), "off")
    assert all(c.verdict is Verdict.MISS for c in scoring.compare(values, tol, off))


def test_the_null_model_fails_the_claims_that_need_the_testbed() -> None:
    paper = _paper()
    null = View(core.null_aggregates(paper, list(paper.experiments)), "null")
    holds = {s.id: s.evaluate(null).holds for s in paper.statements if s.evaluate}
    for needs_queues in ("s41-not-depending", "s42-falls-short", "s42-much-less", "s43-none",
                         "s43-unfair", "s2-reliability", "s42-rtt-ranges", "abs-recover"):
        assert holds[needs_queues] is False, needs_queues
    for easy in ("conc-no-gain", "s41-no-bandwidth", "conc-protect"):
        assert holds[easy] is True, easy
    # it predicts no background loss, but no DP, congestion avoidance or first second
    assert {k for k, v in holds.items() if v is None} == UNPRINTED - {"s35-dp4-accepted", "s41-udp-through"}


# ---------------------------------------------------------------------------------------------
# replications


def test_each_replication_starts_the_transfer_at_another_phase_of_the_background() -> None:
    starts = [float(laatu.start_phase({}, seed)["tcp_start"][:-1]) for seed in range(1, 6)]
    assert starts[0] == 2.0, "the first replication is the scenario's own start"
    assert len(set(starts)) == 5 and all(2.0 <= s < 2.01 for s in starts)
    # five golden-ratio phases: no two closer than 1.4 ms within the 10 ms span
    gaps = sorted(starts)
    assert min(b - a for a, b in zip(gaps, gaps[1:], strict=False)) > 0.0014
    design = laatu.start_phase({"tcp_start": "12.5s"}, 2)["tcp_start"]
    assert design == f"{12.5 + laatu.PHASE_SPAN_S * laatu.GOLDEN:.7f}s", "added to a design's start"
    assert laatu.start_phase({"tcp_start": "2500ms"}, 1)["tcp_start"] == "2.5000000s"
    with pytest.raises(ValueError):
        laatu.start_phase({"tcp_start": "soon"}, 1)


def test_every_experiment_replicates_by_phase_and_is_robust() -> None:
    for e in _experiments().values():
        assert e.replicate is laatu.start_phase and e.robust, e.id


# ---------------------------------------------------------------------------------------------
# metrics of real runs


def test_metrics_of_an_unloaded_sima_transfer() -> None:
    e = _experiments()["table1_on"]
    r = afsim.simulate(e.scenario, overrides=e.overrides_for(e.points[0], 1))
    m = laatu.metrics(r)
    assert m["completed"] == 1.0 and m["start_s"] == pytest.approx(2.0)
    assert m["transfer_time_s"] == pytest.approx(float(r.flows["completion_time_s"].iloc[0]) - 2.0)
    assert m["throughput_kbps"] == pytest.approx(8_000.0 / m["transfer_time_s"]), "1 MB over the time"
    assert m["throughput_mbps"] == pytest.approx(m["throughput_kbps"] / 1000.0)
    assert m["rexmt_bytes"] == 0.0 and 0.0 <= m["ca_share"] <= 1.0
    assert sum(m[f"dp{k}_share"] for k in range(8)) == pytest.approx(1.0)
    assert m["dp7_share"] == 0.0, "equation (1) never gives 7"
    assert m["rtt_mean_ms"] > 0 and m["rtt_dev_ms"] >= 0
    assert "bg4_loss" not in m, "no background in this row"


def test_metrics_of_an_incomplete_best_effort_transfer() -> None:
    e = _experiments()["table1_off"]
    point = next(p for p in e.points if p.labels["background_mbps"] == 10)
    r = afsim.simulate(e.scenario, overrides={**e.overrides_for(point, 1), "duration": "30s"})
    m = laatu.metrics(r)
    assert m["completed"] == 0.0 and m["transfer_time_s"] == pytest.approx(28.0), "a lower bound"
    acked = float(r.flows["goodput_bytes"].iloc[0])
    assert m["throughput_kbps"] == pytest.approx(acked * 8 / 1000 / 28.0)
    assert 0.0 < m["bg_loss"] < 0.1, "10 Mb/s of IP packets overload the link by their framing"
    assert "dp0_share" not in m, "nothing marks best effort"


def test_metrics_rank_the_four_flows_by_transfer_time() -> None:
    e = _experiments()["table3"]
    r = afsim.simulate(e.scenario, overrides=e.overrides_for(e.points[0], 1))
    m = laatu.metrics(r)
    times = [m[f"flow{k}.transfer_time_s"] for k in range(1, 5)]
    assert times == sorted(times) and m["completed"] == 1.0
    thr = [m[f"flow{k}.throughput_kbps"] for k in range(1, 5)]
    assert thr == pytest.approx([2_000.0 / t for t in times]), "250 kB each"
    assert m["aggregate_kbps"] == pytest.approx(sum(thr))
    assert m["throughput_ratio"] == pytest.approx(max(thr) / min(thr))
    assert 0.0 <= m["bg4_loss"] < 0.059 and m["low_loss"] > 0.5
    assert m["bg4_reduction_kbps"] == pytest.approx(8_500.0 * m["bg4_loss"])


# ---------------------------------------------------------------------------------------------
# variants and unstated parameters


def test_variants_and_unstated_parameters_are_declared_with_their_reasons() -> None:
    paper = _paper()
    v = {x.id: x for x in paper.variants}
    assert v["mbr_1mb"].overrides == {"mbr_buffer": "1MB"} and "match" in v["mbr_1mb"].why
    assert v["mbr_1mb"].unchanged == ("table1_off",)
    assert v["jitter"].overrides == {"bg_jitter": "true"}
    # the MBR readings (issue 21): the form and the averaging time, one thing at a time
    assert v["mbr_tsw"].overrides == {"mbr_estimator": "tsw"}
    assert v["mbr_window"].overrides == {"mbr_estimator": "window"}
    assert v["mbr_tsw_1mb"].overrides == {"mbr_estimator": "tsw", "mbr_buffer": "1MB"}
    assert v["mbr_window_1mb"].overrides == {"mbr_estimator": "window", "mbr_buffer": "1MB"}
    for vid in ("mbr_1mb", "mbr_tsw", "mbr_tsw_1mb", "mbr_window", "mbr_window_1mb"):
        assert v[vid].experiments == ("table1_on", "table2", "table3") and v[vid].unchanged == ("table1_off",)
    assert "RFC 2859" in v["mbr_tsw"].why and "memory window" in v["mbr_window"].why
    names = {u.name for u in paper.unstated}
    assert {"mbr_buffer", "mbr_estimator", "occupancy", "dpa_slope", "dpa_offset", "low_rate", "router_limit",
            "delay", "delack", "window", "tcp_start", "bg_packet_size"} == names
    files = {"sima.toml": LAATU / "sima.toml", "best_effort.toml": LAATU / "best_effort.toml"}
    for u in paper.unstated:
        for name, path in files.items():
            if u.scenarios and name not in u.scenarios:
                continue
            params = tomllib.loads(path.read_text(encoding="utf-8"))["params"]
            assert str(params[u.name]) == u.default, (name, u.name)
    sima = tomllib.loads(files["sima.toml"].read_text(encoding="utf-8"))["params"]
    assert sima["mbr_buffer"] == "20000B", "eq. (4) with the testbed's NRT buffer, the text's value"
    assert sima["mbr_estimator"] == "ewma", "the SIMA draft's §9.1 average, the one form a source gives"
    assert sima["bg_jitter"] is False, "§3.5: periodic"


def test_the_nbr_response_figure_draws_one_panel_per_reading_that_ran(tmp_path: Path) -> None:
    """Issue 21's figure: a panel for the default and each MBR variant with Table II points,
    none for a reading that did not run, nothing at all when Table II did not run."""
    import types

    points = {p.labels["nbr_kbps"]: p for p in next(e for e in _paper().experiments
                                                    if e.id == "table2").points}

    def rows(dp: int) -> list:  # every packet at one DP, 100 kb/s
        return [(points[n], {**{f"dp{k}_share": Stat.exact(float(k == dp)) for k in range(8)},
                             "throughput_kbps": Stat.exact(100.0), "completed": Stat.exact(1.0)})
                for n in (400, 1600)]

    agg = Aggregates()
    agg.by_experiment = {"table2": rows(4), "table2@mbr_tsw": rows(2)}
    rep = types.SimpleNamespace(aggregates=agg)
    paths = laatu_mbr.nbr_response_figure(rep, tmp_path, "table2", laatu.NBRS, "t")  # type: ignore[arg-type]
    assert {p.name for p in paths} == {"nbr_dp_response.png", "nbr_dp_response.svg"}
    assert all(p.stat().st_size > 0 for p in paths)
    assert laatu_mbr.panels_for(rep, "table2") == ["", "mbr_tsw"]
    assert set(laatu_mbr.PANEL) == {""} | {v.id for v in laatu_mbr.VARIANTS}
    empty = types.SimpleNamespace(aggregates=Aggregates())
    assert laatu_mbr.nbr_response_figure(empty, tmp_path / "none", "table2", laatu.NBRS, "t") == []  # type: ignore[arg-type]


def test_scenarios_dir_falls_back_to_the_files_shipped_in_the_package(tmp_path: Path) -> None:
    found = laatu.find_scenarios_dir(tmp_path)
    assert found == Path(afsim.__file__).parent / "scenarios" / "laatu"
    assert (found / "sima.toml").read_bytes() == (LAATU / "sima.toml").read_bytes()


# ---------------------------------------------------------------------------------------------
# a smoke run and the command


def test_laatu_smoke_on_a_few_points(tmp_path: Path) -> None:
    """Three points with a short cap, two replications, in parallel, with the MBR variant: the
    metrics exist for both replications, the replications differ, the outputs and the paper's
    cwnd and DP figures are written and say the run is reduced."""
    paper = _paper()
    exps = {e.id: e for e in paper.experiments}
    table2 = dataclasses.replace(exps["table2"], points=(exps["table2"].points[-2],))
    small = dataclasses.replace(
        paper, experiments=(exps["table1_on"], table2, exps["table3"]),
        variants=paper.variants[:1])
    mode = laatu.mode(quick=True, budget=60, replications=2)
    rep = core.reproduce(small, mode, jobs=2, robustness=False)
    assert len(rep.tasks) == 3 * 2 + 3 * 2, "3 points × 2 seeds, and the variant's 3 × 2"
    assert all(dict(t.overrides)["duration"] == "60s" for t in rep.tasks)
    (point, stats), = rep.aggregates.by_experiment["table2"]
    assert point.labels["nbr_kbps"] == 1600
    for m in ("throughput_kbps", "rtt_mean_ms", "rexmt_bytes", "bg4_reduction_kbps", "dp4_share",
              "ca_share"):
        assert stats[m].n == 2, m
    starts = {o.metrics["start_s"] for o in rep.outcomes if "start_s" in o.metrics}
    assert len(starts) == 2, "two phases of the background"
    claims = {c.statement.id: c for c in rep.verdicts.claims.claims}
    assert claims["s41-no-bandwidth"].afsim.holds is None, "table1_off did not run"
    written = reproduce.write_outputs(rep, tmp_path / "out")
    names = {p.name for p in written}
    assert {"report.md", "results.json", "runs.csv", "table2_throughput.png", "fig4_cwnd.png",
            "fig5_dp.svg", "fig8_cwnd.png", "fig9_dp.png", "fig11_cwnd.svg",
            "table2_throughput_mbr_1mb.png", "nbr_dp_response.png", "nbr_dp_response.svg"} <= names
    assert laatu_mbr.panels_for(rep, "table2") == ["", "mbr_1mb"], "the default and the variant that ran"
    assert "fig2_cwnd.png" not in names, "its experiment did not run"
    doc = json.loads((tmp_path / "out" / "results.json").read_text(encoding="utf-8"))
    assert doc["mode"] == "quick" and doc["budget_param"] == "duration" and doc["paper_budget"] is False
    report = (tmp_path / "out" / "report.md").read_text(encoding="utf-8")
    assert "QUICK MODE" in report and "instead of the paper's 5" in report
    assert "![fig8_cwnd](fig8_cwnd.png)" in report


def test_cli_reproduce_laatu_quick_json(tmp_path: Path) -> None:
    out = tmp_path / "out"
    p = afsim_cmd("reproduce", "laatu", "--quick", "--only", "table1_on", "--only", "table3",
                  "--replications", "1", "--jobs", "2", "--format", "json", "--no-variants",
                  "--no-robustness", "--out", out, timeout=300)
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    assert doc["paper"]["id"] == "laatu" and "QUICK MODE" in doc["mode_note"]
    assert [t["table"] for t in doc["tables"]] == ["Table I", "Table III"]
    assert len(doc["runs"]) == 2 and doc["design"] == []
    assert doc["statement_counts"]["claim"] == 25
    assert (out / "report.md").is_file() and (out / "fig11_cwnd.png").is_file()
    p = afsim_cmd("reproduce", "laatu", "--only", "table9", "--out", tmp_path / "x")
    assert p.returncode == 2 and "table1_off" in p.stderr


@pytest.mark.slow
def test_cli_reproduce_laatu_quick_whole(tmp_path: Path) -> None:
    """The whole quick reproduction, as a user runs it (about a minute on two cores)."""
    out = tmp_path / "out"
    p = afsim_cmd("reproduce", "laatu", "--quick", "--out", out, timeout=3600)
    assert p.returncode == 0, p.stderr
    assert "QUICK MODE" in p.stdout
    doc = json.loads((out / "results.json").read_text(encoding="utf-8"))
    assert [t["table"] for t in doc["tables"]] == ["Table I", "Table II", "Table III"]
    assert set(doc["scores"]) == {"afsim", "null", "mbr_1mb", "mbr_tsw", "mbr_tsw_1mb", "mbr_window",
                                  "mbr_window_1mb", "jitter"}
    claims = [s for s in doc["statements"] if s["class"] == "claim"]
    assert len(claims) == 25 and all(s["afsim"]["holds"] is not None for s in claims)
    assert all(s["robustness"] is not None for s in claims)
    assert len(doc["design"]) == laatu.QUICK.robust_points
    for fig in ("fig2_cwnd", "fig3_cwnd", "fig4_cwnd", "fig5_dp", "fig6_cwnd", "fig7_dp",
                "fig8_cwnd", "fig9_dp", "fig10_cwnd", "fig11_cwnd"):
        assert (out / f"{fig}.png").is_file() and (out / f"{fig}.svg").is_file(), fig
