#!/usr/bin/env python3
"""The gTFRC panels under the two ns-2 TFRC rule sets: `ns2` (ns-2.35) and `ns2_28` (ns-2.28, the
release the paper ran), for issue 21's question: do ns-2.28's TFRC differences explain the
in-profile drops of the shared slow start?

Read this first: every panel with a TFRC or gTFRC flow runs at the reproduction's own point
(`afsim.reproduce.gtfrc.panel_overrides`, trace on) with `--set tfrc_preset=ns2` and
`tfrc_preset=ns2_28`, seeds 1..N, once over 100 s and once stopped at `--window` s (the same run's
prefix: every slow start of these panels ends before 20 s). Per panel and preset it prints the
in-profile (AF11) drops at the core -> egress bottleneck (RIO's ldrops as the reproduction counts
them: overflow + forced) in the window and over 100 s, the in-profile ldrops ratio over 100 s
beside the paper's (Tables 1-3, where the panel has one), and each TFRC flow's slow-start exit
(its first report of a loss; "-" if none in 100 s). Exits are per seed when the seeds disagree.

    PYTHONPATH=python python3 validation/gtfrc_tfrc_preset.py                 # every TFRC panel, seeds 1-5
    PYTHONPATH=python python3 validation/gtfrc_tfrc_preset.py --panels 4a 4b 6a 6b 10a 10b --json out.json

Deterministic: the same afsim build gives the same tables.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import afsim
from afsim.reproduce import gtfrc

PRESETS = ("ns2", "ns2_28")


def one(job: tuple[str, str, int, float]) -> dict:
    fig, preset, seed, duration = job
    panel = gtfrc.PANEL[fig]
    path = gtfrc.find_scenarios_dir() / gtfrc.EXPERIMENT_FILES[panel.experiment]
    ov = gtfrc.panel_overrides(panel) | {"tfrc_preset": preset, "duration": f"{duration:g}s", "warmup": "0s"}
    res = afsim.run(afsim.load_scenario(path, overrides=ov), seed=seed)
    q = gtfrc.queue_metrics(res.colours)
    exits = {}
    tr = res.tfrc_traces
    for f in panel.of_kind("TFRC", "gTFRC"):
        t = tr[(tr["flow"] == f.name) & (tr["p"] > 0)]["time_s"]
        exits[f.name] = float(t.min()) if len(t) else math.nan
    return {"fig": fig, "preset": preset, "seed": seed, "duration": duration,
            "in_ldrops": int(q["in.ldrops.events"]), "in_arrivals": int(q["in.ldrops.trials"]),
            "in_overflow": int(q["in.overflow.events"]),
            "out_ldrops": int(q["out.ldrops.events"]), "exits": exits}


def paper_in_ldrops() -> dict[str, float]:
    data = json.loads(gtfrc.DATA.read_text(encoding="utf-8"))
    return {v["point"]["fig"]: v["value"] for v in data["values"]
            if v["metric"] == "in.ldrops" and v["point"].get("from_s", 0) == 0}


def fmt_exits(runs: list[dict], name: str) -> str:
    xs = [r["exits"][name] for r in runs]
    if all(math.isnan(x) for x in xs):
        return "-"
    if max(xs) - min(xs) < 0.5:
        return f"{statistics.fmean(xs):.2f}"
    return "/".join("-" if math.isnan(x) else f"{x:.1f}" for x in xs)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    tfrc_panels = [p.fig for p in gtfrc.PANELS if p.of_kind("TFRC", "gTFRC")]
    ap.add_argument("--panels", nargs="+", default=tfrc_panels)
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--window", type=float, default=20.0, help="the slow-start window, s (default 20)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--json", type=Path, help="keep every run here")
    a = ap.parse_args()
    jobs = [(fig, preset, seed, d) for fig in a.panels for preset in PRESETS
            for seed in range(1, a.seeds + 1) for d in (a.window, 100.0)]
    with ProcessPoolExecutor(a.jobs) as ex:
        runs = list(ex.map(one, jobs))
    if a.json:
        a.json.write_text(json.dumps({"afsim_build": afsim.__build__, "runs": runs}, indent=1))
    paper = paper_in_ldrops()
    print(f"afsim {afsim.__build__}; seeds 1-{a.seeds}; window 0-{a.window:g} s\n")
    print(f"| panel | preset | in-profile drops 0-{a.window:g} s (overflows) | in-profile drops 0-100 s "
          "| in ldrops 0-100 s | paper | × paper | slow-start exit (s), per TFRC flow |")
    print("|---|---|---:|---:|---:|---:|---:|---|")
    for fig in a.panels:
        for preset in PRESETS:
            sel = [r for r in runs if r["fig"] == fig and r["preset"] == preset]
            win = [r for r in sel if r["duration"] == a.window]
            full = [r for r in sel if r["duration"] == 100.0]
            d_win = statistics.fmean(r["in_ldrops"] for r in win)
            o_win = statistics.fmean(r["in_overflow"] for r in win)
            d_full = statistics.fmean(r["in_ldrops"] for r in full)
            ratio = sum(r["in_ldrops"] for r in full) / max(1, sum(r["in_arrivals"] for r in full))
            pp = paper.get(fig)
            times = "; ".join(f"{f.name} {fmt_exits(full, f.name)}"
                              for f in gtfrc.PANEL[fig].of_kind("TFRC", "gTFRC"))
            print(f"| {fig} | {preset} | {d_win:.1f} ({o_win:.1f}) | {d_full:.1f} | {100 * ratio:.3f} % | "
                  f"{'' if pp is None else f'{100 * pp:.2f} %'} | "
                  f"{'' if not pp else f'{ratio / pp:.1f}'} | {times} |")


if __name__ == "__main__":
    main()
