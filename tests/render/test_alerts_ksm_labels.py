"""ksm_label names Kubernetes labels as kube-state-metrics v2.20.0 does.

Cases translated from ``internal/store/utils_test.go`` TestKubeLabelsToPrometheusLabels
(the single-key cases; the ``_conflictN`` cases are out of scope, see ``ksm_label``).
"""

from __future__ import annotations

import pytest

from gpufleet.render.alerts import ksm_label


@pytest.mark.parametrize(
    "key, expected",
    [
        ("app1", "label_app1"),
        ("0_app3", "label_0_app3"),
        ("", "label_"),
        ("$app4", "label__app4"),
        ("_app5", "label__app5"),
        ("camelCase", "label_camel_case"),
        ("snake_camelCase", "label_snake_camel_case"),
        ("gpufleet.dev/gang", "label_gpufleet_dev_gang"),
        ("cloud.google.com/gke-nodepool", "label_cloud_google_com_gke_nodepool"),
    ],
)
def test_label_names_match_kube_state_metrics(key, expected):
    assert ksm_label(key) == expected
