"""``--reuse-port``: several server processes (one per core) share one port through SO_REUSEPORT."""

from __future__ import annotations

from dataclasses import replace

from gpufleet.webhook.server import parse_args
from tests.webhook.conftest import start
from tests.webhook.harness import Client, ServerThread


def test_reuse_port_is_off_unless_the_flag_or_its_variable_says_so():
    assert parse_args([], env={}).reuse_port is False
    assert parse_args(["--reuse-port"], env={}).reuse_port is True
    assert parse_args([], env={"GPUFLEET_REUSE_PORT": "1"}).reuse_port is True


def test_two_servers_with_reuse_port_listen_on_the_same_port_and_both_serve(tmp_path):
    first = start(tmp_path, reuse_port=True)
    second = ServerThread(first.server.cfg)
    second.cfg = replace(second.cfg, port=first.server.port)  # ServerThread picks a free port unless told
    try:
        second.start()
        assert second.port == first.server.port
        for _ in range(4):  # new connections: the kernel hands each to one of the two listeners
            client = Client(first.server.port, first.pki.ca_path)
            assert client.get("/readyz")[0] == 200
            client.close()
    finally:
        second.stop()
        first.client.close()
        first.server.stop()
