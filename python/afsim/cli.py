"""The ``afsim`` command: run a scenario, sweep a grid of runs into a results store, read and
report a store, benchmark the engine, list the built-in scenarios.

Read this first: the command only parses, checks, calls the subsystems (``afsim.sweep``,
``afsim.store``, ``afsim.stats``, ``afsim.report``) and prints. Exit codes: 0 success, 1 a run
broke packet conservation, 2 bad input (usage, a missing file, any scenario error, a bad
``--out``, grid, scheduler or store: nothing runs), 130 interrupted. In ``--format json`` and
``--format csv`` stdout carries the data and nothing else; messages and warnings go to stderr.
Heavy modules (pandas, pyarrow, rich) are imported only by the paths that use them:
``afsim run --format json`` needs neither pandas nor pyarrow.
"""

from __future__ import annotations

import argparse
import json
import os
import stat
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import afsim
from afsim._core import ConservationError, ScenarioError
from afsim.results import Results

if TYPE_CHECKING:
    from rich.console import Console
    from rich.progress import Progress

EXIT_OK = 0
EXIT_CONSERVATION = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130
EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE, what a shell reports for a filter killed by it

#: Wall seconds a run must last before its progress bar appears.
PROGRESS_DELAY_S = 1.0


class UsageError(Exception):
    """Bad input found before anything ran (exit 2)."""


def _key_value(text: str) -> tuple[str, str]:
    key, sep, value = text.partition("=")
    if not sep or not key.strip():
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE, got {text!r}")
    return key.strip(), value.strip()


def _seed(text: str) -> int:
    try:
        seed = int(text, 0)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
    if not 0 <= seed < 2**64:
        raise argparse.ArgumentTypeError(f"a seed is between 0 and 2**64 - 1, got {seed}")
    return seed


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="afsim",
        description="Packet-level simulator of DiffServ Assured Forwarding networks.",
    )
    parser.add_argument("--version", action="version", version=f"afsim {afsim.__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    run_p = sub.add_parser("run", help="run a scenario and print its results")
    run_p.add_argument(
        "file",
        nargs="?",
        metavar="FILE",
        help="scenario file (TOML), or the name of a built-in scenario (afsim scenarios); "
        "default: the built-in default scenario",
    )
    run_p.add_argument(
        "--set",
        dest="overrides",
        action="append",
        type=_key_value,
        default=[],
        metavar="KEY=VALUE",
        help="set a scenario parameter ([params] KEY); repeatable",
    )
    run_p.add_argument(
        "--seed", type=_seed, help="seed of every random stream (overrides the file's)"
    )
    run_p.add_argument(
        "--out", type=Path, metavar="DIR",
        help="also write summary.json and every table as CSV and Parquet to DIR",
    )
    run_p.add_argument(
        "--format",
        choices=("table", "json", "csv"),
        default="table",
        help="table (default): readable tables; json: the report; csv: flows, blank line, queues",
    )
    run_p.add_argument(
        "--capture", action="append", default=[], metavar="PORT[=FILE]",
        help="write the packets that leave PORT (a link direction, 'r1->r2') to a pcap file "
        "(default FILE: r1-r2.pcap, in --out if given); repeatable",
    )
    run_p.set_defaults(func=cmd_run)

    live_p = sub.add_parser(
        "live",
        help="run a scenario on real Linux TCP/UDP in network namespaces, through afsim's own "
        "links, queues and conditioners (needs root)",
    )
    live_p.add_argument("file", nargs="?", metavar="FILE",
                        help="scenario file or built-in scenario name; default: the default scenario")
    live_p.add_argument("--set", dest="overrides", action="append", type=_key_value, default=[],
                        metavar="KEY=VALUE", help="set a scenario parameter ([params] KEY); repeatable")
    live_p.add_argument("--seed", type=_seed, help="seed of the models' random streams")
    live_p.add_argument("--cc", action="append", default=[], metavar="[FLOW=]NAME",
                        help="Linux congestion control: reno (default), cubic or bbr, for every flow "
                        "or for one flow or group (FLOW=NAME); repeatable")
    live_p.add_argument("--no-realtime", dest="realtime", action="store_false",
                        help="do not run the forwarder under SCHED_FIFO (default: it does)")
    live_p.add_argument("--spin-us", type=float, default=0.0, metavar="US",
                        help="busy-wait the last US microseconds before each deadline instead of "
                        "sleeping (less lateness, more CPU; default 0)")
    live_p.add_argument("--out", type=Path, metavar="DIR", help="also write summary.json to DIR")
    live_p.add_argument("--format", choices=("table", "json"), default="table")
    live_p.add_argument("--cleanup", action="store_true",
                        help="remove the namespaces and links runs killed with SIGKILL left "
                        "(only names with afsim live's prefix), and do nothing else")
    live_p.set_defaults(func=cmd_live)

    sweep_p = sub.add_parser(
        "sweep", help="run a scenario over a parameter grid x replications into a results store",
        description="Run FILE at every point of the grids' Cartesian product, REPLICATIONS "
        "seeds each, on local processes or a Dask cluster. Every finished run is stored at once "
        "in --store; runs already there are not run again. Prints the mean and 95%% confidence "
        "interval of the main metrics per grid point.",
    )
    sweep_p.add_argument("file", metavar="FILE", help="scenario file, or a built-in scenario's name")
    sweep_p.add_argument(
        "--grid", action="append", default=[], metavar="NAME=V1,V2,...",
        help="a [params] entry and its values; repeatable (the product of all grids is run)",
    )
    sweep_p.add_argument(
        "--set", dest="overrides", action="append", type=_key_value, default=[],
        metavar="KEY=VALUE", help="set a [params] entry for every run; repeatable",
    )
    sweep_p.add_argument("--replications", type=int, default=1, metavar="K",
                         help="seeds per grid point: SEED, SEED+1, ... (default 1)")
    sweep_p.add_argument("--seed", type=_seed, help="first seed (default: the scenario's)")
    sweep_p.add_argument("--store", type=Path, default=Path("afsim-store"), metavar="PATH",
                         help="results store directory (default: afsim-store)")
    sweep_p.add_argument("--scheduler", metavar="ADDRESS",
                         help="run on this Dask distributed scheduler (tcp://host:port) "
                         "instead of local processes")
    sweep_p.add_argument("--workers", type=int, metavar="N",
                         help="local worker processes (default: the CPU count)")
    sweep_p.add_argument("--format", choices=("table", "json", "csv"), default="table",
                         help="how to print the per-point statistics")
    sweep_p.set_defaults(func=cmd_sweep)

    res_p = sub.add_parser("results", help="print or export what a results store holds")
    res_p.add_argument("store", type=Path, metavar="STORE")
    res_p.add_argument("--format", choices=("table", "csv", "json"), default="table",
                       help="table: statistics per grid point; csv: one row per run; json: both")
    res_p.add_argument("--export", type=Path, metavar="DIR",
                       help="also write runs.csv, points.csv and every table as Parquet to DIR")
    res_p.set_defaults(func=cmd_results)

    rep_p = sub.add_parser("report", help="write a self-contained HTML report of a results store")
    rep_p.add_argument("store", type=Path, metavar="STORE")
    rep_p.add_argument("-o", "--out", type=Path, default=Path("report.html"), metavar="FILE",
                       help="the HTML file to write (default: report.html)")
    rep_p.set_defaults(func=cmd_report)

    bench_p = sub.add_parser(
        "bench", help="measure packet-hops per wall second on the built-in bench scenarios"
    )
    bench_p.add_argument("--format", choices=("table", "json"), default="table")
    bench_p.add_argument(
        "--quick", action="store_true", help="shorter runs (a tenth of each scenario's duration)"
    )
    bench_p.add_argument(
        "--sweep", action="store_true",
        help="measure sweeps instead: overhead over one-second runs, scaling of 200 runs over "
        "the cores (about two minutes)",
    )
    bench_p.add_argument("--runs", type=int, metavar="N",
                         help="with --sweep: runs of the scaling measurement (default 200)")
    bench_p.set_defaults(func=cmd_bench)

    scen_p = sub.add_parser("scenarios", help="list the built-in scenarios")
    scen_p.set_defaults(func=cmd_scenarios)

    repro_p = sub.add_parser(
        "reproduce",
        help="run a paper's experiments and compare them with its published values",
        description="Run a paper's experiments (full mode: the paper's packet budget), its "
        "variants and a robustness design over what it leaves open; score its published values "
        "and its claims beside a null model's; and write a Markdown report, JSON, a CSV of every "
        "run and the figures (PNG, SVG) to --out.",
    )
    repro_p.add_argument("paper", metavar="PAPER", help="the paper: giacomazzi, laatu, leung or gtfrc")
    repro_p.add_argument(
        "--quick", action="store_true",
        help="a much smaller packet budget and fewer replications (said in every output)",
    )
    repro_p.add_argument("--format", choices=("table", "json"), default="table")
    repro_p.add_argument(
        "--out", type=Path, metavar="DIR",
        help="where to write report.md, results.json, runs.csv and the figures "
        "(default: reproduce-PAPER[-quick] in the current directory)",
    )
    repro_p.add_argument(
        "--jobs", type=int, metavar="N", help="parallel simulations (default: the CPU count)"
    )
    repro_p.add_argument(
        "--only", action="append", metavar="EXPERIMENT",
        help="run only this experiment (repeatable; e.g. giacomazzi's table2, laatu's table3)",
    )
    repro_p.add_argument(
        "--budget", type=int, metavar="N",
        help="each run's budget, overriding the mode's, in the paper's unit: giacomazzi, the data "
        "packets the sources generate; laatu, the seconds of simulated time a transfer may take; "
        "leung, the simulated seconds of a run; gtfrc runs the paper's 100 s and takes no other. "
        "Below the paper's, every output says the run is reduced",
    )
    repro_p.add_argument(
        "--replications", type=int, metavar="N", help="seeds per point (overrides the mode's)"
    )
    repro_p.add_argument(
        "--variant-replications", type=int, metavar="N",
        help="seeds per point of each named variant (overrides the mode's)",
    )
    repro_p.add_argument(
        "--robust-points", type=int, metavar="N",
        help="points of the robustness design over the unstated parameters (overrides the mode's)",
    )
    repro_p.add_argument(
        "--no-variants", action="store_true", help="skip the named variants (other readings)"
    )
    repro_p.add_argument(
        "--no-robustness", action="store_true",
        help="skip the robustness design over the paper's unstated parameters",
    )
    repro_p.add_argument(
        "--store", type=Path, metavar="DIR",
        help="keep every finished run here and reuse it: a reproduction killed at any moment "
        "resumes without redoing a run (default: OUT/store; one store per build of afsim)",
    )
    repro_p.add_argument(
        "--no-store", action="store_true", help="keep no runs: every run is computed afresh"
    )
    repro_p.add_argument(
        "--ns2", choices=("committed", "run", "off"), default="committed",
        help="the ns-2 column (papers with an ns-2 twin: leung, gtfrc, giacomazzi): 'committed' "
        "reads the ns-2 runs committed with afsim (default); 'run' runs the missing ones with "
        "ns-2 2.35 (apt-get install ns2), kept in the store; 'off' leaves the column out",
    )
    repro_p.add_argument(
        "--ns2-save", action="store_true",
        help="with --ns2 run: write the ns-2 runs used over the committed results shipped with "
        "afsim (afsim/reproduce/data/ns2/PAPER.json.gz; for afsim's developers)",
    )
    repro_p.set_defaults(func=cmd_reproduce)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args))
    except ScenarioError as e:
        _error(format_scenario_error(e))
        return EXIT_USAGE
    except UsageError as e:
        _error(str(e))
        return EXIT_USAGE
    except ConservationError as e:
        _error(f"{e} \u2717 (the run's report is in the exception's report_json)")
        return EXIT_CONSERVATION
    except KeyboardInterrupt:
        _error("interrupted")
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # The reader went away (`afsim run --format csv | head`): stop quietly, as a Unix
        # filter does, and keep Python from complaining again when it flushes stdout at exit.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_BROKEN_PIPE
    except Exception as e:
        # the subsystems' own "bad input" and "a run failed" exceptions, without importing
        # them on paths that do not use them
        kind = type(e).__name__
        if kind in ("SweepError", "StoreError"):
            _error(str(e))
            return EXIT_USAGE
        if kind == "RunFailed":
            _error(str(e))
            return EXIT_CONSERVATION if getattr(e, "kind", "") == "conservation" else EXIT_USAGE
        raise


def _error(message: str) -> None:
    print(f"afsim: error: {message}", file=sys.stderr)


def format_scenario_error(e: ScenarioError) -> str:
    """``file:line:column: field: message`` (the field part left out when no field applies)."""
    place = f"{e.file}:{e.line}:{e.column}"
    return f"{place}: {e.field}: {e.message}" if e.field else f"{place}: {e.message}"


# ---------------------------------------------------------------------------------------------
# afsim run


def cmd_run(args: argparse.Namespace) -> int:
    path = scenario_path(args.file)
    if args.out is not None:
        check_out_dir(args.out, "--out")
    scenario = afsim.load_scenario(path, overrides=dict(args.overrides))
    for port, file in (_capture_arg(c, args.out) for c in args.capture):
        try:
            scenario = scenario.with_capture(port, file, origin=f"--capture {port}")
        except ValueError as e:
            raise UsageError(f"--capture {port}: {e}") from None
    print_warnings(scenario.warnings)

    show_progress = sys.stderr.isatty() and (args.format == "table" or sys.stdout.isatty())
    progress = ProgressBar(scenario.duration_s) if show_progress else None
    try:
        # the compiled run: tables (pandas) are built only for the outputs that need them
        raw = afsim._core.run(scenario, seed=args.seed, progress=progress)
    finally:
        if progress is not None:
            progress.close()

    results = None if args.format == "json" and args.out is None else Results.from_run(raw)
    if args.format == "json":
        sys.stdout.write(raw.summary_json() + "\n")
    elif args.format == "csv":
        assert results is not None
        sys.stdout.write(results.flows.to_csv(index=False))
        sys.stdout.write("\n")
        sys.stdout.write(results.queues.to_csv(index=False))
    else:
        assert results is not None
        print_tables(results, _console())

    if args.out is not None:
        assert results is not None
        written = results.write(args.out)
        if args.format == "table":
            _console().print(f"wrote {len(written)} files to {args.out}")
    if scenario.captures and args.format == "table":
        _console().print(f"captured to {', '.join(str(c) for c in scenario.captures)}")
    return EXIT_OK


def cmd_live(args: argparse.Namespace) -> int:
    from afsim.live import netns
    from afsim.live.run import LivePermissionError, LiveSetupError, live

    try:
        netns.check_privileges()
        if args.cleanup:
            removed, left = netns.cleanup()
            for n in removed:
                print(f"removed namespace {n}")
            if left:
                _error(f"could not remove {', '.join(left)}")
                return EXIT_CONSERVATION
            if not removed:
                print("nothing to clean up")
            return EXIT_OK
        path = scenario_path(args.file)
        if args.out is not None:
            check_out_dir(args.out, "--out")
        log = (lambda m: print(f"afsim live: {m}", file=sys.stderr)) if sys.stderr.isatty() else None
        summary = live(path, dict(args.overrides), args.seed, args.cc, log=log,
                       realtime=args.realtime, spin_us=args.spin_us)
    except LivePermissionError as e:
        _error(str(e))
        return EXIT_USAGE
    except (LiveSetupError, ValueError) as e:
        _error(str(e))
        return EXIT_USAGE
    text = json.dumps(summary, indent=1)
    if args.format == "json":
        sys.stdout.write(text + "\n")
    else:
        from afsim.live.report import print_live

        print_live(summary, _console())
    if args.out is not None:
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "summary.json").write_text(text + "\n")
    return EXIT_OK if summary["conservation"]["holds"] else EXIT_CONSERVATION


def scenario_path(text: str | None) -> Path:
    """The scenario file a command line names: a file path, else a built-in scenario's name.
    A path that exists but is no regular file (a directory, a FIFO, a symlink loop or a link to
    nothing) is named as what it is."""
    if text is None:
        return afsim.builtin_scenario("default")
    path = Path(text)
    try:
        st = os.stat(path)
    except OSError as e:
        import errno

        if e.errno == errno.ELOOP:
            raise UsageError(f"{text}: a symbolic link loop (too many levels of symbolic links), "
                             "not a scenario file") from None
        if path.is_symlink():
            raise UsageError(f"{text}: a symbolic link to '{os.readlink(path)}', which does not "
                             "exist") from None
        if e.errno not in (errno.ENOENT, errno.ENOTDIR):
            raise UsageError(f"{text}: {e.strerror}") from None
        # not a file: a built-in scenario's name (`afsim scenarios` lists them)?
        try:
            return afsim.builtin_scenario(text)
        except FileNotFoundError as missing:
            raise UsageError(f"{text}: no such scenario file, nor a built-in scenario "
                             f"({str(missing).split('; ', 1)[-1]})") from None
    if stat.S_ISDIR(st.st_mode):
        raise UsageError(f"{text}: a directory, not a scenario file")
    if stat.S_ISFIFO(st.st_mode):
        raise UsageError(f"{text}: a FIFO (named pipe), not a scenario file")
    if not stat.S_ISREG(st.st_mode):
        raise UsageError(f"{text}: not a regular file, so not a scenario file")
    return path


def check_out_dir(out: Path, option: str) -> None:
    """Fails (exit 2, before anything runs) unless ``out`` is a writable directory or can be
    created as one in an existing, writable directory."""
    if out.exists():
        if not out.is_dir():
            raise UsageError(f"{option} {out}: a file is in the way (it takes a directory)")
        if not os.access(out, os.W_OK | os.X_OK):
            raise UsageError(f"{option} {out}: the directory is not writable")
        return
    parent = out.parent if str(out.parent) else Path(".")
    if not parent.is_dir():
        what = "is not a directory" if parent.exists() else "does not exist"
        raise UsageError(f"{option} {out}: its parent directory {parent} {what}")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise UsageError(f"{option} {out}: cannot create it: {parent} is not writable")


def _capture_arg(text: str, out: Path | None) -> tuple[str, Path]:
    """``PORT[=FILE]`` → (port, file); the default file is the port's name as a file name."""
    port, sep, file = text.partition("=")
    port = port.strip()
    if not port:
        raise UsageError(f"--capture {text!r}: expected PORT[=FILE], like r1->r2=r1.pcap")
    if sep and file.strip():
        path = Path(file.strip())
    else:
        name = port.replace("->", "-").replace("/", "_") + ".pcap"
        path = (out / name) if out is not None else Path(name)
    if path.is_dir():
        raise UsageError(f"--capture {text}: {path} is a directory, not a file")
    parent = path.parent if str(path.parent) else Path(".")
    if out is None or parent != out:
        if not parent.is_dir():
            raise UsageError(f"--capture {text}: the directory {parent} does not exist")
        if not os.access(parent, os.W_OK | os.X_OK):
            raise UsageError(f"--capture {text}: the directory {parent} is not writable")
    elif not out.exists():
        out.mkdir()  # checked by check_out_dir: its parent exists and is writable
    return port, path


def print_warnings(warnings: list[dict[str, Any]]) -> None:
    """The loader's warnings, one line each on stderr: ``afsim: warning: file:line:col: ...``."""
    for w in warnings:
        place = f"{w['file']}:{w['line']}:{w['column']}"
        field = f" {w['field']}:" if w["field"] else ""
        print(f"afsim: warning: {place}:{field} {w['message']}", file=sys.stderr)


def _console(stderr: bool = False) -> Console:
    from rich.console import Console

    class _Console(Console):
        def on_broken_pipe(self) -> None:
            # rich exits with status 1 here; hand it to main(), which stops every output
            # format the same way (EXIT_BROKEN_PIPE, as a filter killed by SIGPIPE)
            self.quiet = True
            raise BrokenPipeError

    stream = sys.stderr if stderr else sys.stdout
    # Off a terminal rich assumes 80 columns; the queue table is wider than that.
    return _Console(file=stream, width=None if stream.isatty() else 132, highlight=False)


class ProgressBar:
    """The progress callback of ``afsim run``: a rich bar on stderr, shown only once the run
    has lasted ``PROGRESS_DELAY_S`` of wall time (short runs print nothing)."""

    def __init__(self, duration_s: float | None) -> None:
        self.duration_s = duration_s
        self.start = time.monotonic()
        self.bar: Progress | None = None
        self.task: Any = None

    def __call__(self, sim_time_s: float, fraction: float | None, events: int) -> None:
        wall = time.monotonic() - self.start
        if wall < PROGRESS_DELAY_S:
            return
        if self.bar is None:
            from rich.progress import BarColumn, Progress, TaskProgressColumn, TextColumn

            self.bar = Progress(
                TextColumn("simulating"),
                BarColumn(),
                TaskProgressColumn(),
                TextColumn("{task.fields[sim]:.3f} sim-s  {task.fields[speed]} sim-s/wall-s"),
                console=_console(stderr=True),
                transient=True,
            )
            self.task = self.bar.add_task("run", total=1.0 if fraction is not None else None,
                                          sim=0.0, speed="")
            self.bar.start()
        self.bar.update(
            self.task,
            completed=fraction if fraction is not None else 0.0,
            sim=sim_time_s,
            speed=_speed(sim_time_s / wall),
        )

    def close(self) -> None:
        if self.bar is not None:
            self.bar.stop()
            self.bar = None


def conservation_line(conservation: dict[str, Any]) -> str:
    """``sent = delivered + dropped + in flight: 1000 = 990 + 8 + 2 ✓``"""
    c = conservation
    mark = "\u2713" if c["holds"] else "\u2717"
    return (
        "sent = delivered + dropped + in flight: "
        f"{c['sent']} = {c['delivered']} + {c['dropped_total']} + {c['in_flight']} {mark}"
    )


def print_tables(results: Results, console: Console) -> None:
    from rich.markup import escape
    from rich.table import Table

    s = results.summary
    console.print(
        f"[bold]{escape(results.scenario)}[/bold]  seed {results.seed}  ·  "
        f"{s['end_time_s']:g} simulated s ({s['stop_reason']})"
        + (f"  ·  measured from {s['warmup_s']:g} s" if s["warmup_s"] else "")
    )

    flows = Table(title="Flows", title_justify="left")
    f = results.flows
    # optional columns appear when some flow has them (TCP flows, flows metered at the edge)
    extra = [
        (col, header, fmt)
        for col, header, fmt in (
            ("goodput_kbps", "goodput (kb/s)", "{:,.1f}"),
            ("retransmitted_packets", "retx (pkt)", "{:,.0f}"),
            ("timeouts", "timeouts", "{:,.0f}"),
            ("contract_kbps", "contract (kb/s)", "{:,.0f}"),
            ("respect_of_service", "RoS", "{:.2%}"),
        )
        if col in f.columns and f[col].notna().any()
    ]
    headers = ["flow", "src→dst", "sent (pkt)", "delivered (pkt)", "dropped (pkt)",
               "throughput (kb/s)", *(h for _, h, _ in extra)]
    for header in headers:
        flows.add_column(escape(header), justify="left" if header in ("flow", "src→dst") else "right")
    for rec in f.to_dict("records"):  # one table line per flow, for display only
        cells = [
            escape(str(rec["name"])), escape(f"{rec['src']}→{rec['dst']}"),
            f"{rec['packets_sent']:,}", f"{rec['packets_delivered']:,}",
            f"{rec['packets_dropped']:,}", f"{rec['throughput_kbps']:,.1f}",
        ]
        for col, _, fmt in extra:
            v = rec[col]
            cells.append("–" if v != v else fmt.format(v))  # NaN: not applicable
        flows.add_row(*cells)
    console.print(flows)

    # quiet queues (no drop, no mark, under 10% busy: host links, ACK paths) are left out of
    # the table; the JSON, CSV and Parquet outputs keep every queue
    allq = results.queues
    if len(allq):
        marks = allq["ecn_marks"].fillna(0) if "ecn_marks" in allq.columns else 0
        busy = (allq["drops_total"] > 0) | (marks > 0) | (allq["utilization"] >= 0.10)
        q = allq[busy]
    else:
        q = allq
    idle = len(allq) - len(q)
    reasons = [c for c in q.columns if c.startswith("drops_") and c != "drops_total"]
    shown = [c for c in reasons if len(q) and int(q[c].sum()) > 0]
    queues = Table(
        title="Queues", title_justify="left",
        caption=(f"{idle} quiet queue(s) not shown (no drop, no mark, under 10% busy)"
                 if idle else None),
        caption_justify="left",
    )
    queues.add_column("queue")
    queues.add_column("discipline")
    for header in ("arrivals (pkt)", "departures (pkt)", "drops (pkt)"):
        queues.add_column(header, justify="right")
    for c in shown:
        queues.add_column(escape(f"{c.removeprefix('drops_')} (pkt)"), justify="right")
    queues.add_column("mean length (pkt)", justify="right")
    queues.add_column("utilisation (%)", justify="right")
    for rec in q.to_dict("records"):  # one table line per queue, for display only
        queues.add_row(
            escape(str(rec["name"])), escape(str(rec["discipline"])), f"{rec['arrivals']:,}",
            f"{rec['departures']:,}", f"{rec['drops_total']:,}",
            *(f"{rec[c]:,}" for c in shown),
            f"{rec['mean_len_packets']:.2f}", f"{100.0 * rec['utilization']:.1f}",
        )
    console.print(queues)

    print_af_tables(results, console)

    console.print(conservation_line(results.conservation), markup=False)
    speed = results.sim_seconds_per_wall_second
    console.print(
        f"[dim]{results.events:,} events  ·  {results.packet_hops:,} packet-hops  ·  "
        f"{results.wall_seconds:.3f} wall s  ·  {_speed(speed)} simulated s per wall s[/dim]"
    )


def print_af_tables(results: Results, console: Console) -> None:
    """The DiffServ tables: losses by colour at queues that saw more than one colour or any
    loss, edge conditioners, and flow groups with more than one flow."""
    from rich.markup import escape
    from rich.table import Table

    def table(title: str, df: Any, cols: list[tuple[str, str, str]]) -> None:
        t = Table(title=title, title_justify="left")
        for i, (_, header, _) in enumerate(cols):
            t.add_column(escape(header), justify="left" if i == 0 else "right")
        for rec in df.to_dict("records"):
            t.add_row(*("–" if rec[c] is None or rec[c] != rec[c] else fmt.format(rec[c])
                        for c, _, fmt in cols))
        console.print(t)

    c = results.colours
    if len(c):
        busy = c.groupby("queue").filter(
            lambda g: (g["drops_overflow"] + g["drops_early"]).sum() > 0
            or g["ecn_marks"].fillna(0).sum() > 0)
        if len(busy):
            table("Queues by colour", busy, [
                ("queue", "queue", "{}"), ("colour", "colour", "{}"),
                ("arrivals", "arrivals (pkt)", "{:,}"),
                ("drops_early", "early drops (pkt)", "{:,}"),
                ("drops_overflow", "overflow drops (pkt)", "{:,}"),
                ("ecn_marks", "ECN marks (pkt)", "{:,.0f}"),
                ("loss_ratio", "loss ratio", "{:.2e}"),
            ])
    if len(results.conditioners):
        table("Edge conditioners", results.conditioners, [
            ("name", "conditioner", "{}"), ("meter", "meter", "{}"),
            ("committed_rate_bps", "rate (b/s)", "{:,}"),
            ("green_packets", "green (pkt)", "{:,}"),
            ("yellow_packets", "yellow (pkt)", "{:,}"),
            ("red_packets", "red (pkt)", "{:,}"),
            ("dropped_policed", "policed (pkt)", "{:,}"),
            ("dropped_buffer", "buffer drops (pkt)", "{:,}"),
            ("respect_of_service", "RoS", "{:.2%}"),
        ])
    if len(results.csas):
        table("Congestion Signaling Algorithms", results.csas, [
            ("name", "CSA", "{}"), ("queue", "watches", "{}"),
            ("alpha_mean", "mean α", "{:.3f}"), ("alpha_floor_share", "time at min α", "{:.1%}"),
            ("alpha_end", "α at end", "{:.2f}"), ("alpha_min", "lowest α", "{:.2f}"),
            ("decreases", "decreases", "{:,}"), ("increases", "increases", "{:,}"),
            ("congested_out_arrivals", "congested OUT arrivals", "{:,}"),
            ("signals_sent", "signals sent", "{:,}"),
        ])
    g = results.groups
    if len(g) and (g["flows"] > 1).any():
        table("Flow groups", g[g["flows"] > 1], [
            ("name", "group", "{}"), ("flows", "flows", "{:,}"),
            ("throughput_kbps_total", "total (kb/s)", "{:,.1f}"),
            ("throughput_kbps_min", "min (kb/s)", "{:,.1f}"),
            ("throughput_kbps_median", "median (kb/s)", "{:,.1f}"),
            ("throughput_kbps_max", "max (kb/s)", "{:,.1f}"),
            ("jain", "Jain", "{:.4f}"), ("fieb", "FIEB", "{:.4f}"),
        ])


def _speed(x: float) -> str:
    """1,234 / 12.3 / 0.0123: digits that matter, without exponents."""
    if x == float("inf"):
        return "∞"
    return f"{x:,.0f}" if x >= 100 else f"{x:.3g}"


# ---------------------------------------------------------------------------------------------
# afsim bench / afsim scenarios


def cmd_bench(args: argparse.Namespace) -> int:
    from afsim import bench

    if args.sweep:
        from afsim.sweep import bench as sweep_bench

        if args.runs is not None and args.runs < 1:
            raise UsageError(f"--runs must be at least 1, got {args.runs}")
        result = sweep_bench.run(scaling_runs=args.runs or sweep_bench.SCALING_RUNS)
        if args.format == "json":
            import json

            sys.stdout.write(json.dumps(result, indent=2) + "\n")
        else:
            sweep_bench.print_table(result, _console())
        return EXIT_OK

    report = bench.run_all(quick=args.quick)
    if args.format == "json":
        import json

        sys.stdout.write(json.dumps(report, indent=2) + "\n")
    else:
        bench.print_table(report, _console())
    return EXIT_OK


def cmd_scenarios(args: argparse.Namespace) -> int:
    names = afsim.builtin_scenarios()
    if not names:
        print("no built-in scenarios installed")
        return EXIT_OK
    width = max(len(n) for n in names)
    for name in names:
        print(f"{name:<{width}}  {describe(afsim.builtin_scenario(name))}")
    return EXIT_OK


# ---------------------------------------------------------------------------------------------
# afsim sweep / results / report

#: The metrics the sweep and results tables show, when the runs have them.
MAIN_METRICS = ("throughput_kbps_total", "goodput_kbps_total", "loss_ratio", "mean_delay_s",
                "jain", "respect_of_service_mean")


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
    # the store is opened (created) only once every task has loaded
    out = sw.execute(tasks, store=args.store, workers=args.workers, scheduler=args.scheduler,
                     progress=sys.stderr.isatty())
    with _open_store(args.store, write=False) as store:
        runs = store.runs()
    keys = {r.key for r in out.records if r is not None}
    runs = runs[runs["key"].isin(keys)]
    print_points(runs, args.format, list(grid))
    print(f"afsim: {len(tasks)} runs: {out.computed} computed, {out.from_store} from the store "
          f"{args.store}" + (f", {len(out.failures)} failed" if out.failures else ""),
          file=sys.stderr)
    for i in sorted(out.failures):
        _error(str(out.failures[i]))
    if out.failures:
        return EXIT_CONSERVATION
    return EXIT_OK


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

        sys.stdout.write(json.dumps(_records(points), indent=2) + "\n")
        return
    if fmt == "csv":
        sys.stdout.write(points.to_csv(index=False))
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


def _mean_ci(mean: float, ci: float) -> str:
    if mean != mean:
        return "–"
    text = f"{mean:.4g}"
    return text if ci != ci else f"{text} ± {ci:.2g}"


def _records(df: Any) -> list[dict[str, Any]]:
    """A table as JSON-ready records: NaN → null, numpy scalars → Python numbers."""
    import json

    return json.loads(df.to_json(orient="records"))


def cmd_results(args: argparse.Namespace) -> int:
    with _open_store(args.store, write=False) as store:
        runs = store.runs()
        if args.export is not None:
            check_out_dir(args.export, "--export")
            written = export_store(store, runs, args.export)
            print(f"afsim: wrote {len(written)} files to {args.export}", file=sys.stderr)
        if args.format == "csv":
            sys.stdout.write(runs.to_csv(index=False))
        elif args.format == "json":
            import json

            from afsim.stats import aggregate

            params = [c for c in runs.columns if c.startswith("param.")]
            metrics = [c for c in runs.columns if c not in _RUN_COLUMNS and c not in params]
            doc = {"store": str(args.store), "afsim_version": store.made_by,
                   "runs": _records(runs),
                   "points": _records(aggregate(runs, ["scenario", *params], metrics))}
            sys.stdout.write(json.dumps(doc, indent=2) + "\n")
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
        table = store.table(name)
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
    with _open_store(args.store, write=False) as store:
        doc = report.store_report(store)
    doc.write(args.out)
    print(f"afsim: wrote {args.out}", file=sys.stderr)
    return EXIT_OK


def cmd_reproduce(args: argparse.Namespace) -> int:
    from afsim import reproduce

    if args.paper not in reproduce.PAPERS:
        raise UsageError(f"no reproduction of {args.paper!r}; the papers are: "
                         f"{', '.join(reproduce.PAPERS)}")
    for name in ("jobs", "budget", "replications", "variant_replications", "robust_points"):
        value = getattr(args, name)
        if value is not None and value < 1:
            raise UsageError(f"--{name.replace('_', '-')} must be at least 1, got {value}")
    if args.ns2_save and args.ns2 != "run":
        raise UsageError("--ns2-save writes the ns-2 runs of --ns2 run; add --ns2 run")
    module = reproduce.paper_module(args.paper)
    try:
        paper = module.paper()
    except FileNotFoundError as e:
        raise UsageError(str(e)) from None
    known = [e.id for e in paper.experiments]
    unknown = sorted(set(args.only or ()) - set(known))
    if unknown:
        raise UsageError(f"unknown experiment(s) {', '.join(unknown)}; the experiments of "
                         f"{args.paper} are: {', '.join(known)}")
    out = args.out or Path(f"reproduce-{args.paper}" + ("-quick" if args.quick else ""))
    if out.exists() and not out.is_dir():
        raise UsageError(f"--out {out}: exists and is not a directory")
    try:
        mode = module.mode(args.quick, args.budget, args.replications)
    except ValueError as e:
        raise UsageError(str(e)) from None
    mode = _resize_design(mode, module.mode(args.quick, None, None), args)
    try:
        rep = reproduce.reproduce(
            paper, mode,
            jobs=args.jobs, only=args.only, show_progress=sys.stderr.isatty(),
            variants=not args.no_variants, robustness=not args.no_robustness,
            store=None if args.no_store else (args.store or out / "store"), ns2=args.ns2,
        )
    except reproduce.RunFailed as e:
        _error(str(e))
        return EXIT_CONSERVATION if e.kind == "conservation" else EXIT_USAGE
    if rep.ns2 is not None:
        for message in rep.ns2.messages:
            sys.stderr.write(f"afsim: ns-2: {message}\n")
        if args.ns2_save:
            from afsim.reproduce.twin import save

            sys.stderr.write(f"afsim: ns-2 runs saved to {save(rep.ns2, rep.paper.id)}\n")
    written = reproduce.write_outputs(rep, out)
    if args.format == "json":
        import json

        sys.stdout.write(json.dumps(reproduce.to_json(rep), indent=2, ensure_ascii=False) + "\n")
    else:
        console = _console()
        reproduce.print_summary(rep, console)
        console.print(f"wrote {len(written)} files to {out} (report: {out / 'report.md'})")
    return EXIT_OK


def _resize_design(mode, default, args: argparse.Namespace):  # noqa: ANN001, ANN202 (core.Mode)
    """``mode`` with --variant-replications and --robust-points applied; a mode at the paper's
    budget (full) is named "<mode>, reduced design" when it has fewer replications, variant
    replications or robustness points than its own (``default``), so that every output says so
    (a quick mode says in every output that it is reduced already)."""
    import dataclasses

    changes = {k: getattr(args, k) for k in ("variant_replications", "robust_points")
               if getattr(args, k) is not None}
    mode = dataclasses.replace(mode, **changes)
    smaller = (mode.replications < default.replications
               or mode.robust_points < default.robust_points
               or (mode.variant_replications or mode.replications)
               < (default.variant_replications or default.replications))
    if smaller and mode.is_paper_budget:
        return dataclasses.replace(mode, name=f"{mode.name}, reduced design")
    return mode


def describe(path: Path) -> str:
    """A scenario file's description: ``[scenario] description``, else its first comment line."""
    import tomllib

    text = path.read_text(encoding="utf-8")
    try:
        table = tomllib.loads(text).get("scenario", {})
    except tomllib.TOMLDecodeError:
        table = {}
    description = table.get("description") if isinstance(table, dict) else None
    if isinstance(description, str) and description.strip():
        return " ".join(description.split())
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("#") and stripped.lstrip("#").strip():
            return stripped.lstrip("#").strip()
        if stripped and not stripped.startswith("#"):
            break
    return ""


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
