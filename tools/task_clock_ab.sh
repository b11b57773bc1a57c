#!/usr/bin/env bash
# CPU time (perf's task-clock, ms) of whole `run_file` processes of several afsim-core builds on
# the scale dumbbell, single runs in turn (A B C, A B C, ...) ROUNDS times, so that the machine's
# drift falls on every build alike; prints per build the minimum, the first quartile and the
# median (issue 28: a few per cent between builds, on a 2-core machine shared with other work).
#
#   tools/task_clock_ab.sh FLOWS ROUNDS RUN_FILE...
#   e.g. tools/task_clock_ab.sh 2000 21 /tmp/run_file_old target/release/examples/run_file
#
# A RUN_FILE written `htsim:PATH` is htsim's dumbbell instead (validation/htsim/dumbbell.cpp
# built as validation/htsim/run.sh does), run as `PATH FLOWS`: the same network, measured in
# the same turns (issue 28's "3× htsim at 2,000 flows").
#
# Each run: `perf stat -x, -e task-clock RUN_FILE python/afsim/scenarios/scale/tcp-dumbbell.toml
# flows=FLOWS start_step=<1 s / FLOWS>`.
set -euo pipefail
flows=$1; rounds=$2; shift 2
file="$(dirname "$0")/../python/afsim/scenarios/scale/tcp-dumbbell.toml"
step="$((1000000000 / flows))ns"
declare -A times
for _ in $(seq 1 "$rounds"); do
  for bin in "$@"; do
    if [[ $bin == htsim:* ]]; then
      cmd=("${bin#htsim:}" "$flows")
    else
      cmd=("$bin" "$file" "flows=$flows" "start_step=$step")
    fi
    t=$(perf stat -x, -e task-clock "${cmd[@]}" 2>&1 >/dev/null | grep task-clock | cut -d, -f1)
    times[$bin]="${times[$bin]:-} $t"
  done
done
for bin in "$@"; do
  echo "$bin: $(echo ${times[$bin]} | tr ' ' '\n' | sort -n | awk '{a[NR]=$1} END {
    printf "min %.1f  q1 %.1f  median %.1f ms (n=%d)", a[1], a[int(NR/4)+1], a[int((NR+1)/2)], NR}')"
done
