"""What kube-state-metrics must export for the gang alerts: label names, the allowlist flag, Helm values.

Pure: model in, strings and dicts out. Called by :mod:`gpufleet.render.alerts` (the
Prometheus label of a Kubernetes label key, the one node label each pool is joined
on), :mod:`gpufleet.render.monitoring` (the kube-state-metrics ServiceMonitor) and
:mod:`gpufleet.render.files` (``gpufleet render`` writes ``kube-state-metrics/``:
the flag value to paste and the Helm values).

kube-state-metrics v2.20.0 exports ``kube_pod_labels`` and ``kube_node_labels`` only
with labels named in ``--metric-labels-allowlist`` (``internal/store/pod.go``
createPodLabelsGenerator, ``node.go`` createNodeLabelsGenerator,
``internal/store/utils.go`` createPrometheusLabelKeysValues: exact keys, a key the
object lacks is left out). So the flag is rendered from the model: the gang label for
pods, and for nodes exactly the one label per pool the rules join on.
"""

from __future__ import annotations

import re
from typing import Any

from gpufleet.kubetypes.vocab import GANG_LABEL, POOL_LABEL
from gpufleet.model.fleet import Fleet
from gpufleet.model.pools import Pool

_INVALID_LABEL_CHAR = re.compile(r"[^a-zA-Z0-9_]")
_ALL_CAP = re.compile(r"([a-z0-9])([A-Z])")


def ksm_label(key: str) -> str:
    """The Prometheus label kube-state-metrics gives a Kubernetes label key (``gpufleet.dev/gang`` -> ``label_gpufleet_dev_gang``).

    Emulates kube-state-metrics v2.20.0 ``internal/store/utils.go``: ``labelName`` =
    prefix + ``_`` + ``toSnakeCase(SanitizeLabelName(key))`` (``[^a-zA-Z0-9_]`` -> ``_``,
    then ``([a-z0-9])([A-Z])`` -> ``${1}_${2}``, lowercased). Not emulated: the
    ``_conflictN`` suffixes it adds when two keys of one object map to the same name.
    """
    return "label_" + _ALL_CAP.sub(r"\1_\2", _INVALID_LABEL_CHAR.sub("_", key)).lower()


def pool_node_label(pool: Pool) -> tuple[str, str] | None:
    """The one ``(key, value)`` of ``pool.nodeLabels`` the alerts use to find the pool's nodes (None: no nodeLabels).

    ``gpufleet.dev/pool`` when present, else the first key as written. One label, so
    the allowlist names one key per pool and a node carrying it is in the pool.
    """
    labels = pool.node_labels
    if POOL_LABEL in labels:
        return POOL_LABEL, labels[POOL_LABEL]
    for key, value in labels.items():
        return key, value
    return None


def node_label_keys(fleet: Fleet) -> list[str]:
    """The node label keys kube-state-metrics must export: each pool's join label, sorted, once."""
    return sorted({found[0] for found in map(pool_node_label, fleet.pools) if found})


def allowlist_entries(fleet: Fleet) -> list[str]:
    """``--metric-labels-allowlist`` entries, one per resource (``pods=[gpufleet.dev/gang]``, ``nodes=[...]``)."""
    entries = [f"pods=[{GANG_LABEL}]"]
    nodes = node_label_keys(fleet)
    if nodes:
        entries.append(f"nodes=[{','.join(nodes)}]")
    return entries


def metric_labels_allowlist(fleet: Fleet) -> str:
    """The flag value to paste: ``pods=[gpufleet.dev/gang],nodes=[gpufleet.dev/pool]``."""
    return ",".join(allowlist_entries(fleet))


def allowlist_flag_text(fleet: Fleet) -> str:
    """The flag as a line of text (``gpufleet render``'s ``kube-state-metrics/metric-labels-allowlist.txt``)."""
    return f"--metric-labels-allowlist={metric_labels_allowlist(fleet)}\n"


def helm_values(fleet: Fleet) -> dict[str, Any]:
    """Values for the kube-state-metrics Helm chart (prometheus-community ``charts/kube-state-metrics``).

    The chart joins ``metricLabelsAllowlist`` with ``,`` into ``--metric-labels-allowlist``
    (``templates/deployment.yaml``) and, with ``prometheus.monitor.enabled``, creates a
    ServiceMonitor that keeps kube-state-metrics' own ``namespace``/``pod`` labels when
    ``prometheus.monitor.honorLabels`` is true (``templates/servicemonitor.yaml``).
    kube-prometheus-stack takes the same values under ``kube-state-metrics:``.
    """
    return {
        "metricLabelsAllowlist": allowlist_entries(fleet),
        "prometheus": {"monitor": {"enabled": True, "honorLabels": True}},
    }
