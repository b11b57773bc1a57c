"""Giacomazzi et al., scenario 1 at N_AF = 20: border1's RIO buffer under each reading (issue 21).

The paper's CSA acts at N_AF = 20 (Table 2: 1,040.13 kb/s with the CSA against 1,346 with a
fixed α = 0.4, whose OUT packets are lost at border1 with P_nc,1 = 4.51e-3). Under afsim's
default reading the buffer never signals congestion there. This script samples the buffer
(`[[monitor]]`, every millisecond) under each candidate reading of what the paper leaves open,
with the CSA and with a fixed α = 0.4, and writes

    docs/reproductions/giacomazzi/occupancy/occupancy.json   every run's numbers
    docs/reproductions/giacomazzi/occupancy/occupancy.csv    the same, one row per run
    docs/reproductions/giacomazzi/occupancy/occupancy_n20.{png,svg}
                                                             the distributions (figure)
    docs/reproductions/giacomazzi/occupancy/summary.md       the table of means

Usage (from a checkout with afsim installed; about 6 minutes on one core):

    python validation/giacomazzi/occupancy.py                  # 3 seeds, 4 M data packets each
    python validation/giacomazzi/occupancy.py --seeds 1 --packets 1000000   # a quick look

The runs are the reproduction's own scenario (`scenarios/giacomazzi/scenario1.toml`) with its
defaults and one reading changed at a time; the metrics are the reproduction's
(`afsim.reproduce.giacomazzi.scenario1_metrics`).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

import afsim
from afsim.reproduce.giacomazzi import scenario1_metrics
from afsim.results import Results

ROOT = Path(__file__).resolve().parents[2]
SCENARIO = ROOT / "scenarios" / "giacomazzi" / "scenario1.toml"
OUT = ROOT / "docs" / "reproductions" / "giacomazzi" / "occupancy"
QUEUE = "border1->border2"
#: Table 1: the buffer is congested when avg_q_tot > min_th_out (§IV).
MIN_TH_OUT = 10.0

#: (id, label, overrides, the evidence for or against it). One reading changed at a time.
READINGS: tuple[tuple[str, str, dict[str, str], str], ...] = (
    ("default", "default: continuous credit, starts 100 ms apart", {},
     "§III.A.1: the bucket 'is filled at a 10^3 r/(8L) [tokens/s] rate, or, alternatively, at an r "
     "[kbit/s] rate'; ns-2 dsRED (dsPolicy.cc TBPolicy::applyMeter) credits continuously"),
    ("start_together", "every source starts at 0", {"start_step": "0s"},
     "start times are not given (§V.A: sources 'always have data to transmit')"),
    ("delayed_ack", "delayed ACKs", {"delayed_ack": "true"},
     "§V.A: TCP 'according to the specifications discussed in [31]' (RFC 2581 §4.2 recommends "
     "delayed ACKs)"),
    ("b1_50", "b1 = 50 tokens", {"b1": "50"},
     "§V.A: 'performance is not influenced by the value of b1', 10 … 50"),
    ("w_q_0.01", "RIO w_q = 0.01", {"w_q": "0.01"},
     "w_q is not given (Table 1); Floyd & Jacobson's range ends at 0.01 … "),
    ("w_q_0.001", "RIO w_q = 0.001", {"w_q": "0.001"}, "… and starts at 0.001"),
    ("periodic_own_phase", "whole tokens, each bucket's own phase",
     {"token_clock": "periodic_own_phase"},
     "Figs. 3 and 5: 'Tokens arriving at rate r' (whole tokens), the generator started with the "
     "bucket's first packet"),
    ("periodic", "whole tokens on one grid from t = 0 (variant)", {"token_clock": "periodic"},
     "Figs. 3 and 5's whole tokens with every generator started with the simulation; afsim's "
     "first reading, a named variant because it was adopted to match"),
)

#: The paper's Table 2 at N_AF = 20 (throughput kb/s, RoS %, P_inb, P_nc,1, P_c,1).
PAPER = {
    "CSA": {"throughput_kbps": 1040.13, "ros_pct": 99.71, "p_inb": 2.6e-4, "p_nc_1": 3.5e-5, "p_c_1": 0.0},
    "0.4": {"throughput_kbps": 1346.0, "ros_pct": 97.3, "p_inb": 3.7e-5, "p_nc_1": 4.51e-3, "p_c_1": 0.0},
}
MODES = {"CSA": {"alpha": "0.4", "min_alpha": "0.04"}, "0.4": {"alpha": "0.4", "min_alpha": "0.4"}}
#: Queue lengths (packets) at which the distributions are tabulated.
EDGES = np.arange(0, 241)


def run_one(mode: str, overrides: dict[str, str], seed: int, packets: int) -> dict:
    sets = {"n_af": "20", **MODES[mode], "max_data_packets": str(packets), **overrides}
    scenario = afsim.load_scenario(SCENARIO, overrides=sets).with_monitor(QUEUE, "1ms")
    t0 = time.perf_counter()
    results = Results.from_run(afsim._core.run(scenario, seed=seed))
    wall = time.perf_counter() - t0
    m = scenario1_metrics(results)
    s = results.monitor[results.monitor["queue"] == QUEUE]
    n = s["len_packets"].to_numpy()
    avg = s["avg"].to_numpy()
    # survival functions on the integer grid: P(len > x), P(avg > x)
    n_sf = 1.0 - np.searchsorted(np.sort(n), EDGES, side="right") / len(n)
    a_sf = 1.0 - np.searchsorted(np.sort(avg), EDGES, side="right") / len(avg)
    return {
        "mode": mode, "seed": seed, "overrides": overrides, "wall_s": wall,
        "samples": int(len(n)),
        "len_mean": float(n.mean()), "len_p99": float(np.quantile(n, 0.99, method="lower")),
        "len_max": int(n.max()), "avg_mean": float(avg.mean()), "avg_max": float(avg.max()),
        "avg_over_min_th_out": float((avg > MIN_TH_OUT).mean()),
        "len_sf": n_sf.tolist(), "avg_sf": a_sf.tolist(),
        **{k: m.get(k) for k in ("throughput_kbps", "ros_pct", "p_inb", "p_nc_1", "p_c_1",
                                 "alpha_mean", "congested_share", "backbone_utilisation",
                                 "timeouts_per_flow", "simulated_s")},
    }


def figure(runs: list[dict], out: Path) -> list[Path]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(2, 2, figsize=(12, 8.5), sharex=True, sharey=True)
    colours = plt.get_cmap("tab10")
    for row, mode in enumerate(MODES):
        for col, (key, what) in enumerate((("len_sf", "instantaneous length"),
                                          ("avg_sf", "RIO average avg_q_tot"))):
            ax = axes[row][col]
            # the default last, on top of the readings it coincides with
            order = [i for i, r in enumerate(READINGS) if r[0] != "default"] + [0]
            for i in order:
                rid, label = READINGS[i][0], READINGS[i][1]
                rs = [r for r in runs if r["mode"] == mode and r["reading"] == rid]
                if not rs:
                    continue
                sf = np.mean([r[key] for r in rs], axis=0)
                keep = sf > 0
                ax.step(EDGES[keep], sf[keep], where="post",
                        color="k" if rid == "default" else colours(i), label=label,
                        lw=2.4 if rid in ("default", "periodic") else 1.3,
                        ls="--" if rid == "periodic" else "-", zorder=3 if rid == "default" else 2)
            ax.axvline(MIN_TH_OUT, color="k", lw=0.8, ls=":")
            ax.text(MIN_TH_OUT + 0.5, 2e-6, "min_th_out", fontsize=8, rotation=90, va="bottom")
            ax.set_yscale("log")
            ax.set_ylim(1e-6, 1.5)
            ax.set_xlim(0, 60)
            ax.grid(alpha=0.3)
            title = "CSA (variable α)" if mode == "CSA" else "fixed α = 0.4"
            ax.set_title(f"{title}: {what}", fontsize=10)
            if row == 1:
                ax.set_xlabel("packets x")
            if col == 0:
                ax.set_ylabel("share of time above x")
    handles, labels = axes[0][0].get_legend_handles_labels()
    by_label = dict(zip(labels, handles))
    axes[0][0].legend([by_label[r[1]] for r in READINGS if r[1] in by_label],
                      [r[1] for r in READINGS if r[1] in by_label], fontsize=8, loc="upper right")
    fig.suptitle("Giacomazzi et al. scenario 1, N_AF = 20: border1's RIO buffer towards border2, "
                 "sampled every 1 ms (mean over seeds)", fontsize=11)
    fig.tight_layout()
    paths = [out / "occupancy_n20.png", out / "occupancy_n20.svg"]
    for p in paths:
        fig.savefig(p, dpi=110)
    plt.close(fig)
    return paths


def summary_md(doc: dict) -> str:
    """The table of summary.md: per reading and mode, the means over the seeds, the paper's
    Table 2 row beside them."""
    import pandas as pd

    flat = pd.DataFrame([{k: v for k, v in r.items() if not k.endswith("_sf") and k != "overrides"}
                         for r in doc["runs"]])
    labels = {r["id"]: r["label"] for r in doc["readings"]}
    lines = [
        "# Border buffer occupancy at N_AF = 20 under each reading (generated)",
        "",
        f"Written by `{doc['command']}` (afsim {doc['afsim_version']}; "
        f"{doc['packets_per_run']:,} data packets and {doc['seeds']} seeds per row, means over the "
        "seeds). Sampled every 1 ms; *avg > 10* is the share of samples in which RIO's avg_q_tot "
        "exceeds min_th_out, the CSA's congestion (§IV). The paper's Table 2 row is under each mode.",
        "",
        "| mode | reading | mean length (pkt) | p99 | max | mean avg_q_tot | avg > 10 | mean α | "
        "throughput (kb/s) | RoS (%) | P_nc,1 | P_inb |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for mode, title in (("CSA", "CSA"), ("0.4", "fixed α = 0.4")):
        g = flat[flat["mode"] == mode].groupby("reading", sort=False).mean(numeric_only=True)
        for rid, row in g.iterrows():
            lines.append(
                f"| {title} | {labels[rid]} (`{rid}`) | {row['len_mean']:.2f} | {row['len_p99']:.0f} | "
                f"{row['len_max']:.0f} | {row['avg_mean']:.2f} | {row['avg_over_min_th_out']:.2%} | "
                f"{row['alpha_mean']:.3f} | {row['throughput_kbps']:,.1f} | {row['ros_pct']:.2f} | "
                f"{row['p_nc_1']:.2e} | {row['p_inb']:.2e} |")
        p = doc["paper"][mode]
        lines.append(f"| {title} | **the paper, Table 2** | | | | | | | {p['throughput_kbps']:,.2f} | "
                     f"{p['ros_pct']:.2f} | {p['p_nc_1']:.2e} | {p['p_inb']:.2e} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--packets", type=int, default=4_000_000,
                    help="data packets generated per run (the paper: 40 million)")
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--replot", action="store_true",
                    help="only redraw the figure from OUT/occupancy.json")
    args = ap.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    if args.replot:
        doc = json.loads((args.out / "occupancy.json").read_text())
        figure(doc["runs"], args.out)
        (args.out / "summary.md").write_text(summary_md(doc))
        return 0
    runs = []
    total = len(READINGS) * len(MODES) * args.seeds
    for rid, _label, overrides, _ in READINGS:
        for mode in MODES:
            for seed in range(1, args.seeds + 1):
                r = run_one(mode, overrides, seed, args.packets)
                r["reading"] = rid
                runs.append(r)
                print(f"[{len(runs)}/{total}] {rid:<20} {mode:<4} seed {seed}: "
                      f"len mean {r['len_mean']:.2f} max {r['len_max']}, avg>10 "
                      f"{r['avg_over_min_th_out']:.3%}, α {r['alpha_mean']:.3f}, "
                      f"{r['throughput_kbps']:.1f} kb/s ({r['wall_s']:.1f} s)", file=sys.stderr)
    doc = {
        "what": "Giacomazzi et al. scenario 1 at N_AF = 20: border1->border2 sampled every 1 ms",
        "command": "python validation/giacomazzi/occupancy.py"
        + (f" --seeds {args.seeds}" if args.seeds != 3 else "")
        + (f" --packets {args.packets}" if args.packets != 4_000_000 else ""),
        "afsim_version": afsim.__version__,
        "packets_per_run": args.packets, "seeds": args.seeds, "min_th_out": MIN_TH_OUT,
        "paper": PAPER,
        "readings": [{"id": r, "label": lab, "overrides": o, "evidence": e} for r, lab, o, e in READINGS],
        "edges": EDGES.tolist(),
        "runs": runs,
    }
    (args.out / "occupancy.json").write_text(json.dumps(doc, indent=1) + "\n")
    import pandas as pd

    flat = pd.DataFrame([{k: v for k, v in r.items() if not k.endswith("_sf") and k != "overrides"}
                         for r in runs])
    flat.to_csv(args.out / "occupancy.csv", index=False)
    figure(runs, args.out)
    (args.out / "summary.md").write_text(summary_md(doc))
    summary = flat.groupby(["reading", "mode"], sort=False)[
        ["len_mean", "len_p99", "len_max", "avg_mean", "avg_over_min_th_out", "alpha_mean",
         "throughput_kbps", "ros_pct", "p_nc_1", "p_inb"]].mean()
    print(summary.to_string(float_format=lambda x: f"{x:.4g}"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
