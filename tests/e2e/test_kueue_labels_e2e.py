"""Issue 32, items 5, 9 and 11 on the real Kueue: what it does with a job's Kueue labels, and lint --fleet's verdict.

Real Kueue v0.19.2 (pod integration on, ``manageJobsWithoutQueueName: true``, its job and
pod webhooks limited to ``managedJobsNamespaceSelector`` as its chart does), the Job and
CronJob controllers of kube-controller-manager, kube-scheduler and KWOK nodes; the
gang-admission controller is not started. One Kueue pool of 8 nodes x 8 GPUs, team
research (namespace research, 64 GPUs), one priority class ``gang-standard``; namespace
scratch belongs to no team. Every case also lints the same manifests as
``gpufleet lint --fleet <the sandbox's model>`` does (:meth:`Sandbox.lint`):

- item 5: a plain-pod group member without ``pod-group-total-count`` (queue-labelled or
  not) is refused by Kueue's pod webhook ``vpod.kb.io`` in the team's namespace: GANG109.
  With the count, the group is admitted as one Workload and runs whole: lint is clean.
  Outside Kueue's namespaces the webhook is not called: a queue-labelled member without
  the count is created (not gated), and GANG109 says nothing;
- item 9: a CronJob whose queue label is in ``jobTemplate.metadata`` makes Jobs that
  carry it, admitted by Kueue: lint is clean; one whose label is on the CronJob makes
  Jobs without it, which Kueue suspends with a Workload naming no LocalQueue, never
  admitted: GANG103 at ``spec.jobTemplate.metadata.labels``, the fix moves the label;
- item 11: a Job naming a WorkloadPriorityClass the model renders is admitted at its
  value; one naming a class that does not exist stays suspended and Kueue creates no
  Workload for it: GANG110.
"""

from __future__ import annotations

import pytest

from gpufleet.kubetypes import vocab
from gpufleet.sandbox.trial import TrialOptions, clean, try_manifests
from gpufleet.sandbox.trial_watch import Ref, Watch
from gpufleet.sandbox.up import Options
from tests.e2e.sandbox_env import condition, job, model, running
from tests.render.builders import pool, quota, team

NS, SCRATCH = "research", "scratch"
FAST = TrialOptions(timeout=120, settle=10)
CRONS = {"cron-template": "jobTemplate", "cron-own": "CronJob"}  # where each CronJob carries the queue label


def member(name: str, namespace: str, group: str, queue: str | None = NS, total: str | None = None) -> dict:
    """A plain pod of 8 GPUs in Kueue pod group ``group``."""
    labels = {"app": group, vocab.KUEUE_POD_GROUP: group, **({vocab.QUEUE_LABEL: queue} if queue else {})}
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": name,
            "namespace": namespace,
            "labels": labels,
            "annotations": {vocab.KUEUE_POD_GROUP_TOTAL: total} if total else {},
        },
        "spec": job(name, namespace, pods=1)["spec"]["template"]["spec"],
    }


def group(name: str, namespace: str = NS, **kw) -> list[dict]:
    return [member(f"{name}-{i}", namespace, name, **kw) for i in range(3)]


def cron_job(name: str) -> dict:
    """A CronJob every minute of a 2-rank Job, its queue label where ``CRONS`` says."""
    label = {vocab.QUEUE_LABEL: NS}
    on_cron = CRONS[name] == "CronJob"
    return {
        "apiVersion": "batch/v1",
        "kind": "CronJob",
        "metadata": {"name": name, "namespace": NS, "labels": label if on_cron else {}},
        "spec": {
            "schedule": "* * * * *",
            "concurrencyPolicy": "Forbid",
            "jobTemplate": {"metadata": {"labels": {} if on_cron else label}, "spec": job(name, NS, pods=2)["spec"]},
        },
    }


@pytest.fixture(scope="module")
def sandbox(tmp_path_factory):
    data = model(
        pools=[pool("l4", nodes=8)],
        teams=[team(NS, {"l4": quota(64)})],
        priorityClasses=[{"name": "gang-standard", "value": 1000}],
    )
    with running(data, tmp_path_factory.mktemp("kueue-labels"), Options(controller=False)) as sb:
        sb.apply({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": SCRATCH}})
        for name in CRONS:  # first, so that their Jobs (at the next minute) come while the other cases run
            sb.create(cron_job(name))
        yield sb


def codes(findings) -> set[str]:
    return {f.code for f in findings}


def submitted(sb, docs: list[dict]) -> Watch:
    """A trial's watch over ``docs`` as created (for :func:`clean`, the clean-up ``gpufleet try`` runs)."""
    refs = [
        Ref(
            d["apiVersion"],
            d["kind"],
            d["metadata"]["name"],
            d["metadata"]["namespace"],
            sb.get(d["apiVersion"], d["kind"], d["metadata"]["name"], d["metadata"]["namespace"])["metadata"]["uid"],
        )
        for d in docs
    ]
    return Watch(sb.kube, refs)


@pytest.mark.parametrize("queue", [NS, None], ids=["queue-labelled", "unlabelled"])
def test_a_group_member_without_its_total_count_is_refused_by_kueue_and_lint_says_gang109(sandbox, queue):
    pods = group("nocount", queue=queue)
    findings = [f for f in sandbox.lint(pods) if f.code == "GANG109"]
    assert [f.object_name for f in findings] == ["nocount-0", "nocount-1", "nocount-2"]
    result = try_manifests(sandbox.kube, pods, FAST)
    assert result.outcome == "refused" and result.refused_by == "vpod.kb.io", result.as_dict()
    assert vocab.KUEUE_POD_GROUP_TOTAL in result.message and result.objects == []


def test_a_group_with_its_total_count_is_admitted_as_one_workload_and_runs_whole_and_lints_clean(sandbox):
    pods = group("counted", total="3")
    assert sandbox.lint(pods) == []
    result = try_manifests(sandbox.kube, pods, TrialOptions(timeout=120, settle=10, clean=False))
    watch = submitted(sandbox, pods)
    try:
        assert result.outcome == "ranWhole", result.as_dict()
        assert condition(sandbox.workload(NS, "counted-0"), "Admitted").get("status") == "True"
    finally:
        clean(watch)  # Kueue's finalizer keeps the deleted pods until clean ends them as a kubelet would
    assert sandbox.pods(NS, app="counted") == []


def test_outside_kueues_namespaces_a_member_without_its_total_count_is_created_and_gang109_says_nothing(sandbox):
    pods = group("elsewhere", SCRATCH)
    assert "GANG109" not in codes(sandbox.lint(pods))
    result = try_manifests(sandbox.kube, pods, FAST)  # the default scheduler binds them: Kueue holds none
    assert result.outcome == "ranWhole", result.as_dict()


def test_a_job_naming_a_rendered_workload_priority_class_is_admitted_at_its_value_and_lints_clean(sandbox):
    body = job("ranked", NS, pods=2, labels={vocab.QUEUE_LABEL: NS, vocab.KUEUE_PRIORITY_CLASS: "gang-standard"})
    assert sandbox.lint([body]) == []
    sandbox.create(body)
    sandbox.wait(
        "the workload admitted",
        lambda: condition(sandbox.workload(NS, "ranked"), "Admitted").get("status") == "True",
        timeout=120,
    )
    assert sandbox.workload(NS, "ranked")["spec"]["priority"] == 1000
    sandbox.kube.delete("batch/v1", "Job", "ranked", NS)


def test_a_job_naming_a_missing_workload_priority_class_stays_suspended_without_a_workload_and_lint_says_gang110(
    sandbox,
):
    body = job("misranked", NS, pods=2, labels={vocab.QUEUE_LABEL: NS, vocab.KUEUE_PRIORITY_CLASS: "gang-hihg"})
    [finding] = [f for f in sandbox.lint([body]) if f.code == "GANG110"]
    assert str(finding.path) == f"metadata.labels[{vocab.KUEUE_PRIORITY_CLASS}]" and "gang-standard" in finding.fix
    sandbox.create(body)
    sandbox.wait(
        "Kueue to suspend the job", lambda: sandbox.get("batch/v1", "Job", "misranked", NS)["spec"].get("suspend")
    )
    sandbox.settle(20)
    assert sandbox.get("batch/v1", "Job", "misranked", NS)["spec"]["suspend"] is True
    assert sandbox.workload(NS, "misranked") is None and sandbox.pods(NS, app="misranked") == []
    sandbox.kube.delete("batch/v1", "Job", "misranked", NS)


def created_job(sb, cron: str) -> dict | None:
    return next(
        (
            j
            for j in sb.kube.list("batch/v1", "Job", NS)
            if any(o["name"] == cron for o in j["metadata"].get("ownerReferences", []))
        ),
        None,
    )


def test_a_cronjob_labelled_in_its_job_template_makes_jobs_kueue_admits_and_lints_clean(sandbox):
    assert sandbox.lint([cron_job("cron-template")]) == []
    made = sandbox.wait("the CronJob's first Job", lambda: created_job(sandbox, "cron-template"), timeout=90)
    assert made["metadata"]["labels"][vocab.QUEUE_LABEL] == NS
    name = made["metadata"]["name"]
    sandbox.wait(
        "its workload admitted",
        lambda: condition(sandbox.workload(NS, name), "Admitted").get("status") == "True",
        timeout=120,
    )
    assert sandbox.workload(NS, name)["spec"]["queueName"] == NS


def test_a_cronjob_labelled_on_itself_makes_jobs_kueue_never_admits_and_lint_says_gang103_with_the_move(sandbox):
    [finding] = [f for f in sandbox.lint([cron_job("cron-own")]) if f.code == "GANG103"]
    assert str(finding.path) == f"spec.jobTemplate.metadata.labels[{vocab.QUEUE_LABEL}]"
    assert finding.fix.startswith("move the label to spec.jobTemplate.metadata.labels")
    made = sandbox.wait("the CronJob's first Job", lambda: created_job(sandbox, "cron-own"), timeout=90)
    assert vocab.QUEUE_LABEL not in made["metadata"].get("labels", {})
    name = made["metadata"]["name"]
    sandbox.wait("its workload", lambda: sandbox.workload(NS, name), timeout=60)
    sandbox.settle(10)
    wl = sandbox.workload(NS, name)
    assert not wl["spec"].get("queueName") and condition(wl, "Admitted").get("status") != "True"
    assert "LocalQueue" in condition(wl, "QuotaReserved").get("message", ""), wl.get("status")
    assert (
        sandbox.get("batch/v1", "Job", name, NS)["spec"]["suspend"] is True and sandbox.bound(NS, app="cron-own") == []
    )
