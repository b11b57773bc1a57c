#!/usr/bin/env bash
# Instructions per packet-hop of one afsim build on one built-in scenario, counted by
# valgrind's cachegrind (deterministic: independent of machine load). The scenario runs twice,
# for SHORT and LONG simulated time (its `duration` parameter); the difference of the two
# instruction counts over the difference of their packet-hops leaves out Python's start-up,
# loading and report writing:
#   tools/instr_per_hop.sh VENV SCENARIO SHORT LONG [--set KEY=VALUE ...]
#   tools/instr_per_hop.sh /path/venv bench/tcp-dumbbell-10 1s 60s
#   tools/instr_per_hop.sh /path/venv bench/cubic-dumbbell-10 1s 60s --set cc=reno
set -euo pipefail
VENV=$1; SCEN=$2; SHORT=$3; LONG=$4; shift 4
tmp=$(mktemp -d)
for d in "$SHORT" "$LONG"; do
  valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null \
    "$VENV/bin/python" -m afsim run "$SCEN" --set "duration=$d" "$@" --format json \
    > "$tmp/$d.json" 2> "$tmp/$d.err"
done
python3 - "$tmp" "$SHORT" "$LONG" "$SCEN" <<'PY'
import json, re, sys
tmp, short, long_, scen = sys.argv[1:]
def read(d):
    refs = int(re.search(r"I\s+refs:\s+([\d,]+)", open(f"{tmp}/{d}.err").read()).group(1).replace(",", ""))
    hops = json.load(open(f"{tmp}/{d}.json"))["engine"]["packet_hops"]
    return refs, hops
(i0, h0), (i1, h1) = read(short), read(long_)
print(f"{scen}: {short}: {i0:,} instructions, {h0:,} hops; {long_}: {i1:,} instructions, {h1:,} hops; "
      f"{(i1 - i0) / (h1 - h0):.1f} instructions per packet-hop")
PY
rm -rf "$tmp"
