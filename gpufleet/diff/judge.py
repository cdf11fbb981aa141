"""Each step judged against the cluster state at that moment, by the logic that would judge it.

Called by :func:`gpufleet.diff.diff_fleets`. The simulated cluster starts as the base
rendering (what the last ``pulumi up`` applied) and takes each accepted step in order;
a rejected or blocked step leaves it unchanged. A step is:

- **blocked** when it cannot complete: Pulumi itself refuses it (deleting or replacing
  a resource whose state is protected: ``pkg/resource/deploy/step.go``
  ``DeleteStep.Apply`` and ``step_generator.go`` "unable to replace resource ... marked
  for protection", pulumi v3.259.0; gpufleet protects a team's quota objects until it is
  ``retired``), or the delete waits forever on Kueue's ``resource-in-use`` finalizer (a
  ResourceFlavor that ClusterQueues name, a Topology that ResourceFlavors name), and the
  create half of such a replacement waits for it;
- **rejected** when the API server would refuse it: the CRD schema and CEL rules
  (:class:`gpufleet.crdschema.CrdSet`, with the ``oldSelf`` transition rules on
  update), Volcano's queue webhook (:mod:`gpufleet.diff.volcano_queue`), Kueue's
  webhooks and the built-in PriorityClass rules (:mod:`gpufleet.diff.kueue_rules`),
  or an object that already exists;
- **ok** otherwise.

Steps run in the serial order of :mod:`gpufleet.diff.steps`, but Pulumi runs steps of
resources that do not depend on each other in parallel: a Volcano queue's later
siblings (same parent) are therefore seen at the larger of their old and new quota.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

from gpufleet.crdschema import CrdSet
from gpufleet.diff import kueue_rules, volcano_queue
from gpufleet.diff.provider import replacement_note
from gpufleet.diff.steps import Step
from gpufleet.kubetypes import quantity
from gpufleet.render import RenderedObject

RETIRE_FIX = (
    "retire the team first: set `lifecycle: draining`, wait until nothing is admitted, set "
    "`lifecycle: retired` and `pulumi up`, then remove it (docs/retiring-a-team.md)"
)

Ref = tuple[str, str, str]  # (kind, namespace, name)
UpdateRule = Callable[[Mapping[str, Any], Mapping[str, Any]], list[str]]
UPDATE_RULES: dict[tuple[str, str], tuple[str, UpdateRule]] = {
    ("kueue.x-k8s.io/v1beta2", "ClusterQueue"): ("Kueue ClusterQueue webhook", kueue_rules.cluster_queue_update),
    ("kueue.x-k8s.io/v1beta2", "Cohort"): ("Kueue Cohort webhook", kueue_rules.cohort_update),
    ("scheduling.k8s.io/v1", "PriorityClass"): ("built-in PriorityClass validation", kueue_rules.priority_class_update),
}


@dataclass(frozen=True)
class Verdict:
    verdict: str
    """ok | rejected | blocked."""
    reason: str
    fix: str = ""


def ref(manifest: Mapping[str, Any]) -> Ref:
    meta = manifest.get("metadata") or {}
    return manifest.get("kind", ""), meta.get("namespace", ""), meta.get("name", "")


class Cluster:
    """The objects the cluster holds, step by step."""

    def __init__(self, base: list[RenderedObject], crds: CrdSet | None) -> None:
        self.objects: dict[Ref, dict] = {ref(o.manifest): o.manifest for o in base}
        self.crds = crds
        self.concurrent: dict[str, Step] = {}
        self.blocked_deletes: dict[str, Verdict] = {}
        self.volcano: dict[str, dict] = {
            name: m for (kind, _, name), m in self.objects.items() if kind == "Queue" and _is_volcano(m)
        }
        self._index: dict[str, list[str]] | None = None

    def queues(self) -> tuple[dict[str, dict], dict[str, list[str]]]:
        """The Volcano queues the webhook's informer would list (siblings at their worst) and their parent index."""
        if self._index is None:
            self._index = volcano_queue.children_index(self.volcano)
        if not self.concurrent:
            return self.volcano, self._index
        queues = dict(self.volcano)
        index = {parent: list(names) for parent, names in self._index.items()}
        for name, sibling in self.concurrent.items():
            if name in queues:
                index[_parent_of(queues[name])].remove(name)
            queues[name] = _worst_case(sibling.old, sibling.new or {})
            index.setdefault(_parent_of(queues[name]), []).append(name)
        return queues, index

    def judge(self, step: Step, others: Sequence[Step] = ()) -> Verdict:
        """The verdict of ``step``; ``others`` are the plan's other steps (siblings among them may run in any order)."""
        self.concurrent = _concurrent_siblings(step, others)
        verdict = self._judge(step)
        self.concurrent = {}
        if step.op == "delete" and step.replaced and verdict.verdict != "ok":
            self.blocked_deletes[step.key] = verdict
        if verdict.verdict == "ok":
            self._apply(step)
        return verdict

    def _apply(self, step: Step) -> None:
        manifest = (step.old if step.op == "delete" else step.new) or {}
        if step.op == "delete":
            self.objects.pop(ref(manifest), None)
        else:
            self.objects[ref(manifest)] = manifest
        if _is_volcano(manifest):
            name = ref(manifest)[2]
            previous = self.volcano.pop(name, None)
            if self._index is not None and previous is not None:
                self._index[_parent_of(previous)].remove(name)
            if step.op != "delete":
                self.volcano[name] = manifest
                if self._index is not None:
                    self._index.setdefault(_parent_of(manifest), []).append(name)

    def _judge(self, step: Step) -> Verdict:
        if step.op in ("protect", "unprotect"):
            return Verdict("ok", step.why)
        if step.op == "delete" and step.protect:
            what = "replace" if step.replaced else "delete"
            return Verdict(
                "blocked", f"Pulumi refuses to {what} a protected resource: it may hold admitted work", RETIRE_FIX
            )
        if step.op == "delete":
            return self._delete(step.old or {}, step)
        manifest = step.new or {}
        live = self.objects.get(ref(manifest))
        if step.op == "replace" and live is not None and self.blocked_deletes.get(step.key):
            first = self.blocked_deletes[step.key]
            return Verdict(
                "blocked",
                f"waits for the delete of the old object, which does not complete ({first.reason})",
                first.fix,
            )
        if step.op in ("create", "replace") and live is not None:
            return Verdict(
                "rejected",
                f"{manifest['kind']} {ref(manifest)[2]} already exists",
                "delete it before creating it again",
            )
        errors = self._schema(live if step.op == "update" else None, manifest)
        errors += self._admission("UPDATE" if step.op == "update" else "CREATE", live, manifest)
        if errors:
            return Verdict("rejected", "; ".join(errors), _fix(step, errors))
        return Verdict("ok", self._ok_reason(step))

    def _schema(self, live: dict | None, manifest: dict) -> list[str]:
        if self.crds is None or not self.crds.knows(manifest):
            return []
        issues = self.crds.validate(manifest)
        if live is not None:
            issues += self.crds.validate_update(live, manifest)
        return [f"CRD: {i.path}: {i.message}" for i in issues]

    def _admission(self, operation: str, live: dict | None, manifest: dict) -> list[str]:
        if _is_volcano(manifest):
            queues, index = self.queues()
            return [
                f"Volcano queue webhook: {e}"
                for e in volcano_queue.admit(operation, ref(manifest)[2], manifest, live, queues, children=index)
            ]
        rule = UPDATE_RULES.get((manifest.get("apiVersion", ""), manifest.get("kind", "")))
        if rule is None or (operation == "CREATE" and manifest.get("kind") == "PriorityClass"):
            return []
        name, check = rule
        return [f"{name}: {e}" for e in check(live or {}, manifest)]

    def _delete(self, old: dict, step: Step) -> Verdict:
        if _is_volcano(old):
            queues, index = self.queues()
            errors = volcano_queue.admit("DELETE", ref(old)[2], None, old, queues, children=index)
            if errors:
                return Verdict(
                    "rejected",
                    "; ".join(f"Volcano queue webhook: {e}" for e in errors),
                    "delete or move its child queues first",
                )
        holders, users = _users(old, self.objects)
        if users:
            shown = ", ".join(users[:3]) + (" ..." if len(users) > 3 else "")
            return Verdict(
                "blocked",
                f"the API server accepts the delete, but Kueue's finalizer kueue.x-k8s.io/resource-in-use keeps "
                f"the {old['kind']} while {holders} name it ({shown}): the delete never completes and "
                "Pulumi waits until it times out",
                NEW_POOL_FIX,
            )
        if step.replaced and step.create_first:
            return Verdict(
                "ok",
                _noted(
                    f"the old object deleted, after its replacement was created and what depends on it "
                    f"updated: {step.why}",
                    old,
                ),
            )
        if step.replaced:
            return Verdict("ok", _noted(f"deleted, to be created again by the next step: {step.why}", old))
        return Verdict("ok", step.why or "deleted")

    @staticmethod
    def _ok_reason(step: Step) -> str:
        if step.op == "replace" and step.create_first:
            return _noted(f"replaced (create the new one now, delete the old one at the end): {step.why}", step.new)
        if step.op == "replace":
            return _noted(f"replaced (delete, then create): {step.why}", step.new)
        return "created" if step.op == "create" else "updated in place"


def _noted(reason: str, manifest: Mapping[str, Any] | None) -> str:
    """``reason``, then what the replacement means for what reads the object (:func:`provider.replacement_note`)."""
    note = replacement_note(manifest)
    return f"{reason}; {note}" if note else reason


def _parent_of(queue: Mapping[str, Any]) -> str:
    return (queue.get("spec") or {}).get("parent") or ""


def _is_volcano(manifest: Mapping[str, Any]) -> bool:
    return manifest.get("kind") == "Queue" and str(manifest.get("apiVersion", "")).startswith("scheduling.volcano.sh/")


def _concurrent_siblings(step: Step, others) -> dict[str, Step]:
    """The plan's other Volcano queue creates/updates under the same parent: nothing orders them.

    Pulumi's step executor runs steps whose resources do not depend on each other in
    parallel, so a sibling's step may land before or after this one; the judge sees
    each sibling at the larger of its old and new quota.
    """
    new = step.new or {}
    if step.op not in ("create", "update") or not _is_volcano(new):
        return {}
    parent = (new.get("spec") or {}).get("parent")
    out = {}
    for other in others:
        manifest = other.new or {}
        if (
            other.op in ("create", "update")
            and _is_volcano(manifest)
            and other.key != step.key
            and (manifest.get("spec") or {}).get("parent") == parent
        ):
            out[ref(manifest)[2]] = other
    return out


def _worst_case(before: Mapping[str, Any] | None, after: Mapping[str, Any]) -> dict:
    """A queue at the larger of its old and new quota, per field and resource.

    A queue that moves to another parent counts under the new parent with its new quota
    only (until it moves it is not there at all).
    """
    if before is None or (before.get("spec") or {}).get("parent") != (after.get("spec") or {}).get("parent"):
        return dict(after)
    spec = dict(after.get("spec") or {})
    old = before.get("spec") or {}
    for field in ("deserved", "capability"):
        spec[field] = _max_resources(old.get(field), spec.get(field))
    spec["guarantee"] = {
        "resource": _max_resources(
            (old.get("guarantee") or {}).get("resource"), (spec.get("guarantee") or {}).get("resource")
        )
    }
    return {**after, "spec": spec}


def _max_resources(a: Mapping[str, str] | None, b: Mapping[str, str] | None) -> dict[str, str]:
    out = dict(a or {})
    for res, value in (b or {}).items():
        if res not in out or quantity.parse(value) > quantity.parse(out[res]):
            out[res] = value
    return out


def _fix(step: Step, errors: list[str]) -> str:
    if any("immutable" in e or "may not be changed" in e for e in errors):
        return "replace the object (gpufleet.render.immutable lists the field, so the components replace it)"
    if any("sum of children" in e for e in errors):
        return "order the change so the parent queue always covers its children (docs/diff.md)"
    return "change the model so the object passes admission"


def _users(old: Mapping[str, Any], objects: Mapping[Ref, dict]) -> tuple[str, list[str]]:
    """(what holds it, names) for a Kueue object whose ``kueue.x-k8s.io/resource-in-use`` finalizer keeps it.

    Kueue v0.19.2: ``pkg/controller/core/resourceflavor_controller.go`` removes a flavor's
    finalizer only when no ClusterQueue names the flavor; ``pkg/controller/tas/topology_controller.go``
    a Topology's only when no ResourceFlavor names the topology.
    """
    name = ref(old)[2]
    if old.get("kind") == "ResourceFlavor":
        return "ClusterQueues", sorted(
            n
            for (kind, _, n), m in objects.items()
            if kind == "ClusterQueue"
            and any(
                f.get("name") == name
                for g in (m.get("spec") or {}).get("resourceGroups") or ()
                for f in g.get("flavors") or ()
            )
        )
    if old.get("kind") == "Topology":
        return "ResourceFlavors", sorted(
            n
            for (kind, _, n), m in objects.items()
            if kind == "ResourceFlavor" and (m.get("spec") or {}).get("topologyName") == name
        )
    return "", []


NEW_POOL_FIX = (
    "add the pool under a new name with the new settings, move the teams' quota to it, then remove the "
    "old pool (its flavor and topology are then deleted once nothing names them)"
)
