"""What a rule finds only when it sees the whole stack (the per-rule stack policies).

Called by ``build`` for each rule that has a stack scope (:func:`scopes`):

- ``charts``: the rule reads scheduler ConfigMaps, so it runs on the ConfigMaps the
  Kueue and Volcano chart values render (``charts``), reported against the chart;
- ``objects``: the rule relates objects (``CheckContext.objects``, e.g. GANG504 looks
  for gang workloads using a PriorityClass); only findings that appear *because* of
  the other objects are reported, the per-resource policy reports the rest;
- ``run``: the rule has a stack-level hook (``Rule.check_run``, e.g. GANG104's queue
  references against the queues the stack declares); the engine runs it over the stack.

A finding on an object with values unknown during preview is returned as uncertain;
the caller turns uncertain findings into one advisory "can't check during preview".
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Iterable

from gpufleet.kubetypes.fieldpath import FieldPath
from gpufleet.policypack import charts, report
from gpufleet.policypack.props import Manifest, manifest, plain
from gpufleet.rules import engine
from gpufleet.rules.api import CheckContext, Finding, Rule

CONFIGMAP = {"apiVersion": "v1", "kind": "ConfigMap"}


@dataclass(frozen=True)
class StackFinding:
    urn: str
    text: str
    code: str
    path: str
    uncertain: bool


@dataclass
class StackObject:
    urn: str
    name: str
    found: Manifest


def relates_objects(rule: Rule) -> bool:
    """Whether the rule reads the other objects of the run (``Rule.needs_objects``)."""
    return rule.needs_objects


def scopes(rule: Rule) -> tuple[str, ...]:
    """The stack scopes of a rule (empty: the per-resource policy sees everything it can find)."""
    found = []
    if (
        rule.applies_to(CONFIGMAP) and not rule.any_kind
    ):  # reads scheduler ConfigMaps (the schema rules read any object)
        found.append("charts")
    if relates_objects(rule):
        found.append("objects")
    if rule.check_run is not None:
        found.append("run")
    return tuple(found)


def collect(resources: Iterable[Any]) -> tuple[list[StackObject], list[StackObject]]:
    """(Kubernetes objects, charts) of the stack's resources (``PolicyResource``-like: type, props, urn, name)."""
    objects, chart_list = [], []
    for resource in resources:
        found = manifest(resource.resource_type, resource.props)
        if found is not None:
            objects.append(StackObject(resource.urn, resource.name, found))
        elif charts.is_chart(resource.resource_type):
            chart = Manifest({})
            chart.obj = plain(resource.props, chart)
            chart_list.append(StackObject(resource.urn, resource.name, chart))
    return objects, chart_list


def _finding(
    rule: Rule, item: StackObject, finding: Finding, path: FieldPath | None = None, label: str | None = None
) -> StackFinding:
    shown = str(finding.path if path is None else path)
    return StackFinding(item.urn, report.message(finding, shown, label), finding.code, shown, item.found.has_unknowns)


def chart_findings(rule: Rule, chart_list: list[StackObject], ctx: CheckContext) -> list[StackFinding]:
    out = []
    for item in chart_list:
        for rendered in charts.rendered_configmaps(item.found.obj):
            meta = rendered.obj["metadata"]
            label = f"Chart {item.name} (renders ConfigMap {meta['namespace']}/{meta['name']})"
            for finding in report.reportable(engine.check_object(rendered.obj, ctx, select=[rule.code])):
                out.append(_finding(rule, item, finding, rendered.values_path(finding.path), label))
    return out


def related_findings(rule: Rule, objects: list[StackObject], ctx: CheckContext) -> list[StackFinding]:
    alone = replace(ctx, objects=())
    together = replace(ctx, objects=tuple(o.found.obj for o in objects))
    out = []
    for item in objects:
        seen = {(f.path, f.message) for f in engine.check_object(item.found.obj, alone, select=[rule.code])}
        for finding in report.reportable(engine.check_object(item.found.obj, together, select=[rule.code])):
            if (finding.path, finding.message) not in seen:
                out.append(_finding(rule, item, finding))
    return out


def run_findings(rule: Rule, objects: list[StackObject], ctx: CheckContext) -> list[StackFinding]:
    """The rule's stack-level hook over the stack's objects (``engine.check_run``)."""
    items = {id(o.found.obj): o for o in objects}
    run = replace(ctx, objects=tuple(o.found.obj for o in objects))
    return [
        _finding(rule, items[id(obj)], finding)
        for obj, finding in engine.check_run(run, select=[rule.code])
        if not finding.waived
    ]


def findings(rule: Rule, resources: Iterable[Any], ctx: CheckContext) -> list[StackFinding]:
    """Every stack-scope finding of ``rule`` over the stack's resources."""
    objects, chart_list = collect(resources)
    out: list[StackFinding] = []
    for scope in scopes(rule):
        if scope == "charts":
            out += chart_findings(rule, chart_list, ctx)
        elif scope == "objects":
            out += related_findings(rule, objects, ctx)
        elif scope == "run":
            out += run_findings(rule, objects, ctx)
    return out
