"""The ``afsim sweep``, ``afsim results`` and ``afsim report`` commands (``afsim.cli`` parses
their arguments and maps their errors to exit codes).

Read this first: each command parses nothing itself, calls ``afsim.sweep``, ``afsim.store``,
``afsim.stats`` and ``afsim.report``, and prints. Exit codes are ``afsim.cli``'s:
``EXIT_RUNS_FAILED`` (3) is a sweep that finished with runs that failed for another reason than
packet conservation (1), and ``EXIT_STORE_DAMAGED`` (4) a ``--check`` that found problems.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import afsim
from afsim.cli_common import (
    EXIT_CONSERVATION,
    EXIT_OK,
    EXIT_RUNS_FAILED,
    EXIT_STORE_DAMAGED,
    UsageError,
    _console,
    _error,
    check_out_dir,
    prepare_out_dir,
    print_warnings,
    scenario_path,
)
from afsim.output import write_text

#: The metrics the sweep and results tables show, when the runs have them.
MAIN_METRICS = ("throughput_kbps_total", "goodput_kbps_total", "loss_ratio", "mean_delay_s",
                "jain", "jain_contracted", "respect_of_service_mean")


def cmd_sweep(args: argparse.Namespace) -> int:
    from afsim import sweep as sw

    path = scenario_path(args.file)
    grid = sw.parse_grid(args.grid)
    if args.replications < 1:
        raise UsageError(f"--replications must be at least 1, got {args.replications}")
    if args.workers is not None and args.workers < 1:
        raise UsageError(f"--workers must be at least 1, got {args.workers}")
    if args.scheduler is not None and args.workers is not None:
        raise UsageError("--workers is for local processes; a Dask cluster (--scheduler) has "
                         "its own workers")
    base = dict(args.overrides)
    scenario = afsim.load_scenario(path, overrides=base)
    for name in grid:
        if name in base:
            raise UsageError(f"{name}: both swept (--grid) and set (--set)")
    print_warnings(scenario.warnings)
    if scenario.captures:
        print("afsim: warning: the scenario's [[capture]] tables are ignored in a sweep "
              "(every run would write the same file)", file=sys.stderr)
    base_seed = args.seed if args.seed is not None else scenario.seed
    points = sw.grid_points(grid)
    tasks = [sw.Task(str(path), tuple({**base, **p}.items()), base_seed + r)
             for p in points for r in range(args.replications)]
    if args.store.exists() and not args.store.is_dir():
        raise UsageError(f"--store {args.store}: a file is in the way (a store is a directory)")
    from afsim.store import sweeps as tags

    defn = tags.definition(path, base, grid, args.replications, base_seed)
    name = args.name or tags.default_name(defn)
    if name == tags.UNTAGGED:
        raise UsageError(f"--name {name}: reserved for the runs of no sweep")
    # the store is opened (created) only once every task has loaded
    out = sw.execute(tasks, store=args.store, workers=args.workers, scheduler=args.scheduler,
                     progress=sys.stderr.isatty(), tag=(name, defn))
    for line in out.recovered:
        print(f"afsim: warning: {args.store}: {line}", file=sys.stderr)
    with _open_store(args.store, write=False) as store:
        runs = store.runs()
    keys = {r.key for r in out.records if r is not None}
    runs = runs[runs["key"].isin(keys)]
    print_points(runs, args.format, list(grid))
    print(f"afsim: sweep {name}: {len(tasks)} runs: {out.computed} computed, {out.from_store} "
          f"from the store {args.store}"
          + (f", {len(out.failures)} failed" if out.failures else ""), file=sys.stderr)
    for line in out.retries:
        print(f"afsim: warning: {line}", file=sys.stderr)
    for i in sorted(out.failures):
        _error(str(out.failures[i]))
    if any(f.kind == "conservation" for f in out.failures.values()):
        return EXIT_CONSERVATION
    return EXIT_RUNS_FAILED if out.failures else EXIT_OK


def _open_store(path: Path, write: bool) -> Any:
    from afsim.store import Store

    return Store.open(path, write=write)


def print_points(runs: Any, fmt: str, swept: list[str] | None = None) -> None:
    """Mean and 95 % confidence interval of the main metrics per (scenario, grid point)."""
    from afsim.stats import aggregate

    params = [c for c in runs.columns if c.startswith("param.")]
    if swept is not None:
        params = [f"param.{n}" for n in swept if f"param.{n}" in runs.columns] + \
            [c for c in params if c.removeprefix("param.") not in swept]
    metrics = [m for m in MAIN_METRICS if m in runs.columns and runs[m].notna().any()]
    points = aggregate(runs, ["scenario", *params], metrics)
    if fmt == "json":
        import json

        write_text(sys.stdout, json.dumps(_records(points), indent=2) + "\n")
        return
    if fmt == "csv":
        write_text(sys.stdout, points.to_csv(index=False))
        return
    from rich.table import Table

    t = Table(title="Mean and 95% confidence interval per grid point", title_justify="left")
    for c in ["scenario", *params, "runs"]:
        t.add_column(c.removeprefix("param."), justify="left" if c == "scenario" else "right")
    for m in metrics:
        t.add_column(m, justify="right")
    for rec in points.to_dict("records"):
        t.add_row(*(str(rec[c]) for c in ["scenario", *params, "runs"]),
                  *(_mean_ci(rec[f"{m}.mean"], rec[f"{m}.ci95"]) for m in metrics))
    _console().print(t)
    if "jain" in metrics:
        _console().print("[dim]jain: Jain's index over every flow of a run, whatever its "
                         "contract or transport; per flow group: group.<name>.jain "
                         "(afsim results STORE --format csv)[/dim]")
    if "jain_contracted" in metrics:
        _console().print("[dim]jain_contracted: Jain's index of throughput ÷ contract over the "
                         "flows with a contract (a customer's contract shared equally by its "
                         "flows); per contract class: contract.<kbps>.jain[/dim]")


def _mean_ci(mean: float, ci: float) -> str:
    from afsim.stats import format_mean_ci

    return format_mean_ci(mean, ci)


def _records(df: Any) -> list[dict[str, Any]]:
    """A table as JSON-ready records: NaN → null, numpy scalars → Python numbers."""
    import json

    return json.loads(df.to_json(orient="records"))


def cmd_results(args: argparse.Namespace) -> int:
    if args.check or args.repair:
        return check_store(args.store, repair=args.repair)
    if args.delete is not None:
        return delete_sweep(args.store, args.delete, args.yes)
    if args.sweeps:
        return list_sweeps(args.store, args.format)
    if args.export is not None:
        check_out_dir(args.export, "--export")
        prepare_out_dir(args.export, "--export")
    with _open_store(args.store, write=False) as store:
        runs = whole_runs(store, args.only)
        if args.export is not None:
            written = export_store(store, runs, args.export)
            print(f"afsim: wrote {len(written)} files to {args.export}", file=sys.stderr)
        if args.format == "csv":
            write_text(sys.stdout, runs.to_csv(index=False))
        elif args.format == "json":
            import json

            from afsim.stats import aggregate

            params = [c for c in runs.columns if c.startswith("param.")]
            metrics = [c for c in runs.columns if c not in _RUN_COLUMNS and c not in params]
            doc = {"store": str(args.store), "afsim_version": store.made_by,
                   "runs": _records(runs),
                   "points": _records(aggregate(runs, ["scenario", *params], metrics))}
            write_text(sys.stdout, json.dumps(doc, indent=2) + "\n")
        else:
            if not len(runs):
                print(f"{args.store}: no runs stored yet")
                return EXIT_OK
            print_points(runs, "table")
            _console().print(f"[dim]{len(runs)} runs in {args.store} (afsim {store.made_by})"
                             "[/dim]")
    return EXIT_OK


#: Columns of ``Store.runs()`` that are not metrics.
_RUN_COLUMNS = ("key", "scenario", "source", "seed", "end_time_s", "stop_reason", "events",
                "packet_hops", "wall_s", "stored_at")


def export_store(store: Any, runs: Any, out: Path) -> list[Path]:
    """runs.csv and runs.parquet (one row per run), points.csv (statistics per grid point),
    and each per-run table concatenated (flows.parquet, queues.parquet, ...)."""
    from afsim.stats import aggregate
    from afsim.store import TABLES

    out.mkdir(exist_ok=True)
    written = [out / "runs.csv", out / "runs.parquet", out / "points.csv"]
    runs.to_csv(written[0], index=False)
    runs.to_parquet(written[1], index=False)
    params = [c for c in runs.columns if c.startswith("param.")]
    metrics = [c for c in runs.columns if c not in _RUN_COLUMNS and c not in params]
    aggregate(runs, ["scenario", *params], metrics).to_csv(written[2], index=False)
    for name in TABLES:
        table = store.table(name, list(runs["key"]))  # only the runs shown (--only)
        if len(table):
            table.to_parquet(out / f"{name}.parquet", index=False)
            written.append(out / f"{name}.parquet")
    return written


def cmd_report(args: argparse.Namespace) -> int:
    from afsim import report

    if args.out.is_dir():
        raise UsageError(f"-o {args.out}: a directory; give the HTML file's name")
    parent = args.out.parent if str(args.out.parent) else Path(".")
    if not parent.is_dir():
        raise UsageError(f"-o {args.out}: the directory {parent} does not exist")
    prepare_out_dir(parent, f"-o {args.out}: its directory")
    with _open_store(args.store, write=False) as store:
        # warns about damage (the report leaves damaged runs out itself); an unknown --only
        # is a usage error
        whole_runs(store, args.only)
        doc = report.store_report(store, sweep=args.only)
    doc.write(args.out)
    print(f"afsim: wrote {args.out}", file=sys.stderr)
    return EXIT_OK




def whole_runs(store: Any, sweep: str | None = None) -> Any:
    """``store.runs()`` (of ``sweep`` only, when given) without the runs whose files are
    missing, with a warning on stderr when there are any: results are never computed from runs
    that are not whole."""
    try:
        runs = store.runs(sweep=sweep)
    except KeyError as e:
        raise UsageError(f"--only: {e.args[0]}") from None
    damaged = store.damaged()
    if damaged:
        print(f"afsim: warning: {store.path}: {len(damaged)} of {len(runs)} runs have lost "
              "files and are left out; 'afsim results STORE --check' lists them, '--repair' "
              "removes them so that the next sweep runs them again", file=sys.stderr)
        runs = runs[~runs["key"].isin(damaged)].reset_index(drop=True)
    return runs


def list_sweeps(path: Path, fmt: str) -> int:
    """``afsim results STORE --sweeps``: one line per sweep (name, scenario, runs stored now,
    runs shared with another sweep, its --set and grid), and the untagged runs."""
    with _open_store(path, write=False) as store:
        table = store.sweeps()
    if fmt == "csv":
        write_text(sys.stdout, table.to_csv(index=False))
        return EXIT_OK
    if fmt == "json":
        import json

        write_text(sys.stdout, json.dumps(_records(table), indent=2) + "\n")
        return EXIT_OK
    if not len(table):
        print(f"{path}: no runs stored yet")
        return EXIT_OK
    from rich.table import Table

    t = Table(title=f"Sweeps in {path}", title_justify="left")
    for c in ("sweep", "scenario", "runs", "shared", "set", "grid"):
        t.add_column(c, justify="right" if c in ("runs", "shared") else "left")
    for r in table.to_dict("records"):
        t.add_row(*(str(r[c]) for c in ("sweep", "scenario", "runs", "shared", "set", "grid")))
    _console().print(t)
    return EXIT_OK


def delete_sweep(path: Path, name: str, yes: bool) -> int:
    """``afsim results STORE --delete SWEEP``: removes the sweep's runs that no other sweep
    holds (after a confirmation on a terminal, or with ``--yes``); takes the writer lock."""
    from afsim.store import Store, sweeps

    with Store.open(path, write=False, lock=True) as store:
        try:
            keys = sweeps.only(store, name)
        except KeyError as e:
            raise UsageError(f"--delete: {e.args[0]}") from None
        if name == sweeps.UNTAGGED:
            raise UsageError(f"--delete: {sweeps.UNTAGGED} names the runs of no sweep; it "
                             "cannot be deleted by name")
        if not yes:
            if not sys.stdin.isatty():
                raise UsageError(f"--delete {name}: {len(keys)} runs; confirm with --yes "
                                 "(no terminal to ask on)")
            answer = input(f"delete sweep {name} ({len(keys)} runs; runs another sweep holds "
                           "are kept)? [y/N] ")
            if answer.strip().lower() not in ("y", "yes"):
                print("afsim: nothing deleted", file=sys.stderr)
                return EXIT_OK
        removed, kept = store.delete_sweep(name)
    print(f"afsim: deleted sweep {name}: {removed} runs removed, {kept} kept (another sweep "
          "holds them)", file=sys.stderr)
    return EXIT_OK


def check_store(path: Path, repair: bool) -> int:
    """``afsim results STORE --check`` (exit 0 sound, 4 problems listed on stdout) and
    ``--repair`` (mends, then checks again). Both take the writer lock: a store a sweep is
    writing is busy (exit 2), since its runs in progress would look like debris."""
    from afsim.store import Store

    with Store.open(path, write=False, lock=True) as store:
        problems = store.check()
        if repair and problems:
            for line in store.repair():
                print(f"repaired: {line}")
            problems = store.check()
        for line in problems:
            print(f"problem: {line}")
        n = len(store)
    if problems:
        _error(f"{path}: {len(problems)} problem(s) found"
               + ("" if repair else "; 'afsim results STORE --repair' mends them"))
        return EXIT_STORE_DAMAGED
    print(f"afsim: {path}: sound ({n} runs)", file=sys.stderr)
    return EXIT_OK
