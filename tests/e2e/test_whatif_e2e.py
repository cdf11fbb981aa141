"""``gpufleet whatif`` on the real engines: known answers, the time scale's error, and a trace that round-trips.

One small trace (examples/whatif/borrow.jsonl) on the dev stack (a Kueue pool l4 of 4 x 8 GPUs, a Volcano pool t4 of
2 x 4 GPUs) under two models that differ in one number: alpha's ``borrowingLimit`` on l4
(8 in stacks/dev.fleet.yaml, 0 in examples/whatif/dev-no-borrowing.fleet.yaml). By hand: under the base model alpha's
24-GPU job borrows 8 idle GPUs of beta's and starts at once; under the new one it can
never be admitted (16 nominal, nothing to borrow); beta's 8-GPU job runs under both; a
12-GPU Volcano gang on the 8-GPU t4 pool waits whole under both, never partly bound.
Three more traces on the dev stack: a lender that returns (examples/whatif/reclaim.jsonl),
pods slower to start than Kueue's pods-ready timeout (examples/whatif/storm.jsonl: a requeue storm) and an elastic
Volcano gang of the rigid gang's shape whose ``minPods`` the pool holds (examples/whatif/elastic.jsonl).
Times are trace seconds at k = 60, so one wall second of engine latency is 60 trace
seconds: waits are checked within two Volcano schedule periods (2 x 60 s).
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import jsonschema
import pytest

from gpufleet.model import load_model
from gpufleet.sandbox.kube import Kube
from gpufleet.sandbox.replay import ReplayOptions, replay
from gpufleet.sandbox.state import down, load
from gpufleet.whatif import metrics, report
from gpufleet.whatif.fromcluster import import_objects
from gpufleet.whatif.trace import parse_trace
from tests.e2e.sandbox_env import require_go

ROOT = Path(__file__).resolve().parents[2]
DEV = ROOT / "stacks" / "dev.fleet.yaml"
NO_BORROWING = ROOT / "examples" / "whatif" / "dev-no-borrowing.fleet.yaml"  # docs/whatif.md's worked example
TRACE = (ROOT / "examples" / "whatif" / "borrow.jsonl").read_text()
RECLAIM = (ROOT / "examples" / "whatif" / "reclaim.jsonl").read_text()
STORM = (ROOT / "examples" / "whatif" / "storm.jsonl").read_text()
ELASTIC = (ROOT / "examples" / "whatif" / "elastic.jsonl").read_text()
STORM_HORIZON = 3600.0  # the cold job's four admissions (3 requeues after 600 s each, 60 + 120 + 240 s of backoff)
PERIODS = 2 * 60.0  # two Volcano schedule periods (1 s each) in trace seconds at k = 60
HORIZON = 900.0
# The reclaim replay runs at k = 30: the lender starts only after Kueue preempted the borrower, the Job controller
# deleted its pods and the scheduler placed the lender's, a chain of engine steps that took 1.5-4.8 wall seconds
# on a loaded machine (90-286 trace seconds at k = 60, past the bound below); at k = 30 the same chain is half as
# many trace seconds, and the bound still tells a reclaim (minutes) from none (the borrower's hour).
RECLAIM_K = 30
ALONE = True  # the bounds above are engine latency times k: with two lanes, no other e2e module runs beside this one


def _replay(model: Path, tmp: Path, k: float, keep: bool = False, trace: str = TRACE, horizon: float = HORIZON):
    fleet = load_model(model)
    return replay(
        fleet, str(model), parse_trace(trace, fleet), tmp, ReplayOptions(time_scale=k, horizon=horizon, keep=keep)
    )


@pytest.fixture(scope="module")
def replays(tmp_path_factory):
    """The base model at k = 60 (its sandbox kept for the export) and at k = 15, the new model at k = 60, the
    reclaim trace at k = 30, the requeue-storm and elastic traces at k = 60."""
    require_go()
    tmp = tmp_path_factory.mktemp("whatif")
    base = _replay(DEV, tmp / "base", 60, keep=True)
    export = _export(tmp / "base")
    storm = _replay(DEV, tmp / "storm", 60, keep=True, trace=STORM, horizon=STORM_HORIZON)
    return {
        "base": base,
        "export": export,
        "new": _replay(NO_BORROWING, tmp / "new", 60),
        "slow": _replay(DEV, tmp / "slow", 15),
        "reclaim": _replay(DEV, tmp / "reclaim", RECLAIM_K, trace=RECLAIM),
        "storm": storm,
        "storm-export": _export(tmp / "storm"),
        "elastic": _replay(DEV, tmp / "elastic", 60, trace=ELASTIC),
    }


def _export(directory: Path) -> list[dict]:
    """What ``kubectl get workloads.kueue.x-k8s.io,jobs.batch.volcano.sh -A -o json`` prints on a kept replay's
    sandbox, which is then stopped."""
    state = load(directory)
    try:
        kube = Kube(Path(state.kubeconfig))
        return [
            {"kind": "List", "items": kube.list("kueue.x-k8s.io/v1beta2", "Workload")},
            {"kind": "List", "items": kube.list("batch.volcano.sh/v1alpha1", "Job")},
        ]
    finally:
        down(state)


def _job(log, name):
    return next(j for j in log.jobs if j.name == name)


def test_a_borrower_within_its_borrowing_limit_starts_at_once_on_an_idle_lenders_gpus(replays):
    log = replays["base"]
    big = _job(log, "big")
    assert metrics.start(big, log.horizon) - big.submitted <= PERIODS
    assert big.finished is not None
    assert metrics.team_metrics(log, "alpha").borrowed_gpu_hours > 0


def test_without_borrowing_the_same_job_is_never_admitted_and_holds_nothing(replays):
    log = replays["new"]
    big = _job(log, "big")
    assert metrics.start(big, log.horizon) is None and not big.spans
    alpha = metrics.team_metrics(log, "alpha")
    assert (alpha.never_admitted, alpha.gpu_hours, alpha.borrowed_gpu_hours) == (2, 0, 0)


@pytest.mark.parametrize("side", ["base", "new"])
def test_a_volcano_gang_larger_than_its_pool_waits_whole_never_partly_bound(replays, side):
    log = replays[side]
    gang = _job(log, "vc-too-big")
    assert metrics.start(gang, log.horizon) is None
    assert metrics.partial_gpu_seconds(gang, log.horizon) == 0
    assert all(s.bound is None for s in gang.spans.values())


@pytest.mark.parametrize("side", ["base", "new"])
def test_the_lenders_own_job_runs_under_both_models(replays, side):
    log = replays[side]
    small = _job(log, "small")
    assert metrics.start(small, log.horizon) - small.submitted <= PERIODS
    assert small.finished is not None


def test_a_quarter_of_the_time_scale_gives_the_same_per_team_numbers_within_the_tolerance(replays):
    fast, slow = replays["base"], replays["slow"]
    for team in ("alpha", "beta"):
        a, b = metrics.team_metrics(fast, team), metrics.team_metrics(slow, team)
        assert (a.submitted, a.finished, a.never_admitted) == (b.submitted, b.finished, b.never_admitted)
        assert abs(a.wait_max_seconds - b.wait_max_seconds) <= PERIODS
        assert a.gpu_hours == pytest.approx(b.gpu_hours, rel=0.1)


def test_a_trace_exported_after_a_replay_round_trips(replays):
    again = {j.name: j for j in import_objects(replays["export"], time_scale=60).jobs}
    original = {j.name: j for j in parse_trace(TRACE, None).jobs}
    assert set(again) == {"big", "small"}  # the Volcano gang never ran: unfinished, left out
    for name, job in again.items():
        want = original[name]
        assert (job.namespace, job.kind, job.pods, job.gpus_per_pod) == (
            want.namespace,
            want.kind,
            want.pods,
            want.gpus_per_pod,
        )
        assert abs(job.submit_seconds - want.submit_seconds) <= PERIODS
        assert abs(job.run_seconds - want.run_seconds) <= 3 * 60  # admission-to-finish adds pod start and finish


def test_the_replays_json_report_matches_its_published_schema(replays):
    schema = json.loads((ROOT / "docs" / "schemas" / "whatif-run.schema.json").read_text())
    jsonschema.validate(report.to_json([replays["base"]], [replays["new"]], {"Job": "Indexed batch Job"}), schema)


def test_a_lender_that_returns_reclaims_its_gpus_by_preempting_the_borrower(replays):
    """examples/whatif/reclaim.jsonl: alpha borrows 8 of beta's GPUs for an hour; beta then asks for its 16."""
    log = replays["reclaim"]
    borrower, lender = _job(log, "borrower"), _job(log, "lender")
    assert [e.reason for e in borrower.evictions][:1] == ["Preempted"]
    assert metrics.start(lender, log.horizon) - lender.submitted <= 2 * PERIODS
    alpha = metrics.team_metrics(log, "alpha")
    assert alpha.preemptions >= 1 and alpha.preempted_gpu_hours > 0


def test_a_failed_rank_of_a_volcano_gang_restarts_it_whole_and_it_finishes(replays):
    log = replays["reclaim"]
    flaky = _job(log, "flaky")
    generations = Counter(span.name for span in flaky.spans.values())
    assert set(generations) == {"flaky-worker-0", "flaky-worker-1"}
    assert min(generations.values()) >= 2  # every rank replaced, not only the failed one
    failed = min(span.ended for span in flaky.spans.values() if span.ended is not None)
    # Ran whole after the failure (before it, a rank may fail before its peer runs: its 120 trace s are 4 wall s at k = 30).
    assert any(since >= failed for since, _ in metrics.whole_intervals(flaky, log.horizon))
    assert flaky.finished is not None


# examples/whatif/storm.jsonl on the dev stack: waitForPodsReady.timeout 10 min, requeue backoff 60 s doubling,
# backoffLimitCount 3. Its pods start 20 min (cold, vc-cold) or 2 min (warm) after they are bound.


def _bound(job):
    return min(span.bound for span in job.spans.values() if span.bound is not None)


def test_pods_slower_to_start_than_the_pods_ready_timeout_are_evicted_and_requeued_until_kueue_gives_up(replays):
    wait = load_model(DEV).admission.wait_for_pods_ready
    strategy = wait.requeuing_strategy
    cold = _job(replays["storm"], "cold")
    reasons = [e.reason for e in cold.evictions]
    assert reasons == ["PodsReadyTimeout"] * strategy.backoff_limit_count + ["DeactivatedDueToRequeuingLimitExceeded"]
    assert len(cold.admitted) == strategy.backoff_limit_count + 1 and len(cold.requeues) == strategy.backoff_limit_count
    for admitted, evicted in zip(cold.admitted, cold.evictions):  # Kueue's timestamps are whole wall seconds: one is 60
        assert wait.timeout - 60 <= evicted.at - admitted <= wait.timeout + PERIODS
    for n, (evicted, requeued) in enumerate(zip(cold.evictions, cold.requeues)):  # the backoff doubles each time
        assert (
            strategy.backoff_base_seconds * 2**n - 60
            <= requeued - evicted.at
            <= strategy.backoff_base_seconds * 2**n + PERIODS
        )
    assert cold.finished is None and all(span.running is None for span in cold.spans.values())
    assert metrics.team_metrics(replays["storm"], "alpha").pods_ready_evictions == strategy.backoff_limit_count


@pytest.mark.parametrize("name", ["warm", "vc-cold"])
def test_a_job_runs_once_its_pods_have_started_when_nothing_times_them_out(replays, name):
    """warm starts within Kueue's timeout; vc-cold is a Volcano gang, which no pods-ready timeout applies to."""
    job = _job(replays["storm"], name)
    want = next(j for j in parse_trace(STORM, None).jobs if j.name == name).start_seconds
    assert not job.evictions and job.finished is not None
    assert want - 60 <= metrics.start(job, replays["storm"].horizon) - _bound(job) <= want + PERIODS


def test_an_export_of_the_storm_gives_back_the_warm_jobs_start_and_each_finished_jobs_run_time(replays):
    """Kueue's PodsReady condition splits admission-to-finish into the pods' start and the run; a Volcano Job's run
    is from its first Running condition to Completed (its runningDuration counts from its creation)."""
    again = {j.name: j for j in import_objects(replays["storm-export"], time_scale=60).jobs}
    original = {j.name: j for j in parse_trace(STORM, None).jobs}
    assert set(again) == {"warm", "vc-cold"}  # cold never finished: left out
    for name, job in again.items():
        assert abs(job.run_seconds - original[name].run_seconds) <= PERIODS
    warm = again["warm"]
    assert warm.start_seconds is not None and abs(warm.start_seconds - original["warm"].start_seconds) <= PERIODS


# examples/whatif/elastic.jsonl on the dev stack: the rigid vc-too-big's shape (3 pods x 4 GPUs on the 8-GPU t4 pool),
# elastic with minPods 2. By hand: Volcano binds the two pods the pool holds at once (minAvailable 2) and the third
# once they have finished; the job completes when all three have (Volcano's running state counts every replica).


def test_an_elastic_volcano_gang_starts_at_once_with_the_pods_its_pool_holds(replays):
    log = replays["elastic"]
    job = _job(log, "elastic")
    first, second, third = sorted(job.spans.values(), key=lambda s: s.bound if s.bound is not None else float("inf"))
    # "at once" against the rigid gang's "never": within the reclaim's bound, far below the 300 s run
    assert metrics.start(job, log.horizon) - job.submitted <= 2 * PERIODS
    assert second.bound - first.bound <= PERIODS  # bound together, as a gang of minPods
    assert third.bound is not None and third.bound >= min(first.ended, second.ended)  # only once capacity came back


def test_an_elastic_gang_finishes_once_its_last_pod_has_run_and_counts_that_pod_alone_as_partial(replays):
    log = replays["elastic"]
    job = _job(log, "elastic")
    run = parse_trace(ELASTIC, None).jobs[0].run_seconds
    assert job.finished is not None and job.finished - job.submitted >= 2 * run
    last = max(job.spans.values(), key=lambda s: s.bound)
    alone = (last.ended - last.bound) * job.gpus_per_pod  # below minPods: each pod's run time is its own timer
    assert metrics.partial_gpu_seconds(job, log.horizon) == pytest.approx(alone, abs=PERIODS * job.gpus_per_pod)
    assert metrics.team_metrics(log, "alpha").never_admitted == 0
