"""The fleet's quota objects: one resource per rendered Kueue, Volcano or core object.

Built by :class:`gpufleet.pulumi.fleet.GpuFleet` from ``Rendered.objects``. Each object
becomes a custom resource (Kueue and Volcano kinds) or a typed
``scheduling.k8s.io/v1`` PriorityClass, Namespace, or (static partitioning) a typed
ValidatingAdmissionPolicy and its binding, with:

- ``depends_on`` its engine's chart (CRDs and webhooks first), plus the rendered
  objects it refers to (``gpufleet.render.ordering``): parents are created first and
  deleted last;
- ``replace_on_changes`` (with ``delete_before_replace``: names are fixed) for the
  fields the API server never changes in place (``gpufleet.render.immutable``);
- ``protect`` from the renderer: quota objects and team namespaces that may hold
  admitted work (teams ``active`` or ``draining``) cannot be deleted by a rename or
  removal; see docs/retiring-a-team.md;
- ``retain_on_delete`` for team namespaces: removing a retired team from the model
  releases its namespace from the stack without deleting what runs in it;
- a reference an engine's webhook looks up (``gpufleet.render.ordering.checked_at_admission``:
  a Volcano queue's parent) is passed as an Output of its referent's ID, unknown in a
  preview until the referent exists, so preview does not dry-run the child before
  its parent is there.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

import pulumi
import pulumi_kubernetes as k8s

from gpufleet.pulumi.manifest import ManifestCustomResource
from gpufleet.render import RenderedObject
from gpufleet.render.immutable import replace_paths
from gpufleet.render.ordering import checked_at_admission, depends_on_keys


@dataclass(frozen=True)
class FleetQuotaArgs:
    objects: Sequence[RenderedObject]
    """``Rendered.objects`` in apply order (parents first)."""
    charts: Mapping[str, pulumi.Resource] | None
    """The installed chart per engine (``kueue``, ``volcano``); ``core`` objects need none.
    None: the engines were installed by someone else (``gpufleet:enginesInstalled``)."""


def _priority_class(key: str, manifest: Mapping[str, Any], opts: pulumi.ResourceOptions) -> pulumi.CustomResource:
    return k8s.scheduling.v1.PriorityClass(
        key,
        metadata=manifest["metadata"],
        value=manifest["value"],
        description=manifest.get("description"),
        preemption_policy=manifest.get("preemptionPolicy"),
        global_default=manifest.get("globalDefault"),
        opts=opts,
    )


def _namespace(key: str, manifest: Mapping[str, Any], opts: pulumi.ResourceOptions) -> pulumi.CustomResource:
    return k8s.core.v1.Namespace(key, metadata=manifest["metadata"], opts=opts)


def _admission_policy(key: str, manifest: Mapping[str, Any], opts: pulumi.ResourceOptions) -> pulumi.CustomResource:
    """The static-partitioning ValidatingAdmissionPolicy (``gpufleet.render.partition``)."""
    return k8s.admissionregistration.v1.ValidatingAdmissionPolicy(
        key, metadata=manifest["metadata"], spec=manifest["spec"], opts=opts
    )


def _admission_policy_binding(
    key: str, manifest: Mapping[str, Any], opts: pulumi.ResourceOptions
) -> pulumi.CustomResource:
    return k8s.admissionregistration.v1.ValidatingAdmissionPolicyBinding(
        key, metadata=manifest["metadata"], spec=manifest["spec"], opts=opts
    )


CORE_KINDS = {
    ("scheduling.k8s.io/v1", "PriorityClass"): _priority_class,
    ("v1", "Namespace"): _namespace,
    ("admissionregistration.k8s.io/v1", "ValidatingAdmissionPolicy"): _admission_policy,
    ("admissionregistration.k8s.io/v1", "ValidatingAdmissionPolicyBinding"): _admission_policy_binding,
}


class FleetQuota(pulumi.ComponentResource):
    """Every rendered quota object of the fleet, ordered and protected."""

    resources: dict[str, pulumi.CustomResource]

    def __init__(self, name: str, args: FleetQuotaArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__("gpufleet:quota:FleetQuota", name, None, opts)
        edges = depends_on_keys((obj.key, obj.manifest) for obj in args.objects)
        self._manifests = {obj.key: obj.manifest for obj in args.objects}
        self.resources = {}
        for obj in args.objects:
            depends = [self._chart_for(obj, args.charts)] + [self._created(obj, key) for key in edges[obj.key]]
            immutable = replace_paths(obj.manifest)
            options = pulumi.ResourceOptions(
                parent=self,
                depends_on=[d for d in depends if d is not None],
                protect=obj.protect,
                replace_on_changes=immutable or None,
                delete_before_replace=bool(immutable) or None,
                retain_on_delete=obj.retain or None,
            )
            self.resources[obj.key] = self._create(obj, self._after_referents(obj, edges[obj.key]), options)
        self.register_outputs({"objectCount": len(self.resources)})

    @staticmethod
    def _chart_for(obj: RenderedObject, charts: Mapping[str, pulumi.Resource] | None) -> pulumi.Resource | None:
        if obj.engine == "core" or charts is None:
            return None
        if obj.engine not in charts:
            raise ValueError(
                f"{obj.key}: its engine {obj.engine!r} is not installed by this stack (enable engines.{obj.engine})"
            )
        return charts[obj.engine]

    def _created(self, obj: RenderedObject, key: str) -> pulumi.CustomResource:
        if key not in self.resources:
            raise ValueError(
                f"{obj.key} refers to {key}, which gpufleet.render placed after it; parents must come first"
            )
        return self.resources[key]

    def _after_referents(self, obj: RenderedObject, referents: list[str]) -> Mapping[str, Any]:
        """The manifest, with a field the engine's admission looks up made known only once its referent exists."""
        field = checked_at_admission(obj.manifest)
        if field is None:
            return obj.manifest
        name = obj.manifest["spec"][field]
        key = next(
            (
                k
                for k in referents
                if self._manifests[k]["kind"] == obj.manifest["kind"] and self._manifests[k]["metadata"]["name"] == name
            ),
            None,
        )
        if key is None:  # the referent is not the stack's (Volcano's root queue): nothing to wait for
            return obj.manifest
        referent = self.resources[key]
        return {**obj.manifest, "spec": {**obj.manifest["spec"], field: referent.id.apply(lambda _: name)}}

    @staticmethod
    def _create(
        obj: RenderedObject, manifest: Mapping[str, Any], opts: pulumi.ResourceOptions
    ) -> pulumi.CustomResource:
        if obj.engine == "core":
            build = CORE_KINDS.get((manifest["apiVersion"], manifest["kind"]))
            if build is None:
                raise ValueError(
                    f"{obj.key}: no typed resource for core kind {manifest['apiVersion']} {manifest['kind']}"
                )
            return build(obj.key, manifest, opts)
        return ManifestCustomResource(obj.key, manifest, opts)
