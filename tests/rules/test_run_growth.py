"""A run's cost grows linearly with its objects: operation counts at two sizes, never a timer.

Issue 22: GANG106 scanned every object of the run for each TrainJob whose runtime is not
in the run, so a lint run grew with the square of its objects. These tests count, at n and
4n objects of a varied corpus with unique names (TrainJobs naming runtimes that are and are
not in the run, Volcano PodGroups named by annotations, queues, PriorityClasses,
ClusterQueues, coscheduling groups, many namespaces), (1) how many objects the rules read
from the run's object tuple, and (2) how many Python and builtin calls a whole lint run
makes. Linear growth is a 4x ratio; a rule scanning the run per object gives about 16x.
"""

from __future__ import annotations

import cProfile
import pstats
from typing import Any, Iterator

import pytest
import yaml

from gpufleet.kubetypes import vocab
from gpufleet.lint import lint_sources
from gpufleet.lint.sources import Source
from gpufleet.rules import engine
from gpufleet.rules.api import CheckContext
from tests.rules import builders as b

SMALL, LARGE = 40, 160  # units of 13 objects: 520 and 2,080 objects
LINEAR = LARGE / SMALL
SLACK = 1.1  # what one-off work (caches, sorting's log factor) may add to a linear ratio


class CountingObjects(tuple):
    """The run's objects, counting every object read by iterating over them."""

    visits: int

    def __new__(cls, objects: Any) -> CountingObjects:
        made = super().__new__(cls, objects)
        made.visits = 0
        return made

    def __iter__(self) -> Iterator[Any]:
        for obj in tuple.__iter__(self):
            self.visits += 1
            yield obj


def unit(i: int) -> list[dict[str, Any]]:
    """Thirteen uniquely named objects in namespace ``ns-<i // 4>`` that reach every cross-object look-up."""
    ns = f"ns-{i // 4}"
    volcano_job = b.batch_job(
        f"vjob-{i}",
        parallelism=4,
        namespace=ns,
        labels={vocab.QUEUE_LABEL: f"lq-{i}"},
        scheduler_name="volcano",
        gpus=8,
    )
    volcano_job["spec"]["template"]["metadata"] = {"annotations": {vocab.VOLCANO_GROUP: f"vpg-{i}"}}
    return [
        {
            **b.train_job(f"tj-missing-{i}", namespace=ns),
            "spec": {
                "runtimeRef": {"name": f"absent-{i}"},
                "trainer": {"numNodes": 4, "resourcesPerNode": {"limits": {"nvidia.com/gpu": 8}}},
            },
        },
        {
            **b.train_job(f"tj-ns-missing-{i}", namespace=ns),
            "spec": {"runtimeRef": {"name": f"absent-ns-{i}", "kind": "TrainingRuntime"}, "trainer": {"numNodes": 2}},
        },
        {
            **b.train_job(f"tj-{i}", namespace=ns),
            "spec": {"runtimeRef": {"name": f"rt-{i}", "kind": "TrainingRuntime"}},
        },
        b.training_runtime(f"rt-{i}", kind="TrainingRuntime", namespace=ns),
        volcano_job,
        b.pod_group(f"vpg-{i}", min_member=2, namespace=ns),
        b.pytorch_job(f"pt-{i}", workers=3, namespace=ns, labels={vocab.QUEUE_LABEL: f"undeclared-{i}"}),
        {
            "apiVersion": "kueue.x-k8s.io/v1beta2",
            "kind": "LocalQueue",
            "metadata": b.meta(f"lq-{i}", ns),
            "spec": {"clusterQueue": f"cq-{i}"},
        },
        {
            "apiVersion": "scheduling.volcano.sh/v1beta1",
            "kind": "Queue",
            "metadata": b.meta(f"vq-{i}", None),
            "spec": {},
        },
        {
            "apiVersion": "kueue.x-k8s.io/v1beta2",
            "kind": "ClusterQueue",
            "metadata": b.meta(f"cq-{i}", None),
            "spec": {"resourceGroups": [{"coveredResources": ["nvidia.com/gpu"], "flavors": []}]},
        },
        {
            "apiVersion": "scheduling.k8s.io/v1",
            "kind": "PriorityClass",
            "metadata": b.meta(f"pc-{i}", None),
            "value": i,
        },
        b.deployment(f"dep-{i}", replicas=3, group=f"cpg-{i}", namespace=ns),
        b.pod_group(f"cpg-{i}", min_member=3, flavor="coscheduling", namespace=ns),
    ]


def corpus(units: int) -> list[dict[str, Any]]:
    return [obj for i in range(units) for obj in unit(i)]


def run_visits(units: int) -> int:
    """Objects read from the run while every rule (stack-level hooks included) checks every object."""
    objects = CountingObjects(corpus(units))
    engine.check_objects(objects, CheckContext(objects=objects))
    return objects.visits


def calls(fn: Any, *args: Any) -> int:
    """Every Python and builtin call ``fn(*args)`` makes (cProfile's count: deterministic for one input)."""
    profile = cProfile.Profile()
    profile.runcall(fn, *args)
    return pstats.Stats(profile).total_calls  # type: ignore[attr-defined,no-any-return]


def sources(units: int) -> list[Source]:
    return [Source(f"unit-{i}.yaml", yaml.safe_dump_all(unit(i), sort_keys=False)) for i in range(units)]


def test_the_corpus_reaches_the_cross_object_rules():
    codes = {f.code for f in engine.check_objects(corpus(2))}
    assert {"GANG104", "GANG106", "GANG107", "GANG507"} <= codes


def test_the_rules_read_the_run_a_constant_number_of_times_per_object():
    run_visits(SMALL)  # warm the caches that live across runs (rule selection by kind)
    small, large = run_visits(SMALL), run_visits(LARGE)
    assert small >= SMALL * 13  # the count is real: the run was walked at least once
    assert large / small <= LINEAR * SLACK, (small, large)


@pytest.mark.parametrize("what", ["engine", "lint"])
def test_a_run_makes_a_linear_number_of_calls(what: str):
    def work(units: int) -> Any:
        if what == "engine":
            objects = corpus(units)
            return lambda: engine.check_objects(objects, CheckContext(objects=tuple(objects)))
        texts = sources(units)
        return lambda: lint_sources(texts)

    calls(work(SMALL))
    small, large = calls(work(SMALL)), calls(work(LARGE))
    assert large / small <= LINEAR * SLACK, (small, large)
