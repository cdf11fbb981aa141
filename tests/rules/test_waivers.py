"""Waivers on real rules: the finding stays visible, stops blocking, and needs a reason."""

from __future__ import annotations

import pytest

from gpufleet.rules import engine, waivers
from tests.rules import builders as b


def test_a_waived_rule_is_reported_but_does_not_block():
    job = b.volcano_job(
        tasks=[b.task(replicas=4)],
        min_available=2,
        annotations={"waive.gpufleet.dev/GANG001": "ranks rejoin via torchelastic"},
    )
    (finding,) = engine.check_object(job, select=["GANG001"])
    assert finding.waived and finding.waiver_reason == "ranks rejoin via torchelastic" and not finding.blocking


def test_a_waiver_only_waives_its_own_code():
    job = b.volcano_job(policies=[], min_available=1, annotations={"waive.gpufleet.dev/GANG001": "elastic"})
    by_code = {f.code: f.waived for f in engine.check_object(job, select=["GANG001", "GANG201"])}
    assert by_code == {"GANG001": True, "GANG201": False}


@pytest.mark.parametrize(
    "annotations, expected",
    [
        ({"waive.gpufleet.dev/GANG001": "why"}, {"GANG001": "why"}),
        ({"waive.gpufleet.dev/gang201": " because "}, {"GANG201": "because"}),
        ({"waive.gpufleet.dev/GANG001": ""}, {}),
        ({"waive.gpufleet.dev/GANG001": 7}, {}),
        ({"other.dev/GANG001": "why"}, {}),
    ],
)
def test_waiver_reasons_are_read_from_annotations(annotations, expected):
    assert waivers.waiver_reasons({"metadata": {"annotations": annotations}}) == expected


def test_the_waiver_key_names_the_code():
    assert waivers.waiver_key("GANG204") == "waive.gpufleet.dev/GANG204"
