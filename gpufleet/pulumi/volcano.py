"""The Volcano engine: its namespace, its admission TLS Secret and the pinned upstream Helm chart.

Built by :class:`gpufleet.pulumi.fleet.GpuFleet` when the model enables Volcano. The
chart is ``volcano`` from https://volcano-sh.github.io/helm-charts at the model's
pinned ``engines.volcano.chartVersion``; its values are ``gpufleet.render``'s
``volcano_values`` (``custom.scheduler_config_override``: the scheduler conf that
matches the queue fields gpufleet writes). The chart makes its admission Secret only
in a Helm hook, which Chart v4 never runs, so this component creates it first
(``gpufleet.render.volcano_admission``): pulumi-tls material by default, cert-manager
objects when ``cert_manager``. Await stays on: the queue webhook must serve before
any Queue is created, and the Volcano queues depend on this chart.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

import pulumi
import pulumi_kubernetes as k8s
import pulumi_tls as tls

from gpufleet.model.fleet import Fleet, VolcanoEngine
from gpufleet.pulumi.engine import ChartEngine, Prepare
from gpufleet.pulumi.typed import create_manifest
from gpufleet.render import volcano_admission as admission

VOLCANO_REPO = "https://volcano-sh.github.io/helm-charts"
VOLCANO_CHART = "volcano"


@dataclass(frozen=True)
class VolcanoArgs:
    fleet: Fleet
    """The validated model (``engines.volcano``: chart version, namespace, release name)."""
    values: Mapping[str, Any]
    """Helm values rendered by ``gpufleet.render`` (``Rendered.volcano_values``)."""
    chart_path: str | None = None
    """A local chart to install from (stack config ``gpufleet:<engine>ChartPath``); None = the pinned remote chart."""
    cert_manager: bool = False
    """Issue the admission certificate with cert-manager instead of pulumi-tls."""

    @property
    def engine(self) -> VolcanoEngine:
        return self.fleet.engines.volcano


class Volcano(ChartEngine):
    """Volcano installed from its pinned chart into its own namespace, admission Secret first."""

    TOKEN = "gpufleet:volcano:Volcano"
    CHART = VOLCANO_CHART
    REPO = VOLCANO_REPO

    def __init__(self, name: str, args: VolcanoArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        self.admission: dict[str, pulumi.Resource] = {}
        super().__init__(name, args, opts)

    def prepare(self, name: str, args: Any) -> Prepare:
        """The admission Secret (pulumi-tls) or cert-manager's objects, which the chart makes only in a hook."""

        def create(namespace: k8s.core.v1.Namespace) -> list[pulumi.Resource]:
            after_ns = pulumi.ResourceOptions(parent=self, depends_on=[namespace])
            if args.cert_manager:
                for key, manifest in admission.cert_manager_objects(args.fleet).items():
                    deps = [namespace, *self.admission.values()]
                    self.admission[key] = create_manifest(
                        f"{name}-admission-{key}", manifest, pulumi.ResourceOptions(parent=self, depends_on=deps)
                    )
            else:
                data = self._tls(name, args.fleet, pulumi.ResourceOptions(parent=self))
                secret = admission.admission_secret(args.fleet, data)
                self.admission["secret"] = create_manifest(f"{name}-admission-secret", secret, after_ns)
            return list(self.admission.values())

        return create

    def outputs(self, args: Any) -> dict[str, Any]:
        return {"admissionSecret": admission.SECRET_NAME}

    @staticmethod
    def _tls(name: str, fleet: Fleet, opts: pulumi.ResourceOptions) -> dict[str, pulumi.Output[str]]:
        ca_key = tls.PrivateKey(f"{name}-admission-ca-key", algorithm="ECDSA", ecdsa_curve="P256", opts=opts)
        ca_cert = tls.SelfSignedCert(
            f"{name}-admission-ca",
            private_key_pem=ca_key.private_key_pem,
            is_ca_certificate=True,
            validity_period_hours=admission.CA_VALIDITY_HOURS,
            allowed_uses=["cert_signing", "crl_signing", "digital_signature"],
            subject=tls.SelfSignedCertSubjectArgs(common_name="volcano-admission-ca", organization="gpufleet"),
            opts=opts,
        )
        key = tls.PrivateKey(f"{name}-admission-serving-key", algorithm="ECDSA", ecdsa_curve="P256", opts=opts)
        csr = tls.CertRequest(
            f"{name}-admission-serving-csr",
            private_key_pem=key.private_key_pem,
            dns_names=admission.dns_names(fleet),
            subject=tls.CertRequestSubjectArgs(common_name=admission.dns_names(fleet)[2], organization="gpufleet"),
            opts=opts,
        )
        cert = tls.LocallySignedCert(
            f"{name}-admission-serving-cert",
            cert_request_pem=csr.cert_request_pem,
            ca_private_key_pem=ca_key.private_key_pem,
            ca_cert_pem=ca_cert.cert_pem,
            validity_period_hours=admission.SERVING_VALIDITY_HOURS,
            allowed_uses=["digital_signature", "key_encipherment", "server_auth"],
            opts=opts,
        )
        return {"tls.key": key.private_key_pem, "tls.crt": cert.cert_pem, "ca.crt": ca_cert.cert_pem}
