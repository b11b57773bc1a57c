"""Type stubs of the compiled module afsim._core (crates/afsim-py)."""

from collections.abc import Callable, Mapping
from os import PathLike
from pathlib import Path
from typing import final

import numpy as np
import numpy.typing as npt

__all__ = [
    "ConservationError",
    "RunResult",
    "Scenario",
    "ScenarioError",
    "__build__",
    "__version__",
    "load_scenario",
    "run",
]

__version__: str
#: The version and a hash of the simulator's sources: "0.1.0+<12 hex digits>".
__build__: str

class ScenarioError(ValueError):
    """A scenario could not be loaded; nothing ran.

    ``str(e)`` is ``file:line:column: field: message``.
    """

    file: str
    line: int
    column: int
    field: str
    message: str

class ConservationError(RuntimeError):
    """A run broke sent = delivered + dropped + in flight. ``report_json`` is its report."""

    report_json: str

@final
class Scenario:
    """A loaded, validated scenario (immutable)."""

    @property
    def name(self) -> str: ...
    @property
    def seed(self) -> int: ...
    @property
    def n_nodes(self) -> int: ...
    @property
    def n_links(self) -> int: ...
    @property
    def n_flows(self) -> int: ...
    @property
    def duration_s(self) -> float | None: ...
    def with_seed(self, seed: int) -> Scenario: ...
    @property
    def warnings(self) -> list[dict[str, str | int]]: ...
    def port_names(self) -> list[str]: ...
    @property
    def captures(self) -> list[Path]: ...
    def with_capture(self, port: str, path: str | PathLike[str], origin: str = "--capture") -> Scenario: ...
    @property
    def monitors(self) -> list[tuple[str, float]]: ...
    def with_monitor(self, port: str, interval: str = "10ms") -> Scenario: ...
    def without_captures(self) -> Scenario: ...
    def resolved(self) -> str: ...

@final
class RunResult:
    """A finished run: its report and the wall time it took."""

    def summary_json(self) -> str: ...
    def flows_columns(self) -> dict[str, npt.NDArray[np.generic] | list[str]]: ...
    def queues_columns(self) -> dict[str, npt.NDArray[np.generic] | list[str]]: ...
    def traces(self) -> dict[str, dict[str, npt.NDArray[np.generic]]]: ...
    def tfrc_traces(self) -> dict[str, dict[str, npt.NDArray[np.generic]]]: ...
    def alpha_traces(self) -> dict[str, dict[str, npt.NDArray[np.generic]]]: ...
    def queue_series(self) -> dict[str, dict[str, npt.NDArray[np.generic]]]: ...
    def dp_traces(self) -> dict[str, dict[str, npt.NDArray[np.generic] | list[str]]]: ...
    @property
    def wall_seconds(self) -> float: ...
    @property
    def build_seconds(self) -> float: ...
    @property
    def report_seconds(self) -> float: ...
    @property
    def events(self) -> int: ...
    @property
    def packet_hops(self) -> int: ...
    @property
    def conservation_holds(self) -> bool: ...

def load_scenario(
    path: str | PathLike[str] | None = None,
    *,
    text: str | None = None,
    name: str = "<string>",
    overrides: Mapping[str, str] | None = None,
) -> Scenario: ...
def run(
    scenario: Scenario,
    *,
    seed: int | None = None,
    progress: Callable[[float, float | None, int], object] | None = None,
) -> RunResult: ...
