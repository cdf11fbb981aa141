"""Reading Volcano scheduler configurations for GANG505 and GANG506.

Called by the rule modules ``gang505_*`` and ``gang506_*``. The Volcano scheduler
reads its configuration from a ConfigMap key ``volcano-scheduler.conf`` (a YAML string:
``actions: "enqueue, allocate, backfill"`` and ``tiers[].plugins[]``), by default the
ConfigMap ``volcano-scheduler-configmap`` in ``volcano-system``. :func:`volcano_confs`
yields the parsed conf with its path (``data[volcano-scheduler.conf]``) so rules can
report ``data[volcano-scheduler.conf].tiers[0].plugins[1].enablePreemptable``.
Per-plugin ``enable*`` switches default to true when omitted
(``pkg/scheduler/plugins/defaults.go``, research/volcano.md section 4).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterator, Mapping

from gpufleet.kubetypes.fieldpath import FieldPath
from gpufleet.kubetypes.scheduler_config import VOLCANO_CONF_KEY as CONF_KEY
from gpufleet.rules.platform._embedded import configmap_document
from gpufleet.yamlin import yamllimits

KINDS = (("", "ConfigMap"),)


@dataclass(frozen=True)
class Plugin:
    name: str
    path: FieldPath
    args: Mapping[str, Any]
    tier: int = 0

    def enabled(self, switch: str) -> bool:
        """A per-plugin switch such as ``enablePreemptable``; omitted means true."""
        value = self.args.get(switch)
        return value is not False and str(value).lower() != "false"


@dataclass(frozen=True)
class VolcanoConf:
    base: FieldPath
    actions: tuple[str, ...]
    plugins: tuple[Plugin, ...]
    error: str | None = None

    def path(self, *names: str) -> FieldPath:
        return self.base.child(*names)

    def plugin(self, name: str) -> Plugin | None:
        return next((p for p in self.plugins if p.name == name), None)


def _plugins(conf: Mapping[str, Any], base: FieldPath) -> Iterator[Plugin]:
    tiers = conf.get("tiers")
    for t, tier in enumerate(tiers if isinstance(tiers, list) else ()):
        plugins = tier.get("plugins") if isinstance(tier, Mapping) else None
        for p, plugin in enumerate(plugins if isinstance(plugins, list) else ()):
            if isinstance(plugin, Mapping) and plugin.get("name"):
                yield Plugin(str(plugin["name"]), base.child("tiers").index(t).child("plugins").index(p), plugin, t)


def volcano_confs(obj: Mapping[str, Any]) -> Iterator[VolcanoConf]:
    """Yield the Volcano scheduler conf a ConfigMap holds (nothing for other objects)."""
    embedded = configmap_document(obj, CONF_KEY, yamllimits.read_embedded)
    if embedded is None:
        return
    base, parsed, error = embedded
    if error is not None or not isinstance(parsed, Mapping):
        yield VolcanoConf(base, (), (), error or "the scheduler conf is not a YAML mapping")
        return
    actions = tuple(a.strip() for a in str(parsed.get("actions") or "").split(",") if a.strip())
    yield VolcanoConf(base, actions, tuple(_plugins(parsed, base)))
