"""Driving the policy pack exactly as the Pulumi CLI does, over its gRPC Analyzer service.

Used by the contract tests (``conftest.pack`` starts one pack per session). The CLI
runs ``python -u -m pulumi.policy <engineAddr> .`` in the pack directory with the
stack's identity and config in the environment, reads the port from the first stdout
line and calls ``pulumirpc.Analyzer`` (docs/policy-pack.md, research/pulumi.md 2).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Mapping

import grpc
from google.protobuf import empty_pb2, json_format, struct_pb2
from pulumi.runtime.proto import analyzer_pb2 as apb
from pulumi.runtime.proto import analyzer_pb2_grpc

from gpufleet.policypack.report import parse

REPO = Path(__file__).resolve().parents[2]
PACK_DIR = REPO / "policies"
LEVELS = {"advisory": apb.ADVISORY, "mandatory": apb.MANDATORY, "remediate": apb.REMEDIATE, "disabled": apb.DISABLED}
LEVEL_NAMES = {v: k for k, v in LEVELS.items()}


def struct(data: Mapping[str, Any]) -> struct_pb2.Struct:
    out = struct_pb2.Struct()
    out.update(data)
    return out


def type_token(obj: Mapping[str, Any]) -> str:
    """``kubernetes:<apiVersion>:<Kind>``, with the core group spelled ``core/v1`` as Pulumi does."""
    api_version = str(obj["apiVersion"])
    return f"kubernetes:{api_version if '/' in api_version else 'core/' + api_version}:{obj['kind']}"


def urn(resource_type: str, name: str, stack: str = "dev") -> str:
    return f"urn:pulumi:{stack}::gpufleet::{resource_type}::{name}"


@dataclass(frozen=True)
class Diagnostic:
    policy: str
    level: str
    message: str
    urn: str

    @property
    def violations(self) -> list[tuple[str, str]]:
        """(code, path) of each finding line in the message."""
        return parse(self.message)


@dataclass(frozen=True)
class Resource:
    """One resource as the CLI sends it: type token, name, props (inputs), parent URN."""

    type: str
    name: str
    props: Mapping[str, Any]
    parent: str = ""
    known_urn: str = ""

    @classmethod
    def of(cls, obj: Mapping[str, Any], name: str | None = None) -> Resource:
        meta = obj.get("metadata") or {}
        return cls(
            type_token(obj), name or f"{meta.get('namespace', '')}-{meta.get('name', 'unnamed')}".strip("-"), obj
        )

    @property
    def urn(self) -> str:
        return self.known_urn or urn(self.type, self.name)


def _diagnostics(response: Any) -> list[Diagnostic]:
    return [Diagnostic(d.policyName, LEVEL_NAMES[d.enforcementLevel], d.message, d.urn) for d in response.diagnostics]


class Pack:
    """A running policy pack process and its Analyzer stub."""

    def __init__(
        self,
        config: Mapping[str, str] | None = None,
        dry_run: bool = True,
        python: str = sys.executable,
        pack_dir: Path = PACK_DIR,
    ) -> None:
        env = dict(
            os.environ,
            PULUMI_PROJECT="gpufleet",
            PULUMI_STACK="dev",
            PULUMI_DRY_RUN="true" if dry_run else "false",
            PULUMI_ORGANIZATION="organization",
            PULUMI_CONFIG=json.dumps(dict(config or {})),
        )
        env.pop("PYTHONPATH", None)
        self.process = subprocess.Popen(
            [python, "-u", "-m", "pulumi.policy", "127.0.0.1:1", "."],
            cwd=pack_dir,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        try:
            first = self.process.stdout.readline()  # type: ignore[union-attr]
            port = int(first)
        except ValueError:
            self.close()
            raise RuntimeError(f"the pack did not print its port first: {first!r}; stderr:\n{self.stderr()}") from None
        self.channel = grpc.insecure_channel(f"127.0.0.1:{port}")
        grpc.channel_ready_future(self.channel).result(timeout=20)
        self.stub = analyzer_pb2_grpc.AnalyzerStub(self.channel)
        self.stub.ConfigureStack(
            apb.AnalyzerStackConfigureRequest(stack="dev", project="gpufleet", organization="organization")
        )
        self.info = self.stub.GetAnalyzerInfo(empty_pb2.Empty())

    def stderr(self) -> str:
        return self.process.stderr.read().decode(errors="replace") if self.process.stderr else ""  # type: ignore[union-attr]

    def close(self) -> None:
        if getattr(self, "channel", None) is not None:
            self.channel.close()
        self.process.kill()
        self.process.wait(timeout=10)

    # --- configuration -------------------------------------------------------------------------------------------
    @property
    def default_levels(self) -> dict[str, str]:
        return {p.name: LEVEL_NAMES[p.enforcementLevel] for p in self.info.policies}

    def configure(self, config: Mapping[str, Any], everywhere: Mapping[str, Any] | None = None) -> None:
        """Configure like the CLI: every policy gets its level (``all`` expanded), plus its properties.

        ``config`` is a ``--policy-pack-config`` document: ``{"all": level, name: level | {enforcementLevel, ...}}``;
        ``everywhere`` adds properties to every policy (as a config file naming each policy would).
        """
        everyone = config.get("all")
        request = apb.ConfigureAnalyzerRequest()
        for name, default in self.default_levels.items():
            entry = config.get(name, {})
            entry = {"enforcementLevel": entry} if isinstance(entry, str) else dict(entry)
            level = entry.pop("enforcementLevel", None) or everyone or default
            entry = {**(everywhere or {}), **entry}
            request.policyConfig[name].CopyFrom(
                apb.PolicyConfig(enforcementLevel=LEVELS[level], properties=struct(entry))
            )
        self.stub.Configure(request)

    def reset(self) -> None:
        self.configure({})

    # --- analysis -------------------------------------------------------------------------------------------------
    def _request(self, resource: Resource) -> Any:
        return apb.AnalyzeRequest(
            type=resource.type,
            name=resource.name,
            urn=resource.urn,
            properties=struct(resource.props),
            options=apb.AnalyzerResourceOptions(parent=resource.parent),
        )

    def analyze(self, resource: Resource) -> list[Diagnostic]:
        return _diagnostics(self.stub.Analyze(self._request(resource)))

    def remediate(self, resource: Resource) -> list[tuple[str, dict[str, Any] | None, str]]:
        """(policy, new props or None, diagnostic) per remediation, in order."""
        response = self.stub.Remediate(self._request(resource))
        return [
            (r.policyName, json_format.MessageToDict(r.properties) if r.HasField("properties") else None, r.diagnostic)
            for r in response.remediations
        ]

    def analyze_stack(self, resources: Iterable[Resource]) -> list[Diagnostic]:
        request = apb.AnalyzeStackRequest(
            resources=[
                apb.AnalyzerResource(
                    type=r.type,
                    name=r.name,
                    urn=r.urn,
                    properties=struct(r.props),
                    options=apb.AnalyzerResourceOptions(parent=r.parent),
                    parent=r.parent,
                )
                for r in resources
            ]
        )
        return _diagnostics(self.stub.AnalyzeStack(request))
