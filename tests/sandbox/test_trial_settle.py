"""After a failed rank a trial waits ``failure_settle`` quiet seconds (past the Job controller's 10 s backoff)."""

from __future__ import annotations

from types import SimpleNamespace

from gpufleet.sandbox import trial
from gpufleet.sandbox.outcome import Observed, Verdict

RUNNING = {
    "metadata": {"name": "w-0", "namespace": "n", "uid": "u0"},
    "spec": {"nodeName": "a"},
    "status": {"phase": "Running"},
}


def settles(monkeypatch, options: trial.TrialOptions) -> list[float]:
    seen: list[float] = []

    def watch(_watch, opts, decide):
        seen.append(opts.settle)
        return Verdict("ranWhole", 1, 1, 0, "0")

    monkeypatch.setattr(trial, "_watch", watch)
    monkeypatch.setattr(trial, "finish_pod", lambda kube, pod, exit_code=1: None)
    fake = SimpleNamespace(kube=None, observe=lambda: Observed(pods=(RUNNING,)))
    trial._run(fake, options, trial.TrialResult("neverAdmitted", 1, []), 0.0)
    return seen


def test_the_watch_after_the_failed_rank_uses_the_failure_settle(monkeypatch):
    assert settles(monkeypatch, trial.TrialOptions(settle=6, failure_settle=13, fail_rank=0)) == [6, 13]


def test_without_a_failure_settle_both_watches_use_the_settle(monkeypatch):
    assert settles(monkeypatch, trial.TrialOptions(settle=6, fail_rank=0)) == [6, 6]
