"""The gang-safety linter's core: load manifests, run the rules, render the findings.

Used by ``gpufleet lint`` (gpufleet.cli.lint_cmds), the benchmark (bench/lint_bench.py)
and CI. Pure core: no typer or rich here (the CLI adds colour). Modules: ``sources``
(which files), ``loader`` (YAML documents, Lists, helm output → objects or GANG000
problems), ``fastyaml`` (the yaml-rs fast path and when PyYAML must read instead),
``locate`` and ``textlocate`` (finding path → line, from nodes or from the text), ``runner`` (:func:`lint`, :class:`Report`),
``context`` (fleet context, CRDs, ``--config``), and the outputs ``text``,
``jsonout`` and ``sarif``.
"""

from gpufleet.lint.runner import Report, lint, lint_sources, unknown_codes

FORMATS = ("text", "json", "sarif")

__all__ = ["FORMATS", "Report", "lint", "lint_sources", "unknown_codes"]
