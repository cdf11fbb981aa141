"""Helm chart sources are skipped with a note that says how to lint the rendered chart."""

from __future__ import annotations

import pytest

from gpufleet.lint import lint, text
from gpufleet.lint.helm import is_chart_source

TEMPLATE = "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: {{ .Release.Name }}\n  labels:\n    {{- include \"l\" . | nindent 4 }}\n"


def chart(tmp_path):
    root = tmp_path / "charts" / "train"
    (root / "templates").mkdir(parents=True)
    (root / "Chart.yaml").write_text("apiVersion: v2\nname: train\nversion: 0.1.0\n")
    (root / "templates" / "job.yaml").write_text(TEMPLATE)
    (root / "values.yaml").write_text("replicas: 4\n")
    return tmp_path / "charts"


def test_a_chart_directory_gives_no_gang000_and_a_note_naming_helm_template(tmp_path):
    report = lint([str(chart(tmp_path))])
    assert [f.code for f in report.findings] == []
    assert sorted(p.rsplit("/", 1)[-1] for p in report.charts) == ["Chart.yaml", "job.yaml"]
    assert "helm template" in text.render_plain(report)


@pytest.mark.parametrize(
    "name, body, expected",
    [
        ("x/Chart.yaml", "apiVersion: v2\n", True),
        ("x/templates/job.yaml", TEMPLATE, True),
        ("x/templates/plain.yaml", "apiVersion: v1\nkind: ConfigMap\n", False),
        ("manifests/job.yaml", TEMPLATE, False),  # not in a chart: its YAML error is reported
        ("<stdin>", TEMPLATE, False),
    ],
)
def test_what_counts_as_a_chart_source(name, body, expected):
    assert is_chart_source(name, body) is expected


def test_a_template_outside_any_chart_is_still_reported_as_malformed(tmp_path):
    path = tmp_path / "job.yaml"
    path.write_text(TEMPLATE)
    assert [f.code for f in lint([str(path)]).findings] == ["GANG000"]
