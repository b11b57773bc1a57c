"""afsim: a fast packet-level simulator of DiffServ Assured Forwarding networks.

The simulator is afsim-core (Rust), reached through the compiled module ``afsim._core``. This
package is its Python front: loading scenarios, running them, and turning reports into tables.

    >>> import afsim
    >>> scenario = afsim.load_scenario(afsim.builtin_scenario("default"))
    >>> results = afsim.run(scenario, seed=1)
    >>> results.flows[["name", "throughput_kbps"]]          # doctest: +SKIP

``afsim.run`` returns :class:`Results` (pandas tables); the compiled ``afsim._core.run`` it
wraps returns the raw :class:`RunResult` (numpy columns and the report's JSON text).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from afsim import _core
from afsim._core import (
    ConservationError,
    RunResult,
    Scenario,
    ScenarioError,
    __build__,
    __version__,
    load_scenario,
)

if TYPE_CHECKING:
    from afsim.results import Results

__all__ = [
    "ConservationError",
    "Results",
    "RunResult",
    "Scenario",
    "ScenarioError",
    "__build__",
    "__version__",
    "builtin_scenario",
    "builtin_scenarios",
    "load_scenario",
    "run",
    "simulate",
    "sweep",
]


def __getattr__(name: str) -> object:
    # ``afsim.sweep(...)``: imported on first use, so that ``afsim run`` does not pay for it
    # imported when first asked for: `afsim run --format json` needs neither (issue 28: the
    # whole process's fixed cost)
    if name == "Results":
        from afsim.results import Results

        return Results
    if name == "sweep":
        import afsim.sweep

        return afsim.sweep
    raise AttributeError(f"module 'afsim' has no attribute {name!r}")


def _scenarios_dir() -> Path:
    # Installed as regular files by the wheel (maturin copies python/afsim whole), so a real
    # path beside this file (importlib.resources would say the same, and cost `afsim run`
    # about 15 ms of imports).
    return Path(__file__).parent / "scenarios"


def builtin_scenario(name: str) -> Path:
    """Path of a built-in scenario file: ``"default"``, or ``"bench/<name>"``.

    Raises FileNotFoundError (listing what exists) for an unknown name.
    """
    root = _scenarios_dir()
    path = root / f"{name.removesuffix('.toml')}.toml"
    if not path.is_file():
        known = ", ".join(builtin_scenarios()) or "(none)"
        raise FileNotFoundError(f"no built-in scenario {name!r}; built-in scenarios: {known}")
    return path


def builtin_scenarios() -> list[str]:
    """Names of every built-in scenario, sorted (as accepted by :func:`builtin_scenario`)."""
    root = _scenarios_dir()
    if not root.is_dir():
        return []
    return sorted(p.relative_to(root).with_suffix("").as_posix() for p in root.rglob("*.toml"))


def simulate(
    scenario: str | Path | Scenario,
    *,
    seed: int | None = None,
    overrides: dict[str, str] | None = None,
) -> Results:
    """Load (if given a path) and run a scenario, returning its :class:`Results`."""
    if not isinstance(scenario, Scenario):
        scenario = load_scenario(str(scenario), overrides=overrides)
    elif overrides:
        raise ValueError("overrides apply when loading: pass a path, not a loaded Scenario")
    return run(scenario, seed=seed)


def run(
    scenario: Scenario,
    *,
    seed: int | None = None,
    progress: Callable[[float, float | None, int], object] | None = None,
) -> Results:
    """Run a loaded scenario; ``seed`` overrides the scenario's. Returns :class:`Results`,
    whose ``flows`` and ``queues`` are pandas DataFrames.

    ``progress(sim_time_s, fraction_or_None, events)`` is called about every 65,536 events;
    an exception it raises (or Ctrl-C) stops the run and propagates. Raises
    :class:`ConservationError` if the run breaks packet conservation.
    """
    from afsim.results import Results

    return Results.from_run(_core.run(scenario, seed=seed, progress=progress))
