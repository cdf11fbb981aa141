"""The sandbox's real control plane (etcd v3.6.16, Kubernetes v1.37.2): etcd takes only clients with a
certificate of its own CA, the API server is one, and stopping it leaves no zombie behind.

Needs only the etcd and kube engines (``gpufleet.sandbox.up.control_plane``), so it is the
cheapest check that the sandbox's etcd wiring works: the API server answers ``/readyz``
only once it reaches etcd over TLS with its client certificate.
"""

from __future__ import annotations

import http.client
import socket
import ssl
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from gpufleet.sandbox.kube import Kube, wait_for
from gpufleet.sandbox.pki import Pki
from gpufleet.sandbox.state import down
from gpufleet.sandbox.up import control_plane
from tests.e2e.sandbox_env import require_go
from tests.sandbox.kernel import kernel_state

ENGINES = ("etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler")


@pytest.fixture(scope="module")
def plane(tmp_path_factory):
    require_go()
    state = control_plane(tmp_path_factory.mktemp("controlplane"))
    try:
        yield state
    finally:
        down(state, keep=True)


def _pki(state) -> Pki:
    return Pki(state.dir / "pki")


def _health(port: int, ctx: ssl.SSLContext | None, scheme: str = "https") -> str:
    with urllib.request.urlopen(f"{scheme}://127.0.0.1:{port}/health", timeout=10, context=ctx) as resp:  # noqa: S310
        return resp.read().decode()


def test_the_api_server_is_ready_through_etcd_over_tls_and_serves_objects(plane):
    kube = Kube(Path(plane.kubeconfig))
    kube.apply({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "stored-in-etcd"}})
    assert kube.get("v1", "Namespace", "stored-in-etcd")["metadata"]["name"] == "stored-in-etcd"
    assert [p.name for p in plane.processes] == list(ENGINES)


def _tls(state, client: str | None) -> ssl.SSLContext:
    pki = _pki(state)
    ctx = ssl.create_default_context(cafile=str(pki.etcd_ca_crt))
    if client:
        ctx.load_cert_chain(str(getattr(pki, f"{client}_crt")), str(getattr(pki, f"{client}_key")))
    return ctx


def test_etcd_answers_the_api_servers_client_certificate(plane):
    assert '"health":"true"' in _health(plane.ports["etcd"], _tls(plane, "apiserver_etcd_client"))


REFUSED = (ssl.SSLError, ConnectionError, urllib.error.URLError, http.client.HTTPException)
"""A handshake failure, a reset or closed connection, or an HTTP error status: anything but an answer."""


@pytest.mark.parametrize("client", [None, "admin"], ids=["no certificate", "the engines' admin certificate"])
def test_etcd_refuses_a_tls_client_without_a_certificate_of_its_ca(plane, client):
    with pytest.raises(REFUSED):
        _health(plane.ports["etcd"], _tls(plane, client))


def test_etcd_refuses_a_plain_http_client(plane):
    with pytest.raises(REFUSED):
        _health(plane.ports["etcd"], None, scheme="http")


@pytest.mark.parametrize("port", ["etcd", "etcd_peer"])
def test_etcd_listens_on_loopback_only(plane, port):
    assert _listening(plane.ports[port]) == {"127.0.0.1"}


def _listening(port: int) -> set[str]:
    """The addresses with a socket listening on ``port`` (``/proc/net/tcp`` and ``tcp6``)."""
    found = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            local, state = line.split()[1], line.split()[3]
            address, hex_port = local.rsplit(":", 1)
            if state == "0A" and int(hex_port, 16) == port:
                found.add(
                    socket.inet_ntop(socket.AF_INET, bytes.fromhex(address)[::-1]) if len(address) == 8 else address
                )
    return found


BURST = 150
"""Pods of one Job: far over the controller manager's default client burst (30 requests, then 20 a second)."""


def test_the_job_controller_creates_a_burst_of_pods_without_client_side_throttling(plane):
    # At the defaults the Job controller's creates waited seconds for its client's token bucket (logged by client-go
    # as "client-side throttling" once a wait passes 1 s): a whatif replay's gangs then missed Kueue's scaled
    # pods-ready timeout (docs/whatif.md). The sandbox lifts the limits (gpufleet.sandbox.controlplane.CLIENT_QPS).
    kube = Kube(Path(plane.kubeconfig))
    kube.apply({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "burst"}})
    pod = {"containers": [{"name": "c", "image": "c:1"}], "restartPolicy": "Never"}
    kube.apply(
        {
            "apiVersion": "batch/v1",
            "kind": "Job",
            "metadata": {"name": "burst", "namespace": "burst"},
            "spec": {"parallelism": BURST, "completions": BURST, "template": {"spec": pod}},
        }
    )
    wait_for(f"{BURST} pods created", lambda: len(kube.list("v1", "Pod", "burst")) >= BURST, timeout=120)
    log = (plane.dir / "logs" / "kube-controller-manager.log").read_text(errors="replace")
    assert [line for line in log.splitlines() if "client-side throttling" in line] == []


def test_stopping_the_control_plane_reaps_every_engine(tmp_path):
    require_go()
    state = control_plane(tmp_path / "sandbox")
    started = list(state.processes)
    down(state, keep=True)
    assert {p.name: kernel_state(p.pid) for p in started} == {name: "gone" for name in ENGINES}
