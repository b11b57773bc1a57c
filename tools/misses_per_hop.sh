#!/usr/bin/env bash
# Cache misses per packet-hop of one afsim-core build (its `run_file` example, no Python) on one
# scenario file, counted by valgrind's cachegrind with its cache simulation (deterministic:
# independent of machine load and of other processes' use of the caches). As
# tools/instr_per_hop_core.sh, the file runs for SHORT and LONG simulated time (its `duration`
# parameter), and each count's difference over the difference of the packet-hops leaves out
# start-up, loading, building and the report (issue 28, branch scale7).
#
# The simulated caches are this project's machine's: a first-level data cache of 64 KiB, 8-way,
# 64-byte lines (`--D1`), and as the last level the 1 MiB, 16-way second-level cache of one core
# (`--LL`; the 32 MiB third level is shared by every core and process on the machine).
# Override them with D1=size,assoc,line and LL=size,assoc,line in the environment.
#
#   tools/misses_per_hop.sh RUN_FILE FILE.toml SHORT LONG [KEY=VALUE...]
#   e.g. tools/misses_per_hop.sh target/release/examples/run_file \
#          python/afsim/scenarios/scale/tcp-dumbbell.toml 5s 20s flows=2000 start_step=500000ns
#
# Prints one line: instructions, data references, D1 data misses and LL data misses (reads
# and writes) per packet-hop, and the two runs' totals.
set -euo pipefail
BIN=$1; FILE=$2; SHORT=$3; LONG=$4; shift 4
D1=${D1:-65536,8,64}
LL=${LL:-1048576,16,64}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for d in "$SHORT" "$LONG"; do
  valgrind --tool=cachegrind --cache-sim=yes "--D1=$D1" "--LL=$LL" \
    --cachegrind-out-file=/dev/null \
    "$BIN" "$FILE" "duration=$d" "$@" > "$tmp/$d.out" 2> "$tmp/$d.err"
done
python3 - "$tmp" "$SHORT" "$LONG" "$FILE" "$*" <<'PY'
import re, sys
tmp, short, long_, f, extra = sys.argv[1:]
def count(text, name):
    # cachegrind's summary: "==pid== D1  misses:  1,234  ( 1,000 rd + 234 wr)"
    m = re.search(name + r":\s+([\d,]+)", text)
    return int(m.group(1).replace(",", ""))
def read(d):
    err = open(f"{tmp}/{d}.err").read()
    hops = int(re.search(r"([\d]+) packet-hops", open(f"{tmp}/{d}.out").read()).group(1))
    return hops, {k: count(err, p) for k, p in
                  (("instr", r"I\s+refs"), ("drefs", r"D\s+refs"),
                   ("d1", r"D1\s+misses"), ("lld", r"LLd\s+misses"))}
(h0, c0), (h1, c1) = read(short), read(long_)
# (a count that differs by a few misses between the two runs is 0 per hop, not "-0.00")
per = {k: max((c1[k] - c0[k]) / (h1 - h0), 0.0) if c1[k] >= c0[k] or (c0[k] - c1[k]) < (h1 - h0) / 200
       else (c1[k] - c0[k]) / (h1 - h0) for k in c0}
print(f"{f} {extra}: {short}: {h0:,} hops; {long_}: {h1:,} hops; per packet-hop: "
      f"{per['instr']:.1f} instructions, {per['drefs']:.1f} data refs, "
      f"{per['d1']:.2f} D1 misses, {per['lld']:.2f} LL misses")
PY
