#!/bin/sh
# Builds csg-htsim (Broadcom/csg-htsim, its own Makefile and flags: g++ -O3 -std=c++11) and
# this directory's dumbbell.cpp against it, then runs the dumbbell at each flow count under
# /usr/bin/time (whole process: wall time and peak RSS). compare.sh runs afsim beside it.
#
#   validation/htsim/run.sh HTSIM_SIM_DIR [FLOWS...]
#
# HTSIM_SIM_DIR is the `sim` directory of a csg-htsim checkout (git clone
# https://github.com/Broadcom/csg-htsim; this comparison used commit 841d9e7). No htsim code is
# copied here: dumbbell.cpp only calls it.
set -eu
sim=$1; shift
here=$(cd "$(dirname "$0")" && pwd)
[ -f "$sim/libhtsim.a" ] || make -C "$sim" libhtsim.a
g++ -O3 -std=c++11 -I"$sim" "$here/dumbbell.cpp" "$sim/libhtsim.a" -o "$here/dumbbell"
[ $# -gt 0 ] || set -- 100 1000 2000 10000
out=$(mktemp)
for n in "$@"; do
  # (htsim's TcpSrc prints a line at each timeout: kept out of the terminal, the last line shown)
  /usr/bin/time -f "htsim flows $n: %e s wall, %M KiB peak RSS" "$here/dumbbell" "$n" > "$out"
  tail -n 1 "$out"
done
rm -f "$out"
