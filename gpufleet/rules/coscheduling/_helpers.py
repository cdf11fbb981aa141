"""What the coscheduling rules GANG801-GANG806 share: pod-group membership and the plugin's decision.

scheduler-plugins v0.34.7 (kubernetes-sigs/scheduler-plugins, tag v0.34.7):

- pods join a gang with the label ``scheduling.x-k8s.io/pod-group: <PodGroup name>``
  (``apis/scheduling/v1alpha1/types.go``, ``PodGroupLabel``), PodGroup and pods in one namespace;
- ``pkg/coscheduling/core/core.go`` ``PreFilter``: a pod is rejected while fewer pods
  carry the label than ``minMember`` (``quorumGap > 0``), so a group larger than its
  workload never schedules; ``Permit``: a pod naming a PodGroup that does not exist is
  denied (``PodGroupNotFound``); the group is released once ``minMember`` pods are
  assigned, so a group smaller than the workload lets a partial gang start;
- ``pkg/util/podgroup.go`` ``GetWaitTimeDuration``: assigned pods wait
  ``scheduleTimeoutSeconds``, else the plugin's ``permitWaitingTimeSeconds`` (the chart
  sets 10), else 60s, then the whole group is rejected and backs off.

:func:`prefilter` and :func:`permit` emulate those two extension points (their tests
translate ``pkg/coscheduling/core/core_test.go``'s ``TestPreFilter``/``TestPermit`` tables);
:func:`permit_outcome` composes them into what happens to a whole group, which the rules use. Membership is read from the workloads of the run (``ctx.objects``); with no
other objects (the admission controller sees one object) the cross-object rules stay quiet.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterator, Mapping

from gpufleet.kubetypes import vocab
from gpufleet.kubetypes.fieldpath import FieldPath
from gpufleet.kubetypes.vocab import KUBEFLOW_JOBS
from gpufleet.rules.api import CheckContext, Violation
from gpufleet.rules.run import RunIndex
from gpufleet.workloads import PodTemplate, WorkloadView, as_int, as_map, label_path

PODGROUP = ("scheduling.x-k8s.io", "PodGroup")
MEMBER_KINDS = (
    ("batch", "Job"),
    ("jobset.x-k8s.io", "JobSet"),
    *KUBEFLOW_JOBS,
    ("", "Pod"),
    ("apps", "Deployment"),
    ("apps", "ReplicaSet"),
    ("apps", "StatefulSet"),
)
DEFAULT_SCHEDULER_NAME = "scheduler-plugins-scheduler"


def prefilter(group_exists: bool, pods: int, gated: int, min_member: int) -> bool:
    """``PodGroupManager.PreFilter`` without minResources: whether a pod of the group may go on.

    ``pods`` counts every pod carrying the group label (the lister sees the pod itself),
    ``gated`` those with scheduling gates. A pod whose group does not exist passes here
    (it is denied at Permit).
    """
    if not group_exists:
        return True
    gap = min_member - pods
    return gap <= 0 and gap + gated <= 0


def permit(labelled: bool, group_exists: bool, assigned: int, min_member: int) -> str:
    """``PodGroupManager.Permit``: ``assigned`` counts the group's pods bound or waiting, this one included."""
    if not labelled:
        return "PodGroupNotSpecified"
    if not group_exists:
        return "PodGroupNotFound"
    return "Success" if assigned >= min_member else "Wait"


def permit_outcome(pods: int, min_member: int | None) -> str:
    """What the Coscheduling plugin does with ``pods`` pods of one group (``min_member`` None: no PodGroup).

    ``denied`` (Permit: PodGroupNotFound), ``never`` (PreFilter: quorum never reached),
    ``partial`` (released before every pod is placed) or ``whole``.
    """
    if min_member is None:
        return "denied"
    if not prefilter(True, pods, 0, min_member):
        return "never"
    first_success = next((n for n in range(1, pods + 1) if permit(True, True, n, min_member) == "Success"), pods)
    return "partial" if first_success < pods else "whole"


@dataclass(frozen=True)
class Member:
    """One pod template that joins a coscheduling group."""

    template: PodTemplate
    group: str
    path: FieldPath


def members(view: WorkloadView) -> Iterator[Member]:
    for template in view.templates:
        group = template.labels.get(vocab.COSCHEDULING_GROUP)
        if group:
            yield Member(template, str(group), label_path(vocab.COSCHEDULING_GROUP, template.metadata_path))


@dataclass(frozen=True)
class GroupIndex:
    """The run's coscheduling PodGroups and the pods of its templated workloads that join each."""

    groups: Mapping[tuple[str | None, str], WorkloadView]
    pods: Mapping[tuple[str | None, str], int]
    elastic: frozenset[tuple[str | None, str]]


def group_index(run: RunIndex) -> GroupIndex:
    """:class:`GroupIndex` of a run (built once per run: ``run.derived(group_index)``)."""
    found_groups: dict[tuple[str | None, str], WorkloadView] = {}
    pods: dict[tuple[str | None, str], int] = {}
    elastic: set[tuple[str | None, str]] = set()
    for view in run.views:
        if view is None:
            continue
        if (view.group, view.kind) == PODGROUP:
            found_groups.setdefault((view.namespace, view.name), view)  # type: ignore[arg-type]  # a PodGroup view always has a name (the view is built from a named object)
            continue
        if view.pod_group is not None:  # Pods and apps kinds: GANG001/GANG002 count them (RunIndex.member_pods)
            continue
        for member in members(view):
            key = (view.namespace, member.group)
            pods[key] = pods.get(key, 0) + member.template.replicas
            if view.elastic:
                elastic.add(key)
    return GroupIndex(found_groups, pods, frozenset(elastic))


def pod_group(ctx: CheckContext, namespace: str | None, name: str) -> WorkloadView | None:
    return ctx.run.derived(group_index).groups.get((namespace, name))


def group_pods(ctx: CheckContext, namespace: str | None, name: str) -> tuple[int, bool]:
    """Pods of the run's workloads that join group ``name`` and whether any of them opted into elasticity."""
    index = ctx.run.derived(group_index)
    return index.pods.get((namespace, name), 0), (namespace, name) in index.elastic


def min_member(view: WorkloadView) -> int | None:
    return as_int(as_map(view.obj.get("spec")).get("minMember"))


@dataclass(frozen=True)
class Quorum:
    """A PodGroup against the run's templated workloads that join it."""

    name: str
    pods: int
    minimum: int
    elastic: bool

    @property
    def outcome(self) -> str:
        return permit_outcome(self.pods, self.minimum)

    def mismatch(self, relation: str, consequence: str) -> Violation:
        """GANG802's and GANG803's finding: minMember is ``relation`` (below, above) the members' pods, with the
        ``consequence``; the fix sets it to those pods."""
        return Violation(
            FieldPath.of("spec", "minMember"),
            f"minMember {self.minimum} is {relation} the {self.pods} pods that join PodGroup {self.name!r}: {consequence}",
            f"set minMember: {self.pods}",
        )


def quorum(obj: Mapping[str, Any], ctx: CheckContext) -> Quorum | None:
    """The PodGroup ``obj``'s minMember and its members' pods, or None when the run holds no member (or no minMember)."""
    view = ctx.run.view(obj)
    if view is None or not ctx.objects or view.name is None:
        return None
    pods, elastic = group_pods(ctx, view.namespace, view.name)
    minimum = min_member(view)
    return Quorum(view.name, pods, minimum, elastic) if pods and minimum is not None else None
