"""The Laatu reproduction's live column (afsim/reproduce/live.py, laatu/live.py, report_live.py)
read from the committed afsim live runs — no root needed: every point of Tables I–III has its
runs, each found under its key and consistent with itself, the report shows the column beside
the paper and afsim, and runs committed under another key are reported as stale, never used."""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path

import pytest

from afsim.reproduce import core, laatu, live, report_live
from afsim.reproduce.laatu import live as live_laatu
from afsim.reproduce.report import render_markdown, to_json

REPO = Path(__file__).resolve().parents[2]
LAATU = REPO / "scenarios" / "laatu"

pytestmark = pytest.mark.skipif(not live.committed_path("laatu").is_file(),
                                reason="no committed live runs of laatu")


def _column(**kw: object) -> live.LiveColumn:
    paper = laatu.paper(LAATU)
    col = live.collect(paper, laatu.mode(True), list(paper.experiments), source="committed",
                       store=None, **kw)  # type: ignore[arg-type]
    assert col is not None
    return col


def test_every_point_of_tables_1_to_3_has_its_live_runs_under_the_current_keys() -> None:
    col = _column()
    paper = laatu.paper(LAATU)
    assert (col.missing, col.stale, col.failed) == (0, 0, [])
    n = live_laatu.REPLICATIONS
    assert n >= 3
    assert len(col.planned) == n * sum(len(e.points) for e in paper.experiments)
    for e in paper.experiments:
        rows = col.aggregates.by_experiment[e.id]
        assert [p for p, _ in rows] == list(e.points)
        for _p, stats in rows:
            assert stats["completed"].n == n
    # each run is the point's own: its overrides, seed and key as planned, Linux reno, and the
    # machine's load recorded with it
    for p in col.planned:
        r = col.records[p.key]
        assert (r["experiment"], r["seed"], r["overrides"], r["key"]) == (
            p.experiment, p.seed, p.overrides, p.key)
        assert r["cc"] == "reno" and len(r["load_before"]) == 3 and len(r["load_after"]) == 3
        s = r["summary"]
        assert s["mode"] == "live" and s["conservation"]["holds"]
        assert all(f["kind"] == "tcp-reno" for f in s["flows"] if f["kind"].startswith("tcp"))


def test_the_live_numbers_are_consistent_with_their_runs() -> None:
    col = _column()
    for p in col.planned:
        r = col.records[p.key]
        s = r["summary"]
        tcp = [f for f in s["flows"] if f["kind"].startswith("tcp")]
        size = 250_000 if len(tcp) == 4 else 1_000_000
        for f in tcp:
            if f["completed"]:
                # a complete transfer: every byte arrived, and the run stopped with the last one
                assert f["goodput_bytes"] == size
                assert f["completion_time_s"] <= s["end_time_s"] + 1e-6
            else:
                # incomplete: the run went on to its cap
                assert s["end_time_s"] == pytest.approx(live_laatu.CAP_S, abs=0.5)
            t = r["tcptrace"][f["name"]]
            assert t["rtt_samples"] > 0 and t["rtt_mean_s"] > 0
        if all(f["completed"] for f in tcp):
            assert s["stop_reason"] == "transfers_complete"
    # the metrics are the paper's functions of these runs: throughput × time = the bytes
    for eid, rows in col.aggregates.by_experiment.items():
        for point, stats in rows:
            if eid == "table3":
                continue
            if stats["completed"].mean == 1.0:
                bits = stats["throughput_kbps"].mean * stats["transfer_time_s"].mean
                assert bits == pytest.approx(8000.0, rel=0.15), point.labels
            assert math.isnan(stats["ca_share"].mean), "not measured live: never a number"


def test_the_report_shows_the_live_column_beside_the_paper_and_afsim() -> None:
    paper = laatu.paper(LAATU)
    mode = dataclasses.replace(laatu.mode(True), replications=1)
    rep = core.reproduce(paper, mode, jobs=2, variants=False, robustness=False, live="committed")
    assert rep.live is not None
    md = render_markdown(rep)
    assert "## afsim live: the paper's points on real Linux TCP" in md
    comps = report_live.comparisons(rep)
    assert comps is not None
    tables = ("Table I", "Table II", "Table III")
    assert {c.value.table for c in comps} == set(tables)
    for c in comps:
        # every published value has its live runs (n), and a number where the metric is one
        assert c.stat is not None and c.stat.n == live_laatu.REPLICATIONS, c.value
    for t in tables:
        assert f"### {t}: live beside the paper and afsim" in md
    doc = to_json(rep)["live"]
    assert doc["missing"] == 0 and doc["stale"] == 0
    # the runs whose live report warned are named, each with its warnings
    warned = [r for r in rep.live.records.values() if r["summary"]["warnings"]]
    assert len(doc["warned"]) == len(warned)
    assert f"runs whose live report warned (a source short of its rate, lost frames, late " \
           f"frames): {len(warned)}" in md
    for r in warned:
        assert any(w in line for w in r["summary"]["warnings"] for line in doc["warned"])
    assert len(doc["values"]) == len(comps)
    # a row per published value: paper, afsim, live, n
    section = md.split("## afsim live: the paper's points on real Linux TCP", 1)[1]
    row = next(line for line in section.splitlines()
               if line.startswith("| NBR 1600 kb/s | Avg. stream BW (kb/s) | 420.90 |"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert len(cells) == 8 and cells[6] == str(live_laatu.REPLICATIONS)
    stat = col_stat(rep, "table2", {"nbr_kbps": 1600}, "throughput_kbps")
    assert cells[5].startswith(f"{stat.mean:,.2f}")


def col_stat(rep: core.Reproduction, experiment: str, labels: dict, metric: str):
    s = rep.live.aggregates.stat(experiment, labels, metric)
    assert s is not None
    return s


def test_runs_committed_under_another_key_are_stale_and_never_used(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(live, "LIVE_CODE", "live-changed")
    col = _column()
    assert col.missing == col.stale == len(col.planned) > 0
    assert col.records == {} and col.aggregates.by_experiment == {}
    assert any("stale" in m for m in col.messages)


def test_live_save_without_live_run_is_refused_before_anything_runs(tmp_path: Path) -> None:
    from conftest import afsim_cmd

    p = afsim_cmd("reproduce", "laatu", "--quick", "--live-save", "--out", tmp_path / "o", timeout=120)
    assert p.returncode == 2
    assert "--live-save writes the live runs of --live run" in p.stderr
    assert not (tmp_path / "o").exists()
