"""Finding paths to file lines, including paths into YAML embedded in ConfigMap strings."""

from __future__ import annotations

import pytest
import yaml

from gpufleet.lint.locate import line_of, split_path

TEXT = """\
apiVersion: v1
kind: ConfigMap
metadata:
  annotations:
    kueue.x-k8s.io/pod-group-total-count: "2"
data:
  controller_manager_config.yaml: |
    apiVersion: config.kueue.x-k8s.io/v1beta2
    kind: Configuration
    waitForPodsReady:
      timeout: 5m
  list:
  - a
  - b
"""


@pytest.mark.parametrize("path, parts", [
    ("spec.tasks[1].template", ["spec", "tasks", 1, "template"]),
    ("metadata.annotations[kueue.x-k8s.io/pod-group-total-count]", ["metadata", "annotations", "kueue.x-k8s.io/pod-group-total-count"]),
    ("", []),
])
def test_paths_split_into_keys_and_indexes(path, parts):
    assert split_path(path) == parts


@pytest.mark.parametrize("path, line", [
    ("", 1),
    ("metadata.annotations[kueue.x-k8s.io/pod-group-total-count]", 5),
    ("data[controller_manager_config.yaml]", 7),
    ("data[controller_manager_config.yaml].waitForPodsReady.timeout", 11),
    ("data[controller_manager_config.yaml].waitForPodsReady.requeuingStrategy", 10),   # missing: its parent
    ("data.list[1]", 14),
    ("data.list[7]", 12),
    ("spec.nothing", 1),
])
def test_a_path_resolves_to_the_line_of_the_deepest_node_it_reaches(path, line):
    assert line_of(yaml.compose(TEXT), path) == line


def test_without_a_node_there_is_no_line():
    assert line_of(None, "spec") is None
