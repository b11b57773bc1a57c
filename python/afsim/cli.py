"""The ``afsim`` command: run a scenario, sweep a grid of runs into a results store, read and
report a store, benchmark the engine, list the built-in scenarios.

Read this first: the command only parses, checks, calls the subsystems (``afsim.sweep``,
``afsim.store``, ``afsim.stats``, ``afsim.report``) and prints. Exit codes: 0 success, 1 a run
broke packet conservation, 2 bad input (usage, a missing file, any scenario error, an ``--out``
that cannot be written, a bad grid or scheduler, a store that cannot be used or that another
sweep is writing: nothing runs), 3 a sweep finished but some of its runs failed (a worker
died on every attempt, or a run raised an error), 4 ``afsim results --check`` found problems, 5 an
output (stdout, a file of ``--out``) could not be written whole (``afsim.output``),
130 interrupted (Ctrl-C), 143 terminated (SIGTERM, handled as Ctrl-C is: workers stopped, the
store left consistent). In ``--format json`` and
``--format csv`` stdout carries the data and nothing else; messages and warnings go to stderr.
Heavy modules (pandas, pyarrow, rich) are imported only by the paths that use them:
``afsim run --format json`` needs neither pandas nor pyarrow.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import afsim
from afsim._core import ConservationError, ScenarioError
from afsim.cli_common import (
    EXIT_BROKEN_PIPE,
    EXIT_CONSERVATION,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_OUTPUT,
    EXIT_RUNS_FAILED,
    EXIT_TERMINATED,
    EXIT_USAGE,
    UsageError,
    _console,
    _error,
    check_out_dir,
    format_scenario_error,
    prepare_out_dir,
    print_warnings,
    scenario_path,
)
from afsim.output import OutputError, write_chunks, write_file, write_text

if TYPE_CHECKING:
    from rich.progress import Progress

#: Wall seconds a run must last before its progress bar appears.
PROGRESS_DELAY_S = 1.0


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised where the program is, so that it stops as on Ctrl-C: ``finally``
    blocks run, sweep workers are stopped, the store is left consistent."""


def _on_sigterm(signum: int, frame: object) -> None:
    import signal

    signal.signal(signal.SIGTERM, signal.SIG_IGN)  # one is enough; the clean-up is under way
    raise Terminated


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


#: rows of each table `afsim run` prints by default (a run of 100,000 flows would print them all)
DEFAULT_ROWS = 40


def _rows(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of rows, got {text!r}") from None
    if n < 0:
        raise argparse.ArgumentTypeError(f"a number of rows is 0 (every row) or more, got {n}")
    return n


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
        "--rows", type=_rows, default=DEFAULT_ROWS, metavar="N",
        help=f"print at most N rows of each table (default {DEFAULT_ROWS}; 0: every row), with a "
        "line saying how many are left out; --out and --format json or csv keep every row",
    )
    run_p.add_argument(
        "--capture", action="append", default=[], metavar="PORT[=FILE]",
        help="write the packets that leave PORT (a link direction, 'r1->r2') to a pcap file "
        "(default FILE: r1-r2.pcap, in --out if given); repeatable",
    )
    run_p.add_argument(
        "--monitor", action="append", default=[], metavar="WHAT[@INTERVAL]",
        help="sample WHAT every INTERVAL (default 10ms): a queue (a link direction, 'r1->r2': "
        "length, bytes, the discipline's averages, arrivals/drops/marks per colour, queueing "
        "delays), 'flows' (each flow's delivered bytes and drops per interval) or "
        "'conditioners' (green/yellow/red per interval); Parquet files in --out, percentiles "
        "in the tables; repeatable",
    )
    run_p.add_argument(
        "--trace-queue", action="append", default=[], metavar="QUEUE",
        help="record every event (enqueue, mark, drop, dequeue: time, flow, code point, "
        "length) of QUEUE ('r1->r2'; queue_events.parquet in --out); repeatable",
    )
    run_p.add_argument(
        "--plot", type=Path, metavar="FILE",
        help="also draw what the run recorded into FILE (.png, .svg or .pdf): sampled queues, "
        "traced cwnd / TFRC rates, CSA α over time, and the flows' throughput",
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
    live_p.add_argument(
        "--capture", action="append", default=[], metavar="PORT[=FILE]",
        help="write the frames that leave PORT (a link direction, 'r1->r2') to a pcap file, as "
        "afsim run --capture (default FILE: r1-r2.pcap, in --out if given): whole IP packets, "
        "wall-clock time stamps; repeatable")
    live_p.add_argument(
        "--host-capture", action="append", default=[], metavar="HOST[=FILE]",
        help="write every packet HOST's interface receives (headers only) to a pcap file "
        "(default FILE: HOST.pcap, in --out if given), "
        "with the kernel's time stamps inside HOST's namespace (when the forwarder's frames "
        "really reached it); repeatable")
    live_p.add_argument(
        "--queue-trace", action="store_true",
        help="write every arrival at a RED, WRED or RIO queue (time, length, average, fate) to "
        "queue-trace.csv in --out (needs --out)")
    live_p.add_argument("--format", choices=("table", "json"), default="table")
    live_p.add_argument("--cleanup", action="store_true",
                        help="remove the namespaces and links runs killed with SIGKILL left "
                        "(only names with afsim live's prefix, only of runs whose process has "
                        "died), and do nothing else")
    live_p.add_argument("--force", action="store_true",
                        help="with --cleanup: also remove the namespaces of runs still in progress")
    live_p.set_defaults(func=cmd_live)

    sweep_p = sub.add_parser(
        "sweep", help="run a scenario over a parameter grid x replications into a results store",
        description="Run FILE at every point of the grids' Cartesian product, REPLICATIONS "
        "seeds each, on local processes or a Dask cluster. Every finished run is stored at once "
        "in --store; runs already there are not run again. Prints the mean and 95% confidence "
        "interval of the main metrics per grid point. Exit status: 0 every run done, 1 a run "
        "broke packet conservation, 2 bad input or a store another sweep is writing, 3 some "
        "runs failed (their worker died on every attempt), 130 Ctrl-C, 143 SIGTERM.",
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
    sweep_p.add_argument("--name", metavar="SWEEP",
                         help="tag the runs in the store as this sweep's (default: the "
                         "scenario's stem and a hash of the sweep's --set, grid, replications "
                         "and seed, so a sweep with another --set is another sweep)")
    sweep_p.set_defaults(func=cmd_sweep)

    res_p = sub.add_parser("results", help="print or export what a results store holds")
    res_p.add_argument("store", type=Path, metavar="STORE")
    res_p.add_argument("--format", choices=("table", "csv", "json"), default="table",
                       help="table: statistics per grid point; csv: one row per run; json: both")
    res_p.add_argument("--export", type=Path, metavar="DIR",
                       help="also write runs.csv, points.csv and every table as Parquet to DIR")
    mend = res_p.add_mutually_exclusive_group()
    mend.add_argument("--check", action="store_true",
                      help="check the store's integrity (every run's row and files, every file "
                      "readable): exit 0 if sound, 4 with the problems listed")
    mend.add_argument("--repair", action="store_true",
                      help="mend what --check finds: a run with missing or unreadable files is "
                      "removed (the next sweep runs it again), stray directories too")
    mend.add_argument("--sweeps", action="store_true",
                      help="list the sweeps whose runs the store holds (and the untagged runs)")
    mend.add_argument("--delete", metavar="SWEEP",
                      help="delete a sweep: its runs that no other sweep holds are removed "
                      "(asks first; --yes does not)")
    res_p.add_argument("--only", metavar="SWEEP",
                       help="only the runs of this sweep ('(untagged)': of no sweep)")
    res_p.add_argument("--yes", action="store_true", help="with --delete: do not ask")
    res_p.set_defaults(func=cmd_results)

    rep_p = sub.add_parser("report", help="write a self-contained HTML report of a results store")
    rep_p.add_argument("store", type=Path, metavar="STORE")
    rep_p.add_argument("-o", "--out", type=Path, default=Path("report.html"), metavar="FILE",
                       help="the HTML file to write (default: report.html)")
    rep_p.add_argument("--only", metavar="SWEEP",
                       help="only the runs of this sweep ('(untagged)': of no sweep), as "
                       "afsim results --only")
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
    bench_p.add_argument(
        "--scale", action="store_true",
        help="measure one run at many flows instead: load, build and run time and peak memory "
        "of scenarios/scale/ at 100 to 100,000 flows (minutes; see docs/performance.md)",
    )
    bench_p.add_argument("--flows", metavar="N,N,...",
                         help="with --scale: the flow counts (default 100,1000,10000,100000)")
    bench_p.add_argument("--scenario", action="append", metavar="NAME",
                         help="with --scale: tcp-dumbbell or tcp-tree (repeatable; default both)")
    bench_p.add_argument("--instructions", action="store_true",
                         help="also count instructions per packet-hop with cachegrind (needs "
                         "valgrind; two more runs of each row, about 50 times slower)")
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
        "--live", choices=("committed", "run", "off"), default="committed",
        help="the live column (papers with one: laatu): 'committed' reads the afsim live runs "
        "committed with afsim (default); 'run' runs the missing ones now with afsim live (root, "
        "wall time: about 35 min for laatu), kept in the store; 'off' leaves the column out",
    )
    repro_p.add_argument(
        "--live-save", action="store_true",
        help="with --live run: write the live runs used over the committed ones shipped with "
        "afsim (afsim/reproduce/data/live/PAPER.json.gz; for afsim's developers)",
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
    import signal
    import threading

    if threading.current_thread() is threading.main_thread():
        previous = signal.signal(signal.SIGTERM, _on_sigterm)
    else:
        previous = None
    try:
        return _main(args)
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


def _main(args: argparse.Namespace) -> int:
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
    except Terminated:
        _error("terminated (SIGTERM)")
        return EXIT_TERMINATED
    except KeyboardInterrupt:
        _error("interrupted")
        return EXIT_INTERRUPTED
    except OutputError as e:
        _error(f"{e} (the output is incomplete)")
        return EXIT_OUTPUT
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
            failed = getattr(e, "kind", "")
            return (EXIT_CONSERVATION if failed == "conservation" else EXIT_RUNS_FAILED
                    if failed in ("worker", "error") else EXIT_USAGE)
        raise


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
    for text in args.monitor:
        port, _, interval = text.partition("@")
        try:
            scenario = scenario.with_monitor(port, interval or "10ms")
        except ValueError as e:
            raise UsageError(f"--monitor {text}: {e}") from None
    for port in args.trace_queue:
        try:
            scenario = scenario.with_queue_trace(port)
        except ValueError as e:
            raise UsageError(f"--trace-queue {port}: {e}") from None
    if args.plot is not None:
        from afsim.plot import check_plot_path

        if (problem := check_plot_path(args.plot)) is not None:
            raise UsageError(f"--plot {problem}")
    print_warnings(scenario.warnings)
    if args.out is not None:
        prepare_out_dir(args.out, "--out")  # before the run, so that its results are not lost

    show_progress = sys.stderr.isatty() and (args.format == "table" or sys.stdout.isatty())
    progress = ProgressBar(scenario.duration_s) if show_progress else None
    try:
        # the compiled run: tables (pandas) are built only for the outputs that need them
        raw = afsim._core.run(scenario, seed=args.seed, progress=progress)
    finally:
        if progress is not None:
            progress.close()

    need_tables = args.format != "json" or args.out is not None or args.plot is not None
    results = None
    if need_tables:
        from afsim.results import Results

        results = Results.from_run(raw)
    if args.format == "json":
        # streamed: the report's text is never one string (> 2 GiB at a million flows)
        write_chunks(sys.stdout, lambda sink: (raw.write_summary(sink), sink(b"\n")))
    elif args.format == "csv":
        assert results is not None
        write_text(sys.stdout, results.flows.to_csv(index=False) + "\n"
                   + results.queues.to_csv(index=False))
    else:
        assert results is not None
        from afsim.cli_tables import print_tables

        print_tables(results, _console(), rows=args.rows)

    if args.out is not None:
        assert results is not None
        written = results.write(args.out, run=raw)
        if args.format == "table":
            _console().print(f"wrote {len(written)} files to {args.out}")
    if args.plot is not None:
        assert results is not None
        from afsim.plot import plot

        plot(results, args.plot)
        if args.format == "table":
            _console().print(f"plotted to {args.plot}")
    if scenario.captures and args.format == "table":
        _console().print(f"captured to {', '.join(str(c) for c in scenario.captures)}")
    return EXIT_OK


def cmd_live(args: argparse.Namespace) -> int:
    from afsim.live import netns
    from afsim.live.run import LivePermissionError, LiveSetupError, live

    try:
        if args.force and not args.cleanup:
            raise UsageError("--force goes with --cleanup")
        netns.check_privileges()
        if args.cleanup:
            removed, left, running = netns.cleanup(force=args.force)
            for n in removed:
                print(f"removed namespace {n}")
            for p in sorted({netns.run_prefix(n) for n in running}):
                print(f"left run {p}* alone: its process is still running (--force removes it)")
            if left:
                _error(f"could not remove {', '.join(left)}")
                return EXIT_CONSERVATION
            if not removed and not running:
                print("nothing to clean up")
            return EXIT_OK
        path = scenario_path(args.file)
        if args.out is not None:
            check_out_dir(args.out, "--out")
        if args.queue_trace and args.out is None:
            raise UsageError("--queue-trace writes queue-trace.csv in --out: add --out DIR")
        captures = [_capture_arg(c, args.out) for c in args.capture]
        host_caps = [_capture_arg(c, args.out, "--host-capture") for c in args.host_capture]
        if args.out is not None and (captures or host_caps or args.queue_trace):
            prepare_out_dir(args.out, "--out")
        log = (lambda m: print(f"afsim live: {m}", file=sys.stderr)) if sys.stderr.isatty() else None
        summary = live(path, dict(args.overrides), args.seed, args.cc, log=log,
                       realtime=args.realtime, spin_us=args.spin_us, captures=captures,
                       queue_trace=args.out / "queue-trace.csv" if args.queue_trace else None,
                       host_captures=host_caps)
    except LivePermissionError as e:
        _error(str(e))
        return EXIT_USAGE
    except (LiveSetupError, ValueError) as e:
        _error(str(e))
        return EXIT_USAGE
    import json

    text = json.dumps(summary, indent=1)
    if args.format == "json":
        write_text(sys.stdout, text + "\n")
    else:
        from afsim.live.report import print_live

        print_live(summary, _console())
    if args.out is not None:
        args.out.mkdir(parents=True, exist_ok=True)
        write_file(args.out / "summary.json", text + "\n")
    if args.format == "table":
        for c in summary["live"].get("captures", []):
            print(f"captured {c['frames']} frames of {c['port']} to {c['path']}", file=sys.stderr)
        qt = summary["live"].get("queue_trace")
        if qt:
            print(f"queue trace: {qt['rows']} arrivals to {qt['path']}", file=sys.stderr)
    return EXIT_OK if summary["conservation"]["holds"] else EXIT_CONSERVATION


def _capture_arg(text: str, out: Path | None, flag: str = "--capture") -> tuple[str, Path]:
    """``PORT[=FILE]`` (or ``HOST[=FILE]``) → (port, file); the default file is the port's name
    as a file name."""
    port, sep, file = text.partition("=")
    port = port.strip()
    if not port:
        raise UsageError(f"{flag} {text!r}: expected PORT[=FILE], like r1->r2=r1.pcap")
    if sep and file.strip():
        path = Path(file.strip())
    else:
        name = port.replace("->", "-").replace("/", "_") + ".pcap"
        path = (out / name) if out is not None else Path(name)
    if path.is_dir():
        raise UsageError(f"{flag} {text}: {path} is a directory, not a file")
    parent = path.parent if str(path.parent) else Path(".")
    if out is None or parent != out:
        if not parent.is_dir():
            raise UsageError(f"{flag} {text}: the directory {parent} does not exist")
        if not os.access(parent, os.W_OK | os.X_OK):
            raise UsageError(f"{flag} {text}: the directory {parent} is not writable")
    elif not out.exists():
        out.mkdir()  # checked by check_out_dir: its parent exists and is writable
    return port, path


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
        # (here, not at the top: `afsim run --format json` imports neither this module nor json,
        # issue 28's fixed cost)
        from afsim.cli_tables import _speed

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

            write_text(sys.stdout, json.dumps(result, indent=2) + "\n")
        else:
            sweep_bench.print_table(result, _console())
        return EXIT_OK

    if args.instructions and not bench.have_valgrind():
        raise UsageError("--instructions counts with cachegrind: install valgrind")
    if args.scale:
        return _bench_scale(args)
    report = bench.run_all(quick=args.quick, count_instructions=args.instructions)
    if args.format == "json":
        import json

        write_text(sys.stdout, json.dumps(report, indent=2) + "\n")
    else:
        bench.print_table(report, _console())
    return EXIT_OK


def _bench_scale(args: argparse.Namespace) -> int:
    from afsim import bench_scale

    try:
        flows = ([int(x.replace("_", "")) for x in args.flows.split(",")] if args.flows
                 else list(bench_scale.FLOWS))
    except ValueError:
        raise UsageError(f"--flows takes integers separated by commas, got {args.flows!r}") from None
    if any(n < 1 for n in flows):
        raise UsageError(f"--flows must be at least 1, got {args.flows!r}")
    names = args.scenario or list(bench_scale.SCENARIOS)
    unknown = [n for n in names if n not in bench_scale.SCENARIOS]
    if unknown:
        raise UsageError(f"--scenario {unknown[0]!r}: the scale scenarios are "
                         + ", ".join(bench_scale.SCENARIOS))
    report = bench_scale.run_all(names, flows, count_instructions=args.instructions)
    if args.format == "json":
        import json

        write_text(sys.stdout, json.dumps(report, indent=2) + "\n")
    else:
        bench_scale.print_table(report, _console())
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
# afsim sweep / results / report: afsim.cli_store; afsim reproduce: afsim.cli_reproduce


def cmd_sweep(args: argparse.Namespace) -> int:
    from afsim import cli_store

    return cli_store.cmd_sweep(args)


def cmd_results(args: argparse.Namespace) -> int:
    from afsim import cli_store

    return cli_store.cmd_results(args)


def cmd_report(args: argparse.Namespace) -> int:
    from afsim import cli_store

    return cli_store.cmd_report(args)


def cmd_reproduce(args: argparse.Namespace) -> int:
    from afsim import cli_reproduce

    return cli_reproduce.cmd_reproduce(args)


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
