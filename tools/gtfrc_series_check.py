"""Checks the gTFRC reproduction's time series read from one run (issue 27) against the runs
stopped at every bin's end that docs/reproductions/gtfrc/results.json committed: for every run
of a *_t experiment in a new results.json, each bin value ``NAME.rate_kbps@T`` /
``NAME.cum_kbps@T`` against the committed run of the same scenario, overrides and seed stopped
at T. Prints how many values were compared and the largest relative difference.

    afsim reproduce gtfrc --quick --only two_tfrc_t --only tfrc_tcp_t --only two_tcp_t \\
        --only tcp_4_tfrc_t --only tfrc_4_tcp_t --no-variants --no-robustness --no-store \\
        --out /tmp/gtfrc-quick
    python tools/gtfrc_series_check.py /tmp/gtfrc-quick/results.json
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

COMMITTED = Path(__file__).resolve().parents[1] / "docs" / "reproductions" / "gtfrc" / "results.json"


def _key(run: dict) -> tuple:
    ov = {k: v for k, v in run["overrides"].items() if k not in ("duration", "warmup")}
    return run["scenario"], tuple(sorted(ov.items())), run["seed"]


def _series(runs: list[dict]) -> list[dict]:
    return [r for r in runs if r["used_by"] and all("_t[" in u for u in r["used_by"])]


def main(argv: list[str]) -> int:
    new = json.loads(Path(argv[1]).read_text(encoding="utf-8"))
    old = json.loads(COMMITTED.read_text(encoding="utf-8"))
    stopped = {(*_key(r), int(float(r["overrides"]["duration"].removesuffix("s")))): r["metrics"]
               for r in _series(old["runs"])}
    compared, missing, worst = 0, 0, 0.0
    runs = _series(new["runs"])
    for r in runs:
        for name, value in r["metrics"].items():
            metric, _, t = name.partition("@")
            was = stopped.get((*_key(r), int(t)), {}).get(metric)
            if was is None:
                missing += 1
                continue
            compared += 1
            worst = max(worst, abs(value - was) / max(abs(was), 1e-9))
    print(f"{len(runs)} series runs; {compared} bin values compared with the committed stopped "
          f"runs, {missing} without a committed counterpart; largest relative difference {worst:.3g}")
    return 0 if compared and worst < 1e-9 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
