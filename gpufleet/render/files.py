"""The pieces of ``gpufleet render --out DIR``'s folder that the render layer owns.

Each rendered object's apply stage (:func:`stages`: cohorts and Volcano queues add their depth so parents
sort first), the file text of a manifest (:func:`dump`), the ConfigMaps the engines' charts make of gpufleet's
values (:func:`engine_config_maps`), the fleet context as plain JSON (``context/``), and the gang alerts as a
plain Prometheus rule file in ``prometheus/`` plus PodMonitors/PrometheusRules in ``monitoring/``. The folder
itself (stage sub-folders with their kustomizations, the controller and the admission policies) is laid out by
:mod:`gpufleet.stack.folder`, the lowest layer that sees the controller and the rules' policies. Pure.
"""

from __future__ import annotations

import json
import re
from typing import Any

import yaml

from gpufleet.kubetypes.scheduler_config import KUEUE_CONFIG_KEY as CONFIG_KEY
from gpufleet.kubetypes.scheduler_config import VOLCANO_CONF_KEY
from gpufleet.model.fleet import Fleet
from gpufleet.render import Rendered, RenderedObject, tree
from gpufleet.render.alerts import render_rule_file
from gpufleet.render.controller.common import CONTEXT_CONFIGMAP, CONTEXT_KEY
from gpufleet.render.coscheduling import SCHEDULER_CONFIGMAP, render_scheduler_config
from gpufleet.render.kube_state_metrics import allowlist_flag_text, helm_values
from gpufleet.render.kueue_config import render_manager_config_yaml
from gpufleet.render.meta import manifest, metadata
from gpufleet.render.monitoring import RULE_FILE, render_ksm_service_monitor, render_monitoring
from gpufleet.render.volcano import render_scheduler_conf_yaml

CONTEXT_CONFIG_MAP = CONTEXT_CONFIGMAP  # the name the controller's Deployment mounts
CONTEXT_DIR = "context"
MONITORING_DIR = "monitoring"
KSM_DIR = "kube-state-metrics"
OWN_DIRS = (CONTEXT_DIR, RULE_FILE.split("/", 1)[0], MONITORING_DIR, KSM_DIR)
"""Sub-folders ``gpufleet render`` writes (the context JSON, the plain rule file, the operator objects,
the kube-state-metrics flag, Helm values and ServiceMonitor)."""
OWN_FILE = re.compile(r"^\d{3}-[a-z0-9.-]+\.yaml$")

_Dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


_STR, _INT, _BOOL, _NULL = (f"tag:yaml.org,2002:{t}" for t in ("str", "int", "bool", "null"))
_MAP, _SEQ = "tag:yaml.org,2002:map", "tag:yaml.org,2002:seq"
_RESOLVED: dict[tuple[str, Any], str] = {}  # (scalar text, implicit flags) -> the tag the resolver decides
_RESOLVED_MAX = 1 << 16  # entries (cleared when full): a fleet repeats the same keys and values


class _FileDumper(_Dumper):  # type: ignore[misc, valid-type]  # the dumper base is chosen at import time (the C dumper when libyaml is there)
    """Block style, no aliases, multi-line strings (embedded configs) as literal blocks.

    :meth:`represent_data` builds the nodes of plain dicts, lists, strings, integers,
    booleans and None directly, as PyYAML's safe representer builds them with these
    options (``default_flow_style=False``, no default style, insertion order, no aliases);
    every other type takes PyYAML's own path. PyYAML's representer looks each value's type
    up and tracks aliases per node; its resolver runs its regexes twice per scalar (the C
    emitter asks it whether the text would read back as another type): both were a large
    part of ``gpufleet render --out``'s time.
    """

    def ignore_aliases(self, data: Any) -> bool:
        return True

    def resolve(self, kind: Any, value: Any, implicit: Any) -> Any:
        """PyYAML's answer (its resolver is a pure function of these: no path resolvers), remembered for scalars."""
        if kind is not yaml.ScalarNode:
            return super().resolve(kind, value, implicit)
        key = (value, implicit)
        tag = _RESOLVED.get(key)
        if tag is None:
            if len(_RESOLVED) >= _RESOLVED_MAX:
                _RESOLVED.clear()
            tag = _RESOLVED[key] = super().resolve(kind, value, implicit)
        return tag

    def represent_data(self, data: Any) -> yaml.Node:
        kind = type(data)
        if kind is str:
            return yaml.ScalarNode(_STR, data, style="|" if "\n" in data else None)
        if kind is dict:
            node = self.represent_data
            return yaml.MappingNode(_MAP, [(node(k), node(v)) for k, v in data.items()], flow_style=False)
        if kind is list:
            node = self.represent_data
            return yaml.SequenceNode(_SEQ, [node(item) for item in data], flow_style=False)
        if kind is bool:
            return yaml.ScalarNode(_BOOL, "true" if data else "false")
        if kind is int:
            return yaml.ScalarNode(_INT, str(data))
        if data is None:
            return yaml.ScalarNode(_NULL, "null")
        represented: yaml.Node = super().represent_data(data)
        return represented


def _str(dumper: yaml.SafeDumper, data: str) -> yaml.ScalarNode:
    return dumper.represent_scalar("tag:yaml.org,2002:str", data, style="|" if "\n" in data else None)


_FileDumper.add_representer(str, _str)  # str subclasses, through PyYAML's own path


def dump(obj: dict[str, Any]) -> str:
    """One manifest as file text (deterministic; embedded configs readable as literal blocks)."""
    return yaml.dump(obj, Dumper=_FileDumper, sort_keys=False, default_flow_style=False, width=120, allow_unicode=True)


_STAGES = {
    "Namespace": 0,
    "PriorityClass": 1,
    "WorkloadPriorityClass": 2,
    "Topology": 3,
    "ResourceFlavor": 4,
    "Cohort": 5,
    "ClusterQueue": 6,
    "LocalQueue": 7,
    "Queue": 8,
    "ValidatingAdmissionPolicy": 9,
    "ValidatingAdmissionPolicyBinding": 9,
}


def context_json(context: dict[str, Any]) -> str:
    return json.dumps(context, indent=2) + "\n"


def _config_map(fleet: Fleet, name: str, namespace: str, key: str, text: str) -> dict[str, Any]:
    return manifest("v1", "ConfigMap", metadata(fleet, name, namespace=namespace), data={key: text})


def engine_config_maps(fleet: Fleet) -> list[dict[str, Any]]:
    """The ConfigMaps the Kueue (and Volcano, scheduler-plugins) charts would create from gpufleet's values."""
    kueue = fleet.engines.kueue
    out = [
        _config_map(
            fleet,
            f"{kueue.release_name}-manager-config",
            kueue.namespace,
            CONFIG_KEY,
            render_manager_config_yaml(fleet),
        )
    ]
    volcano = fleet.engines.volcano
    if volcano.enabled:
        out.append(
            _config_map(
                fleet,
                f"{volcano.release_name}-scheduler-configmap",
                volcano.namespace,
                VOLCANO_CONF_KEY,
                render_scheduler_conf_yaml(fleet),
            )
        )
    if fleet.pools_of("coscheduling"):
        out.append(
            _config_map(
                fleet,
                SCHEDULER_CONFIGMAP,
                fleet.engines.coscheduling.namespace,
                "scheduler-config.yaml",
                dump(render_scheduler_config(fleet)),
            )
        )
    return out


def context_config_map(fleet: Fleet, context: dict[str, Any]) -> dict[str, Any] | None:
    """The fleet context ConfigMap the admission controller mounts (None when it is disabled)."""
    if not fleet.controller.enabled:
        return None
    return _config_map(fleet, CONTEXT_CONFIG_MAP, fleet.controller.namespace, CONTEXT_KEY, context_json(context))


def config_maps(fleet: Fleet, rendered: Rendered) -> list[dict[str, Any]]:
    context = context_config_map(fleet, rendered.context)
    return engine_config_maps(fleet) + ([context] if context else [])


def _prefix(obj: RenderedObject, cohort_depth: dict[str, int], queue_depth: dict[str, int]) -> str:
    kind = obj.manifest["kind"]
    name = obj.manifest["metadata"]["name"]
    depth = cohort_depth.get(name, 0) if kind == "Cohort" else queue_depth.get(name, 0) if kind == "Queue" else 0
    return f"0{_STAGES[kind]}{min(depth, 9)}"


def _queue_depths(rendered: Rendered) -> dict[str, int]:
    parent = {
        o.manifest["metadata"]["name"]: o.manifest["spec"].get("parent")
        for o in rendered.objects
        if o.manifest["kind"] == "Queue"
    }
    out = {}
    for name in parent:
        depth, cur, seen = 0, parent[name], {name}
        while cur in parent and cur not in seen:
            seen.add(cur)
            depth, cur = depth + 1, parent[cur]
        out[name] = depth
    return out


def stages(fleet: Fleet, rendered: Rendered) -> dict[str, str]:
    """Each rendered object's key -> its apply stage as three digits (``010`` PriorityClasses … ``07x`` LocalQueues,
    ``08x`` Volcano queues; cohorts and Volcano queues add their depth, so parents come first; ``09x`` policies)."""
    cohort_depth, queue_depth = tree.depths(fleet), _queue_depths(rendered)
    return {obj.key: _prefix(obj, cohort_depth, queue_depth) for obj in rendered.objects}


def rule_file_text(fleet: Fleet) -> str:
    """The gang and controller alerts as a plain Prometheus rule file (``rule_files:`` of a Prometheus without the operator)."""
    header = (
        f"# gpufleet gang and admission-controller alerts of fleet {fleet.name}, rendered from the fleet model.\n"
        "# Load with rule_files: in prometheus.yml; check with `promtool check rules`. See docs/observability.md.\n"
    )
    return header + dump(render_rule_file(fleet))


def monitoring_files(fleet: Fleet) -> dict[str, str]:
    """The plain rule file, the PodMonitors and PrometheusRules in ``monitoring/`` (for the operator), and in
    ``kube-state-metrics/`` the flag to paste, the chart's Helm values and a ServiceMonitor (use one of the two).

    All sit in sub-folders, which ``kubectl apply -f DIR`` does not read: the
    prometheus-operator CRDs may be absent, and the plain file is not a manifest.
    """
    if not fleet.observability.enabled:
        return {}
    files = {RULE_FILE: rule_file_text(fleet)}
    for m in render_monitoring(fleet):
        files[f"{MONITORING_DIR}/{m['kind'].lower()}-{m['metadata']['name']}.yaml"] = dump(m)
    files[f"{KSM_DIR}/metric-labels-allowlist.txt"] = allowlist_flag_text(fleet)
    files[f"{KSM_DIR}/helm-values.yaml"] = (
        "# Values for the kube-state-metrics Helm chart (under kube-state-metrics: in kube-prometheus-stack);\n"
        "# the gang alerts need these labels and honorLabels. See docs/observability.md.\n" + dump(helm_values(fleet))
    )
    files[f"{KSM_DIR}/servicemonitor.yaml"] = dump(render_ksm_service_monitor(fleet))
    return files
