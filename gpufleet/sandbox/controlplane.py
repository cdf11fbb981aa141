"""The command lines of etcd and the Kubernetes control plane, and the admin kubeconfig.

Flags follow controller-runtime's envtest (``pkg/internal/testing/controlplane/apiserver.go``,
v0.23) and kubernetes ``hack/local-up-cluster.sh`` (v1.37.2): everything binds and
advertises 127.0.0.1; ``--endpoint-reconciler-type=none`` because Endpoints validation
refuses loopback addresses; the service range is configuration only (nothing is routed
there: every webhook here is called by URL). etcd takes only TLS clients with a certificate
of its own CA (the API server's is ``apiserver-etcd-client``; ``gpufleet.sandbox.pki``).
The feature gates and API versions (``gpufleet.sandbox.gates``) go to every component that reads them.
Pure: paths and ports in, argv lists and YAML text out. Called by ``gpufleet.sandbox.up``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import yaml

from gpufleet.model.cluster import DEFAULT_SCORING
from gpufleet.sandbox.gates import Gates
from gpufleet.sandbox.pki import Pki

K8S_VERSION = "v1.37.2"
CLIENT_QPS, CLIENT_BURST = 5000, 10000
"""Client rate limits of the controller manager and the scheduler: kwokctl's ``--disable-qps-limits`` values
(``DefaultUnlimitedQPS``/``Burst``, ``pkg/consts/consts.go`` of sigs.k8s.io/kwok v0.8.0), as it runs large fake
clusters. The defaults (controller manager 20/30, ``pkg/controller/apis/config/v1alpha1/defaults.go``; scheduler
50/100, ``pkg/scheduler/apis/config/v1/defaults.go``, kubernetes v1.37.2) throttled the Job controller's pod
creates, finalizer patches and deletes by seconds when a replay ran a day of a fleet k times faster: Kueue then
evicted gangs for ``PodsReadyTimeout`` that a real cluster's controllers would have started in time
(docs/whatif.md, "The time scale")."""


@dataclass(frozen=True)
class Ports:
    etcd: int
    etcd_peer: int
    apiserver: int
    controller_manager: int
    scheduler: int


def kubeconfig(pki: Pki, port: int) -> str:
    doc = {
        "apiVersion": "v1",
        "kind": "Config",
        "current-context": "gpufleet-sandbox",
        "clusters": [
            {
                "name": "sandbox",
                "cluster": {"server": f"https://127.0.0.1:{port}", "certificate-authority": str(pki.ca_crt)},
            }
        ],
        "users": [
            {"name": "admin", "user": {"client-certificate": str(pki.admin_crt), "client-key": str(pki.admin_key)}}
        ],
        "contexts": [{"name": "gpufleet-sandbox", "context": {"cluster": "sandbox", "user": "admin"}}],
    }
    return yaml.safe_dump(doc, sort_keys=False)


def etcd_url(ports: Ports) -> str:
    return f"https://127.0.0.1:{ports.etcd}"


def etcd_argv(binary: Path, pki: Pki, data: Path, ports: Ports) -> list[str]:
    """etcd on 127.0.0.1 over TLS on both ports, refusing any client (or peer) without a certificate of etcd's CA."""
    client, peer = etcd_url(ports), f"https://127.0.0.1:{ports.etcd_peer}"
    return [
        str(binary),
        "--name=sandbox",
        f"--data-dir={data}",
        f"--listen-client-urls={client}",
        f"--advertise-client-urls={client}",
        f"--listen-peer-urls={peer}",
        f"--initial-advertise-peer-urls={peer}",
        f"--initial-cluster=sandbox={peer}",
        "--client-cert-auth",
        f"--trusted-ca-file={pki.etcd_ca_crt}",
        f"--cert-file={pki.etcd_crt}",
        f"--key-file={pki.etcd_key}",
        "--peer-client-cert-auth",
        f"--peer-trusted-ca-file={pki.etcd_ca_crt}",
        f"--peer-cert-file={pki.etcd_crt}",
        f"--peer-key-file={pki.etcd_key}",
        "--unsafe-no-fsync",
        "--log-level=warn",
        "--quota-backend-bytes=2147483648",
    ]


def apiserver_argv(binary: Path, pki: Pki, ports: Ports, state: Path, gates: Gates = Gates()) -> list[str]:
    return [
        str(binary),
        f"--etcd-servers={etcd_url(ports)}",
        f"--etcd-cafile={pki.etcd_ca_crt}",
        f"--etcd-certfile={pki.apiserver_etcd_client_crt}",
        f"--etcd-keyfile={pki.apiserver_etcd_client_key}",
        "--bind-address=127.0.0.1",
        "--advertise-address=127.0.0.1",
        f"--secure-port={ports.apiserver}",
        f"--tls-cert-file={pki.serving_crt}",
        f"--tls-private-key-file={pki.serving_key}",
        f"--client-ca-file={pki.ca_crt}",
        "--authorization-mode=RBAC",
        "--service-account-issuer=https://kubernetes.default.svc",
        f"--service-account-key-file={pki.sa_pub}",
        f"--service-account-signing-key-file={pki.sa_key}",
        "--service-cluster-ip-range=10.0.0.0/24",
        "--endpoint-reconciler-type=none",
        "--disable-admission-plugins=ServiceAccount",
        "--allow-privileged=true",
        f"--cert-dir={state / 'apiserver-certs'}",
        "--enable-priority-and-fairness=false",
        "--profiling=false",
        "--v=1",
        *gates.apiserver_flags(),
    ]


def controller_manager_argv(
    binary: Path, pki: Pki, ports: Ports, kubeconfig_path: Path, gates: Gates = Gates()
) -> list[str]:
    # The Job, garbage-collector and node-lifecycle controllers are the ones that matter here.
    return [
        str(binary),
        f"--kubeconfig={kubeconfig_path}",
        "--leader-elect=false",
        "--controllers=*",
        f"--service-account-private-key-file={pki.sa_key}",
        f"--root-ca-file={pki.ca_crt}",
        "--bind-address=127.0.0.1",
        f"--secure-port={ports.controller_manager}",
        "--use-service-account-credentials=false",
        "--concurrent-job-syncs=10",
        f"--kube-api-qps={CLIENT_QPS}",
        f"--kube-api-burst={CLIENT_BURST}",
        "--v=1",
        *gates.component_flags(),
    ]


GPU_WEIGHT = 5
"""With ``MostAllocated``, a GPU resource's weight in the node score against CPU's and memory's 1: the scarce
resource decides which node is fullest."""


def scheduler_config(kubeconfig_path: Path, scoring: str = DEFAULT_SCORING, gpu_resources: tuple[str, ...] = ()) -> str:
    """The kube-scheduler's configuration: no client throttling (docs/sandbox.md) and the model's
    ``kubernetes.scoringStrategy``; ``LeastAllocated`` keeps the default profile as it is."""
    doc: dict = {
        "apiVersion": "kubescheduler.config.k8s.io/v1",
        "kind": "KubeSchedulerConfiguration",
        "clientConnection": {"kubeconfig": str(kubeconfig_path), "qps": CLIENT_QPS, "burst": CLIENT_BURST},
        "leaderElection": {"leaderElect": False},
    }
    if scoring != DEFAULT_SCORING:
        resources = [{"name": r, "weight": GPU_WEIGHT} for r in sorted(set(gpu_resources))]
        resources += [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}]
        fit = {"name": "NodeResourcesFit", "args": {"scoringStrategy": {"type": scoring, "resources": resources}}}
        doc["profiles"] = [{"schedulerName": "default-scheduler", "pluginConfig": [fit]}]
    return yaml.safe_dump(doc, sort_keys=False)


def scheduler_argv(binary: Path, config: Path, ports: Ports, gates: Gates = Gates()) -> list[str]:
    # The default profile holds GangScheduling whenever GenericWorkload is on (``gpufleet.sandbox.gates``).
    return [
        str(binary),
        f"--config={config}",
        "--bind-address=127.0.0.1",
        f"--secure-port={ports.scheduler}",
        "--v=1",
        *gates.component_flags(),
    ]
