"""Helm chart *sources* are not manifests: skip them with a note instead of reporting malformed YAML.

Called by :mod:`gpufleet.lint.runner` for every input. A chart's ``Chart.yaml`` (and
``Chart.lock``) describe the chart, and its templates hold Go template actions
(``{{ .Values.x }}``) that are not YAML until ``helm template`` renders them; linting
them would report GANG000 "malformed YAML" with indentation advice. A source is a
chart source when its file name is ``Chart.yaml``/``Chart.yml``/``Chart.lock``, or
when its text holds a ``{{ ... }}`` action and it lies under a ``templates/`` folder or
below a folder with a ``Chart.yaml``. Standard input is never skipped (it is what
``helm template ... | gpufleet lint -`` feeds). The runner lists skipped sources in the
report and the text summary says how to lint the rendered chart.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

CHART_FILES = frozenset({"Chart.yaml", "Chart.yml", "Chart.lock"})
_ACTION = re.compile(r"\{\{-?\s*[^}]*\}\}")
HOW_TO = "lint the rendered chart instead: helm template RELEASE CHART | gpufleet lint -"


def _inside_chart(path: Path) -> bool:
    if "templates" in path.parts[:-1]:
        return True
    return any((parent / "Chart.yaml").is_file() for parent in path.parents)


def is_chart_source(name: str, text: str | None) -> bool:
    """Whether the input ``name`` (a path, or ``<stdin>``) with ``text`` is a Helm chart source."""
    if name.startswith("<"):
        return False
    if os.path.basename(name.rstrip(os.sep)) in CHART_FILES:  # Path(name).name, without building a Path per file
        return True
    return text is not None and "{{" in text and bool(_ACTION.search(text)) and _inside_chart(Path(name))
