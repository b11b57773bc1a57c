#!/usr/bin/env python3
"""Cross-check of afsim's DiffServ edge (token bucket marker) and RIO-C core against ns-2.35's
DiffServ module (Queue/dsRED/edge with a TokenBucket policy, Queue/dsRED/core in RIO-C mode).

Read this first: for each seed, runs ns-2 on diffserv.tcl and afsim on
scenarios/validation/diffserv-rio.toml (20 NewReno flows, a token bucket per source marking
AF11 in profile and AF12 beyond it, a 10 Mb/s RIO-C bottleneck, 200 s), reduces both reports
to the same metrics (`metrics_ns2`, `metrics_afsim`) and summarises them over the seeds as mean
and sample standard deviation. Writes validation/ns2/diffserv-results.json (every run's
metrics and the summary) and validation/ns2/diffserv-results.md (method, configuration,
results, and the explanation of every difference beyond a few percent).

    python3 validation/ns2/diffserv.py         # 10 seeds x 200 s, limited transmit on and off,
                                               # each with a 20-200 s split, marker check
                                               # (about 40 s wall)
    python3 validation/ns2/diffserv.py --seeds 3 --limited-transmit on --split 0
    python3 validation/ns2/diffserv.py --pythonpath /tmp/afsim-site   # afsim from another install
    python3 validation/ns2/diffserv.py --replot   # the Markdown again from diffserv-results.json

Needs `ns` (Debian package ns2) on PATH and afsim importable (`pip install .`; `--pythonpath
DIR` runs afsim from another install, e.g. `pip install --target DIR .`). afsim's split of its
RIO drops into random and forced needs a build whose colour rows carry `drops_forced`; an
older one shows "n/a" there.

The seeds of the two simulators are unrelated: seed k of ns-2 and seed k of afsim are
independent samples, and only distributions over seeds are compared. `z` is the difference of
the means over its standard error (Welch); |z| < 2 is within what the seed-to-seed spread
explains.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from diffserv_metrics import BOTTLENECK, CLASSES, TABLES, interval, metrics_afsim, metrics_ns2, summarise, table
from diffserv_report import markdown
from ns2kit import afsim_reports, git_head, ns2, run_jobs, task

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
TCL = HERE / "diffserv.tcl"
TOML = REPO / "scenarios" / "validation" / "diffserv-rio.toml"
OUT_JSON = HERE / "diffserv-results.json"
OUT_MD = HERE / "diffserv-results.md"

#: What diffserv_ecn.py takes from here (the metrics are diffserv_metrics.py's).
__all__ = ["BOTTLENECK", "CLASSES", "REPO", "TABLES", "afsim_task", "git_head", "metrics_afsim",
           "metrics_ns2", "ns2_raw", "run_ns2", "summarise", "table"]

# ---------------------------------------------------------------------- runs


def ns2_raw(seed: int, duration_s: float, lt: bool, extra: tuple[str, ...] = ()) -> dict[str, Any]:
    """One ns-2 run of diffserv.tcl: its report, the queue trace's summary (TRACE), every
    flow's timeouts (TIMEOUTS) and the process's wall time."""
    run = ns2(TCL, [f"seed={seed}", f"duration={duration_s:g}", f"lt={int(lt)}", *extra])
    report, tags = run.report()
    return {"report": report, "trace": json.loads(tags["TRACE"]) if "TRACE" in tags else None,
            "timeouts": [int(x) for x in tags["TIMEOUTS"].split()] if "TIMEOUTS" in tags else None,
            "process_wall_s": run.wall_s}


def run_ns2(seed: int, duration_s: float, lt: bool) -> dict[str, Any]:
    """One ns-2 run's metrics."""
    raw = ns2_raw(seed, duration_s, lt)
    m = metrics_ns2(raw["report"], raw["trace"])
    m["process_wall_s"] = raw["process_wall_s"]
    return m


def afsim_task(seed: int, duration_s: float, lt: bool | None, toml: Path = TOML) -> Any:
    """An afsim point of the cross-check: ``lt`` None for a scenario without the
    limited_transmit parameter."""
    sets = {"duration": f"{duration_s:g}s"}
    if lt is not None:
        sets["limited_transmit"] = str(lt).lower()
    return task(toml, sets, seed)


def afsim_metrics(report: dict[str, Any], duration_s: float) -> dict[str, Any]:
    """An afsim run's metrics; ``run_wall_s``: the engine's wall time (afsim's process time is
    not measured here: the runs share worker processes; speed.py measures it)."""
    m = metrics_afsim(report, duration_s)
    m["run_wall_s"] = report["_wall_s"]
    return m


Job = tuple[str, str, int]  # limited transmit ("on"/"off"), simulator, seed


def run_all_jobs(jobs: list[Job], duration_s: float, split_s: float | None, n_jobs: int,
                 store: Path | None) -> list[dict[str, Any]]:
    """Each job's row, in order (``ns2kit.run_jobs``); with ``split_s`` each run is repeated up
    to it and the interval [split_s, duration] summarised apart (``steady``)."""
    spans = [duration_s] + ([split_s] if split_s is not None else [])

    def ns2_metrics(j: Job) -> dict[str, Any]:
        m = run_ns2(j[2], duration_s, j[0] == "on")
        if split_s is not None:
            m["steady"] = interval(run_ns2(j[2], split_s, j[0] == "on"), m, split_s, duration_s)
        return m

    def afsim_of(_: Job, reports: list[dict[str, Any]]) -> dict[str, Any]:
        m = afsim_metrics(reports[0], duration_s)
        if split_s is not None:
            m["steady"] = interval(afsim_metrics(reports[1], split_s), m, split_s, duration_s)
        return m

    return run_jobs(jobs, sim=lambda j: j[1], head=lambda j: {"sim": j[1], "seed": j[2]},
                    ns2_metrics=ns2_metrics,
                    afsim_tasks=lambda j: [afsim_task(j[2], d, j[0] == "on") for d in spans],
                    afsim_metrics=afsim_of, n_jobs=n_jobs, store=store)


# ---------------------------------------------------------------------- open-loop marker check

#: CBR rates of the marker check (bit/s): each class a flow, each class b flow.
CBR_RATES = {"a": 250_000, "b": 700_000}
FLOWS_HEADER = "# ---------------------------------------------------------------- flows"


def cbr_variant(path: Path) -> Path:
    """The afsim scenario with its TCP flows replaced by open-loop CBR flows of 1040-byte IP
    packets (diffserv.tcl traffic=cbr): written next to the results as a temporary file."""
    text = TOML.read_text(encoding="utf-8")
    head = text[: text.index(FLOWS_HEADER)]
    head = re.sub(r"^limited_transmit = .*\n", "", head, flags=re.M)  # no TCP: the parameter is unused
    flows = "".join(
        f'''
[[flow]]
name = "{c}"
from = "src{c}"
to = "dst{c}"
kind = "cbr"
dscp = "AF11"
rate = "{CBR_RATES[c] // 1000}kbps"   # ns-2: Application/Traffic/CBR rate_ {CBR_RATES[c]}, random_ 0
packet_size = "1040B"                # ns-2: packetSize_ 1040 on Agent/UDP (no header added)
start = "{0 if c == "a" else 500}ms"
start_step = "50ms"
''' for c in ("a", "b"))
    path.write_text(head + FLOWS_HEADER + "\n# Open-loop marker check (diffserv.py): CBR instead of TCP.\n" + flows,
                    encoding="utf-8")
    return path


def marker_check(duration_s: float, tmp: Path) -> dict[str, Any]:
    """One deterministic open-loop run on each side (no randomness reaches the marker or, below
    the bottleneck's capacity, the queues): the edge's colours should agree to the packet."""
    ns, _ = ns2(TCL, ["traffic=cbr", f"duration={duration_s:g}", f"cbr_a={CBR_RATES['a']}",
                      f"cbr_b={CBR_RATES['b']}"]).report()
    (af,) = afsim_reports([afsim_task(1, duration_s, None, cbr_variant(tmp))])
    if isinstance(af, Exception):
        raise af
    q = next(q for q in af["queues"] if q["name"] == BOTTLENECK)
    flows = {f["name"]: f for f in af["flows"]}
    order = [f"a{i}" for i in range(10)] + [f"b{i}" for i in range(10)]
    return {
        "cbr_rates_bps": CBR_RATES,
        "ns-2": {"edge.AF11": ns["edge"]["10"]["pkts"], "edge.AF12": ns["edge"]["12"]["pkts"],
                 "bottleneck_drops": sum(ns["core"][c]["edrops"] + ns["core"][c]["ldrops"] for c in ("10", "12")),
                 "received": [f["packets_received"] for f in ns["flows"]]},
        "afsim": {"edge.AF11": sum(c["green_packets"] for c in af["conditioners"]),
                  "edge.AF12": sum(c["yellow_packets"] for c in af["conditioners"]),
                  "edge.a.AF12": sum(c["yellow_packets"] for c in af["conditioners"] if c["name"].startswith("tba")),
                  "edge.b.AF12": sum(c["yellow_packets"] for c in af["conditioners"] if c["name"].startswith("tbb")),
                  "bottleneck_drops": q["drops_total"],
                  "received": [flows[n]["packets_delivered"] for n in order]},
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seeds", type=int, default=10, help="seeds 1..N (default 10)")
    ap.add_argument("--duration", type=float, default=200.0, help="simulated seconds (default 200)")
    ap.add_argument("--split", type=float, default=20.0, metavar="T0",
                    help="also summarise [T0, duration], in both configurations (default 20; 0: no)")
    ap.add_argument("--limited-transmit", nargs="*", choices=["on", "off"], default=["on", "off"],
                    help="configurations: ns-2 singledup_ / afsim limited_transmit in both (default: on and off)")
    ap.add_argument("--no-marker-check", action="store_true", help="skip the open-loop CBR marker check")
    ap.add_argument("--sims", nargs="*", default=["ns-2", "afsim"], choices=["ns-2", "afsim"])
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--pythonpath", help="directory to put first on PYTHONPATH for afsim (the script "
                    "runs again with it)")
    ap.add_argument("--store", type=Path, help="an afsim results store: afsim runs already in it are read, "
                    "not run again (afsim sweep --store)")
    ap.add_argument("--out-json", type=Path, default=OUT_JSON)
    ap.add_argument("--out-md", type=Path, default=OUT_MD)
    ap.add_argument("--replot", action="store_true", help="only write the Markdown again from the JSON")
    args = ap.parse_args(argv)
    if args.pythonpath and os.environ.get("DIFFSERV_PYTHONPATH") != args.pythonpath:
        # afsim from another install: this script again, with that directory first on the path
        env = dict(os.environ, DIFFSERV_PYTHONPATH=args.pythonpath,
                   PYTHONPATH=os.pathsep.join(p for p in (args.pythonpath, os.environ.get("PYTHONPATH")) if p))
        given = sys.argv[1:] if argv is None else argv
        return subprocess.run([sys.executable, __file__, *given], env=env, check=False).returncode
    if args.replot:
        md = markdown(json.loads(args.out_json.read_text(encoding="utf-8")))
        args.out_md.write_text(md, encoding="utf-8")
        print(md)
        return 0
    split = args.split or None
    if split is not None and not 0 < split < args.duration:
        ap.error("--split must be inside (0, duration)")

    seeds = list(range(1, args.seeds + 1))
    jobs = [(lt, sim, seed) for lt in args.limited_transmit for seed in seeds for sim in args.sims]
    t0 = time.perf_counter()
    runs = run_all_jobs(jobs, args.duration, split, args.jobs, args.store)
    marker = None
    if not args.no_marker_check:
        tmp = args.out_json.with_name("diffserv-cbr.tmp.toml")
        try:
            marker = marker_check(args.duration, tmp)
        finally:
            tmp.unlink(missing_ok=True)
    wall = time.perf_counter() - t0

    configs: dict[str, Any] = {}
    for lt in args.limited_transmit:
        mine = [r | {"limited_transmit": lt == "on"} for (l2, _, _), r in zip(jobs, runs) if l2 == lt]
        configs[f"lt-{lt}"] = {
            "limited_transmit": lt == "on",
            "summary": {sim: summarise([r for r in mine if r["sim"] == sim]) for sim in ("ns-2", "afsim")},
            "summary_steady": ({sim: summarise([r for r in mine if r["sim"] == sim], "steady")
                                for sim in ("ns-2", "afsim")} if split is not None else None),
            "runs": mine,
        }
    errors = [r for r in runs if not r["ok"]]
    if any(c["summary"]["afsim"].get("AF12.forced") is None for c in configs.values()) and "afsim" in args.sims:
        print("warning: this afsim reports no drops_forced in its colour rows: its random/forced split "
              "is n/a (install a newer afsim, or pass --pythonpath)", file=sys.stderr)
    res = {
        "seeds": seeds, "duration_s": args.duration, "split_s": split, "wall_s": wall, "jobs": args.jobs,
        "machine": f"{platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}",
        "afsim_commit": git_head(), "afsim_pythonpath": args.pythonpath,
        "ns2_script": str(TCL.relative_to(REPO)), "afsim_scenario": str(TOML.relative_to(REPO)),
        "configs": configs, "marker_check": marker,
    }
    args.out_json.write_text(json.dumps(res, indent=1) + "\n", encoding="utf-8")
    md = markdown(res)
    args.out_md.write_text(md, encoding="utf-8")
    print(md)
    for r in errors:
        first = r["error"].strip().splitlines()
        print(f"FAILED {r['sim']} seed {r['seed']}: {' / '.join(first[:3])}", file=sys.stderr)
    print(f"{len(runs)} runs ({len(errors)} failed) in {wall:.1f} s wall; wrote "
          f"{args.out_json.name} and {args.out_md.name}", file=sys.stderr)
    return 1 if len(errors) == len(runs) else 0




if __name__ == "__main__":
    sys.exit(main())
