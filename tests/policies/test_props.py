"""The adapter's reading of what Pulumi hands a policy: type tokens, numbers, unknowns, secrets."""

from __future__ import annotations

import pytest
from pulumi_policy import Secret
from pulumi_policy.deserialize import deserialize_properties
from pulumi_policy.proxy import UNKNOWN_NUMBER_VALUE, UNKNOWN_STRING_VALUE, UnknownValueError, unknown_checking_proxy

from gpufleet.policypack.props import manifest, normalise_number, plain, restore, split_type
from tests.policies.builders import volcano_job


@pytest.mark.parametrize(
    "token, expected",
    [
        ("kubernetes:batch/v1:Job", ("batch/v1", "Job")),
        ("kubernetes:batch.volcano.sh/v1alpha1:Job", ("batch.volcano.sh/v1alpha1", "Job")),
        ("kubernetes:core/v1:ConfigMap", ("v1", "ConfigMap")),
        ("kubernetes:kueue.x-k8s.io/v1beta2:LocalQueue", ("kueue.x-k8s.io/v1beta2", "LocalQueue")),
        ("kubernetes:scheduling.k8s.io/v1:PriorityClass", ("scheduling.k8s.io/v1", "PriorityClass")),
    ],
)
def test_a_kubernetes_type_token_maps_to_the_manifests_api_version_and_kind(token, expected):
    assert split_type(token) == expected


@pytest.mark.parametrize(
    "token",
    [
        "kubernetes:helm.sh/v4:Chart",
        "kubernetes:helm.sh/v3:Release",
        "kubernetes:yaml/v2:ConfigGroup",
        "pulumi:providers:kubernetes",
        "gpufleet:index:KueueFleet",
        "tls:index/privateKey:PrivateKey",
        "kubernetes::Job",
    ],
)
def test_types_that_are_not_kubernetes_objects_map_to_nothing(token):
    assert split_type(token) is None
    assert manifest(token, {"values": {}}) is None


@pytest.mark.parametrize("value, expected", [(16.0, 16), (0.0, 0), (-2.0, -2), (0.5, 0.5), ("8", "8"), (True, True)])
def test_integral_floats_become_ints_and_everything_else_is_kept(value, expected):
    result = normalise_number(value)
    assert result == expected and type(result) is type(expected)


def test_numbers_nested_anywhere_in_the_props_are_normalised():
    props = unknown_checking_proxy(
        deserialize_properties({"spec": {"minAvailable": 4.0, "tasks": [{"replicas": 8.0}]}})
    )
    found = manifest("kubernetes:batch.volcano.sh/v1alpha1:Job", props)
    assert found.obj["spec"] == {"minAvailable": 4, "tasks": [{"replicas": 8}]}
    assert type(found.obj["spec"]["tasks"][0]["replicas"]) is int


def test_reading_props_with_unknowns_does_not_raise_and_records_where_they_are():
    raw = volcano_job()
    raw["spec"]["minAvailable"] = UNKNOWN_NUMBER_VALUE
    raw["spec"]["tasks"][0]["template"]["spec"]["containers"][0]["image"] = UNKNOWN_STRING_VALUE
    props = unknown_checking_proxy(deserialize_properties(raw))
    with pytest.raises(UnknownValueError):
        _ = props["spec"]["minAvailable"]  # what a naive policy would hit
    found = manifest("kubernetes:batch.volcano.sh/v1alpha1:Job", props)
    assert found.has_unknowns
    assert sorted(found.unknown_paths()) == ["spec.minAvailable", "spec.tasks[0].template.spec.containers[0].image"]
    assert found.unknown_error("GANG001 would flag it").message.startswith("GANG001 would flag it (")


def test_unknowns_only_in_status_or_server_set_metadata_do_not_count():
    raw = volcano_job()
    raw["status"] = {"state": UNKNOWN_STRING_VALUE}
    raw["metadata"]["uid"] = UNKNOWN_STRING_VALUE
    found = manifest("kubernetes:batch.volcano.sh/v1alpha1:Job", unknown_checking_proxy(deserialize_properties(raw)))
    assert not found.has_unknowns


def test_api_version_and_kind_come_from_the_type_token_when_the_inputs_lack_them_and_are_dropped_again():
    found = manifest("kubernetes:core/v1:ConfigMap", {"metadata": {"name": "c"}, "data": {"k": "v"}})
    assert (found.obj["apiVersion"], found.obj["kind"]) == ("v1", "ConfigMap")
    assert restore(found.obj, found) == {"metadata": {"name": "c"}, "data": {"k": "v"}}


def test_secrets_are_read_as_plain_values_and_marked_secret_again_on_restore():
    raw = {
        "spec": {"token": {"4dabf18193072939515e22adb298388d": "1b47061264138c4ac30d75fd1eb44270", "value": "s3cr3t"}}
    }
    props = deserialize_properties(raw, True)  # what Remediate receives
    found = manifest("kubernetes:batch/v1:Job", props)
    assert found.obj["spec"]["token"] == "s3cr3t"
    fixed = restore(found.obj, found)
    assert isinstance(fixed["spec"]["token"], Secret) and fixed["spec"]["token"].value == "s3cr3t"


def test_plain_copies_do_not_share_structure_with_the_input():
    source = {"a": [{"b": 1}]}
    copy = plain(source)
    copy["a"][0]["b"] = 2
    assert source == {"a": [{"b": 1}]}
