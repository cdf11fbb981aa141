"""What a trial expects before it submits anything: the gang's ranks and the default timeout."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpufleet.model import load_model
from gpufleet.sandbox.trial import expected_ranks
from gpufleet.sandbox.trial_run import TIMEOUT_BOUNDS, default_timeout
from tests.e2e.sandbox_env import job, vcjob

ROOT = Path(__file__).resolve().parents[2]
DEV = load_model(ROOT / "stacks" / "dev.fleet.yaml")
POD_GROUP = {
    "apiVersion": "scheduling.x-k8s.io/v1alpha1",
    "kind": "PodGroup",
    "metadata": {"name": "g"},
    "spec": {"minMember": 2},
}
POD = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": {"containers": [{"name": "c"}]}}
JOBSET = {
    "apiVersion": "jobset.x-k8s.io/v1alpha2",
    "kind": "JobSet",
    "metadata": {"name": "js"},
    "spec": {
        "replicatedJobs": [
            {
                "name": "w",
                "replicas": 2,
                "template": {"spec": {"parallelism": 3, "completions": 3, "template": {"spec": POD["spec"]}}},
            }
        ]
    },
}


@pytest.mark.parametrize(
    "docs, ranks",
    [
        ([job("t", "alpha", pods=4)], 4),
        ([vcjob("v", "alpha-vc", pods=2)], 2),
        ([JOBSET], 6),
        ([POD_GROUP, POD, POD], 2),
        ([{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}}], 0),
    ],
    ids=["indexed job", "volcano job", "jobset", "podgroup and its pods", "no workload"],
)
def test_the_gangs_ranks_are_the_pods_its_workloads_stamp_out(docs, ranks):
    assert expected_ranks(docs) == ranks


@pytest.mark.parametrize(
    "docs, namespace, seconds",
    [
        ([vcjob("v", "alpha-vc", pods=2)], "default", TIMEOUT_BOUNDS[1]),  # t4: 5m + 5m rendezvous, capped
        ([job("t", "scratch", pods=2)], "default", TIMEOUT_BOUNDS[1]),  # in no team: the largest budget
    ],
)
def test_the_default_timeout_is_the_pools_startup_budget_within_bounds(docs, namespace, seconds):
    assert default_timeout(DEV, docs, namespace) == seconds


def test_a_pool_with_a_short_startup_budget_gets_it_and_a_tiny_one_the_floor(tmp_path):
    text = (ROOT / "stacks" / "dev.fleet.yaml").read_text()
    fast = tmp_path / "fast.fleet.yaml"
    fast.write_text(text.replace("coldStartBudget: 5m", "coldStartBudget: 5m\n    startupBudget: 90s"))
    tiny = tmp_path / "tiny.fleet.yaml"
    tiny.write_text(text.replace("coldStartBudget: 5m", "coldStartBudget: 5m\n    startupBudget: 5s"))
    gang = [vcjob("v", "alpha-vc", pods=2)]
    assert default_timeout(load_model(fast), gang, "default") == 90
    assert default_timeout(load_model(tiny), gang, "default") == TIMEOUT_BOUNDS[0]


@pytest.mark.parametrize(
    "nodes, notes",
    [
        ({"l4": 4, "t4": 2}, 0),  # every node of the model: nothing to say
        ({"l4": 2, "t4": 2}, 1),  # l4 capped at 2 of 4: said
        ({"t4": 1}, 1),  # the job's pool capped; a capped pool it does not land on is not named
    ],
)
def test_a_trial_notes_each_pool_of_its_jobs_that_the_sandbox_holds_only_in_part(nodes, notes):
    from gpufleet.sandbox.trial_run import capped_pools

    said = capped_pools(DEV, [job("j", "alpha", 2)], "default", nodes)
    assert len(said) == notes
    if notes:
        assert said[0].startswith("pool l4 has") and "of its 4 nodes" in said[0] and "GPUs" in said[0]
