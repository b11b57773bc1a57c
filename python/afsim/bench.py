"""``afsim bench``: engine speed on the built-in reference scenarios (scenarios/bench/*.toml).

Read this first: each scenario runs in a fresh ``python -m afsim.bench --worker NAME`` process,
so that the peak resident memory it reports (``getrusage``'s ``ru_maxrss``) belongs to that
scenario alone. The worker prints one JSON row on stdout. Wall time is the core run's only
(loading and Python start-up excluded). ``--quick`` sets the scenario's ``duration`` parameter,
when its file has one, to a tenth of its value; a file without one runs as it is.

``--instructions`` (needs valgrind) adds each row's instructions per packet-hop, counted by
cachegrind as ``tools/instr_per_hop.sh`` does: the worker runs twice more under cachegrind, for
a hundredth and a tenth of the scenario's duration, and the difference of the two instruction
counts over the difference of their packet-hops leaves out Python's start-up, loading and the
report. Deterministic (independent of the machine's load) and about 50 times slower than the
run itself, so it is off by default (issue 25).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import resource
import shutil
import subprocess
import sys
import tomllib
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import afsim

if TYPE_CHECKING:
    from rich.console import Console

#: Fraction of the duration that ``--quick`` keeps.
QUICK_FACTOR = 0.1

#: Fractions of the duration of the two cachegrind runs of ``--instructions``.
INSTR_FACTORS = (0.01, 0.1)

#: Keys of every bench row, in display order.
ROW_KEYS = (
    "name",
    "packet_hops",
    "events",
    "wall_s",
    "packet_hops_per_s",
    "events_per_s",
    "peak_rss_mib",
    "pool_high_water",
    "bottleneck",
    "bottleneck_pkts_per_s",
)


def bench_names() -> list[str]:
    """The bench scenarios, by file stem, sorted."""
    prefix = "bench/"
    return [n.removeprefix(prefix) for n in afsim.builtin_scenarios() if n.startswith(prefix)]


def scaled_overrides(name: str, factor: float) -> dict[str, str]:
    """``{"duration": <factor × duration>}`` when the bench file has a ``duration`` parameter,
    else ``{}``."""
    path = afsim.builtin_scenario(f"bench/{name}")
    params = tomllib.loads(path.read_text(encoding="utf-8")).get("params", {})
    if not isinstance(params, dict) or "duration" not in params:
        return {}
    full = afsim.load_scenario(path).duration_s
    if full is None:
        return {}
    ms = max(1, round(full * factor * 1000.0))
    return {"duration": f"{ms}ms"}


def quick_overrides(name: str) -> dict[str, str]:
    """``{"duration": <a tenth>}`` when the bench file has a ``duration`` parameter, else ``{}``."""
    return scaled_overrides(name, QUICK_FACTOR)


def measure(name: str, quick: bool, factor: float | None = None) -> dict[str, Any]:
    """Runs one bench scenario in this process and returns its row (``factor``: run that
    fraction of its duration instead)."""
    path = afsim.builtin_scenario(f"bench/{name}")
    if factor is not None:
        overrides = scaled_overrides(name, factor)
    else:
        overrides = quick_overrides(name) if quick else {}
    scenario = afsim.load_scenario(path, overrides=overrides)
    result = afsim._core.run(scenario)  # raw result: no pandas in the measured process
    summary = json.loads(result.summary_json())
    wall = result.wall_seconds
    # Linux reports ru_maxrss in KiB.
    peak_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    # the bottleneck: the most utilised queue (the dumbbells' r1->r2)
    bottleneck = max(summary["queues"], key=lambda q: q["utilization"])
    return {
        "name": name,
        "packet_hops": result.packet_hops,
        "events": result.events,
        "wall_s": wall,
        "packet_hops_per_s": result.packet_hops / wall if wall > 0 else None,
        "events_per_s": result.events / wall if wall > 0 else None,
        "peak_rss_mib": peak_kib / 1024.0,
        "pool_high_water": summary["engine"]["pool_high_water"],
        "bottleneck": bottleneck["name"],
        "bottleneck_pkts": bottleneck["departures"],
        "bottleneck_pkts_per_s": bottleneck["departures"] / wall if wall > 0 else None,
        "sim_s": summary["end_time_s"],
        "quick": quick,
    }


def run_worker(name: str, quick: bool) -> dict[str, Any]:
    """Runs one bench scenario in a fresh interpreter and returns its row."""
    cmd = [sys.executable, "-m", "afsim.bench", "--worker", name]
    if quick:
        cmd.append("--quick")
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise RuntimeError(
            f"bench worker for {name!r} failed (exit {proc.returncode}):\n{proc.stderr.strip()}"
        )
    row: dict[str, Any] = json.loads(proc.stdout)
    return row


def instructions(name: str) -> dict[str, Any]:
    """Instructions per packet-hop of one bench scenario by cachegrind: the worker at the two
    ``INSTR_FACTORS`` of its duration (``per_hop``)."""
    return per_hop([[sys.executable, "-m", "afsim.bench", "--worker", name, "--factor", str(f)]
                    for f in INSTR_FACTORS], name)


def per_hop(commands: Sequence[Sequence[str]], label: str) -> dict[str, Any]:
    """Instructions per packet-hop by cachegrind from two worker commands, a short and a long
    run of the same scenario (each printing a JSON row with ``packet_hops``): the difference of
    their instruction counts over the difference of their packet-hops, which leaves out the
    interpreter's start-up, loading and the report."""
    counts = []
    for cmd in commands:
        proc = subprocess.run(
            ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null",
             *cmd],
            capture_output=True, text=True, check=False)
        m = re.search(r"I\s+refs:\s+([\d,]+)", proc.stderr)
        if proc.returncode != 0 or m is None:
            raise RuntimeError(f"cachegrind of {label} failed:\n{proc.stderr[-2000:]}")
        counts.append((int(m.group(1).replace(",", "")), json.loads(proc.stdout)["packet_hops"]))
    (i0, h0), (i1, h1) = counts
    return {"instr_short": i0, "hops_short": h0, "instr_long": i1, "hops_long": h1,
            "instr_per_hop": (i1 - i0) / (h1 - h0) if h1 > h0 else None}


def have_valgrind() -> bool:
    return shutil.which("valgrind") is not None


def machine() -> dict[str, Any]:
    """What the numbers were measured on."""
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return {
        "cpu": cpu,
        "nproc": os.cpu_count(),
        "python": platform.python_version(),
        "afsim": afsim.__version__,
    }


def run_all(quick: bool = False, count_instructions: bool = False,
            names: Sequence[str] | None = None) -> dict[str, Any]:
    """Every bench scenario (or ``names``), one fresh process each: ``{"rows": [...],
    "machine": {...}}``; with ``count_instructions``, each row also has ``instr_per_hop``."""
    rows = []
    for name in names if names is not None else bench_names():
        row = run_worker(name, quick)
        if count_instructions:
            row |= instructions(name)
        rows.append(row)
    return {"rows": rows, "machine": machine()}


def print_table(report: dict[str, Any], console: Console) -> None:
    from rich.table import Table

    table = Table(title="afsim bench" + (" (quick)" if any(r.get("quick") for r in report["rows"])
                                         else ""), title_justify="left")
    table.add_column("scenario")
    counted = any("instr_per_hop" in r for r in report["rows"])
    for header in ("packet-hops", "events", "wall (s)", "packet-hops/s", "events/s",
                   "bottleneck pkts/s", "peak RSS (MiB)", "pool high water (pkt)"):
        table.add_column(header, justify="right")
    if counted:
        table.add_column("instr/hop", justify="right")

    def rate(x: float | None) -> str:
        return "-" if x is None else f"{x / 1e6:,.2f} M"

    for r in report["rows"]:
        cells = [
            r["name"], f"{r['packet_hops']:,}", f"{r['events']:,}", f"{r['wall_s']:.3f}",
            rate(r["packet_hops_per_s"]), rate(r["events_per_s"]),
            rate(r["bottleneck_pkts_per_s"]), f"{r['peak_rss_mib']:.1f}",
            f"{r['pool_high_water']:,}",
        ]
        if counted:
            iph = r.get("instr_per_hop")
            cells.append("-" if iph is None else f"{iph:,.1f}")
        table.add_row(*cells)
    console.print(table)
    m = report["machine"]
    console.print(f"[dim]{m['cpu']} · {m['nproc']} CPUs · Python {m['python']} · "
                  f"afsim {m['afsim']}[/dim]")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m afsim.bench")
    parser.add_argument("--worker", metavar="NAME", required=True,
                        help="run one bench scenario and print its row as JSON")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--factor", type=float, metavar="F",
                        help="run this fraction of the scenario's duration (--instructions)")
    args = parser.parse_args(argv)
    sys.stdout.write(json.dumps(measure(args.worker, args.quick, args.factor)) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
