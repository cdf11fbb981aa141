"""Gang identity on pods: the ``gpufleet.dev/gang`` label on every pod template of a gang.

Called by :func:`gpufleet.mutate.core.mutate` for every object in a team's namespace,
only when the fleet context names the label (``gangLabel``: the model's observability
is enabled). The gang alerts (``gpufleet.render.alerts``) group pods by this label,
which kube-state-metrics exposes as ``kube_pod_labels{label_gpufleet_dev_gang}`` when
told to (``--metric-labels-allowlist=pods=[gpufleet.dev/gang]``), and the PodMonitor
copies to the ``gang`` label of the step metrics. What value, and where none is
stamped: :mod:`gpufleet.workloads.identity`. Never overwrites a label that is set.
"""

from __future__ import annotations

from typing import Any, Mapping

from gpufleet.mutate.patch import PatchBuilder
from gpufleet.workloads import build_view, label_path
from gpufleet.workloads.identity import gang_identity, stampable, unlabelled_templates


def mutate_gang_identity(obj: Mapping[str, Any], label: str | None, patch: PatchBuilder) -> None:
    if not label:
        return
    view = build_view(obj)
    if view is None or not stampable(view):
        return
    identity = gang_identity(view)
    if identity is None:
        return
    for path in unlabelled_templates(view, label):
        patch.set_default(label_path(label, path.child("metadata")), identity)
