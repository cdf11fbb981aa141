"""GANG301: liveness and readiness probes on gang training containers."""

from __future__ import annotations

import pytest

from gpufleet.rules import engine
from tests.rules import builders as b


def probed(template: dict, probe: str, container: int = 0) -> dict:
    template["spec"]["containers"][container][probe] = {"exec": {"command": ["true"]}}
    return template


def gang301(obj: dict) -> list[str]:
    return [f.path for f in engine.check_object(obj, select=["GANG301"])]


@pytest.mark.parametrize("probe", ["livenessProbe", "readinessProbe"])
def test_a_probe_on_a_volcano_worker_is_flagged_at_its_exact_path(probe):
    job = b.volcano_job(tasks=[b.task("master"), b.task("worker", replicas=4)])
    probed(job["spec"]["tasks"][1]["template"], probe)
    assert gang301(job) == [f"spec.tasks[1].template.spec.containers[0].{probe}"]


def test_a_startup_probe_is_fine():
    job = b.volcano_job()
    probed(job["spec"]["tasks"][0]["template"], "startupProbe")
    assert gang301(job) == []


def test_a_single_pod_batch_job_is_not_a_gang_and_may_keep_its_probe():
    job = b.batch_job(parallelism=1)
    probed(job["spec"]["template"], "livenessProbe")
    assert gang301(job) == []


def test_a_pod_in_a_kueue_pod_group_is_a_gang_member():
    pod = b.pod(group="g", total=2)
    pod["spec"]["containers"][0]["livenessProbe"] = {"tcpSocket": {"port": 1}}
    assert gang301(pod) == ["spec.containers[0].livenessProbe"]


@pytest.mark.parametrize(
    "order, depends, flagged",
    [
        ("InOrder", None, []),
        (None, {"name": "driver", "status": "Ready"}, []),
        (None, {"name": "driver", "status": "Complete"}, ["driver"]),
        (None, None, ["driver"]),
    ],
)
def test_a_jobset_readiness_probe_that_orders_startup_is_allowed(order, depends, flagged):
    driver = b.replicated_job("driver", parallelism=1)
    workers = b.replicated_job("workers", parallelism=4)
    probed(driver["template"]["spec"]["template"], "readinessProbe")
    if depends:
        workers["dependsOn"] = [depends]
    js = b.jobset(replicated_jobs=[driver, workers])
    if order:
        js["spec"]["startupPolicy"] = {"startupPolicyOrder": order}
    roles = {"spec.replicatedJobs[0].template.spec.template.spec.containers[0].readinessProbe": "driver"}
    assert [roles[p] for p in gang301(js)] == flagged


def test_a_liveness_probe_is_flagged_even_where_readiness_orders_startup():
    driver = b.replicated_job("driver", parallelism=1)
    probed(driver["template"]["spec"]["template"], "livenessProbe")
    js = b.jobset(replicated_jobs=[driver, b.replicated_job("workers")])
    js["spec"]["startupPolicy"] = {"startupPolicyOrder": "InOrder"}
    assert gang301(js) == ["spec.replicatedJobs[0].template.spec.template.spec.containers[0].livenessProbe"]


def test_a_waiver_with_a_reason_keeps_the_finding_but_unblocks_it():
    job = b.volcano_job(annotations={"waive.gpufleet.dev/GANG301": "probe checks the NCCL watchdog only"})
    probed(job["spec"]["tasks"][0]["template"], "livenessProbe")
    [finding] = engine.check_object(job, select=["GANG301"])
    assert finding.waived and not finding.blocking
