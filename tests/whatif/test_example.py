"""docs/whatif.md's worked examples stay what the docs say: the dev stack with one change each, and traces of it."""

from __future__ import annotations

from pathlib import Path

import yaml

from gpufleet.model import load_model
from gpufleet.whatif.trace import load_trace

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "whatif"


def test_the_new_model_is_the_dev_stack_with_alphas_borrowing_limit_on_l4_at_zero():
    base = yaml.safe_load((ROOT / "stacks" / "dev.fleet.yaml").read_text())
    new = yaml.safe_load((EXAMPLE / "dev-no-borrowing.fleet.yaml").read_text())
    alpha = next(t for t in base["teams"] if t["name"] == "alpha")
    alpha["quota"]["l4"]["borrowingLimit"] = 0
    assert new == base


def test_the_patient_model_is_the_dev_stack_with_a_thirty_minute_pods_ready_timeout():
    base = yaml.safe_load((ROOT / "stacks" / "dev.fleet.yaml").read_text())
    new = yaml.safe_load((EXAMPLE / "dev-patient.fleet.yaml").read_text())
    base["admission"]["waitForPodsReady"]["timeout"] = "30m"
    assert new == base


def test_the_storm_traces_cold_start_is_longer_than_the_dev_timeout_and_shorter_than_the_patient_one():
    starts = {
        j.name: j.start_seconds
        for j in load_trace(EXAMPLE / "storm.jsonl", [load_model(ROOT / "stacks" / "dev.fleet.yaml")]).jobs
    }
    timeouts = [
        load_model(m).admission.wait_for_pods_ready.timeout
        for m in (ROOT / "stacks" / "dev.fleet.yaml", EXAMPLE / "dev-patient.fleet.yaml")
    ]
    assert timeouts[0] < starts["cold"] == starts["vc-cold"] < timeouts[1]
    assert starts["warm"] < timeouts[0]


def test_the_example_traces_are_valid_for_every_example_model():
    for model in (ROOT / "stacks" / "dev.fleet.yaml", *sorted(EXAMPLE.glob("*.fleet.yaml"))):
        fleet = load_model(model)
        for trace in sorted(EXAMPLE.glob("*.jsonl")):
            assert load_trace(trace, [fleet]).jobs


SPEECH = EXAMPLE / "speech"


def test_the_speech_models_differ_only_in_speechs_borrowing_limit_and_take_the_burst():
    before, after = (
        yaml.safe_load((SPEECH / f).read_text()) for f in ("no-borrowing.fleet.yaml", "borrowing.fleet.yaml")
    )
    assert before["teams"][0]["quota"]["h100"]["borrowingLimit"] == 0
    assert after["teams"][0]["quota"]["h100"]["borrowingLimit"] == 64
    after["teams"][0]["quota"]["h100"]["borrowingLimit"] = 0
    assert before == after
    fleets = [load_model(SPEECH / f) for f in ("no-borrowing.fleet.yaml", "borrowing.fleet.yaml")]
    burst = load_trace(SPEECH / "burst.jsonl", fleets).jobs
    assert [(j.pods * j.gpus_per_pod, j.run_seconds) for j in burst] == [(64, 3600)] * 4
    assert max(j.submit_seconds for j in burst) <= 30
    assert sum(p.capacity for p in fleets[0].pools) == 128
