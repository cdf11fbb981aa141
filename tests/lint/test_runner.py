"""Linting inputs end to end: findings placed at file:line, List prefixes, select/ignore, summary and exit code."""

from __future__ import annotations

from gpufleet.lint import lint
from tests.lint import manifests as m


def test_a_finding_points_at_the_line_of_the_field_its_path_names(tmp_path):
    path = m.write(tmp_path, "job.yaml", m.probed_job())
    [finding] = lint([str(path)], select=["GANG301"]).findings
    assert (finding.file, finding.line, finding.path) == (
        str(path),
        17,
        "spec.tasks[0].template.spec.containers[0].livenessProbe",
    )


def test_findings_of_list_items_carry_the_item_path(tmp_path):
    items = "\n".join("  " + line for line in ("- " + m.probed_job().replace("\n", "\n  ")).splitlines())
    path = m.write(tmp_path, "list.yaml", "apiVersion: v1\nkind: List\nitems:\n" + items + "\n")
    [finding] = lint([str(path)], select=["GANG301"]).findings
    assert finding.path == "items[0].spec.tasks[0].template.spec.containers[0].livenessProbe"
    assert finding.line == 20


def test_malformed_yaml_is_a_gang000_finding_with_its_line_and_exit_code_one(tmp_path):
    path = m.write(tmp_path, "bad.yaml", "apiVersion: v1\nkind: Pod\nmetadata:\n  name: x\n   bad: 1\n")
    report = lint([str(path)])
    assert [(f.code, f.line) for f in report.findings] == [("GANG000", 5)]
    assert report.exit_code == 1


def test_select_and_ignore_apply_to_gang000_too(tmp_path):
    path = m.write(tmp_path, "bad.yaml", "kind: [\n")
    assert lint([str(path)], ignore=["GANG000"]).findings == []
    assert lint([str(path)], select=["GANG3"]).findings == []
    assert [f.code for f in lint([str(path)], select=["GANG0"]).findings] == ["GANG000"]


def test_the_summary_counts_files_objects_errors_warnings_and_waivers(tmp_path):
    waived = m.probed_job("waived").replace(
        "  namespace: research\n",
        "  namespace: research\n  annotations:\n    waive.gpufleet.dev/GANG301: watchdog probe only\n",
    )
    m.write(tmp_path, "a.yaml", m.probed_job() + "---\n" + waived)
    m.write(tmp_path, "b.yaml", m.UNBOUNDED_CONFIG)
    report = lint([str(tmp_path)], select=["GANG301", "GANG503"])
    assert report.summary() == {"files": 2, "objects": 3, "errors": 1, "warnings": 1, "waived": 1}
    assert report.exit_code == 1


def test_warnings_and_waived_errors_exit_zero(tmp_path):
    m.write(tmp_path, "b.yaml", m.UNBOUNDED_CONFIG)
    report = lint([str(tmp_path)])
    assert [f.code for f in report.findings] == ["GANG503"] and report.exit_code == 0


def test_standard_input_is_linted_under_its_own_name():
    [finding] = lint(["-"], stdin_text=m.probed_job(), select=["GANG301"]).findings
    assert (finding.file, finding.line) == ("<stdin>", 17)


def test_objects_of_every_file_are_related_in_one_run(tmp_path):
    m.write(
        tmp_path,
        "pc.yaml",
        "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: gang-high}\nvalue: 10\n",
    )
    m.write(
        tmp_path,
        "job.yaml",
        m.probed_job().replace("  minAvailable: 2\n", "  minAvailable: 2\n  priorityClassName: gang-high\n"),
    )
    assert [f.code for f in lint([str(tmp_path)], select=["GANG504"]).findings] == ["GANG504"]


def test_yaml_files_without_kubernetes_objects_are_skipped_and_counted(tmp_path):
    m.write(tmp_path, "values.yaml", "image:\n  tag: v1\n")
    m.write(tmp_path, "cfg.yaml", m.CLEAN_CONFIG)
    report = lint([str(tmp_path)])
    assert (report.findings, report.skipped, report.exit_code) == ([], [str(tmp_path / "values.yaml")], 0)
