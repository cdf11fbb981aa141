"""What ``gpufleet render`` prints: ``--out -``'s YAML stream and, after ``--out DIR``, what a plain apply needs.

Called by :func:`gpufleet.cli.fleet_cmds.render`. The files are
:func:`gpufleet.render.files.render_files`'s (this module renders nothing of its own).

- :func:`stream`: the documents ``kubectl apply -f DIR`` would read (the folder's top-level
  files, not its sub-folders), in apply order, ``---`` between them: for
  ``gpufleet render MODEL --out - | kubectl diff -f -``.
- :func:`apply_hint`: ``render --out DIR`` used to end with "apply with ``kubectl apply -f DIR``",
  which a careful user would not run as it stands. The files use the engines' CRDs (the
  charts install them), the fleet context's ConfigMap lives in the controller's namespace
  (created by the Pulumi stack with the controller, not rendered), and the
  ``000-configmap-*`` files are the charts' own ConfigMaps (applying them replaces what a
  chart installed). The hint says so, naming this model's charts, namespaces and files.
"""

from __future__ import annotations

from pathlib import Path

from gpufleet.model import Fleet
from gpufleet.render import Rendered
from gpufleet.render.files import context_config_map, dump, engine_config_maps

STDOUT = "-"  # `--out -`: one YAML stream on standard output


def stream(files: dict[str, str]) -> str:
    """The top-level documents of ``files`` (already in apply order) as one YAML stream."""
    return "---\n".join(text for path, text in files.items() if "/" not in path)


def _named(files: dict[str, str], objects: list[dict]) -> list[str]:
    """The top-level files that hold exactly these objects."""
    texts = {dump(obj) for obj in objects}
    return [path for path, text in files.items() if "/" not in path and text in texts]


def _charts(fleet: Fleet) -> list[str]:
    engines = fleet.engines
    charts = [f"Kueue in {engines.kueue.namespace}"]
    if engines.volcano.enabled:
        charts.append(f"Volcano in {engines.volcano.namespace}")
    if fleet.pools_of("coscheduling"):
        charts.append(f"scheduler-plugins in {engines.coscheduling.namespace}")
    return charts


def apply_hint(fleet: Fleet, rendered: Rendered, files: dict[str, str], out: Path) -> list[str]:
    """The lines after ``wrote N files``: what ``kubectl apply -f out`` needs first, and which files are the charts'."""
    lines = [
        f"before `kubectl apply -f {out}`: install the engines' Helm charts ({', '.join(_charts(fleet))}), "
        "which bring the CRDs these files use (a plain apply of a Queue or ClusterQueue fails without them)"
    ]
    context = context_config_map(fleet, rendered.context)
    if context is not None:
        lines[0] += (
            f", and create the namespace {fleet.controller.namespace} ({', '.join(_named(files, [context]))} "
            "goes there; the admission controller itself is deployed by the Pulumi stack, not rendered)"
        )
    owned = _named(files, engine_config_maps(fleet))
    if owned:
        lines.append(
            f"the charts own {', '.join(owned)}: applying them replaces the ConfigMaps the charts installed "
            "with gpufleet's configuration (restart the Kueue controller to load it; a later helm upgrade may put the "
            "chart's back): leave them out if the charts are configured elsewhere"
        )
    lines.append("`pulumi up` does all of this in order (README, \"Applying it with the Pulumi CLI\")")
    return lines
