"""GANG405: a Kueue TAS pod set required on one host must fit one node of its Kueue pools."""

from __future__ import annotations

import pytest

from gpufleet.rules import engine
from tests.rules import builders as b
from tests.rules import fleets

AT = "spec.template.metadata.annotations[kueue.x-k8s.io/podset-required-topology]"


def kueue_pool(name: str, nodes: int, gpus: int) -> dict:
    return dict(fleets.pool(name, nodes, gpus), system="kueue")


CTX = fleets.ctx(kueue_pool("h100", 16, 8), fleets.pool("vc", 4, 16), teams={"research": ["h100"]})


def job(
    pods: int, gpus: int, level: str = "kubernetes.io/hostname", how: str = "required", namespace: str = "research"
) -> dict:
    obj = b.batch_job(parallelism=pods, gpus=gpus, namespace=namespace)
    obj["spec"]["template"].setdefault("metadata", {})["annotations"] = {f"kueue.x-k8s.io/podset-{how}-topology": level}
    return obj


def gang405(obj: dict) -> list[str]:
    return [f.path for f in engine.check_object(obj, CTX, select=["GANG405"])]


@pytest.mark.parametrize("pods, gpus, expected", [(1, 8, []), (2, 4, []), (4, 8, [AT]), (3, 3, [AT]), (4, 0, [])])
def test_a_pod_set_required_on_one_host_must_fit_the_largest_node(pods, gpus, expected):
    assert gang405(job(pods, gpus)) == expected


@pytest.mark.parametrize(
    "level, how", [("cloud.provider.com/rack", "required"), ("kubernetes.io/hostname", "preferred")]
)
def test_a_wider_level_or_a_preference_is_not_judged(level, how):
    assert gang405(job(4, 8, level, how)) == []


def test_the_message_counts_the_gpus_and_names_the_node_size():
    (finding,) = engine.check_object(job(4, 8), CTX, select=["GANG405"])
    assert "32 nvidia.com/gpu in one kubernetes.io/hostname domain" in finding.message and "has 8" in finding.message


def test_a_volcano_job_is_not_kueue_admitted():
    vc = b.volcano_job(tasks=[b.task(replicas=4, gpus=8)], namespace="research")
    vc["spec"]["tasks"][0]["template"]["metadata"] = {
        "annotations": {"kueue.x-k8s.io/podset-required-topology": "kubernetes.io/hostname"}
    }
    assert gang405(vc) == []
