"""The mutator routes LeaderWorkerSets and Ray gangs where the fleet says (issue 19, item 2)."""

from __future__ import annotations

from dataclasses import replace

import jsonpatch
import pytest

from gpufleet.kubetypes.vocab import QUEUE_LABEL
from gpufleet.mutate import mutate
from tests.mutate.builders import TEAM_NS, fleet
from tests.rules.routing.test_gang106_lws_and_ray import LWS_FRAMEWORK, RAY_FRAMEWORKS, lws, ray_cluster, ray_job

LABEL = QUEUE_LABEL
KINDS = [lws(namespace=TEAM_NS), ray_cluster(namespace=TEAM_NS), ray_job(namespace=TEAM_NS)]


def label_after(obj, ctx):
    return jsonpatch.apply_patch(obj, mutate(obj, ctx))["metadata"].get("labels", {}).get(LABEL)


@pytest.mark.parametrize("obj", KINDS, ids=["lws", "raycluster", "rayjob"])
def test_the_team_queue_label_is_added_where_kueue_integrates_the_kind(obj):
    ctx = replace(fleet(), kueue_frameworks=("batch/job", LWS_FRAMEWORK, *RAY_FRAMEWORKS))
    assert label_after(obj, ctx) == "research-lq"


@pytest.mark.parametrize("obj", KINDS, ids=["lws", "raycluster", "rayjob"])
def test_no_label_is_added_where_kueue_does_not_integrate_the_kind(obj):
    assert label_after(obj, replace(fleet(), kueue_frameworks=("batch/job",))) is None
