"""GANG108: a Volcano-routed workload in a namespace where Kueue holds unlabelled work hangs (issue 19, item 1).

Judged with the dev stack's own rendered context: ``alpha`` is Kueue's (pod integration,
``manageJobsWithoutQueueName: true``, selected), ``alpha-vc`` is Volcano's.
"""

from __future__ import annotations

import json

import pytest

from gpufleet.fleetctx.context import FleetContext
from gpufleet.model.loader import load_model
from gpufleet.render.context import render_context
from gpufleet.rules import engine
from gpufleet.rules.api import CheckContext
from tests.rules import builders as b

DEV = CheckContext(
    fleet=FleetContext.from_dict(json.loads(json.dumps(render_context(load_model("stacks/dev.fleet.yaml")))))
)


def findings(obj, code):
    return [f for f in engine.check_objects([obj], DEV, select=[code])]


def volcano_job_without_queue(namespace):
    return b.volcano_job(namespace=namespace, min_available=4, tasks=[b.task("worker", replicas=4, gpus=1)])


def job_sent_to_volcano(namespace):
    return b.batch_job(namespace=namespace, gpus=1, scheduler_name="volcano", annotations=None, labels=None)


@pytest.mark.parametrize("make", [volcano_job_without_queue, job_sent_to_volcano], ids=["vcjob", "batch-job"])
def test_a_volcano_routed_workload_in_the_teams_kueue_namespace_is_an_error_naming_its_volcano_namespace(make):
    found = findings(make("alpha"), "GANG108")
    assert len(found) == 1 and found[0].blocking
    assert "alpha-vc" in found[0].fix and "Kueue" in found[0].message


@pytest.mark.parametrize("make", [volcano_job_without_queue, job_sent_to_volcano], ids=["vcjob", "batch-job"])
def test_the_same_workload_in_the_teams_volcano_namespace_is_not_reported(make):
    assert findings(make("alpha-vc"), "GANG108") == []


def test_a_job_kueue_admits_by_its_queue_label_is_not_reported():
    job = b.batch_job(namespace="alpha", gpus=1, labels={"kueue.x-k8s.io/queue-name": "alpha"})
    assert findings(job, "GANG108") == []


def test_the_teams_own_volcano_queue_from_its_kueue_namespace_is_not_called_another_teams():
    job = b.volcano_job(namespace="alpha", queue="alpha", min_available=4, tasks=[b.task("worker", replicas=4, gpus=1)])
    messages = [f.message for f in engine.check_objects([job], DEV, select=["GANG104", "GANG108"])]
    assert not any("another team" in m for m in messages), messages
    assert any("alpha-vc" in f.fix for f in engine.check_objects([job], DEV, select=["GANG108"]))


def test_a_kind_kueue_does_not_integrate_sent_to_volcano_has_its_pods_gated():
    from tests.rules.routing.test_gang106_lws_and_ray import lws

    [found] = findings(lws(namespace="alpha", scheduler_name="volcano"), "GANG108")
    assert "gates every pod" in found.message and "alpha-vc" in found.fix
