"""The trace format: what a good trace reads as, and every bad line reported at ``line N: field``."""

from __future__ import annotations

import pytest

from gpufleet.whatif.trace import TraceError, dump_trace, parse_trace
from tests.whatif.builders import dev, line


def test_a_trace_is_read_in_submit_order_and_unnamed_jobs_are_named_by_their_line():
    trace = parse_trace("\n".join(['{"gpufleetTrace": "v1"}', line(submitSeconds=50), line(submitSeconds=10)]), dev())
    assert [(j.name, j.submit_seconds) for j in trace.jobs] == [("j3", 10), ("j2", 50)]


def test_a_trace_round_trips_through_its_writer():
    trace = parse_trace(
        "\n".join(
            [
                line(name="a", priorityClass="gang-standard"),
                line(name="b", namespace="alpha-vc", kind="VolcanoJob", pool="t4"),
                line(name="c", namespace="alpha-vc", kind="VolcanoJob", pods=4, minPods=2),
            ]
        ),
        dev(),
    )
    again = parse_trace(dump_trace(trace.jobs), dev())
    assert again == trace


@pytest.mark.parametrize(
    "bad, where, words",
    [
        (line(colour=1), "line 1: colour", "unknown key"),
        (line(pods=0), "line 1: pods", "greater than or equal to 1"),
        ('{"namespace": "alpha"}', "line 1: submitSeconds", "missing"),
        ("not json", "(file)", "is not a JSON Lines trace"),
        (line() + "\nnot json", "line 2", "not JSON"),
        (line(namespace="nope"), "line 1: namespace", "no team namespace"),
        (line(namespace="alpha-vc"), "line 1: kind", "Volcano namespace"),
        (line(kind="VolcanoJob"), "line 1: kind", "Kueue namespace"),
        (line(priorityClass="urgent"), "line 1: priorityClass", "not in the model"),
        (line(pool="h100"), "line 1: pool", "no quota on pool"),
        ('{"gpufleetTrace": "v9"}', "line 1: gpufleetTrace", "unknown trace version"),
        (line(minPods=1), "line 1: minPods", "a Job is not replayed elastic"),
        (
            line(namespace="alpha-vc", kind="VolcanoJob", pods=2, minPods=3),
            "line 1: minPods",
            "more than the job's 2 pods",
        ),
        (line(namespace="alpha-vc", kind="VolcanoJob", minPods=0), "line 1: minPods", "greater than or equal to 1"),
        (line(startSeconds=float("inf")), "line 1: startSeconds", "finite number"),
        (line(submitSeconds=1e308), "line 1: submitSeconds", "less than or equal to 31622400"),
        (line(runSeconds=4e7), "line 1: runSeconds", "less than or equal to 31622400"),
    ],
)
def test_a_bad_line_is_reported_at_its_line_and_field_with_a_fix(bad, where, words):
    with pytest.raises(TraceError) as caught:
        parse_trace(bad, dev(), "t.jsonl")
    rendered = caught.value.lines()
    assert any(f"t.jsonl: {where}: " in r and words in r and "(fix: " in r for r in rendered), rendered


def test_every_problem_is_reported_not_just_the_first():
    with pytest.raises(TraceError) as caught:
        parse_trace("\n".join([line(pods=0), line(namespace="nope"), line(name="x"), line(name="x")]), dev())
    assert [str(i.path).split(":")[0] for i in caught.value.issues] == ["line 1", "line 2", "line 4"]


def test_an_empty_trace_is_an_error():
    with pytest.raises(TraceError, match="no jobs"):
        parse_trace('{"gpufleetTrace": "v1"}\n', dev())


def test_a_trace_file_beyond_the_size_cap_is_refused_unread_with_the_fix(tmp_path, monkeypatch):
    from gpufleet.whatif import trace as tracemod

    path = tmp_path / "big.jsonl"
    path.write_text(line() + "\n" + line(name="b") + "\n")
    monkeypatch.setattr(tracemod, "MAX_BYTES", 100)
    with pytest.raises(TraceError, match=r"larger than 100 bytes, the most a trace may be \(fix: split it\)"):
        tracemod.load_trace(path, [dev()])


def test_a_cluster_export_beyond_its_size_cap_is_named(tmp_path, monkeypatch):
    from gpufleet.whatif import fromcluster

    path = tmp_path / "w.json"
    path.write_text('{"kind": "List", "items": []}' + " " * 200)
    monkeypatch.setattr(fromcluster, "MAX_EXPORT_BYTES", 100)
    with pytest.raises(ValueError, match=r"w.json: larger than .* cluster export"):
        fromcluster.load_exports([path])


def test_a_trace_file_is_parsed_once_and_checked_against_every_model(tmp_path, monkeypatch):
    from gpufleet.whatif import trace as tracemod

    path = tmp_path / "t.jsonl"
    path.write_text(line(name="a") + "\n" + line(name="b", pool="t4") + "\n")
    without_t4 = dev().model_copy(deep=True)
    for team in without_t4.teams:
        team.quota.pop("t4", None)
    parses = []
    real = tracemod._parse
    monkeypatch.setattr(tracemod, "_parse", lambda text: parses.append(1) or real(text))
    with pytest.raises(TraceError, match=r"line 2: pool") as bad:
        tracemod.load_trace(path, [dev(), without_t4])
    assert len(parses) == 1 and len(bad.value.issues) == 1
    assert [j.name for j in tracemod.load_trace(path, [dev(), dev()]).jobs] == ["a", "b"]
    assert len(parses) == 2


@pytest.mark.parametrize("pods, min_pods, needed", [(4, None, 4), (4, 2, 2)], ids=["gang", "elastic"])
def test_a_job_needs_all_its_pods_or_its_min_pods(pods, min_pods, needed):
    trace = parse_trace(
        line(
            namespace="alpha-vc",
            kind="VolcanoJob",
            pods=pods,
            gpusPerPod=1,
            **({"minPods": min_pods} if min_pods else {}),
        ),
        dev(),
    )
    assert trace.jobs[0].needed == needed
