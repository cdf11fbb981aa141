"""GANG501 wait-for-pods-ready-disabled: Kueue runs without its all-or-nothing timeout.

Called by the rule engine (linter, policy pack, admission controller) through the registry.

What it checks

A Kueue manager Configuration in which waitForPodsReady is off. The configuration is
either the `Configuration` document itself or a ConfigMap with the key
`controller_manager_config.yaml` (kustomize's `kueue-manager-config`, the Helm
chart's `<release>-manager-config`). Flagged:

- `config.kueue.x-k8s.io/v1beta1` without a `waitForPodsReady` block, or with
  `enable` not `true` (v1beta1 defaults `enable` to false);
- the feature gate `DisableWaitForPodsReady: true` under `featureGates` (any version);
- a Deployment container arg `--feature-gates=...DisableWaitForPodsReady=true` (the Helm
  chart renders `controllerManager.featureGates` this way);
- an embedded configuration that is not valid YAML (the manager will not start).

A `v1beta2` Configuration without the block is *not* flagged: since Kueue v0.19 the
block is on by default with a 30m timeout. Whether 30m suits the fleet is GANG502's
question.

Why it is unsafe

Kueue admits a workload on quota alone, and quota says nothing about whether the pods
fit on real nodes. Without waitForPodsReady, an admitted gang whose pods cannot all be
scheduled keeps its quota forever while its started ranks wait for their peers; two
such gangs deadlock the queue. waitForPodsReady evicts and requeues a workload whose
pods are not all ready within the timeout, which is Kueue's all-or-nothing guarantee.

Example

```yaml
apiVersion: config.kueue.x-k8s.io/v1beta1
kind: Configuration
waitForPodsReady:
  enable: false
```

Preferred form

```yaml
apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
waitForPodsReady:
  timeout: 15m
  requeuingStrategy:
    backoffLimitCount: 5
```
"""

from __future__ import annotations

import json
from typing import Any, Iterator, Mapping

from gpufleet.rules.api import CheckContext, Rule, Severity, Violation
from gpufleet.rules.platform._embedded import unreadable
from gpufleet.rules.platform._kueue_config import DISABLE_GATE, KINDS, deployment_gate_args, kueue_configs
from gpufleet.workloads import outcomes as O


def check(obj: Mapping[str, Any], ctx: CheckContext) -> Iterator[Violation]:
    for path, arg in deployment_gate_args(obj):
        yield Violation(
            path,
            f"container arg {arg!r} turns waitForPodsReady off for the Kueue manager",
            f"remove {DISABLE_GATE}=true from --feature-gates",
        )
    for config in kueue_configs(obj):
        if config.error is not None:
            yield unreadable(
                config.base,
                f"the embedded Kueue configuration is not valid YAML: {config.error}; the manager will not start",
            )
        elif config.gate_disables_wait:
            yield Violation(
                config.path("featureGates", DISABLE_GATE),
                "the DisableWaitForPodsReady feature gate turns waitForPodsReady off",
                f"remove featureGates.{DISABLE_GATE}",
            )
        elif not config.wait_enabled:
            block = config.wait_block
            if block is None:
                yield Violation(
                    config.path("waitForPodsReady"),
                    "a v1beta1 Kueue configuration without waitForPodsReady leaves it off (v1beta1 defaults enable to false)",
                    "add waitForPodsReady with enable: true and a timeout (or move to config.kueue.x-k8s.io/v1beta2)",
                )
            else:
                yield Violation(
                    config.path("waitForPodsReady", "enable"),
                    f"waitForPodsReady.enable is {json.dumps(block.get('enable'))}, so an admitted gang that cannot start keeps its quota forever",
                    "set waitForPodsReady.enable: true",
                )


RULE = Rule(
    code="GANG501",
    name="wait-for-pods-ready-disabled",
    family="platform",
    severity=Severity.ERROR,
    summary="Kueue's waitForPodsReady is off, so an admitted gang that cannot start holds its quota forever.",
    fix="turn waitForPodsReady on (v1beta2: write the block; v1beta1: enable: true) and drop the DisableWaitForPodsReady gate",
    kinds=KINDS + (("apps", "Deployment"),),
    check=check,
    doc=__doc__ or "",
    predicts=O.NOT_JUDGED,  # platform configuration, not a workload
)
