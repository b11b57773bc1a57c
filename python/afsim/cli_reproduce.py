"""The ``afsim reproduce`` command (``afsim.cli`` parses its arguments and maps its errors to
exit codes): checks the options, runs a paper's reproduction (``afsim.reproduce``), writes its
outputs and prints its summary, or its JSON on stdout with ``--format json``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from afsim.cli_common import (
    EXIT_CONSERVATION,
    EXIT_OK,
    EXIT_USAGE,
    UsageError,
    _console,
    _error,
    prepare_out_dir,
)
from afsim.output import write_text


def cmd_reproduce(args: argparse.Namespace) -> int:
    from afsim import reproduce

    if args.paper not in reproduce.PAPERS:
        raise UsageError(f"no reproduction of {args.paper!r}; the papers are: "
                         f"{', '.join(reproduce.PAPERS)}")
    for name in ("jobs", "budget", "replications", "variant_replications", "robust_points"):
        value = getattr(args, name)
        if value is not None and value < 1:
            raise UsageError(f"--{name.replace('_', '-')} must be at least 1, got {value}")
    if args.ns2_save and args.ns2 != "run":
        raise UsageError("--ns2-save writes the ns-2 runs of --ns2 run; add --ns2 run")
    if args.live_save and args.live != "run":
        raise UsageError("--live-save writes the live runs of --live run; add --live run")
    module = reproduce.paper_module(args.paper)
    try:
        paper = module.paper()
    except FileNotFoundError as e:
        raise UsageError(str(e)) from None
    known = [e.id for e in paper.experiments]
    unknown = sorted(set(args.only or ()) - set(known))
    if unknown:
        raise UsageError(f"unknown experiment(s) {', '.join(unknown)}; the experiments of "
                         f"{args.paper} are: {', '.join(known)}")
    out = args.out or Path(f"reproduce-{args.paper}" + ("-quick" if args.quick else ""))
    if out.exists() and not out.is_dir():
        raise UsageError(f"--out {out}: exists and is not a directory")
    prepare_out_dir(out, "--out", parents=True)
    try:
        mode = module.mode(args.quick, args.budget, args.replications)
    except ValueError as e:
        raise UsageError(str(e)) from None
    mode = _resize_design(mode, module.mode(args.quick, None, None), args)
    try:
        rep = reproduce.reproduce(
            paper, mode,
            jobs=args.jobs, only=args.only, show_progress=sys.stderr.isatty(),
            variants=not args.no_variants, robustness=not args.no_robustness,
            store=None if args.no_store else (args.store or out / "store"), ns2=args.ns2,
            live=args.live,
        )
    except reproduce.RunFailed as e:
        _error(str(e))
        return EXIT_CONSERVATION if e.kind == "conservation" else EXIT_USAGE
    if rep.ns2 is not None:
        for message in rep.ns2.messages:
            sys.stderr.write(f"afsim: ns-2: {message}\n")
        if args.ns2_save:
            from afsim.reproduce.twin import save

            sys.stderr.write(f"afsim: ns-2 runs saved to {save(rep.ns2, rep.paper.id)}\n")
    if rep.live is not None:
        for message in rep.live.messages + rep.live.failed:
            sys.stderr.write(f"afsim: live: {message}\n")
        if args.live_save:
            from afsim.reproduce.live import save as save_live

            sys.stderr.write(f"afsim: live runs saved to {save_live(rep.live, rep.paper.id)}\n")
    written = reproduce.write_outputs(rep, out)
    if args.format == "json":
        write_text(sys.stdout,
                   json.dumps(reproduce.to_json(rep), indent=2, ensure_ascii=False) + "\n")
    else:
        console = _console()
        reproduce.print_summary(rep, console)
        console.print(f"wrote {len(written)} files to {out} (report: {out / 'report.md'})")
    return EXIT_OK


def _resize_design(mode, default, args: argparse.Namespace):
    """``mode`` with --variant-replications and --robust-points applied; a mode at the paper's
    budget (full) is named "<mode>, reduced design" when it has fewer replications, variant
    replications or robustness points than its own (``default``), so that every output says so
    (a quick mode says in every output that it is reduced already)."""
    import dataclasses

    changes = {k: getattr(args, k) for k in ("variant_replications", "robust_points")
               if getattr(args, k) is not None}
    mode = dataclasses.replace(mode, **changes)
    smaller = (mode.replications < default.replications
               or mode.robust_points < default.robust_points
               or (mode.variant_replications or mode.replications)
               < (default.variant_replications or default.replications))
    if smaller and mode.is_paper_budget:
        return dataclasses.replace(mode, name=f"{mode.name}, reduced design")
    return mode
