"""``--bench-ignore``: the benchmark's ablation of the rules' cost, refused outside benchmark mode."""

from __future__ import annotations

import pytest

from gpufleet.webhook.server import main, parse_args
from tests.webhook.reviews import review
from tests.webhook.test_serve import call, probed_job, ready_state


def test_the_ablation_is_off_unless_asked_for():
    assert parse_args([], env={}).bench_ignore == ""
    assert parse_args(["--bench-echo", "--bench-ignore", "GANG301"], env={}).bench_ignore == "GANG301"
    assert parse_args([], env={"GPUFLEET_BENCH_ECHO": "1", "GPUFLEET_BENCH_IGNORE": "ALL"}).bench_ignore == "ALL"


@pytest.mark.parametrize(
    "argv, env, says",
    [
        (["--bench-ignore", "GANG301"], {}, "needs --bench-echo"),
        ([], {"GPUFLEET_BENCH_IGNORE": "ALL"}, "needs --bench-echo"),
        (["--bench-echo", "--bench-ignore", "GANG301,NOPE9"], {}, "names no rule with NOPE9"),
    ],
)
def test_the_server_refuses_it_outside_benchmark_mode_or_for_an_unknown_rule(argv, env, says, monkeypatch, capsys):
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert says in err and "--bench-ignore" in err and len(err.splitlines()) == 1


def test_a_validate_review_skips_the_ignored_rules_and_only_those():
    _, body, _ = call("/validate", review(probed_job()))
    assert not body["response"]["allowed"] and "GANG301" in body["response"]["status"]["message"]
    _, body, _ = call("/validate", review(probed_job()), ready_state(ignore_rules=frozenset({"GANG301"})))
    assert body["response"]["allowed"]
    _, body, _ = call("/validate", review(probed_job()), ready_state(ignore_rules=frozenset({"GANG1"})))
    assert not body["response"]["allowed"]
