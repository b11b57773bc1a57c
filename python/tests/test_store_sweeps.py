"""Runs tagged by sweep (afsim/store/sweeps.py): listed, filtered and deleted, never losing
another sweep's runs; and the command's --sweeps, --only, --delete."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from conftest import DATA, afsim_cmd

from afsim.store import Store
from afsim.store import sweeps as tags
from afsim.sweep import sweep

TINY = str(DATA / "tiny.toml")


@pytest.fixture()
def two_sweeps(tmp_path: Path) -> Path:
    """Sweep A: rate 1, 2 Mb/s; sweep B: rate 2, 3 Mb/s (the 2 Mb/s run is shared)."""
    store = tmp_path / "s"
    sweep(TINY, {"rate": ["1Mbps", "2Mbps"]}, store=store, workers=1, name="A")
    sweep(TINY, {"rate": ["2Mbps", "3Mbps"]}, store=store, workers=1, name="B")
    return store


def test_each_sweep_lists_its_runs_and_shares_the_runs_it_reused(two_sweeps: Path) -> None:
    with Store.open(two_sweeps, write=False) as s:
        assert len(s) == 3
        table = s.sweeps().set_index("sweep")
        assert table.loc["A", "runs"] == 2 and table.loc["B", "runs"] == 2
        assert table.loc["A", "shared"] == 1 and table.loc["B", "shared"] == 1
        assert table.loc["A", "grid"] == "rate=1Mbps,2Mbps"
        assert sorted(s.runs(sweep="A")["param.rate"]) == ["1Mbps", "2Mbps"]
        assert sorted(s.runs(sweep="B")["param.rate"]) == ["2Mbps", "3Mbps"]
        with pytest.raises(KeyError, match="the sweeps are: A, B"):
            s.runs(sweep="C")


def test_deleting_a_sweep_keeps_the_runs_another_sweep_holds(two_sweeps: Path) -> None:
    with Store.open(two_sweeps) as s:
        kept_key = s.runs(sweep="B").set_index("param.rate").loc["2Mbps", "key"]
        assert s.delete_sweep("A") == (1, 1)
        assert len(s) == 2 and s.check() == []
        assert list(s.sweeps()["sweep"]) == ["B"]
        assert (s.path / "runs" / kept_key).is_dir()
        assert sorted(s.runs()["param.rate"]) == ["2Mbps", "3Mbps"]
        assert s.delete_sweep("B") == (2, 0)
        assert len(s) == 0 and s.check() == []
        assert not list((s.path / "runs").iterdir())


def test_a_sweep_with_another_set_is_another_sweep(tmp_path: Path) -> None:
    store = tmp_path / "s"
    a = tags.definition(TINY, {}, {"rate": ["1Mbps"]}, 1, 1)
    b = tags.definition(TINY, {"rate": "1Mbps"}, {}, 1, 1)
    assert tags.default_name(a) != tags.default_name(b)
    assert tags.default_name(a) == tags.default_name(dict(a)), "the same sweep, the same name"
    assert tags.default_name(a).startswith("tiny-")
    sweep(TINY, {"rate": ["1Mbps", "2Mbps"]}, store=store, workers=1)
    sweep(TINY, {"rate": ["1Mbps", "2Mbps"]}, store=store, workers=1)  # again: no new sweep
    with Store.open(store, write=False) as s:
        assert len(s.sweeps()) == 1


def test_an_old_store_without_sweep_tables_reads_as_untagged(tmp_path: Path) -> None:
    store = tmp_path / "s"
    sweep(TINY, {"rate": ["1Mbps"]}, store=store, workers=1, name="A")
    db = sqlite3.connect(store / "catalog.sqlite")
    db.executescript("DROP TABLE sweep_runs; DROP TABLE sweeps;")
    db.close()
    with Store.open(store, write=False) as s:
        table = s.sweeps()
        assert list(table["sweep"]) == [tags.UNTAGGED] and table["runs"].iloc[0] == 1
        assert len(s.runs(sweep=tags.UNTAGGED)) == 1


def test_the_command_lists_filters_and_deletes_sweeps(two_sweeps: Path) -> None:
    r = afsim_cmd("results", two_sweeps, "--sweeps", "--format", "json")
    assert r.returncode == 0, r.stderr
    assert [row["sweep"] for row in json.loads(r.stdout)] == ["A", "B"]
    r = afsim_cmd("results", two_sweeps, "--only", "A", "--format", "csv")
    assert r.returncode == 0, r.stderr
    assert r.stdout.count("\n") == 3  # a header and two runs
    out = two_sweeps.parent / "export"
    r = afsim_cmd("results", two_sweeps, "--only", "A", "--export", out, "--format", "csv")
    assert r.returncode == 0, r.stderr
    import pandas as pd

    with Store.open(two_sweeps, write=False) as s:
        keys_a = set(s.runs(sweep="A")["key"])
    assert set(pd.read_parquet(out / "flows.parquet")["key"]) == keys_a
    r = afsim_cmd("results", two_sweeps, "--only", "Z")
    assert r.returncode == 2 and "no sweep 'Z'" in r.stderr
    r = afsim_cmd("results", two_sweeps, "--delete", "A")  # no terminal to ask on
    assert r.returncode == 2 and "--yes" in r.stderr
    r = afsim_cmd("results", two_sweeps, "--delete", "A", "--yes")
    assert r.returncode == 0, r.stderr
    assert "1 runs removed, 1 kept" in r.stderr
    r = afsim_cmd("results", two_sweeps, "--check")
    assert r.returncode == 0, r.stdout + r.stderr


def test_afsim_sweep_names_its_sweep(tmp_path: Path) -> None:
    store = tmp_path / "s"
    r = afsim_cmd("sweep", TINY, "--grid", "rate=1Mbps,2Mbps", "--store", store,
                  "--workers", "1", "--name", "mine")
    assert r.returncode == 0, r.stderr
    assert "sweep mine: 2 runs" in r.stderr
    with Store.open(store, write=False) as s:
        assert list(s.sweeps()["sweep"]) == ["mine"]


def test_the_report_covers_one_sweep_with_only(two_sweeps: Path) -> None:
    from afsim.report import store_report

    with Store.open(two_sweeps, write=False) as s:
        whole = store_report(s).html()
        only_a = store_report(s, sweep="A").html()
    assert "3 runs in" in whole and "The 2 runs of sweep A in" in only_a
    # sweep A's grid is 1 and 2 Mb/s: B's 3 Mb/s point is not in its report
    assert "3Mbps" in whole and "3Mbps" not in only_a and "1Mbps" in only_a
    html = two_sweeps.parent / "a.html"
    r = afsim_cmd("report", two_sweeps, "--only", "A", "-o", html)
    assert r.returncode == 0, r.stderr
    assert "The 2 runs of sweep A" in html.read_text(encoding="utf-8")
    r = afsim_cmd("report", two_sweeps, "--only", "Z", "-o", html)
    assert r.returncode == 2 and "no sweep 'Z'" in r.stderr
