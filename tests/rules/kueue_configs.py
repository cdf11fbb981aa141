"""Builders of Kueue manager configurations and Volcano scheduler confs for the platform rule tests."""

from __future__ import annotations

from typing import Any

from gpufleet.yamlin import yamlio


def configuration(version: str = "v1beta2", name: str = "cfg", **fields: Any) -> dict[str, Any]:
    return {
        "apiVersion": f"config.kueue.x-k8s.io/{version}",
        "kind": "Configuration",
        "metadata": {"name": name},
        **fields,
    }


def config_map(config: dict[str, Any], name: str = "kueue-manager-config") -> dict[str, Any]:
    body = {k: v for k, v in config.items() if k != "metadata"}
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": name, "namespace": "kueue-system"},
        "data": {"controller_manager_config.yaml": yamlio.dump(body)},
    }


def volcano_conf(
    actions: str, *tiers: list[dict[str, Any]], name: str = "volcano-scheduler-configmap"
) -> dict[str, Any]:
    conf = {"actions": actions, "tiers": [{"plugins": plugins} for plugins in tiers]}
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": name, "namespace": "volcano-system"},
        "data": {"volcano-scheduler.conf": yamlio.dump(conf)},
    }
