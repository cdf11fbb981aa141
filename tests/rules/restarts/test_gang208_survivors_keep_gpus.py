"""GANG208: a gang whose survivors keep running after it fails for good is told the setting that stops them."""

from __future__ import annotations

import pytest

from tests.rules import builders as b
from tests.rules.helpers import fixed, paths

CODE = "GANG208"
CLEAN = "spec.runPolicy.cleanPodPolicy"


def pytorch(clean: str | None, workers: int = 3) -> dict:
    job = b.pytorch_job(workers=workers)
    if clean is not None:
        job["spec"].setdefault("runPolicy", {})["cleanPodPolicy"] = clean
    return job


@pytest.mark.parametrize(
    "clean, expected",
    [
        (None, [CLEAN]),  # training-operator defaults cleanPodPolicy to None: survivors keep running
        ("None", [CLEAN]),
        ("Running", []),  # the running pods are deleted when the job ends
        ("All", []),
    ],
)
def test_a_kubeflow_gang_must_stop_its_survivors(clean, expected):
    assert paths(CODE, pytorch(clean)) == expected


def test_the_fix_writes_the_setting_the_contract_names():
    out = fixed(CODE, pytorch(None))
    assert out["spec"]["runPolicy"]["cleanPodPolicy"] == "Running"
    assert paths(CODE, out) == []


def test_a_single_pod_is_no_gang_and_nothing_is_said():
    assert paths(CODE, pytorch(None, workers=0)) == []


def test_a_batch_job_whose_controller_stops_its_pods_is_left_alone():
    assert paths(CODE, b.batch_job(gpus=1)) == []
