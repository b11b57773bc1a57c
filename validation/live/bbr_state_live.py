"""Linux BBR's own estimates during a live run of the four-flow BBR dumbbell: every 0.25 s,
`ss -tin` in each sender's namespace (the run's own, found by their names as they appear;
read only), parsed for BBR's bandwidth estimate (`bbr:(bw:…)`), its min_rtt (`mrtt`), its
gains, and cwnd (docs/validation.md, "BBR with four flows: why Linux's queue is fuller").

    sudo python validation/live/bbr_state_live.py [--duration 30s] [--out validation/live/bbr-state-live.json]
    sudo python validation/live/bbr_state_live.py --af [--out validation/live/bbr-state-live-af.json]
    sudo python validation/live/bbr_state_live.py --af --data --repeats 5   # bbr-state-live-af-data.json

--data: cc/af-mix as it is (each token bucket on its sender's input line: data only) instead of
its conditioner of before issue 26's fix; --repeats N: N live runs, each one's result in
"runs", with each flow's share of the samples at each pacing gain ("gain_share": Linux BBR
paces with gain 1 throughout ProbeBW while it uses its long-term, policed, rate `lt_bw`).

Per flow, over the measured interval (after 5 s; --af: the AF network cc/af-mix, its three BBR
senders bbr0..bbr2, 40 s, after 10 s): the median of each; and their sum of the bandwidth
estimates.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCEN = ROOT / "scenarios" / "examples" / "cc-dumbbell.toml"
NS_RE = re.compile(r"^(afl[0-9a-f]{6}-)(src0|bbr0)\b")
BBR_RE = re.compile(r"bbr:\(bw:([\d.]+)([KMG]?)bps,mrtt:([\d.]+)(?:,pacing_gain:([\d.]+))?(?:,cwnd_gain:([\d.]+))?")
CWND_RE = re.compile(r"\bcwnd:(\d+)")
UNIT = {"": 1e-6, "K": 1e-3, "M": 1.0, "G": 1e3}


def namespaces() -> set[str]:
    out = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    return {line.split()[0] for line in out.splitlines() if line.strip()}


def sample(ns: str) -> dict | None:
    out = subprocess.run(["ip", "netns", "exec", ns, "ss", "-tin", "state", "established"],
                         capture_output=True, text=True).stdout
    m, c = BBR_RE.search(out), CWND_RE.search(out)
    if not m:
        return None
    return {"bw_mbps": float(m.group(1)) * UNIT[m.group(2)], "mrtt_ms": float(m.group(3)),
            "pacing_gain": float(m.group(4) or "nan"), "cwnd_gain": float(m.group(5) or "nan"),
            "cwnd": int(c.group(1)) if c else None}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--duration", default=None)
    ap.add_argument("--af", action="store_true", help="the AF network (cc/af-mix) instead of the dumbbell")
    ap.add_argument("--data", action="store_true", help="with --af: the scenario as it is (data metered)")
    ap.add_argument("--repeats", type=int, default=1, help="live runs (more than 1: a list of runs)")
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args()
    if args.af:
        import afsim

        sys.path.insert(0, str(Path(__file__).resolve().parent))
        import tempfile

        from af_mix_variants import ack_metered

        hosts, warm = ["bbr0", "bbr1", "bbr2"], 10.0
        sets = ["--set", f"duration={args.duration or '40s'}"]
        if args.data:
            scen = Path(afsim.builtin_scenario("cc/af-mix"))
            name, out_default = "cc/af-mix (data metered)", "bbr-state-live-af-data.json"
        else:
            # the conditioner of before issue 26's fix (ACKs metered too), as bbr-state-live-af.json
            scen = Path(tempfile.mkdtemp()) / "af-mix-ack-metered.toml"
            scen.write_text(ack_metered(Path(afsim.builtin_scenario("cc/af-mix")).read_text()))
            name = "cc/af-mix (ACKs metered, before issue 26's fix)"
            out_default = "bbr-state-live-af.json"
    else:
        scen, hosts, warm = SCEN, ["src0", "src1", "src2", "src3"], 5.0
        name = str(SCEN.relative_to(ROOT))
        sets = ["--set", "cc=bbr", "--set", "n=4", "--set", f"duration={args.duration or '30s'}", "--cc", "bbr"]
        out_default = "bbr-state-live.json"
    args.out = args.out or ROOT / "validation" / "live" / out_default
    runs = [live_once(scen, name, hosts, warm, sets) for _ in range(args.repeats)]
    res = runs[0] if args.repeats == 1 else {"scenario": name, "runs": runs}
    args.out.write_text(json.dumps(res, indent=1) + "\n")
    for r in runs:
        print(json.dumps({k: v for k, v in r.items() if k != "series"}, indent=1))
    return 0


def gain_share(pts: list[dict]) -> dict:
    """The share of the samples at each pacing gain."""
    n = len(pts)
    out: dict[str, float] = {}
    for p in pts:
        k = format(p["pacing_gain"], "g")
        out[k] = out.get(k, 0.0) + 1 / n
    return out


def live_once(scen: Path, name: str, hosts: list[str], warm: float, sets: list[str]) -> dict:
    before = namespaces()
    load0 = os.getloadavg()
    run = subprocess.Popen([sys.executable, "-m", "afsim", "live", str(scen), *sets, "--format", "json"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    prefix = None
    while prefix is None and run.poll() is None:
        for n in namespaces() - before:
            m = NS_RE.match(n)
            if m:
                prefix = m.group(1)
        time.sleep(0.02)
    t0 = time.monotonic()
    series: dict[int, list] = {k: [] for k in range(len(hosts))}

    def poll() -> None:
        while run.poll() is None:
            t = time.monotonic() - t0
            for k, h in enumerate(hosts):
                s = sample(f"{prefix}{h}")
                if s:
                    series[k].append({"t": round(t, 3), **s})
            time.sleep(0.25)

    th = threading.Thread(target=poll, daemon=True)
    th.start()
    out, err = run.communicate()
    th.join(timeout=5)
    if run.returncode != 0:
        raise SystemExit(f"afsim live failed: {err}")
    s = json.loads(out)
    q = next(q for q in s["queues"] if q["name"] in ("r1->r2", "edge->core"))
    per_flow = []
    for k in range(len(hosts)):
        pts = [p for p in series[k] if p["t"] >= warm]
        per_flow.append({**{key: statistics.median(p[key] for p in pts if p[key] == p[key])
                            for key in ("bw_mbps", "mrtt_ms", "cwnd")}, "gain_share": gain_share(pts)}
                        if pts else {})
    res = {"scenario": name, "hosts": hosts, "sets": sets, "load_before": load0,
           "load_after": os.getloadavg(), "forwarder_realtime": s["live"]["forwarder"]["realtime"],
           "mean_queue_pkt": q["mean_len_packets"], "per_flow_median": per_flow,
           "sum_bw_mbps": sum(f.get("bw_mbps", 0) for f in per_flow),
           "flows": [{k: f[k] for k in ("name", "throughput_kbps", "respect_of_service", "retransmitted_packets")}
                     for f in s["flows"]],
           "series": series}
    return res


if __name__ == "__main__":
    raise SystemExit(main())
