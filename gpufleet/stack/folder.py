"""``gpufleet render --out DIR``: every object ``pulumi up`` creates for the model, as a GitOps folder.

One sub-folder per apply stage, each with a ``kustomization.yaml`` listing its files in apply order, and a
root ``kustomization.yaml`` listing the stages (``sortOptions: fifo``, so ``kubectl apply -k DIR`` keeps that
order). A stage folder is named ``<wave>-<what>`` and its kustomization stamps ``argocd.argoproj.io/sync-wave:
"<wave>"`` on its objects, so an Argo CD Application on the folder syncs the stages in the same order:

- ``000-namespaces``: the team namespaces and the controller's;
- ``010``…``081``: the quota objects (PriorityClasses, Kueue's WorkloadPriorityClasses, Topologies,
  ResourceFlavors, Cohorts with their depth added so parents come first, ClusterQueues, LocalQueues, Volcano
  queues likewise), :func:`gpufleet.render.files.stage` numbers them;
- ``090-admission-policies``: static partitioning, the namespace-label guard, and the gang rules'
  ValidatingAdmissionPolicies with their params ConfigMaps and bindings (and the defaulting's
  MutatingAdmissionPolicies), each binding after its policy and params (:func:`gpufleet.stack.controller.waits_for`);
- ``095-controller-tls``: the cert-manager chain when the stack uses cert-manager, or the serving Secret when the
  caller made one (``--include-private-key``); otherwise absent (docs/gitops.md says which Secret to create);
- ``100-controller``: ServiceAccount, the fleet context ConfigMap, Deployment, PodDisruptionBudget, Service,
  NetworkPolicy (and ServiceMonitor with prometheus-operator);
- ``110-webhooks``: the Validating and Mutating webhook configurations, once their backend serves.

The objects are the ones the Pulumi components register (:func:`gpufleet.render.render_all`'s objects,
:func:`gpufleet.render.controller.render_controller`, :func:`gpufleet.stack.controller.admission_policies`,
:func:`gpufleet.render.monitoring.render_monitoring`), so the two paths cannot drift
(tests/program/test_render_equals_program.py). What only Pulumi makes stays in its adapter: the pulumi-tls
key and the ``caBundle`` taken from it (the folder's webhooks carry no ``caBundle`` unless one is given, or
cert-manager's ``cert-manager.io/inject-ca-from`` annotation with cert-manager). Outside the root
kustomization: ``engines/`` (the charts' values and the ConfigMaps they make of them: install the charts
first), ``monitoring/`` (prometheus-operator objects: in the root when the stack says the operator is there),
``prometheus/``, ``kube-state-metrics/`` and ``context/``. Pure: returns {relative path: text}.
Called by ``gpufleet.cli.fleet_cmds`` (``render``) and the tests.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Iterable, Mapping

import yaml

from gpufleet.model.coscheduling import CoschedulingEngine
from gpufleet.model.fleet import Fleet, KueueEngine, VolcanoEngine
from gpufleet.render import Rendered
from gpufleet.render import files as flat
from gpufleet.render.controller import CONTEXT_KEY, ControllerSettings, render_controller, tls_secret
from gpufleet.stack.controller import admission_policies

KUSTOMIZATION = "kustomization.yaml"
WAVE = "argocd.argoproj.io/sync-wave"
ENGINES_DIR = "engines"
POLICIES, TLS, CONTROLLER, WEBHOOKS = "090-admission-policies", "095-controller-tls", "100-controller", "110-webhooks"
QUOTA_FOLDERS = {
    "PriorityClass": "priorityclasses",
    "WorkloadPriorityClass": "workloadpriorityclasses",
    "Topology": "topologies",
    "ResourceFlavor": "resourceflavors",
    "Cohort": "cohorts",
    "ClusterQueue": "clusterqueues",
    "LocalQueue": "localqueues",
    "Queue": "volcano-queues",
    "Namespace": "namespaces",
}
POLICY_KINDS = frozenset({"ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding"})
TLS_KINDS = frozenset({"Issuer", "Certificate", "Secret"})
WEBHOOK_KINDS = frozenset({"ValidatingWebhookConfiguration", "MutatingWebhookConfiguration"})


@dataclass(frozen=True)
class Stage:
    folder: str
    objects: tuple[tuple[str, dict[str, Any]], ...]
    """(file stem, manifest) in apply order."""

    @property
    def wave(self) -> str:
        return str(int(self.folder.split("-", 1)[0]))


def _add(stages: dict[str, list[tuple[str, dict[str, Any]]]], folder: str, key: str, manifest: dict[str, Any]) -> None:
    stages.setdefault(folder, []).append((key, manifest))


def stages(
    fleet: Fleet, rendered: Rendered, settings: ControllerSettings, tls: Mapping[str, str] | None = None
) -> list[Stage]:
    """Every object of the folder's root kustomization, by stage, in apply order.

    ``tls``: the serving Secret's PEMs (``tls.crt``, ``tls.key``, ``ca.crt``) when the caller made them; the
    webhooks then carry their CA as ``caBundle`` (the caller encodes it in ``settings.ca_bundle``)."""
    out: dict[str, list[tuple[str, dict[str, Any]]]] = {}
    numbers = flat.stages(fleet, rendered)
    for obj in rendered.objects:
        kind = obj.manifest["kind"]
        folder = POLICIES if kind in POLICY_KINDS else f"{numbers[obj.key]}-{QUOTA_FOLDERS[kind]}"
        _add(out, folder, obj.key, obj.manifest)
    controller = render_controller(fleet, settings, rendered.context)
    for key, manifest in controller.items():
        kind = manifest["kind"]
        if kind == "Namespace":
            _add(out, "000-namespaces", f"namespace-{manifest['metadata']['name']}", manifest)
        elif kind in TLS_KINDS:
            _add(out, TLS, key, manifest)
        elif kind in WEBHOOK_KINDS:
            _add(out, WEBHOOKS, key, manifest)
        else:
            _add(out, CONTROLLER, key, manifest)
    if controller and tls is not None and not settings.cert_manager:
        _add(out, TLS, "secret-tls", tls_secret(fleet, dict(tls)))
    for key, manifest in admission_policies(fleet).items():
        _add(out, POLICIES, key, manifest)
    return [Stage(folder, tuple(out[folder])) for folder in sorted(out)]


def kustomization(resources: Iterable[str], wave: str | None = None, comment: str = "") -> str:
    """A ``kustomization.yaml``; the stage's objects carry ``wave`` as Argo CD's sync wave."""
    data: dict[str, Any] = {"apiVersion": "kustomize.config.k8s.io/v1beta1", "kind": "Kustomization"}
    if wave is not None:
        data["commonAnnotations"] = {WAVE: wave}
    else:
        data["sortOptions"] = {"order": "fifo"}  # apply in the listed order, not kustomize's own by kind
    data["resources"] = list(resources)
    return comment + flat.dump(data)


ROOT_COMMENT = (
    "# Everything `pulumi up` creates for this fleet model, in apply order (gpufleet render).\n"
    "# Install the engines' Helm charts first (engines/ holds their values), then:\n"
    "#   kubectl apply --server-side -k .     or an Argo CD Application / Flux Kustomization on this folder.\n"
    "# See docs/gitops.md.\n"
)


def folder_files(
    fleet: Fleet, rendered: Rendered, settings: ControllerSettings, tls: Mapping[str, str] | None = None
) -> dict[str, str]:
    """{relative path: file text} for ``gpufleet render --out DIR``; the root kustomization lists what to apply."""
    files: dict[str, str] = {}
    roots = []
    for stage in stages(fleet, rendered, settings, tls):
        names = [f"{i:03d}-{key}.yaml" for i, (key, _) in enumerate(stage.objects)]
        for name, (_, manifest) in zip(names, stage.objects):
            files[f"{stage.folder}/{name}"] = flat.dump(manifest)
        files[f"{stage.folder}/{KUSTOMIZATION}"] = kustomization(names, stage.wave)
        roots.append(stage.folder)
    files.update(engine_files(fleet, rendered))
    monitoring = flat.monitoring_files(fleet)
    operator_objects = sorted(p.split("/", 1)[1] for p in monitoring if p.startswith(f"{flat.MONITORING_DIR}/"))
    if operator_objects:
        monitoring[f"{flat.MONITORING_DIR}/{KUSTOMIZATION}"] = kustomization(operator_objects, str(ALERTS_WAVE))
        if settings.prometheus_operator:
            roots.append(flat.MONITORING_DIR)
    files.update(monitoring)
    files[f"{flat.CONTEXT_DIR}/{CONTEXT_KEY}"] = flat.context_json(rendered.context)
    files[KUSTOMIZATION] = kustomization(roots, comment=ROOT_COMMENT)
    return dict(sorted(files.items()))


ALERTS_WAVE = 120
"""The gang alerts' wave: after the controller, whose namespace they may share."""


def engine_files(fleet: Fleet, rendered: Rendered) -> dict[str, str]:
    """``engines/``: each chart's values (what the Pulumi stack installs it with) and the ConfigMap it makes of them."""
    files = {}
    engines = fleet.engines
    values: dict[str, tuple[dict[str, Any] | None, KueueEngine | VolcanoEngine | CoschedulingEngine]] = {
        "kueue": (rendered.kueue_values, engines.kueue),
        "volcano": (rendered.volcano_values, engines.volcano),
        "coscheduling": (rendered.coscheduling_values, engines.coscheduling),
    }
    for name, (chart_values, engine) in values.items():
        if chart_values is None:
            continue
        header = (
            f"# Helm values for the {name} chart, version {engine.chart_version}, release {engine.release_name} in\n"
            f"# namespace {engine.namespace}: install it with these before applying the folder (docs/gitops.md).\n"
        )
        files[f"{ENGINES_DIR}/{name}-values.yaml"] = header + flat.dump(chart_values)
    for manifest in flat.engine_config_maps(fleet):
        files[f"{ENGINES_DIR}/configmap-{manifest['metadata']['name']}.yaml"] = flat.dump(manifest)
    return files


STAGE_DIR = re.compile(r"^\d{3}-[a-z-]+$")


def is_own(name: str, is_dir: bool) -> bool:
    """Whether a top-level entry of DIR is one ``render`` writes (or wrote: a flat ``NNN-*.yaml`` of older
    versions), so a re-render may replace the folder."""
    if is_dir:
        return name in (*flat.OWN_DIRS, ENGINES_DIR) or bool(STAGE_DIR.match(name))
    return name == KUSTOMIZATION or bool(flat.OWN_FILE.match(name))


def stream(files: Mapping[str, str]) -> str:
    """What the root kustomization applies, as one YAML stream in apply order (``render --out -``)."""
    texts = []
    root = _resources(files[KUSTOMIZATION])
    for folder in root:
        for name in _resources(files[f"{folder}/{KUSTOMIZATION}"]):
            texts.append(files[f"{folder}/{name}"])
    return "---\n".join(texts)


def _resources(text: str) -> list[str]:
    return list(yaml.safe_load(text)["resources"])
