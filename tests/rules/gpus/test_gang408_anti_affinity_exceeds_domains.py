"""GANG408: a gang whose ranks repel each other needs at least as many domains as such ranks."""

from __future__ import annotations

import pytest

from gpufleet.rules import engine
from tests.rules import builders as b
from tests.rules.helpers import WITH_FLEET, paths

CODE = "GANG408"
TERM = "spec.template.spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey"


def repelling(ranks: int, selector: dict, key: str = "kubernetes.io/hostname", labels: dict | None = None) -> dict:
    """A Kueue Job in vision (pool l4: 16 nodes, gpufleet.dev/pool=l4) of ``ranks`` 1-GPU ranks repelling ``selector``."""
    job = b.batch_job(
        "spread", parallelism=ranks, namespace="vision", labels={"kueue.x-k8s.io/queue-name": "vision"}, gpus=1
    )
    job["spec"]["template"]["metadata"] = {"labels": labels if labels is not None else {"app": "trainer"}}
    job["spec"]["template"]["spec"]["affinity"] = {
        "podAntiAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": [{"labelSelector": selector, "topologyKey": key}]
        }
    }
    return job


@pytest.mark.parametrize(
    "ranks, selector, key, expected",
    [
        (17, {"matchLabels": {"app": "trainer"}}, "kubernetes.io/hostname", [TERM]),  # 17 ranks, 16 nodes
        (16, {"matchLabels": {"app": "trainer"}}, "kubernetes.io/hostname", []),  # one per node fits
        (2, {"matchLabels": {"app": "trainer"}}, "gpufleet.dev/pool", [TERM]),  # one pool value: one domain
        (17, {"matchLabels": {"app": "other"}}, "kubernetes.io/hostname", []),  # repels another workload's pods
        (17, {"matchLabels": {"batch.kubernetes.io/job-name": "spread"}}, "kubernetes.io/hostname", [TERM]),
        (
            17,
            {"matchExpressions": [{"key": "app", "operator": "In", "values": ["trainer"]}]},
            "kubernetes.io/hostname",
            [TERM],
        ),
        (17, {"matchLabels": {"app": "trainer"}}, "topology.kubernetes.io/zone", []),  # nodes lack the key: no limit
    ],
)
def test_ranks_repelling_each_other_must_not_outnumber_the_domains(ranks, selector, key, expected):
    assert paths(CODE, repelling(ranks, selector, key), WITH_FLEET) == expected


def test_without_a_fleet_the_domains_are_unknown_and_nothing_is_said():
    assert paths(CODE, repelling(17, {"matchLabels": {"app": "trainer"}})) == []


def test_a_volcano_jobs_tasks_are_counted_together_through_the_label_its_controller_stamps():
    worker = b.task("worker", replicas=3, gpus=1)
    worker["template"]["spec"]["affinity"] = {
        "podAntiAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": [
                {
                    "labelSelector": {"matchLabels": {"volcano.sh/job-name": "vc"}},
                    "topologyKey": "kubernetes.io/hostname",
                }
            ]
        }
    }
    job = b.volcano_job("vc", tasks=[worker, b.task("ps", replicas=2, gpus=1)], namespace="research")
    # pool h100 has 4 nodes; 5 pods of the job repel each other
    assert paths(CODE, job, WITH_FLEET) == [
        "spec.tasks[0].template.spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].topologyKey"
    ]


def test_the_message_names_the_ranks_the_domains_and_the_fix():
    [finding] = engine.check_object(repelling(17, {"matchLabels": {"app": "trainer"}}), WITH_FLEET, select=[CODE])
    assert "17 pods" in finding.message and "only 16" in finding.message and "preferred" in finding.fix
