"""Leung & Muppala: AF over RIO with ECN: ``afsim reproduce leung``.

The package: ``paper`` (constants, metrics, null model, grid, variants, unstated
parameters, the ns-2 twin where there is one, ``mode``), ``claims`` (each claim's test;
``STATEMENTS`` joins them with statements.toml, the paper's sentences as data),
``figures``, and ``values.json`` (its published values and their tolerances).
"""

from __future__ import annotations

from pathlib import Path

from afsim.reproduce.core import Paper
from afsim.reproduce.leung.claims import (
    EVALUATE,
    STATEMENTS,
)
from afsim.reproduce.leung.figures import (
    FIGURES,
)
from afsim.reproduce.leung.paper import (
    CITATION,
    DATA,
    ECN_STRATEGIES,
    FIEB_TOL,
    FIXED_ONE_WAY_MS,
    FULL,
    NULL_DESCRIPTION,
    PAPER_ID,
    PAPER_SECONDS,
    QUICK,
    RTT_SETS,
    TARGETS_1,
    TITLE,
    TWIN,
    UNSTATED,
    VARIANTS,
    _t1,
    _t2,
    experiments,
    fieb,
    find_scenarios_dir,
    leung_metrics,
    mode,
    ns2_args,
    ns2_results,
    null_model,
    rtt_overrides,
    scheme_overrides,
    strategy_overrides,
)

__all__ = [
    "CITATION",
    "DATA",
    "ECN_STRATEGIES",
    "EVALUATE",
    "FIEB_TOL",
    "FIGURES",
    "FIXED_ONE_WAY_MS",
    "FULL",
    "NULL_DESCRIPTION",
    "PAPER_ID",
    "PAPER_SECONDS",
    "QUICK",
    "RTT_SETS",
    "STATEMENTS",
    "TARGETS_1",
    "TITLE",
    "TWIN",
    "UNSTATED",
    "VARIANTS",
    "_t1",
    "_t2",
    "experiments",
    "fieb",
    "find_scenarios_dir",
    "leung_metrics",
    "mode",
    "ns2_args",
    "ns2_results",
    "null_model",
    "paper",
    "rtt_overrides",
    "scheme_overrides",
    "strategy_overrides",
]


def paper(scenarios_dir: Path | None = None) -> Paper:
    """The reproduction of this paper: experiments, statements, figures, stated values, null
    model, variants and unstated parameters."""
    return Paper(id=PAPER_ID, title=TITLE, citation=CITATION,
                 experiments=experiments(scenarios_dir), statements=STATEMENTS,
                 figures=FIGURES, data=DATA, null_model=null_model,
                 null_description=NULL_DESCRIPTION, variants=VARIANTS, unstated=UNSTATED,
                 ns2=TWIN)
