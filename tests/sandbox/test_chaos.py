"""The fault run's bookkeeping, with a stub API client: what counts as finished, waiting with a reason, or lost."""

from __future__ import annotations

from gpufleet.sandbox import chaos

SUSPENDED = {"conditions": [{"type": "Suspended", "status": "True", "reason": "JobSuspended"}]}
RUNNING: dict = {"active": 2}
COMPLETE = {"conditions": [{"type": "Complete", "status": "True"}]}


class Stub:
    """Answers each get of the job with the next status of ``statuses`` (the last one from then on)."""

    def __init__(self, *statuses: dict) -> None:
        self.statuses, self.gets = list(statuses), 0

    def list(self, api_version, kind, namespace):
        return []  # no pod whose finish KWOK dropped

    def get(self, api_version, kind, name, namespace):
        status = self.statuses[min(self.gets, len(self.statuses) - 1)]
        self.gets += 1
        return {
            "apiVersion": api_version,
            "kind": kind,
            "metadata": {"name": name, "namespace": namespace},
            "status": status,
        }


JOB = {
    "apiVersion": "batch/v1",
    "kind": "Job",
    "metadata": {"name": "a", "namespace": "alpha"},
    "spec": {"parallelism": 2},
}


def test_settling_waits_for_the_job_to_finish_even_while_it_carries_a_reason(monkeypatch):
    monkeypatch.setattr(chaos.time, "sleep", lambda s: None)
    final, retried = chaos._settle(Stub(SUSPENDED, RUNNING, COMPLETE), [JOB], seconds=60)
    assert final[0]["status"] == COMPLETE and retried == 0


def test_at_the_deadline_everything_is_counted_from_one_snapshot():
    final, _ = chaos._settle(Stub(SUSPENDED, RUNNING), [JOB], seconds=0)
    assert final[0]["status"] == SUSPENDED  # waiting for quota, with its reason: not lost


def test_a_job_deleted_under_the_run_is_neither_finished_nor_explained():
    class Gone(Stub):
        def get(self, *args):
            return None

    assert chaos._snapshot(Gone(), [JOB]) == [JOB]


def test_ranks_count_parallelism_and_every_volcano_task():
    volcano = {"apiVersion": chaos.VC_API, "spec": {"tasks": [{"replicas": 2}, {"replicas": 1}, {}]}}
    assert chaos.ranks(JOB) == 2 and chaos.ranks(volcano) == 4


def test_settling_touches_a_rank_whose_finish_kwok_dropped_once_per_pass(monkeypatch):
    from tests.sandbox.test_kwokretry import pod

    touched = []

    class Dropped(Stub):
        def list(self, api_version, kind, namespace):
            return [pod(ready_ago=100, runs="30s")]

        def core(self):
            return type(
                "Core", (), {"patch_namespaced_pod": lambda _, name, ns, body: touched.append((ns, name, body))}
            )()

    monkeypatch.setattr(chaos.time, "sleep", lambda s: None)
    final, retried = chaos._settle(Dropped(RUNNING, RUNNING, COMPLETE), [JOB], seconds=60)
    assert final[0]["status"] == COMPLETE and retried == 2
    assert [(ns, name) for ns, name, _ in touched] == [("alpha", "a-0")] * 2
    assert set(touched[0][2]["metadata"]["annotations"]) == {"gpufleet.dev/kwok-retry"}
