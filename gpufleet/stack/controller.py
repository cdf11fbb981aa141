"""What the gang-admission controller component registers, and in which order: one owner for both.

:func:`controller_manifests` is the controller's manifests
(:func:`gpufleet.render.controller.render_controller`) plus the rules' ValidatingAdmissionPolicies the
model's ``controller.enforcement`` asks for (:func:`gpufleet.rules.admission_policies.stack_policies`)
and the defaulting's MutatingAdmissionPolicies ``controller.mutations`` asks for
(:func:`gpufleet.mutate.policies.stack_mutating_policies`).
:func:`waits_for` is which of them must exist before which: the webhooks' own order
(:data:`gpufleet.render.controller.WAITS_FOR`) and each policy binding after its policy and the
params ConfigMap it reads (a binding whose ``paramRef`` finds no ConfigMap denies every matching
object, ``parameterNotFoundAction: Deny``), so Pulumi creates the binding last and destroys it first;
the params are named by their content (:mod:`gpufleet.render.params_configmap`), so when they change
the new ConfigMap is created before the bindings move to it and the old one is deleted after them.

Called by the Pulumi controller component (:mod:`gpufleet.pulumi.controller`), ``gpufleet plan``
(:mod:`gpufleet.cli.fleet_cmds`, through :func:`gpufleet.render.plan.build_plan`) and ``gpufleet diff``
(:func:`gpufleet.diff.stack_objects`), so the three list the same objects. Its own layer sits just above
the rules and the mutator, the lowest that may import both (pyproject.toml's layers). Pure: plain dicts.
"""

from __future__ import annotations

from typing import Any, Mapping

from gpufleet.model.fleet import Fleet
from gpufleet.mutate.policies import stack_mutating_policies
from gpufleet.render.controller import WAITS_FOR, ControllerSettings, render_controller
from gpufleet.rules.admission_policies import stack_policies

POLICY_OF = {
    "ValidatingAdmissionPolicyBinding": "ValidatingAdmissionPolicy",
    "MutatingAdmissionPolicyBinding": "MutatingAdmissionPolicy",
}
"""A binding's kind -> the kind of the policy it binds."""


def admission_policies(fleet: Fleet) -> dict[str, dict[str, Any]]:
    """The API server's own admission policies the model asks for: the rules' ValidatingAdmissionPolicies
    (``controller.enforcement``) and the defaulting's MutatingAdmissionPolicies (``controller.mutations``), with
    their bindings and params ConfigMaps. Also what ``gpufleet sandbox up`` applies beside the webhooks."""
    return {**stack_policies(fleet), **stack_mutating_policies(fleet)}


def controller_manifests(
    fleet: Fleet, settings: ControllerSettings, context: dict[str, Any] | None = None, indent: int | None = 2
) -> dict[str, dict[str, Any]]:
    """Every manifest the controller component registers, keyed as it names them (``<component>-<key>``), in order."""
    return {**render_controller(fleet, settings, context, indent), **admission_policies(fleet)}


def _binding_needs(binding: Mapping[str, Any]) -> list[tuple[str, str]]:
    spec = binding["spec"]
    needs = [(POLICY_OF[binding["kind"]], spec["policyName"])]
    if "paramRef" in spec:
        needs.append(("ConfigMap", spec["paramRef"]["name"]))
    return needs


def waits_for(manifests: Mapping[str, Mapping[str, Any]]) -> dict[str, tuple[str, ...]]:
    """Key -> the keys of ``manifests`` it is created after and destroyed before (only keys present)."""
    out = {key: tuple(k for k in needs if k in manifests) for key, needs in WAITS_FOR.items() if key in manifests}
    by_name = {(m["kind"], m["metadata"]["name"]): key for key, m in manifests.items()}
    for key, manifest in manifests.items():
        if manifest["kind"] in POLICY_OF:
            out[key] = tuple(by_name[need] for need in _binding_needs(manifest))
    return out
