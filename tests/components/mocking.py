"""Pulumi mocks that record every registration, for the component and program tests.

``RecordingMonitor`` sees each ``RegisterResource`` request as the engine would:
type, name, URN, parent, explicit dependencies, ``protect``, ``remote`` and the
inputs. ``run_program(build)`` runs ``build`` inside ``@pulumi.runtime.test`` on a
fresh mock runtime and returns the records once every registration has finished,
so tests assert on plain lists. Shared by tests/components, tests/program and the
policy pack's tests (through ``tests.program.capture``).
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import asdict, dataclass, field
from typing import Any, Callable

import pulumi
from pulumi.runtime import rpc, settings
from pulumi.runtime.mocks import MockMonitor, MockResourceArgs, Mocks


@dataclass
class Registered:
    type: str
    name: str
    urn: str
    parent: str
    dependencies: list[str]
    protect: bool
    custom: bool
    remote: bool
    inputs: dict[str, Any] = field(default_factory=dict)
    replace_on_changes: list[str] = field(default_factory=list)
    delete_before_replace: bool = False

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class EchoMocks(Mocks):
    """Every resource's outputs are its inputs; no provider calls.

    pulumi-tls computes its PEMs in the provider, so for its resources the mocks add
    labelled fake PEMs (the resource's name inside), which lets tests follow which
    certificate ended up where.
    """

    TLS_OUTPUTS = {
        "tls:index/privateKey:PrivateKey": {"privateKeyPem": "PRIVATE KEY"},
        "tls:index/selfSignedCert:SelfSignedCert": {"certPem": "CERTIFICATE"},
        "tls:index/locallySignedCert:LocallySignedCert": {"certPem": "CERTIFICATE"},
        "tls:index/certRequest:CertRequest": {"certRequestPem": "CERTIFICATE REQUEST"},
    }

    def new_resource(self, args: MockResourceArgs) -> tuple[str, dict]:
        outputs = dict(args.inputs)
        for key, label in self.TLS_OUTPUTS.get(args.typ, {}).items():
            outputs[key] = f"-----BEGIN {label}-----\n{args.name}\n-----END {label}-----\n"
        return f"{args.name}-id", outputs

    def call(self, args):  # pragma: no cover - the program makes no provider calls
        return {}, None


class RecordingMonitor(MockMonitor):
    def __init__(self, mocks: Mocks | None = None) -> None:
        super().__init__(mocks or EchoMocks())
        self.registered: list[Registered] = []
        self.exports: dict[str, Any] = {}

    def RegisterResource(self, request):  # noqa: N802 - gRPC method name
        response = super().RegisterResource(request)
        if request.type != "pulumi:pulumi:Stack":
            self.registered.append(
                Registered(
                    type=request.type,
                    name=request.name,
                    urn=response.urn,
                    parent=request.parent,
                    dependencies=list(request.dependencies),
                    protect=bool(request.protect),
                    custom=bool(request.custom),
                    remote=bool(request.remote),
                    inputs=rpc.deserialize_properties(request.object),
                    replace_on_changes=list(request.replaceOnChanges),
                    delete_before_replace=bool(request.deleteBeforeReplace),
                )
            )
        return response


def install_mocks(
    stack: str = "test", config: dict[str, Any] | None = None, mocks: Mocks | None = None
) -> RecordingMonitor:
    """A fresh mock runtime (preview off, so every input is known) with optional config.

    A fresh event loop and a fresh root Stack each time: ``set_mocks`` keeps an
    existing root Stack, whose URN would carry the previous test's stack name.
    """
    asyncio.set_event_loop(asyncio.new_event_loop())
    settings.ROOT.set(None)
    monitor = RecordingMonitor(mocks)
    pulumi.runtime.set_mocks(monitor.mocks, project="gpufleet", stack=stack, preview=False, monitor=monitor)
    pulumi.runtime.set_all_config({k: v if isinstance(v, str) else json.dumps(v) for k, v in (config or {}).items()})
    return monitor


def run_program(monitor: RecordingMonitor, build: Callable[[], Any]) -> list[Registered]:
    """Run ``build`` as a Pulumi program on ``monitor``; return what it registered."""

    @pulumi.runtime.test
    def program():
        return build()  # an Output returned by build is awaited before the test ends

    program()
    return monitor.registered
