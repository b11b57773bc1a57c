"""Where two runs of a dumbbell grid cell part: both simulators' cwnd traces of one seed, the
first instant at which some started flow's cwnd differs, and the first window cuts of each
(docs/validation.md, "The 100-flow 20 Mb/s ECN SACK cell").

    python3 validation/ns2/cwnd_part.py dumbbell/100/20/1/sack --seed 1 --duration 1

ns-2: dumbbell.tcl `cwnd_trace=` ("time src_node port dst_node port cwnd_ value", src_i is node
2 + 2i); afsim: the scenario's `trace = true` (Run.traces()). Traces are compared 50 us after
each change. A cut is a fall of more than half a packet from at least 4 packets (the start-up's
3 -> 2 step of ns-2's trace left out).
"""
from __future__ import annotations

import argparse
import bisect
import sys
import tempfile
from pathlib import Path

from grid import HERE, afsim_overrides, cells, ns2_command
from ns2kit import afsim_results, ns2, task

#: compare each trace EPS after each change: the two write a change of one instant in different
#: orders (ns-2's cwnd goes 2 -> 3 -> 2 at the first ACK), and ns-2's trace prints times to 10 us
EPS = 5e-5


def ns2_trace(cell, seed: int, duration: float) -> dict[int, tuple[list[float], list[float]]]:
    out: dict[int, tuple[list[float], list[float]]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        tr = Path(tmp) / "cwnd.tr"
        ns2(HERE / "dumbbell.tcl", ns2_command(cell, seed, duration, True)[2:]
            + [f"cwnd_trace={tr}", "events=0", "marks=0"])
        for line in tr.read_text().splitlines():
            p = line.split()
            if len(p) >= 7 and p[5] == "cwnd_":
                t, c = out.setdefault((int(p[1]) - 2) // 2, ([], []))
                t.append(float(p[0]))
                c.append(float(p[6]))
    return out


def afsim_trace(cell, seed: int, duration: float) -> dict[int, tuple[list[float], list[float]]]:
    toml, sets = afsim_overrides(cell, duration, True)
    traces = afsim_results(task(toml, sets | {"trace": "true"}, seed)).traces
    return {int(str(n).removeprefix("tcp")): ([float(x) for x in d["time_s"]], [c / 1000.0 for c in d["cwnd"]])
            for n, d in traces.groupby("flow")}


def at(tr: tuple[list[float], list[float]] | None, t: float) -> float | None:
    if tr is None:
        return None
    i = bisect.bisect_right(tr[0], t) - 1
    return tr[1][i] if i >= 0 else None


def cuts(trs: dict[int, tuple[list[float], list[float]]]) -> list[tuple[float, int, float, float]]:
    out = []
    for f, (t, c) in trs.items():
        out += [(t[i], f, c[i - 1], c[i]) for i in range(1, len(c)) if c[i - 1] >= 4 and c[i] < c[i - 1] - 0.5]
    return sorted(out)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("cell")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--duration", type=float, default=1.0)
    ap.add_argument("--cuts", type=int, default=6, help="first cuts to list")
    a = ap.parse_args()
    cell = next(c for c in cells(["dumbbell"]) if c.key == a.cell)
    ns, af = ns2_trace(cell, a.seed, a.duration), afsim_trace(cell, a.seed, a.duration)
    step = 1.0 / cell.flows  # dumbbell.tcl start_step, 1/flows s
    times = sorted({t for d in (ns, af) for tr in d.values() for t in tr[0]})
    for t in (x + EPS for x in times):
        started = [f for f in range(cell.flows) if f * step < t]
        diff = [f for f in started if at(ns.get(f), t) != at(af.get(f), t)]
        if diff:
            print(f"first difference at {t:.6f} s ({len(started)} flows started): "
                  + ", ".join(f"flow {f} ns-2 {at(ns.get(f), t):g} afsim {at(af.get(f), t):g}" for f in diff))
            break
    else:
        print("the cwnd traces agree throughout")
    for name, d in (("ns-2", ns), ("afsim", af)):
        print(f"{name} first cuts:", "; ".join(f"{t:.4f} s flow {f} {b:g}->{c:g}" for t, f, b, c in cuts(d)[:a.cuts]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
