"""The JobSet reader against JobSet v0.12.0's own behaviour, one upstream function per row."""

from __future__ import annotations

from typing import Any

import pytest

from gpufleet.kubetypes import vocab
from tests.rules.builders import jobset, pod_group, pod_template, replicated_job
from tests.workloads.contract.probes import PROBES, contract_of


def rjob(name: str = "workers", completions: int | None = None, depends: list | None = None, **kw: Any) -> dict:
    out = replicated_job(name, **kw)
    if completions is not None:
        out["template"]["spec"]["completions"] = completions
    if depends is not None:
        out["dependsOn"] = depends
    return out


def never(name: str = "workers", **kw: Any) -> dict:
    return rjob(name, restart_policy="Never", **kw)


def js(*rjobs: dict, **spec: Any) -> dict:
    obj = jobset(
        replicated_jobs=list(rjobs) or [rjob()],
        annotations=spec.pop("annotations", None),
        labels=spec.pop("labels", None),
    )
    obj["spec"].update(spec)
    return obj


def unset_restart(obj: dict) -> dict:
    for r in obj["spec"]["replicatedJobs"]:
        r["template"]["spec"]["template"]["spec"].pop("restartPolicy", None)
    return obj


EXCLUSIVE = {"alpha.jobset.sigs.k8s.io/exclusive-topology": "cloud.google.com/gke-nodepool"}
COSCHEDULED = pod_template(labels={vocab.COSCHEDULING_GROUP: "pg"})

CASES = [
    (
        "stages.sweep_roles: child Jobs running more completions than parallelism are a sweep",
        js(rjob(parallelism=2, completions=10)),
        {},
        "roles",
        {"workers": "sweep"},
    ),
    # (upstream behaviour, object, operator settings, probe, expected)
    (
        "jobset_types.go ReplicatedJob: replicas Jobs × min(parallelism, completions)",
        js(rjob(replicas=3, parallelism=4, completions=2)),
        {},
        "counts",
        {"workers": 6},
    ),
    (
        "jobset_types.go ReplicatedJob: replicas defaults to 1",
        js(rjob(replicas=None, parallelism=4)),
        {},
        "counts",
        {"workers": 4},
    ),
    (
        "stages.initializer_roles: a replicatedJob others wait on to Complete is an initializer",
        js(rjob("init", parallelism=1), rjob(depends=[{"name": "init", "status": "Complete"}])),
        {},
        "roles",
        {"init": "initializer", "workers": "rank"},
    ),
    (
        "depends_on.go dependencyReachedStatus: a Ready dependency creates the dependant later",
        js(rjob("node"), rjob("launcher", parallelism=1, depends=[{"name": "node", "status": "Ready"}])),
        {},
        "after",
        {"launcher": [(("node",), "Ready")]},
    ),
    (
        "startup_policy.go allReplicasStarted: InOrder starts each after the previous is Ready",
        js(rjob("driver", parallelism=1), rjob("workers"), startupPolicy={"startupPolicyOrder": "InOrder"}),
        {},
        "after",
        {"workers": [(("driver",), "Ready")]},
    ),
    (
        "pod_webhook.go ValidateCreate: followers wait for their Job's leader to be scheduled",
        js(rjob(replicas=3, parallelism=3), annotations=EXCLUSIVE),
        {},
        "after",
        {"workers.followers": [(("workers",), "Scheduled")]},
    ),
    (
        "pod_webhook.go ValidateCreate: one leader per child Job exists at first",
        js(rjob(replicas=3, parallelism=3), annotations=EXCLUSIVE),
        {},
        "counts",
        {"workers": 3, "workers.followers": 6},
    ),
    (
        "pod_webhook.go patchPod: the exclusive topology key",
        js(rjob(replicas=3, parallelism=3), annotations=EXCLUSIVE),
        {},
        "exclusive",
        "cloud.google.com/gke-nodepool",
    ),
    (
        "jobset_webhook.go Default: pod restartPolicy OnFailure, the kubelet restarts in place first",
        unset_restart(js(rjob(backoff_limit=None))),
        {},
        "steps",
        {"workers": [("kubelet", "inPlace", 6), ("podController", "pod", 6), ("operator", "stop", None)]},
    ),
    (
        "batch/v1 defaults: child backoffLimit 6 replaces a Never pod alone",
        js(never(backoff_limit=None)),
        {},
        "steps",
        {"workers": [("podController", "pod", 6), ("operator", "stop", None)]},
    ),
    (
        "failure_policy.go executeFailurePolicy: no failurePolicy, the first failed child Job fails the JobSet",
        js(never(backoff_limit=0)),
        {},
        "scope",
        {"workers": "stop"},
    ),
    (
        "failure_policy.go defaultFailurePolicyRuleAction: no rule, RestartJobSet bounded by maxRestarts",
        js(never(), failurePolicy={"maxRestarts": 3}),
        {},
        "steps",
        {"workers": [("operator", "whole", 3)]},
    ),
    (
        "failure_policy.go: RestartJobSet with maxRestarts 0 fails the JobSet",
        js(never(), failurePolicy={"maxRestarts": 0}),
        {},
        "scope",
        {"workers": "stop"},
    ),
    (
        "failure_policy.go: FailJobSet",
        js(never(), failurePolicy={"maxRestarts": 3, "rules": [{"action": "FailJobSet"}]}),
        {},
        "scope",
        {"workers": "stop"},
    ),
    (
        "failure_policy.go: RestartJobSetAndIgnoreMaxRestarts is unbounded",
        js(never(), failurePolicy={"rules": [{"action": "RestartJobSetAndIgnoreMaxRestarts"}]}),
        {},
        "steps",
        {"workers": [("operator", "whole", None)]},
    ),
    (
        "failure_policy.go: RestartJob recreates the failed child Job only",
        js(
            never("a"),
            never("b"),
            failurePolicy={"maxRestarts": 2, "rules": [{"action": "RestartJob", "targetReplicatedJobs": ["b"]}]},
        ),
        {"jobset": {"featureGates": ["RestartJob"]}},
        "scope",
        {"a": "whole", "b": "childJob"},
    ),
    (
        "jobset_webhook.go ValidateCreate: RestartJob is refused without its gate",
        js(never(), failurePolicy={"rules": [{"action": "RestartJob"}]}),
        {},
        "notes",
        ("failurePolicy uses RestartJob: JobSet's webhook refuses it unless the RestartJob gate is on",),
    ),
    (
        "failure_policy.go: a rule whose reasons a rank failure never has does not match",
        js(
            never(),
            failurePolicy={
                "maxRestarts": 1,
                "rules": [{"action": "FailJobSet", "onJobFailureReasons": ["DeadlineExceeded"]}],
            },
        ),
        {},
        "steps",
        {"workers": [("operator", "whole", 1)]},
    ),
    (
        "in_place_restart.go: InPlaceRestart restarts every pod together",
        js(rjob(backoff_limit=2147483647), failurePolicy={"restartStrategy": "InPlaceRestart", "maxRestarts": 5}),
        {"jobset": {"featureGates": ["InPlaceRestart"]}},
        "steps",
        {"workers": [("operator", "whole", 5)]},
    ),
    (
        "jobset_webhook.go Default: successPolicy All over every replicatedJob",
        js(rjob("a"), rjob("b")),
        {},
        "success",
        ("every child Job of the targets succeeds", ("a", "b")),
    ),
    (
        "success_policy.go: Any over the targets",
        js(rjob("a"), rjob("b"), successPolicy={"operator": "Any", "targetReplicatedJobs": ["b"]}),
        {},
        "success",
        ("any child Job of the targets succeeds", ("b",)),
    ),
    (
        "jobset_controller.go deleteJobs: a finished JobSet deletes its active child Jobs",
        js(),
        {},
        "survivors_stop",
        True,
    ),
    ("no PodGroup in pkg/: nothing admits the pods together", js(), {}, "admission", ("perPod", "none", None)),
    (
        "kueue jobset_controller.go PodSets: a queue-labelled JobSet is one Workload",
        js(rjob(replicas=2), labels={vocab.QUEUE_LABEL: "q"}),
        {},
        "admission",
        ("whole", "kueue", 4),
    ),
    (
        "a user PodGroup named in the templates gangs the pods",
        js({"name": "workers", "template": {"spec": {"parallelism": 4, "completions": 4, "template": COSCHEDULED}}}),
        {},
        "groups",
        [("coscheduling", 3, "workload")],
    ),
    ("resources.pod_requests: GPUs per pod", js(rjob(gpus=8)), {}, "gpus", {"workers": 8}),
]


@pytest.mark.parametrize(("behaviour", "obj", "operators", "probe", "expected"), CASES, ids=[c[0] for c in CASES])
def test_the_jobset_reader_follows_upstream(
    behaviour: str, obj: dict, operators: dict, probe: str, expected: Any
) -> None:
    objects = (pod_group("pg", min_member=3, flavor="coscheduling"),)
    assert PROBES[probe](contract_of(obj, operators, objects)) == expected
