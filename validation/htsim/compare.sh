#!/bin/sh
# Whole-process wall time and peak RSS of htsim's dumbbell (run.sh) and afsim's
# scale/tcp-dumbbell at the same flow counts, alternately, each under /usr/bin/time.
#
#   validation/htsim/compare.sh HTSIM_SIM_DIR [FLOWS...]      (from the repository root)
#
# afsim is run as `python -m afsim run ... --format json` (the report printed, then discarded),
# with the Python in $PYTHON (default python3) and the package on its path.
set -eu
sim=$1; shift
[ $# -gt 0 ] || set -- 100 1000 2000 10000
here=$(cd "$(dirname "$0")" && pwd)
py=${PYTHON:-python3}
"$here/run.sh" "$sim" 1 > /dev/null   # builds
for n in "$@"; do
  "$here/run.sh" "$sim" "$n"
  step=$((1000000000 / n))
  /usr/bin/time -f "afsim flows $n: %e s wall, %M KiB peak RSS" \
    "$py" -m afsim run python/afsim/scenarios/scale/tcp-dumbbell.toml \
    --set flows="$n" --set start_step="${step}ns" --format json > /dev/null
done
