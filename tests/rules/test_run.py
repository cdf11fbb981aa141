"""The per-run index: views and cross-object indexes built once per run, never shared between runs."""

from __future__ import annotations

from dataclasses import replace

from gpufleet.rules import demands, engine
from gpufleet.rules.api import CheckContext
from gpufleet.rules.run import RunIndex
from tests.rules import builders as b
from tests.rules.fleets import fleet


def test_group_members_are_indexed_once_per_run_by_namespace_and_name():
    run = RunIndex(
        (
            b.deployment("a", replicas=3, group="pg"),
            b.pod("p", group="pg"),
            b.pod("q", group="pg", namespace="x"),
            b.pod_group("pg"),
        )
    )
    assert run.member_pods("research", "pg") == 4
    assert run.member_pods("x", "pg") == 1
    assert run.member_pods("research", "other") == 0
    assert run.members("research", "pg") is run.members("research", "pg")
    assert run.views is run.views and run.views[3].kind == "PodGroup"


def test_a_new_run_gets_a_new_index():
    first = RunIndex((b.pod("p", group="pg"),))
    second = RunIndex((b.pod("p", group="pg"), b.pod("q", group="pg")))
    assert first.member_pods("research", "pg") == 1
    assert second.member_pods("research", "pg") == 2


def test_an_object_of_the_run_has_one_view_and_an_equal_copy_gets_its_own():
    job = b.volcano_job()
    run = RunIndex((job,))
    assert run.holds(job) and run.view(job) is run.view(job) is run.views[0]
    copy = b.volcano_job()
    assert not run.holds(copy) and run.view(copy) is not run.view(job)


def test_a_derived_value_is_built_once_per_run_by_its_function():
    calls = []

    def count(run):
        calls.append(run)
        return len(run.objects)

    run = RunIndex((b.pod("p"), b.pod("q")))
    assert run.derived(count) == run.derived(count) == 2 and len(calls) == 1
    assert run.scoped().derived(count) == 2 and len(calls) == 1


def test_a_scoped_run_shares_the_run_but_keeps_its_own_subjects():
    member, outsider = b.pod("p", group="pg"), b.volcano_job()
    run = RunIndex((member,))
    scoped = run.scoped()
    assert run.views[0] is scoped.view(member)
    assert scoped.view(outsider) is not run.view(outsider)
    assert scoped.member_pods("research", "pg") == run.member_pods("research", "pg") == 1


def test_a_context_rebuilds_its_run_when_the_objects_or_the_fleet_change():
    ctx = CheckContext(objects=(b.pod("p"),))
    assert ctx.run.objects is ctx.objects
    assert replace(ctx, objects=()).run is not ctx.run
    assert replace(ctx, fleet=fleet()).run.fleet is not None
    assert replace(ctx, crds=None).run is ctx.run


def test_checking_an_object_outside_the_run_leaves_nothing_in_a_long_lived_context():
    ctx = CheckContext(fleet=fleet())
    job = b.volcano_job(tasks=[b.task(replicas=2, gpus=8)])
    engine.check_object(job, ctx)
    engine.check_object(job, ctx)
    assert ctx.run._subjects == {} and ctx.run._shared.subjects == {} and ctx.run._last is None


def test_the_gpu_demands_of_an_object_are_built_once_per_run():
    job = b.volcano_job(tasks=[b.task(replicas=2, gpus=8)])
    ctx = CheckContext(fleet=fleet(), objects=(job,))
    found = ctx.run.view(job)
    first = demands.demands(ctx, found)
    assert demands.demands(ctx, found) is first is ctx.run.subject(job).demands
    (demand,) = first.values()
    assert demand.requests["nvidia.com/gpu"] == 8 and demand.pools
    assert demands.demands(ctx, ctx.run.view(job)) is first
    assert demands.demands(replace(ctx, objects=(job,)), found) is not first  # another run: its own records
