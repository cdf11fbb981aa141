"""Every rule's CEL form decides as the engine does, offline (issue 35, item 4).

The rendered ValidatingAdmissionPolicies (:mod:`gpufleet.rules.admission_policies`) are
evaluated with cel-python (:mod:`gpufleet.crdschema.vap`) on each object the webhook would
be sent (a resource the form matches), and compared per rule with the engine as the
webhook runs it (``check_object`` with the fleet context, no other object): denied by a
``[Deny]`` policy exactly when the engine has a blocking finding of the rule, warned by a
``[Warn]`` one exactly when it has a non-waived warning. Objects: every rule fixture
(allowed and disallowed, every code's), the upstream examples (``../shared/examples``,
skipped when absent) and generated workload shapes (hypothesis, bounded).

An object the real CRD refuses (``minAvailable: four``) or prunes never reaches an
admission policy, nor the webhook, in that shape: it is left out (the real CRDs come from
``../shared``; the fixture and upstream cases skip without them).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Mapping

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gpufleet.crdschema.crdset import CrdSet
from gpufleet.crdschema.vap import CompiledPolicy, Request
from gpufleet.fleetctx.context import FleetContext
from gpufleet.kubetypes.vocab import DEDICATED_KEY
from gpufleet.render.context import render_context
from gpufleet.rules import engine, registry
from gpufleet.rules.admission_policies import params_data, render_policies
from gpufleet.rules.api import CheckContext, Rule
from gpufleet.yamlin import yamlio
from tests.conftest import shared_path
from tests.render.builders import fleet, pool, quota, team
from tests.rules import fixtures as fx

pytestmark = pytest.mark.shared  # the real CRDs of ../shared decide what reaches admission (skips without them)

CEL_RULES = [rule for rule in registry.all_rules() if rule.cel is not None]
FACT_RULES = [rule for rule in CEL_RULES if rule.cel.facts]  # type: ignore[union-attr]
MODEL = fleet(
    pools=[pool("h100", system="volcano")],
    teams=[team("research", quota={"h100": quota(8)})],
    priorityClasses=[{"name": "gang-high", "value": 1000}],
)
RENDERED = render_policies(MODEL, CEL_RULES)
CTX = CheckContext(fleet=FleetContext.from_dict(render_context(MODEL)))
"""The engine as the webhook runs it: the fleet context rendered from the same model as the policies' params."""
NAMESPACE = "research"


def _policies(rule: Rule) -> list[tuple[CompiledPolicy, list[str]]]:
    out = []
    for key, binding in RENDERED.items():
        if key.startswith("validatingadmissionpolicybinding-") and binding["spec"]["policyName"].startswith(
            f"gpufleet-{rule.code.lower()}"
        ):
            policy = RENDERED[f"validatingadmissionpolicy-{binding['spec']['policyName']}"]
            out.append((CompiledPolicy.of(policy), binding["spec"]["validationActions"]))
    return out


POLICIES = {rule.code: _policies(rule) for rule in CEL_RULES}
PARAMS = RENDERED.get("configmap-rule-params")


def _fleet_context(path: Path) -> FleetContext:
    return FleetContext.from_dict(json.loads(path.read_text()))


OTHER_FLEETS = {
    path.parent.name if path.parent != fx.FIXTURES else "fixtures": _fleet_context(path)
    for path in (fx.FIXTURES / "fleet-context.json", fx.FIXTURES / "GANG108" / "fleet-context.json")
}
"""Fleet contexts of other shapes (the rule fixtures'): Kueue, Volcano, mixed and coscheduling teams, Kueue holding
unlabelled work. A rule reading fleet facts is compared under each too, its params rendered from the same context."""


def request_for(rule: Rule, obj: Mapping[str, Any]) -> Request | None:
    """The admission request of ``obj`` when the rule's form matches its resource and the webhook is sent it
    (a Pod only as a Kueue pod-group member, by its label), else None."""
    api_version = str(obj.get("apiVersion", ""))
    group, _, version = api_version.rpartition("/")
    meta = obj.get("metadata") or {}
    if (group, obj.get("kind")) == ("", "Pod") and "kueue.x-k8s.io/pod-group-name" not in (meta.get("labels") or {}):
        return None
    for res_group, versions, plural, kind in rule.cel.resources:  # type: ignore[union-attr]
        if (group, kind) == (res_group, obj.get("kind")) and version in versions:
            return Request(group, version, plural, str(meta.get("namespace") or NAMESPACE))
    return None


def with_namespace(obj: Mapping[str, Any]) -> dict[str, Any]:
    """``obj`` in its own namespace, else the team namespace (the API server's ``object.metadata.namespace`` is the
    request's). :func:`disagreement` compares only where the fleet under test owns that namespace: the webhook and the
    policies are sent no other (their namespaceSelector)."""
    return {**obj, "metadata": {"namespace": NAMESPACE, **(obj.get("metadata") or {})}}


def engine_verdict(rule: Rule, obj: Mapping[str, Any], ctx: CheckContext = CTX) -> tuple[bool, bool]:
    """(denied, warned) by the engine, as the webhook answers."""
    findings = engine.check_object(obj, ctx, select=[rule.code])
    return any(f.blocking for f in findings), any(not f.blocking and not f.waived for f in findings)


def cel_verdict(
    rule: Rule, obj: Mapping[str, Any], request: Request, params: Mapping[str, Any] | None = None
) -> tuple[bool, bool, list[str]]:
    """(denied, warned, messages) by the rule's rendered policies (``params``: the ConfigMap, the model's by default)."""
    denied = warned = False
    messages: list[str] = []
    for policy, actions in POLICIES[rule.code]:
        failed = policy.failures(obj, request, params=PARAMS if params is None else params)
        messages += failed
        denied |= bool(failed) and "Deny" in actions
        warned |= bool(failed) and "Warn" in actions
    return denied, warned, messages


_CRDS: list[CrdSet] = []


def crds() -> CrdSet:
    if not _CRDS:
        _CRDS.append(CrdSet.load(shared_path("crds")))
    return _CRDS[0]


def reaches_admission(obj: Mapping[str, Any]) -> bool:
    """Whether the API server admits ``obj`` to the policies as written: its CRD (if any) neither refuses nor prunes it."""
    return not crds().knows(obj) or not (crds().validate(obj) or crds().pruned_fields(obj))


_FLEETS: dict[str, tuple[CheckContext, dict[str, Any]] | None] = {}


def fixture_fleet(folder: str) -> tuple[CheckContext, dict[str, Any]] | None:
    """The engine's context and the policies' params for a fixture folder's own fleet context (None: it runs without
    a fleet, which the webhook never does): the params rendered from that fleet as :func:`params_data` renders the model's."""
    if folder not in _FLEETS:
        fleet = fx.context(folder).fleet
        _FLEETS[folder] = (
            None if fleet is None else (CheckContext(fleet=fleet), {"data": params_data(CEL_RULES, fleet)})
        )
    return _FLEETS[folder]


_OTHER_PARAMS: dict[str, dict[str, Any]] = {}


def _fleets(
    rule: Rule, fleet: tuple[CheckContext, Mapping[str, Any]] | None
) -> list[tuple[str, CheckContext, Mapping[str, Any]]]:
    """``fleet`` alone when given; else the model's, and for a rule reading fleet facts every fleet of :data:`OTHER_FLEETS`."""
    if fleet is not None:
        return [("given", fleet[0], fleet[1])]
    out: list[tuple[str, CheckContext, Mapping[str, Any]]] = [("model", CTX, PARAMS)]
    if rule.cel is not None and rule.cel.facts:
        for name, context in OTHER_FLEETS.items():
            params = _OTHER_PARAMS.setdefault(name, {"data": params_data(CEL_RULES, context)})
            out.append((name, CheckContext(fleet=context), params))
    return out


def disagreement(
    rule: Rule, obj: Mapping[str, Any], fleet: tuple[CheckContext, Mapping[str, Any]] | None = None
) -> str | None:
    """How the engine and the CEL form disagree on ``obj`` (None: they agree): under ``fleet``, else the model's fleet
    and, for a rule reading fleet facts, every fleet of :data:`OTHER_FLEETS` too."""
    obj = with_namespace(obj)
    request = request_for(rule, obj)
    if request is None or not reaches_admission(obj):
        return None
    for fleet_name, ctx, params in _fleets(rule, fleet):
        namespace = (obj.get("metadata") or {}).get("namespace")
        if ctx.fleet is not None and namespace and ctx.fleet.team_for_namespace(namespace) is None:
            continue  # the bindings match team namespaces only: the API server never evaluates it there
        denied, warned = engine_verdict(rule, obj, ctx)
        cel_denied, cel_warned, messages = cel_verdict(rule, obj, request, params)
        if (denied, warned) != (cel_denied, cel_warned):
            name = (obj.get("metadata") or {}).get("name")
            return (
                f"{rule.code} on {obj.get('kind')} {name} in {request.namespace} ({fleet_name} fleet): engine "
                f"(deny, warn)={denied, warned}, CEL={cel_denied, cel_warned} {messages}"
            )
        if cel_denied or cel_warned:
            assert all(m.startswith(f"{rule.code} {rule.name} at ") for m in messages), messages
    return None


def fixture_objects() -> list[tuple[str, dict[str, Any]]]:
    out = []
    for folder in sorted(fx.FIXTURES.iterdir()):
        for name in ("allowed.yaml", "disallowed.yaml"):
            if (folder / name).exists():
                out += [(f"{folder.name}/{name}", doc) for doc in fx.documents(folder.name, name)]
    return out


FIXTURE_OBJECTS = fixture_objects()


def test_some_rules_have_a_cel_form_and_each_renders_a_policy_and_a_binding():
    assert {"GANG001", "GANG002", "GANG004", "GANG201", "GANG203", "GANG804", "GANG110"} <= {
        rule.code for rule in CEL_RULES
    }
    assert all(POLICIES[rule.code] for rule in CEL_RULES)


@pytest.mark.parametrize("rule", CEL_RULES, ids=lambda r: r.code)
def test_the_cel_form_decides_every_rule_fixture_as_the_engine(rule):
    compared = [
        (where, obj)
        for where, obj in FIXTURE_OBJECTS
        if request_for(rule, with_namespace(obj)) and reaches_admission(with_namespace(obj))
    ]
    assert compared, "no fixture object is of a resource the form matches"
    assert [f"{where}: {d}" for where, obj in compared if (d := disagreement(rule, obj))] == []


@pytest.mark.parametrize("rule", CEL_RULES, ids=lambda r: r.code)
def test_the_cel_form_decides_every_rule_fixture_as_the_engine_under_the_fixtures_own_fleet(rule):
    """The GPU and partition rules read the fleet's pools and teams: each fixture also under its folder's fleet context."""
    found = [
        f"{where}: {d}"
        for where, obj in FIXTURE_OBJECTS
        if (fleet := fixture_fleet(where.split("/")[0])) is not None and (d := disagreement(rule, obj, fleet))
    ]
    assert found == []


@pytest.mark.parametrize("rule", CEL_RULES, ids=lambda r: r.code)
def test_the_cel_form_refuses_or_warns_on_its_own_disallowed_fixture_where_it_matches(rule):
    """An error rule's form denies some of its disallowed fixture, a warning rule's warns (review: the warning
    rules' case was asserted by their severity alone, so it could not fail)."""
    fleet = fixture_fleet(rule.code)
    params = fleet[1] if fleet is not None else None
    verdicts = [
        cel_verdict(rule, with_namespace(obj), req, params)[:2]
        for obj in fx.documents(rule.code, "disallowed.yaml")
        if (req := request_for(rule, with_namespace(obj)))
    ]
    flagged = [warned if rule.severity.value == "warning" else denied for denied, warned in verdicts]
    assert any(flagged), verdicts


@pytest.mark.parametrize("rule", CEL_RULES, ids=lambda r: r.code)
def test_the_cel_form_decides_every_upstream_example_as_the_engine(rule, upstream_dir):
    found = []
    for path in sorted(upstream_dir.rglob("*.yaml")):
        for doc in yamlio.load_documents(path.read_text()):
            if isinstance(doc.value, dict) and (d := disagreement(rule, doc.value)):
                found.append(f"{path.name}: {d}")
    assert found == []


# Generated shapes: the fields the forms read, with the values that move a verdict.

_counts = st.integers(min_value=0, max_value=6)
_annotations = st.dictionaries(
    st.sampled_from(
        [
            "gpufleet.dev/elastic",
            "waive.gpufleet.dev/GANG001",
            "waive.gpufleet.dev/GANG201",
            "waive.gpufleet.dev/GANG804",
            "waive.gpufleet.dev/GANG110",
            "waive.gpufleet.dev/gang002",
            "waive.gpufleet.dev/GANG004",
            "waive.gpufleet.dev/GANG203",
            "waive.gpufleet.dev/GANG202",
            "waive.gpufleet.dev/GANG204",
            "waive.gpufleet.dev/GANG207",
            "waive.gpufleet.dev/gang701",
            "waive.gpufleet.dev/GANG401",
            "waive.gpufleet.dev/GANG404",
            "waive.gpufleet.dev/GANG807",
            "team",
        ]
    ),
    st.sampled_from(["true", " True ", "TRUE", "yes", "", " ", "because"]),
    max_size=2,
)


_priority = st.sampled_from([None, "gang-high", "gang-hihg", ""])


def _meta(
    annotations: dict[str, str], priority: str | None = None, named: bool = True, owner: dict[str, Any] | None = None
) -> dict[str, Any]:
    labels = {"kueue.x-k8s.io/priority-class": priority} if priority is not None else {}
    return {
        **({"name": "generated"} if named else {"generateName": "generated-"}),
        "namespace": NAMESPACE,
        **({"annotations": annotations} if annotations else {}),
        **({"labels": labels} if labels else {}),
        **({"ownerReferences": [owner]} if owner else {}),
    }


_OWNER = st.sampled_from(
    [
        None,
        None,
        {"apiVersion": "example.dev/v1", "kind": "Pipeline", "name": "p", "uid": "u1", "controller": True},
        {"apiVersion": "example.dev/v1", "kind": "Pipeline", "name": "p", "uid": "u1", "controller": False},
    ]
)
"""Owners a gang may have (never a JobSet: the policies' matchCondition skips its Jobs, as the webhook's does)."""


@st.composite
def metas(draw) -> dict[str, Any]:
    """Metadata: waivers and the elastic opt-in, a priority class, a name or only a generateName, an owner."""
    return _meta(draw(_annotations), draw(_priority), draw(st.integers(0, 3)) > 0, draw(_OWNER))


_PROBE = {"exec": {"command": ["true"]}}


@st.composite
def pod_templates(draw, restart: bool = True) -> dict[str, Any]:
    """A pod template: a pod spec (:func:`pod_specs`) whose containers may carry probes, maybe a restartPolicy,
    maybe the gang identity label."""
    spec = draw(pod_specs())
    for container in spec["containers"]:
        for probe in draw(
            st.lists(st.sampled_from(["livenessProbe", "readinessProbe", "startupProbe"]), unique=True, max_size=2)
        ):
            container[probe] = _PROBE
    if restart:
        policy = draw(st.sampled_from([None, "Never", "Never", "OnFailure", "Always"]))
        if policy:
            spec["restartPolicy"] = policy
    template: dict[str, Any] = {"spec": spec}
    label = draw(st.sampled_from([None, None, "run-1", ""]))
    if label is not None:
        template["metadata"] = {"labels": {"gpufleet.dev/gang": label}}
    return template


_event = st.sampled_from(["PodFailed", "PodEvicted", "*", "TaskCompleted", "Unknown"])
_action = st.sampled_from(["RestartJob", "AbortJob", "RestartPod", "RestartTask", "RestartPartition"])
_policies = st.lists(
    st.one_of(
        st.builds(lambda e, a: {"event": e, "action": a}, _event, _action),
        st.builds(lambda es, a: {"events": es, "action": a}, st.lists(_event, max_size=2), _action),
        st.builds(lambda code, a: {"exitCode": code, "action": a}, st.integers(1, 3), _action),
    ),
    max_size=2,
)


# Pod specs: GPU requests and limits (GANG401), tolerations, selectors and nodeName (GANG807).
_QUANTITIES = ["8", "4", "1", "0", "16", "64", "1.5", "500m", "8000m", "1e1", "1Ki", "2000Gi", 8, 2, 0]
_amounts = st.dictionaries(
    st.sampled_from(["nvidia.com/gpu", "amd.com/gpu", "nvidia.com/mig-1g.10gb", "cpu", "memory", "example.com/fpga"]),
    st.sampled_from(_QUANTITIES),
    max_size=2,
)
_DEDICATED = DEDICATED_KEY
_TEAMS = st.sampled_from(["secure", "research", "vision", "nobody"])
_tolerations = st.lists(
    st.one_of(
        st.sampled_from(
            [
                {"operator": "Exists"},
                {"operator": "Exists", "effect": "NoSchedule"},
                {"key": "", "operator": "Exists", "effect": ""},
                {"key": _DEDICATED, "operator": "Exists"},
                {"key": "nvidia.com/gpu", "operator": "Exists"},
            ]
        ),
        st.builds(
            lambda team, effect: {"key": _DEDICATED, "value": team, **({"effect": effect} if effect else {})},
            _TEAMS,
            st.sampled_from([None, "NoExecute", "NoSchedule"]),
        ),
    ),
    max_size=2,
)


@st.composite
def containers(draw) -> dict[str, Any]:
    container: dict[str, Any] = {"name": "c", "image": "i"}
    resources = {part: draw(_amounts) for part in ("requests", "limits") if draw(st.booleans())}
    if resources:
        container["resources"] = resources
    return container


@st.composite
def pod_specs(draw) -> dict[str, Any]:
    """A pod spec: mostly a plain container; with GPUs, init containers and placement in a bounded share of draws."""
    if draw(st.integers(0, 2)) == 0:
        return {"containers": [{"name": "c", "image": "i"}]}
    spec: dict[str, Any] = {"containers": draw(st.lists(containers(), min_size=1, max_size=2))}
    if draw(st.integers(0, 3)) == 0:
        spec["initContainers"] = [draw(containers())]
    if draw(st.booleans()):
        spec["tolerations"] = draw(_tolerations)
    if draw(st.integers(0, 3)) == 0:
        spec["nodeSelector"] = {draw(st.sampled_from([_DEDICATED, "pool"])): draw(_TEAMS)}
    if draw(st.integers(0, 4)) == 0:
        expression = draw(
            st.sampled_from(
                [{"key": _DEDICATED, "operator": "Exists"}, {"key": "pool", "operator": "Exists"}]
                + [{"key": _DEDICATED, "operator": "In", "values": [t]} for t in ("secure", "research")]
            )
        )
        spec["affinity"] = {
            "nodeAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": {
                    "nodeSelectorTerms": [{"matchExpressions": [expression]}]
                }
            }
        }
    if draw(st.integers(0, 5)) == 0:
        spec["nodeName"] = "node-1"
    return spec


@st.composite
def volcano_jobs(draw) -> dict[str, Any]:
    names = ["a", "b", "c"][: draw(st.integers(min_value=0, max_value=3))]
    tasks = []
    for name in names:
        task: dict[str, Any] = {"name": name, "template": draw(pod_templates())}
        if draw(st.booleans()):
            task["replicas"] = draw(_counts)
        if draw(st.booleans()):
            task["minAvailable"] = draw(_counts)
        if draw(st.integers(0, 3)) == 0:
            task["dependsOn"] = {"name": [draw(st.sampled_from([n for n in names if n != name] or [""]))]}
        if draw(st.integers(0, 3)) == 0:
            task["partitionPolicy"] = {
                "totalPartitions": draw(st.integers(1, 4)),
                "partitionSize": draw(st.integers(1, 2)),
            }
            if draw(st.booleans()):
                task["partitionPolicy"]["minPartitions"] = draw(st.integers(0, 4))
        if draw(st.integers(0, 3)) == 0:
            task["maxRetry"] = draw(st.integers(0, 20))
        if draw(st.booleans()):
            task["policies"] = draw(_policies)
        tasks.append(task)
    spec: dict[str, Any] = {"tasks": tasks}
    if draw(st.booleans()):
        spec["policies"] = draw(_policies)
    for key, values in (("minAvailable", _counts), ("minSuccess", _counts), ("maxRetry", st.integers(0, 20))):
        if draw(st.booleans()):
            spec[key] = draw(values)
    return {"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job", "metadata": draw(metas()), "spec": spec}


@st.composite
def kubeflow_jobs(draw) -> dict[str, Any]:
    kind, field, version = draw(
        st.sampled_from([("PyTorchJob", "pytorchReplicaSpecs", "v1"), ("MPIJob", "mpiReplicaSpecs", "v2beta1")])
    )
    roles = {}
    for role in draw(st.lists(st.sampled_from(["Master", "Worker", "Launcher"]), unique=True, max_size=2)):
        spec: dict[str, Any] = {"template": draw(pod_templates(restart=False))}
        if draw(st.booleans()):
            spec["replicas"] = draw(_counts)
        roles[role] = spec
    spec = {field: roles}
    run_policy: dict[str, Any] = {}
    if draw(st.booleans()):
        run_policy["schedulingPolicy"] = {"minAvailable": draw(_counts)}
    if draw(st.booleans()):
        run_policy["backoffLimit"] = draw(st.integers(0, 20))
    if run_policy:
        spec["runPolicy"] = run_policy
    if kind == "PyTorchJob" and draw(st.integers(0, 4)) == 0:
        spec["elasticPolicy"] = {"minReplicas": 1, "maxReplicas": 4}
    return {"apiVersion": f"kubeflow.org/{version}", "kind": kind, "metadata": draw(metas()), "spec": spec}


@st.composite
def batch_jobs(draw) -> dict[str, Any]:
    template = draw(pod_templates(restart=False))
    template["spec"]["restartPolicy"] = draw(st.sampled_from(["Never", "OnFailure"]))
    spec: dict[str, Any] = {"template": template}
    if draw(st.booleans()):
        spec["parallelism"] = draw(_counts)
    if draw(st.booleans()):
        spec["completions"] = draw(_counts)
    if draw(st.booleans()):
        spec["scheduling"] = {"schedulingPolicy": {"gang": {"minCount": draw(_counts)}}}
        mode = draw(_disruption)
        if mode is not None:
            spec["scheduling"]["disruptionMode"] = mode
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": draw(metas()), "spec": spec}


@st.composite
def jobsets(draw) -> dict[str, Any]:
    names = ["a", "b", "c"][: draw(st.integers(0, 3))]
    rjobs = []
    for name in names:
        job: dict[str, Any] = {"template": draw(pod_templates())}
        for key in ("backoffLimit", "backoffLimitPerIndex"):
            if draw(st.booleans()):
                job[key] = draw(st.sampled_from([0, 0, 1, 6, 20]))
        for key in ("parallelism", "completions"):
            if draw(st.integers(0, 3)) == 0:
                job[key] = draw(st.integers(1, 3))
        rjob: dict[str, Any] = {"name": name, "replicas": draw(st.integers(0, 2)), "template": {"spec": job}}
        if draw(st.integers(0, 3)) == 0 and name != names[0]:
            rjob["dependsOn"] = [{"name": names[0], "status": draw(st.sampled_from(["Complete", "Ready"]))}]
        rjobs.append(rjob)
    policy: dict[str, Any] = {}
    if draw(st.booleans()):
        policy["maxRestarts"] = draw(st.integers(0, 20))
    if draw(st.booleans()):
        policy["restartStrategy"] = draw(st.sampled_from(["Recreate", "InPlaceRestart"]))
    if draw(st.booleans()):
        rule: dict[str, Any] = {
            "name": "r",
            "action": draw(
                st.sampled_from(
                    [
                        "FailJobSet",
                        "RestartJobSet",
                        "RestartJobSetAndIgnoreMaxRestarts",
                        "RestartJob",
                        "RestartJobAndIgnoreMaxRestarts",
                    ]
                )
            ),
        }
        if names and draw(st.booleans()):
            rule["targetReplicatedJobs"] = names[: draw(st.integers(1, len(names)))]
        policy["rules"] = [rule]
    spec: dict[str, Any] = {"replicatedJobs": rjobs, **({"failurePolicy": policy} if policy else {})}
    if draw(st.integers(0, 3)) == 0:
        spec["startupPolicy"] = {"startupPolicyOrder": draw(st.sampled_from(["AnyOrder", "InOrder"]))}
    return {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "metadata": draw(metas()), "spec": spec}


_disruption = st.sampled_from([None, {"all": {}}, {"single": {}}])


@st.composite
def native_groups(draw) -> dict[str, Any]:
    """Kubernetes' own gang scheduling (1.37, ``scheduling.k8s.io/v1beta1``): a gang or basic PodGroup or Workload."""

    def policy() -> dict[str, Any]:
        return draw(st.sampled_from([{"gang": {"minCount": 2}}, {"basic": {}}]))

    if draw(st.booleans()):
        spec: dict[str, Any] = {"schedulingPolicy": policy()}
        if (mode := draw(_disruption)) is not None:
            spec["disruptionMode"] = mode
        return {"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "PodGroup", "metadata": draw(metas()), "spec": spec}
    templates = []
    for name in ["a", "b"][: draw(st.integers(0, 2))]:
        template: dict[str, Any] = {"name": name, "schedulingPolicy": policy()}
        if (mode := draw(_disruption)) is not None:
            template["disruptionMode"] = mode
        templates.append(template)
    return {
        "apiVersion": "scheduling.k8s.io/v1beta1",
        "kind": "Workload",
        "metadata": draw(metas()),
        "spec": {"podGroupTemplates": templates},
    }


@st.composite
def group_workloads(draw) -> dict[str, Any]:
    """A LeaderWorkerSet or a RayCluster/RayJob (compared offline only: the e2e sandbox has no CRD for them)."""
    if draw(st.booleans()):
        lwt: dict[str, Any] = {"workerTemplate": draw(pod_templates(restart=False))}
        if draw(st.booleans()):
            lwt["size"] = draw(st.integers(1, 3))
        if draw(st.booleans()):
            lwt["leaderTemplate"] = draw(pod_templates(restart=False))
        return {
            "apiVersion": "leaderworkerset.x-k8s.io/v1",
            "kind": "LeaderWorkerSet",
            "metadata": draw(metas()),
            "spec": {"leaderWorkerTemplate": lwt},
        }
    cluster: dict[str, Any] = {
        "headGroupSpec": {"template": draw(pod_templates(restart=False))},
        "workerGroupSpecs": [
            {"groupName": "w", "replicas": draw(st.integers(0, 2)), "template": draw(pod_templates(restart=False))}
            for _ in range(draw(st.integers(0, 1)))
        ],
    }
    if draw(st.integers(0, 3)) == 0:
        cluster["enableInTreeAutoscaling"] = True
    if draw(st.booleans()):
        return {"apiVersion": "ray.io/v1", "kind": "RayCluster", "metadata": draw(metas()), "spec": cluster}
    return {"apiVersion": "ray.io/v1", "kind": "RayJob", "metadata": draw(metas()), "spec": {"rayClusterSpec": cluster}}


@st.composite
def pod_groups(draw) -> dict[str, Any]:
    spec: dict[str, Any] = {"minMember": draw(st.integers(1, 6))}
    if draw(st.integers(0, 2)) == 0:
        spec["minResources"] = draw(_amounts)
    if draw(st.integers(0, 3)):
        spec["scheduleTimeoutSeconds"] = draw(st.sampled_from([0, 10, 29, 30, 31, 60, 299, 300, 301, 900]))
    return {"apiVersion": "scheduling.x-k8s.io/v1alpha1", "kind": "PodGroup", "metadata": draw(metas()), "spec": spec}


@st.composite
def volcano_pod_groups(draw) -> dict[str, Any]:
    spec: dict[str, Any] = {"minMember": draw(st.integers(1, 6))}
    if draw(st.booleans()):
        spec["queue"] = draw(st.sampled_from(["research", "sim", "vision", "nowhere"]))
    if draw(st.integers(0, 3)):
        spec["minResources"] = draw(_amounts)
    return {
        "apiVersion": "scheduling.volcano.sh/v1beta1",
        "kind": "PodGroup",
        "metadata": _meta(draw(_annotations)),
        "spec": spec,
    }


_namespaces = st.sampled_from([NAMESPACE, "vision", "sim", "secure", "robotics", "kube-system", "nobody"])
GENERATED_FLEETS = ("GANG807",)
"""Fixture fleets the generated shapes are also judged under: GANG807's has every system, a dedicated pool and six teams."""


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    obj=st.one_of(
        volcano_jobs(),
        kubeflow_jobs(),
        batch_jobs(),
        jobsets(),
        pod_groups(),
        native_groups(),
        group_workloads(),
        volcano_pod_groups(),
    ),
    namespace=_namespaces,
)
def test_the_cel_forms_decide_generated_workload_shapes_as_the_engine(obj, namespace):
    obj = {**obj, "metadata": {**obj["metadata"], "namespace": namespace}}
    fleets = [None, *(fixture_fleet(code) for code in GENERATED_FLEETS)]
    assert [d for fleet in fleets for rule in CEL_RULES if (d := disagreement(rule, obj, fleet))] == []


# Generated routing shapes: namespaces of every fleet above (and of none), queues declared or not, pod templates
# with and without a coscheduling group and a scheduler, Kueue pod-group Pods with good and bad total counts.

_routing_namespaces = st.sampled_from(
    ["research", "vision", "vision-dev", "sim", "infer", "robotics", "alpha", "alpha-vc", "beta", "nowhere"]
)
_queues = st.sampled_from(["research", "vision", "sim", "alpha", "beta", "reserch", "default", ""])
_schedulers = st.sampled_from([None, "", "volcano", "scheduler-plugins-scheduler", "default-scheduler", "my-scheduler"])


@st.composite
def _routing_meta(draw, labelled: bool = False) -> dict[str, Any]:
    labels: dict[str, str] = {}
    annotations: dict[str, str] = {}
    if draw(st.booleans()):
        labels["kueue.x-k8s.io/queue-name"] = draw(_queues)
    where = draw(st.sampled_from([None, labels, annotations]))
    if where is not None:
        where["scheduling.volcano.sh/queue-name"] = draw(_queues)
    if labelled or draw(st.integers(0, 3)) == 0:
        labels["kueue.x-k8s.io/pod-group-name"] = draw(st.sampled_from(["g", ""]))
    if draw(st.integers(0, 2)) == 0:
        annotations["kueue.x-k8s.io/pod-group-total-count"] = draw(
            st.sampled_from(["3", " 2 ", "0", "-1", "x", "", "007"])
        )
    if draw(st.integers(0, 4)) == 0:
        annotations[draw(st.sampled_from(["waive.gpufleet.dev/GANG104", "waive.gpufleet.dev/GANG805"]))] = "ok"
    if draw(st.integers(0, 3)) == 0:  # a Kueue key other than the queue label
        draw(st.sampled_from([labels, annotations]))["kueue.x-k8s.io/priority-class"] = "gang-high"
    return {
        "name": "generated",
        "namespace": draw(_routing_namespaces),
        **({"labels": labels} if labels else {}),
        **({"annotations": annotations} if annotations else {}),
    }


@st.composite
def _template(draw) -> dict[str, Any]:
    spec: dict[str, Any] = {"restartPolicy": "Never", "containers": [{"name": "c", "image": "i"}]}
    scheduler = draw(_schedulers)
    if scheduler is not None:
        spec["schedulerName"] = scheduler
    template: dict[str, Any] = {"spec": spec}
    if draw(st.booleans()):
        template["metadata"] = {"labels": {"scheduling.x-k8s.io/pod-group": draw(st.sampled_from(["g", ""]))}}
    if draw(st.integers(0, 3)) == 0:  # Volcano group or queue keys on the pods
        key = draw(st.sampled_from(["scheduling.k8s.io/group-name", "scheduling.volcano.sh/queue-name"]))
        template.setdefault("metadata", {})[draw(st.sampled_from(["annotations", "labels"]))] = {key: "g"}
    return template


@st.composite
def routed_workloads(draw) -> dict[str, Any]:
    kind = draw(st.sampled_from(["Job", "JobSet", "PyTorchJob", "vcjob", "PodGroup", "Pod"]))
    meta = draw(_routing_meta(labelled=kind == "Pod"))
    if kind == "Pod":
        return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": draw(_template())["spec"]}
    if kind == "Job":
        spec: dict[str, Any] = {"template": draw(_template())}
        if draw(st.booleans()):
            spec["parallelism"] = draw(_counts)
        return {"apiVersion": "batch/v1", "kind": "Job", "metadata": meta, "spec": spec}
    if kind == "JobSet":
        rjobs = [
            {
                "name": name,
                "replicas": draw(st.integers(0, 2)),
                "template": {"spec": {"parallelism": draw(st.integers(0, 2)), "template": draw(_template())}},
            }
            for name in ["a", "b"][: draw(st.integers(0, 2))]
        ]
        return {
            "apiVersion": "jobset.x-k8s.io/v1alpha2",
            "kind": "JobSet",
            "metadata": meta,
            "spec": {"replicatedJobs": rjobs},
        }
    if kind == "PyTorchJob":
        roles = {
            role: {"replicas": draw(st.integers(0, 3)), "template": draw(_template())}
            for role in draw(st.lists(st.sampled_from(["Master", "Worker"]), unique=True, min_size=1))
        }
        spec = {"pytorchReplicaSpecs": roles}
        if draw(st.booleans()):
            spec["runPolicy"] = {"schedulingPolicy": {"queue": draw(_queues)}}
        return {"apiVersion": "kubeflow.org/v1", "kind": "PyTorchJob", "metadata": meta, "spec": spec}
    spec = {"queue": draw(_queues)} if draw(st.booleans()) else {}
    if kind == "PodGroup":
        group = draw(st.sampled_from(["scheduling.volcano.sh/v1beta1", "scheduling.x-k8s.io/v1alpha1"]))
        spec = {**(spec if group.startswith("scheduling.volcano") else {}), "minMember": draw(st.integers(1, 4))}
        return {"apiVersion": group, "kind": "PodGroup", "metadata": meta, "spec": spec}
    spec["tasks"] = [
        {"name": name, "replicas": draw(st.integers(0, 3)), "template": draw(_template())}
        for name in ["a", "b"][: draw(st.integers(1, 2))]
    ]
    scheduler = draw(_schedulers)
    if scheduler is not None:
        spec["schedulerName"] = scheduler
    return {"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job", "metadata": meta, "spec": spec}


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(obj=routed_workloads())
def test_the_fact_reading_forms_decide_generated_routing_shapes_as_the_engine(obj):
    assert [d for rule in FACT_RULES if (d := disagreement(rule, obj))] == []
