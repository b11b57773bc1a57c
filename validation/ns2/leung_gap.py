"""Bisection of the afsim / ns-2 gap on Leung & Muppala's topologies (docs/validation.md,
"Leung & Muppala's topology 2 against ns-2: the short-RTT flows").

Each configuration (CONFIGS) simplifies both sides identically: an edit of the afsim scenario
text (and parameter overrides) and the matching arguments of leung_gap.tcl (leung.tcl with
switches). For seeds 1..N it runs both, and prints per configuration the means of f1's
throughput and of FIEB on each side with Welch's t, then per-flow means of throughput and of
the window-cut counters (afsim: ce_received, ecn_reductions, fast_recoveries, timeouts,
packets_sent; ns-2: necnresponses_, ncwndcuts_, ncwndcuts1_, nrexmit_, ndatapack_, every
TIMEOUT event, CE marks per flow at R1 -> R2).

    cd /work/wt-gap && PYTHONPATH=python python3 validation/ns2/leung_gap.py --seeds 20 \
        --duration 60 base nomark onecurve          # afsim from python/ (its _core .so)
    /work/venv-gap/bin/python validation/ns2/leung_gap.py --seeds 20 \
        --set bottleneck=19990kbps --spread 2 base  # a private build; both sides changed

--set key=value changes a scenario parameter in both simulators (the twin's arguments follow
through leung.ns2_args); --spread S starts the flows at per-seed times in [0, S) s, the same in
both; --json appends each configuration's result as one JSON line.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
import tempfile
from pathlib import Path
from statistics import mean, stdev

import ns2kit
from ns2kit import afsim_results, compare, run_all, stat, task

from afsim.reproduce import leung

HERE = Path(__file__).resolve().parent
TCL = HERE / "leung_gap.tcl"
SCEN = leung.find_scenarios_dir()  # python/afsim/scenarios/leung

RIO_BLOCK = re.compile(r"\[link\.queue\].*?spacing = \"\$spacing\"[^\n]*\n", re.S)


def nomark(text: str) -> str:
    """Targets far above the link rate: every packet IN (AF11)."""
    return re.sub(r'target = "[0-9]+Mbps"', 'target = "1000Mbps"', text)


def unused(text: str, *names: str) -> str:
    """Removes parameters the edited scenario no longer refers to."""
    return re.sub(rf"^({'|'.join(names)}) = [^\n]*\n", "", text, flags=re.M)


def droptail(text: str) -> str:
    text = RIO_BLOCK.sub('[link.queue]\nkind = "droptail"\nlimit = "500pkt"\n', text)
    return unused(text, "ecn_marking", "ecn_forced", "spacing", "w_q", "coupling", "out_marking")


def red1(text: str) -> str:
    """One RED curve (the IN one) for both precedences, as a plain RED queue."""
    text = RIO_BLOCK.sub(
        '[link.queue]\nkind = "red"\nlimit = "500pkt"\nmin_th = 100\nmax_th = 150\n'
        'max_p = 0.02\nw_q = "$w_q"\nmean_packet_size = "1000B"\necn = "$ecn_marking"\n'
        'ecn_forced = "$ecn_forced"\n', text)
    return unused(text, "coupling", "out_marking", "spacing")


def out_as_in(text: str) -> str:
    return text.replace("out = { min_th = 50, max_th = 100, max_p = 0.1 }",
                        "out = { min_th = 100, max_th = 150, max_p = 0.02 }")


EQUAL = {f"access_{i}": "53ms" for i in range(1, 11)}

# name: (topology, overrides(strategy etc.), afsim text edits, ns-2 argument changes)
CONFIGS = {
    "base": (2, leung._t2(1, "mark-tail"), [], {}),
    "base-acc1001": (2, {**leung._t2(1, "mark-tail"), "access_rate": "10010kbps"}, [], {}),
    "base-acc999": (2, {**leung._t2(1, "mark-tail"), "access_rate": "9990kbps"}, [], {}),
    "onecurve-acc1001": (2, {**leung._t2(1, "mark-tail"), "access_rate": "10010kbps"}, [out_as_in],
                         {"out": "100 150 0.02"}),
    "droptail-acc1001": (2, {**leung._t2(1, "non-ECN"), "access_rate": "10010kbps"}, [droptail],
                         {"core": "droptail"}),
    "set2-acc1001": (2, {**leung._t2(2, "mark-tail"), "access_rate": "10010kbps"}, [], {}),
    "set2-noecn-acc1001": (2, {**leung._t2(2, "non-ECN"), "access_rate": "10010kbps"}, [], {}),
    "base-noecn": (2, leung._t2(1, "non-ECN"), [], {}),
    "set2": (2, leung._t2(2, "mark-tail"), [], {}),
    "set2-noecn": (2, leung._t2(2, "non-ECN"), [], {}),
    "t1-16-noecn": (1, leung._t1(16, "non-ECN"), [], {}),
    "wq002": (2, {**leung._t2(1, "mark-tail"), "w_q": "0.002"}, [], {}),
    "equal": (2, {**leung._t2(1, "mark-tail"), **EQUAL}, [], {}),
    "nomark": (2, leung._t2(1, "mark-tail"), [nomark], {"targets": " ".join(["1000000000"] * 10)}),
    "nomark-noecn": (2, leung._t2(1, "non-ECN"), [nomark],
                     {"targets": " ".join(["1000000000"] * 10)}),
    "onecurve": (2, leung._t2(1, "mark-tail"), [out_as_in], {"out": "100 150 0.02"}),
    "onecurve-noecn": (2, leung._t2(1, "non-ECN"), [out_as_in], {"out": "100 150 0.02"}),
    "red-noecn": (2, {**leung._t2(1, "non-ECN"), "spacing": "red"}, [red1], {"core": "red"}),
    "red": (2, {**leung._t2(1, "mark-tail"), "spacing": "red"}, [red1], {"core": "red"}),
    "droptail": (2, leung._t2(1, "non-ECN"), [droptail], {"core": "droptail"}),
    "droptail-equal": (2, {**leung._t2(1, "non-ECN"), **EQUAL}, [droptail], {"core": "droptail"}),
    "droptail-nomark": (2, leung._t2(1, "non-ECN"), [droptail, nomark],
                        {"core": "droptail", "targets": " ".join(["1000000000"] * 10)}),
}


def welch(a: list[float], b: list[float]) -> float:
    """Welch's t of mean(a) − mean(b) (``ns2kit.compare``); NaN without spread."""
    z = compare(stat(b), stat(a)).z
    return math.nan if z is None else z


def scenario(topo: int, edits, tmp: Path) -> Path:
    src = SCEN / f"topology{topo}.toml"
    if not edits:
        return src
    text = src.read_text()
    for f in edits:
        new = f(text)
        assert new != text, f"{f.__name__} changed nothing"
        text = new
    p = tmp / f"t{topo}-{'-'.join(f.__name__ for f in edits)}.toml"
    p.write_text(text)
    return p


def experiment(topo: int):
    want = "fig3_5" if topo == 1 else "fig6"
    return next(e for e in leung.experiments() if e.id == want)


def run_ns2(args: list[str]) -> dict:
    return ns2kit.ns2(TCL, args, nice=5).twin()


def starts(seed: int, n: int, spread: float) -> list[float]:
    """Start times of the flows for one seed, uniform in [0, spread) s, to the microsecond: the
    same in both simulators (a Weyl sequence, so no RNG of either is involved)."""
    g = 0.6180339887498949
    return [round(((seed * g + i * 0.7548776662466927) % 1.0) * spread, 6) for i in range(n)]


def with_starts(text: str, st: list[float]) -> str:
    it = iter(st)
    return re.sub(r'^start = "0s"', lambda m: f'start = "{next(it) * 1e6:.0f}us"', text, flags=re.M)


SPREAD = 0.0
#: --set key=value: scenario parameters changed in both simulators (the twin's arguments
#: follow through leung.ns2_args), e.g. access_rate=10010kbps
EXTRA: dict[str, str] = {}


def run_config(name: str, seeds: int, duration: int, tmp: Path) -> dict:
    topo, ov0, edits, nsmod = CONFIGS[name]
    ov = {**ov0, **EXTRA, "duration_s": str(duration)}
    path = scenario(topo, edits, tmp)
    text = path.read_text()
    ov_af = {k: v for k, v in ov.items() if re.search(rf"^{k} = ", text, re.M)}
    e = experiment(topo)
    af, nm, afc, nsc = [], [], [], []
    for s in range(1, seeds + 1):
        p_s = path
        if SPREAD:
            p_s = tmp / f"start-{s}.toml"
            p_s.write_text(with_starts(text, starts(s, 10 if topo == 2 else 3, SPREAD)))
        r = afsim_results(task(p_s, ov_af, s))
        af.append(leung.leung_metrics(r))
        fl = r.flows.sort_values("name", key=lambda x: x.str[1:].astype(int))
        afc.append({k: [float(v) for v in fl[k]] for k in
                    ("ce_received", "ecn_reductions", "fast_recoveries", "timeouts", "packets_sent")})
    argsets = []
    for s in range(1, seeds + 1):
        # (the red configurations swap dsRED for red.cc in the twin: its spacing is red.cc's)
        ov_ns = {k: v for k, v in ov.items() if k != "spacing"}
        a = dict(x.split("=", 1) for x in leung.ns2_args(e, ov_ns, s))  # type: ignore[union-attr]
        a.update(nsmod)
        if SPREAD:
            a["starts"] = " ".join(f"{x:.6f}" for x in starts(s, 10 if topo == 2 else 3, SPREAD))
        argsets.append([f"{k}={v}" for k, v in a.items()])
    raws = run_all(run_ns2, argsets, 2)
    for raw in raws:
        nm.append(leung.leung_metrics(leung.ns2_results(raw)))
        nsc.append({k: [float(f[k]) for f in raw["flows"]] for k in
                    ("ecn_responses", "cwnd_cuts", "cwnd_cuts_ecn", "rexmit_events",
                     "data_pkts_sent")} | {"timeouts": raw["timeouts"], "ce_marks": raw["cemarks"]})
    n = len(af[0]) and sum(1 for k in af[0] if k.startswith("thr."))
    out = {"config": name, "seeds": seeds, "duration_s": duration, "afsim_args": ov,
           "ns2_args": argsets[0][1:], "flows": n}
    for key in ["thr.f1", "thr.f2", "fieb", "total_kbps"]:
        a, b = [m[key] for m in af], [m[key] for m in nm]
        out[key] = {"afsim": mean(a), "ns2": mean(b), "t": welch(a, b), "sd_afsim": stdev(a),
                    "sd_ns2": stdev(b)}
    out["thr_afsim"] = [round(mean(m[f"thr.f{i}"] for m in af)) for i in range(1, n + 1)]
    out["thr_ns2"] = [round(mean(m[f"thr.f{i}"] for m in nm)) for i in range(1, n + 1)]
    for k in afc[0]:
        out[f"afsim.{k}"] = [round(mean(c[k][i] for c in afc), 1) for i in range(n)]
    for k in nsc[0]:
        out[f"ns2.{k}"] = [round(mean(c[k][i] for c in nsc), 1) for i in range(n)]
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("configs", nargs="+", choices=sorted(CONFIGS))
    ap.add_argument("--seeds", type=int, default=20)
    ap.add_argument("--duration", type=int, default=60)
    ap.add_argument("--spread", type=float, default=0.0,
                    help="start the flows at per-seed times in [0, SPREAD) s (both simulators)")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                    help="a scenario parameter for both simulators (access_rate, bottleneck, w_q...)")
    ap.add_argument("--json", type=Path, help="append each configuration's result (JSON lines)")
    a = ap.parse_args()
    global SPREAD
    SPREAD = a.spread
    EXTRA.update(dict(kv.split("=", 1) for kv in a.set))
    with tempfile.TemporaryDirectory() as d:
        for c in a.configs:
            o = run_config(c, a.seeds, a.duration, Path(d))
            f1, fi = o["thr.f1"], o["fieb"]
            o["spread_s"] = a.spread
            o["set"] = dict(EXTRA)
            print(f"{c:16s} {' '.join(a.set)} n={a.seeds} {a.duration}s spread {a.spread:g}s  f1 {f1['afsim']:7.0f} {f1['ns2']:7.0f} "
                  f"t={f1['t']:+5.1f} (sd {f1['sd_afsim']:.0f} {f1['sd_ns2']:.0f})  FIEB {fi['afsim']:.3f} {fi['ns2']:.3f} t={fi['t']:+5.1f}  "
                  f"total {o['total_kbps']['afsim']:.0f} {o['total_kbps']['ns2']:.0f}", flush=True)
            for k in [k for k in o if k.startswith(("thr_", "afsim.", "ns2."))]:
                print(f"    {k:22s} {o[k]}")
            if a.json:
                with a.json.open("a") as fh:
                    fh.write(json.dumps(o) + "\n")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
