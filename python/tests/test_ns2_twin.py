"""The ns-2 twins (afsim/ns2, afsim/reproduce/twin.py): reading a twin's output, the units it is
given, the points each paper refuses and why, the arguments built from the afsim scenario's own
values, the committed results and where they come from, the cases of a claim, and — where ns-2
is installed (CI installs it) — a real twin run beside afsim's."""

from __future__ import annotations

import dataclasses
import gzip
import json
import math
import re
from pathlib import Path

import pytest

import afsim
from afsim import ns2
from afsim.reproduce import giacomazzi, gtfrc, leung, twin
from afsim.reproduce.claims import ClaimResult
from afsim.reproduce.core import Aggregates, Point, Stat

HAVE_NS = ns2.executable() is not None
needs_ns = pytest.mark.skipif(not HAVE_NS, reason="ns-2 is not installed (apt-get install ns2)")


def test_parse_reads_the_json_line_the_tagged_lists_and_the_rows() -> None:
    out = ns2.parse('noise\nNS2 {"seed": 3, "duration_s": 2.0}\nDELIVERED 10 20\nXROW 0 0.5 100 0\n'
                    "XROW 0 0.6 200 0.01\nTIMEOUTS 1 0\n")
    assert out["seed"] == 3
    assert out["delivered"] == [10.0, 20.0]
    assert out["timeouts"] == [1.0, 0.0]
    assert out["xrow"] == [[0.0, 0.5, 100.0, 0.0], [0.0, 0.6, 200.0, 0.01]]
    with pytest.raises(ns2.Ns2Error, match="no NS2 line"):
        ns2.parse("DELIVERED 1 2\n")


def test_units_become_ns2_forms_and_anything_else_is_refused() -> None:
    assert ns2.rate("16Mbps") == "16Mb"
    assert ns2.rate("1200kbps") == "1200kb"
    assert ns2.bits_per_second("1200kbps") == 1_200_000
    assert ns2.seconds("10ms") == pytest.approx(0.01)
    assert ns2.seconds("1s") == 1.0
    assert ns2.packets("500pkt") == 500
    for bad, fn in (("16", ns2.rate), ("fast", ns2.rate), ("10", ns2.seconds), ("500", ns2.packets)):
        with pytest.raises(ValueError):
            fn(bad)


def test_flows_table_turns_bytes_over_the_measured_interval_into_kbps() -> None:
    t = ns2.flows_table(["f1", "f2"], 10.0, delivered_bytes=[125_000, 250_000],
                        total_delivered_bytes=[200_000, 300_000], timeouts=[1, 0])
    assert list(t["throughput_kbps"]) == [100.0, 200.0]
    assert list(t["bytes_delivered"]) == [200_000, 300_000]
    assert math.isnan(t["ce_received"][0]) and math.isnan(t["goodput_kbps"][0])


# ---------------------------------------------------------------------------------------------
# What each paper's twin refuses, and the arguments it builds from the scenario's values


def _exp(paper, eid: str):
    return next(e for e in paper.experiments if e.id == eid)


def test_leung_refuses_what_ns2_lacks_and_names_the_mechanism() -> None:
    e = _exp(leung.paper(), "fig3_5")
    base = {"duration_s": "60"}
    for strategy, scheme, words in (("mark-front", "none", "mark-front"),
                                    ("mark-random", "none", "mark-random"),
                                    ("mark-tail", "out", "OUT Marking Scheme"),
                                    ("mark-tail", "tss", "Throughput Sustaining Scheme"),
                                    ("non-ECN", "both", "OUT Marking Scheme")):
        a = leung.ns2_args(e, {**base, **leung._t1(16, strategy, scheme)}, 1)
        assert isinstance(a, twin.NotInNs2), (strategy, scheme)
        assert words in a.reason
    for strategy in ("non-ECN", "mark-tail"):
        a = leung.ns2_args(e, {**base, **leung._t1(10, strategy)}, 7)
        assert not isinstance(a, twin.NotInNs2)
        assert "seed=7" in a and "bottleneck=10Mb" in a
        assert f"ecn={int(strategy == 'mark-tail')}" in a


def test_leung_twin_takes_the_values_the_afsim_run_takes() -> None:
    """The twin's arguments against the scenario afsim loads for the same point: rates, delays,
    RIO's weight, the TSW window, TCP's window and tick."""
    e = _exp(leung.paper(), "fig6")
    ov = {"duration_s": "60", **leung._t2(2, "mark-tail"), "w_q": "0.05", "tsw_window": "500ms",
          "tcp_window": "300pkt", "tcp_tick": "100ms", "coupling": "decoupled"}
    args = dict(a.split("=", 1) for a in leung.ns2_args(e, ov, 1))  # type: ignore[union-attr]
    spec = afsim.load_scenario(str(e.scenario), overrides=ov).resolved()
    assert f"rate_bps: {int(ns2.bits_per_second(args['bottleneck'] + 'ps'))}" in spec
    for d in args["access"].split():
        assert f"delay: SimDuration({int(ns2.seconds(d) * 1e9)})" in spec
    assert f"w_q: {float(args['w_q'])}" in spec and args["mode"] == "RIO-D"
    assert "coupling: Decoupled" in spec
    assert args["tsw_window"] == "0.5" and args["window"] == "300" and args["tick"] == "0.1"
    assert f"max_window_bytes: {300 * 960}" in spec
    assert "spacing: Dsredq" in spec


def test_gtfrc_refuses_gtfrc_and_runs_tfrc_and_tcp_panels() -> None:
    p = gtfrc.paper()
    e = _exp(p, "tfrc_tcp")
    by_fig = {str(pt.labels["fig"]): pt for pt in e.points if pt.labels["from_s"] == 0}
    a = gtfrc.ns2_args(e, {"duration": "100s", **by_fig["6b"].overrides}, 1)
    assert isinstance(a, twin.NotInNs2) and "gTFRC" in a.reason
    args = gtfrc.ns2_args(e, {"duration": "100s", **by_fig["6a"].overrides}, 1)
    assert not isinstance(args, twin.NotInNs2)
    d = dict(x.split("=", 1) for x in args)
    assert d["kinds"] == "tfrc tcp" and d["names"] == "a b"
    assert d["targets"] == "800000 200000" and d["delays"] == "305ms 5ms"
    assert d["tcp_size"] == "1540" and d["tcp_window"] == "20"


def test_giacomazzi_runs_only_the_frame_in_ns2_with_the_frames_values() -> None:
    p = giacomazzi.paper()
    assert p.ns2 is not None
    for e in p.experiments:
        if e.id != "frame":
            assert "enhanced token bucket" in p.ns2.absent[e.id]
    e = _exp(p, "frame")
    ov = {"max_data_packets": "40000000", **e.points[-1].overrides}
    args = dict(a.split("=", 1) for a in giacomazzi.ns2_args(e, ov, 2))  # type: ignore[union-attr]
    spec = afsim.load_scenario(str(e.scenario), overrides=ov).resolved()
    assert args["n_af"] == "30" and args["duration"] == "300" and args["seed"] == "2"
    assert f"TokenBucket(Params {{ rate_bps: 1000000, depth: Bytes({args['cbs']}) }})" in spec
    assert "rate_bps: 30792000" in spec and "preset" not in args
    assert f"SimDuration({int(ns2.seconds(args['backbone_delay']) * 1e9)})" in spec


# ---------------------------------------------------------------------------------------------
# Where the ns-2 column comes from


def _fake_twin(tmp_path: Path) -> twin.Twin:
    def args(e, ov, seed):
        if ov.get("x") == "2":
            return twin.NotInNs2("x = 2 is not in ns-2")
        return [f"seed={seed}", f"x={ov.get('x')}"]

    def results(raw):
        return ns2.Ns2Results(flows=ns2.flows_table(["f1"], 1.0, delivered_bytes=raw["delivered"]))

    return twin.Twin("leung.tcl", args, results, "a fake twin")


def _metrics(results) -> dict[str, float]:
    return {"thr": float(results.flows["throughput_kbps"][0])}


def test_collect_reads_committed_runs_names_refused_points_and_says_what_is_missing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from afsim.reproduce.core import Experiment, Mode, Paper

    t = _fake_twin(tmp_path)
    e = Experiment("e", "e", tmp_path / "s.toml",
                   (Point({"x": 1}, {"x": "1"}), Point({"x": 2}, {"x": "2"}), Point({"x": 3}, {"x": "3"})),
                   _metrics)
    mode = Mode("full", 10, replications=2, budget_param="d")
    paper = Paper(id="fake", title="t", citation="c", experiments=(e,), statements=(), figures=(),
                  data=tmp_path / "v.json", null_model=lambda e, p: {}, null_description="",
                  ns2=t)
    # committed: both seeds of x = 1, one of x = 3
    runs = {}
    for x, seed, b in (("1", 1, 1000), ("1", 2, 3000), ("3", 1, 500)):
        runs[ns2.Run("leung.tcl", (f"seed={seed}", f"x={x}")).key] = {"delivered": [b], "wall_s": 0.1}
    monkeypatch.setattr(twin, "DATA", tmp_path)
    with gzip.open(tmp_path / "fake.json.gz", "wt") as f:
        json.dump({"runs": runs}, f)
    col = twin.collect(paper, mode, [e], source="committed", jobs=1, store=None)
    assert col is not None
    assert col.refused == {("e", 1): "x = 2 is not in ns-2"}
    assert (col.planned, col.committed, col.missing) == (4, 3, 1)
    assert any("--ns2 run" in m for m in col.messages)
    s = col.aggregates.stat("e", {"x": 1}, "thr")
    assert s is not None and s.n == 2 and s.mean == pytest.approx(16.0)
    # without ns-2, --ns2 run says so and uses the committed runs
    monkeypatch.setattr(ns2, "executable", lambda: None)
    col = twin.collect(paper, mode, [e], source="run", jobs=1, store=tmp_path / "store")
    assert col is not None and col.committed == 3 and col.ran == 0
    assert any("not installed" in m for m in col.messages)
    assert twin.collect(paper, mode, [e], source="off", jobs=1, store=None) is None
    with pytest.raises(ValueError, match="ns-2 source"):
        twin.collect(paper, mode, [e], source="later", jobs=1, store=None)


def test_save_keeps_the_other_experiments_runs_of_the_same_script(tmp_path: Path) -> None:
    t = _fake_twin(tmp_path)
    col = twin.Column(t, "run", Aggregates(), {}, records={"k1": {"delivered": [1]}})
    path = tmp_path / "p.json.gz"
    twin.save(col, "p", path)
    col2 = twin.Column(t, "run", Aggregates(), {}, records={"k2": {"delivered": [2]}})
    twin.save(col2, "p", path)
    with gzip.open(path, "rt") as f:
        doc = json.load(f)
    assert sorted(doc["runs"]) == ["k1", "k2"] and doc["digest"] == ns2.digest("leung.tcl")
    # another script's runs are not kept
    doc["digest"] = "0" * 12
    with gzip.open(path, "wt") as f:
        json.dump(doc, f)
    twin.save(col2, "p", path)
    with gzip.open(path, "rt") as f:
        assert sorted(json.load(f)["runs"]) == ["k2"]
    # the file is the same bytes for the same runs (no time stamp)
    first = path.read_bytes()
    twin.save(col2, "p", path)
    assert path.read_bytes() == first


def test_the_committed_runs_were_made_by_todays_twin_scripts() -> None:
    """A twin script edited after its runs were committed: the runs must be made again
    (`afsim reproduce PAPER --ns2 run --ns2-save`), or a reader would see another script's
    numbers."""
    for paper in (leung.paper(), gtfrc.paper(), giacomazzi.paper()):
        path = twin.committed_path(paper.id)
        assert path.is_file(), f"no committed ns-2 runs for {paper.id}"
        with gzip.open(path, "rt") as f:
            doc = json.load(f)
        assert paper.ns2 is not None
        assert doc["digest"] == ns2.digest(paper.ns2.script), paper.id
        assert doc["runs"], paper.id


# ---------------------------------------------------------------------------------------------
# The cases of a claim


def _agg(values: dict[str, list[float]]) -> Aggregates:
    a = Aggregates()
    a.by_experiment["e"] = [(Point({"k": 1}, {}), {m: Stat.of(v) for m, v in values.items()})]
    return a


def _result(holds: bool | None) -> ClaimResult:
    return ClaimResult(holds, {}, "", (("e", {"k": 1}, "m"),))


@pytest.mark.parametrize(("a", "n", "afsim_vals", "ns2_vals", "case"), [
    (True, True, [1.0, 1.1, 0.9], [1.0, 1.05, 0.95], twin.BOTH_HOLD),
    (False, False, [1.0, 1.1, 0.9], [1.0, 1.05, 0.95], twin.BOTH_FAIL),
    (True, False, [1.0, 1.1, 0.9], [5.0, 5.1, 4.9], twin.GAP),
    (True, False, [1.0, 1.1, 0.9], [1.0, 1.05, 0.95], twin.THRESHOLD),
    (True, None, [1.0, 1.1, 0.9], [1.0, 1.05, 0.95], twin.NS2_CANNOT),
])
def test_claim_case(a: bool, n: bool | None, afsim_vals: list[float], ns2_vals: list[float],
                    case: str) -> None:
    got, diffs = twin.claim_case(_result(a), _result(n), _agg({"m": afsim_vals}), _agg({"m": ns2_vals}))
    assert got == case
    assert len(diffs) == 1 and diffs[0].significant == (case == twin.GAP)


def test_a_difference_needs_two_seeds_and_is_welchs() -> None:
    assert twin.difference("e", {}, "m", Stat.of([1.0]), Stat.of([2.0, 3.0])) is None
    d = twin.difference("e", {}, "m", Stat.of([1.0, 1.2, 0.8, 1.1]), Stat.of([2.0, 2.1, 1.9, 2.05]))
    assert d is not None and d.significant and d.t < 0
    same = twin.difference("e", {}, "m", Stat.of([1.0, 1.0]), Stat.of([1.0, 1.0]))
    assert same is not None and not same.significant
    # a deterministic run (no seed noise) apart in the sixth digit is the same number ...
    tiny = twin.difference("e", {}, "m", Stat.of([1997.9648] * 3), Stat.of([1997.9617] * 3))
    assert tiny is not None and not tiny.significant
    # ... and apart by 1 % it is not
    apart = twin.difference("e", {}, "m", Stat.of([2000.0] * 3), Stat.of([1980.0] * 3))
    assert apart is not None and apart.significant and apart.t == math.inf


# ---------------------------------------------------------------------------------------------
# A real twin (ns-2 installed)


@needs_ns
def test_leung_twin_runs_in_ns2_and_its_numbers_are_afsims_shape() -> None:
    e = _exp(leung.paper(), "fig3_5")
    ov = {"duration_s": "10", **leung._t1(16, "mark-tail")}
    args = leung.ns2_args(e, ov, 1)
    assert not isinstance(args, twin.NotInNs2)
    raw = ns2.run(ns2.Run("leung.tcl", tuple(args)))
    m_ns2 = leung.leung_metrics(leung.ns2_results(raw))
    m_afsim = leung.leung_metrics(afsim.simulate(e.scenario, overrides=ov, seed=1))
    assert set(m_ns2) == set(m_afsim)
    # the same network: over 10 s, slow start included, the three flows carry 12-16 Mb/s of the
    # 16 Mb/s bottleneck in both simulators, within 5 % of each other
    assert m_ns2["total_kbps"] == pytest.approx(m_afsim["total_kbps"], rel=0.05)
    assert 12_000 < m_ns2["total_kbps"] <= 16_000


@needs_ns
def test_gtfrc_twin_delivers_no_more_than_the_bottleneck_carries() -> None:
    """Each flow's bytes counted once, at its destination (a trace shared by the access and the
    destination links once counted them twice)."""
    e = _exp(gtfrc.paper(), "tfrc_tcp")
    pt = next(p for p in e.points if p.labels == {"fig": "6a", "from_s": 0})
    args = gtfrc.ns2_args(e, {**pt.overrides, "duration": "30s"}, 1)
    assert not isinstance(args, twin.NotInNs2)
    res = gtfrc.ns2_results(ns2.run(ns2.Run("gtfrc.tcl", tuple(args))))
    total = float(res.flows["throughput_kbps"].sum())
    assert 900.0 < total <= gtfrc.BOTTLENECK_KBPS
    assert (res.flows["bytes_sent"] >= res.flows["bytes_delivered"]).all()
    m = gtfrc.run_metrics(res)
    assert 0.0 < m["in.share_pct"] < 100.0 and "a.ss_exit_s" in m


@needs_ns
def test_a_twin_error_names_the_script_and_its_arguments() -> None:
    with pytest.raises(ns2.Ns2Error, match=re.escape("leung.tcl")):
        ns2.run(ns2.Run("leung.tcl", ("bogus=1",)))


def test_dataclass_fields_of_a_paper_keep_their_order() -> None:
    """``Paper``'s positional fields are unchanged by the ns-2 twin (a keyword at the end)."""
    from afsim.reproduce.core import Paper

    names = [f.name for f in dataclasses.fields(Paper)]
    assert names[-1] == "ns2" and names[:9] == ["id", "title", "citation", "experiments", "statements",
                                                 "figures", "data", "null_model", "null_description"]


# ---------------------------------------------------------------------------------------------
# The command line


def test_cli_reads_the_committed_ns2_runs_by_default_and_leaves_them_out_when_asked(
        tmp_path: Path) -> None:
    """Quick mode's ns-2 runs are committed too: a reader without ns-2 gets the column."""
    from conftest import afsim_cmd

    base = ("reproduce", "leung", "--quick", "--only", "fig6", "--no-variants",
            "--no-robustness", "--jobs", "2", "--format", "json")
    p = afsim_cmd(*base, "--out", tmp_path / "a", timeout=600)
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    col = doc["ns2"]
    assert col["source"] == "committed" and col["missing"] == 0 and col["from_committed"] > 0
    assert "ns-2" not in p.stderr  # nothing missing, nothing to say
    pts = {json.dumps(pt["labels"], sort_keys=True): pt["metrics"]
           for e in col["experiments"] if e["id"] == "fig6" for pt in e["points"]}
    tail = pts[json.dumps({"rtt_set": 1, "strategy": "mark-tail"}, sort_keys=True)]
    assert 0.0 < tail["fieb"]["mean"] <= 1.0 and tail["fieb"]["n"] == 3
    assert {r["reason"][:10] for r in col["not_in_ns2"]} == {"mark-front", "mark-rando"}
    assert (tmp_path / "a" / "ns2-runs.csv").is_file()
    assert "## ns-2, the paper's own simulator" in (tmp_path / "a" / "report.md").read_text()

    p = afsim_cmd(*base, "--ns2", "off", "--out", tmp_path / "b", timeout=600)
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["ns2"] is None

    p = afsim_cmd(*base, "--ns2-save", "--out", tmp_path / "c", timeout=60)
    assert p.returncode == 2 and "--ns2 run" in p.stderr
