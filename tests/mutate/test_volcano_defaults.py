"""The mutator's Volcano Job defaults: queue, scheduler, gang minimum, restart policies."""

from __future__ import annotations

import copy

import jsonpatch
import pytest

from gpufleet.mutate import mutate
from tests.mutate.builders import OTHER_NS, TEAM_NS, fleet, pod_template, safe_volcano_job, volcano_job, with_meta


def patched(obj, ctx=None, namespace=None):
    ops = mutate(obj, ctx or fleet(), namespace)
    return jsonpatch.apply_patch(obj, ops), ops


def test_a_bare_volcano_job_in_a_team_namespace_gets_every_gang_default():
    out, _ = patched(volcano_job(1, 3))
    spec = out["spec"]
    assert spec["queue"] == "research-vq"
    assert spec["schedulerName"] == "volcano"
    assert spec["minAvailable"] == 4
    assert {p["event"]: p["action"] for p in spec["policies"]} == {
        "PodEvicted": "RestartJob",
        "PodFailed": "RestartJob",
    }
    for task in spec["tasks"]:
        assert task["template"]["spec"]["schedulerName"] == "volcano"
        assert task["template"]["spec"]["restartPolicy"] == "Never"


def test_a_job_that_already_has_every_default_is_left_alone():
    assert mutate(safe_volcano_job(2, 6), fleet()) == []


def test_a_job_outside_every_team_namespace_is_left_alone():
    assert mutate(volcano_job(2, namespace=OTHER_NS), fleet()) == []


def test_the_request_namespace_wins_over_a_missing_metadata_namespace():
    job = volcano_job(2, namespace=None)
    assert mutate(job, fleet()) == []
    assert mutate(job, fleet(), TEAM_NS) != []


def test_the_crd_default_queue_counts_as_unset_but_another_queue_is_kept():
    out, _ = patched(volcano_job(2, queue="default"))
    assert out["spec"]["queue"] == "research-vq"
    out, _ = patched(volcano_job(2, queue="shared"))
    assert out["spec"]["queue"] == "shared"


def test_a_team_without_a_volcano_queue_gets_no_queue_default():
    out, _ = patched(volcano_job(2), fleet(volcano_queue=None))
    assert "queue" not in out["spec"]


@pytest.mark.parametrize("field, value", [("schedulerName", "kube-batch"), ("minAvailable", 1), ("minAvailable", 0)])
def test_an_explicit_job_level_value_is_never_overwritten(field, value):
    out, _ = patched(volcano_job(2, 2, **{field: value}))
    assert out["spec"][field] == value


@pytest.mark.parametrize("field, value", [("schedulerName", "default-scheduler"), ("restartPolicy", "OnFailure")])
def test_an_explicit_template_value_is_never_overwritten(field, value):
    job = volcano_job(2)
    job["spec"]["tasks"][0]["template"]["spec"][field] = value
    out, _ = patched(job)
    assert out["spec"]["tasks"][0]["template"]["spec"][field] == value


@pytest.mark.parametrize("empty", [None, ""])
def test_an_empty_or_null_scheduler_name_is_replaced(empty):
    out, ops = patched(volcano_job(2, schedulerName=empty))
    assert out["spec"]["schedulerName"] == "volcano"
    assert {"op": "replace", "path": "/spec/schedulerName", "value": "volcano"} in ops


def test_an_elastic_job_gets_no_gang_minimum():
    out, _ = patched(with_meta(volcano_job(2, 2), "annotations", {"gpufleet.dev/elastic": "true"}))
    assert "minAvailable" not in out["spec"]


@pytest.mark.parametrize("replicas", ["4", 2.5, True, -1])
def test_a_replica_count_that_is_not_a_whole_number_leaves_the_minimum_unset(replicas):
    job = volcano_job(2, 2)
    job["spec"]["tasks"][1]["replicas"] = replicas
    out, _ = patched(job)
    assert "minAvailable" not in out["spec"]


def test_a_task_without_replicas_counts_as_zero_like_volcano():
    job = volcano_job(3, 2)
    del job["spec"]["tasks"][1]["replicas"]
    out, _ = patched(job)
    assert out["spec"]["minAvailable"] == 3


@pytest.mark.parametrize(
    "policies",
    [
        [{"event": "*", "action": "AbortJob"}],
        [{"events": ["PodEvicted", "PodFailed"], "action": "RestartJob"}],
        [{"events": ["*"], "action": "RestartJob"}],
        [{"event": "PodEvicted", "action": "AbortJob"}, {"event": "PodFailed", "action": "TerminateJob"}],
    ],
)
def test_job_level_policies_covering_both_events_are_kept_as_they_are(policies):
    out, _ = patched(volcano_job(2, policies=copy.deepcopy(policies)))
    assert out["spec"]["policies"] == policies


def test_only_the_uncovered_event_is_appended_to_existing_policies():
    existing = [{"event": "PodEvicted", "action": "AbortJob"}, {"exitCode": 137, "action": "RestartTask"}]
    out, ops = patched(volcano_job(2, policies=copy.deepcopy(existing)))
    assert out["spec"]["policies"] == existing + [{"event": "PodFailed", "action": "RestartJob"}]
    assert [op["path"] for op in ops if "policies" in op["path"]] == ["/spec/policies/-"]


def test_policies_on_every_task_cover_the_event_but_on_some_tasks_do_not():
    job = volcano_job(1, 2)
    for task in job["spec"]["tasks"]:
        task["policies"] = [{"event": "PodFailed", "action": "RestartJob"}]
    out, _ = patched(job)
    assert [p["event"] for p in out["spec"]["policies"]] == ["PodEvicted"]
    del job["spec"]["tasks"][1]["policies"]
    out, _ = patched(job)
    assert [p["event"] for p in out["spec"]["policies"]] == ["PodEvicted", "PodFailed"]


def test_null_policies_are_replaced_by_the_restart_policies():
    out, ops = patched(volcano_job(2, policies=None))
    assert len(out["spec"]["policies"]) == 2
    assert [op["op"] for op in ops if op["path"] == "/spec/policies"] == ["replace"]


def test_a_template_without_a_spec_gets_one_map_holding_both_template_defaults():
    job = volcano_job(2)
    job["spec"]["tasks"][0]["template"] = {"metadata": {"labels": {"a": "b"}}}
    out, ops = patched(job)
    assert out["spec"]["tasks"][0]["template"]["spec"] == {"schedulerName": "volcano", "restartPolicy": "Never"}
    assert sum(op["path"].startswith("/spec/tasks/0/template/spec") for op in ops) == 1


@pytest.mark.parametrize(
    "broken",
    [
        {"tasks": "not-a-list"},
        {"tasks": [None, "x", {"replicas": 1, "template": "x"}]},
        {"policies": "x"},
    ],
)
def test_malformed_specs_are_patched_where_possible_and_never_crash(broken):
    job = volcano_job(2, **broken)
    out, _ = patched(job)
    assert mutate(out, fleet()) == []


def test_a_spec_that_is_not_a_map_gets_no_patch():
    job = volcano_job(2)
    job["spec"] = ["x"]
    assert mutate(job, fleet()) == []


def test_mutate_never_changes_its_input():
    job = volcano_job(2, 3)
    before = copy.deepcopy(job)
    mutate(job, fleet())
    assert job == before


def test_a_volcano_job_never_gets_a_kueue_queue_label():
    out, _ = patched(volcano_job(2))
    assert "labels" not in out["metadata"]


def test_templates_in_a_task_list_with_holes_are_addressed_by_their_own_index():
    job = volcano_job(1, 1)
    job["spec"]["tasks"].insert(0, "garbage")
    job["spec"]["tasks"][2]["template"] = pod_template(schedulerName="volcano", restartPolicy="Never")
    _, ops = patched(job)
    assert {op["path"] for op in ops if "/tasks/" in op["path"]} == {
        "/spec/tasks/1/template/spec/schedulerName",
        "/spec/tasks/1/template/spec/restartPolicy",
    }


def test_the_default_minimum_leaves_out_a_task_that_depends_on_the_others():
    """The launcher's pod is created once the workers run: counting it would leave the job Inqueue forever."""
    job = volcano_job(1, 3)
    job["spec"]["tasks"][0]["dependsOn"] = {"name": [job["spec"]["tasks"][1]["name"]]}
    out, _ = patched(job)
    assert out["spec"]["minAvailable"] == 3
