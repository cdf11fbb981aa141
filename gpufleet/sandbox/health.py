"""When each sandbox process is ready, by its name: one probe per component, and how long to wait for it.

Called by ``gpufleet.sandbox.up`` when it starts each process, and by
``gpufleet.sandbox.faults`` when it restarts one it killed: both wait for the same thing.
A probe reads only the sandbox's recorded ports and its PKI folder.
"""

from __future__ import annotations

from typing import Callable

from gpufleet.sandbox.pki import Pki
from gpufleet.sandbox.probes import http_ok, tcp_open

TIMEOUTS = {
    "kube-apiserver": 180.0,
    "kueue": 120.0,
    "vc-webhook-manager": 120.0,
    "vc-scheduler": 120.0,
    "vc-controller-manager": 120.0,
    "coscheduling": 120.0,
    "jobset": 120.0,
    "gang-admission-controller": 60.0,
}
DEFAULT_TIMEOUT = 90.0


def timeout(name: str) -> float:
    return TIMEOUTS.get(name, DEFAULT_TIMEOUT)


def ready(name: str, ports: dict[str, int], pki: Pki) -> Callable[[], bool]:
    """The readiness probe of the process ``name`` (a ``KeyError`` for a name the sandbox never starts)."""
    local = "https://127.0.0.1:{}{}".format
    probes: dict[str, Callable[[], Callable[[], bool]]] = {
        "etcd": lambda: http_ok(
            local(ports["etcd"], "/health"),
            pki.etcd_ca_crt,
            pki.apiserver_etcd_client_crt,
            pki.apiserver_etcd_client_key,
            "true",
        ),
        "kube-apiserver": lambda: http_ok(
            local(ports["apiserver"], "/readyz"), pki.ca_crt, pki.admin_crt, pki.admin_key, "ok"
        ),
        "kube-controller-manager": lambda: http_ok(local(ports["controller_manager"], "/healthz")),
        "kube-scheduler": lambda: http_ok(local(ports["scheduler"], "/healthz")),
        "kwok": lambda: tcp_open(ports["kwok"]),
        "kueue": lambda: http_ok(f"http://127.0.0.1:{ports['kueue_health']}/readyz"),
        "vc-webhook-manager": lambda: tcp_open(ports["volcano_webhook"]),
        "vc-scheduler": lambda: http_ok(f"http://127.0.0.1:{ports['volcano_scheduler_healthz']}/healthz"),
        "vc-controller-manager": lambda: http_ok(f"http://127.0.0.1:{ports['volcano_controller_healthz']}/healthz"),
        "coscheduling": lambda: http_ok(local(ports["coscheduling"], "/healthz")),
        "gang-admission-controller": lambda: http_ok(local(ports["controller"], "/readyz"), pki.ca_crt),
        "jobset": lambda: http_ok(f"http://127.0.0.1:{ports['jobset_health']}/readyz"),
    }
    return probes[name]()
