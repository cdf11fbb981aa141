"""A trace from a cluster's export: finished Workloads and Volcano Jobs, unfinished ones counted."""

from __future__ import annotations

import json

import pytest

from gpufleet.whatif.fromcluster import import_objects, load_exports


def workload(name, created, admitted, finished, count=4, gpus="8", owner="Job", ready=None):
    conds = [{"type": "Admitted", "status": "True", "lastTransitionTime": admitted}]
    if ready:
        conds.append({"type": "PodsReady", "status": "True", "lastTransitionTime": ready})
    if finished:
        conds.append({"type": "Finished", "status": "True", "lastTransitionTime": finished})
    return {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "Workload",
        "metadata": {
            "name": f"job-{name}-x",
            "namespace": "alpha",
            "creationTimestamp": created,
            "ownerReferences": [{"kind": owner, "name": name}],
        },
        "spec": {
            "podSets": [
                {
                    "name": "main",
                    "count": count,
                    "template": {
                        "spec": {
                            "containers": [
                                {"name": "c", "resources": {"requests": {"nvidia.com/gpu": gpus, "cpu": "2"}}}
                            ]
                        }
                    },
                }
            ]
        },
        "status": {"conditions": conds},
    }


def vcjob(name, created, duration, phase="Completed", min_available=None, conditions=()):
    return {
        "apiVersion": "batch.volcano.sh/v1alpha1",
        "kind": "Job",
        "metadata": {"name": name, "namespace": "alpha-vc", "creationTimestamp": created},
        "spec": {
            **({"minAvailable": min_available} if min_available is not None else {}),
            "tasks": [
                {
                    "replicas": 2,
                    "template": {
                        "spec": {"containers": [{"name": "c", "resources": {"limits": {"nvidia.com/gpu": "4"}}}]}
                    },
                }
            ],
        },
        "status": {
            "state": {"phase": phase},
            "runningDuration": duration,
            "conditions": [{"status": p, "lastTransitionTime": t} for p, t in conditions],
        },
    }


def test_finished_workloads_and_volcano_jobs_become_trace_lines_from_the_earliest_submission():
    out = import_objects(
        [
            {
                "kind": "List",
                "items": [
                    workload(
                        "b", "2026-01-01T00:10:00Z", "2026-01-01T00:11:00Z", "2026-01-01T01:11:00Z", owner="JobSet"
                    ),
                    workload("a", "2026-01-01T00:00:00Z", "2026-01-01T00:00:30Z", "2026-01-01T00:30:30Z"),
                ],
            },
            vcjob("v", "2026-01-01T00:05:00Z", "20m0s"),
        ]
    )
    got = [(j.name, j.kind, j.submit_seconds, j.pods, j.gpus_per_pod, j.run_seconds) for j in out.jobs]
    assert got == [("a", "Job", 0, 4, 8, 1800), ("v", "VolcanoJob", 300, 2, 4, 1200), ("b", "JobSet", 600, 4, 8, 3600)]
    assert out.jobs[0].cpu_per_pod == "2"


@pytest.mark.parametrize("min_available, min_pods", [(1, 1), (2, None), (None, None), ("x", None)])
def test_a_volcano_job_needing_fewer_pods_than_its_replicas_is_imported_elastic(min_available, min_pods):
    out = import_objects([vcjob("v", "2026-01-01T00:05:00Z", "20m0s", min_available=min_available)])
    assert (out.jobs[0].pods, out.jobs[0].min_pods) == (2, min_pods)


def test_unfinished_ones_are_left_out_and_counted():
    out = import_objects(
        [
            workload("a", "2026-01-01T00:00:00Z", "2026-01-01T00:00:30Z", None),
            vcjob("v", "2026-01-01T00:00:00Z", None, phase="Running"),
            {"kind": "Pod"},
        ]
    )
    assert out.jobs == []
    assert out.skipped == {"unfinished": 2, "not a Kueue Workload or Volcano Job (Pod)": 1}


def test_an_export_of_a_replay_is_scaled_back_to_trace_time():
    out = import_objects([workload("a", "2026-01-01T00:00:00Z", "2026-01-01T00:00:00Z", "2026-01-01T00:00:10Z")], 60)
    assert out.jobs[0].run_seconds == 600


def test_the_pods_ready_condition_splits_admission_to_finish_into_the_pods_start_and_the_run():
    ready = workload(
        "a", "2026-01-01T00:00:00Z", "2026-01-01T00:01:00Z", "2026-01-01T00:31:00Z", ready="2026-01-01T00:11:00Z"
    )
    job = import_objects([ready]).jobs[0]
    assert (job.start_seconds, job.run_seconds) == (600, 1200)


@pytest.mark.parametrize(
    "ready",
    [None, "2026-01-01T00:01:00Z", "2026-01-01T00:00:00Z"],  # none; at admission; before it (an earlier admission's)
)
def test_without_a_pods_ready_time_after_admission_the_whole_span_is_run_time(ready):
    w = workload("a", "2026-01-01T00:00:00Z", "2026-01-01T00:01:00Z", "2026-01-01T00:31:00Z", ready=ready)
    job = import_objects([w]).jobs[0]
    assert (job.start_seconds, job.run_seconds) == (None, 1800)


def test_a_volcano_jobs_run_time_is_from_its_first_running_condition_to_completed_not_its_running_duration():
    # as the sandbox's Volcano v1.14.1 wrote it: runningDuration counts from creation (27 s), the run was 5 s
    conditions = [
        ("Pending", "2026-12-04T02:53:16Z"),
        ("Running", "2026-12-04T02:53:38Z"),
        ("Running", "2026-12-04T02:53:43Z"),
        ("Completed", "2026-12-04T02:53:43Z"),
    ]
    job = import_objects([vcjob("v", "2026-12-04T02:53:16Z", "27s", conditions=conditions)]).jobs[0]
    assert job.run_seconds == 5


def test_objects_beyond_the_traces_year_are_left_out_and_counted():
    out = import_objects(
        [
            workload("a", "2026-01-01T00:00:00Z", "2026-01-01T00:00:30Z", "2026-01-01T00:30:30Z"),
            workload("late", "2027-06-01T00:00:00Z", "2027-06-01T00:00:30Z", "2027-06-01T00:30:30Z"),
        ]
    )
    assert [j.name for j in out.jobs] == ["a"]
    assert out.skipped == {"more than a year after the first submission, or running longer": 1}


def test_a_file_that_is_not_json_is_named(tmp_path):
    bad = tmp_path / "w.json"
    bad.write_text("items:")
    with pytest.raises(ValueError, match=r"w.json: not JSON .*fix: export with"):
        load_exports([bad])
    good = tmp_path / "ok.json"
    good.write_text(json.dumps(workload("a", "2026-01-01T00:00:00Z", "2026-01-01T00:00:00Z", "2026-01-01T00:00:09Z")))
    assert load_exports([good]).jobs[0].run_seconds == 9
