"""The rules' ValidatingAdmissionPolicies: scoped like the webhook, bound by severity, chosen by the model."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from functools import cache

import pytest

from gpufleet.crdschema.vap import CompiledPolicy, PolicyError, Request
from gpufleet.fleetctx.context import FleetContext
from gpufleet.render.context import render_context
from gpufleet.render.controller import ControllerSettings, render_controller
from gpufleet.render.controller.webhooks import operations, webhook_configurations
from gpufleet.render.params_configmap import params_base, params_name
from gpufleet.rules import engine, registry
from gpufleet.rules.admission_policies import PARAMS, params_data, policy_forms, policy_name, render_policies
from gpufleet.rules.api import CheckContext, Severity
from gpufleet.yamlin.errors import ModelError
from tests.render.builders import fleet, pool, quota, team
from tests.rules import fixtures as fx

MODEL = fleet(pools=[pool("h100", system="volcano")], teams=[team("research", quota={"h100": quota(8)})])
GANG001 = registry.get("GANG001")
VCJOB = Request("batch.volcano.sh", "v1alpha1", "jobs", "research")


def policies(model=MODEL, rules=(GANG001,)):
    return render_policies(model, rules)


def vcjob(min_available: int, replicas: int = 4, **annotations: str) -> dict:
    meta = {"name": "j", "namespace": "research", **({"annotations": annotations} if annotations else {})}
    return {
        "apiVersion": "batch.volcano.sh/v1alpha1",
        "kind": "Job",
        "metadata": meta,
        "spec": {"minAvailable": min_available, "tasks": [{"name": "w", "replicas": replicas}]},
    }


def compiled(name: str = "gpufleet-gang001") -> CompiledPolicy:
    return CompiledPolicy.of(policies()[f"validatingadmissionpolicy-{name}"])


def test_the_policies_select_the_webhooks_namespaces():
    webhook = webhook_configurations(MODEL, ControllerSettings())["validatingwebhookconfiguration"]["webhooks"][0]
    policy = policies()["validatingadmissionpolicy-gpufleet-gang001"]
    assert policy["spec"]["matchConstraints"]["namespaceSelector"] == webhook["namespaceSelector"]
    assert {"key": "gpufleet.dev/admission", "operator": "NotIn", "values": ["disabled"]} in policy["spec"][
        "matchConstraints"
    ]["namespaceSelector"]["matchExpressions"]


def test_the_policies_match_the_webhooks_operations_per_resource():
    rules = policies()["validatingadmissionpolicy-gpufleet-gang001"]["spec"]["matchConstraints"]["resourceRules"]
    seen = {(r["apiGroups"][0], r["resources"][0]): r["operations"] for r in rules}
    assert seen[("batch.volcano.sh", "jobs")] == ["CREATE", "UPDATE"]  # users edit vcjobs: updates are judged
    assert seen[("batch", "jobs")] == ["CREATE"]  # Kueue suspends and resumes Jobs by UPDATE: never in its way
    assert all(ops == operations("validate", group, plural) for (group, plural), ops in seen.items())


@pytest.mark.parametrize("rule", [r for r in registry.all_rules() if r.cel is not None], ids=lambda r: r.code)
def test_an_error_rule_is_bound_to_deny_and_a_warning_to_warn_with_a_deny_for_blank_waivers(rule):
    rendered = policies(rules=(rule,))
    for part, _ in policy_forms(rule.cel):
        binding = rendered[f"validatingadmissionpolicybinding-{policy_name(rule.code, part)}"]
        assert binding["spec"]["validationActions"] == (["Deny"] if rule.severity is Severity.ERROR else ["Warn"])
        blank = rendered.get(f"validatingadmissionpolicybinding-{policy_name(rule.code, part + '-blank-waiver')}")
        assert (blank is None) == (rule.severity is Severity.ERROR)


@pytest.mark.parametrize("code", ["GANG101", "GANG102"])
def test_a_form_in_parts_renders_one_policy_per_kind_each_matching_only_its_kind(code):
    # the API server type-checks every expression against every kind a policy matches (issue: 240 s unchecked)
    [rule] = [r for r in registry.all_rules() if r.code == code]
    rendered = policies(rules=(rule,))
    names = [m["metadata"]["name"] for m in rendered.values() if m["kind"] == "ValidatingAdmissionPolicy"]
    assert names == [policy_name(code, f"-{plural}") for plural in ("jobs", "jobsets", "pytorchjobs", "mpijobs")]
    for name in names:
        [matched] = rendered[f"validatingadmissionpolicy-{name}"]["spec"]["matchConstraints"]["resourceRules"]
        assert name.endswith(f"-{matched['resources'][0]}")


def test_a_refusal_names_the_code_the_path_and_the_fix():
    [message] = compiled().failures(vcjob(2), VCJOB)
    assert message.startswith("GANG001 min-below-replicas at spec.minAvailable: gang minimum 2 is below the 4 pods")
    assert "Fix: set spec.minAvailable to 4" in message


@pytest.mark.parametrize(
    "annotations, denied",
    [
        ({}, True),
        ({"waive.gpufleet.dev/GANG001": "a benchmark of partial starts"}, False),
        ({"waive.gpufleet.dev/gang001": "lower-case codes waive too"}, False),
        ({"waive.gpufleet.dev/GANG001": "  "}, True),
        ({"gpufleet.dev/elastic": " True "}, False),
        ({"gpufleet.dev/elastic": "yes"}, True),
    ],
)
def test_waivers_and_the_elastic_opt_in_read_as_the_engine_reads_them(annotations, denied):
    assert bool(compiled().failures(vcjob(2, **annotations), VCJOB)) is denied


def test_an_update_is_refused_only_for_a_violation_the_old_object_did_not_have():
    update = replace(VCJOB, operation="UPDATE")
    assert compiled().failures(vcjob(2), update, old=vcjob(1)) == []
    assert compiled().failures(vcjob(2), update, old=vcjob(4))


def test_the_stacks_choice_api_server_drops_the_validating_webhook_and_keeps_the_mutating_one():
    model = fleet(
        pools=[pool("h100")],
        teams=[team("research", quota={"h100": quota(8)})],
        controller={"enforcement": "apiServer"},
    )
    rendered = render_controller(model, ControllerSettings())
    assert "validatingwebhookconfiguration" not in rendered and "mutatingwebhookconfiguration" in rendered
    assert "validatingwebhookconfiguration" in render_controller(MODEL, ControllerSettings())


def test_an_unknown_enforcement_point_is_refused_at_its_path():
    with pytest.raises(ModelError) as refused:
        fleet(
            pools=[pool("h100")],
            teams=[team("research", quota={"h100": quota(8)})],
            controller={"enforcement": "kyverno"},
        )
    assert "controller.enforcement" in str(refused.value)


GANG203 = registry.get("GANG203")


def pytorch_job(backoff_limit: int, **annotations: str) -> dict:
    meta = {"name": "pt", "namespace": "research", **({"annotations": annotations} if annotations else {})}
    return {
        "apiVersion": "kubeflow.org/v1",
        "kind": "PyTorchJob",
        "metadata": meta,
        "spec": {"runPolicy": {"backoffLimit": backoff_limit}, "pytorchReplicaSpecs": {"Worker": {"replicas": 2}}},
    }


@pytest.mark.parametrize(
    "annotations, warned, denied",
    [
        ({}, True, False),
        ({"waive.gpufleet.dev/GANG203": "retries are cheap here"}, False, False),
        ({"waive.gpufleet.dev/GANG203": ""}, False, True),  # found by the generator: a blank waiver warned and denied
    ],
)
def test_a_warning_rule_warns_and_its_blank_waiver_denies_instead(annotations, warned, denied):
    rendered = render_policies(MODEL, (GANG203,))
    request = Request("kubeflow.org", "v1", "pytorchjobs", "research")
    params = rendered["configmap-rule-params"]
    failed = {
        name: bool(
            CompiledPolicy.of(rendered[f"validatingadmissionpolicy-{name}"]).failures(
                pytorch_job(50, **annotations), request, params=params
            )
        )
        for name in ("gpufleet-gang203", "gpufleet-gang203-blank-waiver")
    }
    assert failed == {"gpufleet-gang203": warned, "gpufleet-gang203-blank-waiver": denied}


def test_the_rule_options_reach_the_policies_as_params_of_one_config_map():
    rendered = render_policies(MODEL, (GANG203,))
    assert rendered["configmap-rule-params"]["data"] == {"GANG203.maxRetries": "10"}
    assert rendered["validatingadmissionpolicy-gpufleet-gang203"]["spec"]["paramKind"] == {
        "apiVersion": "v1",
        "kind": "ConfigMap",
    }
    name = rendered["configmap-rule-params"]["metadata"]["name"]
    assert params_base(name) == PARAMS and name == params_name(PARAMS, {"GANG203.maxRetries": "10"})
    assert rendered["validatingadmissionpolicybinding-gpufleet-gang203"]["spec"]["paramRef"]["name"] == name


GANG201 = registry.get("GANG201")


@pytest.mark.parametrize(
    "job_policies, task_policies, denied",
    [
        ([], [], True),
        ([{"event": "PodFailed", "action": "RestartJob"}, {"event": "PodEvicted", "action": "RestartJob"}], [], False),
        ([{"events": ["*"], "action": "RestartJob"}], [], False),
        ([{"event": "*", "action": "RestartJob"}], [], False),
        ([{"event": "PodFailed", "action": "RestartJob"}], [{"events": ["PodEvicted"], "action": "RestartJob"}], False),
        (
            [{"event": "PodFailed", "action": "RestartJob"}],
            [{"events": ["TaskCompleted"], "action": "CompleteJob"}],
            True,
        ),
    ],
)
def test_gang201s_policy_reads_job_and_task_policies_and_wildcards_as_the_engine(job_policies, task_policies, denied):
    job = vcjob(4)
    job["spec"]["policies"] = job_policies
    job["spec"]["tasks"][0]["policies"] = task_policies
    failures = CompiledPolicy.of(
        render_policies(MODEL, (GANG201,))["validatingadmissionpolicy-gpufleet-gang201"]
    ).failures(job, VCJOB)
    assert bool(failures) is denied
    assert bool(engine.check_object(job, select=["GANG201"])) is denied


GANG804 = registry.get("GANG804")


@pytest.mark.parametrize("timeout, denied", [(None, True), (29, True), (30, False), (300, False), (301, True)])
def test_gang804s_window_comes_from_the_params_as_the_rules_options(timeout, denied):
    group = {
        "apiVersion": "scheduling.x-k8s.io/v1alpha1",
        "kind": "PodGroup",
        "metadata": {"name": "g", "namespace": "research"},
        "spec": {"minMember": 2, **({"scheduleTimeoutSeconds": timeout} if timeout is not None else {})},
    }
    rendered = render_policies(MODEL, (GANG804,))
    assert rendered["configmap-rule-params"]["data"] == {"GANG804.minSeconds": "30", "GANG804.maxSeconds": "300"}
    failures = CompiledPolicy.of(rendered["validatingadmissionpolicy-gpufleet-gang804"]).failures(
        group,
        Request("scheduling.x-k8s.io", "v1alpha1", "podgroups", "research"),
        params=rendered["configmap-rule-params"],
    )
    assert bool(failures) is denied
    assert bool(engine.check_object(group, select=["GANG804"])) is denied


def test_a_policy_reading_an_undeclared_variable_is_refused_as_the_api_servers_compiler_does():
    policy = render_policies(MODEL, (GANG804,))["validatingadmissionpolicy-gpufleet-gang804"]
    broken = {
        **policy,
        "spec": {
            **policy["spec"],
            "validations": [
                {
                    "expression": "request.operation == 'UPDATE' ? variables.old_timeout > 0 : true",
                    "messageExpression": "'x'",
                }
            ],
        },
    }
    with pytest.raises(PolicyError, match="old_timeout"):
        CompiledPolicy.of(broken)


@pytest.mark.parametrize(
    "argument, refused",
    [
        ("object.spec.pytorchReplicaSpecs[r]", True),
        ("object.spec.pytorchReplicaSpecs[r].template", False),
        ("object.spec", False),
        ("object.metadata.labels['a']", True),
    ],
)
def test_has_of_anything_but_a_field_selection_is_refused_as_the_api_servers_compiler_does(argument, refused):
    policy = render_policies(MODEL, (GANG804,))["validatingadmissionpolicy-gpufleet-gang804"]
    broken = {
        **policy,
        "spec": {
            **policy["spec"],
            "validations": [{"expression": f"[1].exists(r, has({argument}))", "messageExpression": "'x'"}],
        },
    }
    if refused:
        with pytest.raises(PolicyError, match="invalid argument to has"):
            CompiledPolicy.of(broken)
    else:
        CompiledPolicy.of(broken)


@pytest.mark.parametrize("rule", [r for r in registry.all_rules() if r.cel is not None], ids=lambda r: r.code)
def test_every_rendered_policy_compiles_as_the_api_server_would(rule):
    """Its variables CEL identifiers, every has() given a field selection, no undeclared variable."""
    for key, manifest in render_policies(MODEL, (rule,)).items():
        if key.startswith("validatingadmissionpolicy-"):
            CompiledPolicy.of(manifest)


def test_the_fleets_priority_classes_reach_gang110s_policy_as_params_from_the_fleet_context():
    model = fleet(
        pools=[pool("h100")],
        teams=[team("research", quota={"h100": quota(8)})],
        priorityClasses=[{"name": "gang-high", "value": 1000}, {"name": "batch-low", "value": 10}],
    )
    rendered = render_policies(model, (registry.get("GANG110"),))
    params = rendered["configmap-rule-params"]
    assert params["data"] == {"priorityClass.gang-high": "true", "priorityClass.batch-low": "true"}
    policy = CompiledPolicy.of(rendered["validatingadmissionpolicy-gpufleet-gang110"])
    job = vcjob(4)
    for name, denied in (("gang-high", False), ("gang-hihg", True)):
        job["metadata"]["labels"] = {"kueue.x-k8s.io/priority-class": name}
        assert bool(policy.failures(job, VCJOB, params=params)) is denied


CONFIG_MAP_KEY = re.compile(r"(?!\.\.)(?!\.$)[-._a-zA-Z0-9]+")
"""What the API server accepts as a ConfigMap key (``IsConfigMapKey``, k8s.io/apimachinery, v1.37: the characters, and
not ``.`` nor starting with ``..``, ``hasChDirPrefix``; the params write a ``/`` as ``..``, never first)."""


def test_every_params_key_is_a_key_the_api_server_accepts_in_a_config_map():
    context = FleetContext.from_dict(json.loads((fx.FIXTURES / "GANG108" / "fleet-context.json").read_text()))
    data = params_data(registry.all_rules(), context)
    assert "kueueIntegrates.batch..job" in data and "localQueue.alpha.alpha" in data  # a framework's "/", a pair
    assert [key for key in data if not CONFIG_MAP_KEY.fullmatch(key) or len(key) > 253] == []


def test_the_fleets_routing_facts_reach_the_params_from_the_fleet_context_the_webhook_reads():
    model = fleet(
        pools=[pool("h100", system="volcano"), pool("l4")],
        teams=[team("research", quota={"h100": quota(8)}), team("vision", quota={"l4": quota(4)})],
    )
    data = render_policies(model, (registry.get("GANG104"), registry.get("GANG105")))["configmap-rule-params"]["data"]
    assert {
        "teamNamespace.research",
        "teamNamespace.vision",
        "volcanoQueue.research",
        "localQueue.vision.vision",
        "namespaceVolcanoQueue.research.research",
    } <= set(data)
    assert not any(key.startswith(("teamNamespace.kube-system", "localQueue.research.")) for key in data)


def _decided(code: str, obj: dict, request: Request, model=MODEL) -> tuple[bool, bool]:
    """(failed the rule's policy, engine finding) for ``obj``; the params as rendered for ``model``."""
    rendered = render_policies(model, (registry.get(code),))
    policy = CompiledPolicy.of(rendered[f"validatingadmissionpolicy-{policy_name(code)}"])
    failed = bool(policy.failures(obj, request, params=rendered.get("configmap-rule-params")))
    found = bool(
        engine.check_object(obj, CheckContext(fleet=FleetContext.from_dict(render_context(model))), select=[code])
    )
    return failed, found


@pytest.mark.parametrize(
    "version, mode, warned",
    [
        ("v1beta1", None, True),
        ("v1beta1", {"single": {}}, True),
        ("v1beta1", {"all": {}}, False),
        ("v1alpha2", "Pod", True),
        ("v1alpha2", "PodGroup", False),  # 1.36 spells it as a string: no error reading it
    ],
)
def test_gang207s_policy_reads_a_disruption_mode_written_as_a_map_or_a_string(version, mode, warned):
    group = {
        "apiVersion": f"scheduling.k8s.io/{version}",
        "kind": "PodGroup",
        "metadata": {"name": "g", "namespace": "research"},
        "spec": {"schedulingPolicy": {"gang": {"minCount": 2}}, **({"disruptionMode": mode} if mode else {})},
    }
    request = Request("scheduling.k8s.io", version, "podgroups", "research")
    assert _decided("GANG207", group, request) == (warned, warned)


def _jobset(meta: dict, labelled: bool = False) -> dict:
    template = {"spec": {"containers": [{"name": "w", "image": "i"}]}}
    if labelled:
        template["metadata"] = {"labels": {"gpufleet.dev/gang": "run-1"}}
    return {
        "apiVersion": "jobset.x-k8s.io/v1alpha2",
        "kind": "JobSet",
        "metadata": {"namespace": "research", **meta},
        "spec": {"replicatedJobs": [{"name": "w", "template": {"spec": {"parallelism": 2, "template": template}}}]},
    }


JOBSETS = Request("jobset.x-k8s.io", "v1alpha2", "jobsets", "research")


@pytest.mark.parametrize(
    "observability, meta, labelled, warned",
    [
        (True, {"generateName": "llm-"}, False, True),
        (True, {"generateName": "llm-"}, True, False),
        (True, {"name": "llm"}, False, False),  # the controller stamps its name
        (False, {"generateName": "llm-"}, False, False),  # no gang alerts: the fleet fact is absent from the params
    ],
)
def test_gang701s_policy_warns_a_gang_without_a_name_only_where_the_fleet_has_gang_alerts(
    observability, meta, labelled, warned
):
    model = fleet(
        pools=[pool("h100", system="volcano")],
        teams=[team("research", quota={"h100": quota(8)})],
        observability={"enabled": observability},
    )
    assert _decided("GANG701", _jobset(meta, labelled), JOBSETS, model) == (warned, warned)


@pytest.mark.parametrize(
    "order, probe, role, denied",
    [
        ("InOrder", "readinessProbe", "driver", False),  # the workers wait for the driver to be Ready
        ("InOrder", "readinessProbe", "workers", True),  # the last replicatedJob: nobody waits for it
        ("AnyOrder", "readinessProbe", "driver", True),
        ("InOrder", "livenessProbe", "driver", True),
    ],
)
def test_gang301s_policy_allows_a_readiness_probe_only_where_a_jobset_orders_its_startup_by_it(
    order, probe, role, denied
):
    def rjob(name: str) -> dict:
        container = {"name": "c", "image": "i", **({probe: {"exec": {"command": ["true"]}}} if name == role else {})}
        return {"name": name, "template": {"spec": {"template": {"spec": {"containers": [container]}}}}}

    jobset = {
        "apiVersion": "jobset.x-k8s.io/v1alpha2",
        "kind": "JobSet",
        "metadata": {"name": "js", "namespace": "research"},
        "spec": {"startupPolicy": {"startupPolicyOrder": order}, "replicatedJobs": [rjob("driver"), rjob("workers")]},
    }
    assert _decided("GANG301", jobset, JOBSETS) == (denied, denied)


def test_gang005s_refusal_names_the_task_the_partitions_and_the_fix():
    job = vcjob(0, replicas=8)
    del job["spec"]["minAvailable"]
    job["spec"]["tasks"][0]["partitionPolicy"] = {"totalPartitions": 4, "partitionSize": 2, "minPartitions": 2}
    rendered = render_policies(MODEL, (registry.get("GANG005"),))
    [message] = CompiledPolicy.of(rendered["validatingadmissionpolicy-gpufleet-gang005"]).failures(job, VCJOB)
    assert message.startswith(
        "GANG005 partition-minimum-below-partitions at spec.tasks[0].partitionPolicy.minPartitions: "
        "minPartitions 2 of 4: "
    )
    assert "starts this fixed-size job with 4 of its 8 pods" in message and "Fix: set minPartitions to 4" in message


def test_every_params_key_is_a_valid_config_map_key():
    """Found on the real API server: a fact keyed by the label's name (``gangLabel.gpufleet.dev/gang``) made the
    whole ConfigMap invalid, and every policy reading params then denied everything (``parameterNotFoundAction``)."""
    model = fleet(
        pools=[pool("h100", system="volcano")],
        teams=[team("research", quota={"h100": quota(8)})],
        priorityClasses=[{"name": "gang-high", "value": 1000}],
    )
    keys = render_policies(model, registry.all_rules())["configmap-rule-params"]["data"]
    assert "observability.gangLabel" in keys
    assert [key for key in keys if not CONFIG_MAP_KEY.fullmatch(key)] == []


GPU_FLEET = fx.context("GANG807").fleet
"""A fleet context with every system, a dedicated pool (vault, team secure) and six teams (tests/rules/fixtures)."""


@cache
def gpu_fleet_policy(code: str) -> tuple[CompiledPolicy, dict]:
    """The rule's policy, compiled once, and its params rendered from GPU_FLEET."""
    rendered = render_policies(MODEL, (registry.get(code),))
    return (
        CompiledPolicy.of(rendered[f"validatingadmissionpolicy-{policy_name(code)}"]),
        {"data": params_data((registry.get(code),), GPU_FLEET)},
    )


def decided(code: str, obj: dict, request: Request) -> tuple[bool, bool]:
    """(denied by the rule's policy with params from GPU_FLEET, denied by the engine with GPU_FLEET)."""
    policy, params = gpu_fleet_policy(code)
    engine_denied = any(f.blocking for f in engine.check_object(obj, CheckContext(fleet=GPU_FLEET), select=[code]))
    return bool(policy.failures(obj, request, params=params)), engine_denied


def test_every_params_key_is_a_config_map_key_resource_names_writing_their_slash_as_two_dots():
    data = params_data(registry.all_rules(), GPU_FLEET)
    assert [key for key in data if not CONFIG_MAP_KEY.fullmatch(key)] == []
    assert data["gpuResource.nvidia.com..gpu"] == "true"
    assert data["poolTotal.volcano.research.nvidia.com..gpu"] == "32"  # h100: 4 nodes x 8
    assert data["namespaceTeam.vision-dev"] == "vision" and data["dedicatedTeam.secure"] == "true"


@pytest.mark.parametrize(
    "group, namespace, queue, resources, denied",
    [
        ("scheduling.volcano.sh", "research", "research", {"nvidia.com/gpu": "32"}, False),
        ("scheduling.volcano.sh", "research", "research", {"nvidia.com/gpu": "33"}, True),
        ("scheduling.volcano.sh", "research", None, {"memory": "7200Gi", "cpu": "768"}, False),
        ("scheduling.volcano.sh", "sim", "sim", {"memory": "7201Gi"}, True),
        (
            "scheduling.volcano.sh",
            "vision",
            None,
            {"nvidia.com/gpu": 33},
            True,
        ),  # no Volcano pool of its own: the fleet's h100
        (
            "scheduling.volcano.sh",
            "research",
            None,
            {"example.com/fpga": "1000"},
            False,
        ),  # no pool lists it: not judged
        ("scheduling.volcano.sh", "research", None, {"nvidia.com/mig-1g.10gb": "1"}, True),  # a GPU no pool lists: zero
        ("scheduling.x-k8s.io", "robotics", None, {"nvidia.com/gpu": "16"}, False),  # l40s: 4 x 4
        ("scheduling.x-k8s.io", "research", None, {"nvidia.com/gpu": "17"}, True),
    ],
)
def test_gang404s_policy_reads_the_pools_of_the_queues_or_namespaces_team_from_the_params(
    group, namespace, queue, resources, denied
):
    version = "v1beta1" if group == "scheduling.volcano.sh" else "v1alpha1"
    spec = {"minMember": 2, "minResources": resources, **({"queue": queue} if queue else {})}
    group_obj = {
        "apiVersion": f"{group}/{version}",
        "kind": "PodGroup",
        "metadata": {"name": "g", "namespace": namespace},
        "spec": spec,
    }
    assert decided("GANG404", group_obj, Request(group, version, "podgroups", namespace)) == (denied, denied)


@pytest.mark.parametrize(
    "requests, limits, denied",
    [
        ({}, {"nvidia.com/gpu": 8}, False),
        ({"nvidia.com/gpu": "8"}, {"nvidia.com/gpu": "8000m"}, False),  # equal quantities, written differently
        ({"nvidia.com/gpu": "8"}, {}, True),
        ({"nvidia.com/gpu": "4"}, {"nvidia.com/gpu": "8"}, True),
        ({}, {"nvidia.com/mig-1g.10gb": "1.5"}, True),
        ({"cpu": "500m"}, {"cpu": "1"}, False),  # not a GPU
    ],
)
def test_gang401s_policy_reads_gpu_amounts_as_quantities(requests, limits, denied):
    job = vcjob(4)
    job["spec"]["tasks"][0]["template"] = {
        "spec": {
            "containers": [
                {
                    "name": "c",
                    "image": "i",
                    "resources": {
                        **({"requests": requests} if requests else {}),
                        **({"limits": limits} if limits else {}),
                    },
                }
            ]
        }
    }
    assert decided("GANG401", job, VCJOB) == (denied, denied)


@pytest.mark.parametrize(
    "namespace, toleration, denied",
    [
        ("research", {"key": "gpufleet.dev/dedicated", "value": "secure"}, True),
        ("research", {"key": "gpufleet.dev/dedicated", "value": "secure", "effect": "NoSchedule"}, False),
        ("secure", {"key": "gpufleet.dev/dedicated", "value": "secure"}, False),  # the owner's own pool
        ("secure", {"operator": "Exists"}, False),  # no other team has a dedicated pool
        ("research", {"operator": "Exists"}, True),
        ("kube-system", {"operator": "Exists"}, False),  # exempt
    ],
)
def test_gang807s_policy_reads_the_namespaces_team_and_the_dedicated_teams_from_the_params(
    namespace, toleration, denied
):
    job = vcjob(4)
    job["metadata"]["namespace"] = namespace
    job["spec"]["tasks"][0]["template"] = {
        "spec": {"tolerations": [toleration], "containers": [{"name": "c", "image": "i"}]}
    }
    assert decided("GANG807", job, replace(VCJOB, namespace=namespace)) == (denied, denied)


@pytest.mark.parametrize("name", ["namespace", "package", "in", "2nd"])
def test_a_variable_named_by_a_reserved_word_is_refused_as_the_api_server_refuses_it(name):
    policy = render_policies(MODEL, (GANG804,))["validatingadmissionpolicy-gpufleet-gang804"]
    broken = {**policy, "spec": {**policy["spec"], "variables": [{"name": name, "expression": "1"}]}}
    with pytest.raises(PolicyError, match="not valid CEL identifiers"):
        CompiledPolicy.of(broken)
