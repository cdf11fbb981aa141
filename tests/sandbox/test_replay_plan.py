"""The replay's plan, without a sandbox: capacity, quotas, node pools and each pod's KWOK run and start times."""

from __future__ import annotations

from gpufleet.kubetypes.vocab import KWOK_COMPLETE_AFTER, KWOK_READY_AFTER
from gpufleet.sandbox import replay
from gpufleet.whatif.trace import parse_trace
from tests.whatif.builders import dev, line


def test_capacity_and_nominal_quota_come_from_the_model():
    fleet = dev()
    assert replay._capacity(fleet) == {"l4": 32, "t4": 8}
    assert replay._nominal(fleet)[("alpha", "l4")] == 16.0


def test_every_fake_node_is_mapped_to_its_pool():
    pools = replay._node_pools(dev())
    assert pools["l4-0"] == "l4" and pools["t4-1"] == "t4" and len(pools) == 6


def test_each_pod_completes_after_its_run_time_divided_by_the_time_scale():
    job = parse_trace(line(runSeconds=600), dev()).jobs[0]
    assert replay.pod_annotations(job, 60) == {KWOK_COMPLETE_AFTER: "10.000s"}


def test_a_job_with_a_start_time_has_pods_that_turn_ready_after_it_divided_by_the_time_scale():
    job = parse_trace(line(runSeconds=600, startSeconds=900), dev()).jobs[0]
    assert replay.pod_annotations(job, 60) == {KWOK_COMPLETE_AFTER: "10.000s", KWOK_READY_AFTER: "15.000s"}


def test_a_new_log_lists_every_trace_job_with_its_team_and_the_scaled_durations():
    fleet = dev()
    trace = parse_trace("\n".join([line(name="a"), line(name="b", namespace="beta")]), fleet)
    log = replay._new_log(fleet, "m", trace, replay.ReplayOptions(time_scale=60, horizon=900))
    assert [(j.name, j.team) for j in log.jobs] == [("a", "alpha"), ("b", "beta")]
    assert log.scaled[0] == ("admission.waitForPodsReady.timeout", 600.0, 10.0)
