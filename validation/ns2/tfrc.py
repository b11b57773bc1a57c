#!/usr/bin/env python3
"""Cross-check of afsim's TFRC (the `ns2` preset) against ns-2.35's Agent/TFRC and
Agent/TFRCSink (docs/validation.md, "TFRC against ns-2").

Read this first: two kinds of configuration, each run over several seeds in both simulators.
- RED dumbbells (tfrc.tcl mode=dumbbell, scenarios/validation/tfrc-dumbbell.toml): TFRC
  flows alone, and TFRC with NewReno TCP, over a 4 Mb/s RED bottleneck, 100 s, measured over
  20-100 s. Compared: each kind's mean per-flow throughput, the TFRC flows' loss event rate
  (the mean of the p their receivers report), and the shape of their rate traces (X sampled
  every 0.5 s: mean and coefficient of variation over 20-100 s, and mean over the start-up,
  0-10 s, which slow start and its exit shape).
- One TFRC flow with Bernoulli loss p on a 100 ms path that never queues (tfrc.tcl
  mode=bernoulli, scenarios/validation/tfrc-bernoulli.toml), p from 0.1 % to 10 %, 300 s:
  throughput and reported p of ns-2 and afsim's ns2 preset; and afsim's rfc preset against
  RFC 5348's equation at the loss events per packet it saw and the RTT it measured.

ns-2 prints a receiver's loss event rate only with `printLoss_`, without naming the flow, so
each ns-2 configuration is run once per TFRC flow with a different flow printing (the runs are
otherwise identical: same seed, same events). Seeds of the two simulators are unrelated; only
distributions over seeds are compared, `z` being the difference of the means over its
standard error (Welch).

    python3 validation/ns2/tfrc.py                        # 5 seeds; about 2 min on 2 cores
    python3 validation/ns2/tfrc.py --seeds 2 --configs tfrc-4 bernoulli-0.01

Needs `ns` (Debian package ns2) on PATH and afsim importable (`pip install .`). Writes
validation/ns2/tfrc-results.json (every run and the summary) and prints Markdown tables.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import ns2kit
from ns2kit import afsim_results, fmt, ns2, pct_text, run_all, stat, task, z_text

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
TCL = HERE / "tfrc.tcl"
DUMBBELL = REPO / "scenarios" / "validation" / "tfrc-dumbbell.toml"
BERNOULLI = REPO / "scenarios" / "validation" / "tfrc-bernoulli.toml"
OUT = HERE / "tfrc-results.json"

#: TFRC's IP packet and its segment size s (ns-2 packetSize_ 1000 + headersize_ 32).
PACKET, SEGMENT = 1032, 1000
#: TCP: IP bytes and payload of a segment.
TCP_PACKET, TCP_PAYLOAD = 1040, 1000
#: Start step of the flows, seconds (tfrc.tcl start_step, the toml's start_step).
START_STEP = 0.25
SAMPLE_S = 0.5
#: The start-up window whose mean rate describes slow start and its exit, seconds.
STARTUP_S = 10.0


@dataclass(frozen=True)
class Config:
    name: str
    mode: str  # "dumbbell" or "bernoulli"
    tfrc: int = 1
    tcp: int = 0
    p: float = 0.0
    duration: float = 100.0
    warmup: float = 20.0


CONFIGS = [
    Config("tfrc-4", "dumbbell", tfrc=4),
    Config("tfrc-2-tcp-2", "dumbbell", tfrc=2, tcp=2),
    # 0.1 %: a loss event every ~3 s, so a longer run for as many events as the others
    Config("bernoulli-0.001", "bernoulli", p=0.001, duration=1000.0),
    *(Config(f"bernoulli-{p:g}", "bernoulli", p=p, duration=300.0) for p in (0.01, 0.05, 0.1)),
]

LOSS_LINE = re.compile(r"^time: +([0-9.]+) loss_rate: +([0-9.]+) *$", re.M)


# ---------------------------------------------------------------------- helpers


def sampled(times: list[float], values: list[float], at: list[float]) -> list[float]:
    """A step function (value from each time on) read at the instants `at`."""
    out, i, v = [], 0, 0.0
    for t in at:
        while i < len(times) and times[i] <= t:
            v = values[i]
            i += 1
        out.append(v)
    return out


def cov(xs: list[float]) -> float:
    m = statistics.fmean(xs)
    return statistics.pstdev(xs) / m if m > 0 else float("nan")


def equation_bps(s: float, r: float, p: float) -> float:
    """RFC 5348 §3.1 with t_RTO = 4R, b = 1, bytes per second."""
    return s / (r * math.sqrt(2 * p / 3) + 4 * r * (3 * math.sqrt(3 * p / 8) * p * (1 + 32 * p * p)))


def samples(cfg: Config) -> list[float]:
    """When the rate is sampled: k × 0.5 s, k ≥ 1, before the end (as tfrc.tcl does)."""
    n = int(cfg.duration / SAMPLE_S + 1e-9)
    return [k * SAMPLE_S for k in range(1, n)]


# ---------------------------------------------------------------------- runs


def ns2_once(cfg: Config, seed: int, print_flow: int) -> tuple[dict[str, Any], list[tuple[float, float]]]:
    out = ns2(TCL, [f"mode={cfg.mode}", f"tfrc={cfg.tfrc}", f"tcp={cfg.tcp}", f"p={cfg.p}",
                    f"seed={seed}", f"duration={cfg.duration:g}", f"warmup={cfg.warmup:g}",
                    f"start_step={START_STEP}", f"print={print_flow}", f"sample={SAMPLE_S}"]).stdout
    # the JSON object, and the loss lines ns-2's C++ printf writes (flushed at exit, so they
    # may come before or after it)
    at = out.index('{"simulator"')
    report, end = json.JSONDecoder().raw_decode(out, at)
    rest = out[:at] + out[end:]
    losses = sorted((float(t), float(p)) for t, p in LOSS_LINE.findall(rest))
    return report, losses


def metrics(cfg: Config, flows: list[dict[str, Any]]) -> dict[str, Any]:
    """Per-kind means over flows. Each flow: kind, kbps (IP), and for TFRC p_mean, x (samples,
    kb/s of s), ss_exit (s)."""
    span = cfg.duration - cfg.warmup
    tfrc = [f for f in flows if f["kind"] == "tfrc"]
    tcp = [f for f in flows if f["kind"] == "tcp"]
    steady = [k for k, t in enumerate(samples(cfg)) if t >= cfg.warmup]
    start = [k for k, t in enumerate(samples(cfg)) if t <= STARTUP_S]
    kbps = [f["kbps"] for f in tfrc]
    m: dict[str, Any] = {
        "tfrc_kbps": statistics.fmean(kbps),
        "tfrc_kbps_min": min(kbps),
        "tfrc_kbps_max": max(kbps),
        "tfrc_p": statistics.fmean(f["p_mean"] for f in tfrc),
        "tfrc_x_mean_kbps": statistics.fmean(statistics.fmean(f["x"][k] for k in steady) for f in tfrc),
        "tfrc_x_cov": statistics.fmean(cov([f["x"][k] for k in steady]) for f in tfrc),
        "tfrc_x_startup_kbps": statistics.fmean(statistics.fmean(f["x"][k] for k in start) for f in tfrc),
        "span_s": span,
        "flows": flows,
    }
    if tcp:
        m["tcp_goodput_kbps"] = statistics.fmean(f["goodput_kbps"] for f in tcp)
    return m


def run_ns2(cfg: Config, seed: int) -> dict[str, Any]:
    span = cfg.duration - cfg.warmup
    flows: list[dict[str, Any]] = []
    report: dict[str, Any] = {}
    for k in range(cfg.tfrc):
        report, losses = ns2_once(cfg, seed, k)
        if k == 0:
            for f in report["flows"]:
                row: dict[str, Any] = {"kind": f["kind"], "kbps": f["bytes_measured"] * 8 / span / 1e3}
                if f["kind"] == "tcp":
                    # TCPSink bytes_: in-order bytes counted at 1040 per segment
                    row["goodput_kbps"] = f["bytes_measured"] / TCP_PACKET * TCP_PAYLOAD * 8 / span / 1e3
                flows.append(row)
        f = report["flows"][k]
        # rate_samples[j] is rate_ at (j + 1) × sample, bytes of s per second
        x = [v * 8 / 1e3 for v in f["rate_samples"]][: len(samples(cfg))]
        measured = [p for t, p in losses if t >= cfg.warmup]
        flows[k].update(p_mean=statistics.fmean(measured) if measured else 0.0, x=x)
    return metrics(cfg, flows)


def run_afsim(cfg: Config, seed: int, preset: str = "ns2") -> dict[str, Any]:
    span = cfg.duration - cfg.warmup
    common = {"duration": f"{cfg.duration:g}s", "warmup": f"{cfg.warmup:g}s", "trace": "true"}
    if cfg.mode == "bernoulli":
        res = afsim_results(task(BERNOULLI, {**common, "p": str(cfg.p), "preset": preset}, seed))
    else:
        over = {**common, "n_tfrc": str(cfg.tfrc), "n_tcp": str(cfg.tcp),
                "tcp_start": f"{cfg.tfrc * START_STEP * 1000:g}ms"}
        res = afsim_results(task(DUMBBELL, over, seed))
    if not res.conservation["holds"]:
        raise RuntimeError(res.conservation["identity"])
    at = samples(cfg)
    flows: list[dict[str, Any]] = []
    for _, f in res.flows.iterrows():
        row: dict[str, Any] = {"kind": "tfrc" if f["kind"] in ("tfrc", "gtfrc") else "tcp",
                               "kbps": float(f["throughput_kbps"])}
        if row["kind"] == "tcp":
            row["goodput_kbps"] = float(f["goodput_kbps"])
        else:
            t = res.tfrc_traces[res.tfrc_traces["flow"] == f["name"]]
            row["x"] = sampled(list(t["time_s"]), list(t["x_kbps"]), at)
            row["p_mean"] = float(f["loss_event_rate"])
            row["x_kbps"] = float(f["x_kbps"])
            row["loss_events_per_packet"] = float(f["loss_events"]) / max(1.0, float(f["packets_delivered"]))
            row["rtt_mean_s"] = float(f["rtt_mean_s"])
        flows.append(row)
    m = metrics(cfg, flows)
    m["span_s"] = span
    return m


def one(sim: str, cfg: Config, seed: int) -> dict[str, Any]:
    try:
        if sim == "ns-2":
            m = run_ns2(cfg, seed)
        elif sim == "afsim-rfc":
            m = run_afsim(cfg, seed, preset="rfc")
        else:
            m = run_afsim(cfg, seed)
        return {"sim": sim, "config": cfg.name, "seed": seed, "ok": True, "metrics": m}
    except Exception as e:
        return {"sim": sim, "config": cfg.name, "seed": seed, "ok": False, "error": str(e)}


# ---------------------------------------------------------------------- summary

#: (key, label, format) of the compared metrics.
DUMBBELL_METRICS = [
    ("tfrc_kbps", "TFRC throughput per flow, mean (kb/s)", "{:.1f}"),
    ("tfrc_kbps_min", "TFRC throughput per flow, min (kb/s)", "{:.1f}"),
    ("tfrc_kbps_max", "TFRC throughput per flow, max (kb/s)", "{:.1f}"),
    ("tfrc_p", "TFRC loss event rate (mean reported p)", "{:.5f}"),
    ("tfrc_x_mean_kbps", "TFRC rate X, mean of the 0.5 s samples (kb/s)", "{:.1f}"),
    ("tfrc_x_cov", "TFRC rate X, coefficient of variation of the samples", "{:.3f}"),
    ("tfrc_x_startup_kbps", "TFRC rate X, mean of the samples in 0–10 s (kb/s)", "{:.1f}"),
    ("tcp_goodput_kbps", "TCP goodput per flow (kb/s)", "{:.1f}"),
]


def stats(vals: list[float]) -> dict[str, float] | None:
    """Mean, sd and n over the values that are neither None nor NaN."""
    return stat(vals, extremes=False, skip_nan=True)


def compare(a: dict[str, float] | None, b: dict[str, float] | None) -> tuple[str, str]:
    """(b − a in % of a, Welch z) as text (``ns2kit.compare``)."""
    d = ns2kit.compare(a, b)
    return pct_text(d.rel), z_text(d.z)


def tables(runs: list[dict[str, Any]], configs: list[Config], seeds: list[int]) -> tuple[str, dict[str, Any]]:
    lines: list[str] = []
    summary: dict[str, Any] = {}

    def of(sim: str, cfg: Config, key: str) -> dict[str, float] | None:
        return stats([r["metrics"].get(key) for r in runs
                      if r["ok"] and r["sim"] == sim and r["config"] == cfg.name])

    for cfg in [c for c in configs if c.mode == "dumbbell"]:
        kinds = f"{cfg.tfrc} TFRC" + (f" + {cfg.tcp} NewReno" if cfg.tcp else "")
        lines += [f"**{cfg.name}**: {kinds} flows, 4 Mb/s RED bottleneck, {cfg.warmup:g}–{cfg.duration:g} s; "
                  f"mean ± sd over seeds {seeds[0]}–{seeds[-1]}", "",
                  "| metric | ns-2.35 | afsim (ns2 preset) | afsim − ns-2 | z |", "|---|---:|---:|---:|---:|"]
        summary[cfg.name] = {}
        for key, label, f in DUMBBELL_METRICS:
            a, b = of("ns-2", cfg, key), of("afsim", cfg, key)
            if a is None and b is None:
                continue
            summary[cfg.name][key] = {"ns-2": a, "afsim": b}
            pct, z = compare(a, b)
            lines.append(f"| {label} | {fmt(a, f)} | {fmt(b, f)} | {pct} | {z} |")
        lines.append("")
    bern = [c for c in configs if c.mode == "bernoulli"]
    if bern:
        lines += [f"**Bernoulli loss**: one TFRC flow, base RTT 100 ms, measured from {bern[0].warmup:g} s to "
                  f"{', '.join(f'{c.duration:g}' for c in bern)} s (by p); "
                  f"mean ± sd over seeds {seeds[0]}–{seeds[-1]}", "",
                  "| p | ns-2 throughput (kb/s) | afsim ns2 (kb/s) | Δ | ns-2 mean p | afsim ns2 mean p | Δ "
                  "| afsim rfc X̄ (kb/s of s) | equation (kb/s) | Δ |",
                  "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
        for cfg in bern:
            tn, ta = of("ns-2", cfg, "tfrc_kbps"), of("afsim", cfg, "tfrc_kbps")
            pn, pa = of("ns-2", cfg, "tfrc_p"), of("afsim", cfg, "tfrc_p")
            rfc = [r["metrics"]["flows"][0] for r in runs
                   if r["ok"] and r["sim"] == "afsim-rfc" and r["config"] == cfg.name]
            xr = stats([f["x_kbps"] for f in rfc])
            eq = stats([equation_bps(SEGMENT, f["rtt_mean_s"], f["loss_events_per_packet"]) * 8e-3 for f in rfc])
            summary[cfg.name] = {"tfrc_kbps": {"ns-2": tn, "afsim": ta}, "tfrc_p": {"ns-2": pn, "afsim": pa},
                                 "rfc_x_kbps": xr, "rfc_equation_kbps": eq}
            lines.append(f"| {cfg.p:g} | {fmt(tn, '{:.1f}')} | {fmt(ta, '{:.1f}')} | {compare(tn, ta)[0]} "
                         f"| {fmt(pn, '{:.5f}')} | {fmt(pa, '{:.5f}')} | {compare(pn, pa)[0]} "
                         f"| {fmt(xr, '{:.1f}')} | {fmt(eq, '{:.1f}')} | {compare(eq, xr)[0]} |")
        lines.append("")
    return "\n".join(lines), summary


def figure(runs: list[dict[str, Any]], path: Path) -> None:
    """X over time of each TFRC flow of tfrc-2-tcp-2, seed 1, in both simulators."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    cfg = next(c for c in CONFIGS if c.name == "tfrc-2-tcp-2")
    t = samples(cfg)
    fig, axes = plt.subplots(cfg.tfrc, 1, figsize=(9, 2.6 * cfg.tfrc), sharex=True)
    for sim, style in (("ns-2", "-"), ("afsim", "--")):
        run = next((r for r in runs if r["ok"] and r["sim"] == sim and r["config"] == cfg.name and r["seed"] == 1), None)
        if run is None:
            continue
        for k, ax in enumerate(axes):
            ax.plot(t, run["metrics"]["flows"][k]["x"], style, lw=0.9, label=f"{sim}" + (" (ns2 preset)" if sim == "afsim" else ""))
            ax.set_ylabel(f"X, flow {k} (kb/s)")
    axes[0].legend(loc="upper right")
    axes[0].set_title("TFRC allowed rate X, sampled every 0.5 s: 2 TFRC + 2 NewReno, 4 Mb/s RED, seed 1")
    axes[-1].set_xlabel("time (s)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", type=int, default=5, help="seeds 1..N (default 5)")
    ap.add_argument("--configs", nargs="*", default=[c.name for c in CONFIGS], choices=[c.name for c in CONFIGS])
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--figure", type=Path, default=HERE / "tfrc-rate-trace.png",
                    help="where to draw the rate traces of tfrc-2-tcp-2, seed 1 (needs matplotlib)")
    args = ap.parse_args(argv)
    seeds = list(range(1, args.seeds + 1))
    configs = [c for c in CONFIGS if c.name in args.configs]
    jobs = [(sim, c, s) for c in configs for s in seeds
            for sim in (("ns-2", "afsim", "afsim-rfc") if c.mode == "bernoulli" else ("ns-2", "afsim"))]
    t0 = time.perf_counter()
    # every run is a process of its own (ns-2) or an afsim run that releases the GIL
    runs = run_all(lambda j: one(*j), jobs, args.jobs)
    wall = time.perf_counter() - t0
    text, summary = tables(runs, configs, seeds)
    if any(c.name == "tfrc-2-tcp-2" for c in configs) and 1 in seeds:
        figure(runs, args.figure)
    # the rate samples made the tables and the figure; the file keeps the per-run metrics
    for r in runs:
        for f in r.get("metrics", {}).get("flows", []):
            f.pop("x", None)
    args.out.write_text(json.dumps({"seeds": seeds, "wall_s": wall, "summary": summary, "runs": runs},
                                   indent=1) + "\n", encoding="utf-8")
    print(text)
    errors = [r for r in runs if not r["ok"]]
    for r in errors:
        print(f"FAILED {r['sim']} {r['config']} seed {r['seed']}: {r['error'].splitlines()[0]}", file=sys.stderr)
    print(f"{len(runs)} runs ({len(errors)} failed) in {wall:.1f} s wall", file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
