"""The results store (afsim/store): atomic puts, skip-what-is-stored, integrity check, version
checks, and reading it with pandas, polars and DuckDB directly."""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path

import pytest
from conftest import DATA

import afsim
from afsim.store import FORMAT, Store, StoreError, run_key
from afsim.sweep import Task, execute


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("store") / "s"
    tasks = [Task(str(DATA / "tcp_ecn.toml"), (("bottleneck", b),), seed)
             for b in ("1Mbps", "2Mbps") for seed in (1, 2)]
    out = execute(tasks, store=path, workers=1)
    assert out.computed == 4 and not out.failures
    return path


def test_a_run_key_depends_on_the_resolved_scenario_the_seed_and_the_version() -> None:
    a = afsim.load_scenario(DATA / "tiny.toml", overrides={"rate": "1Mbps"})
    same = afsim.load_scenario(DATA / "tiny.toml", overrides={"rate": "1000kbps"})
    other = afsim.load_scenario(DATA / "tiny.toml", overrides={"rate": "2Mbps"})
    assert run_key(a.resolved(), 1) == run_key(same.resolved(), 1), "units resolved first"
    assert run_key(a.resolved(), 1) != run_key(other.resolved(), 1)
    assert run_key(a.resolved(), 1) != run_key(a.resolved(), 2)
    assert run_key(a.resolved(), 1) != run_key(a.resolved(), 1, version="0.0.0")


def test_runs_and_tables_are_stored_with_their_keys(store: Path) -> None:
    with Store.open(store, write=False) as s:
        runs = s.runs()
        assert len(runs) == 4 and runs["key"].is_unique
        assert set(runs["param.bottleneck"]) == {"1Mbps", "2Mbps"}
        assert (runs["throughput_kbps_total"] > 0).all()
        flows = s.table("flows")
        assert len(flows) == 12 and set(flows["key"]) == set(runs["key"])
        traces = s.table("traces")
        assert {"flow", "time_s", "cwnd"} <= set(traces.columns) and len(traces) > 0
        assert s.check() == []


def test_a_stored_run_is_not_run_again(store: Path) -> None:
    tasks = [Task(str(DATA / "tcp_ecn.toml"), (("bottleneck", "2Mbps"),), 2),
             Task(str(DATA / "tcp_ecn.toml"), (("bottleneck", "3Mbps"),), 1)]
    with Store.open(store) as s:
        before = s.runs().set_index("key")["stored_at"].to_dict()
        out = execute(tasks, store=s, workers=1)
        assert (out.computed, out.from_store) == (1, 1)
        assert out.records[0] is not None and out.records[0].cached
        after = s.runs().set_index("key")["stored_at"].to_dict()
        assert {k: after[k] for k in before} == before
        assert len(after) == 5 and s.check() == []


def test_pandas_and_duckdb_and_polars_read_the_store_directly(store: Path) -> None:
    import duckdb
    import pandas as pd
    import polars as pl

    runs = pd.read_sql("SELECT key, seed, params FROM runs", sqlite3.connect(store / "catalog.sqlite"))
    assert len(runs) >= 4
    joined = duckdb.sql(
        f"SELECT r.\"param.bottleneck\" AS b, avg(f.throughput_kbps) AS thr "
        f"FROM read_parquet('{store}/runs/*/flows.parquet') f "
        f"JOIN read_parquet('{store}/runs/*/run.parquet', union_by_name = true) r USING (key) "
        "GROUP BY b ORDER BY b").fetchall()
    assert [b for b, _ in joined][:2] == ["1Mbps", "2Mbps"]
    assert joined[0][1] < joined[1][1], "a faster bottleneck, more throughput per flow"
    frame = pl.concat([pl.read_parquet(f) for f in store.glob("runs/*/run.parquet")],
                      how="diagonal_relaxed")
    assert frame.height == len(runs)


def test_a_store_of_another_version_is_read_but_not_added_to(tmp_path: Path) -> None:
    path = tmp_path / "old"
    Store.open(path).close()
    with sqlite3.connect(path / "catalog.sqlite") as db:
        db.execute("UPDATE meta SET value = '0.0.1' WHERE name = 'afsim_version'")
    Store.open(path, write=False).close()
    with pytest.raises(StoreError, match=r"runs of afsim 0\.0\.1, and this is afsim"):
        Store.open(path)
    with sqlite3.connect(path / "catalog.sqlite") as db:
        db.execute("UPDATE meta SET value = '99' WHERE name = 'format'")
    with pytest.raises(StoreError, match=f"store format '99', this afsim reads format {FORMAT}"):
        Store.open(path, write=False)


def test_a_path_that_is_not_a_store_is_refused(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    with pytest.raises(StoreError, match="not a directory"):
        Store.open(tmp_path / "file")
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "x").write_text("x")
    with pytest.raises(StoreError, match="other files in it"):
        Store.open(tmp_path / "full")
    with pytest.raises(StoreError, match="no results store here"):
        Store.open(tmp_path / "absent", write=False)


def test_the_integrity_check_finds_a_missing_file_and_a_stray_directory(tmp_path: Path) -> None:
    path = tmp_path / "s"
    execute([Task(str(DATA / "tiny.toml"), (), 1)], store=path, workers=1)
    with Store.open(path, write=False) as s:
        (key,) = s.keys()
        assert s.check() == []
        (path / "runs" / key / "flows.parquet").unlink()
        (path / "runs" / "stray").mkdir()
        problems = s.check()
    assert f"run {key}: flows.parquet missing" in problems
    assert "stray: a directory with no catalog row" in problems


def test_debris_of_a_killed_writer_is_cleared_on_open(tmp_path: Path) -> None:
    path = tmp_path / "s"
    Store.open(path).close()
    (path / "runs" / ".tmp-abc-1").mkdir()
    (path / "runs" / "0123456789abcdef01234567").mkdir()  # renamed, never committed
    with Store.open(path) as s:
        assert s.check() == []
        assert not any((path / "runs").iterdir())


def test_summary_json_is_stored_byte_for_byte(store: Path) -> None:
    with Store.open(store, write=False) as s:
        key = s.runs()["key"].iloc[0]
        rec = s.record(key)
    assert rec is not None
    scen = afsim.load_scenario(DATA / "tcp_ecn.toml", overrides=rec.params)
    assert afsim.run(scen, seed=rec.seed).summary_json == rec.summary_json
    assert json.loads(rec.summary_json)["warnings"] == []


@pytest.fixture(scope="module")
def uneven_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Runs whose columns differ, none holding all the others': at 20 Mb/s tiny's queue drops,
    so its queue metrics are kept, at 100 kb/s they are not; tcp_ecn has a `bottleneck`
    parameter and TCP metrics, and no `rate`. (`pl.read_parquet` of the glob takes the first
    file's columns, so it fails here whatever order the keys fall in.)"""
    path = tmp_path_factory.mktemp("uneven") / "s"
    tasks = [Task(str(DATA / "tiny.toml"), (("rate", r),), s)
             for r in ("100kbps", "20Mbps") for s in (1, 2)]
    tasks.append(Task(str(DATA / "tcp_ecn.toml"), (("bottleneck", "1Mbps"),), 1))
    out = execute(tasks, store=path, workers=1)
    assert out.computed == 5
    return path


def reader_snippets() -> list[str]:
    """The Python blocks of docs/sweeps.md's "Reading a store without afsim"."""
    text = (Path(__file__).parents[2] / "docs" / "sweeps.md").read_text(encoding="utf-8")
    start = text.index("### Reading a store without afsim")
    section = text[start:text.index("\n## ", start)]
    return re.findall(r"```python\n(.*?)```", section, re.S)


def test_every_reader_snippet_of_the_docs_reads_a_store_whose_runs_differ(
        uneven_store: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import pyarrow.parquet as pq

    columns = {frozenset(pq.read_schema(f).names)
               for f in uneven_store.glob("runs/*/run.parquet")}
    assert len(columns) == 3, "the runs' columns differ"
    assert not any(all(c <= d for c in columns) for d in columns), "no run has them all"
    snippets = reader_snippets()
    assert len(snippets) == 3
    for code in snippets:
        exec(compile(code.replace("STORE", str(uneven_store)), "docs/sweeps.md", "exec"), {})
        out = capsys.readouterr().out
        assert "100kbps" in out and "20Mbps" in out, (code, out)


# ---------------------------------------------------------------------------------------------
# What the key hashes: the code that computes stored values, not comments (afsim.codehash)

_METRICS_V1 = '''
SCALE = 2.0


def helper(x):
    return x * SCALE


def metrics(results):
    """The metrics."""
    return {"m": helper(1.0)}


def unrelated():
    return 1
'''


def _load(tmp_path: Path, name: str, text: str):
    import importlib.util

    path = tmp_path / f"{name}.py"
    path.write_text(text, encoding="utf-8")
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.parametrize(("edit", "same"), [
    (lambda t: t.replace("    return x * SCALE", "    # scaled\n    return x * SCALE  # by SCALE"), True),
    (lambda t: t.replace('"""The metrics."""', '"""The metrics, documented better."""'), True),
    (lambda t: t.replace("return 1", "return 2"), True),  # code the metrics never reach
    (lambda t: t.replace("\n\ndef unrelated", "\n\n\n\ndef unrelated"), True),
    (lambda t: t.replace("x * SCALE", "x * SCALE + 1"), False),  # a helper they call
    (lambda t: t.replace("SCALE = 2.0", "SCALE = 3.0"), False),  # a constant they read
    (lambda t: t.replace('{"m": helper(1.0)}', '{"m": helper(2.0)}'), False),
])
def test_the_code_hash_follows_the_metrics_code_not_its_comments(tmp_path: Path, edit, same: bool) -> None:
    from afsim.codehash import fingerprint

    a = _load(tmp_path, "fp_a", _METRICS_V1)
    b = _load(tmp_path, "fp_b", edit(_METRICS_V1).replace("fp_b", "fp_a"))
    # the same qualified names, so that only the code differs
    b.metrics.__module__ = b.helper.__module__ = "fp_a"
    assert (fingerprint([a.metrics]) == fingerprint([b.metrics])) is same


def test_the_code_version_holds_the_default_metrics_code_and_the_key_holds_it() -> None:
    from afsim.codehash import fingerprint
    from afsim.store import AFSIM_VERSION, CODE_VERSION
    from afsim.store.metrics import default_metrics

    assert afsim.__build__ == AFSIM_VERSION
    assert f"{AFSIM_VERSION}.py{fingerprint([default_metrics])}" == CODE_VERSION
    a = afsim.load_scenario(DATA / "tiny.toml")
    assert run_key(a.resolved(), 1) == run_key(a.resolved(), 1, CODE_VERSION)
    assert run_key(a.resolved(), 1) != run_key(a.resolved(), 1, AFSIM_VERSION)


def double_throughput(results):
    return {"double": 2.0 * float(results.flows["throughput_kbps"].sum())}


def triple_throughput(results):
    return {"triple": 3.0 * float(results.flows["throughput_kbps"].sum())}


def test_a_sweep_with_another_reducer_does_not_reuse_the_runs_of_the_first(tmp_path: Path) -> None:
    task = Task(str(DATA / "tiny.toml"), seed=1)
    first = execute([task], store=tmp_path / "s", reducer=double_throughput, workers=1)
    again = execute([task], store=tmp_path / "s", reducer=double_throughput, workers=1)
    other = execute([task], store=tmp_path / "s", reducer=triple_throughput, workers=1)
    assert [r.cached for r in again.records] == [True]
    assert [r.cached for r in other.records] == [False], "another reducer's numbers, not reused"
    assert "triple" in other.records[0].metrics and "double" in first.records[0].metrics
