"""Every policy of the pack, derived from the rule registry at import time.

Called by ``policies/__main__.py``. Each registered rule gets:

- a resource policy ``<code>-<name>`` (``gang001-min-below-replicas``): the engine's
  findings of that rule on one resource, one violation each; ``mandatory`` for
  error rules, ``advisory`` for warnings; ``remediate=`` when the rule has a safe fix
  (it runs when CI sets the policy to ``remediate``);
- a stack policy ``<code>-<name>-stack`` when the rule has a stack scope
  (``stack.scopes``: chart values, related objects, stack-level rule hooks).

One policy per rule (rather than per family) because Pulumi gives every policy one
enforcement level: a family mixes errors and warnings, and per-rule policies let CI set
each rule's level with Pulumi's own config (``{"gang503-no-requeue-backoff-limit":
"mandatory"}``). The family stays visible as a policy tag.
"""

from __future__ import annotations

from functools import partial
from typing import Any, Mapping

from pulumi_policy import (
    Policy,
    PolicyConfigSchema,
    ReportViolation,
    ResourceValidationArgs,
    ResourceValidationPolicy,
    StackValidationArgs,
    StackValidationPolicy,
)
from pulumi_policy import (
    Severity as PolicySeverity,
)
from pydantic import TypeAdapter

from gpufleet.policypack import report, settings, stack
from gpufleet.policypack.props import UNKNOWN_STRING_VALUE, UnknownValueError, manifest, plain, restore
from gpufleet.rules import engine, registry
from gpufleet.rules.api import Rule, Severity

PACK_NAME = "gpufleet"
CONFIG_PROPERTIES: dict[str, dict[str, Any]] = {
    "fleetModel": {
        "type": "string",
        "description": "Fleet model YAML (or rendered fleet-context JSON) for the fleet-aware rules; "
        "default: the stack config gpufleet:model. Relative to the working directory or the project root.",
    },
    "coldStartFloorSeconds": {
        "type": "integer",
        "minimum": 0,
        "description": "Gang cold-start floor in seconds (GANG502 floorSeconds); overrides the fleet model's.",
    },
    "crdsDir": {
        "type": "string",
        "description": "Directory of CustomResourceDefinitions for the schema rules (GANG601, GANG602), "
        "on top of the schemas gpufleet carries (same group/version/kind: the directory's wins).",
    },
    "noCrds": {
        "type": "boolean",
        "description": "Turn the schema rules (GANG601, GANG602) off: neither the carried schemas nor crdsDir.",
    },
}


def option_properties(rule: Rule) -> dict[str, dict[str, Any]]:
    """The JSON schema of the rule's options (``floorSeconds`` for GANG502), from its options class."""
    if rule.options is None:
        return {}
    schema = TypeAdapter(rule.options).json_schema(by_alias=True)
    return {
        name: {k: v for k, v in prop.items() if k != "title"} for name, prop in schema.get("properties", {}).items()
    }


def policy_name(rule: Rule) -> str:
    return f"{rule.code.lower()}-{rule.name}"


def stack_policy_name(rule: Rule) -> str:
    return f"{policy_name(rule)}-stack"


def _config(args: Any) -> Mapping[str, Any]:
    return plain(args.get_config() or {})


def validate_resource(rule: Rule, args: ResourceValidationArgs, report_violation: ReportViolation) -> None:
    found = manifest(args.resource_type, args.props)
    if found is None or not rule.applies_to(found.obj):
        return
    try:
        ctx = settings.check_context(rule.code, _config(args))
    except settings.SettingsError as exc:
        report_violation(f"{rule.code} {rule.name}: cannot run: {exc}", None)
        return
    findings = report.reportable(engine.check_object(found.obj, ctx, select=[rule.code]))
    if findings and found.has_unknowns:
        where = ", ".join(f"`{f.path}`" for f in findings)
        raise found.unknown_error(
            f"{rule.code} would flag {where} but the inputs hold values unknown until apply "
            f"({', '.join(found.unknown_paths())}); `pulumi up` checks them with the real values"
        )
    for finding in findings:
        report_violation(report.message(finding), None)


def remediate_resource(rule: Rule, args: ResourceValidationArgs) -> Mapping[str, Any] | None:
    found = manifest(args.resource_type, args.props)
    if found is None or not rule.applies_to(found.obj):
        return None
    try:
        ctx = settings.check_context(rule.code, _config(args))
    except settings.SettingsError:
        return None  # Analyze reports the setting
    fixed = engine.remediate(found.obj, ctx, select=[rule.code])
    if fixed == found.obj:
        return None
    if found.has_unknowns:
        raise found.unknown_error(f"{rule.code} remediation skipped: the inputs hold values unknown until apply")
    return restore(fixed, found)


def validate_stack(rule: Rule, args: StackValidationArgs, report_violation: ReportViolation) -> None:
    try:
        ctx = settings.check_context(rule.code, _config(args))
    except settings.SettingsError as exc:
        report_violation(f"{rule.code} {rule.name}: cannot run: {exc}", None)
        return
    found = stack.findings(rule, args.resources, ctx)
    for item in found:
        if not item.uncertain:
            report_violation(item.text, item.urn)
    uncertain = [item for item in found if item.uncertain]
    if uncertain:
        error = UnknownValueError(UNKNOWN_STRING_VALUE, [])
        error.message = (
            f"{rule.code} would flag "
            + ", ".join(f"`{i.path}` of {i.urn}" for i in uncertain)
            + " but those resources hold values unknown until apply; `pulumi up` checks them with the real values"
        )
        raise error


def _common(rule: Rule) -> dict[str, Any]:
    return {
        "enforcement_level": report.default_level(rule),
        "config_schema": PolicyConfigSchema({**CONFIG_PROPERTIES, **option_properties(rule)}),
        "severity": PolicySeverity.HIGH if rule.severity is Severity.ERROR else PolicySeverity.MEDIUM,
        "tags": ["gpufleet", rule.family, rule.severity.value, rule.code],
        "remediation_steps": rule.fix,
        "display_name": f"{rule.code} {rule.name}",
    }


def resource_policy(rule: Rule) -> ResourceValidationPolicy:
    return ResourceValidationPolicy(
        name=policy_name(rule),
        description=f"{rule.code} {rule.name} ({rule.family}): {rule.summary}",
        validate=partial(validate_resource, rule),
        remediate=partial(remediate_resource, rule) if rule.remediate is not None else None,  # type: ignore[arg-type]  # the hint says Awaitable; a plain return is taken too
        **_common(rule),
    )


def stack_policy(rule: Rule) -> StackValidationPolicy:
    return StackValidationPolicy(
        name=stack_policy_name(rule),
        description=f"{rule.code} {rule.name} ({rule.family}, across the stack: {', '.join(stack.scopes(rule))}): {rule.summary}",
        validate=partial(validate_stack, rule),
        **_common(rule),
    )


def enforced(rule: Rule) -> bool:
    """Rules that check objects; a rule without kinds (GANG000, the linter's unreadable-file code) has no policy."""
    return bool(rule.kinds)


def description() -> str:
    """The pack's description, naming the registered codes that have no policy (so every code is listed)."""
    skipped = [f"{r.code} {r.name}" for r in registry.all_rules() if not enforced(r)]
    text = (
        "Gang-safety rules for GPU training on Kubernetes (Kueue, Volcano): one policy per rule of gpufleet's engine."
    )
    return text + (f" Linter only, no policy: {', '.join(skipped)}." if skipped else "")


def policies() -> list[Policy]:
    """Every policy, in rule-code order: each rule's resource policy, then its stack policy if it has one."""
    out: list[Policy] = []
    for rule in filter(enforced, registry.all_rules()):
        out.append(resource_policy(rule))
        if stack.scopes(rule):
            out.append(stack_policy(rule))
    return out
