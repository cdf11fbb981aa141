"""The steps ``pulumi up`` takes from one rendering of a fleet to the next, in Pulumi's order.

Called by :func:`gpufleet.diff.diff_fleets`. Emulates the step generator of
pulumi/pulumi **v3.259.0** (``pkg/resource/deploy/step_generator.go``) for a program
that registers every rendered object once, in ``Rendered.objects`` order:

- ``generateSteps``/``generateStepsFromDiff``: each registered resource gets a create
  (new key), an update (inputs differ), or a replacement when a ``replaceOnChanges``
  path differs (``gpufleet.render.immutable``, the same table the components pass to
  Pulumi). The components set ``deleteBeforeReplace`` on those objects (their names
  are fixed), so the old object is deleted right before the new one is created
  ("DeleteBeforeCreate implies that we must immediately delete the resource");
  dependents are not replaced with it: they depend on it through ``depends_on`` only,
  never through an input (``calculateDependentReplacements``); the Kubernetes provider
  also replaces some fields on its own, delete-before-replace too (:mod:`.provider`:
  a ConfigMap's ``data``), unless the object's name changes with them (a params ConfigMap
  named by its content): then the replacement is Pulumi's default, create-before-delete
  (``create-replacement`` now, the old object's ``delete-replaced`` with the deletes at the
  end, after the dependents were updated to the new name);
- the step executor runs a step after the steps of the resources it depends on, so the
  serial order is a topological order of the new ``depends_on`` graph, registration order
  breaking ties;
- a resource whose inputs are the same but whose ``protect`` option changed (a team's
  ``lifecycle`` moving to or from ``retired``) is a step too (``protect``/``unprotect``):
  ``pulumi up`` writes the new flag into the state without calling the provider, and a
  later delete is blocked until it has run;
- ``GenerateDeletes``: resources of the old state the program no longer registers, and the
  old halves of create-before-delete replacements, are deleted after every other step,
  dependents before what they depend on (reverse topological order of the old graph).

The dependency graph comes from :func:`gpufleet.render.ordering.depends_on_keys`, the
function ``gpufleet.pulumi.quota`` turns into ``depends_on``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Mapping

from gpufleet.diff.provider import deletes_first, provider_replace_reasons, provider_replacement
from gpufleet.kubetypes.fieldpath import ROOT, FieldPath
from gpufleet.render import RenderedObject
from gpufleet.render.immutable import replace_reasons
from gpufleet.render.ordering import depends_on_keys


@dataclass(frozen=True)
class Step:
    op: str
    """create | update | replace | delete | protect | unprotect (only Pulumi's protect flag changes)."""
    key: str
    old: dict | None
    new: dict | None
    protect: bool
    """The old state's protect flag (a protected resource cannot be deleted or replaced)."""
    fields: tuple[str, ...] = ()
    why: str = ""
    """For a replacement and its delete half: the immutable fields that changed (and why the provider replaces them)."""
    replaced: bool = False
    """True for the delete half of a replacement."""
    create_first: bool = False
    """For both halves of a create-before-delete replacement (the name changes): the old is deleted at the end."""


def topological(objects: Iterable[tuple[str, Mapping[str, Any]]]) -> list[str]:
    """Keys in dependency order (what they depend on first), registration order breaking ties."""
    pairs = list(objects)
    edges = depends_on_keys(pairs)
    done: dict[str, None] = {}
    visiting: set[str] = set()

    def visit(key: str) -> None:
        if key in done or key in visiting:  # a cycle (the renderer never makes one) is cut here
            return
        visiting.add(key)
        for dep in edges.get(key, ()):
            visit(dep)
        visiting.discard(key)
        done[key] = None

    for key, _ in pairs:
        visit(key)
    return list(done)


def changed_fields(old: Any, new: Any, path: FieldPath = ROOT) -> list[str]:
    """Printed paths (``spec.resourceGroups``) of the leaves (or lists) that differ; [] when equal."""
    if old == new:
        return []
    if isinstance(old, dict) and isinstance(new, dict):
        out: list[str] = []
        for key in [*old, *(k for k in new if k not in old)]:
            sub = path.child(str(key))
            if key not in old or key not in new:
                out.append(str(sub))
            else:
                out += changed_fields(old[key], new[key], sub)
        return out
    return [] if old == new else [str(path) or "(root)"]


RETAINED = "released from the stack, not deleted (retainOnDelete): it stays in the cluster with what runs in it"


PROTECT_WHY = {  # the reason of a step where only the protection changes; nothing changes in the cluster
    "unprotect": "protection dropped (lifecycle: retired); only the stack's state changes",
    "protect": "protection added; only the stack's state changes",
}


def plan_steps(base: Iterable[RenderedObject], new: Iterable[RenderedObject]) -> list[Step]:
    """Every step from ``base`` to ``new``, in the order ``pulumi up`` applies them."""
    base_by = {o.key: o for o in base}
    new_by = {o.key: o for o in new}
    steps: list[Step] = []
    later: dict[str, Step] = {}  # the old halves of create-before-delete replacements, deleted with the removed objects
    for key in topological((o.key, o.manifest) for o in new_by.values()):
        after = new_by[key]
        before = base_by.get(key)
        if before is None:
            steps.append(Step("create", key, None, after.manifest, False, tuple(changed_fields({}, after.manifest))))
            continue
        fields = tuple(changed_fields(before.manifest, after.manifest))
        if not fields:
            if before.protect != after.protect:  # a lifecycle change: only Pulumi's protect flag moves
                op = "unprotect" if before.protect else "protect"
                steps.append(
                    Step(op, key, before.manifest, after.manifest, before.protect, ("protect",), PROTECT_WHY[op])
                )
            continue
        forced = provider_replace_reasons(before.manifest, after.manifest)
        immutable = replace_reasons(before.manifest, after.manifest) + forced
        if immutable:
            why = ", ".join(immutable) + " cannot change in place"
            why += f": {provider_replacement(before.manifest, after.manifest)}" if forced else ""
            first = not deletes_first(before.manifest, after.manifest)
            delete = Step(
                "delete", key, before.manifest, None, before.protect, fields, why, replaced=True, create_first=first
            )
            if first:
                later[key] = delete
            else:
                steps.append(delete)
            steps.append(
                Step("replace", key, before.manifest, after.manifest, before.protect, fields, why, create_first=first)
            )
        else:
            steps.append(Step("update", key, before.manifest, after.manifest, before.protect, fields))
    # only the order among the removed objects matters, so only they are sorted
    gone = list(
        reversed(topological((o.key, o.manifest) for o in base_by.values() if o.key not in new_by or o.key in later))
    )
    steps += [
        later.get(k)
        or Step("delete", k, base_by[k].manifest, None, base_by[k].protect, why=RETAINED if base_by[k].retain else "")
        for k in gone
    ]
    return steps
