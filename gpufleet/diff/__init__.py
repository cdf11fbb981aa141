"""``gpufleet diff``: what a model change does, step by step, before ``pulumi up`` does it.

Pure core (no Pulumi, no cluster): both models are rendered with
:func:`gpufleet.render.render_all`; :mod:`.steps` orders the object changes as
``pulumi up`` would (from :mod:`gpufleet.render.ordering`, the components' own
dependency source); :mod:`.judge` replays them on a simulated cluster and judges each;
:mod:`.quota` summarises the quota per team and pool. The steps cover what the
stack registers from the model: the rendered objects and the gang-admission
controller's manifests (:func:`stack_objects`). Called by
``gpufleet.cli.diff_cmds`` and ``bench/diff_bench.py``. The JSON contract is
:meth:`Diff.to_json` (docs/diff.md).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gpufleet.crdschema import CrdSet
from gpufleet.diff.judge import Cluster, Verdict
from gpufleet.diff.quota import moved_namespaces, quota_rows, resized_pools
from gpufleet.diff.steps import Step, plan_steps
from gpufleet.kubetypes.vocab import TEAM_LABEL
from gpufleet.model.fleet import Fleet
from gpufleet.render import RenderedObject, render_all
from gpufleet.render.controller import COMPONENT, ControllerSettings
from gpufleet.render.monitoring import COMPONENT as ALERTS_COMPONENT
from gpufleet.render.monitoring import render_monitoring
from gpufleet.stack.controller import controller_manifests
from gpufleet.util import gcpause

__all__ = ["Diff", "diff_fleets"]


@dataclass
class Diff:
    quota: list[dict[str, Any]]
    steps: list[dict[str, Any]]
    namespaces: list[dict[str, str]] = field(default_factory=list)
    pools: list[dict[str, Any]] = field(default_factory=list)
    crds_checked: bool = False

    @property
    def rejected(self) -> int:
        return sum(1 for s in self.steps if s["verdict"] == "rejected")

    @property
    def blocked(self) -> int:
        return sum(1 for s in self.steps if s["verdict"] == "blocked")

    @property
    def accepted(self) -> bool:
        return not self.rejected and not self.blocked

    def to_json(self) -> dict[str, Any]:
        return {
            "quota": self.quota,
            "namespaces": self.namespaces,
            "pools": self.pools,
            "steps": self.steps,
            "summary": {
                "steps": len(self.steps),
                "rejected": self.rejected,
                "blocked": self.blocked,
                "crdsChecked": self.crds_checked,
            },
        }


def diff_fleets(
    base: Fleet, new: Fleet, crds: CrdSet | None = None, settings: ControllerSettings | None = None
) -> Diff:
    """The quota table and every step from ``base`` to ``new``, each with its verdict.

    ``settings`` are the stack's (``gpufleet plan`` reads them the same way): with
    ``prometheus_operator`` the gang alerts' PodMonitors and PrometheusRules are steps too.
    """
    with gcpause.paused():  # two whole renderings alive at once, no cycles: the collector only costs time
        return _diff(base, new, crds, settings or ControllerSettings())


def _for_live_team(verdict: Verdict, step: Step, live_teams: set[str]) -> Verdict:
    """A protected object of a team that stays in the model: retiring "it" is not what the author meant.

    The object goes because the team lost its quota on every pool of that system (a pool's
    ``system`` changed, or the quota was removed) or a namespace left it; the protection
    (:mod:`gpufleet.diff.judge`) still blocks it, and the fix says which team and why.
    """
    labels = ((step.old or {}).get("metadata") or {}).get("labels") or {}
    team = labels.get(TEAM_LABEL)
    if step.op != "delete" or not step.protect or verdict.verdict != "blocked" or team not in live_teams:
        return verdict
    fix = (
        f"team {team!r} stays in the model, so its protected objects cannot go: keep its quota on a pool of this "
        "system (revert the pool's `system` change or the quota or namespace removal), or move its work off "
        "first and retire the team, re-adding it under a new name (docs/retiring-a-team.md)"
    )
    return Verdict("blocked", f"{verdict.reason} (team {team!r} is still live in the new model)", fix)


def stack_objects(fleet: Fleet, settings: ControllerSettings | None = None) -> list[RenderedObject]:
    """What the stack registers from the model: the rendered objects, then the gang-admission controller's
    (``controller_manifests``: with the admission policies ``controller.enforcement`` and ``controller.mutations``
    ask for), then (with the stack's
    ``prometheus_operator``) the gang alerts', named as ``gpufleet.pulumi.observability``
    names them (``gang-alerts-<kind>-<name>``).

    The controller's manifests are rendered with default settings (no cert-manager, no
    prometheus-operator, no CA bundle: stack config the diff does not read), so only what
    the model changes in them shows (its fleet-context ConfigMap, written compact: only
    whether it changes matters here). Named as the component names them
    (``gang-admission-<key>``), in its registration order.
    """
    rendered = render_all(fleet)
    controller = controller_manifests(fleet, ControllerSettings(), rendered.context, indent=None)
    alerts = render_monitoring(fleet) if settings is not None and settings.prometheus_operator else []
    return [
        *rendered.objects,
        *(RenderedObject(f"{COMPONENT}-{key}", manifest, "core", False) for key, manifest in controller.items()),
        *(
            RenderedObject(f"{ALERTS_COMPONENT}-{m['kind'].lower()}-{m['metadata']['name']}", m, "core", False)
            for m in alerts
        ),
    ]


def _diff(base: Fleet, new: Fleet, crds: CrdSet | None, settings: ControllerSettings) -> Diff:
    base_objects = stack_objects(base, settings)
    new_objects = stack_objects(new, settings)
    cluster = Cluster(base_objects, crds)
    steps = []
    planned = plan_steps(base_objects, new_objects)
    live_teams = {t.name for t in new.teams if t.lifecycle != "retired"}
    for order, step in enumerate(planned, start=1):
        verdict = _for_live_team(cluster.judge(step, planned), step, live_teams)
        manifest = step.new or step.old or {}
        meta = manifest.get("metadata") or {}
        steps.append(
            {
                "order": order,
                "op": step.op,
                "apiVersion": manifest.get("apiVersion"),
                "kind": manifest.get("kind"),
                "namespace": meta.get("namespace"),
                "name": meta.get("name"),
                "resource": step.key,
                "fields": list(step.fields),
                "replaced": step.replaced,
                "why": step.why,
                "verdict": verdict.verdict,
                "reason": verdict.reason,
                "fix": verdict.fix,
            }
        )
    return Diff(quota_rows(base, new), steps, moved_namespaces(base, new), resized_pools(base, new), crds is not None)
