"""Fixtures: a test PKI, a mounted fleet context, and the server on 127.0.0.1 over real TLS."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import orjson
import pytest

from gpufleet.webhook.server import Config
from tests.mutate.builders import fleet_dict
from tests.webhook.harness import Client, ServerThread
from tests.webhook.pki import MountedDir, Pki


@dataclass
class Running:
    """A started server with its files: swap ``pki``/``fleet_mount`` to exercise reloads."""

    server: ServerThread
    client: Client
    pki: Pki
    fleet_mount: MountedDir

    @property
    def fleet_path(self) -> Path:
        return self.fleet_mount.path("fleet-context.json")


def start(root: Path, reload_interval: float = 0.1, fleet: dict | None = None, **cfg) -> Running:
    pki = Pki(root)
    pki.install()
    mount = MountedDir(root / "fleet")
    mount.publish({"fleet-context.json": orjson.dumps(fleet if fleet is not None else fleet_dict())})
    config = Config(
        cert=str(pki.cert_path),
        key=str(pki.key_path),
        fleet_context=str(mount.path("fleet-context.json")),
        reload_interval=reload_interval,
        shutdown_delay=0.0,
        shutdown_timeout=2.0,
        **cfg,
    )
    server = ServerThread(config).start()
    return Running(server, Client(server.port, pki.ca_path), pki, mount)


@pytest.fixture(scope="module")
def shared_server(tmp_path_factory) -> Iterator[Running]:
    """One server for the tests that do not change its files."""
    running = start(tmp_path_factory.mktemp("webhook"), bench_echo=True)
    yield running
    running.client.close()
    running.server.stop()


@pytest.fixture
def own_server(tmp_path) -> Iterator[Running]:
    """A server of the test's own, for reload tests."""
    running = start(tmp_path)
    yield running
    running.client.close()
    running.server.stop()


@pytest.fixture
def client(shared_server) -> Client:
    return shared_server.client
