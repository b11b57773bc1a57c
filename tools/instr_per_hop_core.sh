#!/usr/bin/env bash
# Instructions per packet-hop of one afsim-core build (its `run_file` example, no Python) on
# one scenario file, counted by valgrind's cachegrind (deterministic: independent of machine
# load). As tools/instr_per_hop.sh, the file runs for SHORT and LONG simulated time (its
# `duration` parameter) and the difference of the instruction counts over the difference of
# the packet-hops leaves out start-up and loading. For comparing builds of other commits
# without a venv each:
#   git archive COMMIT | tar -x -C DIR
#   (cd DIR && cargo build --release -p afsim-core --example run_file)
#   tools/instr_per_hop_core.sh DIR/target/release/examples/run_file FILE.toml 1s 10s [KEY=VALUE...]
# (KEY=VALUE: more parameter overrides, e.g. cc=reno)
set -euo pipefail
BIN=$1; FILE=$2; SHORT=$3; LONG=$4; shift 4
tmp=$(mktemp -d)
for d in "$SHORT" "$LONG"; do
  valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null \
    "$BIN" "$FILE" "duration=$d" "$@" > "$tmp/$d.out" 2> "$tmp/$d.err"
done
python3 - "$tmp" "$SHORT" "$LONG" "$FILE" <<'PY'
import re, sys
tmp, short, long_, f = sys.argv[1:]
def read(d):
    refs = int(re.search(r"I\s+refs:\s+([\d,]+)", open(f"{tmp}/{d}.err").read()).group(1).replace(",", ""))
    hops = int(re.search(r"([\d]+) packet-hops", open(f"{tmp}/{d}.out").read()).group(1))
    return refs, hops
(i0, h0), (i1, h1) = read(short), read(long_)
print(f"{f}: {short}: {i0:,} instructions, {h0:,} hops; {long_}: {i1:,} instructions, {h1:,} hops; "
      f"{(i1 - i0) / (h1 - h0):.1f} instructions per packet-hop")
PY
rm -rf "$tmp"
