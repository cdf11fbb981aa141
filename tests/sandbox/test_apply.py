"""``sandbox up``'s apply of the rendered objects: an engine still starting is waited for, a webhook's denial is final.

The API server's answers are mocked at the client: ``Kube.apply`` raises the ``ApiException`` the
``kubernetes`` client raises, with the Status body the API server sends.
"""

from __future__ import annotations

import json

import pytest
from kubernetes.client.exceptions import ApiException

from gpufleet.sandbox import apply
from gpufleet.sandbox.kube import Kube, WaitTimeout

QUEUE = {"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "Queue", "metadata": {"name": "vision"}}
LOCAL = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "LocalQueue", "metadata": {"name": "a", "namespace": "a"}}
VOLCANO_DENIAL = (
    'admission webhook "validatequeue.volcano.sh" denied the request: queue vision capability (cpu 640000.00, '
    "memory 5368709120000.00, nvidia.com/gpu 40000.00) exceeds parent queue research-63238cd1 capability "
    "(cpu 0.00, memory 0.00)"
)
STARTING = (
    'Internal error occurred: failed calling webhook "validatequeue.volcano.sh": failed to call webhook: Post '
    '"https://127.0.0.1:40123/queues/validate": dial tcp 127.0.0.1:40123: connect: connection refused'
)


def api_answer(status: int, message: str) -> ApiException:
    """The exception the client raises for an API server Status of ``status`` with ``message``."""
    exc = ApiException(status=status, reason="Bad Request" if status == 400 else "Internal Server Error")
    exc.body = json.dumps({"kind": "Status", "status": "Failure", "message": message, "code": status})
    return exc


class Answers(Kube):
    """A client whose API server answers each apply in turn with ``answers`` (None: applied)."""

    def __init__(self, answers: list[ApiException | None]) -> None:  # no kubeconfig: nothing is dialled
        self.answers = answers
        self.applied: list[str] = []

    def apply(self, manifest):
        answer = self.answers.pop(0) if self.answers else None
        if answer is not None:
            raise answer
        self.applied.append(manifest["metadata"]["name"])
        return manifest


class Clock:
    """Seconds that pass only when the loop sleeps."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds


def run(kube: Answers, clock: Clock, manifests=(QUEUE,)) -> None:
    apply.apply_rendered(kube, list(manifests), timeout=120, interval=2, clock=clock, sleep=clock.sleep)


def test_a_webhook_denial_is_final_within_seconds_naming_the_object_the_webhook_and_the_way_out():
    kube, clock = Answers([api_answer(400, VOLCANO_DENIAL)] * 100), Clock()
    with pytest.raises(apply.Denied) as caught:
        run(kube, clock)
    assert clock.now <= apply.DENIAL_GRACE + 1
    denied = caught.value
    assert (denied.obj, denied.webhook) == ("Queue vision", "validatequeue.volcano.sh")
    assert str(denied).startswith(f"Queue vision: {VOLCANO_DENIAL} (fix: ")
    assert "--volcano-without /queues/validate" in str(denied) and "v1.14.1" in str(denied)


def test_a_webhook_that_is_still_starting_is_waited_for_and_the_pass_applied_again():
    kube, clock = Answers([None, api_answer(500, STARTING), api_answer(500, STARTING)]), Clock()
    run(kube, clock, (LOCAL, QUEUE))
    assert kube.applied == ["a", "a", "vision"] and clock.now == 4


def test_a_denial_that_goes_away_within_the_grace_is_a_webhook_cache_catching_up():
    not_yet = 'admission webhook "validatequeue.volcano.sh" denied the request: parent queue research-1 not found'
    kube, clock = Answers([api_answer(400, not_yet), api_answer(400, not_yet)]), Clock()
    run(kube, clock)
    assert kube.applied == ["vision"] and clock.now < apply.DENIAL_GRACE


def test_failures_other_than_a_denial_are_retried_until_the_timeout():
    kube, clock = Answers([api_answer(500, STARTING)] * 1000), Clock()
    with pytest.raises(WaitTimeout, match="timed out after 120s waiting for the rendered objects to apply"):
        run(kube, clock)
    assert clock.now >= 120


@pytest.mark.parametrize(
    "webhook, way_out",
    [
        ("validatequeue.volcano.sh", "--volcano-without /queues/validate"),
        ("mutatepodgroup.volcano.sh", "--volcano-without /podgroups/mutate"),
        ("vclusterqueue.kb.io", "change the model"),
    ],
)
def test_the_way_out_names_the_volcano_check_to_leave_out_or_else_the_model(webhook, way_out):
    assert way_out in apply.fix(webhook)
    assert ("--volcano-without" in apply.fix(webhook)) == webhook.endswith(".volcano.sh")
