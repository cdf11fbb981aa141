"""Reading Kueue manager Configurations for the platform rules (GANG501-GANG503).

Called by the rule modules ``gang501_*``, ``gang502_*`` and ``gang503_*``. A
Kueue manager Configuration reaches the linter in one of two shapes: the
``Configuration`` document itself (``config.kueue.x-k8s.io/v1beta1|v1beta2``) or a
ConfigMap carrying it as a YAML string under the key ``controller_manager_config.yaml``
(the kustomize ConfigMap ``kueue-manager-config`` and the Helm chart's
``<release>-manager-config``). :func:`kueue_configs` yields the parsed document with
the path it sits at, so every rule reports exact paths such as
``data[controller_manager_config.yaml].waitForPodsReady.timeout``.

Defaults follow Kueue v0.19 (research/kueue.md section 5): in ``v1beta2`` the
``waitForPodsReady`` block is on by default (timeout 30m); only the alpha feature
gate ``DisableWaitForPodsReady`` turns it off. ``v1beta1`` has ``enable`` (default
false, and timeout 5m when enabled).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any, Iterator, Mapping

from gpufleet.kubetypes.fieldpath import ROOT, FieldPath
from gpufleet.kubetypes.scheduler_config import KUEUE_CONFIG_KEY as CONFIG_KEY
from gpufleet.rules.platform._embedded import configmap_document
from gpufleet.yamlin import yamllimits

CONFIG_GROUP = "config.kueue.x-k8s.io"
DISABLE_GATE = "DisableWaitForPodsReady"
DEFAULT_TIMEOUT_V1BETA2_SECONDS = 30 * 60
DEFAULT_TIMEOUT_V1BETA1_SECONDS = 5 * 60
KINDS = (("", "ConfigMap"), (CONFIG_GROUP, "Configuration"))


@dataclass(frozen=True)
class KueueConfig:
    """One Kueue manager Configuration found in an object.

    ``base`` is the path of the Configuration inside the object (the root when the object
    is the Configuration); ``error`` is set (and ``data`` empty) when the embedded
    YAML cannot be parsed.
    """

    data: Mapping[str, Any]
    base: FieldPath
    version: str
    error: str | None = None

    def path(self, *names: str) -> FieldPath:
        return self.base.child(*names)

    @property
    def wait_block(self) -> Mapping[str, Any] | None:
        block = self.data.get("waitForPodsReady")
        return block if isinstance(block, Mapping) else None

    @property
    def gate_disables_wait(self) -> bool:
        gates = self.data.get("featureGates")
        return isinstance(gates, Mapping) and gates.get(DISABLE_GATE) is True

    @property
    def wait_enabled(self) -> bool:
        """Whether waitForPodsReady is on, as the manager would read this file."""
        if self.gate_disables_wait:
            return False
        block = self.wait_block
        if self.version == "v1beta1":
            return block is not None and block.get("enable") is True
        return True  # v1beta2 (and later): on by default since Kueue v0.19

    @property
    def default_timeout_seconds(self) -> int:
        return DEFAULT_TIMEOUT_V1BETA1_SECONDS if self.version == "v1beta1" else DEFAULT_TIMEOUT_V1BETA2_SECONDS


_read = functools.partial(yamllimits.read_embedded, where=" of the embedded document")
"""One reader (a stable cache key for :func:`yamllimits.cached`)."""


def _version(api_version: object) -> str:
    text = str(api_version or "")
    return text.rsplit("/", 1)[-1] if text.startswith(CONFIG_GROUP + "/") else "v1beta2"


def kueue_configs(obj: Mapping[str, Any]) -> Iterator[KueueConfig]:
    """Yield the Kueue manager Configuration(s) an object holds (none for other objects)."""
    api_version = str(obj.get("apiVersion", ""))
    if api_version.startswith(CONFIG_GROUP + "/") and obj.get("kind") == "Configuration":
        yield KueueConfig(obj, ROOT, _version(api_version))
        return
    embedded = configmap_document(obj, CONFIG_KEY, _read)
    if embedded is None:
        return
    base, parsed, error = embedded
    if error is not None:
        yield KueueConfig({}, base, "v1beta2", error)
    elif isinstance(parsed, Mapping):
        yield KueueConfig(parsed, base, _version(parsed.get("apiVersion")))


def deployment_gate_args(obj: Mapping[str, Any]) -> Iterator[tuple[FieldPath, str]]:
    """Yield (path, arg) for container args of a Deployment that turn ``DisableWaitForPodsReady`` on."""
    if obj.get("kind") != "Deployment":
        return
    spec = ((obj.get("spec") or {}).get("template") or {}).get("spec") or {}
    for i, container in enumerate(spec.get("containers") or ()):
        for field in ("args", "command"):
            for j, arg in enumerate((container or {}).get(field) or ()):
                if isinstance(arg, str) and _gate_on(arg):
                    yield FieldPath.of("spec", "template", "spec", "containers", i, field, j), arg


def _gate_on(arg: str) -> bool:
    if not arg.startswith("--feature-gates="):
        return False
    for item in arg.split("=", 1)[1].split(","):
        name, _, value = item.partition("=")
        if name.strip() == DISABLE_GATE and value.strip().lower() == "true":
            return True
    return False
