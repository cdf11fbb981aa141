"""Finding paths to file lines, including paths into YAML embedded in ConfigMap strings."""

from __future__ import annotations

import pytest
import yaml

from gpufleet.kubetypes.fieldpath import ROOT
from gpufleet.lint.locate import line_of

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


CONFIG = ROOT.child("data").key("controller_manager_config.yaml")


@pytest.mark.parametrize(
    "path, line",
    [
        (ROOT, 1),
        (ROOT.child("metadata", "annotations").key("kueue.x-k8s.io/pod-group-total-count"), 5),
        (CONFIG, 7),
        (CONFIG.child("waitForPodsReady", "timeout"), 11),
        (CONFIG.child("waitForPodsReady", "requeuingStrategy"), 10),  # missing: its parent
        (ROOT.child("data", "list").index(1), 14),
        (ROOT.child("data", "list").index(7), 12),
        (ROOT.child("spec", "nothing"), 1),
    ],
)
def test_a_path_resolves_to_the_line_of_the_deepest_node_it_reaches(path, line):
    assert line_of(yaml.compose(TEXT), path) == line


def test_without_a_node_there_is_no_line():
    assert line_of(None, ROOT.child("spec")) is None
