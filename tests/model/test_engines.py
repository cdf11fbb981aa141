"""Engine versions and the Volcano switch."""

from __future__ import annotations

import pytest

from tests.model.expect import Case, clean, params, reported

CASES = [
    Case(
        "kueue-0.18",
        lambda f: f.set("engines.kueue.chartVersion", "0.18.6"),
        lambda f: f.set("engines.kueue.chartVersion", "0.19.0"),
        "engines.kueue.chartVersion",
        "renders for 0.19.x",
        companion="namespace",
    ),
    Case(
        "kueue-with-v-prefix",
        lambda f: f.set("engines.kueue.chartVersion", "v0.19.2"),
        lambda f: f.set("engines.kueue.chartVersion", "0.19.12"),
        "engines.kueue.chartVersion",
        "not supported",
        companion="namespace",
    ),
    Case(
        "volcano-1.16",
        lambda f: f.set("engines.volcano.chartVersion", "1.16.0-alpha.2"),
        lambda f: f.set("engines.volcano.chartVersion", "1.15.2"),
        "engines.volcano.chartVersion",
        "renders for 1.15.x",
    ),
    Case(
        "volcano-pool-with-volcano-off",
        lambda f: f.set("engines.volcano.enabled", False),
        lambda f: (
            f.set("engines.volcano.enabled", False)
            .set("pools[1].system", "kueue")
            .set("pools[1].nodeLabels", {"gpufleet.dev/pool": "a100"})
        ),
        "pools[1].system",
        "engines.volcano.enabled is false",
    ),
]


@pytest.mark.parametrize("case", params(CASES))
def test_an_unsupported_engine_setting_is_reported_at_its_path_with_the_other_issues(case: Case) -> None:
    reported(case)


@pytest.mark.parametrize("case", params(CASES))
def test_the_corrected_engine_setting_passes(case: Case) -> None:
    clean(case)
