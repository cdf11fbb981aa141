"""Every registered rule on the real upstream manifests: no crash, and the known-bad examples are caught."""

from __future__ import annotations

from gpufleet.rules import engine
from gpufleet.yamlin import yamlio
from tests.rules.helpers import WITH_FLEET


def upstream(upstream_dir):
    for path in sorted(upstream_dir.rglob("*.yaml")):
        docs = [d.value for d in yamlio.load_documents(path.read_text()) if isinstance(d.value, dict)]
        yield path.relative_to(upstream_dir).as_posix(), docs


def test_no_rule_crashes_on_an_upstream_manifest(upstream_dir):
    crashes = [
        f"{name}: {f.code} {f.message}"
        for name, docs in upstream(upstream_dir)
        for ctx in (engine.CheckContext(), WITH_FLEET)
        for f in engine.check_objects(docs, ctx)
        if f.message.startswith("internal error")
    ]
    assert crashes == []


def findings(upstream_dir, name, code):
    docs = dict(upstream(upstream_dir))[name]
    return [f.path for f in engine.check_objects(docs, select=[code])]


def test_the_webhook_deny_example_is_caught_before_deploy(upstream_dir):
    assert findings(upstream_dir, "volcano/example/invalid_jobs/minAvailable-webhook-deny.yaml", "GANG002") == [
        "spec.minAvailable"
    ]


def test_a_half_gang_minimum_in_the_volcano_example_is_caught(upstream_dir):
    assert findings(upstream_dir, "volcano/example/job.yaml", "GANG001") == ["spec.minAvailable"]


def test_the_jobset_restart_job_example_restarts_part_of_the_gang(upstream_dir):
    assert findings(upstream_dir, "jobset/site/static/examples/failure-policy/restartjob-action.yaml", "GANG202") == [
        "spec.failurePolicy.rules[1].action"
    ]


def test_remediated_upstream_manifests_keep_no_finding_of_the_remediated_rules(upstream_dir):
    fixable = [r.code for r in engine.DEFAULT.rules if r.remediate is not None and not r.needs_fleet]
    left = []
    for name, docs in upstream(upstream_dir):
        fixed = [engine.remediate(doc, engine.CheckContext(objects=tuple(docs)), select=fixable) for doc in docs]
        left += [
            f"{name}: {f.code} {f.path}" for f in engine.check_objects(fixed, select=fixable) if f.code != "GANG103"
        ]
    assert left == []
