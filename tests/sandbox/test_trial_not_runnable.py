"""A trial of a kind the sandbox serves no API for reports notRunnable, naming the kind, and submits nothing."""

from __future__ import annotations

from gpufleet.difftier.compare import Observation
from gpufleet.sandbox.trial import try_manifests, unserved
from gpufleet.workloads import outcomes as O

JOBSET = {
    "apiVersion": "jobset.x-k8s.io/v1alpha2",
    "kind": "JobSet",
    "metadata": {"name": "js", "namespace": "alpha"},
    "spec": {"replicatedJobs": [{"name": "w", "replicas": 2, "template": {"spec": {"parallelism": 1}}}]},
}
JOB = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j"}, "spec": {"parallelism": 2}}


class _Kube:
    """Serves the core and batch APIs only; records what is created."""

    def __init__(self) -> None:
        self.created: list[dict] = []

    def resource(self, api_version: str, kind: str):
        if api_version not in ("v1", "batch/v1"):
            raise LookupError(f"No matches found for {kind}")
        return type("R", (), {"namespaced": True})()

    def create(self, body: dict) -> dict:
        self.created.append(body)
        raise AssertionError("nothing may be submitted when a kind is not served")


def test_the_first_unserved_kind_is_named_with_its_api_version():
    assert unserved(_Kube(), [JOB, JOBSET]) == "JobSet (jobset.x-k8s.io/v1alpha2)"
    assert unserved(_Kube(), [JOB]) is None


def test_a_jobset_on_a_sandbox_without_its_operator_is_not_runnable_and_nothing_is_submitted():
    kube = _Kube()
    result = try_manifests(kube, [JOBSET])  # type: ignore[arg-type]
    assert result.outcome == O.NOT_RUNNABLE
    assert "JobSet (jobset.x-k8s.io/v1alpha2)" in (result.message or "")
    assert kube.created == [] and result.objects == []
    assert not result.ok


def test_a_case_that_could_not_run_has_no_hazard_for_the_differential_tier():
    assert Observation(O.NOT_RUNNABLE).hazards() == ()
    assert Observation(O.NEVER_ADMITTED).hazards() == (("start", O.NEVER_ADMITTED),)
