"""The ``topologyLevels`` that ``advise`` proposes for a pool, and what must be labelled for them to work.

Kueue's topology-aware admission places a gang by node labels, so a proposed level must be a label the nodes really
carry. Only three sources are used, and the proposal says which: a topology label among the pool's ``nodeLabels``
(what the model says its nodes carry), the network-topology labels a cloud provider documents for its nodes (the
provider recognised by its own labels among the pool's ``nodeLabels``, and named), and ``kubernetes.io/hostname``,
which the kubelet sets on every node. With none of the first two, the proposal is the host level alone, and the note
says what to label (each node's block and rack) to place gangs within racks. Called by
:mod:`gpufleet.advise.decide` (the edit) and :func:`gpufleet.advise.advise` (the note in the reason).
"""

from __future__ import annotations

from dataclasses import dataclass

from gpufleet.kubetypes.vocab import HOSTNAME_LABEL as HOSTNAME
from gpufleet.kubetypes.vocab import ZONE_LABEL
from gpufleet.model.pools import Pool

WELL_KNOWN = (ZONE_LABEL,)
"""Kubernetes' well-known topology labels wider than a host (set by the cloud provider's node controller)."""


@dataclass(frozen=True)
class Provider:
    name: str
    marks: tuple[str, ...]
    """Label-key prefixes only this provider's nodes carry: how a pool's ``nodeLabels`` name the provider."""
    levels: tuple[str, ...]
    """The provider's documented network-topology labels, widest first."""
    source: str


PROVIDERS = (
    Provider(
        "Google Kubernetes Engine",
        ("cloud.google.com/",),
        (
            "cloud.google.com/gce-topology-block",
            "cloud.google.com/gce-topology-subblock",
            "cloud.google.com/gce-topology-host",
        ),
        "set on nodes of compactly placed capacity (GKE's guide to Topology Aware Scheduling with Kueue)",
    ),
    Provider(
        "Amazon EKS",
        ("eks.amazonaws.com/", "topology.k8s.aws/"),
        (
            "topology.k8s.aws/network-node-layer-1",
            "topology.k8s.aws/network-node-layer-2",
            "topology.k8s.aws/network-node-layer-3",
        ),
        "set on supported instance types (the EKS user guide's network topology labels)",
    ),
)


@dataclass(frozen=True)
class Proposal:
    levels: tuple[str, ...]
    note: str
    """Where each level comes from and what must be labelled."""

    def yaml(self) -> str:
        return f"[{', '.join(self.levels)}]"


def provider_of(pool: Pool) -> Provider | None:
    return next((p for p in PROVIDERS if any(k.startswith(p.marks) for k in pool.node_labels)), None)


def _carried(pool: Pool) -> list[str]:
    """The pool's node labels that name a topology domain: a provider's or Kubernetes' topology label."""
    known = {*WELL_KNOWN, *(level for p in PROVIDERS for level in p.levels)}
    return [k for k in pool.node_labels if k in known or k.split("/")[-1].startswith("topology")]


def propose(pool: Pool) -> Proposal:
    """The levels, widest first, from labels the nodes carry, and the note that says so."""
    provider = provider_of(pool)
    carried = [k for k in _carried(pool) if provider is None or k not in provider.levels]
    levels = [*carried, *(provider.levels if provider else ()), HOSTNAME]
    said = [f"{HOSTNAME} is set by the kubelet on every node"]
    if carried:
        said.append(f"{', '.join(carried)} {'is' if len(carried) == 1 else 'are'} in the pool's nodeLabels")
    if provider is not None:
        said.append(f"{', '.join(provider.levels)} are {provider.name}'s topology labels, {provider.source}")
        return Proposal(tuple(levels), "; ".join(said) + ": check that the pool's nodes carry them.")
    return Proposal(
        tuple(levels),
        "; ".join(said) + f". No rack or block label is known for pool {pool.name!r}'s nodes: to place gangs within "
        "racks, label each node with its block and rack (for example kubectl label node NODE "
        "example.com/block=B1 example.com/rack=R7, or your provider's topology labels) and put those keys before "
        f"{HOSTNAME}.",
    )
