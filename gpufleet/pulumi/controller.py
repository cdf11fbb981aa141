"""The gang-admission controller component: ``gpufleet:controller:GangAdmissionController``.

Created by :class:`gpufleet.pulumi.fleet.GpuFleet` when ``controller.enabled``. It makes
the TLS material (pulumi-tls: a CA and a serving certificate made at deploy time,
the CA injected as ``caBundle``; the PEM files of ``tls_dir`` when the stack gives one
(``gpufleet:controllerTlsDir``, an organisation's PKI), read as secrets; or
cert-manager objects when ``cert_manager``),
then one Kubernetes resource per manifest of
``gpufleet.stack.controller.controller_manifests`` (the controller's manifests and, when
``controller.enforcement`` is ``apiServer`` or ``both``, the rules' ValidatingAdmissionPolicies and
bindings, and when ``controller.mutations`` is, the defaulting's MutatingAdmissionPolicies), each depending on what that module's ``waits_for`` says it needs (a webhook on its backend,
a policy binding on its policy and params ConfigMap). Every decision about what the manifests contain
and their order lives in those pure functions, which ``gpufleet render --out DIR`` lays out too
(:mod:`gpufleet.stack.folder`); only the pulumi-tls material and the ``caBundle`` from it are this adapter's.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass, field, replace
from pathlib import Path

import pulumi
import pulumi_tls as tls

from gpufleet.model.fleet import Fleet
from gpufleet.pulumi.typed import create_manifest
from gpufleet.render import controller as render
from gpufleet.render.controller.tls import (
    CA_VALIDITY_HOURS,
    EARLY_RENEWAL_HOURS,
    SERVING_VALIDITY_HOURS,
    dns_names,
)
from gpufleet.stack.controller import controller_manifests, waits_for


@dataclass(frozen=True)
class GangAdmissionControllerArgs:
    fleet: Fleet
    settings: render.ControllerSettings = field(default_factory=render.ControllerSettings)
    """Image, digest (stack config ``gpufleet:controllerImage``/``controllerImageDigest``), cert-manager, prometheus-operator."""


class GangAdmissionController(pulumi.ComponentResource):
    """The admission webhook that runs the gang-safety rules on everything that reaches the API server."""

    def __init__(
        self, name: str, args: GangAdmissionControllerArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        super().__init__("gpufleet:controller:GangAdmissionController", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        ca_bundle: pulumi.Input[str] = ""
        if args.settings.tls_dir:
            tls_secret_data = self._given_tls(Path(args.settings.tls_dir))
            ca_bundle = base64.b64encode((Path(args.settings.tls_dir) / "ca.crt").read_bytes()).decode()
        elif not args.settings.cert_manager:
            ca_cert, tls_secret_data = self._tls(args.fleet, child)
            ca_bundle = ca_cert.cert_pem.apply(lambda pem: base64.b64encode(pem.encode()).decode())
        settings = replace(args.settings, ca_bundle=ca_bundle)
        manifests = controller_manifests(args.fleet, settings)
        order = waits_for(manifests)
        self.resources: dict[str, pulumi.Resource] = {}
        namespace = create_manifest(f"{name}-namespace", manifests.pop("namespace"), child)
        after_ns = pulumi.ResourceOptions(parent=self, depends_on=[namespace])
        if not settings.cert_manager:
            secret = render.tls_secret(args.fleet, tls_secret_data)
            self.resources["secret-tls"] = create_manifest(f"{name}-secret-tls", secret, after_ns)
        for key, manifest in manifests.items():
            deps = [namespace, *self.resources.values()] if key in render.NEEDS_SECRET_AND_CONFIG else [namespace]
            deps += [self.resources[k] for k in order.get(key, ())]
            options = pulumi.ResourceOptions(parent=self, depends_on=deps)
            self.resources[key] = create_manifest(f"{name}-{key}", manifest, options)
        self.resources["namespace"] = namespace
        self.namespace = args.fleet.controller.namespace
        self.register_outputs({"namespace": self.namespace, "caBundle": ca_bundle, "resources": sorted(self.resources)})

    @staticmethod
    def _given_tls(folder: Path) -> dict[str, pulumi.Output[str]]:
        return {name: pulumi.Output.secret((folder / name).read_text()) for name in ("tls.crt", "tls.key", "ca.crt")}

    def _tls(
        self, fleet: Fleet, opts: pulumi.ResourceOptions
    ) -> tuple[tls.SelfSignedCert, dict[str, pulumi.Output[str]]]:
        ca_key = tls.PrivateKey("gang-admission-ca-key", algorithm="ECDSA", ecdsa_curve="P256", opts=opts)
        ca_cert = tls.SelfSignedCert(
            "gang-admission-ca",
            private_key_pem=ca_key.private_key_pem,
            is_ca_certificate=True,
            validity_period_hours=CA_VALIDITY_HOURS,
            allowed_uses=["cert_signing", "crl_signing", "digital_signature"],
            subject=tls.SelfSignedCertSubjectArgs(common_name=f"{render.NAME}-ca", organization="gpufleet"),
            opts=opts,
        )
        key = tls.PrivateKey("gang-admission-serving-key", algorithm="ECDSA", ecdsa_curve="P256", opts=opts)
        csr = tls.CertRequest(
            "gang-admission-serving-csr",
            private_key_pem=key.private_key_pem,
            dns_names=dns_names(fleet),
            subject=tls.CertRequestSubjectArgs(common_name=dns_names(fleet)[2], organization="gpufleet"),
            opts=opts,
        )
        cert = tls.LocallySignedCert(
            "gang-admission-serving-cert",
            cert_request_pem=csr.cert_request_pem,
            ca_private_key_pem=ca_key.private_key_pem,
            ca_cert_pem=ca_cert.cert_pem,
            validity_period_hours=SERVING_VALIDITY_HOURS,
            early_renewal_hours=EARLY_RENEWAL_HOURS,
            allowed_uses=["digital_signature", "key_encipherment", "server_auth"],
            opts=opts,
        )
        return ca_cert, {"tls.crt": cert.cert_pem, "tls.key": key.private_key_pem, "ca.crt": ca_cert.cert_pem}
