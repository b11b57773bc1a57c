#!/usr/bin/env python3
"""Figure of `afsim bench --scale --format json` output: time and memory against flow count.

    afsim bench --scale --format json > docs/performance/scale.json
    python tools/scale_plot.py docs/performance/scale.json docs/performance/scale.png [NS2.json]

Left: wall seconds to load, to build and to run each scale scenario (log-log); right: the
process's peak RSS (MiB, log-log) with the slope line of each scenario. Given the JSON of
tools/scale_vs_ns2.py as well, ns-2's whole-process time and peak RSS are drawn beside.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt


def main(src: str, out: str, ns2_src: str | None = None) -> int:
    data = json.loads(Path(src).read_text(encoding="utf-8"))
    rows = data["rows"]
    names = sorted({r["name"] for r in rows})
    fig, (ax_t, ax_m) = plt.subplots(1, 2, figsize=(11, 4.2))
    markers = {"tcp-dumbbell": "o", "tcp-tree": "s"}
    for name in names:
        rs = sorted((r for r in rows if r["name"] == name), key=lambda r: r["flows"])
        x = [r["flows"] for r in rs]
        m = markers.get(name, "^")
        for key, colour, label in (("load_s", "tab:green", "load"), ("build_s", "tab:orange", "build"),
                                   ("run_s", "tab:blue", "run (20 s simulated)")):
            ax_t.plot(x, [max(r[key], 1e-4) for r in rs], marker=m, color=colour,
                      label=f"{name}: {label}")
        ax_m.plot(x, [r["peak_rss_mib"] for r in rs], marker=m, color="tab:red",
                  label=f"{name}: peak RSS")
    ns2 = []
    if ns2_src:
        ns2 = sorted((r for r in json.loads(Path(ns2_src).read_text(encoding="utf-8"))["rows"]
                      if "ns2_process_s" in r), key=lambda r: r["flows"])
    if ns2:
        ax_t.plot([r["flows"] for r in ns2], [r["ns2_process_s"] for r in ns2], marker="x",
                  color="black", label="ns-2 dumbbell: whole process")
        ax_t.plot([r["flows"] for r in ns2], [r["afsim_process_s"] for r in ns2], marker="+",
                  color="grey", label="afsim dumbbell: whole process")
        ax_m.plot([r["flows"] for r in ns2], [r["ns2_peak_rss_mib"] for r in ns2], marker="x",
                  color="black", label="ns-2 dumbbell: peak RSS")
    for ax in (ax_t, ax_m):
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("TCP flows")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
    ax_t.set_ylabel("wall time (s)")
    ax_m.set_ylabel("peak RSS of the process (MiB)")
    ax_t.set_title("time")
    ax_m.set_title("memory")
    fig.suptitle("afsim bench --scale: one run, 100 to 100,000 TCP flows through a 100 Mb/s "
                 "bottleneck", fontsize=10)
    fig.tight_layout()
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=110)
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:4]))
