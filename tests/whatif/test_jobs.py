"""The jobs a replay submits: routed to the team's queue and gang-safe, so only the quota model differs."""

from __future__ import annotations

import json

import yaml

from gpufleet.cli.app import run
from gpufleet.whatif import jobs
from gpufleet.whatif.trace import parse_trace
from tests.whatif.builders import DEV, dev, line

LINES = [
    line(name="kueue-job", priorityClass="gang-standard"),
    line(name="set", kind="JobSet"),
    line(name="vc", namespace="alpha-vc", kind="VolcanoJob", pool="t4", gpusPerPod=4),
    line(name="elastic", namespace="alpha-vc", kind="VolcanoJob", pool="t4", pods=4, gpusPerPod=1, minPods=2),
]


def manifests():
    fleet = dev()
    return [jobs.manifest(j, fleet, {"kwok": "60s"}) for j in parse_trace("\n".join(LINES), fleet).jobs]


def test_a_kueue_line_is_an_indexed_job_on_the_teams_local_queue_with_its_priority():
    job = manifests()[0]
    assert job["metadata"]["labels"]["kueue.x-k8s.io/queue-name"] == "alpha"
    assert job["metadata"]["labels"]["kueue.x-k8s.io/priority-class"] == "gang-standard"
    spec = job["spec"]
    assert (spec["parallelism"], spec["completions"], spec["completionMode"]) == (2, 2, "Indexed")
    assert spec["template"]["metadata"]["annotations"] == {"kwok": "60s"}
    assert spec["template"]["spec"]["containers"][0]["resources"]["requests"] == {"nvidia.com/gpu": "8"}


def test_a_volcano_line_is_a_whole_gang_on_the_teams_queue_restarted_as_a_job_on_its_pool():
    vc = manifests()[2]
    spec = vc["spec"]
    assert (spec["queue"], spec["minAvailable"], spec["tasks"][0]["replicas"]) == ("alpha", 2, 2)
    assert {"event": "PodFailed", "action": "RestartJob"} in spec["policies"]
    assert spec["tasks"][0]["template"]["spec"]["nodeSelector"] == {
        "gpufleet.dev/pool": "t4",
        "volcano.sh/nodegroup-name": "t4",
    }


def test_an_elastic_volcano_line_starts_at_its_min_pods_of_all_its_replicas():
    fleet = dev()
    trace = parse_trace(line(namespace="alpha-vc", kind="VolcanoJob", pods=4, gpusPerPod=1, minPods=2), fleet)
    spec = jobs.manifest(trace.jobs[0], fleet)["spec"]
    assert (spec["minAvailable"], spec["tasks"][0]["replicas"]) == (2, 4)


def test_kinds_the_sandbox_cannot_run_are_named_with_what_runs_instead():
    assert jobs.substitutions(["Job", "JobSet", "VolcanoJob", "JobSet"]) == {"JobSet": "Indexed batch Job"}


def test_every_replayed_job_lints_clean_against_its_model(tmp_path, capsys):
    path = tmp_path / "jobs.yaml"
    path.write_text(yaml.safe_dump_all(manifests()))
    code = run(["lint", str(path), "--fleet", str(DEV), "--format", "json"])
    out = json.loads(capsys.readouterr().out)
    errors = [f for f in out.get("findings", []) if f.get("severity") == "error"]
    assert code == 0 and not errors, errors
