"""A run shared with worker processes gives the one-process report, finding for finding and in order.

``lint(paths, jobs=N)`` forks workers for runs of at least ``pool.MIN_FILES`` files
(lowered here so small corpora are shared too): the first pass by chunks of files, the
second with the workers placing findings. Compared with ``jobs=1`` on the upstream
examples, the rule fixtures, a generated corpus of renamed copies, with --select/--ignore,
standard input and an unreadable file among the inputs; and :func:`pool.ordered` on its own.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest

from gpufleet.lint import firstpass, pool, runner
from gpufleet.lint.firstpass import load_chunk
from gpufleet.lint.runner import Report, lint, lint_sources
from tests.lint.test_two_pass import FIXTURES, renamed_copies

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="the linter shares runs only on Linux (fork)"
)


def everything(report: Report) -> tuple:
    """The whole report, results in their order, every field of every finding."""
    return (
        report.files,
        report.objects,
        report.skipped,
        report.charts,
        report.unreadable,
        [(r.finding, r.template) for r in report.results],
    )


@pytest.fixture
def small_runs_shared(monkeypatch):
    monkeypatch.setattr(pool, "MIN_FILES", 1)
    monkeypatch.setattr(pool, "cpus", lambda: 2)


def assert_shared_equals_alone(paths: list[str], **options) -> Report:
    alone = lint(paths, jobs=1, **options)
    for jobs in (2, 3):
        assert everything(lint(paths, jobs=jobs, **options)) == everything(alone), jobs
    return alone


def test_a_shared_run_reports_what_one_process_reports_on_the_upstream_examples(upstream_dir, small_runs_shared):
    assert len(assert_shared_equals_alone([str(upstream_dir)]).results) > 100


def test_a_shared_run_reports_what_one_process_reports_on_the_rule_fixtures(small_runs_shared):
    assert len(assert_shared_equals_alone([str(FIXTURES)]).results) > 50


def test_a_shared_run_reports_what_one_process_reports_on_a_generated_corpus(upstream_dir, tmp_path, small_runs_shared):
    renamed_copies(upstream_dir, tmp_path, 3)
    assert len(assert_shared_equals_alone([str(tmp_path)]).results) > 300


@pytest.mark.parametrize(
    "options", [{"select": ["GANG2"]}, {"ignore": ["GANG000", "GANG204"]}, {"namespace": "team-a"}]
)
def test_selection_and_namespace_are_applied_alike_in_a_shared_run(upstream_dir, small_runs_shared, options):
    assert_shared_equals_alone([str(upstream_dir)], **options)


def cli_context(**options) -> object:
    """The check context ``gpufleet lint`` builds from its options (fleet model, CRDs)."""
    from gpufleet.cli.lint_run import Options, _context
    from gpufleet.lint.context import LintConfig

    return _context(LintConfig(), Options(paths=["."], **options))


def test_the_fleet_aware_rules_report_alike_in_a_shared_run(upstream_dir, tmp_path, small_runs_shared):
    renamed_copies(upstream_dir, tmp_path, 2)
    ctx = cli_context(fleet=str(Path(__file__).resolve().parents[2] / "stacks" / "dev.fleet.yaml"))
    report = assert_shared_equals_alone([str(tmp_path)], ctx=ctx)
    assert {"GANG104", "GANG105"} & {r.finding.code for r in report.results}


def test_the_schema_rules_report_alike_in_a_shared_run(upstream_dir, crds_dir, small_runs_shared):
    report = assert_shared_equals_alone([str(upstream_dir)], ctx=cli_context(crds=str(crds_dir)))
    assert len(report.results) > 100


def test_standard_input_and_a_missing_path_keep_their_place_in_a_shared_run(small_runs_shared):
    text = (FIXTURES / "GANG301" / "disallowed.yaml").read_text()
    report = assert_shared_equals_alone(
        [str(FIXTURES / "GANG001"), "-", "no-such-dir", str(FIXTURES / "GANG301")], stdin_text=text
    )
    assert {"<stdin>", "no-such-dir"} <= {r.finding.file for r in report.results}


@pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0, reason="root reads files whatever their mode")
def test_an_unreadable_file_is_reported_by_a_shared_run(tmp_path, small_runs_shared):
    (tmp_path / "a.yaml").write_text((FIXTURES / "GANG301" / "disallowed.yaml").read_text())
    locked = tmp_path / "b.yaml"
    locked.write_text("kind: Pod\n")
    locked.chmod(0)
    report = assert_shared_equals_alone([str(tmp_path)])
    assert [name for name, _ in report.unreadable] == [str(locked)]


def test_a_file_unreadable_to_the_reader_is_listed_as_unreadable(tmp_path, small_runs_shared, monkeypatch):
    (tmp_path / "a.yaml").write_text((FIXTURES / "GANG301" / "disallowed.yaml").read_text())
    (tmp_path / "b.yaml").write_text("kind: Pod\n")
    real_open = open

    def refusing(name, *args, **kwargs):
        if str(name).endswith("b.yaml"):
            raise PermissionError(13, "Permission denied")
        return real_open(name, *args, **kwargs)

    monkeypatch.setattr("builtins.open", refusing)  # forked workers inherit the patch
    report = assert_shared_equals_alone([str(tmp_path)])
    assert report.unreadable == [(str(tmp_path / "b.yaml"), "cannot be read: Permission denied")]


@pytest.mark.parametrize(
    "jobs, files, cpus, expected",
    [
        (0, 10_000, 2, 1),
        (0, 10_000, 8, 7),
        (1, 10_000, 8, 0),
        (4, 10_000, 2, 3),
        (0, 10, 8, 0),
        (0, 10_000, 1, 0),
    ],
)
def test_workers_are_one_less_than_the_processes_asked_for_and_none_for_small_runs(
    monkeypatch, jobs, files, cpus, expected
):
    monkeypatch.setattr(pool, "cpus", lambda: cpus)
    assert pool.workers(jobs, files) == expected


@pytest.mark.parametrize("jobs", [-1, pool.MAX_JOBS + 1, 10**9])
def test_a_negative_or_unbounded_number_of_jobs_is_refused(jobs):
    with pytest.raises(ValueError, match="--jobs"):
        pool.workers(jobs, 10_000)


def square(x: int) -> int:
    time.sleep(0.005)  # long enough that the caller finds chunks no worker has started
    return x * x


@pytest.mark.parametrize("chunks", [0, 1, 2, 7, 50])
def test_ordered_gives_every_result_once_and_in_chunk_order(chunks):
    with pool.executor(1) as workers:
        assert list(pool.ordered(workers, square, list(range(chunks)))) == [x * x for x in range(chunks)]


def test_the_caller_takes_chunks_no_worker_has_started_from_the_back(monkeypatch):
    computed_here: list[int] = []

    def here(x: int) -> int:
        computed_here.append(x)
        return square(x)

    with pool.executor(1) as workers:
        futures = [workers.submit(square, x) for x in range(40)]
        assert list(pool.collect(futures, here, list(range(40)))) == [x * x for x in range(40)]
    assert computed_here == sorted(computed_here, reverse=True)
    assert computed_here and computed_here[0] == 39


CALLER = os.getpid()


def dying_load_chunk(job):
    """The first pass of a chunk, except that a worker process dies as the out-of-memory killer would end it."""
    if os.getpid() != CALLER:
        os._exit(1)
    return load_chunk(job)


def test_a_worker_that_dies_makes_the_run_start_again_in_one_process(upstream_dir, small_runs_shared, monkeypatch):
    alone = lint([str(upstream_dir)], jobs=1)
    monkeypatch.setattr(firstpass, "load_chunk", dying_load_chunk)  # the workers are forked with it
    monkeypatch.setattr(runner, "CHUNK", 1)  # a chunk per file: the worker surely gets some
    alone_again = []
    monkeypatch.setattr(runner, "lint_sources", lambda *a, **k: alone_again.append(1) or lint_sources(*a, **k))
    assert everything(lint([str(upstream_dir)], jobs=2)) == everything(alone)
    assert alone_again == [1]
