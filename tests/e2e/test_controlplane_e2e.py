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

from gpufleet.model import load_model
from gpufleet.sandbox.kube import Kube, wait_for
from gpufleet.sandbox.pki import Pki
from gpufleet.sandbox.state import down
from gpufleet.sandbox.up import control_plane
from tests.e2e.sandbox_env import require_go
from tests.sandbox.kernel import kernel_state

ENGINES = ("etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler")
DEV = Path(__file__).resolve().parents[2] / "stacks" / "dev.fleet.yaml"


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


# How the kube-scheduler scores nodes (the model's kubernetes.scoringStrategy): two Ready 8-GPU nodes (no kubelet: the
# scheduler only binds), tainted so that no other test's pods land there, and three 1-GPU pods created one at a time.


@pytest.fixture(scope="module")
def packed(tmp_path_factory):
    require_go()
    fleet = load_model(DEV)
    fleet = fleet.model_copy(
        update={"kubernetes": fleet.kubernetes.model_copy(update={"scoring_strategy": "MostAllocated"})}
    )
    state = control_plane(tmp_path_factory.mktemp("packed"), fleet=fleet)
    try:
        yield state
    finally:
        down(state, keep=True)


TAINT = {"key": "gpufleet.dev/scoring-test", "value": "only", "effect": "NoSchedule"}


def _gpu_node(name: str) -> dict:
    room = {"cpu": "96", "memory": "1024Gi", "pods": "110", "nvidia.com/gpu": "8"}
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": {"gpufleet.dev/scoring-test": "only", "gpufleet.dev/scoring-node": name}},
        "spec": {"taints": [TAINT]},
        "status": {"capacity": room, "allocatable": room, "conditions": [{"type": "Ready", "status": "True"}]},
    }


def _gpu_pod(name: str, node: str | None = None) -> dict:
    one = {"nvidia.com/gpu": "1", "cpu": "1", "memory": "8Gi"}
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "scoring"},
        "spec": {
            "nodeSelector": {
                "gpufleet.dev/scoring-test": "only",
                **({"gpufleet.dev/scoring-node": node} if node else {}),
            },
            "tolerations": [{**TAINT, "operator": "Equal"}],
            "containers": [{"name": "c", "image": "c:1", "resources": {"requests": one, "limits": one}}],
        },
    }


def _nodes_of_three_pods(state) -> set[str]:
    kube = Kube(Path(state.kubeconfig))
    kube.apply({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "scoring"}})
    for name in ("gpu-a", "gpu-b"):
        node = _gpu_node(name)
        kube.create(node)
        kube.core().patch_node_status(name, {"status": node["status"]})
    # One pod pinned to each node first: once both are bound, the scheduler has seen both nodes' GPUs (a pod
    # created earlier could find one node still without them, and bind where a packing scheduler would).
    for name, node in [("probe-a", "gpu-a"), ("probe-b", "gpu-b")] + [(f"p{n}", None) for n in range(3)]:
        kube.create(_gpu_pod(name, node))
        wait_for(f"pod {name} bound", lambda: _node_of(kube, name), timeout=60, interval=0.2)  # noqa: B023
    return {_node_of(kube, f"p{n}") for n in range(3)}


def _node_of(kube: Kube, pod: str) -> str | None:
    return (kube.get("v1", "Pod", pod, "scoring") or {}).get("spec", {}).get("nodeName")


def test_the_default_scheduler_spreads_gpu_pods_over_the_emptiest_nodes(plane):
    assert _nodes_of_three_pods(plane) == {"gpu-a", "gpu-b"}


def test_a_cluster_that_bin_packs_puts_every_gpu_pod_on_the_fullest_node(packed):
    assert len(_nodes_of_three_pods(packed)) == 1
