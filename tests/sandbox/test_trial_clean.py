"""A trial's clean-up: which deleted pods it ends as a kubelet would, so that Kueue's pod finalizer lets them go."""

from __future__ import annotations

import pytest

from gpufleet.kubetypes import vocab
from gpufleet.sandbox.trial import kept_by_kueue


def pod(deleted: bool, finalizers: list[str], phase: str) -> dict:
    meta = {"name": "p", "finalizers": finalizers, **({"deletionTimestamp": "2026-12-02T09:00:00Z"} if deleted else {})}
    return {"metadata": meta, "status": {"phase": phase}}


@pytest.mark.parametrize(
    "deleted, finalizers, phase, kept",
    [
        (True, [vocab.KUEUE_POD_FINALIZER], "Running", True),
        (False, [vocab.KUEUE_POD_FINALIZER], "Running", False),  # not deleted: the trial's pods run on
        (True, [], "Running", False),  # KWOK's pod-delete stage removes it
        (True, ["example.com/other"], "Running", False),  # not Kueue's to release
        (True, [vocab.KUEUE_POD_FINALIZER], "Succeeded", False),  # ended already: Kueue drops the finalizer
    ],
)
def test_only_a_deleted_running_pod_that_kueues_finalizer_keeps_is_ended(deleted, finalizers, phase, kept):
    assert kept_by_kueue(pod(deleted, finalizers, phase)) is kept
