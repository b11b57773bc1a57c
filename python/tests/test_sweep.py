"""Sweeps (afsim/sweep): grids, the executor on local processes and on a real Dask cluster
(scheduler and workers started here on 127.0.0.1), a sweep killed and resumed, a Dask worker
killed mid-sweep."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import DATA, child_env

from afsim.store import Store
from afsim.sweep import SweepError, Task, execute, grid_points, parse_grid, sweep

BUSY = DATA / "busy.toml"
# busy.toml with --set duration=40s (sweep_args): about 0.2 s of engine time per run, jittered
# (the seed matters), so a sweep of a dozen runs lasts long enough to be interrupted.


def test_a_grid_is_the_cartesian_product_last_name_fastest() -> None:
    grid = parse_grid(["n=1,2", "rate=1Mbps,2Mbps,4Mbps"])
    assert grid == {"n": ["1", "2"], "rate": ["1Mbps", "2Mbps", "4Mbps"]}
    points = grid_points(grid)
    assert len(points) == 6
    assert points[:2] == [{"n": "1", "rate": "1Mbps"}, {"n": "1", "rate": "2Mbps"}]
    assert grid_points({}) == [{}]


@pytest.mark.parametrize("bad, message", [
    ("n", "expected NAME=V1,V2"), ("=1,2", "expected NAME=V1,V2"), ("n=1,,2", "an empty value"),
])
def test_a_malformed_grid_is_a_sweep_error(bad: str, message: str) -> None:
    with pytest.raises(SweepError, match=message):
        parse_grid([bad])
    with pytest.raises(SweepError, match="given twice"):
        parse_grid(["n=1", "n=2"])


def test_a_grid_name_the_scenario_lacks_fails_before_any_run(tmp_path: Path) -> None:
    with pytest.raises(SweepError, match="--grid/--set nope: unknown parameter 'nope'; the "
                       "parameters are: rate"):
        sweep(DATA / "tiny.toml", {"nope": [1, 2]}, store=tmp_path / "s")
    assert not (tmp_path / "s").exists(), "nothing ran, nothing was created"


def test_sweep_returns_one_row_per_run_and_replications_differ() -> None:
    df = sweep(BUSY, {"rate": ["10Mbps", "20Mbps"]}, replications=3, workers=2)
    assert len(df) == 6 and df["key"].is_unique
    assert list(df["seed"]) == [7, 8, 9, 7, 8, 9], "seeds from the scenario's own"
    heavy = df[df["param.rate"] == "20Mbps"]
    assert heavy["packets_dropped"].nunique() == 3, "jittered sources: each seed its own run"
    assert (heavy["loss_ratio"] > df[df["param.rate"] == "10Mbps"]["loss_ratio"].max()).all()


def test_duplicate_tasks_run_once_and_share_a_record() -> None:
    t = Task(str(DATA / "tiny.toml"), (("rate", "1Mbps"),), 1)
    same = Task(str(DATA / "tiny.toml"), (("rate", "1000kbps"),), 1)
    out = execute([t, same], workers=2)
    assert out.computed == 1
    assert out.records[0] is out.records[1]


# ---------------------------------------------------------------------------------------------
# Killed and resumed


def stored_count(store: Path) -> int:
    try:
        with sqlite3.connect(store / "catalog.sqlite", timeout=5) as db:
            return int(db.execute("SELECT count(*) FROM runs").fetchone()[0])
    except sqlite3.Error:
        return 0


def sweep_args(store: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "afsim", "sweep", str(BUSY), "--set", "duration=40s",
            "--grid", "rate=5Mbps,10Mbps,20Mbps", "--replications", "4", "--store", str(store),
            *extra]


def wait_for(cond, timeout: float, what: str) -> None:  # type: ignore[no-untyped-def]
    end = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > end:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


def test_a_sweep_killed_mid_way_resumes_without_recomputing_or_losing_a_run(
        tmp_path: Path) -> None:
    store = tmp_path / "store"
    p = subprocess.Popen(sweep_args(store, "--workers", "2"), stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        wait_for(lambda: stored_count(store) >= 3 or p.poll() is not None, 120, "3 stored runs")
        assert p.poll() is None, "the sweep ended before it could be killed"
        os.killpg(p.pid, signal.SIGKILL)  # the sweep and its workers, at once
    finally:
        p.wait()
    with Store.open(store) as s:  # a writable open clears a killed writer's debris
        assert s.check() == []
        before = s.runs().set_index("key")["stored_at"].to_dict()
    assert 3 <= len(before) < 12
    r = subprocess.run(sweep_args(store, "--workers", "2", "--format", "csv"),
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert f"12 runs: {12 - len(before)} computed, {len(before)} from the store" in r.stderr
    with Store.open(store, write=False) as s:
        after = s.runs().set_index("key")["stored_at"].to_dict()
        assert s.check() == []
    assert len(after) == 12
    assert {k: after[k] for k in before} == before, "no stored run was written again"


def test_ctrl_c_stops_a_sweep_with_130_and_keeps_what_finished(tmp_path: Path) -> None:
    store = tmp_path / "store"
    p = subprocess.Popen(sweep_args(store, "--workers", "2"), stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, start_new_session=True)
    try:
        wait_for(lambda: stored_count(store) >= 2 or p.poll() is not None, 120, "2 stored runs")
        assert p.poll() is None, "the sweep ended before it could be interrupted"
        os.killpg(p.pid, signal.SIGINT)  # what Ctrl-C sends: the sweep and its workers
        _, err = p.communicate(timeout=60)
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
            p.communicate()
    assert p.returncode == 130, err.decode()
    assert "afsim: error: interrupted" in err.decode()
    with Store.open(store) as s:
        assert 2 <= len(s) < 12 and s.check() == []


# ---------------------------------------------------------------------------------------------
# Dask


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Cluster:
    """A Dask scheduler and workers on 127.0.0.1, each its own process group."""

    def __init__(self, tmp: Path) -> None:
        self.port = free_port()
        self.address = f"tcp://127.0.0.1:{self.port}"
        self.dask = str(Path(sys.executable).parent / "dask")
        self.logs = tmp
        self.procs: list[subprocess.Popen[bytes]] = []
        self.log_files: list = []  # type: ignore[type-arg]
        self.workers: list[subprocess.Popen[bytes]] = []
        self._start("scheduler", [self.dask, "scheduler", "--host", "127.0.0.1", "--port",
                                  str(self.port), "--no-dashboard"])

    def _start(self, name: str, args: list[str]) -> subprocess.Popen[bytes]:
        log = open(self.logs / f"{name}.log", "wb")
        self.log_files.append(log)
        # workers run elsewhere than the sweep: a scenario's path means nothing to them
        p = subprocess.Popen(args, stdout=log, stderr=log, start_new_session=True, cwd=self.logs,
                             env=child_env())
        self.procs.append(p)
        return p

    def add_worker(self) -> None:
        n = len(self.workers)
        self.workers.append(self._start(f"worker{n}", [
            self.dask, "worker", self.address, "--host", "127.0.0.1", "--nworkers", "1",
            "--nthreads", "1", "--no-dashboard", "--name", f"w{n}"]))

    def wait_for_workers(self, n: int) -> None:
        from distributed import Client

        with Client(self.address, timeout=30) as c:
            c.wait_for_workers(n, timeout=60)

    def kill(self, p: subprocess.Popen[bytes]) -> None:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
        p.wait()

    def close(self) -> None:
        for p in reversed(self.procs):
            self.kill(p)
        for f in self.log_files:
            f.close()


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[Cluster]:
    c = Cluster(tmp_path)
    try:
        c.add_worker()
        c.add_worker()
        c.wait_for_workers(2)
        yield c
    finally:
        c.close()


def test_a_sweep_on_dask_gives_the_local_results(cluster: Cluster, tmp_path: Path) -> None:
    grid = {"rate": ["10Mbps", "20Mbps"]}
    local = sweep(BUSY, grid, replications=2, store=tmp_path / "local", workers=2)
    remote = sweep(BUSY, grid, replications=2, store=tmp_path / "dask",
                   scheduler=cluster.address)
    assert not remote["cached"].any()
    cols = [c for c in local.columns if c not in ("cached", "wall_s")]
    assert local[cols].equals(remote[cols])
    with Store.open(tmp_path / "local", write=False) as a, \
            Store.open(tmp_path / "dask", write=False) as b:
        for key in local["key"]:
            ra, rb = a.record(key), b.record(key)
            assert ra is not None and rb is not None
            assert ra.summary_json == rb.summary_json
        def flows(s: Store):  # type: ignore[no-untyped-def]
            return s.table("flows").sort_values(["key", "name"]).reset_index(drop=True)

        assert flows(a).equals(flows(b))
        assert b.check() == []


def test_a_dask_worker_killed_mid_sweep_loses_no_run(cluster: Cluster, tmp_path: Path) -> None:
    store = tmp_path / "store"
    p = subprocess.Popen(sweep_args(store, "--scheduler", cluster.address),
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    try:
        wait_for(lambda: stored_count(store) >= 2 or p.poll() is not None, 120, "2 stored runs")
        assert p.poll() is None, "the sweep ended before a worker could be killed"
        cluster.kill(cluster.workers[0])
        _out, err = p.communicate(timeout=300)
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
            p.communicate()
    assert p.returncode == 0, err.decode()
    with Store.open(store, write=False) as s:
        runs = s.runs()
        assert len(runs) == 12 and runs["key"].is_unique, "every run stored exactly once"
        assert s.check() == []


def test_an_unreachable_scheduler_is_exit_2(tmp_path: Path) -> None:
    r = subprocess.run([sys.executable, "-m", "afsim", "sweep", str(DATA / "tiny.toml"),
                        "--store", str(tmp_path / "s"), "--scheduler",
                        f"tcp://127.0.0.1:{free_port()}"],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 2
    assert "no Dask scheduler answered" in r.stderr
    assert not (tmp_path / "s").exists(), "nothing created before the scheduler answered"


def test_a_dask_sweep_of_a_relative_path_needs_no_shared_file_system(cluster: Cluster,
                                                                     tmp_path: Path) -> None:
    here = tmp_path / "client"
    (here / "scen").mkdir(parents=True)
    shutil.copy(BUSY, here / "scen" / "my.toml")
    r = subprocess.run([sys.executable, "-m", "afsim", "sweep", "scen/my.toml", "--set",
                        "duration=2s", "--grid", "rate=5Mbps,10Mbps", "--store", "st",
                        "--scheduler", cluster.address], cwd=here, env=child_env(),
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert "2 runs: 2 computed" in r.stderr
    with Store.open(here / "st", write=False) as s:
        assert set(s.runs()["source"]) == {"scen/my.toml"} and s.check() == []


def test_a_task_loaded_from_text_names_its_file_in_errors() -> None:
    from afsim._core import ScenarioError

    t = Task("scen/my.toml", (("rate", "fast"),), text=BUSY.read_text())
    with pytest.raises(ScenarioError) as e:
        t.load()
    assert e.value.file == "scen/my.toml" and e.value.line > 0


def test_afsim_sweep_is_callable_as_the_issue_writes_it() -> None:
    import afsim

    df = afsim.sweep(DATA / "tiny.toml", {"rate": ["1Mbps", "3Mbps"]}, workers=1)
    assert list(df["throughput_kbps_total"]) == [998.0, 2992.0]
