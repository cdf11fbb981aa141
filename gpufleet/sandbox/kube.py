"""A small client of the sandbox's API server: server-side apply, reads and bounded waits.

Built on the official ``kubernetes`` client (its dynamic client and discovery), with the
admin kubeconfig the sandbox writes. The discovery cache lives in the sandbox folder and
is dropped after CRDs are installed. Called by ``gpufleet.sandbox.up`` and the e2e tier.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, Callable, Iterable

from kubernetes import client as k8s
from kubernetes import config as k8s_config
from kubernetes import dynamic
from kubernetes.dynamic.exceptions import NotFoundError

FIELD_MANAGER = "gpufleet-sandbox"


class Kube:
    def __init__(self, kubeconfig: Path, cache_dir: Path | None = None) -> None:
        self.kubeconfig = kubeconfig
        self.api = k8s_config.new_client_from_config(config_file=str(kubeconfig))
        self._cache = str((cache_dir or kubeconfig.parent) / "discovery.json")
        self.dyn = dynamic.DynamicClient(self.api, cache_file=self._cache)

    def refresh(self) -> None:
        """Forget the discovered API groups (after CRDs were created)."""
        self.dyn.resources.invalidate_cache()

    def resource(self, api_version: str, kind: str):
        return self.dyn.resources.get(api_version=api_version, kind=kind)

    def apply(self, manifest: dict[str, Any]) -> dict[str, Any]:
        """Server-side apply (forcing conflicts: the sandbox owns what it applies)."""
        res = self.resource(manifest["apiVersion"], manifest["kind"])
        meta = manifest["metadata"]
        out = res.server_side_apply(
            body=manifest,
            name=meta["name"],
            namespace=meta.get("namespace"),
            field_manager=FIELD_MANAGER,
            force_conflicts=True,
        )
        return out.to_dict()

    def apply_all(self, manifests: Iterable[dict[str, Any]]) -> None:
        """Apply each in order; the first refusal raises :class:`Refused` naming the object."""
        for m in manifests:
            try:
                self.apply(m)
            except Exception as exc:  # noqa: BLE001 - ApiException, DynamicApiError, urllib3 errors
                meta = m.get("metadata", {})
                where = f"{meta['namespace']}/" if meta.get("namespace") else ""
                raise Refused.of(f"{m.get('kind')} {where}{meta.get('name')}", api_message(exc)) from None

    def create(self, manifest: dict[str, Any]) -> dict[str, Any]:
        res = self.resource(manifest["apiVersion"], manifest["kind"])
        return res.create(body=manifest, namespace=manifest["metadata"].get("namespace")).to_dict()

    def get(self, api_version: str, kind: str, name: str, namespace: str | None = None) -> dict[str, Any] | None:
        try:
            return self.resource(api_version, kind).get(name=name, namespace=namespace).to_dict()
        except NotFoundError:
            return None

    def list(self, api_version: str, kind: str, namespace: str | None = None, **selectors: str) -> list[dict[str, Any]]:
        out = self.resource(api_version, kind).get(namespace=namespace, **selectors).to_dict()
        return out.get("items", [])

    def delete(self, api_version: str, kind: str, name: str, namespace: str | None = None) -> None:
        try:
            self.resource(api_version, kind).delete(
                name=name, namespace=namespace, body={"propagationPolicy": "Background"}
            )
        except NotFoundError:
            pass

    def core(self) -> k8s.CoreV1Api:
        return k8s.CoreV1Api(self.api)


def api_message(exc: Exception) -> str:
    """The API server's own message of a refused request (its Status ``message``), else the exception's text."""
    import json

    body = getattr(exc, "body", None)
    try:
        return str(json.loads(body or "")["message"])
    except (TypeError, ValueError, KeyError):
        return str(exc)[:500]


class Refused(RuntimeError):
    """The API server refused an object; the message names the object and quotes the server."""

    obj: str = ""
    """The object refused (``Queue vision``, ``LocalQueue alpha/alpha``), when known."""
    message: str = ""
    """The API server's own message."""

    @classmethod
    def of(cls, obj: str, message: str) -> Refused:
        refused = cls(f"{obj}: {message}")
        refused.obj, refused.message = obj, message
        return refused


class WaitTimeout(AssertionError):
    """A bounded wait ran out; the message says what was awaited and what was last seen."""


def wait_for(what: str, probe: Callable[[], Any], timeout: float = 60.0, interval: float = 0.5) -> Any:
    """Poll ``probe`` until it returns a truthy value (returned), or raise :class:`WaitTimeout`."""
    deadline = time.monotonic() + timeout
    last: Any = None
    while True:
        try:
            last = probe()
        except Exception as exc:  # noqa: BLE001 - transient API errors count as not yet
            last = f"{type(exc).__name__}: {str(exc)[:300]}"
        else:
            if last:
                return last
        if time.monotonic() >= deadline:
            raise WaitTimeout(f"timed out after {timeout:.0f}s waiting for {what}; last seen: {last!r}"[:2000])
        time.sleep(interval)


def established(kube: Kube, names: list[str]) -> bool:
    for name in names:
        crd = kube.get("apiextensions.k8s.io/v1", "CustomResourceDefinition", name)
        conds = {c["type"]: c["status"] for c in (crd or {}).get("status", {}).get("conditions", [])}
        if conds.get("Established") != "True":
            return False
    return True
