"""The LeaderWorkerSet reader against LWS v0.9.0 (one group), one upstream function per row."""

from __future__ import annotations

from typing import Any

import pytest

from gpufleet.kubetypes import vocab
from tests.workloads.contract.probes import PROBES, contract_of, lws

VOLCANO = {"leaderworkerset": {"gangScheduler": "volcano"}}
EXCLUSIVE = {"leaderworkerset.sigs.k8s.io/exclusive-topology": "topology.kubernetes.io/zone"}

CASES = [
    (
        "volcano_provider.go CreatePodGroupIfNotExists: the queue is read from the annotation only",
        lws(labels={vocab.VOLCANO_QUEUE: "team-a"}),
        VOLCANO,
        "queue",
        [None],
    ),
    # (upstream behaviour, object, operator settings, probe, expected)
    (
        "leaderworkerset_types.go: one leader and size − 1 workers per group",
        lws(size=4),
        {},
        "counts",
        {"leader": 1, "worker": 3},
    ),
    (
        "leaderworkerset_types.go: the leader from workerTemplate without leaderTemplate",
        lws(size=4, leader=False),
        {},
        "gpus",
        {"leader": 8, "worker": 8},
    ),
    ("size 1: a leader alone", lws(size=1), {}, "counts", {"leader": 1}),
    (
        "pod_controller.go Reconcile: LeaderCreated (default), workers once the leader exists",
        lws(),
        {},
        "after",
        {"worker": [(("leader",), "Created")]},
    ),
    (
        "pod_controller.go Reconcile: LeaderReady, workers once the leader is Ready",
        lws(startup="LeaderReady"),
        {},
        "after",
        {"worker": [(("leader",), "Ready")]},
    ),
    (
        "pod_controller.go Reconcile: exclusive topology, workers once the leader is scheduled",
        lws(annotations=EXCLUSIVE),
        {},
        "after",
        {"worker": [(("leader",), "Scheduled")]},
    ),
    ("without gangSchedulingManagement: no PodGroup", lws(), {}, "groups", []),
    (
        "volcano_provider.go CreatePodGroupIfNotExists: minMember = size, one PodGroup per group",
        lws(size=4),
        VOLCANO,
        "groups",
        [("volcano", 4, "perGroup")],
    ),
    (
        "volcano_provider.go CreatePodGroupIfNotExists: minMember 1 under LeaderReady",
        lws(size=4, startup="LeaderReady"),
        VOLCANO,
        "admission",
        ("partial", "volcano", 1),
    ),
    (
        "volcano_provider.go: the queue from the LWS's scheduling.volcano.sh/queue-name",
        lws(annotations={vocab.VOLCANO_QUEUE: "team-a"}),
        VOLCANO,
        "queue",
        ["team-a"],
    ),
    (
        "handleRestartPolicy: RecreateGroupOnPodRestart (default) recreates the group",
        lws(),
        {},
        "scope",
        {"leader": "group", "worker": "group"},
    ),
    (
        "handleRestartPolicy: None leaves the pod to the kubelet and the StatefulSet",
        lws(restart="None"),
        {},
        "steps",
        {
            "leader": [("kubelet", "inPlace", None), ("podController", "pod", None)],
            "worker": [("kubelet", "inPlace", None), ("podController", "pod", None)],
        },
    ),
    (
        "kueue leaderworkerset_reconciler.go: one Workload per group",
        lws(size=4, labels={vocab.QUEUE_LABEL: "q"}),
        {},
        "admission",
        ("whole", "kueue", 4),
    ),
]


@pytest.mark.parametrize(("behaviour", "obj", "operators", "probe", "expected"), CASES, ids=[c[0] for c in CASES])
def test_the_lws_reader_follows_upstream(behaviour: str, obj: dict, operators: dict, probe: str, expected: Any) -> None:
    assert PROBES[probe](contract_of(obj, operators)) == expected
