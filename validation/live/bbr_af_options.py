"""Which of afsim BBR's Linux options close its gap to Linux in the AF network (issue 26):
cc/af-mix as it is (data metered), every receiver delaying ACKs and every sender with RACK-TLP
and PRR (cc_af_live.py's "delayed ACKs, rack, prr" column), then BBR's senders with each option
alone, all five, and all five but one (docs/validation.md, "BBR's retransmissions and share in
the AF network"). Simulator only; the live side is cc-af-live-data.json's.

    PYTHONPATH=python python validation/live/bbr_af_options.py [--seeds 5] [--duration 40s]
    python validation/live/cc_tables.py        # the table (bbr-af-options.json's)

Writes validation/live/bbr-af-options.json: per variant, cc_af_live.summary of every seed.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import afsim as api

sys.path.insert(0, str(Path(__file__).resolve().parent))
from cc_af_live import BBR_LINUX, linux_bbr, summary

ROOT = Path(__file__).resolve().parents[2]
RECOVERY = 'start_step = "50ms"\ndelayed_ack = true\nrack = true\nprr = true'


def sim_seeds(text: str, seeds: int, duration: str) -> list[dict]:
    """cc_af_live.summary of the scenario TEXT run in-process at seeds 1..SEEDS, as `afsim run
    --seed SEED --format json` would report it (cc_af_live.py's runs)."""
    runs = []
    for seed in range(1, seeds + 1):
        s = api.load_scenario(text=text, name="af-mix.toml", overrides={"duration": duration})
        runs.append(summary(json.loads(api._core.run(s, seed=seed).summary_json())))
    return runs


def variants() -> list[tuple[str, tuple[str, ...]]]:
    v: list[tuple[str, tuple[str, ...]]] = [("none (draft-00)", ())]
    v += [(o, (o,)) for o in BBR_LINUX]
    v += [("all five", BBR_LINUX)]
    v += [(f"all but {o}", tuple(x for x in BBR_LINUX if x != o)) for o in BBR_LINUX]
    return v


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--duration", default="40s")
    ap.add_argument("--out", type=Path, default=ROOT / "validation" / "live" / "bbr-af-options.json")
    args = ap.parse_args()
    base = api.builtin_scenario("cc/af-mix").read_text().replace('start_step = "50ms"', RECOVERY)
    out: dict = {"scenario": "cc/af-mix", "duration": args.duration,
                 "every sender": "delayed_ack, rack, prr", "variants": []}
    for name, opts in variants():
        text = linux_bbr(base, opts) if opts else base
        runs = sim_seeds(text, args.seeds, args.duration)
        out["variants"].append({"variant": name, "options": list(opts), "sim": runs})
        print(name, json.dumps([{k: round(r["bbr"][k], 3) for k in ("share", "retx")} for r in runs]),
              flush=True)
    args.out.write_text(json.dumps(out, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
