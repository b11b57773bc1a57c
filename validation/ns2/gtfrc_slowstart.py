#!/usr/bin/env python3
"""The two-TFRC panels of the gTFRC reproduction (Fig. 4a, 5a, 9a, 10a, 11a) in afsim and in the
ns-2.35 twin (python/afsim/ns2/gtfrc.tcl), at the paper's access delays and at microsecond
offsets of them (docs/validation.md, "Slow start beside a short-RTT flow (gTFRC's Fig. 4a)").

Read this first: the long-RTT flow a either leaves slow start early (about 3.5 s) or late
(11-15 s), in both simulators, and which one a run takes is decided in its first second by
floating-point ties (tfrc.cc `TfrcAgent::slowstart`'s `rate_ > ss_maxrate_` and the like),
not by the seed: RIO's coin flips come later. A run at the paper's delays is one draw; offset
k adds k µs to flow a's access delay and 0.7k µs to flow b's (a path 2-3 µs longer out of 40 or
640 ms), which moves every tie and samples the branch. Per offset, `seeds` runs differ only in
RIO's coin flips. A run's exit is early when flow a's first report of a loss comes before 6 s.

    python3 validation/ns2/gtfrc_slowstart.py                          # 4a and 9a, 20 offsets x 3 seeds, 100 s
    python3 validation/ns2/gtfrc_slowstart.py --panels 4a 5a 9a 10a 11a --offsets 1 --seeds 5   # the paper's point

Needs `ns` on PATH and afsim importable. Prints Markdown tables; `--out FILE` keeps every run
as JSON. ns-2 runs one at a time beside afsim's (two simulations at once).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from ns2kit import afsim_results, ns2, task

REPO = Path(__file__).resolve().parents[2]
SCENARIO = REPO / "python" / "afsim" / "scenarios" / "gtfrc" / "two-tfrc.toml"
TWIN = REPO / "python" / "afsim" / "ns2" / "gtfrc.tcl"
EARLY_S = 6.0


def shifted(delay: str, us: float) -> str:
    return f"{float(delay.removesuffix('ms')) + us * 1e-3:.6f}ms"


def overrides(panel: str, k: int, duration: float) -> dict[str, str]:
    from afsim.reproduce import gtfrc

    # afsim's ns-2.35 rules beside ns-2.35 (the scenarios' default is ns-2.28's since issue 21)
    ov = gtfrc.panel_overrides(gtfrc.PANEL[panel]) | {"duration": f"{duration:g}s", "trace": "true",
                                                      "tfrc_preset": "ns2"}
    if k:
        ov["delay_a"] = shifted(ov["delay_a"], k)
        ov["delay_b"] = shifted(ov["delay_b"], 0.7 * k)
    return ov


def first_loss(times, ps, end: float) -> float:
    return next((float(t) for t, p in zip(times, ps) if p > 0), end)


def run_afsim(ov: dict[str, str], seed: int, end: float) -> dict[str, float]:
    r = afsim_results(task(SCENARIO, ov, seed))
    tr = r.tfrc_traces
    a = tr[tr.flow == "a"]
    fl = r.flows.set_index("name")
    return {"exit_s": first_loss(a.time_s, a.p, end), "a_kbps": float(fl.loc["a", "throughput_kbps"]),
            "b_kbps": float(fl.loc["b", "throughput_kbps"]), "a_sent": int(fl.loc["a", "packets_sent"]),
            "b_sent": int(fl.loc["b", "packets_sent"])}


def run_ns2(ov: dict[str, str], seed: int, end: float) -> dict[str, float]:
    kbps = lambda v: int(round(float(v.removesuffix("kbps")) * 1000))
    out = ns2(TWIN, [f"seed={seed}", f"duration={end:g}", "kinds=tfrc tfrc",
                     f"targets={kbps(ov['tr_a'])} {kbps(ov['tr_b'])}", f"delays={ov['delay_a']} {ov['delay_b']}"],
              cwd=TWIN.parent).stdout.splitlines()
    # the sampled true_loss_rate_ of flow a: > 0 from the first report of a loss on
    rows = [line.split() for line in out if line.startswith("XROW 0 ")]
    total = [int(x) for x in next(line for line in out if line.startswith("DELIVERED")).split()[1:]]
    info = json.loads(next(line for line in out if line.startswith("NS2 "))[4:])
    return {"exit_s": first_loss((float(r[2]) for r in rows), (float(r[4]) for r in rows), end),
            "a_kbps": total[0] * 8 / end / 1000, "b_kbps": total[1] * 8 / end / 1000,
            "a_sent": info["flows"][0]["data_pkts_sent"], "b_sent": info["flows"][1]["data_pkts_sent"]}


def summary(runs: list[dict], sim: str, panel: str) -> str:
    rs = [r for r in runs if r["sim"] == sim and r["panel"] == panel]
    offsets = sorted({r["offset"] for r in rs})
    early = [k for k in offsets if all(r["exit_s"] < EARLY_S for r in rs if r["offset"] == k)]
    mixed = [k for k in offsets if len({r["exit_s"] < EARLY_S for r in rs if r["offset"] == k}) > 1]
    def means(sel: list[dict]) -> str:
        if not sel:
            return "–"
        m = {key: statistics.mean(r[key] for r in sel) for key in ("exit_s", "a_kbps", "b_kbps")}
        return f"{m['exit_s']:.2f} / {m['a_kbps']:.1f} / {m['b_kbps']:.1f}"

    e = [r for r in rs if r["exit_s"] < EARLY_S]
    late = [r for r in rs if r["exit_s"] >= EARLY_S]
    branch = f"{len(early)}/{len(offsets)}" + (f" ({len(mixed)} mixed)" if mixed else "")
    return f"| {panel} | {sim} | {branch} | {means(rs)} | {means(e)} | {means(late)} |"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--panels", nargs="*", default=["4a", "9a"])
    ap.add_argument("--offsets", type=int, default=20, help="offsets 0..N-1 µs (0: the paper's delays)")
    ap.add_argument("--seeds", type=int, default=3, help="seeds 1..N per offset")
    ap.add_argument("--duration", type=float, default=100.0)
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    runs: list[dict] = []
    with ThreadPoolExecutor(max_workers=1) as pool:
        for panel in args.panels:
            for k in range(args.offsets):
                ov = overrides(panel, k, args.duration)
                for seed in range(1, args.seeds + 1):
                    ns = pool.submit(run_ns2, ov, seed, args.duration)
                    af = run_afsim(ov, seed, args.duration)
                    key = {"panel": panel, "offset": k, "seed": seed}
                    runs += [{**key, "sim": "afsim", **af}, {**key, "sim": "ns-2", **ns.result()}]
    print(f"{args.offsets} offset(s) x {args.seeds} seed(s), {args.duration:g} s; early: flow a's first "
          f"loss report before {EARLY_S:g} s\n")
    print("| panel | simulator | offsets with an early exit | all runs: exit (s) / a / b (kb/s) "
          "| early runs | late runs |")
    print("|---|---|---:|---:|---:|---:|")
    for panel in args.panels:
        for sim in ("ns-2", "afsim"):
            print(summary(runs, sim, panel))
    if args.offsets > 1:
        print("\nbranch by offset (E early, L late):")
        for panel in args.panels:
            for sim in ("ns-2", "afsim"):
                line = "".join("E" if r["exit_s"] < EARLY_S else "L" for r in runs
                               if r["sim"] == sim and r["panel"] == panel and r["seed"] == 1)
                print(f"  {panel} {sim:6s} {line}")
    if args.out:
        args.out.write_text(json.dumps({"args": {k: str(v) for k, v in vars(args).items()}, "runs": runs}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
