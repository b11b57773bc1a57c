"""Load and build time and peak memory of an access tree with one conditioner a sending host
(issue 28, fourth round: conditioners sized by the flows that pass them).

    PYTHONPATH=python python tools/scale_conditioners.py 10000

The tree is ``scenarios/scale/tcp-tree.toml`` at N flows with one token-bucket conditioner on
each of its N sending hosts (``at = "src"``, matching the flow group); it runs 1 ms of simulated
time. Prints the load time, the build time (``RunResult.build_seconds``) and the process's peak
RSS (``getrusage``), or the loader's error.
"""

from __future__ import annotations

import resource
import sys
import tempfile
import time
from pathlib import Path

import afsim

CONDITIONER = """
[[conditioner]]
name = "tb"
at = "src"
match = { flows = "tcp" }
meter = { kind = "token_bucket", rate = "1Mbps", depth = "30000B" }
green = "AF11"
yellow = "AF12"
"""


def main() -> int:
    n = int(sys.argv[1])
    tree = Path(afsim.__file__).parent / "scenarios" / "scale" / "tcp-tree.toml"
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "tree-conditioned.toml"
        path.write_text(tree.read_text() + CONDITIONER)
        overrides = {"flows": str(n), "access": str(max(1, n // 50)),
                     "agg": str(max(1, n // 1000)),
                     "start_step": f"{max(1, 1_000_000_000 // n)}ns", "duration": "0.001s"}
        t0 = time.perf_counter()
        try:
            scenario = afsim.load_scenario(path, overrides=overrides)
        except afsim.ScenarioError as e:
            print(f"flows {n}: refused: {e}")
            return 2
        load_s = time.perf_counter() - t0
        result = afsim._core.run(scenario)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"flows {n} (conditioners {n}): load {load_s:.3f} s, build {result.build_seconds:.3f} s, "
          f"peak RSS {peak:.1f} MiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
