#!/usr/bin/env bash
# A/B speed comparison of two afsim builds as whole processes: `afsim bench` (full) run
# alternately A B A B ... ROUNDS times on the same machine; prints per-scenario medians of
# packet-hops per second and the ratio B/A.
#   tools/bench_ab.sh VENV_A VENV_B [ROUNDS] [OUTDIR]
set -euo pipefail
A=$1; B=$2; ROUNDS=${3:-6}; OUT=${4:-$(mktemp -d)}
mkdir -p "$OUT"
uptime > "$OUT/uptime-before"
for i in $(seq 1 "$ROUNDS"); do
  "$A/bin/afsim" bench --format json > "$OUT/a$i.json"
  "$B/bin/afsim" bench --format json > "$OUT/b$i.json"
done
uptime > "$OUT/uptime-after"
python3 - "$OUT" "$ROUNDS" <<'PY'
import json, statistics, sys
out, n = sys.argv[1], int(sys.argv[2])
def load(tag):
    rows = {}
    for i in range(1, n + 1):
        for r in json.load(open(f"{out}/{tag}{i}.json"))["rows"]:
            rows.setdefault(r["name"], []).append(r["packet_hops_per_s"] / 1e6)
    return rows
a, b = load("a"), load("b")
print(f"{'scenario':<20} {'A Mhops/s (median, min-max)':<30} {'B Mhops/s (median, min-max)':<30} B/A")
for name in a:
    ma, mb = statistics.median(a[name]), statistics.median(b[name])
    fa = f"{ma:.2f} ({min(a[name]):.2f}-{max(a[name]):.2f})"
    fb = f"{mb:.2f} ({min(b[name]):.2f}-{max(b[name]):.2f})"
    print(f"{name:<20} {fa:<30} {fb:<30} {mb / ma:.3f}")
print("load:", open(f"{out}/uptime-before").read().strip(), "|", open(f"{out}/uptime-after").read().strip())
PY
