"""Why `afsim live` drops 26 % more at the dumbbell's RED queue than `afsim run` (docs/validation.md,
"afsim live against afsim run"): RED's average at each arrival, live and simulated.

    sudo python validation/live/red_trace.py [--runs 2] [--seeds 3] [--out validation/live/red-trace-tcp-dumbbell-10.json]

Live: `afsim live tcp-dumbbell-10 --cc reno --queue-trace` gives, for every arrival at the
bottleneck r1->r2, the instantaneous queue, RED's average after the arrival and its fate. The
simulator has no queue trace, so its queue is *reconstructed* from captures: the packets leaving
every src_i->r1 port (they reach r1 one transmission at 100 Mb/s and 1 ms later) are the
bottleneck's arrivals, those leaving r1->r2 its departures; the queue is FIFO, so an arrival is
accepted iff it is the next packet to depart (matched by flow and sequence number), the queue an
arrival finds is the accepted arrivals before it less the departures begun before it, and RED's
average is rebuilt from those lengths with the scenario's w_q and ns-2's idle decay. The same
reconstruction is run on the live run's own captures and checked against its trace (its error is
printed), so that the simulated average is read with a known error.

What is compared, per run: arrivals, early drops, the queue's time average (the report's
mean_len_packets), the queue an arrival finds (its mean over arrivals), RED's average at the
arrivals (mean; and mean of max(0, avg − min_th), to which RED's drop probability is
proportional), and the drops per arrival.
"""

from __future__ import annotations

import argparse
import csv
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python"))

from afsim.live.tcptrace import records

SCENARIO = ROOT / "scenarios/validation/tcp-dumbbell-10.toml"
N = 10
MIN_TH, MAX_TH, MAX_P, W_Q = 50.0, 150.0, 0.1, 0.002
#: ns-2's idle decay: the idle time in transmissions of a 500 B packet at 10 Mb/s
IDLE_PKT_S = 500 * 8 / 10e6
ACCESS_RATE, ACCESS_DELAY = 100e6, 1e-3
#: The bottleneck's limit (packets): the most an arrival can wait behind.
LIMIT = 500
#: How far ahead (in departures) an arrival's match may lie (see ``reconstruct``).
MATCH_WINDOW = 8


def afsim(*args: str) -> dict:
    p = subprocess.run([sys.executable, "-m", "afsim", *args, "--format", "json"],
                       capture_output=True, text=True, timeout=1200, cwd=ROOT)
    if p.returncode != 0:
        raise SystemExit(f"afsim {' '.join(args)} failed: {p.stderr}")
    return json.loads(p.stdout)


def captures(out: Path) -> list[str]:
    args = []
    for i in range(N):
        args += ["--capture", f"src{i}->r1={out / f'src{i}.pcap'}"]
    return [*args, "--capture", f"r1->r2={out / 'r1-r2.pcap'}"]


def _key(ip: bytes, live: bool) -> tuple:
    """A packet's identity across ports: live, source address and IP ID (Linux numbers every
    packet of a connection); simulated (IP ID 0), the TCP source port and sequence number."""
    ihl = (ip[0] & 0x0F) * 4
    if live:
        return (ip[12:16], ip[4:6], ip[ihl + 4:ihl + 8])
    return (ip[ihl:ihl + 2], ip[ihl + 4:ihl + 8], ip[ihl + 13])


def reconstruct(d: Path, live: bool) -> list[tuple[float, int, float, bool]]:
    """(time, queue found, RED average after, accepted) per arrival at r1->r2."""
    arr = []
    for i in range(N):
        for t, ip in records(d / f"src{i}.pcap"):
            size = int.from_bytes(ip[2:4], "big")
            arr.append((t + size * 8 / ACCESS_RATE + ACCESS_DELAY, _key(ip, live)))
    arr.sort(key=lambda x: x[0])
    dep = [(t, _key(ip, live)) for t, ip in records(d / "r1-r2.pcap")]
    # what arrived near the end has no known fate (still queued when the run ended): only the
    # arrivals before the queue's limit's worth of departures from the end are kept
    arr = [a for a in arr if len(dep) > LIMIT and a[0] <= dep[-LIMIT - 1][0]]
    by_key: dict[tuple, list[int]] = {}
    for idx, (_t, key) in enumerate(dep):
        by_key.setdefault(key, []).append(idx)
    used = [False] * len(dep)
    out = []
    j = 0  # the first departure not yet matched
    accepted = 0
    k = 0  # departures begun before the arrival
    avg = 0.0
    idle_since = None
    for t, key in arr:
        while k < len(dep) and dep[k][0] <= t:
            k += 1
            if k == accepted:
                idle_since = dep[k - 1][0] + 1040 * 8 / 10e6  # the queue emptied (approx.)
        q = accepted - k
        if q == 0 and idle_since is not None and t > idle_since:
            avg *= (1 - W_Q) ** ((t - idle_since) / IDLE_PKT_S)
        avg = (1 - W_Q) * avg + W_Q * q
        # FIFO: an accepted arrival is the next to depart; arrivals a few microseconds apart
        # may be reconstructed in either order, so the match may lie a few departures ahead
        ok = False
        for idx in by_key.get(key, ()):
            if j <= idx < j + MATCH_WINDOW and not used[idx] and dep[idx][0] >= t - 1e-5:
                used[idx] = ok = True
                break
        if ok:
            while j < len(dep) and used[j]:
                j += 1
            accepted += 1
            idle_since = None
        out.append((t, q, avg, ok))
    return out


def red_numbers(rows: list[tuple[float, int, float, bool]], time_mean_queue: float) -> dict:
    n = len(rows)
    drops = sum(1 for r in rows if not r[3])
    excess = [max(0.0, r[2] - MIN_TH) for r in rows]
    return {
        "arrivals": n, "drops": drops, "drops_per_arrival": drops / n,
        "queue_time_mean": time_mean_queue,
        "queue_found_mean": sum(r[1] for r in rows) / n,
        "avg_mean": sum(r[2] for r in rows) / n,
        "avg_excess_mean": sum(excess) / n,
        "p_b_mean": MAX_P * sum(excess) / n / (MAX_TH - MIN_TH),
        "avg_above_max_th": sum(1 for r in rows if r[2] >= MAX_TH) / n,
    }


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=2)
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--out", type=Path, default=ROOT / "validation/live/red-trace-tcp-dumbbell-10.json")
    args = ap.parse_args()
    import os

    doc: dict = {"scenario": str(SCENARIO.relative_to(ROOT)), "live": [], "sim": []}
    for _ in range(args.runs):
        with tempfile.TemporaryDirectory() as tmp:
            d = Path(tmp)
            load = os.getloadavg()
            s = afsim("live", str(SCENARIO), "--cc", "reno", "--queue-trace", "--out", str(d),
                      *captures(d))
            q = next(x for x in s["queues"] if x["name"] == "r1->r2")
            with open(d / "queue-trace.csv", newline="") as f:
                trace = [(float(x["time_s"]), int(x["len_packets"]), float(x["avg"]),
                          x["fate"] == "queued") for x in csv.DictReader(f) if x["queue"] == "r1->r2"]
            # the trace's length is after the arrival; the queue found is one less if it stayed
            found = [(t, n - (1 if ok else 0), a, ok) for t, n, a, ok in trace]
            rec = reconstruct(d, live=True)
            found = found[:len(rec)]  # the same arrivals (the reconstruction's cut at the end)
            # the reconstruction against the trace: arrival by arrival (same order, same fate)
            same = min(len(rec), len(found))
            err_avg = max(abs(rec[i][2] - found[i][2]) for i in range(same))
            err_q = sum(abs(rec[i][1] - found[i][1]) for i in range(same)) / same
            fate = sum(1 for i in range(same) if rec[i][3] != found[i][3])
            row = {"load_before": load, "warnings": s["warnings"],
                   "early_drops": q["drops"]["early"], "overflow_drops": q["drops"]["overflow"],
                   "trace": red_numbers(found, q["mean_len_packets"]),
                   "reconstructed": red_numbers(rec, q["mean_len_packets"]),
                   "check": {"arrivals_trace": len(found), "arrivals_reconstructed": len(rec),
                             "max_avg_error": err_avg, "mean_queue_error": err_q,
                             "fates_differing": fate}}
            doc["live"].append(row)
            print("live", json.dumps(row), flush=True)
    for seed in range(1, args.seeds + 1):
        with tempfile.TemporaryDirectory() as tmp:
            d = Path(tmp)
            s = afsim("run", str(SCENARIO), "--seed", str(seed), *captures(d))
            q = next(x for x in s["queues"] if x["name"] == "r1->r2")
            rec = reconstruct(d, live=False)
            row = {"seed": seed, "early_drops": q["drops"]["early"],
                   "overflow_drops": q["drops"]["overflow"], "arrivals": q["arrivals"],
                   "reconstructed": red_numbers(rec, q["mean_len_packets"])}
            doc["sim"].append(row)
            print("sim ", json.dumps(row), flush=True)
    args.out.write_text(json.dumps(doc, indent=1) + "\n")

    def mean(rows: list, path: tuple) -> str:
        xs = []
        for r in rows:
            x = r
            for p in path:
                x = x[p]
            xs.append(x)
        m = sum(xs) / len(xs)
        return f"{m:,.4g} [{min(xs):,.4g}–{max(xs):,.4g}]"

    print(f"\n{'':26} {'live, trace':>28} {'live, reconstructed':>28} {'sim, reconstructed':>28}")
    for k in ("arrivals", "drops", "drops_per_arrival", "queue_time_mean", "queue_found_mean",
              "avg_mean", "avg_excess_mean", "p_b_mean", "avg_above_max_th"):
        print(f"{k:26} {mean(doc['live'], ('trace', k)):>28} "
              f"{mean(doc['live'], ('reconstructed', k)):>28} {mean(doc['sim'], ('reconstructed', k)):>28}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
