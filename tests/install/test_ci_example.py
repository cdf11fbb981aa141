"""examples/ci/github-workflow.yaml is written for a repository that uses gpufleet, not for gpufleet's own checkout."""

from __future__ import annotations

import re

import pytest
import yaml

from tests.conftest import REPO

WORKFLOW = yaml.safe_load((REPO / "examples" / "ci" / "github-workflow.yaml").read_text())
RUNS = [step.get("run", "") for job in WORKFLOW["jobs"].values() for step in job["steps"]]


def test_it_installs_gpufleet_as_a_package_not_from_the_checkout():
    assert re.match(r"^gpufleet @ git\+https://", WORKFLOW["env"]["GPUFLEET"])
    assert 'pip install "$GPUFLEET"' in RUNS


@pytest.mark.parametrize("checkout_only", ["requirements.txt", "pip install --no-deps .", "crds/"])
def test_it_names_no_file_that_only_gpufleets_checkout_has(checkout_only):
    assert not any(checkout_only in run for run in RUNS)


def test_the_policy_pack_is_written_by_the_installed_gpufleet_not_taken_from_a_checkout():
    preview = WORKFLOW["jobs"]["preview"]["steps"]
    assert not any(s.get("with", {}).get("repository") for s in preview)
    [written] = [s["run"] for s in preview if " policy-pack " in s.get("run", "")]
    pack = written.split(" policy-pack ", 1)[1].split()[0]
    assert any(f"--policy-pack {pack} " in s.get("run", "") for s in preview)


def test_pull_requests_that_change_a_fleet_model_get_its_diff_as_a_markdown_comment():
    job = WORKFLOW["jobs"]["quota-diff"]
    script = "\n".join(step.get("run", "") for step in job["steps"])
    assert job["if"] == "github.event_name == 'pull_request'"
    assert "stacks/*.fleet.yaml" in script and '--git "$BASE" --format markdown' in script
    assert any("gh pr comment" in step.get("run", "") for step in job["steps"])
