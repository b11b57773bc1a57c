#!/usr/bin/env python3
"""Where one `afsim run --format json` of the scale dumbbell spends its time (issue 28).

    PYTHONPATH=python python tools/run_phases.py FLOWS [--load-only]

Times, in this process, what `afsim run python/afsim/scenarios/scale/tcp-dumbbell.toml --set
flows=FLOWS --set start_step=<1 s / FLOWS> --format json` does: importing the command line
(`afsim.cli`), loading the scenario, building the world, running it, assembling the report (the
last three as the compiled run reports them) and writing the JSON report (to /dev/null, streamed
as `afsim run` writes it). The interpreter's own start and exit are outside: time the whole
process with /usr/bin/time beside it. With --load-only, only the import and the load.
"""

from __future__ import annotations

import argparse
import os
import time


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("flows", type=int)
    parser.add_argument("--load-only", action="store_true")
    args = parser.parse_args()
    t0 = time.perf_counter()
    import afsim
    import afsim.cli  # what `afsim run` imports
    from afsim.output import write_chunks

    t1 = time.perf_counter()
    n = args.flows
    scenario = afsim.load_scenario(afsim.builtin_scenario("scale/tcp-dumbbell"),
                                   overrides={"flows": str(n), "start_step": f"{1e9 / n:.0f}ns"})
    t2 = time.perf_counter()
    out = f"flows {n}: import {t1 - t0:.3f} s, load {t2 - t1:.3f} s"
    if not args.load_only:
        raw = afsim._core.run(scenario)
        t3 = time.perf_counter()
        with open(os.devnull, "w", encoding="utf-8") as devnull:
            write_chunks(devnull, lambda sink: (raw.write_summary(sink), sink(b"\n")))
        t4 = time.perf_counter()
        run_s = raw.wall_seconds - raw.build_seconds - raw.report_seconds
        out += (f", build {raw.build_seconds:.3f} s, run {run_s:.3f} s, "
                f"report {raw.report_seconds:.3f} s, JSON {t4 - t3:.3f} s")
    print(out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
