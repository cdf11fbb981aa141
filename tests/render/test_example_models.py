"""The example models under examples/ validate, render, and render a Volcano queue tree every Volcano version accepts.

examples/two-pools is a first model of one's own (a Kueue pool and a Volcano pool, three teams
borrowing on both in one cohort): the sandbox's Volcano must take its queue tree as the pinned one
does, and its example jobs lint clean against it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gpufleet.lint import lint
from gpufleet.model import load_model
from gpufleet.render import render_all
from gpufleet.rules.api import CheckContext
from gpufleet.settings import fleet_context_from_model
from tests.render.test_volcano import _versions_refusals, _webhook_problems, plain

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
MODELS = sorted(p for p in EXAMPLES.rglob("*.fleet.yaml")) + sorted(EXAMPLES.rglob("fleet.yaml"))
TWO_POOLS = EXAMPLES / "two-pools" / "fleet.yaml"


@pytest.mark.parametrize("path", MODELS, ids=lambda p: str(p.relative_to(EXAMPLES)))
def test_each_example_model_validates_and_renders_a_queue_tree_both_volcano_versions_accept(path):
    rendered = render_all(load_model(path))
    queues = [o.manifest for o in rendered.objects if o.manifest["kind"] == "Queue"]
    assert _versions_refusals(queues) == [] and _webhook_problems(queues) == []


def test_the_two_pool_examples_cohort_queue_is_capped_at_what_its_three_borrowing_teams_hold():
    rendered = render_all(load_model(TWO_POOLS))
    queues = {
        plain(o.manifest["metadata"]["name"]): o.manifest["spec"] for o in rendered.objects if o.engine == "volcano"
    }
    assert sorted(queues) == ["language", "research", "speech", "vision"]
    assert (
        queues["research"]["capability"]["nvidia.com/gpu"] == queues["research"]["deserved"]["nvidia.com/gpu"] == "64"
    )
    assert [queues[t]["capability"]["nvidia.com/gpu"] for t in ("vision", "language", "speech")] == ["40", "40", "24"]


def test_the_two_pool_examples_jobs_lint_clean_against_it():
    report = lint([str(EXAMPLES / "two-pools" / "jobs")], CheckContext(fleet=fleet_context_from_model(str(TWO_POOLS))))
    assert [f.code for f in report.findings] == []
