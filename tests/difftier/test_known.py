"""The known-disagreements table: an entry covers its rule's disagreement only on the shape its reason is about."""

from __future__ import annotations

from dataclasses import replace

from gpufleet.difftier.compare import FALSE_ALARM, MISS, Disagreement
from gpufleet.difftier.known import KNOWN, WHEN, explain
from gpufleet.workloads import outcomes as O
from tests.rules.helpers import WITH_FLEET

FLEET = replace(WITH_FLEET.fleet, kueue_managed_namespaces=("research",))


def job(namespace):
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j", "namespace": namespace}, "spec": {}}


def vcjob(*events):
    return {
        "apiVersion": "batch.volcano.sh/v1alpha1",
        "kind": "Job",
        "metadata": {"name": "v"},
        "spec": {"policies": [{"event": e, "action": "RestartJob"} for e in events]},
    }


def test_every_entry_gives_a_reason_and_a_condition_the_table_knows():
    assert all(k.reason and k.when in WHEN for k in KNOWN)


def test_a_gang104_false_alarm_is_known_only_outside_the_namespaces_kueue_manages():
    alarm = Disagreement("GANG104", FALSE_ALARM, O.RAN_WHOLE)
    assert explain("gen:1:1", alarm, [job("scratch")], FLEET) is not None
    assert explain("gen:1:1", alarm, [job("research")], FLEET) is None


def test_a_gang201_false_alarm_is_known_only_when_pod_failed_is_handled_and_pod_evicted_is_not():
    alarm = Disagreement("GANG201", FALSE_ALARM, O.RESTARTED_WHOLE)
    assert explain("gen:1:3", alarm, [vcjob("PodFailed")], FLEET) is not None
    assert explain("gen:1:3", alarm, [vcjob()], FLEET) is None


def test_a_miss_is_never_known_by_a_false_alarms_entry():
    assert explain("gen:1:0", Disagreement(None, MISS, O.RAN_WHOLE), [job("scratch")], FLEET) is None
