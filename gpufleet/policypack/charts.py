"""Helm chart values -> the ConfigMaps the charts would render, so the platform rules apply.

Called by ``stack``. Under Pulumi the Kueue and Volcano configurations are chart
values, not objects: Kueue's ``managerConfig.controllerManagerConfigYaml`` becomes
the ConfigMap ``kueue-manager-config`` (key ``controller_manager_config.yaml``,
GANG501-GANG503) and Volcano's ``custom.scheduler_config_override`` becomes
``volcano-scheduler-configmap`` (key ``volcano-scheduler.conf``, GANG505-GANG506).
:func:`rendered_configmaps` builds those ConfigMaps from any ``kubernetes:helm.sh/*``
resource; :func:`values_path` maps a finding's path back to the chart value.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

import yaml

from gpufleet.kubetypes.fieldpath import FieldPath
from gpufleet.kubetypes.scheduler_config import KUEUE_CONFIG_KEY as KUEUE_KEY
from gpufleet.kubetypes.scheduler_config import VOLCANO_CONF_KEY as VOLCANO_KEY
from gpufleet.kubetypes.vocab import KUEUE_NAMESPACE, VOLCANO_NAMESPACE

CHART_TYPE_PREFIX = "kubernetes:helm.sh/"


@dataclass(frozen=True)
class ChartConfig:
    """Where one chart keeps a scheduler configuration, and the ConfigMap it renders it into."""

    values: tuple[str, ...]
    configmap: str
    key: str
    namespace: str


CHART_CONFIGS = (
    ChartConfig(("managerConfig", "controllerManagerConfigYaml"), "kueue-manager-config", KUEUE_KEY, KUEUE_NAMESPACE),
    ChartConfig(("custom", "scheduler_config_override"), "volcano-scheduler-configmap", VOLCANO_KEY, VOLCANO_NAMESPACE),
)


@dataclass(frozen=True)
class Rendered:
    """A ConfigMap rendered from a chart value: ``prefix`` is its data key's path, ``values`` the chart value's."""

    obj: dict[str, Any]
    prefix: FieldPath
    values: FieldPath

    def values_path(self, path: FieldPath) -> FieldPath:
        """``data[controller_manager_config.yaml].waitForPodsReady`` -> ``values.managerConfig.controllerManagerConfigYaml.waitForPodsReady``."""
        rest = path.relative_to(self.prefix)
        return self.values if rest is None else self.values + rest


def is_chart(resource_type: str) -> bool:
    return resource_type.startswith(CHART_TYPE_PREFIX)


def _value(values: Mapping[str, Any], keys: tuple[str, ...]) -> Any:
    node: Any = values
    for key in keys:
        if not isinstance(node, Mapping):
            return None
        node = node.get(key)
    return node


def rendered_configmaps(props: Mapping[str, Any]) -> list[Rendered]:
    """The scheduler ConfigMaps a chart's ``values`` render (none when the chart sets neither value)."""
    values = props.get("values")
    if not isinstance(values, Mapping):
        return []
    namespace = props.get("namespace")
    out = []
    for config in CHART_CONFIGS:
        text = _value(values, config.values)
        if text is None:
            continue
        if not isinstance(text, str):
            text = yaml.safe_dump(text, sort_keys=False)
        obj = {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {
                "name": config.configmap,
                "namespace": namespace if isinstance(namespace, str) and namespace else config.namespace,
            },
            "data": {config.key: text},
        }
        out.append(Rendered(obj, FieldPath.of("data").key(config.key), FieldPath.of("values", *config.values)))
    return out
