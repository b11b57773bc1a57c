"""The CUBIC/BBR Assured Forwarding experiment (issue 26; docs/cc-af.md).

    python tools/cc_af.py [--seeds 3] [--duration 60s] [--out docs/cc-af]

Runs the built-in scenario ``cc/af-mix`` (Reno, CUBIC and BBR senders, a token bucket per
sender with the same contract, one RIO-C bottleneck of 10 Mb/s) over a grid of contract rates
and mixes of controllers, ``--seeds`` seeds each, and writes to ``--out``:

- ``runs.csv``: one row per (mix, contract, seed, flow): the flow's controller, throughput,
  green rate, Respect of Service (green rate ÷ contract, Giacomazzi et al. §V.B), excess over
  the contract, retransmissions, timeouts;
- ``summary.csv``: per (mix, contract, controller): mean and 95 % CI over seeds of the mean
  Respect of Service, of the throughput per sender, of the share of the bottleneck, and of
  FIEB (Leung & Muppala: Jain's index of the excesses) among the controller's senders and
  over all senders;
- ``report.md`` and ``ros.png``, ``share.png``: the tables and figures docs/cc-af.md shows.

With ``--linux-recovery`` every sender has RACK-TLP and PRR (``rack = true``, ``prr = true``),
Linux's loss recovery (docs/cc-af.md writes it to ``docs/cc-af/linux-recovery``).

Everything comes from afsim's reports (the flows table's ``respect_of_service``,
``excess_kbps``); FIEB and the confidence intervals from ``afsim.stats``. Deterministic: the
same arguments write the same files.
"""

from __future__ import annotations

import argparse
import csv
import math
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "python"))

import afsim  # noqa: E402
from afsim.stats import Stat, fieb  # noqa: E402

#: (reno, cubic, bbr) senders per mix.
MIXES = [(3, 3, 3), (6, 1, 1), (1, 6, 1), (1, 1, 6)]
#: each sender's contract (kb/s): with 9 senders on 10 Mb/s, 36 %, 72 % and 108 % subscribed.
CONTRACTS = [400, 800, 1200]
CCS = ("reno", "cubic", "bbr")
LINK_KBPS = 10_000.0


def linux_recovery(text: str) -> str:
    """cc/af-mix with RACK-TLP and PRR (``rack = true``, ``prr = true``) at every sender: Linux's
    loss recovery, off in the scenario (docs/scenario-format.md)."""
    anchor = 'start_step = "50ms"'
    assert text.count(anchor) == 3, "cc/af-mix: three flow tables with start_step expected"
    return text.replace(anchor, anchor + "\nrack = true\nprr = true")


def run_point(mix: tuple[int, int, int], contract: int, seed: int, duration: str,
              scenario: Path | None = None) -> list[dict]:
    over = {"n_reno": str(mix[0]), "n_cubic": str(mix[1]), "n_bbr": str(mix[2]),
            "contract": f"{contract}kbps", "duration": duration}
    scen = scenario or afsim.builtin_scenario("cc/af-mix")
    r = afsim.run(afsim.load_scenario(scen, overrides=over), seed=seed)
    rows = []
    for f in r.flows.itertuples():
        rows.append({
            "mix": "/".join(map(str, mix)), "contract_kbps": contract, "seed": seed,
            "flow": f.name, "cc": f.group, "throughput_kbps": f.throughput_kbps,
            "conformant_kbps": f.conformant_kbps, "respect_of_service": f.respect_of_service,
            "excess_kbps": f.excess_kbps, "retransmitted_packets": f.retransmitted_packets,
            "timeouts": f.timeouts,
        })
    return rows


def summarise(rows: list[dict]) -> list[dict]:
    out = []
    keys = sorted({(r["mix"], r["contract_kbps"]) for r in rows}, key=lambda k: (MIXES.index(
        tuple(map(int, k[0].split("/")))), k[1]))
    for mix, contract in keys:
        point = [r for r in rows if r["mix"] == mix and r["contract_kbps"] == contract]
        seeds = sorted({r["seed"] for r in point})
        for cc in CCS:
            per_seed: dict[str, list[float]] = {"ros": [], "tput": [], "share": [], "fieb_cc": [],
                                                 "fieb_all": [], "retx": [], "timeouts": []}
            for s in seeds:
                mine = [r for r in point if r["seed"] == s and r["cc"] == cc]
                every = [r for r in point if r["seed"] == s]
                if not mine:
                    continue
                per_seed["ros"].append(sum(r["respect_of_service"] for r in mine) / len(mine))
                per_seed["tput"].append(sum(r["throughput_kbps"] for r in mine) / len(mine))
                per_seed["share"].append(sum(r["throughput_kbps"] for r in mine)
                                         / sum(r["throughput_kbps"] for r in every))
                per_seed["retx"].append(sum(r["retransmitted_packets"] for r in mine) / len(mine))
                per_seed["timeouts"].append(sum(r["timeouts"] for r in mine) / len(mine))
                tp = [r["throughput_kbps"] for r in mine]
                per_seed["fieb_cc"].append(fieb(tp, [contract] * len(tp)) if len(tp) > 1 else math.nan)
                tp_all = [r["throughput_kbps"] for r in every]
                per_seed["fieb_all"].append(fieb(tp_all, [contract] * len(tp_all)))
            if not per_seed["ros"]:
                continue
            row = {"mix": mix, "contract_kbps": contract, "cc": cc,
                   "senders": len([r for r in point if r["seed"] == seeds[0] and r["cc"] == cc])}
            for k, xs in per_seed.items():
                st = Stat.of([x for x in xs if not math.isnan(x)])
                row[k] = st.mean
                row[k + "_ci95"] = st.ci95
            out.append(row)
    return out


def write_csv(path: Path, rows: list[dict]) -> None:
    with path.open("w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        for r in rows:
            w.writerow({k: (f"{v:.6g}" if isinstance(v, float) else v) for k, v in r.items()})


def figures(summary: list[dict], out: Path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    for key, label, name in (("ros", "mean Respect of Service", "ros.png"),
                             ("share", "share of the bottleneck", "share.png")):
        fig, axes = plt.subplots(1, len(MIXES), figsize=(13, 3.4), sharey=True)
        for ax, mix in zip(axes, MIXES):
            m = "/".join(map(str, mix))
            for cc, mk in zip(CCS, "osD"):
                pts = [r for r in summary if r["mix"] == m and r["cc"] == cc]
                ax.errorbar([r["contract_kbps"] for r in pts], [r[key] for r in pts],
                            yerr=[r[key + "_ci95"] for r in pts], marker=mk, capsize=3, label=cc)
            if key == "share":
                for n in mix:
                    ax.axhline(n / sum(mix), ls=":", lw=0.8, color="grey")
            ax.set_title(f"reno/cubic/bbr = {m}", fontsize=9)
            ax.set_xlabel("contract per sender (kb/s)")
        axes[0].set_ylabel(label)
        axes[0].legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(out / name, dpi=100)
        plt.close(fig)


def report(summary: list[dict], args: argparse.Namespace, out: Path) -> None:
    default = ROOT / "docs" / "cc-af"
    shown = out.resolve().relative_to(ROOT) if out.resolve().is_relative_to(ROOT) else out
    out_arg = "" if out.resolve() == default else f" --out {shown}"
    lines = [
        "# Reno, CUBIC and BBR under Assured Forwarding: results",
        "",
        f"Written by `python tools/cc_af.py --seeds {args.seeds} --duration {args.duration}"
        + (" --linux-recovery" if args.linux_recovery else "") + out_arg + "` "
        "(scenario `cc/af-mix`" + (", every sender with `rack = true` and `prr = true`"
                                   if args.linux_recovery else "")
        + "; docs/cc-af.md explains it). Mean ± 95 % CI over "
        f"{args.seeds} seeds; measured after the scenario's 10 s warm-up.",
        "",
        "| reno/cubic/bbr | contract (kb/s) | cc | senders | mean RoS | throughput per sender (kb/s) "
        "| share of the bottleneck | FIEB among them | FIEB, all senders | retransmissions per sender "
        "| timeouts per sender |",
        "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]

    def f(r: dict, k: str, d: int) -> str:
        m, c = r[k], r[k + "_ci95"]
        if m is None or (isinstance(m, float) and math.isnan(m)):
            return "–"
        return f"{m:.{d}f} ± {c:.{d}f}" if c == c else f"{m:.{d}f}"

    for r in summary:
        lines.append(f"| {r['mix']} | {r['contract_kbps']} | {r['cc']} | {r['senders']} | {f(r, 'ros', 3)} | "
                     f"{f(r, 'tput', 0)} | {f(r, 'share', 3)} | {f(r, 'fieb_cc', 3)} | "
                     f"{f(r, 'fieb_all', 3)} | {f(r, 'retx', 0)} | {f(r, 'timeouts', 1)} |")
    lines += ["", "![mean Respect of Service](ros.png)", "", "![share of the bottleneck](share.png)", ""]
    (out / "report.md").write_text("\n".join(lines))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--duration", default="60s")
    ap.add_argument("--linux-recovery", action="store_true",
                    help="every sender with RACK-TLP and PRR (rack = true, prr = true), as Linux's")
    ap.add_argument("--out", type=Path, default=ROOT / "docs" / "cc-af")
    args = ap.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    rows: list[dict] = []
    with tempfile.TemporaryDirectory() as tmp:
        scen = None
        if args.linux_recovery:
            scen = Path(tmp) / "af-mix-linux-recovery.toml"
            scen.write_text(linux_recovery(afsim.builtin_scenario("cc/af-mix").read_text()))
        for mix in MIXES:
            for contract in CONTRACTS:
                for seed in range(1, args.seeds + 1):
                    rows += run_point(mix, contract, seed, args.duration, scen)
                print(f"mix {mix} contract {contract} kb/s done", file=sys.stderr, flush=True)
    write_csv(args.out / "runs.csv", rows)
    summary = summarise(rows)
    write_csv(args.out / "summary.csv", summary)
    figures(summary, args.out)
    report(summary, args, args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
