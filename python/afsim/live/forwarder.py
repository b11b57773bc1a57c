"""The forwarder process of ``afsim live``: ``ip netns exec <fwd ns> python -m
afsim.live.forwarder CONFIG``.

Loads the scenario as the orchestrator did, opens the forwarder (afsim-live, through
``afsim._core.LiveForwarder``: sockets on every router-side veth end), prints ``ready``, reads
the run's time zero from stdin, forwards with the GIL released until the duration has passed
(or SIGTERM/SIGINT), and prints the results as one JSON line.
"""

from __future__ import annotations

import json
import sys


def main() -> int:
    from afsim import _core

    cfg = json.load(open(sys.argv[1]))
    scenario = _core.load_scenario(cfg["scenario_path"], overrides=dict(cfg["overrides"]))
    if cfg.get("seed") is not None:
        scenario = scenario.with_seed(cfg["seed"])
    try:
        for port, path in cfg.get("captures", []):
            scenario = scenario.with_capture(port, path, origin=f"--capture {port}")
        fwd = _core.LiveForwarder(scenario, json.dumps(cfg["forwarder"]))
    except (OSError, ValueError) as e:  # a capture file that cannot be created among them
        print(json.dumps({"error": str(e)}), flush=True)
        return 1
    print("ready", flush=True)
    line = sys.stdin.readline()
    if not line.strip():
        return 1
    sys.stdout.write(fwd.run(int(line)) + "\n")
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
