"""The namespace an object without ``metadata.namespace`` lands in, as ``kubectl apply`` decides it.

Called by :mod:`gpufleet.lint.runner` for ``gpufleet lint --namespace NS`` (default
``default``, like kubectl without ``-n`` and without a namespace in the kubeconfig
context). A namespaced object that names no namespace gets ``NS`` in a shallow copy
(the loaded object is never modified), so the namespace-aware rules (GANG103-GANG106,
GANG402/403, ...) judge it where it will run instead of skipping it. Cluster-scoped
kinds keep no namespace: the list names the cluster-scoped kinds the rules read
(Kubernetes core, Kueue, Volcano, Kubeflow Trainer, scheduler-plugins); any other kind
is treated as namespaced, as most custom resources are.
"""

from __future__ import annotations

from typing import Any, Mapping

from gpufleet.util.maps import is_map

DEFAULT_NAMESPACE = "default"
CLUSTER_SCOPED_KINDS = frozenset(
    {
        "Namespace",
        "Node",
        "PersistentVolume",
        "PriorityClass",
        "StorageClass",
        "RuntimeClass",
        "CustomResourceDefinition",
        "ClusterRole",
        "ClusterRoleBinding",
        "MutatingWebhookConfiguration",
        "ValidatingWebhookConfiguration",
        "ValidatingAdmissionPolicy",
        "ValidatingAdmissionPolicyBinding",
        "APIService",
        "IngressClass",
        "ClusterQueue",
        "ResourceFlavor",
        "Cohort",
        "AdmissionCheck",
        "WorkloadPriorityClass",
        "Topology",
        "MultiKueueCluster",
        "MultiKueueConfig",
        "ProvisioningRequestConfig",
        "Queue",
        "HyperNode",
        "Numatopology",
        "ClusterTrainingRuntime",
        "Configuration",  # Kueue's manager configuration is a file, not an object in a namespace
    }
)


def is_namespaced(obj: Mapping[str, Any]) -> bool:
    return str(obj.get("kind", "")) not in CLUSTER_SCOPED_KINDS


def with_namespace(obj: Mapping[str, Any], namespace: str) -> Mapping[str, Any]:
    """``obj`` itself when it names a namespace or is cluster-scoped, else a copy placed in ``namespace``."""
    meta = obj.get("metadata")
    if not namespace or not is_namespaced(obj) or (is_map(meta) and meta.get("namespace")):
        return obj
    if meta is not None and not is_map(meta):
        return obj  # a malformed metadata is GANG000's / the schema rules' to report
    placed = dict(obj)
    placed["metadata"] = {**(meta or {}), "namespace": namespace}
    return placed
