"""Fields on which the Kubernetes provider itself replaces an object, whatever the program says.

Called by :func:`gpufleet.diff.steps.plan_steps`. Emulates ``forceNewProperties`` of
pulumi-kubernetes **v4.25.0** (``provider/pkg/provider/diff.go``) for the kinds gpufleet's
stack creates: a ConfigMap whose ``data`` or ``binaryData`` changes is replaced unless
the provider is configured ``enableConfigMapMutable`` (gpufleet never sets it), a
Secret whose ``type``, ``data`` or ``stringData`` changes likewise (``enableSecretMutable``),
a Deployment whose ``spec.selector`` changes, a Service whose ``spec.clusterIP`` changes.
The provider's ``Diff`` then answers ``deleteBeforeReplace`` because the name is fixed
(``provider.go``: named, not auto-named, same name and namespace), so the step is a
delete-before-replace like the ``replaceOnChanges`` ones of :mod:`gpufleet.render.immutable`.

Why it matters: the gang-admission controller's fleet-context ConfigMap changes with
the model (a team added or removed, a pool resized, a priority changed), and a real
``pulumi up`` replaces it (checked in tests/e2e/test_diff_pulumi_e2e.py).
"""

from __future__ import annotations

from typing import Any, Mapping

from gpufleet.kubetypes.fieldpath import get_value

_FORCE_NEW: dict[tuple[str, str], tuple[str, ...]] = {
    ("v1", "ConfigMap"): ("binaryData", "data"),
    ("v1", "Secret"): ("type", "stringData", "data"),
    ("apps/v1", "Deployment"): ("spec.selector",),
    ("v1", "Service"): ("spec.clusterIP",),
}


def provider_replace_reasons(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[str]:
    """The force-new paths of the provider that differ between ``old`` and ``new``; [] when none."""
    paths = _FORCE_NEW.get((str(new.get("apiVersion", "")), str(new.get("kind", ""))), ())
    return [p for p in paths if get_value(old, p.split(".")) != get_value(new, p.split("."))]
