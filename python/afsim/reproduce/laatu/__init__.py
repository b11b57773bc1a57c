"""Laatu, Harju, Loula: the SIMA testbed: ``afsim reproduce laatu``.

The package: ``paper`` (constants, metrics, null model, grid, variants, unstated
parameters, the ns-2 twin where there is one, ``mode``), ``claims`` (each claim's test;
``STATEMENTS`` joins them with statements.toml, the paper's sentences as data),
``figures``, and ``values.json`` (its published values and their tolerances).
"""

from __future__ import annotations

from pathlib import Path

from afsim.reproduce.core import Paper
from afsim.reproduce.laatu.claims import (
    EVALUATE,
    STATEMENTS,
)
from afsim.reproduce.laatu.figures import (
    FIGURES,
    extra_figures,
)
from afsim.reproduce.laatu.paper import (
    CITATION,
    DATA,
    GOLDEN,
    INSIGNIFICANT_THR,
    NBRS,
    NULL_DESCRIPTION,
    PAPER_ID,
    PHASE_SPAN_S,
    QUICK,
    TITLE,
    UNSTATED,
    VARIANTS,
    experiments,
    find_scenarios_dir,
    metrics,
    mode,
    null_model,
    start_phase,
)

__all__ = [
    "CITATION",
    "DATA",
    "EVALUATE",
    "FIGURES",
    "GOLDEN",
    "INSIGNIFICANT_THR",
    "NBRS",
    "NULL_DESCRIPTION",
    "PAPER_ID",
    "PHASE_SPAN_S",
    "QUICK",
    "STATEMENTS",
    "TITLE",
    "UNSTATED",
    "VARIANTS",
    "experiments",
    "extra_figures",
    "find_scenarios_dir",
    "metrics",
    "mode",
    "null_model",
    "paper",
    "start_phase",
]


def paper(scenarios_dir: Path | None = None) -> Paper:
    """The reproduction of this paper: experiments, statements, figures, published values,
    null model, variants and unstated parameters."""
    return Paper(id=PAPER_ID, title=TITLE, citation=CITATION,
                 experiments=experiments(scenarios_dir), statements=STATEMENTS,
                 figures=FIGURES, data=DATA, null_model=null_model,
                 null_description=NULL_DESCRIPTION, variants=VARIANTS, unstated=UNSTATED,
                 extra_figures=extra_figures)
