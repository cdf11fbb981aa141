"""The sandbox's private keys are readable by their owner only, in folders only their owner may enter,
and its certificates let etcd and the API server authenticate each other."""

from __future__ import annotations

import os
import socket
import ssl
import stat
import threading
from contextlib import contextmanager
from pathlib import Path
from types import SimpleNamespace

import pytest
from cryptography import x509
from cryptography.x509.oid import ExtendedKeyUsageOID

from gpufleet.sandbox.pki import make_pki, write_private
from gpufleet.sandbox.up import _serving_dir


def _mode(path: Path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


@contextmanager
def _umask(mask: int):
    old = os.umask(mask)
    try:
        yield
    finally:
        os.umask(old)


@pytest.fixture(scope="module")
def pki(tmp_path_factory):
    with _umask(0o022):  # the usual umask: what the files got before, 0644 in 0755 folders
        return make_pki(tmp_path_factory.mktemp("sandbox") / "pki")


def test_the_pki_folder_is_0700_and_every_private_key_in_it_0600(pki):
    keys = sorted(pki.dir.glob("*.key"))
    assert {k.name for k in keys} >= {
        "ca.key",
        "serving.key",
        "admin.key",
        "sa.key",
        "etcd-ca.key",
        "etcd.key",
        "apiserver-etcd-client.key",
    }
    assert _mode(pki.dir) == 0o700
    assert {k.name: _mode(k) for k in keys} == {k.name: 0o600 for k in keys}


@pytest.mark.parametrize("name", ["kueue-webhook", "kueue-metrics", "controller"])
def test_a_serving_folder_under_certs_and_certs_itself_are_0700_with_the_key_0600(pki, tmp_path, name):
    run = SimpleNamespace(dir=tmp_path, pki=pki)
    with _umask(0o022):
        folder = _serving_dir(run, name)
    assert (_mode(tmp_path / "certs"), _mode(folder), _mode(folder / "tls.key")) == (0o700, 0o700, 0o600)
    assert (folder / "tls.key").read_bytes() == pki.serving_key.read_bytes()


def test_a_private_file_that_existed_world_readable_is_0600_once_rewritten(tmp_path):
    path = tmp_path / "tls.key"
    path.write_bytes(b"old")
    path.chmod(0o644)
    write_private(path, b"new")
    assert (_mode(path), path.read_bytes()) == (0o600, b"new")


def _usages(path: Path) -> set:
    cert = x509.load_pem_x509_certificate(path.read_bytes())
    return set(cert.extensions.get_extension_for_class(x509.ExtendedKeyUsage).value)


def test_etcds_certificate_serves_and_is_a_peer_client_and_the_api_servers_is_a_client_only(pki):
    assert _usages(pki.etcd_crt) == {ExtendedKeyUsageOID.SERVER_AUTH, ExtendedKeyUsageOID.CLIENT_AUTH}
    assert _usages(pki.apiserver_etcd_client_crt) == {ExtendedKeyUsageOID.CLIENT_AUTH}


@contextmanager
def _mutual_tls_server(pki):
    """A TLS server on 127.0.0.1 with etcd's certificate that requires a client certificate of etcd's CA, as etcd does."""
    ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH, cafile=str(pki.etcd_ca_crt))
    ctx.load_cert_chain(str(pki.etcd_crt), str(pki.etcd_key))
    ctx.verify_mode = ssl.CERT_REQUIRED
    listener = socket.create_server(("127.0.0.1", 0))
    outcomes: list[str] = []

    def serve() -> None:
        conn, _ = listener.accept()
        try:
            with ctx.wrap_socket(conn, server_side=True) as tls:
                outcomes.append(tls.getpeercert()["subject"][0][0][1])
                tls.sendall(b"ok")
        except (ssl.SSLError, OSError) as e:
            outcomes.append(f"refused: {e}")

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield listener.getsockname()[1], outcomes
    finally:
        thread.join(10)
        listener.close()


@pytest.mark.parametrize(
    "client, accepted", [("apiserver_etcd_client", True), ("admin", False), ("serving", False), (None, False)]
)
def test_etcd_accepts_the_api_servers_client_certificate_and_no_other_engines(pki, client, accepted):
    ctx = ssl.create_default_context(cafile=str(pki.etcd_ca_crt))
    if client:
        ctx.load_cert_chain(str(getattr(pki, f"{client}_crt")), str(getattr(pki, f"{client}_key")))
    with _mutual_tls_server(pki) as (port, outcomes):
        try:
            with (
                socket.create_connection(("127.0.0.1", port), timeout=10) as raw,
                ctx.wrap_socket(raw, server_hostname="127.0.0.1") as tls,
            ):
                tls.recv(2)
        except (ssl.SSLError, OSError):
            pass
    assert (not outcomes[0].startswith("refused")) is accepted
