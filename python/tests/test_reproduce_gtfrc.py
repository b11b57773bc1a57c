"""The gTFRC reproduction (afsim/reproduce/gtfrc/): its statements, published values, null
model, the metrics that turn a run into the paper's numbers, the claims on the paper's own
numbers, a smoke run and the command line; and the machinery extensions it needs (a budget in
seconds, time-series points that set it themselves, at most N replications, the metrics a
report lists, design overrides, extra figures)."""

from __future__ import annotations

import dataclasses
import json
import math
import re
import tomllib
from pathlib import Path

import pandas as pd
import pytest
from conftest import afsim_cmd
from test_reproduce import FAKE_MODE, _fake_paper

import afsim
from afsim import reproduce
from afsim.reproduce import core, gtfrc, scoring
from afsim.reproduce.claims import Kind
from afsim.reproduce.core import Aggregates, Mode, Point, Stat, View
from afsim.reproduce.scoring import Verdict

REPO = Path(__file__).resolve().parents[2]
GTFRC = REPO / "scenarios" / "gtfrc"


def _paper() -> core.Paper:
    return gtfrc.paper(GTFRC)


# ---------------------------------------------------------------------------------------------
# statements







def test_every_figure_and_table_is_the_subject_of_a_claim() -> None:
    tests = " ".join(s.test for s in gtfrc.STATEMENTS if s.kind is Kind.CLAIM)
    for n in gtfrc.FIGURE_NUMBERS:
        assert re.search(rf"Figs?\. ([\d, and]*\b)?{n}\b", tests) or f"{n}a" in tests, n
    for t in range(1, 6):
        assert f"Table {t}" in tests, t



# ---------------------------------------------------------------------------------------------
# published values and tolerances


def _metrics_of(panel: gtfrc.Panel, experiment: str) -> set[str]:
    """The metrics a run of this panel produces (run_metrics / series_metrics)."""
    if experiment.endswith("_t"):
        return {f"{f.name}.{m}" for f in panel.flows for m in ("rate_kbps", "cum_kbps")}
    per_flow = {"thr_kbps", "sent_kbps", "target_kbps", "thr_over_target"}
    tfrc = {"ss_exit_s", "reach_s", "x_below_share", "x_floor_share"}
    out = {f"{f.name}.{m}" for f in panel.flows
           for m in per_flow | (tfrc if f.kind in ("TFRC", "gTFRC") else set())}
    return out | {f"{tag}.{col}" for tag in ("in", "out")
                  for col in ("share_pct", "ldrops", "edrops", "drops", "overflow")}


def test_every_published_value_has_a_point_and_a_known_metric() -> None:
    paper = _paper()
    values, tolerances = scoring.load_paper_values(paper.data)
    assert len(values) == 60, "Tables 1–5 as printed (56) and the four values the text states"
    assert {v.table for v in values} == {"Table 1", "Table 2", "Table 3", "Table 4", "Table 5",
                                         "Fig. 4 (§4.2.1)", "Fig. 8 (§4.2.2)", "Fig. 12 (§4.4)"}
    assert tolerances["throughput"].relative == gtfrc.SAME_THR
    assert tolerances["share"].absolute == gtfrc.SIMILAR_SHARE
    assert tolerances["loss"].factor == gtfrc.SIMILAR_LOSS
    for t in tolerances.values():
        assert "§" in t.source, t
    exps = {e.id: e for e in paper.experiments}
    for v in values:
        matching = [p for p in exps[v.experiment].points if p.matches(v.point)]
        assert len(matching) == 1, v
        assert v.metric in _metrics_of(gtfrc.PANEL[str(v.point["fig"])], v.experiment), v
    doc = json.loads(paper.data.read_text(encoding="utf-8"))
    # the drop percentages are stored as probabilities, the paper's text beside them
    for raw in doc["values"]:
        if raw["kind"] == "loss":
            assert raw["value"] == pytest.approx(float(raw["printed"].rstrip("%")) / 100)


def test_the_tolerances_hold_the_pairs_they_were_taken_from_and_no_wider() -> None:
    """Each tolerance is the widest difference the paper calls similar: its own pair passes
    and a hair more would not."""
    assert abs(413.20 - 402.32) <= gtfrc.SAME_THR * 402.32 < abs(413.20 - 402.32) * 1.01
    assert round(abs(76.63 - 73.57), 9) <= gtfrc.SIMILAR_SHARE < abs(76.63 - 73.57) + 0.01
    assert 3.41 / 1.67 <= gtfrc.SIMILAR_LOSS < 3.41 / 1.67 + 0.01


# ---------------------------------------------------------------------------------------------
# the grid, the scenarios and what the paper leaves open


def test_the_panels_are_the_papers() -> None:
    assert [p.fig for p in gtfrc.PANELS if p.experiment == "two_tfrc"] == [
        "4a", "4b", "5a", "5b", "9a", "9b", "10a", "10b", "11a", "11b"]
    assert {p.fig for p in gtfrc.PANELS} == {f"{n}{s}" for n in gtfrc.FIGURE_NUMBERS for s in "ab"}
    for p in gtfrc.PANELS:
        total = sum(f.target_kbps for f in p.flows)
        assert total == (1000 if p.provisioning == "exactly" else 800), p.fig
        kinds = {f.kind for f in p.flows}
        assert ("gTFRC" in kinds) == (p.fig.endswith("b") and p.experiment != "two_tcp"), p.fig
    assert gtfrc.PANEL["9a"].flows[0].rtt_ms == 250 and gtfrc.PANEL["10a"].flow("a").target_kbps == 600


def test_every_point_loads_with_its_overrides() -> None:
    """Every override is a parameter of its scenario (an unknown one would be an error)."""
    for e in _paper().experiments:
        for p in e.points[:: max(1, len(e.points) // 7)]:
            afsim.load_scenario(e.scenario, overrides=dict(p.overrides))


def test_access_delays_keep_the_papers_rtts_at_any_shared_delay() -> None:
    assert gtfrc.panel_overrides(gtfrc.PANEL["4a"])["delay_a"] == "305ms", "as the scenario file"
    assert gtfrc.panel_overrides(gtfrc.PANEL["9b"])["delay_b"] == "110ms"
    assert gtfrc.panel_overrides(gtfrc.PANEL["14a"])["delay"] == "5ms"
    u = next(x for x in gtfrc.UNSTATED if x.name == "edge_delay")
    assert u.high is not None and gtfrc.access_delay_ms(40, u.high) > 0, "a 40 ms RTT still fits"
    e = next(x for x in _paper().experiments if x.id == "two_tfrc")
    for p in e.points:
        ov = gtfrc.design_overrides(e, p, {"edge_delay": "2.5ms"})
        panel = gtfrc.PANEL[str(p.labels["fig"])]
        for f in panel.flows:
            access = float(ov[f"delay_{f.name}"].removesuffix("ms"))
            assert 2 * (access + 3 * 2.5) == pytest.approx(f.rtt_ms)
    assert gtfrc.design_overrides(e, e.points[0], {"w_q": "0.01"}) == {}


def test_unstated_parameters_are_the_scenarios_params_with_their_defaults() -> None:
    for u in gtfrc.UNSTATED:
        for fname in gtfrc.EXPERIMENT_FILES.values():
            if u.scenarios and fname not in u.scenarios:
                continue
            params = tomllib.loads((GTFRC / fname).read_text(encoding="utf-8"))["params"]
            assert str(params[u.name]) == u.default, (fname, u.name)
    assert {u.name for u in gtfrc.UNSTATED} == {"edge_rate", "edge_delay", "w_q", "tcp_window",
                                                "tcp_packet_size"}


def test_the_tfrc_preset_is_ns2_28_by_default_and_ns2_35_is_the_one_variant() -> None:
    # the paper ran ns-2.28 (§4): the scenarios' TFRC flows follow it; ns-2.35's is the variant
    for fname in gtfrc.EXPERIMENT_FILES.values():
        doc = tomllib.loads((GTFRC / fname).read_text(encoding="utf-8"))
        tfrc = [f for f in doc["flow"] if f["kind"] == "tfrc"]
        assert all(f["preset"] == "$tfrc_preset" for f in tfrc), fname
        assert doc["params"].get("tfrc_preset") == ("ns2_28" if tfrc else None), fname
    (v,) = gtfrc.paper().variants
    assert (v.id, dict(v.overrides)) == ("ns2_35", {"tfrc_preset": "ns2"})
    ids = {e.id for e in gtfrc.paper().experiments}
    assert set(v.experiments) | set(v.unchanged) == ids and not set(v.experiments) & set(v.unchanged)
    assert set(v.unchanged) == {"two_tcp", "two_tcp_t"}, "the only scenario without TFRC"


def test_the_budget_is_the_papers_duration_and_fixed() -> None:
    full, quick = gtfrc.mode(False), gtfrc.mode(True)
    assert full.budget_value == "100s" and full.is_paper_budget and quick.is_paper_budget
    assert "100 s of simulated time per run" in full.banner()
    assert gtfrc.mode(True, replications=1).replications == 1
    with pytest.raises(ValueError, match="100 s"):
        gtfrc.mode(False, budget=50)


# ---------------------------------------------------------------------------------------------
# from a run to the paper's numbers


def test_queue_metrics_count_forced_drops_as_ldrops_as_ns2_does() -> None:
    colours = pd.DataFrame([
        {"queue": "core->egress", "level": 0, "arrivals": 800, "drops_overflow": 2,
         "drops_early": 3, "drops_forced": 1.0},
        {"queue": "core->egress", "level": 1, "arrivals": 200, "drops_overflow": 4,
         "drops_early": 30, "drops_forced": 10.0},
        {"queue": "edge->core", "level": 1, "arrivals": 999, "drops_overflow": 99,
         "drops_early": 0, "drops_forced": math.nan},
    ])
    m = gtfrc.queue_metrics(colours)
    assert (m["in.share_pct"], m["out.share_pct"]) == (80.0, 20.0)
    assert m["in.ldrops"] == 3 / 800 and m["in.edrops"] == 2 / 800  # forced 1: ldrops, not edrops
    assert m["out.ldrops"] == 14 / 200 and m["out.edrops"] == 20 / 200
    assert (m["out.ldrops.events"], m["out.ldrops.trials"]) == (14.0, 200.0)
    assert m["out.drops"] == 34 / 200 and m["out.overflow"] == 4 / 200


def test_tfrc_trace_metrics_read_the_rate_after_the_slow_start_exit() -> None:
    trace = pd.DataFrame({
        "time_s": [0.0, 1.0, 2.0, 3.0, 4.0, 6.0],
        "x_kbps": [10.0, 400.0, 900.0, 500.0, 800.0, 850.0],
        "p": [0.0, 0.0, 0.0, 0.01, 0.01, 0.01],
    })
    m = gtfrc.tfrc_trace_metrics("a", trace, 800.0, end=10.0)
    assert m["a.ss_exit_s"] == 3.0, "the first report of a loss"
    assert m["a.reach_s"] == 4.0, "the slow-start overshoot at 2 s does not count"
    # from the first change after the exit (4 s) to the end: X 800 for 2 s, then 850 for 4 s
    assert m["a.x_below_share"] == 0.0 and m["a.x_floor_share"] == pytest.approx(2 / 6)
    never = gtfrc.tfrc_trace_metrics("a", trace.assign(p=0.0), 800.0, end=10.0)
    assert (never["a.ss_exit_s"], never["a.reach_s"]) == (10.0, 10.0), "censored at the end"
    assert math.isnan(never["a.x_below_share"])
    low = gtfrc.tfrc_trace_metrics("a", trace.assign(x_kbps=[10.0, 400, 900, 500, 700, 790]), 800.0, end=10.0)
    assert low["a.reach_s"] == 10.0 and low["a.x_below_share"] == 1.0


def test_a_run_stopped_at_t_is_the_prefix_of_the_longer_run() -> None:
    """The time series rests on it: the rates of the runs stopped every few seconds add up to
    the long run's delivered bytes exactly, and the traces change nothing."""
    panel = gtfrc.PANEL["6a"]
    path = GTFRC / "tfrc-tcp.toml"
    ov = gtfrc.panel_overrides(panel)
    full = afsim.simulate(path, overrides=ov, seed=3)
    untraced = afsim.simulate(path, overrides=ov | {"trace": "false"}, seed=3)
    assert full.flows["bytes_delivered"].tolist() == untraced.flows["bytes_delivered"].tolist()
    total = {f.name: 0.0 for f in panel.flows}
    for t0, t in gtfrc.series_bins():
        r = afsim.simulate(path, overrides=ov | {"duration": f"{t}s", "warmup": f"{t0}s"}, seed=3)
        m = gtfrc.pick_series(Point({"t": t}, {}), gtfrc.series_metrics(r))
        assert m[f"{panel.flows[0].name}.rate_kbps"] == pytest.approx(
            float(r.flows["throughput_kbps"].iloc[0]), rel=1e-12), "the bin is the measured interval"
        for f in panel.flows:
            total[f.name] += m[f"{f.name}.rate_kbps"] * (t - t0) * 1000 / 8
            assert m[f"{f.name}.cum_kbps"] * t * 1000 / 8 == pytest.approx(total[f.name])
    for _, f in full.flows.iterrows():
        assert total[f["name"]] == pytest.approx(f["bytes_delivered"])


def test_the_series_of_one_run_is_what_the_runs_stopped_at_t_measure() -> None:
    """The reproduction reads every bin from one run's flows series (issue 27): each bin's rate
    and cumulative average equal those of the run stopped at t with its warm-up at t0, and the
    point (fig, t) picks its own from the run's."""
    panel = gtfrc.PANEL["6a"]
    path = GTFRC / "tfrc-tcp.toml"
    ov = gtfrc.panel_overrides(panel)
    one = gtfrc.series_metrics(afsim.simulate(path, overrides=ov, seed=3))
    assert len(one) == 2 * len(panel.flows) * len(gtfrc.SERIES_TIMES)
    for t0, t in gtfrc.series_bins()[::5]:
        r = afsim.simulate(path, overrides=ov | {"duration": f"{t}s", "warmup": f"{t0}s"}, seed=3)
        point = core.Point({"fig": "6a", "t": t}, {})
        picked = gtfrc.pick_series(point, one | {"loss_ratio": 0.0})
        assert set(picked) == {f"{f.name}.{m}" for f in panel.flows for m in ("rate_kbps", "cum_kbps")}
        # what the run stopped at t measures, from its report's own columns
        for _, f in r.flows.iterrows():
            assert picked[f"{f['name']}.rate_kbps"] == pytest.approx(f["throughput_kbps"], rel=1e-12)
            assert picked[f"{f['name']}.cum_kbps"] == pytest.approx(
                f["bytes_delivered"] * 8 / 1000 / t, rel=1e-12)
    assert gtfrc.pick_series(core.Point({"t": 4}, {}), {"a.rate_kbps": 1.0}) == {"a.rate_kbps": 1.0}, \
        "a run that measured one bin (ns-2's) is taken as it is"


def test_pooled_rms_and_variation_by_hand() -> None:
    bins = [gtfrc.Bin(20, 24, 100.0, 16.0), gtfrc.Bin(24, 28, 120.0, 0.0)]
    # mean 110: (16 + 100 + 0 + 100) / 2 = 108
    assert gtfrc.pooled_rms(bins, 110.0) == pytest.approx(math.sqrt(108.0))
    assert gtfrc.pooled_rms(bins, 100.0) == pytest.approx(math.sqrt((16 + 0 + 400) / 2))


# ---------------------------------------------------------------------------------------------
# the null model


def test_the_null_model_gives_every_flow_its_target_and_an_equal_share_of_the_rest() -> None:
    paper = _paper()
    exps = {e.id: e for e in paper.experiments}

    def at(exp: str, fig: str, **labels: int) -> dict[str, float]:
        e = exps[exp]
        p = next(p for p in e.points if p.labels["fig"] == fig and all(p.labels[k] == v for k, v in labels.items()))
        return gtfrc.null_model(e, p)

    a4 = at("two_tfrc", "4a", from_s=0)  # exactly provisioned: nothing left over
    assert (a4["a.thr_kbps"], a4["b.thr_kbps"]) == (800.0, 200.0)
    assert (a4["in.share_pct"], a4["out.share_pct"], a4["out.ldrops"]) == (100.0, 0.0, 0.0)
    assert a4["a.ss_exit_s"] == 100.0 and a4["a.x_floor_share"] == 1.0
    a10 = at("two_tfrc", "10a", from_s=20)  # 200 kb/s shared by two
    assert (a10["a.thr_kbps"], a10["b.thr_kbps"], a10["in.share_pct"]) == (700.0, 300.0, 80.0)
    assert a10["a.x_floor_share"] == 0.0
    a14 = at("tcp_4_tfrc", "14b", from_s=0)  # 200 kb/s shared by five
    assert [a14[f"{n}.thr_kbps"] for n in ("one", "x0", "x1", "x2", "x3")] == [440.0, 240.0, 140.0, 90.0, 90.0]
    assert "one.ss_exit_s" not in a14, "TCP has no computed rate"
    s12 = at("tfrc_tcp_t", "12a", t=40)
    assert s12 == {"a.rate_kbps": 700.0, "a.cum_kbps": 700.0, "b.rate_kbps": 300.0, "b.cum_kbps": 300.0}
    assert gtfrc.NULL_DESCRIPTION.count(".") <= 2, "one sentence, in substance"


# ---------------------------------------------------------------------------------------------
# synthetic results: the paper's own numbers, and the null model's


#: A 100-s run at 1000 kb/s carries about 8,333 packets of 1500 bytes: the counts behind the
#: paper's percentages (its own resolution).
PAPER_PACKETS = 1000e3 * 100 / (1500 * 8)


def _perfect(paper: core.Paper) -> Aggregates:
    """Every published metric at its published value, with the counts the paper's own run had
    (a colour's share of ~8,333 packets)."""
    values, _ = scoring.load_paper_values(paper.data)
    shares = {(v.experiment, v.point["fig"], v.metric.split(".")[0]): v.value
              for v in values if v.metric.endswith("share_pct")}
    agg = Aggregates()
    for e in paper.experiments:
        rows = []
        for pt in e.points:
            stats = {}
            for v in values:
                if v.experiment == e.id and pt.matches(v.point):
                    stats[v.metric] = Stat.exact(v.value)
                    if v.kind == "loss":
                        trials = PAPER_PACKETS * shares[(e.id, v.point["fig"], v.metric.split(".")[0])] / 100
                        stats[v.metric + ".events"] = Stat.exact(v.value * trials)
                        stats[v.metric + ".trials"] = Stat.exact(trials)
            rows.append((pt, stats))
        agg.by_experiment[e.id] = rows
    return agg


#: The claims whose every number the paper prints (its tables and the values its text states).
READ_ON_THE_PAPERS_NUMBERS = {"ps-out-losses", "e1-t11", "t1-more-in", "t2-similar",
                              "t2-very-high", "e2-8a", "t3-more-in", "e4-two-times",
                              "e5-14-not-disturb", "t4-same", "t5-similar"}


def test_a_perfect_result_matches_every_value_and_satisfies_the_claims_it_can_read() -> None:
    """The paper's own numbers, fed back as afsim's: every resolved value matches, and every
    claim whose numbers the paper prints holds (one that failed would misread its sentence)."""
    paper = _paper()
    values, tol = scoring.load_paper_values(paper.data)
    perfect = View(_perfect(paper), "perfect")
    comps = scoring.compare(values, tol, perfect)
    assert all(c.verdict in (Verdict.MATCH, Verdict.UNRESOLVED) for c in comps)
    unresolved = {(c.value.table, c.value.row, c.value.column) for c in comps if c.verdict is Verdict.UNRESOLVED}
    # what the paper's own runs could not resolve (fewer than 10 drops): the printed 0 %, the
    # in-profile drops but Table 2 (b)'s ldrops (0.16 % of ~7,500: 12), and Table 3's
    # out-profile ldrops (0.36 % and 0.47 % of ~2,100–2,700: 9.6 and 9.9)
    assert all(c.value.kind == "loss" for c in comps if (c.value.table, c.value.row, c.value.column) in unresolved)
    assert len(unresolved) == 13
    assert ("Table 2", "(b) Fig. 6 (b), in-profile", "ldrops") not in unresolved
    assert ("Table 3", "(a) Fig. 10 (a), out-profile", "ldrops") in unresolved
    read = set()
    for s in paper.statements:
        if s.evaluate is None:
            continue
        r = s.evaluate(perfect)
        if r.holds is not None:
            read.add(s.id)
            assert r.holds, (s.id, r.measured)
    assert read == READ_ON_THE_PAPERS_NUMBERS


def test_a_null_result_scores_as_the_null_model() -> None:
    paper = _paper()
    values, tol = scoring.load_paper_values(paper.data)
    null_agg = core.null_aggregates(paper, list(paper.experiments))
    perfect = View(_perfect(paper), "perfect")
    as_null = scoring.compare(values, tol, View(null_agg, "null"), resolution=perfect)
    # it misses every packet share (no out-profile packets, or 20 % of them) and every
    # resolved drop ratio; it gets a few Table 4–5 throughputs and Fig. 12's ratio
    by_kind: dict[str, set[Verdict]] = {}
    for c in as_null:
        by_kind.setdefault(c.value.kind, set()).add(c.verdict)
    assert by_kind["share"] == {Verdict.MISS}
    assert Verdict.MATCH not in by_kind["loss"]
    assert Verdict.MATCH in by_kind["throughput"] and Verdict.MISS in by_kind["throughput"]
    holds = {s.id: s.evaluate(View(null_agg, "null")).holds for s in paper.statements if s.evaluate}
    # ordinal claims about what gTFRC changes, and anything about losses or oscillation, fail
    for fails in ("e1-quicker", "e3-9-quicker", "t1-more-in", "t3-more-in", "ps-out-losses",
                  "intro-smoother", "e1-nearer", "e2-tcp-not-reach", "e3-10a-a", "e1-t11"):
        assert holds[fails] is False, fails
    # claims that only ask for targets to be met hold without any simulation: not discriminating
    for easy in ("abs-reach", "e1-compliant", "e3-10b", "e4-two-times", "t4-same"):
        assert holds[easy] is True, easy


# ---------------------------------------------------------------------------------------------
# the machinery extensions


def test_a_point_that_sets_the_budget_parameter_keeps_it(tmp_path: Path) -> None:
    paper = _fake_paper(tmp_path, unstated=False)
    e = paper.experiments[0]
    short = dataclasses.replace(e, id="short", points=(
        Point({"rate": 500, "kind": "cbr"}, {"rate": "500kbps", "max_data_packets": "100"}),))
    rep = core.reproduce(dataclasses.replace(paper, experiments=(e, short), variants=()),
                         Mode("quick", 400, 1), jobs=1)
    assert sorted(o.data_packets_generated for o in rep.outcomes) == [100, 400, 400]


def test_an_experiment_runs_at_most_its_own_replications(tmp_path: Path) -> None:
    paper = _fake_paper(tmp_path, unstated=False)
    e = dataclasses.replace(paper.experiments[0], replications=1)
    assert core.replications_of(e, FAKE_MODE) == 1
    assert core.replications_of(paper.experiments[0], FAKE_MODE) == FAKE_MODE.replications
    rep = core.reproduce(dataclasses.replace(paper, experiments=(e,), variants=()), FAKE_MODE, jobs=1)
    assert len(rep.tasks) == 2, "two points, one seed"


def test_a_budget_in_seconds_is_written_with_its_unit() -> None:
    m = Mode("full", 100, 1, paper_budget=100, budget_param="duration", budget_unit="s",
             budget_noun="s of simulated time")
    assert m.budget_value == "100s" and m.banner() == "full mode: 100 s of simulated time per run, 1 replication (seeds 1–1)"
    assert Mode("x", 5, 1).budget_value == "5" and "5 data packets" in Mode("x", 5, 1).banner()


def test_shown_metrics_leave_the_rest_out_of_the_outputs_only(tmp_path: Path) -> None:
    paper = _fake_paper(tmp_path, unstated=False)
    e = dataclasses.replace(paper.experiments[0], shown=("throughput_kbps", "loss", "loss.*"))
    rep = core.reproduce(dataclasses.replace(paper, experiments=(e,), variants=()), Mode("quick", 400, 1), jobs=1)
    doc = reproduce.to_json(rep)
    assert set(doc["runs"][0]["metrics"]) == {"throughput_kbps", "loss", "loss.events", "loss.trials"}
    assert set(doc["experiments"][0]["points"][0]["metrics"]) == {"throughput_kbps", "loss", "loss.events", "loss.trials"}
    assert rep.aggregates.stat("fake", {"rate": 500}, "jain") is not None, "aggregated all the same"
    reproduce.write_outputs(rep, tmp_path / "out")
    header = (tmp_path / "out" / "runs.csv").read_text(encoding="utf-8").splitlines()[0].split(",")
    assert "loss" in header and "jain" not in header


def _shifted(e: core.Experiment, p: Point, values: dict[str, str]) -> dict[str, str]:
    return {"limit": "7"} if "delay" in values else {}


def _one_figure(rep: core.Reproduction, out: Path) -> dict[str, list[Path]]:
    path = out / "extra.txt"
    path.write_text(str(len(rep.tasks)), encoding="utf-8")
    return {"extra": [path]}


def test_design_overrides_and_extra_figures_are_the_papers_hooks(tmp_path: Path) -> None:
    paper = dataclasses.replace(_fake_paper(tmp_path), design_overrides=_shifted,
                                extra_figures=_one_figure, variants=())
    exps, _design = core.expand(paper, FAKE_MODE)
    robust = [e for e in exps if e.reading and e.reading.startswith("#")]
    assert robust and all(p.overrides["limit"] == "7" and "delay" in p.overrides
                          for e in robust for p in e.points)
    rep = core.reproduce(paper, FAKE_MODE, jobs=1)
    written = reproduce.write_outputs(rep, tmp_path / "out")
    assert tmp_path / "out" / "extra.txt" in written
    assert "extra" not in (tmp_path / "out" / "report.md").read_text(encoding="utf-8"), \
        "only PNG figures are embedded in the report"


# ---------------------------------------------------------------------------------------------
# running it


def _smoke_paper() -> core.Paper:
    """Fig. 4 only: its two panels, whole run and 20–100 s, and their time series (no variant)."""
    paper = _paper()
    exps = {e.id: e for e in paper.experiments}
    full = dataclasses.replace(exps["two_tfrc"], points=tuple(
        p for p in exps["two_tfrc"].points if p.labels["fig"] in ("4a", "4b")))
    series = dataclasses.replace(exps["two_tfrc_t"], points=tuple(
        p for p in exps["two_tfrc_t"].points if p.labels["fig"] in ("4a", "4b")))
    return dataclasses.replace(paper, experiments=(full, series), variants=())


def test_gtfrc_smoke_on_figure_4(tmp_path: Path) -> None:
    """Fig. 4's panels and their series, two seeds, a design of two points, in parallel: the
    metrics exist, the claims on Fig. 4 are evaluated, the figure and the outputs are written,
    and the series runs list only their own metrics."""
    mode = dataclasses.replace(gtfrc.mode(quick=True, replications=2), robust_points=2)
    rep = core.reproduce(_smoke_paper(), mode, jobs=2)
    n_series = 2  # one run per panel and seed: every bin read from its time series
    assert len(rep.tasks) == 4 * 2 + n_series * 2 + 2 * 4
    for point, stats in rep.aggregates.by_experiment["two_tfrc_t"]:
        assert set(stats) == {"a.rate_kbps", "a.cum_kbps", "b.rate_kbps", "b.cum_kbps"}
        assert stats["a.rate_kbps"].n == 2, point.labels
    for point, stats in rep.aggregates.by_experiment["two_tfrc"]:
        for m in ("a.thr_kbps", "b.thr_kbps", "a.ss_exit_s", "a.reach_s", "b.x_below_share",
                  "in.share_pct", "out.ldrops", "out.ldrops.events", "out.edrops.trials"):
            assert stats[m].n == 2, (point.labels, m)
        assert 0 < stats["a.thr_kbps"].mean + stats["b.thr_kbps"].mean <= 1001.0, "the link, and what its queue held at 20 s"
    claims = {c.statement.id: c for c in rep.verdicts.claims.claims}
    for cid in ("e1-quicker", "e1-t11", "e1-not-lower", "e1-constrained", "t1-more-in", "t1-near-target"):
        assert claims[cid].afsim.holds is not None, cid
        assert claims[cid].robustness is not None and claims[cid].robustness.evaluated == 2, cid
    assert claims["e1-nearer"].afsim.holds is None, "Fig. 5 did not run"
    # ordinal: gTFRC's 640 ms flow reaches its target before TFRC's (the paper's Fig. 4 claim)
    assert claims["e1-quicker"].afsim.holds is True
    out = tmp_path / "out"
    written = reproduce.write_outputs(rep, out)
    names = {p.name for p in written}
    assert {"fig04.png", "fig04.svg", "report.md", "results.json", "runs.csv"} <= names
    assert "fig05.png" not in names, "a figure whose series did not run is not drawn"
    doc = json.loads((out / "results.json").read_text(encoding="utf-8"))
    series_runs = [r for r in doc["runs"] if all("_t[" in u for u in r["used_by"])]
    assert len(series_runs) == n_series * 2
    assert all(set(r["metrics"]) == {f"{f}.{m}@{t}" for f in "ab" for m in ("rate_kbps", "cum_kbps")
                                     for t in gtfrc.SERIES_TIMES}
               for r in series_runs)
    # and each point of a series lists its own bin's aggregate, as a run stopped at t did
    for e in doc["experiments"]:
        if e["id"].endswith("_t"):
            assert all(set(p["metrics"]) == {f"{f}.{m}" for f in "ab" for m in ("rate_kbps", "cum_kbps")}
                       for p in e["points"]), e["id"]
    report = (out / "report.md").read_text(encoding="utf-8")
    assert "fig04.png" in report and "100 s of simulated time" in report


def test_cli_reproduce_gtfrc_rejects_another_budget_and_unknown_experiments(tmp_path: Path) -> None:
    p = afsim_cmd("reproduce", "gtfrc", "--budget", "50", "--out", tmp_path / "x")
    assert p.returncode == 2 and "100 s" in p.stderr and "Traceback" not in p.stderr
    p = afsim_cmd("reproduce", "gtfrc", "--only", "table1", "--out", tmp_path / "x")
    assert p.returncode == 2 and "two_tfrc" in p.stderr and "two_tcp_t" in p.stderr
    p = afsim_cmd("reproduce", "nosuch", "--out", tmp_path / "x")
    assert p.returncode == 2 and "gtfrc" in p.stderr


def test_cli_reproduce_gtfrc_quick_json(tmp_path: Path) -> None:
    out = tmp_path / "out"
    p = afsim_cmd("reproduce", "gtfrc", "--quick", "--only", "two_tcp", "--only", "two_tcp_t",
                  "--jobs", "2", "--format", "json", "--no-robustness", "--out", out, timeout=300)
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    assert doc["mode"] == "quick" and doc["budget"] == 100 and doc["budget_param"] == "duration"
    assert [t["table"] for t in doc["tables"]] == ["Fig. 8 (§4.2.2)"]
    assert len(doc["runs"]) == 2 * 2 * 2 + 2 * 2, "the series: one run per panel and seed"
    claims = {s["id"]: s for s in doc["statements"] if s["class"] == "claim"}
    assert claims["e2-8b"]["afsim"]["holds"] is not None
    assert (out / "fig08.png").is_file() and (out / "report.md").is_file()


@pytest.mark.slow
def test_cli_reproduce_gtfrc_quick_whole(tmp_path: Path) -> None:
    """The whole quick reproduction, as a user runs it (about a minute on two cores)."""
    out = tmp_path / "out"
    p = afsim_cmd("reproduce", "gtfrc", "--quick", "--out", out, timeout=3600)
    assert p.returncode == 0, p.stderr
    doc = json.loads((out / "results.json").read_text(encoding="utf-8"))
    assert [t["table"] for t in doc["tables"]][:5] == [f"Table {k}" for k in range(1, 6)]
    claims = [s for s in doc["statements"] if s["class"] == "claim"]
    assert all(s["afsim"]["holds"] is not None for s in claims)
    assert all(s["robustness"] is not None for s in claims)
    assert len(doc["design"]) == gtfrc.QUICK.robust_points
    assert {f"fig{n:02d}.png" for n in gtfrc.FIGURE_NUMBERS} <= {p.name for p in out.iterdir()}


def test_reproduce_package_lists_gtfrc() -> None:
    assert reproduce.PAPERS["gtfrc"] == "afsim.reproduce.gtfrc"
    assert reproduce.paper_module("gtfrc") is gtfrc
    assert gtfrc.find_scenarios_dir(REPO).resolve() == GTFRC.resolve()
