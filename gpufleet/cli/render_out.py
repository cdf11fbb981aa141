"""What ``gpufleet render`` prints: ``--out -``'s YAML stream and, after ``--out DIR``, what an apply needs first.

Called by :func:`gpufleet.cli.fleet_cmds.render`. The files are
:func:`gpufleet.stack.folder.folder_files`'s (this module renders nothing of its own).

- :func:`stream`: the documents the folder's root kustomization applies, in apply order, ``---`` between
  them: for ``gpufleet render MODEL --out - | kubectl diff --server-side -f -``.
- :func:`apply_hint`: the folder uses the engines' CRDs (their charts install them: ``engines/`` holds the
  values), and without cert-manager or ``--include-private-key`` the controller needs a serving Secret and the
  webhooks its CA, which nothing in the folder makes. The hint says so, naming this model's charts and objects.
"""

from __future__ import annotations

from pathlib import Path

from gpufleet.model import Fleet
from gpufleet.render.controller import NAME, TLS_SECRET, ControllerSettings
from gpufleet.stack import folder

STDOUT = "-"  # `--out -`: one YAML stream on standard output


def stream(files: dict[str, str]) -> str:
    """The documents the root kustomization of ``files`` applies, in apply order, as one YAML stream."""
    return folder.stream(files)


def _charts(fleet: Fleet) -> list[str]:
    engines = fleet.engines
    charts = [f"Kueue in {engines.kueue.namespace}"]
    if engines.volcano.enabled:
        charts.append(f"Volcano in {engines.volcano.namespace}")
    if fleet.pools_of("coscheduling"):
        charts.append(f"scheduler-plugins in {engines.coscheduling.namespace}")
    return charts


def apply_hint(fleet: Fleet, settings: ControllerSettings, has_key: bool, out: Path) -> list[str]:
    """The lines after ``wrote N files``: what ``kubectl apply -k out`` needs first."""
    lines = [
        f"before `kubectl apply --server-side -k {out}`: install the engines' Helm charts ({', '.join(_charts(fleet))}) "
        f"with the values in {out}/{folder.ENGINES_DIR}/; they bring the CRDs these files use"
    ]
    if fleet.controller.enabled and has_key:
        lines.append(
            f"{out}/{folder.TLS}/ holds the controller's private key (--include-private-key): do not commit it"
        )
    elif fleet.controller.enabled and not settings.cert_manager:
        ns = fleet.controller.namespace
        lines.append(
            f"the controller serves with the Secret {ns}/{TLS_SECRET} (tls.crt, tls.key, ca.crt), which is not in "
            f"the folder: create it, and set its ca.crt (base64) as caBundle of each webhook of the "
            f"{NAME} webhook configurations (docs/gitops.md, \"The controller's certificate\"); "
            "or use cert-manager (stack setting gpufleet:certManager), or --include-private-key for a throwaway cluster"
        )
    lines.append("`pulumi up` does all of this in order (README, \"Applying it with the Pulumi CLI\")")
    return lines
