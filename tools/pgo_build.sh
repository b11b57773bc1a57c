#!/usr/bin/env bash
# A profile-guided build of afsim-core's `run_file` runner, to measure what profile-guided
# optimisation would give (issue 28, docs/performance.md, "Eleventh round"). Not the project's
# build: `pip install .` and `cargo build --release` stay single-pass (a second, instrumented
# pass and a training run would double every install's build time, and a profile file is tied
# to the compiler's LLVM version and goes stale as the code changes).
#
#   tools/pgo_build.sh OUT_DIR
#
# 1. builds `run_file` with `-Cprofile-generate` (target directory OUT_DIR/gen);
# 2. runs it on every scenario of python/afsim/scenarios/bench, the default scenario, and the
#    scale dumbbell and tree at 1,000 flows (the training runs: the bench's kinds of network,
#    not the 2,000-flow case it is measured on);
# 3. merges the profiles with the toolchain's llvm-profdata (`rustup component add
#    llvm-tools`), and
# 4. builds `run_file` again with `-Cprofile-use` (OUT_DIR/use); copies it to OUT_DIR/run_file.
#
# Compare it with the ordinary build by tools/task_clock_ab.sh and tools/misses_per_hop.sh.
set -euo pipefail
out=$(mkdir -p "$1" && cd "$1" && pwd)
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
sysroot=$(rustc --print sysroot)
host=$(rustc -vV | sed -n 's/^host: //p')
profdata="$sysroot/lib/rustlib/$host/bin/llvm-profdata"
if [ ! -x "$profdata" ]; then
  rustup component add llvm-tools >/dev/null
fi
rm -rf "$out/profiles"
mkdir -p "$out/profiles"
RUSTFLAGS="-Cprofile-generate=$out/profiles" CARGO_TARGET_DIR="$out/gen" \
  cargo build --release -q -p afsim-core --example run_file
# (the build's own scripts and proc-macros, instrumented too, wrote profiles while compiling)
rm -f "$out"/profiles/*.profraw
gen="$out/gen/release/examples/run_file"
for f in python/afsim/scenarios/bench/*.toml python/afsim/scenarios/default.toml; do
  "$gen" "$f" > /dev/null
done
"$gen" python/afsim/scenarios/scale/tcp-dumbbell.toml flows=1000 start_step=1ms > /dev/null
"$gen" python/afsim/scenarios/scale/tcp-tree.toml flows=1000 > /dev/null
"$profdata" merge -o "$out/merged.profdata" "$out"/profiles/*.profraw
RUSTFLAGS="-Cprofile-use=$out/merged.profdata" CARGO_TARGET_DIR="$out/use" \
  cargo build --release -q -p afsim-core --example run_file
cp "$out/use/release/examples/run_file" "$out/run_file"
echo "$out/run_file"
