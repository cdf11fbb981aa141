"""etcd takes only TLS clients with a certificate of its own CA on 127.0.0.1, and the API server presents one;
the workload-scheduling gates reach every component that reads them."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from gpufleet.model.loader import parse_model
from gpufleet.sandbox.controlplane import (
    Ports,
    apiserver_argv,
    controller_manager_argv,
    etcd_argv,
    scheduler_argv,
    scheduler_config,
)
from gpufleet.sandbox.gates import gates
from gpufleet.sandbox.pki import Pki
from gpufleet.sandbox.up import Options, model_gates

PKI = Pki(Path("/sb/pki"))
PORTS = Ports(etcd=12379, etcd_peer=12380, apiserver=16443, controller_manager=10257, scheduler=10259)


def _flags(argv: list[str]) -> dict[str, str]:
    return dict(a[2:].partition("=")[::2] for a in argv[1:] if a.startswith("--"))


@pytest.mark.parametrize(
    "flag, value",
    [
        ("listen-client-urls", "https://127.0.0.1:12379"),
        ("advertise-client-urls", "https://127.0.0.1:12379"),
        ("listen-peer-urls", "https://127.0.0.1:12380"),
        ("initial-advertise-peer-urls", "https://127.0.0.1:12380"),
        ("client-cert-auth", ""),
        ("trusted-ca-file", "/sb/pki/etcd-ca.crt"),
        ("cert-file", "/sb/pki/etcd.crt"),
        ("key-file", "/sb/pki/etcd.key"),
        ("peer-client-cert-auth", ""),
        ("peer-trusted-ca-file", "/sb/pki/etcd-ca.crt"),
        ("peer-cert-file", "/sb/pki/etcd.crt"),
        ("peer-key-file", "/sb/pki/etcd.key"),
    ],
)
def test_etcd_listens_on_loopback_over_tls_and_requires_client_certificates(flag, value):
    assert _flags(etcd_argv(Path("/bin/etcd"), PKI, Path("/sb/etcd"), PORTS))[flag] == value


def test_etcd_has_no_plain_http_url():
    assert not [a for a in etcd_argv(Path("/bin/etcd"), PKI, Path("/sb/etcd"), PORTS) if "http://" in a]


@pytest.mark.parametrize(
    "flag, value",
    [
        ("etcd-servers", "https://127.0.0.1:12379"),
        ("etcd-cafile", "/sb/pki/etcd-ca.crt"),
        ("etcd-certfile", "/sb/pki/apiserver-etcd-client.crt"),
        ("etcd-keyfile", "/sb/pki/apiserver-etcd-client.key"),
    ],
)
def test_the_api_server_reaches_etcd_over_tls_with_its_client_certificate(flag, value):
    assert _flags(apiserver_argv(Path("/bin/kube-apiserver"), PKI, PORTS, Path("/sb")))[flag] == value


def test_the_controller_manager_creates_and_deletes_pods_without_the_default_client_throttle():
    # the defaults (20 QPS, burst 30) delayed the Job controller's pod creates by seconds in a replay (docs/whatif.md)
    flags = _flags(controller_manager_argv(Path("/bin/kcm"), PKI, PORTS, Path("/sb/kc")))
    assert (float(flags["kube-api-qps"]), int(flags["kube-api-burst"])) == (5000, 10000)


def test_the_scheduler_binds_without_the_default_client_throttle():
    connection = yaml.safe_load(scheduler_config(Path("/sb/kc")))["clientConnection"]
    assert connection == {"kubeconfig": "/sb/kc", "qps": 5000, "burst": 10000}


def test_the_scheduler_keeps_its_default_scoring_unless_the_cluster_bin_packs():
    assert "profiles" not in yaml.safe_load(scheduler_config(Path("/sb/kc"), "LeastAllocated", ("nvidia.com/gpu",)))
    packed = yaml.safe_load(scheduler_config(Path("/sb/kc"), "MostAllocated", ("nvidia.com/gpu", "nvidia.com/gpu")))
    [profile] = packed["profiles"]
    [fit] = profile["pluginConfig"]
    assert (profile["schedulerName"], fit["name"]) == ("default-scheduler", "NodeResourcesFit")
    assert fit["args"]["scoringStrategy"] == {
        "type": "MostAllocated",
        "resources": [
            {"name": "nvidia.com/gpu", "weight": 5},
            {"name": "cpu", "weight": 1},
            {"name": "memory", "weight": 1},
        ],
    }


NATIVE = gates(native_gang=True)


def _argvs(g) -> dict[str, list[str]]:
    return {
        "kube-apiserver": apiserver_argv(Path("/bin/kube-apiserver"), PKI, PORTS, Path("/sb"), g),
        "kube-controller-manager": controller_manager_argv(Path("/bin/kcm"), PKI, PORTS, Path("/sb/kc"), g),
        "kube-scheduler": scheduler_argv(Path("/bin/kube-scheduler"), Path("/sb/s.yaml"), PORTS, g),
    }


@pytest.mark.parametrize("component", ["kube-apiserver", "kube-controller-manager", "kube-scheduler"])
def test_native_gang_turns_the_workload_gates_on_in_every_component(component):
    assert _flags(_argvs(NATIVE)[component])["feature-gates"] == "GenericWorkload=true,WorkloadWithJob=true"


def test_native_gang_serves_the_beta_scheduling_api_on_the_api_server_only():
    argvs = _argvs(NATIVE)
    assert _flags(argvs["kube-apiserver"])["runtime-config"] == "scheduling.k8s.io/v1beta1=true"
    assert [c for c, argv in argvs.items() if "runtime-config" in _flags(argv)] == ["kube-apiserver"]


@pytest.mark.parametrize("component", ["kube-apiserver", "kube-controller-manager", "kube-scheduler"])
def test_without_native_gang_the_components_keep_their_default_gates(component):
    assert not {"feature-gates", "runtime-config"} & _flags(_argvs(gates())[component]).keys()


def test_explicit_gates_and_api_versions_go_over_native_gangs():
    g = gates(
        native_gang=True,
        feature_gates={"WorkloadWithJob": False, "TopologyAwareWorkloadScheduling": True},
        runtime_config={"scheduling.k8s.io/v1alpha3": True},
    )
    flags = _flags(_argvs(g)["kube-apiserver"])
    assert flags["feature-gates"] == "GenericWorkload=true,TopologyAwareWorkloadScheduling=true,WorkloadWithJob=false"
    assert flags["runtime-config"] == "scheduling.k8s.io/v1alpha3=true,scheduling.k8s.io/v1beta1=true"


@pytest.mark.parametrize(
    "kwargs, named",
    [
        ({"feature_gates": {"generic-workload": True}}, "feature gate 'generic-workload'"),
        ({"feature_gates": {"GenericWorkload=true": True}}, "feature gate 'GenericWorkload=true'"),
        ({"runtime_config": {"scheduling.k8s.io": True}}, "runtime config 'scheduling.k8s.io'"),
        ({"runtime_config": {"scheduling.k8s.io/v1beta1,x": True}}, "runtime config 'scheduling.k8s.io/v1beta1,x'"),
    ],
)
def test_a_malformed_gate_or_api_version_is_refused_by_name(kwargs, named):
    with pytest.raises(ValueError, match=named):
        gates(**kwargs)


def test_the_sandbox_runs_the_gates_its_model_declares_with_the_workload_api_served():
    data = yaml.safe_load((Path(__file__).resolve().parents[2] / "stacks" / "dev.fleet.yaml").read_text())
    assert model_gates(parse_model(data, "dev"), Options()).apiserver_flags() == []
    data["kubernetes"] = {"version": "1.37", "featureGates": {"GenericWorkload": True, "WorkloadWithJob": True}}
    flags = model_gates(parse_model(data, "dev"), Options()).apiserver_flags()
    assert flags == [
        "--feature-gates=GenericWorkload=true,WorkloadWithJob=true",
        "--runtime-config=scheduling.k8s.io/v1beta1=true",
    ]
