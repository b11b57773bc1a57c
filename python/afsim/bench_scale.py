"""``afsim bench --scale``: one run at 1,000 to 100,000 flows (issue 28).

Read this first: each row runs a scale scenario (``scenarios/scale/``: ``tcp-dumbbell``, the
bench tcp-dumbbell-100 network with ``flows`` hosts a side, or ``tcp-tree``, the same behind
two-level access trees) at one flow count in a fresh ``python -m afsim.bench_scale --worker``
process, so that its peak resident memory (``getrusage``'s ``ru_maxrss``, the whole process:
Python, loading, the world and the report) is that run's alone. The flows start over the
first second (``start_step`` = 1 s / flows, as the ns-2 script's ``1/flows``). A row has the
time to load the scenario (parse, expand, check, routing check), to build the world, to run
it and to assemble the report, and the peak RSS; with ``--instructions`` also the
instructions per packet-hop, counted by cachegrind as ``tools/instr_per_hop.sh`` does: the
difference between a run of ``duration`` and one of ``short`` over the difference of their
packet-hops, which leaves loading, building and the report out. The memory per flow is the
slope of a least-squares line through (flows, peak RSS) over the rows of one scenario.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import afsim

if TYPE_CHECKING:
    from rich.console import Console

SCENARIOS = ("tcp-dumbbell", "tcp-tree")
FLOWS = (100, 1_000, 10_000, 100_000)
#: Simulated time of a row, and of the shorter run of the instruction count.
DURATION_S = 20.0
SHORT_S = 5.0


def overrides(name: str, flows: int, duration_s: float) -> dict[str, str]:
    """The ``--set`` values of one row: the flow count, the start step (1 s / flows), and for
    the tree the access (flows / 50) and aggregation (flows / 1000, at least 1) routers."""
    out = {
        "flows": str(flows),
        "start_step": f"{1e9 / flows:.0f}ns",
        "duration": f"{duration_s * 1000:.0f}ms",
    }
    if name == "tcp-tree":
        access = max(1, flows // 50)
        agg = max(1, flows // 1000)
        while access % agg:
            agg -= 1
        if flows % access:
            raise ValueError(f"tcp-tree needs flows divisible by {access}, got {flows}")
        out |= {"access": str(access), "agg": str(agg)}
    return out


def measure(name: str, flows: int, duration_s: float, bottleneck: bool = False) -> dict[str, Any]:
    """Loads, builds and runs one row in this process and returns its numbers; with
    ``bottleneck``, also the departures of queue r1->r2 (read after the peak RSS, from the
    queue columns)."""
    path = afsim.builtin_scenario(f"scale/{name}")
    t0 = time.perf_counter()
    scenario = afsim.load_scenario(path, overrides=overrides(name, flows, duration_s))
    load_s = time.perf_counter() - t0
    result = afsim._core.run(scenario)  # raw result: no JSON, no pandas
    peak_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux
    run_s = result.wall_seconds - result.build_seconds - result.report_seconds
    return {
        "name": name,
        "flows": flows,
        "nodes": scenario.n_nodes,
        "links": scenario.n_links,
        "duration_s": duration_s,
        "load_s": load_s,
        "build_s": result.build_seconds,
        "run_s": run_s,
        "report_s": result.report_seconds,
        "packet_hops": result.packet_hops,
        "events": result.events,
        "packet_hops_per_s": result.packet_hops / run_s if run_s > 0 else None,
        "peak_rss_mib": peak_kib / 1024.0,
    } | (_bottleneck(result) if bottleneck else {})


def _bottleneck(result: Any) -> dict[str, Any]:
    cols = result.queues_columns()
    i = list(cols["name"]).index("r1->r2")
    return {"bottleneck_departures": int(cols["departures"][i])}


def _worker_cmd(name: str, flows: int, duration_s: float) -> list[str]:
    return [sys.executable, "-m", "afsim.bench_scale", "--worker", name,
            "--flows", str(flows), "--duration", str(duration_s)]


def run_worker(name: str, flows: int, duration_s: float) -> dict[str, Any]:
    """One row in a fresh interpreter."""
    proc = subprocess.run(_worker_cmd(name, flows, duration_s), capture_output=True, text=True,
                          check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"scale worker {name} at {flows} flows failed "
                           f"(exit {proc.returncode}):\n{proc.stderr.strip()}")
    row: dict[str, Any] = json.loads(proc.stdout)
    return row


def instructions(name: str, flows: int, short_s: float, long_s: float) -> dict[str, Any]:
    """Instructions per packet-hop by cachegrind: a short and a long run (``bench.per_hop``)."""
    from afsim.bench import per_hop

    return per_hop([_worker_cmd(name, flows, d) for d in (short_s, long_s)],
                   f"{name} at {flows} flows")


def slope_kib_per_flow(rows: list[dict[str, Any]]) -> float | None:
    """Least-squares slope of peak RSS (KiB) against flows."""
    if len(rows) < 2:
        return None
    xs = [float(r["flows"]) for r in rows]
    ys = [r["peak_rss_mib"] * 1024.0 for r in rows]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sxx if sxx else None


def run_all(names: Sequence[str], flows: Sequence[int], duration_s: float = DURATION_S,
            count_instructions: bool = False, short_s: float = SHORT_S) -> dict[str, Any]:
    """Every (scenario, flows) row, one fresh process each, and each scenario's slope."""
    rows = []
    for name in names:
        for n in flows:
            row = run_worker(name, n, duration_s)
            if count_instructions:
                row |= instructions(name, n, short_s, duration_s)
            rows.append(row)
    slopes = {name: slope_kib_per_flow([r for r in rows if r["name"] == name]) for name in names}
    from afsim.bench import machine

    return {"rows": rows, "kib_per_flow": slopes, "machine": machine()}


def print_table(report: dict[str, Any], console: Console) -> None:
    from rich.table import Table

    table = Table(title="afsim bench --scale", title_justify="left")
    for header, right in (("scenario", False), ("flows", True), ("nodes", True),
                          ("load (s)", True), ("build (s)", True), ("run (s)", True),
                          ("report (s)", True), ("packet-hops", True), ("packet-hops/s", True),
                          ("instr/hop", True), ("peak RSS (MiB)", True)):
        table.add_column(header, justify="right" if right else "left")
    for r in report["rows"]:
        iph = r.get("instr_per_hop")
        rate = r["packet_hops_per_s"]
        table.add_row(
            r["name"], f"{r['flows']:,}", f"{r['nodes']:,}", f"{r['load_s']:.2f}",
            f"{r['build_s']:.2f}", f"{r['run_s']:.2f}", f"{r['report_s']:.2f}",
            f"{r['packet_hops']:,}", "-" if rate is None else f"{rate / 1e6:.2f} M",
            "-" if iph is None else f"{iph:.0f}", f"{r['peak_rss_mib']:.1f}",
        )
    console.print(table)
    for name, s in report["kib_per_flow"].items():
        if s is not None:
            console.print(f"{name}: peak RSS grows by {s:.2f} KiB per flow (least squares)")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m afsim.bench_scale")
    parser.add_argument("--worker", metavar="NAME", required=True, choices=SCENARIOS)
    parser.add_argument("--flows", type=int, required=True)
    parser.add_argument("--duration", type=float, default=DURATION_S, metavar="SECONDS")
    parser.add_argument("--bottleneck", action="store_true",
                        help="also report the departures of queue r1->r2")
    args = parser.parse_args(argv)
    row = measure(args.worker, args.flows, args.duration, args.bottleneck)
    sys.stdout.write(json.dumps(row) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
