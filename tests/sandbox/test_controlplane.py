"""etcd takes only TLS clients with a certificate of its own CA on 127.0.0.1, and the API server presents one."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpufleet.sandbox.controlplane import Ports, apiserver_argv, etcd_argv
from gpufleet.sandbox.pki import Pki

PKI = Pki(Path("/sb/pki"))
PORTS = Ports(etcd=12379, etcd_peer=12380, apiserver=16443, controller_manager=10257, scheduler=10259)


def _flags(argv: list[str]) -> dict[str, str]:
    return dict(a[2:].partition("=")[::2] for a in argv[1:] if a.startswith("--"))


@pytest.mark.parametrize("flag, value", [
    ("listen-client-urls", "https://127.0.0.1:12379"), ("advertise-client-urls", "https://127.0.0.1:12379"),
    ("listen-peer-urls", "https://127.0.0.1:12380"), ("initial-advertise-peer-urls", "https://127.0.0.1:12380"),
    ("client-cert-auth", ""), ("trusted-ca-file", "/sb/pki/etcd-ca.crt"),
    ("cert-file", "/sb/pki/etcd.crt"), ("key-file", "/sb/pki/etcd.key"),
    ("peer-client-cert-auth", ""), ("peer-trusted-ca-file", "/sb/pki/etcd-ca.crt"),
    ("peer-cert-file", "/sb/pki/etcd.crt"), ("peer-key-file", "/sb/pki/etcd.key"),
])
def test_etcd_listens_on_loopback_over_tls_and_requires_client_certificates(flag, value):
    assert _flags(etcd_argv(Path("/bin/etcd"), PKI, Path("/sb/etcd"), PORTS))[flag] == value


def test_etcd_has_no_plain_http_url():
    assert not [a for a in etcd_argv(Path("/bin/etcd"), PKI, Path("/sb/etcd"), PORTS) if "http://" in a]


@pytest.mark.parametrize("flag, value", [
    ("etcd-servers", "https://127.0.0.1:12379"), ("etcd-cafile", "/sb/pki/etcd-ca.crt"),
    ("etcd-certfile", "/sb/pki/apiserver-etcd-client.crt"), ("etcd-keyfile", "/sb/pki/apiserver-etcd-client.key"),
])
def test_the_api_server_reaches_etcd_over_tls_with_its_client_certificate(flag, value):
    assert _flags(apiserver_argv(Path("/bin/kube-apiserver"), PKI, PORTS, Path("/sb")))[flag] == value
