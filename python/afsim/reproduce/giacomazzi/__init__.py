"""Giacomazzi, Musumeci, Verticale: TCP over Assured Forwarding with the CSA: ``afsim reproduce giacomazzi``.

The package: ``paper`` (constants, metrics, null model, grid, variants, unstated
parameters, the ns-2 twin where there is one, ``mode``), ``claims`` (each claim's test;
``STATEMENTS`` joins them with statements.toml, the paper's sentences as data),
``figures``, and ``values.json`` (its published values and their tolerances).
"""

from __future__ import annotations

from pathlib import Path

from afsim.reproduce.core import Paper
from afsim.reproduce.giacomazzi.claims import (
    EVALUATE,
    STATEMENTS,
)
from afsim.reproduce.giacomazzi.figures import (
    FIGURES,
)
from afsim.reproduce.giacomazzi.paper import (
    CITATION,
    DATA,
    NULL_DESCRIPTION,
    PAPER_ID,
    PAPER_PACKETS,
    QUICK,
    TITLE,
    TWIN,
    UNSTATED,
    VARIANTS,
    _s1,
    experiments,
    find_scenarios_dir,
    mode,
    ns2_args,
    null_model,
    scenario1_metrics,
)

__all__ = [
    "CITATION",
    "DATA",
    "EVALUATE",
    "FIGURES",
    "NULL_DESCRIPTION",
    "PAPER_ID",
    "PAPER_PACKETS",
    "QUICK",
    "STATEMENTS",
    "TITLE",
    "TWIN",
    "UNSTATED",
    "VARIANTS",
    "_s1",
    "experiments",
    "find_scenarios_dir",
    "mode",
    "ns2_args",
    "null_model",
    "paper",
    "scenario1_metrics",
]


def paper(scenarios_dir: Path | None = None) -> Paper:
    """The reproduction of this paper: experiments, statements, figures, published values,
    null model, variants and unstated parameters."""
    return Paper(id=PAPER_ID, title=TITLE, citation=CITATION,
                 experiments=experiments(scenarios_dir), statements=STATEMENTS,
                 figures=FIGURES, data=DATA, null_model=null_model,
                 null_description=NULL_DESCRIPTION, variants=VARIANTS, unstated=UNSTATED,
                 ns2=TWIN)
